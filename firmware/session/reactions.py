"""What each of the referee's events does at the board, decided as values: the state to keep and the effects (the file noted, the seat told...).

One pure handler per kind of event (:class:`~firmware.referee.match.GameStarted`, ``MoveMade``,
``TakenBack``, ``BoardChanged``, ``ProblemFound``, ``GameOver``, ``Reopened``; the gestures
``Resign``, ``DrawGesture``, ``GestureUndone``; ``NextGameSetUp`` and ``StartPosition``), found in
``HANDLERS`` by the event's type: :func:`react` ``(session, event, now)`` reads the session (never
writes it) and returns the effects (:mod:`firmware.session.effects`) that the session carries out
after the referee has noted the event.
"""
from __future__ import annotations

import dataclasses
import logging
from typing import TYPE_CHECKING, Any, Callable

from firmware.opponents.base import Action
from firmware.referee.gestures import DrawGesture, GestureUndone, Resign, draw_decision
from firmware.referee.inference import VerdictKind
from firmware.referee.match import BoardChanged, GameOver, GameStarted, MoveMade, ProblemFound, Reopened, TakenBack
from firmware.referee.referee import NextGameSetUp, StartPosition
from firmware.referee.sensor_watch import SensorFailed, SensorRecovered
from firmware.words.texts import prompt
from chess_core.squares import square_name
from firmware.referee.round_rules import draw_offer_refused
from firmware.referee.orders import ClaimDraw, Order, ResignGame
from firmware.session.effects import (Abandon, ClearFault, Comment, Effect, EndAsTold, Keep, NameEngineSides,
                                      NextGame, Note, Step, RecordFault, SeatEnded, SeatMoved, SeatReset, SetOutcome,
                                      StartRecord, TakebackLapses, TakeoverComment, Tell)
from firmware.session.state import SIDE_WORDS, Phase

if TYPE_CHECKING:
    from firmware.session.session_view import SessionView

__all__ = ["react", "HANDLERS"]

log = logging.getLogger(__name__)

ALARM_S = 3.0   # s a sensor found faulty stays lit in the problem colour


def on_started(s: SessionView, event: GameStarted, now: float) -> list[Effect]:
    return [NameEngineSides(s.board_state.given_names), StartRecord(event.time), Keep(phase=Phase.PLAYING), SeatReset()]


def on_move(s: SessionView, event: MoveMade, now: float) -> list[Effect]:
    mover, play = s.game.turn ^ 1, s.board_state.play
    effects: list[Effect] = [Note(event.time)]
    changes: dict[str, Any] = {"takeback_move": None}
    if not event.amended:
        if play.draw_offer is not None and play.draw_offer != mover:
            changes["draw_offer"] = None  # an offer is declined by moving
        effects.append(TakebackLapses())
    own = play.expected_move is not None and event.move == play.expected_move
    if own:
        changes["expected_move"] = None
        effects.append(TakeoverComment(mover))
        if event.move.promotion:
            effects.append(Step(Order.CLOSE_PROMOTION))   # (the opponent's piece: no choice to offer)
    effects.insert(0, Keep(play=dataclasses.replace(play, **changes)))
    # its own move too, once carried out: an engine playing both sides waits for it
    effects.append(SeatReset() if event.amended else SeatMoved(event.move))
    if own and play.pending_end is not None:
        effects.append(EndAsTold(play.pending_end))
    return effects


def on_taken_back(s: SessionView, event: TakenBack, now: float) -> list[Effect]:
    effects: list[Effect] = []
    if s.board_state.phase.over and not s.game.is_over:
        effects += [Keep(phase=Phase.PLAYING), SetOutcome(None)]   # a takeback reopened the game
    return effects + [Note(event.time), SeatReset()]


def on_board(s: SessionView, event: BoardChanged, now: float) -> list[Effect]:
    settled, play = s.referee.board, s.board_state.play
    if event.verdict.kind is VerdictKind.ILLEGAL:
        if settled is not None:   # still wrong, maybe otherwise: say what to do now
            play = dataclasses.replace(play, problems=play.problems.reword(s.game.position, settled.occupied))
    else:
        play = dataclasses.replace(play, problems=play.problems.board_right())
    phase = None
    if event.verdict.kind is VerdictKind.STABLE:
        if s.board_state.phase is Phase.RESUMING:
            phase = Phase.PLAYING
        play = dataclasses.replace(play, takeback_move=None)
    if phase is not None:
        return [Keep(phase=phase, play=play)]
    return [Keep(play=play)] if play != s.board_state.play else []


def on_problem(s: SessionView, event: ProblemFound, now: float) -> list[Effect]:
    if s.config.gestures.enabled and s.referee.forming():
        return []   # the kings on their way to the centre: a gesture, not a wrong board
    log.warning("%s", event.message)
    board, verdict, play = s.referee.board, s.referee.last_verdict, s.board_state.play
    if board is not None and verdict is not None and verdict.kind is VerdictKind.ILLEGAL:
        return [Keep(play=dataclasses.replace(play, problems=play.problems.wrong_board(
            event.time, s.game.position, board.occupied)))]
    return [Keep(play=play.with_problem(event.time, event.text or event.message))]


