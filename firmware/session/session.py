"""The game session: the conductor of one board, feeding its referee and carrying out what comes back.

Contract
========

* One door: a session owned by a loop (the service's) takes every input as a message through
  ``door`` (:mod:`firmware.session.door`), carried out by that loop in order; a change made from
  any other task is refused (``RuntimeError``). A session alone (the tests, ``echiquier replay``)
  has a door that carries each message out at once.
* Input: ``feed(reading)`` (a raw reading), ``poll(now)`` at ``next_deadline(now)``, ``finish(now)``
  at the end of a replay, and the commands. Everything takes the time ``now`` (seconds, the
  readings' clock); a command's ``now`` defaults to ``session.clock()``. Nothing here sleeps or
  reads the sensors: the async shell is :mod:`firmware.service`.
* Commands raise :class:`SessionError` (a message for the player) when they cannot be carried
  out: ``new_game`` here; the players' commands on the game in :mod:`firmware.session.game_commands`
  (resign, draws, promotion, corrections, the clock, takebacks, buttons, settings, a pairing);
  the opponent's side's in the seat (``seat.takeovers``, ``seat.lichess``) and
  :mod:`firmware.session.online_answers`. ``command(now, live=)`` is their common frame: the
  time, the check that a game is in progress, the update after success.
* State: the board's state is one frozen value, ``board_state``
  (:class:`~firmware.session.board_state.BoardState`: the phase, the game's
  :class:`~firmware.session.play.Play`, the names, the app, the LEDs' layers held...), replaced
  here only (``_keep``), as are the settings (``config``, ``style``). The referee's events go to
  the pure reactions (:func:`firmware.session.reactions.react`), whose effects (values,
  :mod:`firmware.session.effects`) ``carry_out`` does in order; the parts hand their decisions
  over the same way. They see the session read-only (:class:`~firmware.session.session_view.SessionView`).
* Output, after each input, in this order (``refresh``), from what the board shows asked once
  (:func:`firmware.session.view.seen`): the LED frame is shown, composed (:mod:`firmware.leds.compose`)
  from the game's layer (:mod:`firmware.referee.feedback`), the alarm of a game not saved and the
  layers held (``board_state.lights``, :mod:`firmware.session.lights`: the coach's, a review's,
  an app's, the pairing code...), here and nowhere else; those who watch the board (``watch_board``:
  an emulated board's app) hear of it; the game is saved if a move or a result was committed;
  then subscribers get the new :class:`~firmware.session.state.SessionState` (``snapshot()``: JSON).
* Parts: ``referee`` (:class:`~firmware.referee.referee.Referee`: the match, the gestures, the
  restart watch), ``file`` (:class:`~firmware.session.game_file.GameFile`: the record and its
  saving), ``seat`` (:mod:`firmware.session.seat`: the opponent's side), ``other_side``
  (:mod:`firmware.session.other_side`: what the opponent says that changes the game), ``coach``.

The start position set up mid-game and held 2 s ends the game unfinished and begins the next
(:mod:`firmware.referee.restart_watch`).
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
from chess_core import Game, Position
from chess_core.chess960 import rearranged

from firmware.config import SIMULATED, Config, OpponentKind, with_overrides
from firmware.opponents.base import Opponent
from firmware.leds.compose import Layer, compose, next_change, steady
from firmware.referee.feedback import LedStyle, game_layer
from firmware.referee.gestures import GestureTracker
from firmware.referee.match import Match, MatchConfig, MatchEvent
from firmware.referee.orders import Order, SetRules
from firmware.referee.referee import Referee, RefereeEvent, Tick
from firmware.session.amends import ended_by_last_move
from firmware.session.board_state import BoardState
from firmware.session.coach import Coach
from firmware.session.trainer import Trainer
from firmware.session.door import AtOnce, Door, through_the_door
from firmware.session.commands import SessionError, colours_changed, engine_side_choice, require_live
from firmware.words import in_english
from firmware.session.game_file import GameFile
from firmware.session.seat import OpponentSeat
from firmware.session.other_side import OtherSide
from firmware.session.play import Play
from firmware.session.reactions import react
from firmware.session.effects import Effect, Keep, do
from firmware.session.recorder import Recorder
from firmware.session.restore import chosen_game, restore_saved
from firmware.session.saving import alarm
from firmware.session.setup_guidance import followed
from firmware.session.sensor_faults import known_faults
from firmware.session.state import Phase, SessionState, to_json
from firmware.session.view import seen, session_state, stage

log = logging.getLogger(__name__)

SETTINGS = frozenset({"config", "style"})   # what a Keep changes beside the board's state

class Session:
    """One board's game session; see the module docstring.

    ``opponent``: the engine or Lichess opponent (firmware.opponents.base), started by
    ``start_opponent``; None: two players over the board.
    """

    def __init__(self, config: Config, *, recorder: Recorder | None = None, leds: Any = None,
                 opponent: Opponent | None = None, clock: Callable[[], float] = time.monotonic,
                 wall: Callable[[], datetime] = datetime.now, replay: str | None = None,
                 door: Door | None = None) -> None:
        self.config = config
        self.door: Door = door if door is not None else AtOnce(self)   # the one way in (firmware.session.door)
        self.file = GameFile(recorder or Recorder(config.storage.dir))
        self.leds = leds
        self.clock = clock
        self.wall = wall
        self.replay = replay
        self.style = LedStyle.from_config(config.leds)
        self.seat = OpponentSeat(self, opponent)
        self.other_side = OtherSide(self)
        self.referee = Referee(Match(self.match_config()),
                               GestureTracker(config.gestures.resign_s, config.gestures.draw_s),
                               # (sensors found faulty before a restart stay masked until they read again)
                               faults=known_faults(self.file.recorder.state_dir))
        if self.game.chess960 and config.board.sensors not in SIMULATED:
            # Sensors that see no piece types cannot tell which first ranks stand on the board at
            # power-on: the usual ones are assumed, and the pieces that differ are lifted and set anew.
            self.referee.arrange(rearranged(Position(), self.game.start_position()))
        self.board_state = BoardState((config.game.white, config.game.black))   # one value, replaced here only
        self.occupied: int | None = None     # the latest raw reading
        self.leds_frame: tuple[int, ...] | None = None
        self.leds_layers: tuple[Layer, ...] = ()   # the layers of that frame
        self.frames_shown = 0
        self._subscribers: list[Callable[[SessionState], None]] = []
        self._watchers: list[Callable[[Reading | None, str], None]] = []
        self._changed = True     # subscribers must hear of it
        self._board_shown: Reading | None = None   # the settled board the subscribers last heard of
        self.coach = Coach(self)             # hints and each coached move judged ([coach])
        self.trainer = Trainer(self)         # a training's moves judged (firmware.session.trainer)

    # -- state -----------------------------------------------------------------------------

    @property
    def game(self) -> Game:
        return self.referee.game

    @property
    def live(self) -> bool:
        return self.board_state.phase.live

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
        through_the_door(self.door)
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
            found.append(seen(self, now).low_time_at)   # the side to move's time runs low then
        if self.board_state.play.alarm is not None and now < self.board_state.play.alarm[1]:
            found.append(self.board_state.play.alarm[1])   # a faulty sensor's square lit until then
        found.append(next_change(self.leds_layers, now, phases=blink))   # a layer's end, its blinking
        deadlines = [d for d in found if d is not None]
        return min(deadlines) if deadlines else None

    def finish(self, now: float) -> None:
        """The input has ended (end of a replay): commit what waits, then save."""
        self.apply(self.referee.step(Order.FINISH, now), now)
        self.refresh(now)

    def restore(self, now: float) -> bool:
        """Continue the saved game, if any; the LEDs then guide the pieces back. Or wait again for
        the new game chosen before a restart (before ``start_opponent``). True if restored
        (firmware.session.restore.restore_saved)."""
        restored = restore_saved(self, now)
        if restored:
            self.refresh(now)
        return restored

    # -- what goes out -----------------------------------------------------------------------

    def subscribe(self, callback: Callable[[SessionState], None]) -> Callable[[], None]:
        """Call ``callback(state)`` after every change; returns the function that unsubscribes."""
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            if callback in self._subscribers:
                self._subscribers.remove(callback)
        return unsubscribe

    def watch_board(self, callback: Callable[[Reading | None, str], None]) -> Callable[[], None]:
        """Call ``callback(settled board, FEN)`` after a change, as soon as the LEDs show it and
        before the game is saved (an emulated board's app hears of a move at once); returns the
        function that stops it."""
        self._watchers.append(callback)
        return lambda: self._watchers.remove(callback) if callback in self._watchers else None

    def snapshot(self, now: float | None = None) -> dict[str, Any]:
        """The whole state as JSON values (firmware.session.state.to_json)."""
        return to_json(self.state(now))

    def state(self, now: float | None = None) -> SessionState:
        """The session at ``now``, typed and frozen (see firmware.session.state)."""
        return session_state(self, self.clock() if now is None else now)

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
        await self.trainer.aclose()
        if self.file.dirty:
            self.file.save(self.game, self.clock())

    # -- commands ------------------------------------------------------------------------------

    @contextlib.contextmanager
    def command(self, now: float | None, *, live: bool = False) -> Iterator[float]:
        """Run a command at ``now`` (default: the clock), after checking that a game is in
        progress if ``live``; once it succeeds, the LEDs, the saved game and the subscribers are
        brought up to date."""
        through_the_door(self.door)
        now = self.clock() if now is None else now
        if live:
            require_live(self)
        yield now
        self._changed = True
        self.refresh(now)

    def new_game(self, now: float | None = None, *, time_control: str | None = None,
                 white: str | None = None, black: str | None = None, rules: str | None = None,
                 fen: str | None = None, opponent: str | None = None, engine_side: str | None = None,
                 engine_level: int | None = None, variant: str | None = None,
                 start_position: int | None = None, coach: dict[str, bool] | None = None) -> None:
        """Start a new game (abandoning one in progress); it begins when the pieces stand ready.

        ``opponent``: "none" (two players over the board), "engine" or "lichess"; None keeps the
        session's. Against the engine, ``engine_side`` ("white", "black", "alternate") and
        ``engine_level`` (Skill Level 0..20) change ``[engine] side`` and ``level``; a name left
        None for the engine's side is the engine's; ``coach`` changes ``[coach]`` (``white``, ``black``,
        ``hints``). The opponent is stopped and started on the loop (``await wait_idle()`` waits for it).
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
            sections = {name: v for name, v in (("game", changes), ("engine", engine), ("coach", coach or {})) if v}
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

    # -- what the parts pass on ----------------------------------------------------------------

    def publish(self) -> None:
        """Something shown changed (the opponent's link, clocks...): publish it."""
        self._changed = True
        self.refresh(self.clock())

    def set_names(self, names: tuple[str, str]) -> None:
        """The players' names, on the board's game and in its file."""
        self._keep(names=names)
        self.file.set_names(names)

    # -- the referee's events --------------------------------------------------------------------

    def apply(self, events: list[RefereeEvent] | list[MatchEvent] | list[Any], now: float) -> None:
        """Carry out the referee's events, in order (each by its handler); the referee has noted
        them already (its ``step``)."""
        through_the_door(self.door)
        for event in events:
            self._changed = True
            self.carry_out(react(self, event, now), now)

    def carry_out(self, effects: list[Effect], now: float) -> None:
        """Carry out what the parts decided, in order (firmware.session.effects): the state they
        keep is assigned here, and here only; the rest is done by its handler."""
        through_the_door(self.door)
        for effect in effects:
            if isinstance(effect, Keep):
                changes = effect.changes()
                for name in SETTINGS & changes.keys():
                    setattr(self, name, changes.pop(name))
                self._keep(**changes)
                self._changed = True
            else:
                do(self, effect, now)

    def _keep(self, **changes: Any) -> None:
        """The board's state from now on: this one value is replaced here, and here only."""
        self.board_state = dataclasses.replace(self.board_state, **changes)
        if "training" in changes:
            self.file.keep_training(changes["training"])   # (saved with the game: a restart goes on with it)
        if "setup" in changes:
            self.file.keep_setup(changes["setup"])         # (saved with the choice: a restart leads on from it)

    # -- after every input: new games, LEDs, saving, subscribers ------------------------------

    def refresh(self, now: float) -> None:
        """After an input or a change: the settled board read, the LEDs shown, the game saved
        when due, the subscribers told."""
        through_the_door(self.door)
        self.apply(self.referee.watch(now, stage(self)), now)
        if self.referee.board is not self._board_shown:   # a new settled board: the page shows it
            self._board_shown = self.referee.board
            self._changed = True
            self.carry_out(followed(self), now)   # (a position set up by hand: the board leads on)
        at = seen(self, now)   # what the board shows: the LEDs' state and the page's, from one pass
        held, playing = self.board_state.lights, self.live and bool(self.game.moves)
        if (lights := held.kept(now, self._board_shown, len(self.game.moves), playing)) is not held:
            self._keep(lights=lights)   # (the layers that no longer stand: gone)
        game = game_layer(at.feedback, self.style)
        self._show_leds(game, now)
        if self._changed and self._watchers:
            fen = self.game.fen()
            for watcher in list(self._watchers):
                watcher(self._board_shown, fen)
        self.coach.follow()   # (a move just made judged, one taken back marked: before the save)
        self.trainer.follow()
        if self.file.dirty and self.file.saving.due(now):
            self._changed |= self.file.save(self.game, now)
            self._show_leds(game, now)   # (a save that failed: its mark at once)
        if self._changed and self._subscribers:
            self._changed = False
            state = session_state(self, now, at)   # (the LEDs' state of this very moment)
            for callback in list(self._subscribers):
                try:
                    callback(state)
                except Exception:  # a page that fails must not stop the board
                    log.exception("state subscriber failed")

    def _show_leds(self, game: Layer, now: float) -> None:
        """The one place the LEDs are shown: the frame composed from the layers, when it changed."""
        layers = self.board_state.lights.layers(game, alarm(self.file.saving.error, self.style))
        if layers == self.leds_layers and steady(layers):
            return   # (the same steady layers: the same frame, most refreshes)
        self.leds_layers = layers
        leds = compose(layers, now)
        if leds != self.leds_frame:
            self.leds_frame = leds
            self._changed |= self.board_state.app is None   # (an app's lights: the page plays their blinking itself)
            if self.leds is not None:
                self.leds.show(leds)
                self.frames_shown += 1

    def next_game(self, now: float, names: tuple[str | None, str | None] | None, *,
                  engine_side: str | None = None, fen: str | None = None, arrange: int = 0) -> None:
        """Set up the next game; the match starts it once the board shows the start position.

        ``engine_side`` chooses the engine's side; take-overs end with the game that had them.
        ``fen``: its start (default: the configured one); ``arrange``: the squares whose piece must
        be lifted before it begins (a position set up by hand). Until it begins, the choice is saved
        in the last game's place (a restart waits for it again).
        """
        started, seat = self.referee.started, self.seat
        self.file.leave(self.referee.game, now)   # (a game a full disk kept from being saved: written first)
        was_engine = seat.kind is OpponentKind.ENGINE
        before = (seat.engine_sides if was_engine else frozenset(), seat.name_of_engine() if was_engine else None)
        for side, takeover in seat.takeovers.items():
            names_now = self.board_state.names
            self._keep(names=(takeover.player if side == 0 else names_now[0], takeover.player if side == 1 else names_now[1]))
        seat.new_game()
        seat.prepare(seat.choice, engine_side, before[0] if started else None)
        self._keep(given_names=names)
        g = self.config.game
        if names is not None:
            self._keep(names=(names[0] or g.white, names[1] or g.black))
        elif started:
            engine_now = seat.kind is OpponentKind.ENGINE
            if (was_engine and engine_now and seat.engine_sides != before[0]) or (
                    not (was_engine and engine_now) and g.alternate_colours):
                self._keep(names=colours_changed(self.board_state.names))
        for side in before[0] - seat.engine_sides:   # the engine's name off a side it left
            if self.board_state.names[side] == before[1]:
                self.set_names((g.white, self.board_state.names[1]) if side == 0 else (self.board_state.names[0], g.black))
        seat.name_engine_sides(names)
        self._keep(phase=Phase.SETTING_UP, play=Play(), setup=None, training=None,   # (a trainer's drill: kept after)
                   standing=self.game.fen() if started else self.board_state.standing)
        self._changed = True
        self.apply(self.referee.begin(Match(self.match_config(arrange=arrange, **({} if fen is None else {"fen": fen}))), now), now)
        if self.file.record is None:   # (not begun at once, on a board already set up)
            self.file.choose(chosen_game(self))


__all__ = ["Session", "SessionError", "ended_by_last_move"]
