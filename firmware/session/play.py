"""What one game at the board adds to its match: the opponent's move awaited, offers, notices, problems; one value per game.

A :class:`Play` is made anew, whole, when a game begins, when a saved game is restored and when
a server's sync brings another game (the same online game continued keeps its chat, notice and
problems); during the game each change is a new value, which the session alone keeps. Nothing here reads the time or the board.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from chess_core import Move, Outcome, Position

from firmware.words import Message, illegal_text

__all__ = ["Play", "ProblemLog", "CHAT_KEPT"]

CHAT_KEPT = 30   # chat lines kept for the page


@dataclass(frozen=True)
class ProblemLog:
    """The problems of one game, as messages (firmware.words: said in any language), and the one
    that says what to do with the wrong board (reworded while the board changes, gone once it is
    right). A value: each change is a new log."""

    entries: tuple[tuple[float, Message], ...] = ()   # (time, what to say)
    board: tuple[float, Message] | None = None     # the wrong board's problem, while it lasts

    def add(self, time: float, message: Message) -> ProblemLog:
        return replace(self, entries=self.entries + ((time, message),))

    def wrong_board(self, time: float, pos: Position, occupied: int) -> ProblemLog:
        """The board explains no move: say what to do, in the players' words (SAN, pieces by name)."""
        problem = (time, illegal_text(pos, occupied))
        return ProblemLog(self.entries + (problem,), problem)

    def reword(self, pos: Position, occupied: int) -> ProblemLog:
        """The board changed while wrong (a piece added, say): its problem, the same one, says what
        to do with the board as it is now."""
        key = self.board
        if key is None or key not in self.entries:
            return self
        new = (key[0], illegal_text(pos, occupied))
        return ProblemLog(tuple(new if entry == key else entry for entry in self.entries), new)

    def board_right(self) -> ProblemLog:
        """The board is right again: no problem says what to do with it."""
        return self if self.board is None else replace(self, board=None)


@dataclass(frozen=True)
class Play:
    """The per-game state beside the match; see the module docstring. A value: each change is a new Play."""

    expected_move: Move | None = None    # the opponent's move, to be carried out on the board
    takeback_move: Move | None = None    # taken back: the board must show the position before it
    draw_offer: int | None = None        # the side whose draw offer stands
    pending_end: Outcome | None = None   # the other end's result, once its last move is on the board
    restored_plies: int = 0              # moves made before a restart, or online: final
    new_online_game: bool = False        # what is being set up is a game new to the board, from the other end
    chat_lines: tuple[tuple[str, str], ...] = ()   # the online game's chat: (username, text)
    notice: tuple[Message, int] | None = None   # (what to say, the ply it stands for) until a move
    problems: ProblemLog = field(default_factory=ProblemLog)
    # A sensor just found faulty: its square lit in the problem colour until the time given.
    alarm: tuple[int, float] | None = None

    def ended(self) -> Play:
        """The game has ended: nothing is awaited or offered any more."""
        return replace(self, expected_move=None, draw_offer=None, takeback_move=None)

    def chatted(self, username: str, text: str) -> Play:
        return replace(self, chat_lines=(self.chat_lines + ((username, text),))[-CHAT_KEPT:])

    def told(self, message: Message, ply: int) -> Play:
        """A notice shown on the page until the next move (``ply``: the moves made when it came)."""
        return replace(self, notice=(message, ply))

    def with_problem(self, time: float, message: Message) -> Play:
        return replace(self, problems=self.problems.add(time, message))

    def current_notice(self, ply: int, over: bool) -> Message | None:
        notice = self.notice
        return notice[0] if notice is not None and notice[1] == ply and not over else None
