"""The game session: the conductor of one board, feeding its referee and carrying out what comes back.

Contract
========

* Input: ``feed(reading)`` (a raw reading), ``poll(now)`` at ``next_deadline(now)``, ``finish(now)``
  at the end of a replay, and the commands below. Everything takes the time ``now`` (seconds, the
  readings' clock); a command's ``now`` defaults to ``session.clock()``. Nothing here sleeps or
  reads the sensors: the async shell is :mod:`firmware.service`.
* Commands raise :class:`SessionError` (a message for the player) when they cannot be carried out:
  ``new_game``, ``set_round``, ``resign``, ``offer_draw`` / ``accept_draw`` / ``decline_draw`` /
  ``claim_draw``, ``choose_promotion``, ``correct``, ``pause`` / ``resume``, ``takeback``,
  ``update_settings``, ``button`` (``"hint"``: the coach's); those about the opponent's side are the seat's
  (``seat.takeovers.take_over`` / ``give_back``, ``seat.accept_takeback`` / ``decline_takeback``,
  ``claim_when_gone``, ``seat.lichess.login`` / ``logout``). ``command(now, live=)`` is their
  common frame: the time, the check that a game is in progress, the update after success.
* Output, after each input, in this order (``refresh``): the LED frame (pure,
  :mod:`firmware.referee.feedback`) is shown; the game is saved if a move or a result was
  committed; then subscribers get the new :class:`~firmware.session.state.SessionState` (built
  once per change by :mod:`firmware.session.view`; ``snapshot()`` is its JSON form).
* Parts: ``referee`` (:class:`~firmware.referee.referee.Referee`: the match, the gestures, the
  restart watch), ``play`` (:class:`~firmware.session.play.Play`: the per-game state, one value
  replaced whole at a new game, a restore or a sync), ``file`` (:class:`~firmware.session.game_file.GameFile`:
  the record and its saving), ``seat`` (:mod:`firmware.session.seat`: the opponent's side),
  ``other_side`` (:mod:`firmware.session.other_side`: what the opponent says that changes the
  game), ``phase`` (:class:`~firmware.session.state.Phase`), ``names``.

Every input goes to the referee once; its frozen events come back to ``apply``, which hands
each to its handler (a dispatch table). The start position set up mid-game and held 2 s ends
the game unfinished and begins the next (:mod:`firmware.referee.restart_watch`).
"""
from __future__ import annotations

import contextlib
import dataclasses
import logging
import random
import time
from datetime import datetime
from typing import Any, Callable, Iterator

from board_driver.reading import Reading
from chess_core import Game, Move, Position, parse_move
from chess_core.chess960 import rearranged
from chess_core.clock import ClockError
from chess_core.game import DrawClaimError

from firmware.config import SIMULATED, Config, OpponentKind, with_overrides
from firmware.opponents.base import Action, Opponent
from firmware.referee.feedback import FeedbackState, LedStyle, frame, next_change
from firmware.referee.gestures import BUTTONS, GestureTracker
from firmware.referee.match import Match, MatchConfig, MatchEvent
from firmware.referee.orders import ClaimDraw, Order, ResignGame, SetGestureTimes, SetRules
from firmware.referee.referee import Referee, RefereeEvent, Tick
from firmware.referee.round_rules import draw_offer_refused
from firmware.session import amends
from firmware.session.amends import ended_by_last_move
from firmware.session.app_link import AppLink
from firmware.session.coach import Coach
from firmware.session.commands import (SessionError, claim_refused, colour, colours_changed, engine_side_choice,
                                       game_over, settings_sections, takeback_refused)
from firmware.words import in_english
from firmware.session.game_file import GameFile
from firmware.session.seat import OpponentSeat
from firmware.session.other_side import OtherSide
from firmware.session.play import Play
from firmware.session.reactions import Reactions
from firmware.session.recorder import Recorder
from firmware.session.recorder import NextGame
from firmware.session.restore import chosen_game, restore_match, set_up_chosen
from firmware.session.saving import mark_leds
from firmware.session.sensor_faults import known_faults
from firmware.session.state import Phase, SessionState, to_json
from firmware.session.view import feedback_state, low_time_deadline, session_state, stage

log = logging.getLogger(__name__)

