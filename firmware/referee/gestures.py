"""Commands given with the pieces: results set with the kings, read from the settled readings (pure).

A board without buttons or screen still needs a few commands. They must be gestures that normal
play never produces, so that no hesitation, no piece held while thinking, no capture made in an
odd order can fire one. They are read by a small state machine fed with the settled occupancy
(and colours, on a colour-sensing board), the expected position's occupancy and the kings'
squares, with the time passed in; it returns frozen gestures.

* **Result** (as on DGT boards): both kings set side by side on the centre squares, which no
  legal position allows (kings are never adjacent), everything else where it stands, and held
  for ``resign_s`` (3 s; ``draw_s``, 2 s, for a draw):

  - both on the light squares d5 and e4: 1-0 (:class:`Resign` of Black);
  - both on the dark squares d4 and e5: 0-1 (:class:`Resign` of White);
  - one on a light and one on a dark square: ½-½ (:class:`DrawGesture`: the session claims a
    draw when one is valid, accepts an offer, agrees it over the board, or offers it to an
    engine or an online opponent).

  While it is held, ``progress(now)`` gives a frozen :class:`GestureProgress` (the countdown, for
  the LEDs and the page). Taking a king off the centre before the end cancels it. For ``undo_s``
  (5 s) after it fired, putting the kings back on their squares (the board as before) takes the
  result back (:class:`GestureUndone`). Lifting a king, holding it, putting it back or anywhere
  else is never a gesture.
* **Promotion**: none. A promotion is to a queen unless the page or the ``promote`` button chose
  otherwise; the usual exchange (the pawn set on the last rank, then lifted off and the new piece
  set down on that square, after any pause, however often it is straightened) is no command: on
  occupancy it cannot be told from lifting the new piece and putting it back, so no such lift
  may choose the piece.

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
    """A draw asked for: claim, offer or accept, as the session decides (``draw_decision``).
    ``together``: set with the kings, which two players over the board do together (an
    agreement); a button is one player's (an offer)."""

    together: bool = False


Gesture = Resign | DrawGesture  # (and GestureUndone, below)


def draw_decision(gesture: DrawGesture, claimable: bool, offered_by_other: bool, opponent: bool) -> str:
    """What a draw gesture does: "claim" (a claim is valid), "accept" (the other side offered),
    "agree" (the kings set together by two players over the board) or "offer" (a button, or to
    an engine or an online opponent)."""
    if claimable:
        return "claim"
    if offered_by_other:
        return "accept"
    return "agree" if gesture.together and not opponent else "offer"

BUTTONS = {
    "resign_white": Resign(0),
    "resign_black": Resign(1),
    "draw": DrawGesture(),
}
"""Button names (in the pin map) and the gestures they stand for; "promote" (the session's own)
changes the piece of the promotion just made: queen -> rook -> bishop -> knight -> queen."""


def next_promotion(piece_type: int) -> int:
    """The piece after ``piece_type`` in the cycle queen -> rook -> bishop -> knight -> queen."""
    return PROMOTION_CYCLE[(PROMOTION_CYCLE.index(piece_type) + 1) % len(PROMOTION_CYCLE)]


D4, E4, D5, E5 = 27, 28, 35, 36
CENTRE = 1 << D4 | 1 << E4 | 1 << D5 | 1 << E5
LIGHT = 1 << D5 | 1 << E4
DARK = 1 << D4 | 1 << E5
UNDO_S = 5.0


def result_of(squares: int) -> str:
    """The result two kings on the centre squares ``squares`` stand for: "1-0", "0-1" or "1/2-1/2"."""
    if squares == LIGHT:
        return "1-0"
    if squares == DARK:
        return "0-1"
    return "1/2-1/2"


@dataclass(frozen=True)
class GestureUndone:
    """The result set by a gesture was taken back (the kings back on their squares in time)."""

    result: str


@dataclass(frozen=True)
class Hold:
    """A gesture being held: its squares (the kings on the centre), kind ("resign" or "draw"),
    result ("1-0", "0-1", "1/2-1/2"), the side to move, and when it began and completes;
    ``fired`` once it has been reported."""

    squares: int
    kind: str
    turn: int
    since: float
    due: float
    fired: bool = False
    result: str = ""


@dataclass(frozen=True)
class GestureProgress:
    """What the LEDs and the page show of a gesture: building up (``fired`` False: ``left`` s to
    go) or fired and still undoable (``fired`` True: ``left`` s to take it back)."""

    kind: str
    result: str
    squares: int
    fired: bool
    left: float
    total: float

    @property
    def fraction(self) -> float:
        """How far the countdown has gone, 0..1."""
        return 1.0 if self.total <= 0 else max(0.0, min(1.0, 1.0 - self.left / self.total))

    def to_json(self) -> dict[str, object]:
        return {"kind": self.kind, "result": self.result, "fired": self.fired,
                "left_ms": int(round(self.left * 1000)), "total_ms": int(round(self.total * 1000))}


