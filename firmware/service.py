"""The board service: sensor thread -> queue -> session loop -> LEDs, with systemd notifications.

The scanner runs in its own thread (the sensor source's) and hands each raw reading to the
asyncio loop with ``loop.call_soon_threadsafe``; one task feeds them to the :class:`Session`,
polls it at the deadlines it names (settling, flags, gestures, blinking) and feeds the systemd
watchdog. Nothing else decides anything here.

The pin map's optional buttons (``[buttons]``, board_driver.buttons) are sampled every 10 ms on
a thread of their own, never the loop's, and their presses come through the same queue: the
gestures' buttons, "promote" and "return" are the session's (``Session.button``); "speak" and
"describe" ask the voice what the page's "Say the last move and the clocks" and "Describe the
position" ask (:meth:`Service.request_voice`); "hint" is the coach's.

Time: on a live board it is ``time.monotonic()``, the clock the sources stamp readings with.
A replay runs on the capture's own time: the latest reading's, with the session polled at its
deadlines in between, so a replay decides exactly as the game did at any speed.

Resuming a replay: every save records the session time of the event saved and the capture
being replayed. A replay restarted on the same capture (after a crash or a kill) restores the
saved game and continues the capture from that instant: the reading showing the board then,
re-stamped with that time, then every later line. The readings before were consumed by the
saved moves; those after are played again, so a move that was not saved is made again.
A replay of a *new* capture continues the saved game exactly as a real board does after a
power cut: restored at the capture's first instant, the capture's readings are the board's
new stream (so a bug report of two captures across a restart replays as it happened).
"""
from __future__ import annotations

import asyncio
import gc
import dataclasses
import logging
import signal
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, TextIO, Union

from board_driver.backends import open_leds, open_source
from board_driver.buttons import POLL_S, ButtonPress, ButtonStuck, GpioButtons
from board_driver.pinmap import LedPins, load_pinmap
from board_driver.reading import Reading
from board_driver.sensors import SensorError

from firmware.companion import KEEP, Companion
from firmware.config import Config
from firmware.heap import one_heap, return_large_blocks
from firmware.sdnotify import Notifier
from firmware.session import SessionError
from firmware.session.door import Command, Message, carry_out
from firmware.session.session import Session

if TYPE_CHECKING:
    from board_driver.capture import CaptureWriter

log = logging.getLogger(__name__)

READY_STATUS = "board read"
# epoll waits whole milliseconds, rounded up: the loop wakes this much before a deadline and
# sleeps the rest (under a millisecond, precise), so a settled reading is not served late.
EARLY_S = 0.001


@dataclass(frozen=True)
class Promote:
    """A ``promote`` line of a capture: the piece for the next promotion."""

    time: float
    piece: str


class _End:
    """The replay has delivered everything."""


class _Stop:
    """Stop the loop (SIGTERM, ``stop()``)."""


class _Tick:
    """Poll the session now (``poke()``, a timeout)."""


@dataclass(frozen=True)
class _Ask:
    """A message for the session (firmware.session.door), and where its answer goes (None: nowhere)."""

    message: Message
    answer: "asyncio.Future[Any] | None" = None


END, STOP, TICK = _End(), _Stop(), _Tick()
_Item = Union[Reading, Promote, ButtonPress, ButtonStuck, _Ask, _Tick, _Stop, _End]   # what the loop's queue carries
CONFIGURED = object()   # Service(opponent=..., buttons=...): what the configuration names
SPOKEN_BUTTONS = {"speak": "repeat", "describe": "describe"}
"""The buttons that ask the voice, and what they ask (firmware.voice.companion.REQUESTS)."""


def build_source(config: Config, *, on_promote: Callable[[Any], None] | None = None):
    """The sensor source named by ``[board] sensors`` (see board_driver.backends)."""
    board = config.board
    pinmap = load_pinmap(board.pinmap) if board.sensors == "gpio" else None
    capture = Path(board.capture) if board.capture else None   # ("": no capture, a live board)
    return open_source(board.sensors, pinmap=pinmap, port=board.port, capture=capture,
                       speed=board.speed or None, on_promote=on_promote)


