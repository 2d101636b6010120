"""Push buttons: a pure debouncer that turns sampled levels into presses on explicit times, and the GPIO pins it samples.

Contract
========

``ButtonDebouncer(names, hold_ms=30, stuck_s=10)``

* ``update(now, pressed) -> list[ButtonEvent]``: the buttons sampled at ``now`` (name ->
  whether it reads pressed). Returns the frozen events this sample brings, in the order of
  ``names``: usually none.
* A **press** (:class:`ButtonPress`) counts once, at the first sample that finds the button held
  ``hold_ms`` unchanged (contact bounce shorter than that is no press); it does not repeat while
  the button is held, and a bounce while it is held or let go is no second press: the next press
  needs the button read released for ``hold_ms`` first.
* A button held longer than ``stuck_s`` (a stuck key, a wire shorted to ground) is said once as a
  problem (:class:`ButtonStuck`), never as repeated presses; released for ``hold_ms``, it works
  again.
* A button that reads pressed at the first sample (shorted, or leant on while the board starts)
  is no press until it has been seen released: a shorted ``resign_white`` never resigns a game.

>>> d = ButtonDebouncer(["speak"])
>>> d.update(0.000, {"speak": False}), d.update(1.000, {"speak": True}), d.update(1.020, {"speak": True})
([], [], [])
>>> d.update(1.030, {"speak": True})
[ButtonPress(name='speak', time=1.03)]
>>> d.update(1.500, {"speak": True}), d.update(1.600, {"speak": False})
([], [])

:class:`GpioButtons` reads a pin map's ``[buttons]`` (board_driver.pinmap.ButtonPins) through
RPi.GPIO: each pin an input with the Pi's internal pull-up, the button joining it to ground
(low: pressed). It samples them on a thread of its own (``start``) or when asked (``poll``).
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .hw_lock import HardwareLock
from .pinmap import ButtonPins
from .sensors import SensorError

log = logging.getLogger(__name__)
HOLD_MS = 30.0    # held this long unchanged, a press counts (contact bounce lasts a few ms)
STUCK_S = 10.0    # held longer than this, a button is stuck (or shorted to ground)
POLL_S = 0.01     # the polling thread's pace: a press is seen 30 to 40 ms after the finger
_EPS = 1e-9


@dataclass(frozen=True, slots=True)
class ButtonPress:
    """The button ``name`` was pressed; ``time``: the sample that found it held ``hold_ms``."""

    name: str
    time: float


@dataclass(frozen=True, slots=True)
class ButtonStuck:
    """The button ``name`` has been held since ``since`` for longer than ``stuck_s`` (at
    ``time``): stuck, or its wire shorted to ground. Said once until it is released."""

    name: str
    since: float
    time: float


ButtonEvent = ButtonPress | ButtonStuck


class _Button:
    """One button's state (the debouncer's own, mutable)."""

    __slots__ = ("level", "since", "down", "down_since", "stuck", "armed")

    def __init__(self) -> None:
        self.level: bool | None = None    # the last sample
        self.since = 0.0                  # when the samples last changed to ``level``
        self.down = False                 # a hold of hold_ms seen, no release of hold_ms since
        self.down_since = 0.0             # when that hold began
        self.stuck = False                # said stuck during this hold
        self.armed = False                # seen released: a hold is a press


class ButtonDebouncer:
    """Sampled button levels in, frozen press and stuck events out; see the module docstring."""

    def __init__(self, names: Iterable[str], *, hold_ms: float = HOLD_MS, stuck_s: float = STUCK_S) -> None:
        if not hold_ms >= 0:
            raise ValueError(f"hold_ms must be at least 0, not {hold_ms!r}")
        if not stuck_s > 0:
            raise ValueError(f"stuck_s must be more than 0, not {stuck_s!r}")
        self.hold_ms = hold_ms
        self.stuck_s = stuck_s
        self._hold = hold_ms / 1000.0
        self._buttons = {name: _Button() for name in names}

    def update(self, now: float, pressed: Mapping[str, bool]) -> list[ButtonEvent]:
        for name in pressed:
            if name not in self._buttons:
                raise ValueError(f"unknown button {name!r} (known: {', '.join(self._buttons)})")
        events: list[ButtonEvent] = []
        for name, button in self._buttons.items():
            if name not in pressed:
                continue
            level = bool(pressed[name])
            if level != button.level:
                if button.level is None and not level:
                    button.armed = True    # released at the first sample: ready at once
                button.level, button.since = level, now
            lasted = now - button.since + _EPS >= self._hold
            if level:
                if lasted and not button.down:
                    button.down, button.down_since = True, button.since
                    if button.armed:
                        events.append(ButtonPress(name, now))
                if button.down and not button.stuck and now - button.down_since > self.stuck_s:
                    button.stuck = True
                    events.append(ButtonStuck(name, button.down_since, now))
            elif lasted:
                button.down = button.stuck = False
                button.armed = True
        return events

    def stuck(self) -> set[str]:
        """The buttons said stuck and not released since."""
        return {name for name, button in self._buttons.items() if button.stuck}


class GpioButtons:
    """The pin map's buttons through RPi.GPIO (BCM numbering): see the module docstring.

    ``gpio`` injects a module with the RPi.GPIO API (board_driver.backends.mock_gpio.MockGPIO in tests);
    ``lock`` (default: /run/echiquier/buttons.lock) is held while the pins are claimed, so two
    processes never read (and release) the same buttons.
    """

    def __init__(self, buttons: ButtonPins, *, gpio: Any = None, lock: HardwareLock | None = None,
                 root: Path = Path("/"), hold_ms: float = HOLD_MS, stuck_s: float = STUCK_S) -> None:
        self.buttons = buttons
        self.pins = buttons.by_name
        self.debouncer = ButtonDebouncer(self.pins, hold_ms=hold_ms, stuck_s=stuck_s)
        self.lock = lock if lock is not None else HardwareLock("buttons", "the GPIO buttons")
        self.last_read: dict[str, bool] = {}
        """The last sample: name -> pressed (the live view shows it)."""
        self.error: BaseException | None = None
        """The exception that ended the polling thread, if any."""
        self._gpio = gpio
        self._root = root
        self._claimed: list[int] = []
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()

    @property
    def gpio(self) -> Any:
        """The RPi.GPIO module in use (imported on first use)."""
        if self._gpio is None:
            from .backends.gpio_matrix import import_rpi_gpio
            self._gpio = import_rpi_gpio(self._root)
        return self._gpio

    def open(self) -> None:
        """Claim the pins: inputs with the pull-up. SensorError (HardwareBusyError) when they cannot be."""
        gpio = self.gpio
        self.lock.acquire()
        try:
            if gpio.getmode() not in (None, gpio.BCM):
                raise SensorError("GPIO numbering is already set to BOARD in this process; the buttons need BCM")
            try:
                gpio.setmode(gpio.BCM)
                for pin in self.pins.values():
                    gpio.setup(pin, gpio.IN, pull_up_down=gpio.PUD_UP)
                    self._claimed.append(pin)
            except (RuntimeError, ValueError) as exc:
                from .backends.gpio_matrix import setup_error
                from .pi_platform import detect
                raise setup_error(exc, detect(self._root)) from exc
        except BaseException:
            self._release()
            self.lock.release()
            raise

    def read(self) -> dict[str, bool]:
        """Each button now: name -> whether it reads pressed (its pin low)."""
        inp, low = self.gpio.input, self.gpio.LOW
        return {name: inp(pin) == low for name, pin in self.pins.items()}

    def poll(self, now: float) -> list[ButtonEvent]:
        """Sample the buttons at ``now`` and debounce: the events this sample brings."""
        self.last_read = self.read()
        return self.debouncer.update(now, self.last_read)

    def start(self, sink: Callable[[ButtonEvent], None], *, clock: Callable[[], float] = time.monotonic,
              interval: float = POLL_S) -> None:
        """Poll every ``interval`` s on a thread of its own, handing each event to ``sink`` (which
        runs on that thread and must be quick: put it on a queue)."""
        self._stopping.clear()
        self.error = None

        def run() -> None:
            try:
                while not self._stopping.is_set():
                    for event in self.poll(clock()):
                        sink(event)
                    self._stopping.wait(interval)
            except Exception as exc:   # the thread must not die silently; the board plays on without its buttons
                self.error = exc
                log.exception("the buttons' thread stopped: the board plays on without its buttons")

        self._thread = threading.Thread(target=run, name="buttons", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the thread (if started) and release the pins. Idempotent."""
        self._stopping.set()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join()
        self.close()

    def close(self) -> None:
        """Release the pins (only ours: other users of RPi.GPIO keep theirs) and the lock."""
        self._release()
        self.lock.release()

    def _release(self) -> None:
        if self._claimed:
            pins, self._claimed = self._claimed, []
            self.gpio.cleanup(pins)


__all__ = ["ButtonDebouncer", "ButtonEvent", "ButtonPress", "ButtonStuck", "GpioButtons", "HOLD_MS", "STUCK_S",
           "POLL_S"]