class Session:
    """One board's game session; see the module docstring.

    ``opponent``: the engine or Lichess opponent (firmware.opponents.base), started by
    ``start_opponent``; None: two players over the board.
    """

    def __init__(self, config: Config, *, recorder: Recorder | None = None, leds: Any = None,
                 opponent: Opponent | None = None, clock: Callable[[], float] = time.monotonic,
                 wall: Callable[[], datetime] = datetime.now, replay: str | None = None) -> None:
        self.config = config
        self.file = GameFile(recorder or Recorder(config.storage.dir))
        self.leds = leds
        self.clock = clock
        self.wall = wall
        self.replay = replay
        self.style = LedStyle.from_config(config.leds)
        self.play = Play()
        self.seat = OpponentSeat(self, opponent)
        self.other_side = OtherSide(self)
        # (sensors found faulty before a restart stay masked until they read again)
        self.referee = Referee(Match(self.match_config()),
                               GestureTracker(config.gestures.resign_s, config.gestures.draw_s),
                               faults=known_faults(self.file.recorder.state_dir))
        if self.game.chess960 and config.board.sensors not in SIMULATED:
            # Sensors that see no piece types cannot tell which first ranks stand on the board at
            # power-on: the usual ones are assumed, and the pieces that differ are lifted and set anew.
            self.referee.arrange(rearranged(Position(), self.game.start_position()))
        self.phase = Phase.SETTING_UP
        self.names = (config.game.white, config.game.black)
        self.occupied: int | None = None     # the latest raw reading
        self.leds_frame: tuple[int, ...] | None = None
        self.frames_shown = 0
        # Called after every change (the service: an opponent's move or a command may bring the
        # next deadline forward while its loop sleeps).
        self.on_change: Callable[[], None] | None = None
        self.given_names: tuple[str | None, str | None] | None = None   # the names given to the next game
        self.app: AppLink | None = None      # an app playing on the board (firmware.emulation)
        self._subscribers: list[Callable[[SessionState], None]] = []
        self._changed = True     # subscribers must hear of it
        self._board_shown: Reading | None = None   # the settled board the subscribers last heard of
        self.reactions = Reactions(self)
        self.coach = Coach(self)             # hints and each coached move judged ([coach])
        self.failed_helpers: list[str] = []  # "voice", "coach" once each failed: the page says it once

    # -- state -----------------------------------------------------------------------------

    @property
    def game(self) -> Game:
        return self.referee.game

    @property
    def live(self) -> bool:
        return self.phase.live

    @property
    def opponent(self) -> Opponent | None:
        return self.seat.opponent

    def match_config(self, **changes: Any) -> MatchConfig:
        """The next match's settings, from the configuration (``changes`` over them)."""
        g = self.config.game
        config = MatchConfig(rules=g.rules, time_control=g.time_control, fen=g.start_fen(random), chess960=g.chess960,
                             touch_move=g.touch_move, takebacks=g.takebacks and self.seat.assisted,
                             settle_ms=self.config.board.settle_ms, clock_start=g.clock_start)
        return dataclasses.replace(config, **changes)

    def apply_board_rules(self) -> None:
        """Touch-move as set; takebacks on the board alone only where assistance is allowed."""
        g = self.config.game
        self.referee.step(SetRules(touch_move=g.touch_move, takebacks=g.takebacks and self.seat.assisted), self.clock())

    def change_config(self, **sections: dict[str, Any]) -> None:
        try:
            self.config = with_overrides(self.config, **sections)
        except ValueError as exc:   # (the configuration's English; other languages name the settings)
            named = ", ".join(f"{section}.{key}" for section, keys in sections.items() for key in keys)
            raise SessionError("setting_refused", detail=in_english(str(exc), named)) from None

    # -- input from the board and the passing of time --------------------------------------

    def feed(self, reading: Reading) -> None:
        """A raw reading from the sensors (any thread's reading, handed over on the loop)."""
        self.occupied = reading.occupied
        self._changed = True
        self.apply(self.referee.step(reading, reading.time), reading.time)
        self.refresh(reading.time)

    def poll(self, now: float) -> None:
        """Time has passed: settle readings, commit waiting moves, flags, gestures, blinking."""
        self.apply(self.referee.step(Tick(stage(self)), now), now)
        self.refresh(now)

    def next_deadline(self, now: float, *, blink: bool = True) -> float | None:
        """When ``poll`` should run next if no reading comes (None: not before a reading)."""
        found = [self.referee.next_deadline(self.live)]
        if self.file.dirty:
            found.append(self.file.saving.deadline())   # a failed save is tried again
        if self.live:
            found.append(low_time_deadline(self, now))
        found.append(self.coach.deadline())
        if self.play.alarm is not None and now < self.play.alarm[1]:
            found.append(self.play.alarm[1])   # a faulty sensor's square lit until then
        if blink:
            found.append(next_change(self.feedback_state(now), now, self.style.blink_period))
        deadlines = [d for d in found if d is not None]
        return min(deadlines) if deadlines else None

    def finish(self, now: float) -> None:
        """The input has ended (end of a replay): commit what waits, then save."""
        self.apply(self.referee.step(Order.FINISH, now), now)
        self.refresh(now)

    def restore(self, now: float) -> bool:
        """Continue the saved game, if any; the LEDs then guide the pieces back. Or wait again for
        the new game chosen before a restart (before ``start_opponent``). True if restored."""
        record = self.file.recorder.load_saved()
        if record is None:
            return False
        try:
            if isinstance(record, NextGame):
                set_up_chosen(self, record, now)
                log.info("restored the new game chosen: %s - %s", *self.names)
                self.refresh(now)
                return True
            match = restore_match(self.match_config(), record, now)
        except Exception as exc:  # noqa: BLE001 - no saved state may stop the board from starting
            self.file.recorder.set_aside(f"{type(exc).__name__}: {exc}"[:300])
            return False
        self.referee.resume(match)
        self.file.record = record
        self.names = (record.white, record.black)
        self.play = Play(restored_plies=len(record.moves))
        # A finished game: setting up the start position begins the next one.
        self.phase = Phase.CLEARED if self.game.is_over else Phase.RESUMING
        if not self.game.is_over:
            self.seat.takeovers.restore(record.takeovers)   # the computer plays on for who left
        self.seat.reset()  # it plays on from the restored game
        self.file.dirty = True  # the PGN is written again from the record: a cut may have left it behind
        log.info("restored %s: %d moves%s", record.pgn_name, len(record.moves),
                 f", {outcome.describe()}" if (outcome := record.get_outcome()) is not None else "")
        self.refresh(now)
        return True

    # -- what goes out -----------------------------------------------------------------------

    def subscribe(self, callback: Callable[[SessionState], None]) -> Callable[[], None]:
        """Call ``callback(state)`` after every change; returns the function that unsubscribes."""
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            if callback in self._subscribers:
                self._subscribers.remove(callback)
        return unsubscribe

    def snapshot(self, now: float | None = None) -> dict[str, Any]:
        """The whole state as JSON values (firmware.session.state.to_json)."""
        return to_json(self.state(now))

    def state(self, now: float | None = None) -> SessionState:
        """The session at ``now``, typed and frozen (see firmware.session.state)."""
        return session_state(self, self.clock() if now is None else now)

    def feedback_state(self, now: float) -> FeedbackState:
        return feedback_state(self, now)

    # -- lifecycle ----------------------------------------------------------------------------

    async def start_opponent(self, opponent: Opponent | None = None) -> None:
        """Start the opponent (``opponent`` first becomes the session's); failures show as its link."""
        await self.seat.start(opponent)

    async def wait_idle(self) -> None:
        """Wait for the work handed to the loop: an opponent stopping or starting, decisions sent."""
        await self.seat.wait_idle()

    async def aclose(self) -> None:
        """Stop the opponent and the coach, wait for the messages sent to the opponent, save. Idempotent."""
        await self.seat.stop()
        await self.coach.aclose()
        if self.file.dirty:
            self.file.save(self.game, self.clock())

    # -- commands ------------------------------------------------------------------------------

    @contextlib.contextmanager
    def command(self, now: float | None, *, live: bool = False) -> Iterator[float]:
        """Run a command at ``now`` (default: the clock), after checking that a game is in
        progress if ``live``; once it succeeds, the LEDs, the saved game and the subscribers are
        brought up to date."""
        now = self.clock() if now is None else now
        if live:
            self._require_live()
        yield now
        self._changed = True
        self.refresh(now)

    def new_game(self, now: float | None = None, *, time_control: str | None = None,
                 white: str | None = None, black: str | None = None, rules: str | None = None,
                 fen: str | None = None, opponent: str | None = None, engine_side: str | None = None,
                 engine_level: int | None = None, variant: str | None = None,
                 start_position: int | None = None) -> None:
        """Start a new game (abandoning one in progress); it begins when the pieces stand ready.

        ``opponent``: "none" (two players over the board), "engine" or "lichess"; None keeps the
        session's. Against the engine, ``engine_side`` ("white", "black", "alternate") and
        ``engine_level`` (Skill Level 0..20) change ``[engine] side`` and ``level``; a name left
        None for the engine's side is the engine's. The opponent is stopped and started on the
        loop (``await wait_idle()`` waits for it).
        """
        with self.command(now) as now:
            try:
                kind = OpponentKind(opponent) if opponent is not None else None
            except ValueError:
                raise SessionError("bad_opponent", kinds=", ".join(k.value for k in OpponentKind),
                                   value=repr(opponent)) from None
            engine_side_choice(engine_side)
            if time_control is not None and not time_control.strip():
                raise SessionError("time_control_needed")
            if self.seat.online and self.live:
                raise SessionError("lichess_game_new")
            changes = {k: v for k, v in (("time_control", time_control), ("rules", rules), ("fen", fen),
                                         ("opponent", opponent), ("variant", variant),
                                         ("start_position", start_position)) if v is not None}
            if variant is not None and variant != self.config.game.variant and fen is None:
                changes["fen"] = ""   # a start position of the other variant does not carry over
            engine = {k: v for k, v in (("side", engine_side), ("level", engine_level)) if v is not None}
            sections = {name: values for name, values in (("game", changes), ("engine", engine)) if values}
            if sections:
                self.change_config(**sections)
            if self.live:
                self.file.abandon(self.referee, now)
            if kind is not None:
                self.seat.choose(kind)
            side = engine_side if engine_side in ("white", "black") else None
            self.next_game(now, names=(white, black) if white is not None or black is not None else None,
                        engine_side=side)
            if engine_level is not None:
                self.seat.set_engine_level()

    def set_round(self, white: str, black: str, now: float | None = None, **game: Any) -> None:
        """A club hub's pairing: the players' names (on this game at once, unless it is over) and
        the round's ``[game]`` settings (``time_control``, ``rules``, ``round``, ``event``,
        ``draw_offers_from_move``), which apply from the next game, or to this one while it has
        no move yet. Colours stop alternating: the pairing says who has White."""
        now = self.clock() if now is None else now
        if self.seat.online and self.live:
            raise SessionError("lichess_game_pairing")
        self.change_config(game={"white": white, "black": black, "alternate_colours": False, **game})
        record = self.file.record
        if self.live and self.game.moves:
            with self.command(now):
                self.set_names((white, black))
                if record is not None:
                    record.round = self.config.game.round
        elif self.phase is not Phase.SETTING_UP and not self.game.is_over and record is not None:
            self.file.recorder.discard(record)   # no move yet: begin again with the round's clock and rules
            self.new_game(now, white=white, black=black)
        else:
            with self.command(now):
                self.next_game(now, names=(white, black))

    def resign(self, color: int, now: float | None = None) -> None:
        with self.command(now, live=True) as now:
            self.apply(self.referee.step(ResignGame(colour(color)), now), now)
            self.seat.tell(Action.RESIGN)

    def offer_draw(self, color: int, now: float | None = None) -> None:
        """``color`` offers a draw; an offer already made by the other side is accepted."""
        with self.command(now, live=True) as now:
            color = colour(color)
            if self.play.draw_offer == color ^ 1:
                self.apply(self.referee.step(Order.AGREE_DRAW, now), now)
                self.seat.tell(Action.ACCEPT_DRAW)
                return
            number, first = self.game.position.fullmove_number, self.config.game.draw_offers_from_move
            if draw_offer_refused(number, first):
                raise SessionError("draw_offer_refused", why=lambda lang: draw_offer_refused(number, first, lang) or "")
            self.play.draw_offer = color
            self.seat.tell(Action.OFFER_DRAW)

    def accept_draw(self, color: int, now: float | None = None) -> None:
        with self.command(now, live=True) as now:
            if self.play.draw_offer != colour(color) ^ 1:
                raise SessionError("no_draw_offer")
            self.apply(self.referee.step(Order.AGREE_DRAW, now), now)
            self.seat.tell(Action.ACCEPT_DRAW)

    def decline_draw(self, color: int, now: float | None = None) -> None:
        with self.command(now):
            if self.play.draw_offer == colour(color) ^ 1:
                self.play.draw_offer = None
                self.seat.tell(Action.DECLINE_DRAW)

    def claim_draw(self, now: float | None = None, move: str | Move | None = None) -> None:
        """Claim a draw (threefold, fifty moves), by the move that brings it about if given."""
        with self.command(now, live=True) as now:
            if isinstance(move, str):
                try:
                    move = parse_move(self.game.position, move)
                except ValueError:
                    raise SessionError("claim_move", move=repr(move)) from None
            try:
                events = self.referee.step(ClaimDraw(move), now)
            except DrawClaimError:
                raise claim_refused(self.game, move) from None
            self.apply(events, now)

    def choose_promotion(self, piece: str | int, now: float | None = None) -> None:
        """The piece of the promotion just made (until the opponent starts, even after the mate or
        stalemate it made: the end is judged again), or of the next one (firmware.session.amends)."""
        with self.command(now) as now:
            amends.choose_promotion(self, piece, now)

    def correct(self, move: str | Move, now: float | None = None) -> None:
        """The last move was recorded wrong: replace it by ``move``, one of the other moves that
        explain the board as well (``SessionState.corrections``), while the opponent has not started."""
        with self.command(now) as now:
            amends.correct(self, move, now)

    def pause(self, now: float | None = None) -> None:
        """Stop both clocks (a player's or an arbiter's stop): no move counts until ``resume``."""
        with self.command(now, live=True) as now:
            if self.seat.server_clock is not None or self.seat.online:
                raise SessionError("online_clock")
            self.apply(self.referee.step(Order.PAUSE_CLOCKS, now), now)
            if self.live:   # (the pause's poll may have ended the game: a flag that fell meanwhile)
                self.phase = Phase.PAUSED

    def resume(self, now: float | None = None) -> None:
        """Restart the clock of the side to move."""
        with self.command(now) as now:
            if self.phase is Phase.PAUSED:
                self.phase = Phase.PLAYING
                self.apply(self.referee.step(Order.RESUME_CLOCKS, now), now)

    def takeback(self, now: float | None = None) -> None:
        """Take back the last move (needs ``takebacks``): the game and the clock go back at once,
        and the LEDs show the pieces to put back until the board shows the position before it.

        Online (no assistance allowed) the takeback is proposed to the other side instead; if it
        agrees, its game comes back without the move (``sync_game``).
        """
        with self.command(now) as now:
            if not self.seat.assisted:
                self._require_live()
                if not self.game.moves:
                    raise SessionError("no_move_to_take_back")
                self.seat.tell(Action.PROPOSE_TAKEBACK)
                return
            self._require_live(over_ok=ended_by_last_move(self.game))
            if len(self.game.moves) <= self.play.restored_plies:
                raise SessionError("restored_final")
            move = self.game.moves[-1]
            try:
                events = self.referee.step(Order.TAKE_BACK, now)
            except (ValueError, ClockError) as exc:
                raise takeback_refused(self.referee.takebacks, exc) from None
            self.apply(events, now)
            self.play.takeback_move = move

    def update_settings(self, now: float | None = None, **changes: Any) -> None:
        """Change settings: ``game`` keys (names, time control...), ``leds`` and ``gestures`` keys,
        one by one or as a section (``leds={...}``), and ``engine={"level": 0..20, "elo": 0 or
        500..4000, "move_time": s, "side": "white"|"black"|"alternate"}``.

        Names apply to the current game; time control, rules, the start position and the engine's
        side to the next; touch-move, takebacks, the LED settings at once, and the engine's
        strength from its next move.
        """
        with self.command(now) as now:
            sections = settings_sections(changes)
            self.change_config(**sections)
            self.apply_board_rules()
            if "engine" in sections:
                self.seat.set_engine_level()
            self.style = LedStyle.from_config(self.config.leds)
            self.referee.step(SetGestureTimes(self.config.gestures.resign_s, self.config.gestures.draw_s), now)
            game = sections.get("game", {})
            if "white" in game or "black" in game:
                self.set_names((game.get("white", self.names[0]), game.get("black", self.names[1])))

    def button(self, name: str, now: float | None = None) -> None:
        """A press of the GPIO button ``name`` (see firmware.referee.gestures.BUTTONS): the same as
        the gesture; "promote" changes the piece of the promotion just made (queen -> rook ->
        bishop -> knight -> queen); "return": a player back at the board takes their side back; "hint":
        the coach's hint for the side to move (SessionError if it is not coached)."""
        with self.command(now) as now:
            if name == "return":
                self.seat.takeovers.give_back_to_mover(now)
                return
            if name == "promote":
                amends.cycle_promotion(self, now)
                return
            if name == "hint":        # the coach's: the engine's best move lit (firmware.session.coach)
                self._require_live()
                self.coach.hint(now)
                return
            if name not in BUTTONS:
                raise SessionError("bad_button", name=repr(name), known=", ".join(sorted(BUTTONS)))
            if self.live:
                self.apply([BUTTONS[name]], now)

    def _require_live(self, over_ok: bool = False) -> None:
        if self.phase is Phase.SETTING_UP:
            raise SessionError("no_game")
        outcome = self.game.outcome
        if outcome is not None and not over_ok:
            raise game_over(outcome)

    # -- what the parts pass on ----------------------------------------------------------------

    def publish(self) -> None:
        """Something shown changed (the opponent's link, clocks...): publish it."""
        self._changed = True
        self.refresh(self.clock())

    def set_names(self, names: tuple[str, str]) -> None:
        """The players' names, on the board's game and in its file."""
        self.names = names
        self.file.set_names(names)

    # -- the referee's events --------------------------------------------------------------------

    def apply(self, events: list[RefereeEvent] | list[MatchEvent] | list[Any], now: float) -> None:
        """Carry out the referee's events, in order (each by its handler); the referee has noted
        them already (its ``step``)."""
        for event in events:
            self._changed = True
            self.reactions.handle(event, now)

    # -- after every input: new games, LEDs, saving, subscribers ------------------------------

    def refresh(self, now: float) -> None:
        """After an input or a change: the settled board read, the LEDs shown, the game saved
        when due, the subscribers told."""
        self.apply(self.referee.watch(now, stage(self)), now)
        if self.referee.board is not self._board_shown:   # a new settled board: the page shows it
            self._board_shown = self.referee.board
            self._changed = True
        feedback = self.feedback_state(now)
        leds = (self.play.leds_shown(self._board_shown, self.live and bool(self.game.moves))
                or self.coach.leds(self._board_shown, now) or frame(feedback, now, self.style))
        saving = self.file.saving
        if saving.error is not None:
            leds = mark_leds(leds, self.style.check)
        if leds != self.leds_frame:
            self.leds_frame = leds
            self._changed = True
            if self.leds is not None:
                self.leds.show(leds)
                self.frames_shown += 1
        self.coach.follow()   # (a move just made judged, one taken back marked: before the save)
        if self.file.dirty and saving.due(now):
            self._changed |= self.file.save(self.game, now)
            if saving.error is not None and self.leds is not None and self.leds_frame != (
                    marked := mark_leds(self.leds_frame or leds, self.style.check)):
                self.leds_frame = marked
                self.leds.show(marked)
        if self._changed and self._subscribers:
            self._changed = False
            state = session_state(self, now, feedback)   # (the LEDs' state of this very moment)
            for callback in list(self._subscribers):
                try:
                    callback(state)
                except Exception:  # a page that fails must not stop the board
                    log.exception("state subscriber failed")
        if self.on_change is not None:
            self.on_change()

    def next_game(self, now: float, names: tuple[str | None, str | None] | None, *,
                  engine_side: str | None = None, fen: str | None = None) -> None:
        """Set up the next game; the match starts it once the board shows the start position.

        ``engine_side`` chooses the engine's side; take-overs end with the game that had them.
        ``fen``: its start (default: the configured one). Until it begins, the choice is saved
        in the last game's place (a restart waits for it again).
        """
        started, seat = self.referee.started, self.seat
        self.file.leave(self.referee.game, now)   # (a game a full disk kept from being saved: written first)
        was_engine = seat.kind is OpponentKind.ENGINE
        before = (seat.engine_sides if was_engine else frozenset(), seat.name_of_engine() if was_engine else None)
        for side, takeover in seat.takeovers.items():
            self.names = (takeover.player if side == 0 else self.names[0], takeover.player if side == 1 else self.names[1])
        seat.new_game()
        seat.prepare(seat.choice, engine_side, before[0] if started else None)
        self.given_names = names
        g = self.config.game
        if names is not None:
            self.names = (names[0] or g.white, names[1] or g.black)
        elif started:
            engine_now = seat.kind is OpponentKind.ENGINE
            if (was_engine and engine_now and seat.engine_sides != before[0]) or (
                    not (was_engine and engine_now) and g.alternate_colours):
                self.names = colours_changed(self.names)
        for side in before[0] - seat.engine_sides:   # the engine's name off a side it left
            if self.names[side] == before[1]:
                self.set_names((g.white, self.names[1]) if side == 0 else (self.names[0], g.black))
        seat.name_engine_sides(names)
        self.phase = Phase.SETTING_UP
        self.play = Play()
        self._changed = True
        self.apply(self.referee.begin(Match(self.match_config(**({} if fen is None else {"fen": fen}))), now), now)
        if self.file.record is None:   # (not begun at once, on a board already set up)
            self.file.choose(chosen_game(self))


__all__ = ["Session", "SessionError", "ended_by_last_move"]