def on_sensor_failed(s: SessionView, event: SensorFailed, now: float) -> list[Effect]:
    """A sensor found dead or stuck: said on the page and in the journal, lit for a moment,
    noted in the game's PGN and kept for the doctor; the referee reads on around it."""
    key = "sensor_stuck" if event.reads_piece else "sensor_dead"
    name = square_name(event.square)
    text = prompt(key, "en", square=name)
    log.warning("%s", text)
    play = dataclasses.replace(s.board_state.play.with_problem(event.time, text, prompt(key, "fr", square=name)),
                               alarm=(event.square, now + ALARM_S))
    return [Keep(play=play), Comment(len(s.game.moves), text), RecordFault(event.square, event.reads_piece)]


def on_sensor_recovered(s: SessionView, event: SensorRecovered, now: float) -> list[Effect]:
    text = prompt("sensor_back", "en", square=square_name(event.square))
    log.info("%s", text)
    fr = prompt("sensor_back", "fr", square=square_name(event.square))
    return [Keep(play=s.board_state.play.with_problem(event.time, text, fr)), ClearFault(event.square)]


def on_game_over(s: SessionView, event: GameOver, now: float) -> list[Effect]:
    log.info("game over: %s", event.outcome.describe())
    final: list[Effect] = [Step(Order.MAKE_FINAL)] if s.seat.online else []   # the server has the game's end
    return [SetOutcome(event.outcome), Note(event.time), *final, Keep(phase=Phase.OVER, play=s.board_state.play.ended()),
            SeatEnded()]


def on_reopened(s: SessionView, event: Reopened, now: float) -> list[Effect]:
    log.info("result taken back: the game goes on")
    return [SetOutcome(None), Note(event.time), Keep(phase=Phase.PLAYING), SeatReset()]


def on_gesture(s: SessionView, gesture: Resign | DrawGesture | GestureUndone, now: float) -> list[Effect]:
    """A result set with the kings (or a button): resigned, a draw claimed, accepted, agreed
    or offered (or refused before the move it may be offered from), or taken back."""
    play = s.board_state.play
    if isinstance(gesture, GestureUndone):
        if not s.seat.online and s.game.is_over:   # (a server's result is final)
            return [Step(Order.REOPEN, refused_ok=True)]
        return []
    if not s.live:
        return []
    if isinstance(gesture, Resign):
        log.info("gesture: %s resigns", SIDE_WORDS[gesture.color])
        return [Step(ResignGame(gesture.color)), Tell(Action.RESIGN)]
    turn, move_number = s.game.turn, s.game.position.fullmove_number
    decision = draw_decision(gesture, bool(s.game.claimable_draws()), play.draw_offer == turn ^ 1,
                             s.opponent is not None)
    refused = draw_offer_refused(move_number, s.config.game.draw_offers_from_move)
    if decision == "claim":
        log.info("gesture: draw claimed")
        return [Step(ClaimDraw())]
    if decision == "accept":
        log.info("gesture: draw offer accepted")
        return [Step(Order.AGREE_DRAW), Tell(Action.ACCEPT_DRAW)]
    if refused:
        fr = draw_offer_refused(move_number, s.config.game.draw_offers_from_move, "fr")
        # shown on the page until the next move
        return [Keep(play=play.with_problem(now, refused, fr).told(refused, fr or refused, len(s.game.moves)))]
    if decision == "agree":
        log.info("gesture: draw agreed over the board")
        return [Step(Order.AGREE_DRAW)]
    log.info("gesture: %s offers a draw", SIDE_WORDS[turn])
    return [Keep(play=dataclasses.replace(play, draw_offer=turn)), Tell(Action.OFFER_DRAW)]


def on_setup(s: SessionView, event: NextGameSetUp | StartPosition, now: float) -> list[Effect]:
    """The players set up the next game: mid-game (the start position held; the game is left
    unfinished) or after one (the board left the start position, then shows it again)."""
    if isinstance(event, NextGameSetUp):
        if s.live:
            log.info("the start position set up mid-game: the game is left unfinished, the next one begins")
            return [Abandon(), NextGame()]
        return []
    if not s.board_state.phase.over:
        return []   # (the game was reopened by the reading's own gesture: a result taken back)
    if not event.shown:
        return [Keep(phase=Phase.CLEARED)]
    return [NextGame()] if s.board_state.phase is Phase.CLEARED else []


HANDLERS: dict[type, Callable[[Any, Any, float], list[Effect]]] = {
    GameStarted: on_started, MoveMade: on_move, TakenBack: on_taken_back, BoardChanged: on_board,
    ProblemFound: on_problem, GameOver: on_game_over, Reopened: on_reopened, Resign: on_gesture,
    DrawGesture: on_gesture, GestureUndone: on_gesture, NextGameSetUp: on_setup, StartPosition: on_setup,
    SensorFailed: on_sensor_failed, SensorRecovered: on_sensor_recovered}


def react(session: SessionView, event: Any, now: float) -> list[Effect]:
    """What ``event`` does at the board: the effects, for the session to carry out in order."""
    return HANDLERS[type(event)](session, event, now)