def build_leds(config: Config, source: Any = None):
    """The LED sink named by ``[leds] sink`` (None for "none"), with the pin map's chain."""
    sink = config.leds.sink
    pins = None
    if sink in ("neopixel", "serial"):
        if sink == "serial" and not Path(config.board.pinmap).exists():
            pins = LedPins()  # a co-processor board needs no pin map: the reference chain's geometry
        else:
            pins = load_pinmap(config.board.pinmap).leds or LedPins()
        if config.leds.layout:
            pins = dataclasses.replace(pins, layout=config.leds.layout)
    return open_leds(sink, pins=pins, source=source)


def build_buttons(config: Config) -> GpioButtons | None:
    """The pin map's ``[buttons]`` on a board read through the Pi's pins or a co-processor with a
    pin map (``[board] sensors`` "gpio", or "serial" and its pin map file exists); None without
    buttons, and always in a replay or the simulator (no pins to read)."""
    board = config.board
    if board.sensors not in ("gpio", "serial") or (board.sensors == "serial" and not Path(board.pinmap).exists()):
        return None
    buttons = load_pinmap(board.pinmap).buttons
    return GpioButtons(buttons) if buttons.pins else None


def _log_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("companion %s stopped: %s", task.get_name(), task.exception())


def resume_events(events: Iterable, at: float) -> Iterator:
    """The events of a capture from instant ``at`` on: the reading in effect then (stamped ``at``)
    and everything after it, read as they are needed (a capture is never held whole)."""
    current = None
    first = True
    for event in events:
        if event.time <= at:
            if isinstance(event, Reading):
                current = event
            continue
        if first:
            first = False
            if current is not None:
                yield Reading(at, current.occupied, current.white, current.black)
        yield event
    if first and current is not None:
        yield Reading(at, current.occupied, current.white, current.black)


