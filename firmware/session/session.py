"""The game session: the match, the recorder, the LEDs and the opponent, behind one object.

The service feeds it raw readings (``feed``) and the passing of time (``poll`` at
``next_deadline()``); the web companion calls its commands and subscribes to its snapshots.
Everything takes the time ``now`` (seconds, the readings' clock); commands default to
``session.clock()``. Nothing here sleeps or reads the sensors: the async shell is
:mod:`firmware.service`.

Events from the match and from the gesture tracker go through dispatch tables
(``_match_handlers``, ``_gesture_handlers``). After each input the LED frame is recomputed
(pure, :mod:`firmware.referee.feedback`) and shown first, then the game is saved if a move or a result
was committed, then subscribers get a snapshot.

The parts: the commands (:mod:`firmware.session.commands`), the opponent's listener methods
(:mod:`firmware.session.opponent_side`) and the choice of opponent (:mod:`firmware.session.players`).
"""
from __future__ import annotations

import asyncio
import logging
import random
import time
from datetime import datetime
from typing import Any, Callable, Optional, Sequence

from board_driver.reading import Reading
from chess_core import STARTING_FEN, Move, Position
from chess_core.chess960 import rearranged

from firmware.config import Config
from firmware.referee.feedback import FeedbackState, LedStyle, frame, next_change
from firmware.referee.gestures import (CyclePromotion, DrawGesture, GestureTracker, GestureUndone, Resign,
                                       draw_decision, next_promotion)
from firmware.referee.gestures import forming as gesture_forming
from firmware.referee.inference import Verdict, VerdictKind
from firmware.referee.round_rules import draw_offer_refused
from firmware.referee.match import (BoardChanged, GameOver, GameStarted, Match, MatchConfig, MoveMade, ProblemFound,
                    Reopened, TakenBack)
from firmware.opponents.factory import opponent_kind
from firmware.session.recorder import GameRecord, Recorder
from firmware.session.commands import PROMOTION_NAMES, SessionCommands, SessionError
from firmware.session.restore import amend_promotion, restore_match
from firmware.session.saving import SaveState, mark_leds
from firmware.session.opponent_side import Opponent, OpponentSide
from firmware.session.players import OpponentControl
from firmware.session.view import COLOR_NAMES, SanCache, View, snapshot

log = logging.getLogger(__name__)


