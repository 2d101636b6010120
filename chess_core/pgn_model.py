"""What the PGN reader returns: games, their lines and the errors that name a game and a move."""
from __future__ import annotations

from dataclasses import dataclass, field

from .game import Game
from .move import Move
from .pgn_writer import write_pgn


@dataclass
class PgnLine:
    """A variation: moves from ``start_fen``, with its own comments, NAGs and sub-variations.

    Keys of ``comments``/``nags``/``clocks`` count the line's moves from 1 (0 = before the first);
    ``variations[k]`` are the alternatives to the line's k-th move.
    """

    start_fen: str
    moves: list[Move] = field(default_factory=list)
    san: list[str] = field(default_factory=list)
    comments: dict[int, str] = field(default_factory=dict)
    nags: dict[int, list[int]] = field(default_factory=dict)
    clocks: dict[int, int] = field(default_factory=dict)
    variations: dict[int, list["PgnLine"]] = field(default_factory=dict)


@dataclass
class PgnGame:
    """One game read from PGN.

    ``clocks[i]``: ms left on the mover's clock after move i+1 (None without a ``[%clk]``), one
    entry per move. ``comments``/``nags``: per ply, 1 = after the first move, 0 = before it.
    ``variations[p]``: the alternatives to the main line's p-th move. ``result``: the
    termination marker at the end of the movetext. ``lang``: the letters the moves used ("en" or
    "fr"). ``warnings``: what was odd but did not stop the main line (a broken variation, a
    game that went on after the rules ended it...). ``number``: 1-based place in the file.
    ``reason``: our reason comment after the last move ("White wins by checkmate."), as read,
    when the file had one (it is then not in ``comments``). ``comments_as_written``: the main
    line's comments with their commands (``[%clk]``...) where and as the file wrote them.
    ``cut``: the game went on past the reader's ``max_plies``; only its beginning was read.
    """

    headers: dict[str, str]
    game: Game
    clocks: list[int | None]
    comments: dict[int, str]
    nags: dict[int, list[int]] = field(default_factory=dict)
    variations: dict[int, list[PgnLine]] = field(default_factory=dict)
    result: str = "*"
    lang: str = "en"
    warnings: list[str] = field(default_factory=list)
    number: int = 1
    reason: str | None = None
    comments_as_written: dict[int, str] | None = None
    cut: bool = False

    @property
    def moves(self) -> list[Move]:
        return self.game.moves

    def pgn(self) -> str:
        """The game written back (main line, tags, clocks, comments and NAGs; no variations).

        Only what was read: its tags and result marker, and our reason comment if it had one
        (``write_pgn(..., derive=False)``); the comments with their commands as written (a
        ``[%clk 00:30:00]`` stays so, beside the commands it stood with), when they are known.
        """
        headers = dict(self.headers)
        headers["Result"] = self.result
        if self.comments_as_written is not None:
            return write_pgn(self.game, headers, None, self.reason, comments=self.comments_as_written,
                             nags=self.nags, derive=False)
        return write_pgn(self.game, headers, self.clocks, self.reason, comments=self.comments,
                         nags=self.nags, derive=False)


class PgnError(ValueError):
    """A game of a PGN text that cannot be read; says which game, which move and why.

    ``number`` is the game's 1-based place in the text, ``white``/``black`` its player tags (None
    when absent), ``ply`` the 1-based ply of the move in error (None when the problem is not a
    move), ``move`` that move as written, ``line`` the line of the text where it stands.
    """

    def __init__(self, problem: str, *, number: int, white: str | None = None,
                 black: str | None = None, ply: int | None = None, move: str | None = None,
                 line: int | None = None, label: str | None = None) -> None:
        self.problem = problem
        self.number = number
        self.white = white
        self.black = black
        self.ply = ply
        self.move = move
        self.line = line
        self.label = label
        super().__init__(self._message())

    @property
    def game_number(self) -> int:
        return self.number

    def _message(self) -> str:
        where = f"game {self.number}"
        if self.white is not None or self.black is not None:
            where += f" ({self.white or '?'} - {self.black or '?'})"
        if self.label is not None:
            where += f", move {self.label}"
        elif self.move is not None and self.ply is not None:
            number = (self.ply + 1) // 2
            dots = "." if self.ply % 2 else "..."
            where += f", move {number}{dots} {self.move}"
        elif self.move is not None:
            where += f", at {self.move!r}"
        if self.line is not None:
            where += f" (line {self.line})"
        return f"{where}: {self.problem}"
