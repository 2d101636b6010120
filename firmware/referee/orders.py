"""The conductor's orders to its referee, as frozen values: results, draws, takebacks, clocks, promotions, corrections, rules.

Each goes in through :meth:`firmware.referee.referee.Referee.step` with the time, like a reading
or a tick. The orders that carry nothing are the members of :class:`Order` (an enum: a class
each would cost the board's memory ten times as much); those that carry something are frozen
dataclasses. ``carry_out(match, order, now)`` carries out the match's orders on the match and
returns its events; ``Order.CLOSE_PROMOTION``, ``Order.MAKE_FINAL`` and :class:`SetGestureTimes`
are about the referee's own bookkeeping, which the referee keeps. An order the match refuses
raises what the match raises (``ValueError``, ``DrawClaimError``, ``ClockError``).

The names are the conductor's, never the gestures' (:class:`~firmware.referee.gestures.Resign` is
a gesture read on the board; :class:`ResignGame` is the order the conductor gives for it).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Union

from chess_core import Move, Outcome

from firmware.referee.match import Match, MatchEvent

__all__ = ["Order", "AnyOrder", "carry_out", "ResignGame", "ClaimDraw", "EndAsDecided", "Expect", "ChoosePromotion",
           "ChangePromotion", "Correct", "SetRules", "SetGestureTimes", "Arrange"]


class Order(enum.Enum):
    """The orders that carry nothing but the step's time.

    * ``AGREE_DRAW``: a draw agreed (an offer accepted, the kings set together, the other end's).
    * ``REOPEN``: a result decided off the board taken back (a resignation or a draw set by a
      gesture and undone in time); ``ValueError`` when the game is not over or ended on the board.
    * ``PAUSE_CLOCKS``: both clocks stopped (a player's or an arbiter's stop): no move counts until
      ``RESUME_CLOCKS``, which runs the clock of the side to move again.
    * ``TAKE_BACK``: a player's takeback of the last move, as the rules allow (``ValueError`` unless
      the match's takebacks are on, or with no move; ``ClockError`` when the clock cannot go back).
    * ``UNDO_MOVE``: the last move taken back on a decision taken off the board (an online server
      refused it), whatever the rules say about takebacks; the LEDs then guide the pieces back.
    * ``REREAD``: the settled board read again against the expected position (after ``resume``):
      the verdict says what to put right, if anything.
    * ``FINISH``: the input has ended (a capture's end): what waits is settled and committed, and a
      board left unresolved is recorded.
    * ``CLOSE_PROMOTION`` (the referee's): the promotion just made was the opponent's, its piece
      chosen over there: nobody changes it.
    * ``MAKE_FINAL`` (the referee's): the last move is final (an online game's end: the server's
      word): no promotion changed, no correction.
    """

    AGREE_DRAW = "agree_draw"
    REOPEN = "reopen"
    PAUSE_CLOCKS = "pause_clocks"
    RESUME_CLOCKS = "resume_clocks"
    TAKE_BACK = "take_back"
    UNDO_MOVE = "undo_move"
    REREAD = "reread"
    FINISH = "finish"
    CLOSE_PROMOTION = "close_promotion"
    MAKE_FINAL = "make_final"


@dataclass(frozen=True)
class ResignGame:
    """``color`` resigns (0 White, 1 Black)."""

    color: int


@dataclass(frozen=True)
class ClaimDraw:
    """A draw claimed (threefold, fifty moves), by ``move`` when the move brings it about;
    ``DrawClaimError`` when the claim is not valid."""

    move: Move | None = None


@dataclass(frozen=True)
class EndAsDecided:
    """The game ends with ``outcome`` decided elsewhere (the other end of an online game), whose
    word is final; nothing when it is over."""

    outcome: Outcome


@dataclass(frozen=True)
class Expect:
    """Only ``move`` (the opponent's, announced at the step's time) may be made next; the time the
    hand spends carrying it out is the player's. None: any move again (the one announced withdrawn,
    the step's time not used)."""

    move: Move | None


@dataclass(frozen=True)
class ChoosePromotion:
    """The piece (2..5, or n b r q) of the next promotion (``ValueError`` for another)."""

    piece: int | str


@dataclass(frozen=True)
class ChangePromotion:
    """The piece of the promotion just made changed, before the opponent starts (the move is
    amended); ``ValueError`` when there is no such promotion."""

    piece: int | str


@dataclass(frozen=True)
class Correct:
    """The last move replaced by ``move`` (a player's correction among the referee's
    ``corrections()``); ``ValueError`` when it may no longer be corrected or is not legal."""

    move: Move | str


@dataclass(frozen=True)
class SetRules:
    """Touch-move or board takebacks changed during the game (None: unchanged)."""

    touch_move: bool | None = None
    takebacks: bool | None = None


@dataclass(frozen=True)
class Arrange:
    """Before the start, the pieces on ``squares`` (a bitboard) must be lifted and set anew: the
    board believes another piece stands there (a position set up by hand, firmware.training.setup_guide)."""

    squares: int


@dataclass(frozen=True)
class SetGestureTimes:
    """How long the kings must be held for a resignation and for a draw (seconds)."""

    resign_s: float
    draw_s: float


AnyOrder = Union[Order, ResignGame, ClaimDraw, EndAsDecided, Expect, ChoosePromotion, ChangePromotion, Correct,
                 SetRules, SetGestureTimes, Arrange]


def carry_out(match: Match, order: AnyOrder, now: float) -> list[MatchEvent]:
    """``order`` carried out on ``match`` at ``now``: its events (what the match raises, raised);
    nothing for the referee's own orders."""
    match order:
        case ResignGame(color=color):
            return match.resign(color, now)
        case Order.AGREE_DRAW:
            return match.agree_draw(now)
        case ClaimDraw(move=move):
            return match.claim_draw(now, move)
        case EndAsDecided(outcome=outcome):
            return match.end(outcome, now)
        case Order.REOPEN:
            return match.reopen(now)
        case Order.PAUSE_CLOCKS:
            return match.pause(now)
        case Order.RESUME_CLOCKS:
            return match.resume(now)
        case Order.TAKE_BACK:
            return match.takeback(now)
        case Order.UNDO_MOVE:
            return match.undo(now)
        case Expect(move=None):
            match.expect(None)   # (without the time: a clock stopped for the move withdrawn runs on from its latest time)
        case Expect(move=Move() as move):
            match.expect(move, now)
        case ChoosePromotion(piece=piece):
            return match.promote(piece, now)
        case ChangePromotion(piece=piece):
            return match.change_promotion(piece, now)
        case Correct(move=move):
            return match.correct(move, now)
        case Order.REREAD:
            return match.reread(now)
        case SetRules(touch_move=touch_move, takebacks=takebacks):
            match.set_rules(touch_move=touch_move, takebacks=takebacks)
        case Order.FINISH:
            return match.finish()
        case Arrange(squares=squares):
            if not match.started:
                match.to_arrange = squares
    return []
