"""What each of the referee's events does at the board: the game's file noted, the phase moved on, the seat told, the game's state kept.

One handler per kind of event (:class:`~firmware.referee.match.GameStarted`, ``MoveMade``,
``TakenBack``, ``BoardChanged``, ``ProblemFound``, ``GameOver``, ``Reopened``; the gestures
``Resign``, ``DrawGesture``, ``GestureUndone``; ``NextGameSetUp`` and ``StartPosition``), found in
``HANDLERS`` by the event's type; the session (:class:`~firmware.session.conductor.Conductor`)
hands each event here after the referee has noted it.
"""
from __future__ import annotations

import contextlib
import logging
from typing import Any, Callable

from firmware.opponents.base import Action
from firmware.referee.gestures import DrawGesture, GestureUndone, Resign, draw_decision
from firmware.referee.inference import VerdictKind
from firmware.referee.match import BoardChanged, GameOver, GameStarted, MoveMade, ProblemFound, Reopened, TakenBack
from firmware.referee.orders import ClaimDraw, Order, ResignGame
from firmware.referee.referee import NextGameSetUp, StartPosition
from firmware.referee.sensor_watch import SensorFailed, SensorRecovered
from firmware.words.texts import prompt
from chess_core.squares import square_name
from firmware.referee.round_rules import draw_offer_refused
from firmware.session.conductor import Conductor
from firmware.session.sensor_faults import clear_fault, record_fault
from firmware.session.state import SIDE_WORDS, Phase

__all__ = ["Reactions"]

log = logging.getLogger(__name__)

ALARM_S = 3.0   # s a sensor found faulty stays lit in the problem colour


