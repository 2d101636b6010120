"""The last move put right by its mover until the opponent starts: its promotion's piece changed (the page, the button) or a misread move corrected; an end its position made is judged again.

The window is the referee's (:meth:`firmware.referee.referee.Referee.amendable`): open while the
opponent has not begun a move, also after a mate, a stalemate or a dead position that the move
made (the classic reason to under-promote is the stalemate a queen makes); once the opponent has
started, or the game ended otherwise (a resignation, a flag, a draw agreed), the move stands.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import contextlib

from chess_core import Game, Move, Termination, san
from firmware.referee.gestures import next_promotion
from firmware.referee.match import promotion_piece
from firmware.referee.orders import ChangePromotion, ChoosePromotion, Correct
from firmware.session.commands import SessionError, game_over
from firmware.session.state import Phase

if TYPE_CHECKING:
    from firmware.session.session_view import SessionView

__all__ = ["BOARD_ENDINGS", "CASUAL_ENDINGS", "ended_by_last_move", "choose_promotion", "correct", "cycle_promotion"]

# Endings the last move brought about on the board (a takeback of that move undoes them).
BOARD_ENDINGS = frozenset({Termination.CHECKMATE, Termination.STALEMATE, Termination.INSUFFICIENT_MATERIAL,
                           Termination.FIVEFOLD_REPETITION, Termination.SEVENTYFIVE_MOVES})
CASUAL_ENDINGS = frozenset({Termination.THREEFOLD_REPETITION, Termination.FIFTY_MOVES})   # automatic in "casual"


def ended_by_last_move(game: Game) -> bool:
    """The game is over by what the last move made on the board (a mate, a stalemate, a dead
    position, a repetition or move count the rules end by themselves): a takeback undoes it.
    A flag, a resignation or a draw agreed or claimed stands."""
    outcome = game.outcome
    if outcome is None:
        return False
    automatic = BOARD_ENDINGS | (CASUAL_ENDINGS if game.rules == "casual" else frozenset())
    return outcome.termination in automatic


def choose_promotion(session: SessionView, piece: str | int, now: float) -> None:
    """The piece of the promotion just made (while its mover may change it), or of the next one."""
    try:
        chosen = promotion_piece(piece)
    except ValueError:
        raise SessionError("bad_promotion", piece=repr(piece)) from None
    referee, game = session.referee, session.game
    if referee.promotion_square is None or not (session.live or game.is_over):
        if game.outcome is not None:   # (a game over has no next promotion)
            raise game_over(game.outcome)
        session.apply(referee.step(ChoosePromotion(chosen), now), now)
        return
    last = game.moves[-1]
    if last.promotion == chosen:
        return
    try:
        session.apply(referee.step(ChangePromotion(chosen), now), now)
    except ValueError:   # the other side has started (the inference reads its move now), or the game ended otherwise
        if game.outcome is not None and not ended_by_last_move(game):
            raise game_over(game.outcome) from None
        before = game.position.copy(stack=True)
        before.pop()
        raise SessionError("promotion_too_late", san=lambda lang: san(before, last, lang)) from None


def cycle_promotion(session: SessionView, now: float) -> None:
    """The button "promote": the promotion just made becomes the next piece (queen -> rook ->
    bishop -> knight -> queen) while its mover may change it; nothing otherwise."""
    referee, game = session.referee, session.game
    last = game.moves[-1] if game.moves else None
    if (session.live or game.is_over) and referee.promotion_square is not None and last is not None and last.promotion:
        with contextlib.suppress(ValueError):   # (the opponent has started: nothing to change)
            session.apply(referee.step(ChangePromotion(next_promotion(last.promotion)), now), now)


def correct(session: SessionView, move: str | Move, now: float) -> None:
    """The last move was recorded wrong: it becomes ``move``, one of the other moves that explain
    the board as well (``SessionState.corrections``), while the opponent has not started."""
    if session.board_state.phase is Phase.SETTING_UP:
        raise SessionError("no_game")
    referee = session.referee
    outcome = session.game.outcome
    if outcome is not None and not referee.amendable():
        raise game_over(outcome)
    candidates = referee.corrections()
    try:
        chosen: Move | None = move if isinstance(move, Move) else Move.from_uci(str(move))
    except ValueError:
        chosen = None
    if chosen is None or chosen not in candidates:
        raise SessionError("not_a_correction", moves=", ".join(m.uci() for m in candidates)) if candidates \
            else SessionError("no_correction")
    try:
        session.apply(referee.step(Correct(chosen), now), now)
    except ValueError:
        raise SessionError("correction_too_late") from None
