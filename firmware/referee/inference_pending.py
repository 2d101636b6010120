"""The move inference's waiting hypotheses: moves complete on the board (or swept-capture candidates) not committed yet, the likeliest first.

Each :class:`Pending` holds the candidates that explain one board, each read from after its move
(a :class:`~firmware.referee.inference_frame.Frame`: the opponent's side), and when and how it may
be committed: its timer (``deadline``, running only while the board stays as it showed it), or a
later reading. ``added`` keeps the list in order (a move seen on the board before a swept capture
that was not, the newest first); ``due`` names the one whose timer runs. Pure, no time read.
"""
from __future__ import annotations

from dataclasses import dataclass

from chess_core import Move

from firmware.referee.inference_frame import Evaluation, Fit, Frame
from firmware.referee.reading_check import Sensed

__all__ = ["Candidate", "Pending", "UNREAD", "continues", "added", "due"]

# A candidate's fit before any reading was seen from its frame: it fits nothing, so it is never
# evidence for the candidate (every candidate gets its real fit in feed() before it is judged).
UNREAD = Evaluation(Fit.NONE)


@dataclass
class Candidate:
    move: Move
    frame: Frame                      # from the position after ``move``: the opponent's side
    fit: Evaluation = UNREAD          # the last reading seen from there
    prev: Evaluation = UNREAD         # the reading before it


@dataclass
class Pending:
    """A move complete on the board (or swept-capture candidates) not yet committed."""

    amend: bool                 # committing it amends the last move instead of adding one
    candidates: list[Candidate]
    time: float                 # when the board showed it
    reading: Sensed             # the reading that showed it; the timer runs only while it stays
    deadline: float | None      # None: only a later reading can resolve it
    swept: bool = False         # swept-capture candidates (the mover may still be in the hand)
    fresh: bool = True          # no reading since it was made
    # The readings since (time, reading), to read them again from after a candidate chosen late;
    # None once too many to keep.
    history: list[tuple[float, Sensed]] | None = None

    def __post_init__(self) -> None:
        if self.history is None:
            self.history = []

    def rank(self) -> tuple[bool, float]:
        return (self.swept, -self.time)

    def same(self, other: Pending) -> bool:
        return self.amend == other.amend and [c.move for c in self.candidates] == [c.move for c in other.candidates]


def continues(p: Pending, c: Candidate, to_move: Evaluation) -> bool:
    """Does the opponent's start from after the swept capture ``c`` also fit the mover still
    capturing (``to_move``: the board as the side to move's frame reads it)? (Lifting a piece the
    lifted piece can take continues that capture: no unseen event, where the swept capture needs one.)"""
    return p.swept and any(s.victims & c.frame.started() for s in to_move.shapes())


def added(pendings: list[Pending], pending: Pending) -> list[Pending]:
    """``pendings`` with ``pending`` in its place (replacing the same hypothesis), likeliest first."""
    found = [p for p in pendings if not p.same(pending)]
    found.append(pending)
    found.sort(key=Pending.rank)
    return found


def due(pendings: list[Pending], reading: Sensed) -> Pending | None:
    """The pending move whose timer runs: the board (``reading``) still shows it; a swept capture
    only when no other hypothesis is left."""
    for p in pendings:
        if p.deadline is not None and p.reading == reading:
            if p.swept and len(pendings) > 1:
                continue
            return p
    return None