class Reactions:
    """The handlers of the referee's events for one session; see the module docstring."""

    def __init__(self, session: Conductor) -> None:
        self.session = session
        self.handlers: dict[type, Callable[[Any, float], None]] = {
            GameStarted: self.on_started, MoveMade: self.on_move, TakenBack: self.on_taken_back,
            BoardChanged: self.on_board, ProblemFound: self.on_problem, GameOver: self.on_game_over,
            Reopened: self.on_reopened, Resign: self.on_gesture, DrawGesture: self.on_gesture,
            GestureUndone: self.on_gesture, NextGameSetUp: self.on_setup, StartPosition: self.on_setup,
            SensorFailed: self.on_sensor_failed, SensorRecovered: self.on_sensor_recovered}

    def handle(self, event: Any, now: float) -> None:
        self.handlers[type(event)](event, now)

    def on_started(self, event: GameStarted, now: float) -> None:
        s = self.session
        game, g = s.game, s.config.game
        s.seat.name_engine_sides(s.given_names)
        s.file.record = s.file.recorder.new_record(
            s.wall(), s.names[0], s.names[1], start_fen=game.start_fen, rules=game.rules,
            variant="chess960" if game.chess960 else "standard", time_control=str(s.referee.time_control),
            event=g.event, site=g.site, round=g.round, replay=s.replay, tags=s.app.tags() if s.app else {})
        s.file.note(s.referee, event.time)
        s.phase = Phase.PLAYING
        s.seat.reset()

    def on_move(self, event: MoveMade, now: float) -> None:
        s = self.session
        mover, play = s.game.turn ^ 1, s.play
        s.file.note(s.referee, event.time)
        play.takeback_move = None
        if not event.amended:
            if play.draw_offer is not None and play.draw_offer != mover:
                play.draw_offer = None  # an offer is declined by moving
            s.seat.takeback_offered(None)
        own = play.expected_move is not None and event.move == play.expected_move
        if own:
            play.expected_move = None
            s.seat.takeovers.comment(mover)
            if event.move.promotion:
                s.referee.step(Order.CLOSE_PROMOTION, now)   # (the opponent's piece: no choice to offer)
        if event.amended:
            s.seat.reset()
        else:  # its own move too, once carried out: an engine playing both sides waits for it
            s.seat.on_move(event.move)
        if own and play.pending_end is not None:
            s.other_side.end(play.pending_end, now)

    def on_taken_back(self, event: TakenBack, now: float) -> None:
        s = self.session
        if s.phase.over and not s.game.is_over:
            s.phase = Phase.PLAYING   # a takeback reopened the game
            s.file.set_outcome(None)
        s.file.note(s.referee, event.time)
        s.seat.reset()

    def on_board(self, event: BoardChanged, now: float) -> None:
        s = self.session
        settled = s.referee.board
        if event.verdict.kind is VerdictKind.ILLEGAL:
            if settled is not None:   # still wrong, maybe otherwise: say what to do now
                s.play.problems.reword(s.game.position, settled.occupied)
        else:
            s.play.problems.board = None
        if event.verdict.kind is VerdictKind.STABLE:
            if s.phase is Phase.RESUMING:
                s.phase = Phase.PLAYING
            s.play.takeback_move = None

    def on_problem(self, event: ProblemFound, now: float) -> None:
        s = self.session
        if s.config.gestures.enabled and s.referee.forming():
            return   # the kings on their way to the centre: a gesture, not a wrong board
        log.warning("%s", event.message)
        board, verdict = s.referee.board, s.referee.last_verdict
        if board is not None and verdict is not None and verdict.kind is VerdictKind.ILLEGAL:
            s.play.problems.wrong_board(event.time, s.game.position, board.occupied)
        else:
            s.play.problems.add(event.time, event.text or event.message)

    def on_sensor_failed(self, event: SensorFailed, now: float) -> None:
        """A sensor found dead or stuck: said on the page and in the journal, lit for a moment,
        noted in the game's PGN and kept for the doctor; the referee reads on around it."""
        s = self.session
        key = "sensor_stuck" if event.reads_piece else "sensor_dead"
        name = square_name(event.square)
        text = prompt(key, "en", square=name)
        log.warning("%s", text)
        s.play.problems.add(event.time, text, prompt(key, "fr", square=name))
        s.play.alarm = (event.square, now + ALARM_S)
        s.file.comment_once(len(s.game.moves), text)
        record_fault(s.file.recorder.state_dir, event.square, event.reads_piece, s.wall())

    def on_sensor_recovered(self, event: SensorRecovered, now: float) -> None:
        s = self.session
        text = prompt("sensor_back", "en", square=square_name(event.square))
        log.info("%s", text)
        s.play.problems.add(event.time, text, prompt("sensor_back", "fr", square=square_name(event.square)))
        clear_fault(s.file.recorder.state_dir, event.square)

    def on_game_over(self, event: GameOver, now: float) -> None:
        s = self.session
        s.file.set_outcome(event.outcome)
        s.file.note(s.referee, event.time)
        if s.seat.online:   # the server has the game's end: the board's last move is final
            s.referee.step(Order.MAKE_FINAL, now)
        s.phase = Phase.OVER
        s.play.game_over()
        s.seat.end_game()
        log.info("game over: %s", event.outcome.describe())

    def on_reopened(self, event: Reopened, now: float) -> None:
        s = self.session
        s.file.set_outcome(None)
        s.file.note(s.referee, event.time)
        s.phase = Phase.PLAYING
        s.seat.reset()
        log.info("result taken back: the game goes on")

    def on_gesture(self, gesture: Resign | DrawGesture | GestureUndone, now: float) -> None:
        """A result set with the kings (or a button): resigned, a draw claimed, accepted, agreed
        or offered (or refused before the move it may be offered from), or taken back."""
        s = self.session
        referee, play = s.referee, s.play
        if isinstance(gesture, GestureUndone):
            if not s.seat.online and s.game.is_over:   # (a server's result is final)
                with contextlib.suppress(ValueError):
                    s.apply(referee.step(Order.REOPEN, now), now)
            return
        if not s.live:
            return
        if isinstance(gesture, Resign):
            log.info("gesture: %s resigns", SIDE_WORDS[gesture.color])
            s.apply(referee.step(ResignGame(gesture.color), now), now)
            s.seat.tell(Action.RESIGN)
            return
        turn, move_number = s.game.turn, s.game.position.fullmove_number
        decision = draw_decision(gesture, bool(s.game.claimable_draws()), play.draw_offer == turn ^ 1,
                                 s.opponent is not None)
        refused = draw_offer_refused(move_number, s.config.game.draw_offers_from_move)
        if decision == "claim":
            log.info("gesture: draw claimed")
            s.apply(referee.step(ClaimDraw(), now), now)
        elif decision == "accept":
            log.info("gesture: draw offer accepted")
            s.apply(referee.step(Order.AGREE_DRAW, now), now)
            s.seat.tell(Action.ACCEPT_DRAW)
        elif refused:
            fr = draw_offer_refused(move_number, s.config.game.draw_offers_from_move, "fr")
            play.problems.add(now, refused, fr)
            play.tell(refused, fr or refused, len(s.game.moves))   # shown on the page until the next move
        elif decision == "agree":
            log.info("gesture: draw agreed over the board")
            s.apply(referee.step(Order.AGREE_DRAW, now), now)
        else:
            log.info("gesture: %s offers a draw", SIDE_WORDS[turn])
            play.draw_offer = turn
            s.seat.tell(Action.OFFER_DRAW)

    def on_setup(self, event: NextGameSetUp | StartPosition, now: float) -> None:
        """The players set up the next game: mid-game (the start position held; the game is left
        unfinished) or after one (the board left the start position, then shows it again)."""
        s = self.session
        if isinstance(event, NextGameSetUp):
            if s.live:
                log.info("the start position set up mid-game: the game is left unfinished, the next one begins")
                s.file.abandon(s.referee, now)
                s.next_game(now, names=None)
        elif not s.phase.over:
            return   # (the game was reopened by the reading's own gesture: a result taken back)
        elif not event.shown:
            s.phase = Phase.CLEARED
        elif s.phase is Phase.CLEARED:
            s.next_game(now, names=None)
