"""Commands given with the pieces: resign, draw and promotion choice read from the settled occupancy.

A board without buttons or screen still needs a few commands. They are gestures that occupancy
sensors can see, recognised by a small state machine fed with the settled occupancy, the
expected position's occupancy and the kings' squares, and with the time passed in:

* **Resign**: the player to move lifts their king and keeps it off the board for ``resign_s``
  (3 s): nothing else may be off the board or out of place meanwhile.
* **Draw**: both kings lifted together for ``draw_s`` (2 s). The session turns it into a claim
  when one is valid, else into an offer, or the acceptance of a pending offer.
* **Promotion choice**: after a promotion and until the next move, lifting the new piece and
  putting it back on its square cycles queen -> rook -> bishop -> knight -> queen.

Optional GPIO buttons send the same gestures through :data:`BUTTONS`.
"""
from __future__ import annotations

from dataclasses import dataclass

from chess_core import BISHOP, KNIGHT, QUEEN, ROOK

PROMOTION_CYCLE = (QUEEN, ROOK, BISHOP, KNIGHT)


@dataclass(frozen=True)
class Resign:
    color: int


@dataclass(frozen=True)
class DrawGesture:
    """Both kings held off: claim, offer or accept, as the session decides."""


@dataclass(frozen=True)
class CyclePromotion:
    square: int


Gesture = Resign | DrawGesture | CyclePromotion

BUTTONS = {
    "resign_white": Resign(0),
    "resign_black": Resign(1),
    "draw": DrawGesture(),
}
"""Button names (in the pin map) and the gestures they stand for; "promote" cycles the piece."""


def next_promotion(piece_type: int) -> int:
    """The piece after ``piece_type`` in the cycle queen -> rook -> bishop -> knight -> queen."""
    return PROMOTION_CYCLE[(PROMOTION_CYCLE.index(piece_type) + 1) % len(PROMOTION_CYCLE)]


@dataclass(frozen=True)
class Hold:
    """A gesture being held: its squares, kind ("resign" or "draw"), the side to move, and when
    it began and completes; ``fired`` once it has been reported."""

    squares: int
    kind: str
    turn: int
    since: float
    due: float
    fired: bool = False


class GestureTracker:
    """Recognises gestures from settled occupancy; pure: the time is always passed in.

    Call ``observe`` with each settled reading, ``poll`` when ``next_deadline`` comes, and tell
    it about promotions with ``promotion_made(square)`` / ``promotion_closed()``.
    """

    def __init__(self, resign_s: float = 3.0, draw_s: float = 2.0) -> None:
        self.resign_s = resign_s
        self.draw_s = draw_s
        self.hold: Hold | None = None
        self.promotion_square: int | None = None
        self._promotion_lifted = False

    def reset(self) -> None:
        self.hold = None
        self.promotion_closed()

    def promotion_made(self, square: int) -> None:
        """A pawn was just promoted on ``square``: lifting and replacing it now cycles the piece."""
        self.promotion_square = square
        self._promotion_lifted = False

    def promotion_closed(self) -> None:
        """The opponent moved: the promotion is final."""
        self.promotion_square = None
        self._promotion_lifted = False

    def observe(self, now: float, occupied: int, expected: int, kings: tuple[int, int],
                turn: int) -> list[Gesture]:
        """A settled reading at ``now``; returns the gestures completed by it."""
        missing = expected & ~occupied
        extra = occupied & ~expected
        found: list[Gesture] = []
        if self.promotion_square is not None:
            bit = 1 << self.promotion_square
            if missing == bit and not extra:
                self._promotion_lifted = True
            elif missing or extra:
                self._promotion_lifted = False
            elif self._promotion_lifted:
                self._promotion_lifted = False
                found.append(CyclePromotion(self.promotion_square))
        self._track(now, missing, extra, kings, turn)
        return found + self.poll(now)

    def poll(self, now: float) -> list[Gesture]:
        """Gestures whose hold time has run out by ``now`` (each fires once)."""
        hold = self.hold
        if hold is None or hold.fired or now < hold.due:
            return []
        self.hold = Hold(hold.squares, hold.kind, hold.turn, hold.since, hold.due, fired=True)
        return [Resign(hold.turn) if hold.kind == "resign" else DrawGesture()]

    def next_deadline(self) -> float | None:
        hold = self.hold
        return hold.due if hold is not None and not hold.fired else None

    def _track(self, now: float, missing: int, extra: int, kings: tuple[int, int], turn: int) -> None:
        white, black = (1 << k if k >= 0 else 0 for k in kings)
        own = white if turn == 0 else black
        if extra:
            kind = None
        elif own and missing == own:
            kind, hold_s = "resign", self.resign_s
        elif white and black and missing == white | black:
            kind, hold_s = "draw", self.draw_s
        else:
            kind = None
        if kind is None:
            self.hold = None
        elif self.hold is None or self.hold.kind != kind:
            self.hold = Hold(missing, kind, turn, now, now + hold_s)