class GestureTracker:
    """Recognises gestures from settled readings; pure: the time is always passed in.

    Call ``observe`` with each settled reading while the game is live or ``undoable(now)``, and
    ``poll`` when ``next_deadline`` comes.
    """

    def __init__(self, resign_s: float = 3.0, draw_s: float = 2.0, undo_s: float = UNDO_S) -> None:
        self.resign_s = resign_s
        self.draw_s = draw_s
        self.undo_s = undo_s
        self.hold: Hold | None = None

    def reset(self) -> None:
        self.hold = None

    def undoable(self, now: float) -> bool:
        """A gesture fired less than ``undo_s`` ago: the kings put back take it back."""
        hold = self.hold
        return hold is not None and hold.fired and now < hold.due + self.undo_s

    def progress(self, now: float) -> GestureProgress | None:
        """The countdown of the gesture held, or of the time left to undo one fired; else None."""
        hold = self.hold
        if hold is None:
            return None
        if not hold.fired:
            return GestureProgress(hold.kind, hold.result, hold.squares, False, max(0.0, hold.due - now),
                                   hold.due - hold.since)
        if now < hold.due + self.undo_s:
            return GestureProgress(hold.kind, hold.result, hold.squares, True, hold.due + self.undo_s - now,
                                   self.undo_s)
        return None

    def observe(self, now: float, occupied: int, expected: int, kings: tuple[int, int],
                turn: int, white: int | None = None, black: int | None = None) -> list[Gesture | GestureUndone]:
        """A settled reading at ``now``; returns the gestures completed by it."""
        hold = self.hold
        if hold is not None and hold.fired:
            if now < hold.due + self.undo_s and occupied == expected:
                self.hold = None
                return [GestureUndone(hold.result)]
            if now >= hold.due + self.undo_s:
                self.hold = None
            return []
        self._track(now, occupied, expected, kings, turn, white, black)
        return self.poll(now)

    def poll(self, now: float) -> list[Gesture | GestureUndone]:
        """Gestures whose hold time has run out by ``now`` (each fires once)."""
        hold = self.hold
        if hold is None:
            return []
        if hold.fired:
            if now >= hold.due + self.undo_s:
                self.hold = None
            return []
        if now < hold.due:
            return []
        self.hold = Hold(hold.squares, hold.kind, hold.turn, hold.since, hold.due, True, hold.result)
        if hold.kind == "draw":
            return [DrawGesture(together=True)]
        return [Resign(1 if hold.result == "1-0" else 0)]

    def next_deadline(self) -> float | None:
        hold = self.hold
        if hold is None:
            return None
        return hold.due + self.undo_s if hold.fired else hold.due

    def _track(self, now: float, occupied: int, expected: int, kings: tuple[int, int], turn: int,
               white: int | None, black: int | None) -> None:
        squares = _kings_on_centre(occupied, expected, kings, white, black)
        if not squares:
            self.hold = None
            return
        result = result_of(squares)
        kind = "draw" if result == "1/2-1/2" else "resign"
        if self.hold is None or self.hold.squares != squares:
            self.hold = Hold(squares, kind, turn, now, now + (self.draw_s if kind == "draw" else self.resign_s),
                             result=result)


def forming(occupied: int, expected: int, kings: tuple[int, int]) -> bool:
    """Is the board on its way to a result gesture (both kings lifted, any piece set down on a
    centre square, nothing else changed)? The board then explains no move, but that is no
    problem to report to the players."""
    if kings[0] < 0 or kings[1] < 0:
        return False
    home = 1 << kings[0] | 1 << kings[1]
    missing = expected & ~occupied
    new = occupied & ~expected
    return bool(new) and not new & ~CENTRE and missing == home & ~CENTRE and new.bit_count() <= 2


def _kings_on_centre(occupied: int, expected: int, kings: tuple[int, int], white: int | None,
                     black: int | None) -> int:
    """The two centre squares the kings stand on, if the board shows the expected position with
    both kings moved there and nothing else changed (else 0)."""
    if kings[0] < 0 or kings[1] < 0:
        return 0
    home = 1 << kings[0] | 1 << kings[1]
    rest = expected & ~home
    if (occupied ^ rest) & ~CENTRE or rest & CENTRE & ~occupied:
        return 0
    squares = occupied & CENTRE & ~rest
    if squares.bit_count() != 2:
        return 0
    if white is not None and black is not None and (
            (squares & white).bit_count() != 1 or (squares & black).bit_count() != 1):
        return 0
    return squares