class Session(SessionCommands, OpponentControl, OpponentSide):
    """One board's game session; see the module docstring.

    ``opponent``: the engine or Lichess opponent (see firmware.opponents.base), started by
    ``start_opponent``; None: two players over the board (``[game] opponent`` is then only read
    by firmware.opponents.factory, which the service uses to build it).
    """

    def __init__(self, config: Config, *, recorder: Optional[Recorder] = None, leds: Any = None,
                 opponent: Optional[Opponent] = None, clock: Callable[[], float] = time.monotonic,
                 wall: Callable[[], datetime] = datetime.now, replay: Optional[str] = None) -> None:
        self.config = config
        self.recorder = recorder or Recorder(config.storage.dir)
        self.leds = leds
        self.opponent = opponent
        self.clock = clock
        self.wall = wall
        self.replay = replay
        self.style = LedStyle.from_config(config.leds)
        self.gestures = GestureTracker(config.gestures.resign_s, config.gestures.draw_s)
        self.online_sync: Any = None            # the last GameSync while the game is an online one
        self.match = Match(self._match_config())
        self.record: Optional[GameRecord] = None
        self.names = (config.game.white, config.game.black)
        self.occupied: Optional[int] = None     # the latest raw reading
        self.settled: Optional[Reading] = None  # the latest settled reading seen
        self.verdict: Optional[Verdict] = None
        self.expected_move: Optional[Move] = None
        self.draw_offer: Optional[int] = None
        self.paused = False
        self.restoring = False
        self.new_online_game = False   # what is being set up is a game new to the board, from the other end
        self.chat_lines: list[tuple[str, str]] = []   # the online game's chat: (username, text)
        self.notice: Optional[tuple[str, int]] = None   # about the other side, and the ply it stands for
        self.takeback_move: Optional[Move] = None  # asked for: the board must show the position before it
        self.left_start = False                 # the board left the start position since the game ended
        self.restored_plies = 0                 # moves made before a restart: final
        self.link_text: Optional[str] = None    # "connected: Stockfish 16" (older spelling of the two below)
        self.link_state: Optional[str] = None   # the opponent's LinkState value
        self.link_detail: Optional[str] = None
        self.server_clock: Any = None           # the clocks of an online game (Lichess), if any
        self.pending_end: Optional[Any] = None  # the other end's result, once its last move is on the board
        self.opponent_choice = opponent_kind(opponent) if opponent is not None else "none"
        self.engine_sides = self._sides_of(opponent)   # the sides the engine plays by choice
        self.takeovers: dict[int, Any] = {}     # side -> engine_opponent.Takeover, this game
        self.takeback_offer: Optional[int] = None   # the side whose takeback offer is pending (online)
        self.opponent_away: Any = None          # OpponentGone while the other player is away
        self.lichess_token = config.lichess_token_path.exists()
        self.problems: list[tuple[float, str]] = []   # (time, words) of this game
        self._given_names: Optional[tuple[Optional[str], Optional[str]]] = None
        self.leds_frame: Optional[tuple[int, ...]] = None
        self.frames_shown = 0
        self.saving = SaveState()               # a failed save: why, and when to try again
        self._sans = SanCache()
        self._subscribers: list[Callable[[dict], None]] = []
        self._dirty = False
        self._changed = True
        self._tasks: set[asyncio.Task] = set()
        # Called after every change (the service: an opponent's move or a command may bring the
        # next deadline forward while its loop sleeps).
        self.on_change: Optional[Callable[[], None]] = None
        self._match_handlers = {GameStarted: self._on_started, MoveMade: self._on_move,
                                TakenBack: self._on_taken_back, BoardChanged: self._on_board,
                                ProblemFound: self._on_problem, GameOver: self._on_game_over,
                                Reopened: self._on_reopened}
        self._gesture_handlers = {Resign: self._on_resign_gesture, DrawGesture: self._on_draw_gesture,
                                  CyclePromotion: self._on_cycle_gesture, GestureUndone: self._on_gesture_undone}

    # -- state -----------------------------------------------------------------------------

    @property
    def game(self):
        return self.match.game

    @property
    def live(self) -> bool:
        return self.match.started and not self.match.game.is_over

    def _match_config(self, **changes: Any) -> MatchConfig:
        g = self.config.game
        values = dict(rules=g.rules, time_control=g.time_control, fen=g.start_fen(random), chess960=g.chess960,
                      touch_move=g.touch_move,
                      takebacks=g.takebacks and self._assisted(), settle_ms=self.config.board.settle_ms)
        values.update(changes)
        return MatchConfig(**values)

    # -- input from the board and the passing of time --------------------------------------

    def feed(self, reading: Reading) -> None:
        """A raw reading from the sensors (any thread's reading, handed over on the loop)."""
        self.occupied = reading.occupied
        self._changed = True
        self._handle(self.match.feed(reading), reading.time)
        self._after(reading.time)

    def poll(self, now: float) -> None:
        """Time has passed: settle readings, commit waiting moves, flags, gestures, blinking."""
        self._handle(self.match.poll(now), now)
        if self.live and self.config.gestures.enabled:
            self._gestures(self.gestures.poll(now), now)
        self._after(now)

    def next_deadline(self, now: float, *, blink: bool = True) -> Optional[float]:
        """When ``poll`` should run next if no reading comes (None: not before a reading)."""
        found = [self.match.next_deadline()]
        if self._dirty:
            found.append(self.saving.deadline())   # a failed save is tried again
        if self.live:
            found.append(self.gestures.next_deadline())
            found.append(self._low_time_deadline(now))
        if blink:
            found.append(next_change(self.feedback_state(now), now, self.style.blink_period))
        found = [d for d in found if d is not None]
        return min(found) if found else None

    def finish(self, now: float) -> None:
        """The input has ended (end of a replay): commit what waits, then save."""
        self._handle(self.match.finish(), now)
        self._after(now)

    # -- restoring after a restart -----------------------------------------------------------

    def restore(self, now: float) -> bool:
        """Continue the saved game, if any; the LEDs then guide the pieces back. True if restored."""
        record = self.recorder.load()
        if record is None:
            return False
        try:
            match = restore_match(self._match_config(), record, now)
        except Exception as exc:  # noqa: BLE001 - no saved state may stop the board from starting
            self.recorder.set_aside(f"{type(exc).__name__}: {exc}"[:300])
            return False
        self.match = match
        self.record = record
        self.names = (record.white, record.black)
        self.restored_plies = len(record.moves)
        self.restoring = not record.is_over
        self.left_start = record.is_over  # setting up the start position begins the next game
        self.problems = []
        self.gestures.reset()
        self._reset_opponent()  # it plays on from the restored game
        self._changed = True
        self._dirty = True  # the PGN is written again from the record: a cut may have left it behind
        log.info("restored %s: %d moves%s", record.pgn_name, len(record.moves),
                 f", {record.get_outcome().describe()}" if record.is_over else "")
        self._after(now)
        return True

    def subscribe(self, callback: Callable[[dict], None]) -> Callable[[], None]:
        """Call ``callback(snapshot)`` after every change; returns the function that unsubscribes."""
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            if callback in self._subscribers:
                self._subscribers.remove(callback)
        return unsubscribe

    def snapshot(self, now: Optional[float] = None) -> dict[str, Any]:
        """The whole state as JSON values; see firmware.session.view.snapshot for the fields."""
        now = self._now(now)
        leds = self.leds_frame or frame(self.feedback_state(now), now, self.style)
        return snapshot(self._view(now), self._sans, leds, now)

    # -- lifecycle ----------------------------------------------------------------------------

    async def aclose(self) -> None:
        """Stop the opponent, wait for the messages sent to it, save. Idempotent."""
        await self.wait_idle()
        opponent, self.opponent = self.opponent, None
        if opponent is not None:
            await opponent.stop()
        if self.record is not None and self._dirty:
            self._save(None)

    # -- match events ------------------------------------------------------------------------

    def _handle(self, events: Sequence[Any], now: float) -> None:
        for event in events:
            self._match_handlers[type(event)](event, now)

    def _on_started(self, event: GameStarted, now: float) -> None:
        game = self.game
        g = self.config.game
        self._name_engine_sides(self._given_names)
        self.record = self.recorder.new_record(
            self.wall(), self.names[0], self.names[1], start_fen=game.start_fen, rules=game.rules,
            variant="chess960" if game.chess960 else "standard",
            time_control=str(self.match.time_control), event=g.event, site=g.site, round=g.round, replay=self.replay)
        self._note(event.time)
        self.restoring = False
        self.restored_plies = 0
        self.gestures.reset()
        self.expected_move = None
        self.draw_offer = None
        self._reset_opponent()

    def _on_move(self, event: MoveMade, now: float) -> None:
        mover = self.game.turn ^ 1
        self._note(event.time)
        self.takeback_move = None
        if event.move.promotion:
            self.gestures.promotion_made(event.move.to_square)
        else:
            self.gestures.promotion_closed()
        if not event.amended and self.draw_offer is not None and self.draw_offer != mover:
            self.draw_offer = None  # an offer is declined by moving
        if not event.amended:
            self.takeback_offer = None
        own = self.expected_move is not None and event.move == self.expected_move
        if own:
            self.expected_move = None
            self._comment_takeover(mover)
        if self.opponent is not None:
            if event.amended:
                self._reset_opponent()
            else:  # its own move too, once carried out: an engine playing both sides waits for it
                self.opponent.on_move(event.move)
        if own and self.pending_end is not None:
            self._end_from_other_side(self.pending_end, now)

    def _on_taken_back(self, event: TakenBack, now: float) -> None:
        self._note(event.time)
        self.gestures.promotion_closed()
        self._reset_opponent()

    def _on_board(self, event: BoardChanged, now: float) -> None:
        self.verdict = event.verdict
        if event.verdict.kind is VerdictKind.STABLE:
            self.restoring = False
            self.takeback_move = None
        self._changed = True

    def _on_problem(self, event: ProblemFound, now: float) -> None:
        board, pos = self.match.debouncer.settled, self.game.position
        if self.config.gestures.enabled and board is not None and gesture_forming(
                board.occupied, pos.occupied, (pos.king[0], pos.king[1])):
            return   # the kings on their way to the centre: a gesture, not a wrong board
        log.warning("%s", event.message)
        self.problems.append((event.time, event.text or event.message))

    def _add_problem(self, time: float, text: str) -> None:
        """A problem found by the session (a move refused online...), shown like the board's."""
        self.problems.append((time, text))
        self._changed = True

    def _on_game_over(self, event: GameOver, now: float) -> None:
        if self.record is not None:
            self.record.set_outcome(event.outcome)
        self._note(event.time)
        if not self.gestures.undoable(now):   # a result set by a gesture may be taken back a while
            self.gestures.reset()
        self.expected_move = None
        self.draw_offer = self.takeback_offer = None
        self.takeback_move = None
        self.left_start = False
        self.paused = False
        log.info("game over: %s", event.outcome.describe())

    def _on_reopened(self, event: Reopened, now: float) -> None:
        if self.record is not None:
            self.record.set_outcome(None)
        self._note(event.time)
        self._reset_opponent()
        log.info("result taken back: the game goes on")

    def _note(self, time: float) -> None:
        """Copy the game into the record; it is saved once the LEDs are out."""
        record, match = self.record, self.match
        if record is None:
            return
        record.moves = [m.uci() for m in match.game.moves]
        if any(int(ply) > len(record.moves) for ply in record.comments):   # after a takeback
            record.comments = {ply: text for ply, text in record.comments.items() if int(ply) <= len(record.moves)}
        record.clocks = list(match.clocks_after_move)
        remaining = match.remaining(time)
        record.remaining = list(remaining) if remaining is not None else None
        record.event_time = time
        self._dirty = True
        self._changed = True

    # -- gestures ------------------------------------------------------------------------------

    def _gestures(self, found: Sequence[Any], now: float) -> None:
        for gesture in found:
            if self.live or isinstance(gesture, GestureUndone):
                self._gesture_handlers[type(gesture)](gesture, now)

    def _on_resign_gesture(self, gesture: Resign, now: float) -> None:
        log.info("gesture: %s resigns", ("White", "Black")[gesture.color])
        self._handle(self.match.resign(gesture.color, now), now)
        self._tell_opponent("RESIGN")

    def _on_draw_gesture(self, gesture: DrawGesture, now: float) -> None:
        turn = self.game.turn
        decision = draw_decision(gesture, bool(self.game.claimable_draws()), self.draw_offer == turn ^ 1,
                                 self.opponent is not None)
        if decision == "claim":
            log.info("gesture: draw claimed")
            self._handle(self.match.claim_draw(now), now)
        elif decision == "accept":
            log.info("gesture: draw offer accepted")
            self._handle(self.match.agree_draw(now), now)
            self._tell_opponent("ACCEPT_DRAW")
        elif refused := draw_offer_refused(self.game.position.fullmove_number, self.config.game.draw_offers_from_move):
            self._add_problem(now, refused)
        elif decision == "agree":
            log.info("gesture: draw agreed over the board")
            self._handle(self.match.agree_draw(now), now)
        else:
            log.info("gesture: %s offers a draw", ("White", "Black")[turn])
            self.draw_offer = turn
            self._changed = True
            self._tell_opponent("OFFER_DRAW")

    def _on_gesture_undone(self, gesture: GestureUndone, now: float) -> None:
        if self.online_sync is not None or not self.game.is_over:
            return   # (a server's result is final)
        try:
            self._handle(self.match.reopen(now), now)
        except ValueError:
            return

    def _on_cycle_gesture(self, gesture: CyclePromotion, now: float) -> None:
        last = self.game.moves[-1] if self.game.moves else None
        if last is not None and last.promotion and last.to_square == gesture.square:
            self._handle(amend_promotion(self.match, next_promotion(last.promotion), now), now)

    # -- after every input: new games, LEDs, saving, subscribers ------------------------------

    def _after(self, now: float) -> None:
        self._watch_settled(now)
        state = self.feedback_state(now)
        leds = frame(state, now, self.style)
        if self.saving.error is not None:
            leds = mark_leds(leds, self.style.check)
        if leds != self.leds_frame:
            self.leds_frame = leds
            self._changed = True
            if self.leds is not None:
                self.leds.show(leds)
                self.frames_shown += 1
        if self._dirty and self.saving.due(now):
            self._save(now)
            if self.saving.error is not None and self.leds is not None and self.leds_frame != (
                    marked := mark_leds(self.leds_frame or leds, self.style.check)):
                self.leds_frame = marked
                self.leds.show(marked)
        if self._changed and self._subscribers:
            self._changed = False
            data = self.snapshot(now)
            for callback in list(self._subscribers):
                try:
                    callback(data)
                except Exception:  # a page that fails must not stop the board
                    log.exception("snapshot subscriber failed")
        if self.on_change is not None:
            self.on_change()

    def _watch_settled(self, now: float) -> None:
        settled = self.match.debouncer.settled
        if settled is None or settled is self.settled:
            return
        self.settled = settled
        self._changed = True
        if self.config.gestures.enabled and (self.live or self.gestures.undoable(now)):
            pos = self.game.position
            found = self.gestures.observe(settled.time, settled.occupied, pos.occupied,
                                          (pos.king[0], pos.king[1]), pos.turn, settled.white, settled.black)
            self._gestures(found, now)
        if self.live:
            return
        if self.match.game.is_over:
            start = Position(self.config.game.fen or STARTING_FEN, chess960=self.config.game.chess960).occupied
            if settled.occupied != start:
                self.left_start = True
            elif self.left_start:
                self._begin(now, names=None)

    def _begin(self, now: float, names: Optional[tuple[Optional[str], Optional[str]]], *,
               kind: Optional[str] = None, engine_side: Optional[str] = None) -> None:
        """Set up the next game; the match starts it once the board shows the start position.

        ``kind`` ("none", "engine", "lichess"; default: as before) and ``engine_side`` choose the
        opponent; take-overs end with the game that had them.
        """
        previous = self.match
        self.record = None
        self.server_clock = self.online_sync = None   # the next game is the board's until a server's arrives
        was_engine = opponent_kind(self.opponent) == "engine"
        before = (self.engine_sides if was_engine else frozenset(), self._engine_name() if was_engine else None)
        for side, takeover in self.takeovers.items():
            self.names = tuple(takeover.player if c == side else self.names[c] for c in (0, 1))
        self.takeovers = {}
        self._prepare_opponent(kind or self.opponent_choice, engine_side, before[0] if previous.started else None)
        self._given_names = names
        if names is not None:
            self.names = (names[0] or self.config.game.white, names[1] or self.config.game.black)
        elif previous.started:
            engine_now = opponent_kind(self.opponent) == "engine"
            if (was_engine and engine_now and self.engine_sides != before[0]) or (
                    not (was_engine and engine_now) and self.config.game.alternate_colours):
                self.names = (self.names[1], self.names[0])
        for side in before[0] - self.engine_sides:   # the engine's name off a side it left
            if self.names[side] == before[1]:
                self._rename(side, (self.config.game.white, self.config.game.black)[side])
        self._name_engine_sides(names)
        self.match = Match(self._match_config())
        self.match.debouncer = previous.debouncer
        self.verdict = None
        self.paused = False
        self.restoring = False
        self.left_start = False
        self.restored_plies = 0
        self.expected_move = None
        self.draw_offer = self.takeback_offer = None
        self.takeback_move = None
        self.pending_end = None
        self.problems = []
        self.gestures.reset()
        self.settled = None
        self._changed = True
        arrange = 0
        if self.match.game.chess960:   # the pieces to rearrange from the last start position (LEDs show them)
            arrange = rearranged(previous.game.start_position(), self.match.game.start_position())
        self._handle(self.match.new_game(now, arrange=arrange), now)

    def _save(self, now: Optional[float] = None) -> None:
        """Save the record; if that fails the moves stay in memory, the players are told (page and
        LEDs) and the save is tried again (firmware.session.saving)."""
        self._dirty = False
        if self.record is None:
            return
        had_error = self.saving.error is not None
        try:
            self.recorder.save(self.record, self.game)
        except Exception as exc:  # noqa: BLE001 - a full disk or a bad record must not stop the board
            self._dirty = True
            self.saving.failed(exc, now if now is not None else self.clock())
            self._changed = True
            return
        if had_error:
            self.saving.succeeded()
            self._changed = True

    # -- LED state and view ----------------------------------------------------------------------

    def feedback_state(self, now: float) -> FeedbackState:
        game, match = self.game, self.match
        lifted = wrong = 0
        touched = None
        if not match.started:
            if self.settled is not None:
                wrong = (self.settled.occupied ^ game.position.occupied) | match.to_arrange
        elif not game.is_over and self.verdict is not None:
            kind = self.verdict.kind
            if kind is VerdictKind.LIFTED:
                lifted = self.verdict.lifted
            elif kind is VerdictKind.ILLEGAL:
                wrong = self.verdict.wrong
            elif kind is VerdictKind.TOUCHED:
                touched = self.verdict.square
        hold = self.gestures.hold if self.live else None
        show_hold = hold is not None and not hold.fired
        progress = self.gestures.progress(now) if show_hold else None
        return FeedbackState(
            position=game.position, lifted=lifted, wrong=wrong,
            last_move=game.moves[-1] if game.moves else None, opponent_move=self.expected_move,
            promotion_square=self.gestures.promotion_square if self.live else None,
            outcome=game.outcome if match.started or game.is_over else None,
            low_time=self._low_time(now), touched=touched,
            show_legal=self.config.game.show_legal_squares and self._assisted(),
            held=hold.squares if show_hold else 0, held_kind=hold.kind if show_hold else "",
            held_progress=progress.fraction if progress is not None else 0.0,
            draw_offer=self.draw_offer is not None and self.live)

    def _clocks(self, now: float) -> tuple[Optional[tuple[int, int]], Optional[int]]:
        """Both clocks (ms) and the running side: the server's in an online game, else the board's."""
        if self.server_clock is not None:
            clock = self.server_clock
            return (clock.remaining(0, now), clock.remaining(1, now)), clock.running
        match = self.match
        if not match.started:
            return None, None
        running = match.clock.running_side if not self.paused else None
        return match.remaining(now), running

    def _low_time(self, now: float) -> Optional[int]:
        if not self.live:
            return None
        remaining, side = self._clocks(now)
        if side is None or remaining is None or remaining[side] > self.config.leds.low_time_s * 1000:
            return None
        return side

    def _low_time_deadline(self, now: float) -> Optional[float]:
        remaining, side = self._clocks(now)
        threshold = self.config.leds.low_time_s * 1000
        if side is None or remaining is None or remaining[side] <= threshold:
            return None
        return now + (remaining[side] - threshold) / 1000

    def _delay_left(self, now: float) -> int:
        clock = self.match.clock
        if self.server_clock is not None or not self.live or clock.running_side is None:
            return 0
        return clock.delay_left(max(int(round(now * 1000)), clock.last_time_ms or 0))

    def _view(self, now: float) -> View:
        match = self.match
        remaining, running = self._clocks(now)
        state = self.feedback_state(now)
        g = self.config.game
        extra = {"game_file": self.record.pgn_name if self.record else None, "link": self.link_text,
                 "restored_moves": self.restored_plies,
                 "settings": {"show_legal_squares": g.show_legal_squares, "touch_move": g.touch_move,
                              "takebacks": g.takebacks, "alternate_colours": g.alternate_colours,
                              "time_control": g.time_control, "rules": g.rules, "opponent": self.opponent_choice},
                 "time_control": str(match.time_control) if self.online_sync is None
                 else (getattr(self.online_sync, "time_control", None) or "-"),
                 "opponent": self.opponent_view(), "lichess": self.lichess_view(),
                 "takeback_offer": COLOR_NAMES[self.takeback_offer] if self.takeback_offer is not None else None,
                 "next_promotion": PROMOTION_NAMES[match.next_promotion],
                 "problem_times": [t for t, _ in self.problems],
                 "leds_problem": getattr(self.leds, "problem", None),   # LEDs off, and why (GuardedLedSink)
                 "move_clocks": list(self.record.clocks) if self.record else [],
                 "round": self.record.round if self.record else g.round,
                 "event": self.record.event if self.record else g.event,
                 "save_problem": self.saving.message(),
                 "gesture": (lambda p: p.to_json() if p is not None else None)(self.gestures.progress(now)),
                 "corrections": [m.uci() for m in match.corrections()],   # moves that explain the board too
                 **self.online_view(now)}
        return View(game=match.game, started=match.started, occupied=self.occupied or 0,
                    lifted=state.lifted, wrong=state.wrong, paused=self.paused, restoring=self.restoring,
                    new_online_game=self.new_online_game,
                    waiting_for_start=not match.started, expected_move=self.expected_move,
                    takeback_move=self.takeback_move,
                    promotion_square=state.promotion_square, draw_offer=self.draw_offer,
                    touched=state.touched, names=self.names,
                    clocks=remaining if remaining is not None else (None, None),
                    running=running, delay_left=self._delay_left(now),
                    problems=tuple(text for _, text in self.problems), extra=extra)


__all__ = ["Session", "SessionError", "Opponent"]
