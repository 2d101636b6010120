"""What one game at the board adds to its match: the opponent's move awaited, offers, notices, problems; one value per game.

A :class:`Play` is made anew, whole, when a game begins, when a saved game is restored and when
a server's sync brings another game (the same online game continued keeps its chat, notice and
problems); during the game its fields change one by one. Nothing here reads the time or the board.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from chess_core import Move, Outcome, Position

from firmware.words import illegal_text

__all__ = ["Play", "ProblemLog", "CHAT_KEPT"]

CHAT_KEPT = 30   # chat lines kept for the page


@dataclass
class ProblemLog:
    """The problems of one game, in English with their French words, and the one that says what
    to do with the wrong board (reworded while the board changes, gone once it is right)."""

    entries: list[tuple[float, str]] = field(default_factory=list)   # (time, English words)
    french: dict[tuple[float, str], str] = field(default_factory=dict)
    board: tuple[float, str] | None = None     # the wrong board's problem, while it lasts

    def add(self, time: float, text: str, fr: str | None = None) -> None:
        self.entries.append((time, text))
        if fr is not None:
            self.french[(time, text)] = fr

    def wrong_board(self, time: float, pos: Position, occupied: int) -> None:
        """The board explains no move: say what to do, in the players' words (SAN, pieces by name)."""
        text = illegal_text(pos, occupied, "en")
        self.french = {p: t for p, t in self.french.items() if p in self.entries}
        self.french[(time, text)] = illegal_text(pos, occupied, "fr")
        self.board = (time, text)
        self.entries.append((time, text))

    def reword(self, pos: Position, occupied: int) -> None:
        """The board changed while wrong (a piece added, say): its problem, the same one, says what
        to do with the board as it is now, in both languages."""
        key = self.board
        if key is None or key not in self.entries:
            return
        new = (key[0], illegal_text(pos, occupied, "en"))
        self.entries[self.entries.index(key)] = new
        self.french[new] = illegal_text(pos, occupied, "fr")
        self.board = new

    def in_french(self) -> tuple[str, ...]:
        return tuple(self.french.get(p, p[1]) for p in self.entries)


@dataclass
class Play:
    """The per-game state beside the match; see the module docstring."""

    expected_move: Move | None = None    # the opponent's move, to be carried out on the board
    takeback_move: Move | None = None    # taken back: the board must show the position before it
    draw_offer: int | None = None        # the side whose draw offer stands
    pending_end: Outcome | None = None   # the other end's result, once its last move is on the board
    restored_plies: int = 0              # moves made before a restart, or online: final
    new_online_game: bool = False        # what is being set up is a game new to the board, from the other end
    chat_lines: list[tuple[str, str]] = field(default_factory=list)   # the online game's chat: (username, text)
    notice: tuple[str, str, int] | None = None   # (English, French, the ply it stands for) until a move
    problems: ProblemLog = field(default_factory=ProblemLog)
    # A frame the page asked the LEDs to show while no game is live (the library's moves of a game
    # reviewed), and the settled board it stands on: gone once the board changes or a game begins.
    shown: tuple[int, ...] | None = None
    shown_on: object = None
    # A sensor just found faulty: its square lit in the problem colour until the time given.
    alarm: tuple[int, float] | None = None

    def game_over(self) -> None:
        """The game has ended: nothing is awaited or offered any more."""
        self.expected_move = self.draw_offer = self.takeback_move = None

    def chat(self, username: str, text: str) -> None:
        self.chat_lines = (self.chat_lines + [(username, text)])[-CHAT_KEPT:]

    def tell(self, en: str, fr: str, ply: int) -> None:
        """A notice shown on the page until the next move (``ply``: the moves made when it came)."""
        self.notice = (en, fr, ply)

    def show_on_leds(self, frame: tuple[int, ...] | None) -> None:
        """Show ``frame`` on the LEDs instead of the game's while no game is live (None: stop)."""
        self.shown, self.shown_on = frame, None

    def leds_shown(self, board: object, playing: bool) -> tuple[int, ...] | None:
        """The frame asked for, while no game is being played (``playing``: live, a move made) and
        the settled ``board`` is the one it was first shown on; None else (and it is forgotten)."""
        if self.shown is not None and self.shown_on is None:
            self.shown_on = board
        if self.shown is not None and (playing or board is not self.shown_on):
            self.shown = self.shown_on = None
        return self.shown

    def current_notice(self, ply: int, over: bool) -> tuple[str, str] | None:
        notice = self.notice
        return (notice[0], notice[1]) if notice is not None and notice[2] == ply and not over else None