class Service:
    """Runs a :class:`Session` on a sensor source until stopped (or the replay ends).

    ``source``/``leds`` default to those the configuration names; ``capture`` records every raw
    reading to that file (capture format v1); ``companions`` are coroutine functions called
    with the service once it runs (the web companion), cancelled when it stops; ``opponent``
    (engine, Lichess; see firmware.session.seat) is started with the session: by default the
    one ``[game] opponent`` names (firmware.opponents.factory.build_opponent), a replay included;
    None: two players over the board. ``buttons`` (a GpioButtons, None for none) default to the
    pin map's (:func:`build_buttons`), sampled every ``button_poll_s`` s on their own thread (None:
    only when ``poll_buttons`` is called, for tests that move the clock by hand).
    """

    def __init__(self, config: Config, *, source: Any = None, leds: Any = None, capture: Path | None = None,
                 notifier: Notifier | None = None, clock: Callable[[], float] = time.monotonic,
                 wall: Callable[[], datetime] = datetime.now,
                 companions: tuple[Companion, ...] = (),
                 opponent: Any = CONFIGURED, buttons: Any = CONFIGURED,
                 button_poll_s: float | None = POLL_S) -> None:
        self.config = config
        self.replaying = config.board.sensors == "replay"
        self.source = source if source is not None else build_source(config, on_promote=self._promote)
        self.leds = leds if leds is not None or source is not None else build_leds(config, self.source)
        self.capture_path = capture
        self.notifier = notifier or Notifier()
        self._monotonic = clock
        self.now = clock() if not self.replaying else 0.0
        replay = str(Path(config.board.capture).resolve()) if self.replaying else None
        if opponent is CONFIGURED:   # a replay too: a recorded engine or online game replays against one
            from firmware.opponents.factory import build_opponent
            opponent = build_opponent(config)
        self.session = Session(config, leds=self.leds, clock=self._clock, wall=wall, replay=replay,
                               opponent=opponent, door=self)
        self.companions = companions
        self.voice: Any = None   # the board's voice while it speaks (firmware.voice.companion.serve_voice)
        self.page_voice: Any = None   # the page's announcements while it is served (firmware.web.spoken.PageVoice)
        self.buttons: GpioButtons | None = build_buttons(config) if buttons is CONFIGURED else buttons
        self.button_poll_s = button_poll_s
        self.ready = asyncio.Event()
        self.readings = 0
        self.exit_code = 0
        self._queue: asyncio.Queue[_Item] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping = False
        self._capture_writer: CaptureWriter | None = None
        self._capture_file: TextIO | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._deadline: float | None = None
        self._task: asyncio.Task[Any] | None = None   # the loop that carries the session's messages out, while it runs
        self._door_closed = False   # the loop takes no more messages (the service is stopping)

    # -- the shell -------------------------------------------------------------------------------

    def _clock(self) -> float:
        return self.now if self.replaying else self._monotonic()

    def _hand_over(self, item: _Item) -> None:
        """Called on the scanner's thread: put ``item`` on the loop's queue."""
        loop, queue = self._loop, self._queue
        if loop is not None and queue is not None and not loop.is_closed():   # (both made by run())
            loop.call_soon_threadsafe(queue.put_nowait, item)

    def _promote(self, choice: Any) -> None:
        self._hand_over(Promote(choice.time, choice.piece))

    # -- the session's door (firmware.session.door) ----------------------------------------------

    def send(self, message: Message) -> Any:
        """``message`` in the loop's queue; an awaitable of its answer (a refusal raised from it).
        Before the loop runs (nothing else can change the session), carried out at once; once the
        service is stopping, refused at once (SessionError "board_stopping")."""
        loop, queue = self._loop, self._queue
        if queue is None or loop is None or self._task is None:
            return carry_out(self.session, message)
        if self._stopping:
            raise SessionError("board_stopping")
        answer: asyncio.Future[Any] = loop.create_future()
        queue.put_nowait(_Ask(message, answer))
        return answer

    def post(self, message: Message) -> None:
        """``message`` in the loop's queue, from the loop's thread; no answer awaited. Once the
        loop has stopped taking messages (the service stopping), carried out at once by the
        stopping service itself, or dropped with a journal line when it comes from elsewhere."""
        if self._queue is None or self._task is None:
            carry_out(self.session, message)
        elif not self._door_closed:
            self._queue.put_nowait(_Ask(message))
        elif self.inside():
            self._on_ask(_Ask(message))
        else:
            log.info("%s came while the board was stopping: left out", message)

    def post_threadsafe(self, message: Message) -> None:
        """``message`` in the loop's queue, from another thread (dropped before the loop runs and
        once it has stopped taking messages: nothing reads the queue then)."""
        self._hand_over(_Ask(message))

    def inside(self) -> bool:
        """The caller is the loop (or no loop runs: a service being set up or stopped)."""
        return self._task is None or asyncio.current_task() is self._task

    # -- what the companions lend (firmware.companion.ServiceContext) ------------------------------

    def offer(self, *, voice: Any = KEEP, page_voice: Any = KEEP) -> None:
        """What a companion lends the board (None: taken back); see firmware.companion."""
        if voice is not KEEP:
            self.voice = voice
        if page_voice is not KEEP:
            self.page_voice = page_voice

    def poke(self) -> None:
        """Wake the loop to poll the session now (tests that move an injected clock); it comes
        after the readings handed over before it."""
        self._hand_over(TICK)

    async def processed(self) -> None:
        """Wait until the loop has handled everything handed over so far."""
        await asyncio.sleep(0)  # let the hand-overs scheduled by call_soon_threadsafe land
        if self._queue is None:
            raise RuntimeError("the service is not running: nothing is handed over before run()")
        await self._queue.join()

    def stop(self) -> None:
        """Ask the loop to stop (signal handlers, tests); idempotent. The opponent hears at once
        that a stop has begun: an engine that ends meanwhile is not started again."""
        self._stopping = True
        self.session.seat.closing()
        if self._queue is not None:
            self._queue.put_nowait(STOP)

    async def run(self) -> int:
        """Run until stopped or the replay ends; returns the exit code."""
        one_heap()   # before the sensor thread and the page's loader start: no heap of their own
        self._loop = asyncio.get_running_loop()
        queue: asyncio.Queue[_Item] = asyncio.Queue()
        self._queue = queue
        self._task = asyncio.current_task()
        for sig in (signal.SIGTERM, signal.SIGINT):
            try:
                self._loop.add_signal_handler(sig, self.stop)
            except (NotImplementedError, RuntimeError, ValueError):
                pass  # not the main thread (tests): stop() is called directly
        self._open_capture()
        try:
            self._start_session()
            await self.session.start_opponent()
            self._start_source()
            self._start_buttons()
            self.notifier.status("waiting for the board")
            self._tasks = [asyncio.create_task(companion(self)) for companion in self.companions]
            for task in self._tasks:
                task.add_done_callback(_log_failure)
            await self._main_loop(queue)
        finally:
            self._close_door(queue)
            await self._shutdown()
            self._task = None
        return self.exit_code

    def _start_session(self) -> None:
        session = self.session
        if not self.replaying:
            session.restore(self._clock())
            return
        record = session.file.recorder.load()
        self.resume_at = None
        if record is None:
            return
        if record.replay == session.replay and record.event_time is not None:
            self.resume_at = record.event_time
            self.now = record.event_time
            session.restore(record.event_time)
            self.source.events = resume_events(self.source.events, record.event_time)
            log.info("replay resumed at %.3f s of %s", record.event_time, session.replay)
            return
        # Another capture: the board's readings after a restart. The saved game goes on from them.
        first = next(iter(self.source.events), None)
        start = first.time if first is not None else 0.0
        self.now = start
        if session.restore(start) and session.file.record is not None:
            session.file.record.replay = session.replay     # a kill from now on resumes in this capture
            session.file.record.event_time = start
            log.info("replay of %s continues the saved game %s", session.replay, session.file.record.pgn_name)

    def _start_source(self) -> None:
        if self.replaying:
            self._replay_thread = asyncio.get_running_loop().run_in_executor(None, self._replay)
        else:
            self.source.start(self._hand_over)

    def _start_buttons(self) -> None:
        buttons = self.buttons
        if buttons is None:
            return
        try:
            buttons.open()
        except SensorError as exc:   # optional: the board plays on, the journal says why
            log.error("the buttons cannot be read (%s): the board plays on without them", exc)
            self.buttons = None
            return
        if self.button_poll_s is not None:
            buttons.start(self._hand_over, clock=self._clock, interval=self.button_poll_s)
        log.info("buttons: %s", ", ".join(f"{name} (GPIO {pin})" for name, pin in buttons.pins.items()))

    def poll_buttons(self, now: float) -> None:
        """Sample the buttons at ``now`` and hand their presses to the loop, as their thread does
        (tests that move the clock by hand)."""
        if self.buttons is not None:
            for event in self.buttons.poll(now):
                self._hand_over(event)

    def _replay(self) -> None:
        try:
            self.source.run(self._hand_over)
        finally:
            self._hand_over(END)

    async def _main_loop(self, queue: asyncio.Queue[_Item]) -> None:
        notifier = self.notifier
        handlers: dict[type, Callable[[Any], None]] = {Reading: self._on_reading, Promote: self._on_promote,
                                                       ButtonPress: self._on_button, ButtonStuck: self._on_stuck,
                                                       _Ask: self._on_ask, _Tick: self._on_tick}
        interval = notifier.watchdog_interval
        next_watchdog = self._monotonic() + (interval or 0)
        item: _Item | None
        while not self._stopping:
            if not queue.empty():
                item = queue.get_nowait()
            else:
                timeout = self._timeout(next_watchdog)
                try:   # (not asyncio.wait_for: on 3.11 it drops a cancellation that meets an item)
                    async with asyncio.timeout(timeout):
                        item = await queue.get()
                except asyncio.TimeoutError:
                    item = None
                if item is None:
                    # Readings handed over while the loop was busy wait in the loop's ready
                    # queue: they come first, or a poll at "now" would pass them by.
                    await asyncio.sleep(0)
                    if queue.empty():
                        self._on_tick(TICK)
            if item is STOP:
                break
            if item is END:  # what the hands left is final; the clocks stop with the capture
                self.session.finish(self.now)
                break
            if item is not None:
                handlers[type(item)](item)
                queue.task_done()
            if interval is not None and self._monotonic() >= next_watchdog:
                notifier.watchdog()
                next_watchdog = self._monotonic() + interval

    def _timeout(self, next_watchdog: float) -> float | None:
        """How long the loop may wait for a reading: until the session's next deadline (live)
        or the next watchdog ping, whichever comes first."""
        timeout = None
        self._deadline = None
        if not self.replaying:
            deadline = self.session.next_deadline(self._clock())
            if deadline is not None:
                self._deadline = deadline
                timeout = max(0.0, deadline - self._clock() - EARLY_S)
        if self.notifier.watchdog_interval is not None:
            wait = max(0.0, next_watchdog - self._monotonic())
            timeout = wait if timeout is None else min(timeout, wait)
        return timeout

    @property
    def next_wake(self) -> float | None:
        """The session deadline the loop sleeps until (None: until a reading or a command)."""
        return self._deadline

    def _close_door(self, queue: asyncio.Queue[_Item]) -> None:
        """The loop has stopped: what was handed in and not yet carried out is, except the
        commands that wait for an answer, which are refused (the board is stopping); from now on
        a message is carried out at once by the stopping service (firmware.session.door)."""
        self._door_closed = True
        while not queue.empty():
            item = queue.get_nowait()
            queue.task_done()
            if isinstance(item, _Ask) and item.answer is not None:
                if not item.answer.done():
                    item.answer.set_exception(SessionError("board_stopping"))
            elif isinstance(item, _Ask):
                self._on_ask(item)   # (the opponent's last news: in the game before it is saved)

    def _on_ask(self, ask: _Ask) -> None:
        """A message for the session: carried out, its answer (or refusal) to whoever waits."""
        answer = ask.answer
        try:
            result = carry_out(self.session, ask.message)
        except Exception as exc:  # noqa: BLE001 - the sender hears of it; the board goes on
            if answer is not None and not answer.done():
                answer.set_exception(exc)
            elif isinstance(exc, SessionError):
                log.info("%s refused: %s", ask.message, exc)
            else:
                log.exception("%s failed", ask.message)
            return
        if answer is not None and not answer.done():
            answer.set_result(result)

    def _on_reading(self, reading: Reading) -> None:
        if self._capture_writer is not None:
            try:
                self._capture_writer.write(reading)
            except (OSError, ValueError) as exc:
                # A full disk ends the recording of the readings, never the game.
                log.error("cannot write the capture %s (%s): recording of the readings stops, the game goes on",
                          self.capture_path, getattr(exc, "strerror", None) or exc)
                self._capture_writer = None
        if self.replaying:
            self._advance(reading.time)
        self.session.feed(reading)
        self.readings += 1
        if not self.ready.is_set():
            self.ready.set()
            # What start-up made lives as long as the service: out of the collector's full
            # passes (11 ms here, a frame held back on a Pi, each time one ran).
            gc.freeze()
            return_large_blocks()  # a large search's tables freed go back to the system
            self.notifier.ready(READY_STATUS)
            log.info("board read: ready")

    def _on_promote(self, choice: "Promote") -> None:
        self._advance(choice.time)
        try:
            carry_out(self.session, Command("choose_promotion", (choice.piece, choice.time)))
        except SessionError as exc:   # (a capture's promote line the game cannot take: the replay goes on)
            log.info("the capture's promotion to %s: %s", choice.piece, exc)

    def _on_button(self, press: ButtonPress) -> None:
        name, now = press.name, self._clock()   # (the loop's time: a reading handed over first may be later)
        log.debug("the %s button was pressed", name)
        if name in SPOKEN_BUTTONS:
            self.request_voice(SPOKEN_BUTTONS[name], now, button=name)
            return
        try:
            carry_out(self.session, Command("button", (name, now)))   # "hint": the coach's, for a side [coach] helps
        except SessionError as exc:   # a refusal: the player hears nothing new; the journal says why
            log.info("the %s button: %s", name, exc)

    def _on_stuck(self, stuck: ButtonStuck) -> None:
        buttons = self.buttons
        if buttons is None:   # (stopped meanwhile)
            return
        log.warning("the %s button (GPIO %s) has read pressed for more than %g s: stuck, or its wire shorted to "
                    "ground; it does nothing until released (echiquier hwtest --doctor checks it)",
                    stuck.name, buttons.pins.get(stuck.name), buttons.debouncer.stuck_s)

    def request_voice(self, what: str, now: float, *, button: str = "") -> None:
        """Say ``what`` ("repeat": the last move and the clocks; "describe": the position) for a
        player at the board, as the page's request (POST /api/voice) has it said: while the page
        is served, a new announcement of the page (its aria-live region, and the phone's voice if
        asked), which the board's voice says too; else the board's voice alone; with neither, a
        journal line."""
        page, voice = self.page_voice, self.voice
        if page is not None:
            page.announce(what, now)
            self.session.publish()   # the page is sent the new announcement (on the loop: a button's press)
        elif voice is not None:
            voice.request(what)
        else:
            log.info("the %s button was pressed: the board has no voice ([voice] enabled) and no page to say it on",
                     button or what)

    def _on_tick(self, tick: "_Tick") -> None:
        if self.replaying:
            return
        early = (self._deadline or 0.0) - self._clock()
        if 0 < early <= EARLY_S:
            time.sleep(early)
        self.session.poll(self._clock())

    def _advance(self, until: float) -> None:
        """Replay: poll the session at each of its deadlines before ``until``, in order."""
        session = self.session
        while True:
            deadline = session.next_deadline(self.now, blink=False)
            if deadline is None or deadline >= until:
                break
            self.now = max(self.now, deadline)
            session.poll(self.now)
        self.now = max(self.now, until)

    def _open_capture(self) -> None:
        if self.capture_path is None:
            return
        from board_driver.capture import CaptureWriter
        try:
            self._capture_file = open(self.capture_path, "a", encoding="utf-8")
            self._capture_writer = CaptureWriter(self._capture_file,
                                                 header=f"echiquier capture v1, {datetime.now():%Y-%m-%d %H:%M}")
        except OSError as exc:
            log.error("cannot record the capture %s (%s): the board plays on without recording its readings",
                      self.capture_path, exc.strerror or exc)

    async def _shutdown(self) -> None:
        self.notifier.stopping()
        for task in self._tasks:
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        self.source.stop()
        if self.buttons is not None:
            self.buttons.stop()
        if self.replaying and getattr(self, "_replay_thread", None) is not None:
            await asyncio.gather(self._replay_thread, return_exceptions=True)
        await self.session.aclose()
        if self.leds is not None:
            try:
                if not self.replaying:
                    self.leds.clear()
                self.leds.close()
            except Exception:
                log.exception("closing the LEDs")
        if self._capture_file is not None:
            try:
                self._capture_file.close()
            except OSError:
                pass   # the last lines could not be flushed (a full disk): said when it failed
        self.notifier.close()
        if self._loop is not None:
            for sig in (signal.SIGTERM, signal.SIGINT):
                try:
                    self._loop.remove_signal_handler(sig)
                except (NotImplementedError, RuntimeError, ValueError):
                    pass
