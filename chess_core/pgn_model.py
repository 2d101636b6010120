"""What the PGN reader returns and the writer shares with it: games, lines, errors, tag words.

See :mod:`chess_core.pgn` for the format choices; this module holds the values and the small
pure helpers (clock text, tag escaping, termination words) that both directions use.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Optional

from .clock import format_pgn_clk
from .game import Game
from .move import Move
from .outcome import DRAWS, Outcome, Termination
from .squares import BLACK, WHITE

SEVEN_TAG_ROSTER = ("Event", "Site", "Date", "Round", "White", "Black", "Result")
ROSTER_DEFAULTS = {"Event": "?", "Site": "?", "Date": "????.??.??", "Round": "?",
                   "White": "?", "Black": "?"}
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")

# The words of the PGN standard (8.2.2.2) for the Termination tag.
PGN_TERMINATIONS = ("abandoned", "adjudication", "death", "emergency", "normal", "rules infraction",
                    "time forfeit", "unterminated")
_TAG_WORD = {
    Termination.TIME_FORFEIT: "time forfeit",
    Termination.TIME_VS_INSUFFICIENT: "time forfeit",
    Termination.ABANDONED: "abandoned",
}

TAG_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_+#=:-]*")
# python-chess's spelling: any number of digits, any decimals; we round to the millisecond.
CLK_RE = re.compile(r"\[%clk\s+(\d+):(\d+):(\d+(?:\.\d*)?)\s*\]")
NAG_SUFFIXES = {"!": 1, "?": 2, "!!": 3, "??": 4, "!?": 5, "?!": 6}


def termination_word(outcome: Optional[Outcome]) -> str:
    """The PGN-standard Termination tag for an outcome: 'normal', 'time forfeit', 'abandoned'...

    >>> termination_word(Outcome(Termination.CHECKMATE, WHITE)), termination_word(None)
    ('normal', 'unterminated')
    """
    if outcome is None:
        return "unterminated"
    return _TAG_WORD.get(outcome.termination, "normal")


def reason_text(outcome: Outcome) -> str:
    """The sentence written after the last move: 'White wins by checkmate.'"""
    return outcome.describe() + "."


_REASON_RE = re.compile(r"(?:(White|Black) wins (?:by (?P<how>[a-z -]+)|(?P<time>on time))"
                        r"|Draw by (?P<draw>[a-z -]+))\.?", re.IGNORECASE)
_TERMINATION_VALUES = {t.value: t for t in Termination}


def parse_reason(text: str) -> Optional[Outcome]:
    """The outcome that a reason sentence of ours names, or None when it is not one.

    >>> parse_reason("Black wins on time.")
    Outcome(termination=<Termination.TIME_FORFEIT: 'time forfeit'>, winner=1)
    """
    m = _REASON_RE.fullmatch(" ".join(text.split()))
    if not m:
        return None
    if m.group("draw"):
        term = _TERMINATION_VALUES.get(m.group("draw").lower())
        return Outcome(term) if term in DRAWS or term == Termination.ABANDONED else None
    winner = WHITE if m.group(1).lower() == "white" else BLACK
    if m.group("time"):
        return Outcome(Termination.TIME_FORFEIT, winner)
    term = _TERMINATION_VALUES.get(m.group("how").lower())
    if term is None or term in DRAWS or term == Termination.TIME_FORFEIT:
        return None
    return Outcome(term, winner)


def clk_text(ms: int) -> str:
    """The time of a ``[%clk]`` command: ``chess_core.clock.format_pgn_clk`` (tenths, cut)."""
    return format_pgn_clk(ms)


def parse_clk(hours: str, minutes: str, seconds: str) -> int:
    """Milliseconds from the three fields of a ``[%clk H:MM:SS.s]``, rounded to the ms."""
    total = (int(hours) * 60 + int(minutes)) * 60 + Fraction(seconds.rstrip(".") or "0")
    return round(total * 1000)


def escape_tag_value(value: str) -> str:
    """A tag value as PGN writes it: one line, with backslash and quote escaped."""
    value = re.sub(r"\r\n|\r|\n", " ", str(value))
    return value.replace("\\", "\\\\").replace('"', '\\"')


def unescape_tag_value(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


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
    """

    headers: dict[str, str]
    game: Game
    clocks: list[Optional[int]]
    comments: dict[int, str]
    nags: dict[int, list[int]] = field(default_factory=dict)
    variations: dict[int, list[PgnLine]] = field(default_factory=dict)
    result: str = "*"
    lang: str = "en"
    warnings: list[str] = field(default_factory=list)
    number: int = 1

    @property
    def moves(self) -> list[Move]:
        return self.game.moves

    def pgn(self) -> str:
        """The game written back (main line, tags, clocks, comments and NAGs; no variations).

        The Result tag follows the game's outcome, as the writer does.
        """
        from .pgn_writer import write_pgn
        headers = {name: value for name, value in self.headers.items() if name != "Result"}
        return write_pgn(self.game, headers, self.clocks, comments=self.comments, nags=self.nags)


class PgnError(ValueError):
    """A game of a PGN text that cannot be read; says which game, which move and why.

    ``number`` is the game's 1-based place in the text, ``white``/``black`` its player tags (None
    when absent), ``ply`` the 1-based ply of the move in error (None when the problem is not a
    move), ``move`` that move as written, ``line`` the line of the text where it stands.
    """

    def __init__(self, problem: str, *, number: int, white: Optional[str] = None,
                 black: Optional[str] = None, ply: Optional[int] = None, move: Optional[str] = None,
                 line: Optional[int] = None, label: Optional[str] = None) -> None:
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
