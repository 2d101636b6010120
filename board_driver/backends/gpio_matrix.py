"""RPi.GPIO backend: scans the 8x8 diode matrix wired to the Pi's header.

Electrical model (the reference build, ``active = "low"``): 8 row lines are outputs, 8 column
lines are inputs with pull-ups. At each crossing a sensor (a reed switch, or the output of an
open-collector Hall sensor such as the A3144) is in series with a diode whose anode is on the
column. To read rank ``r`` the scanner drives row ``r`` low and reads the columns: a column
reads low only through a closed sensor of that row, because the diodes of the other rows are
reverse-biased (that is what removes the "ghost" square of three pieces in a rectangle).
Unselected rows are released to the inactive level (or to high impedance, ``idle = "input"``)
between rows and between scans. ``active = "high"`` is the inverted build: rows driven high,
columns pulled down, diodes reversed. With transistor row drivers (``select`` in the pin map,
e.g. an N-MOSFET per row grounding that row's Hall sensors) the row is selected by the level
the driver needs while the columns keep their own active level.

Raspberry Pi 5: RPi.GPIO does not drive the Pi 5's RP1 chip, but the ``rpi-lgpio`` package
(``pip install rpi-lgpio``, in place of RPi.GPIO) provides the same ``RPi.GPIO`` module on top
of lgpio, so this backend runs unchanged there.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any
from pathlib import Path

from ..pi_platform import PiModel, detect
from ..hw_lock import HardwareLock, gpio_lock
from ..pinmap import MatrixPins, PinMap
from ..reading import Reading
from ..sensors import BackendUnavailableError, SensorError, SensorSource

SPIN_LIMIT_US = 2000
"""Settling delays up to this are busy-waited (time.sleep overshoots by ~100 us on Linux)."""


def busy_wait_us(us: float) -> None:
    """Wait ``us`` microseconds: spin for short delays, sleep for long ones."""
    if us >= SPIN_LIMIT_US:
        time.sleep(us / 1e6)
        return
    end = time.perf_counter_ns() + int(us * 1000)
    while time.perf_counter_ns() < end:
        pass


def import_rpi_gpio(root: Path = Path("/")) -> Any:  # the module, untyped
    """Import ``RPi.GPIO`` (RPi.GPIO on Pi 1-4, rpi-lgpio on Pi 5) or raise an error naming the fix.

    RPi.GPIO 0.7.1 raises RuntimeError at import off a Pi ("This module can only be run on a
    Raspberry Pi!") and on a Pi 5 ("Cannot determine SOC peripheral base address"): the model
    (read under ``root``) says which package to install.
    """
    model = detect(root)
    try:
        import RPi.GPIO as GPIO  # type: ignore[import-untyped]  # noqa: N814 - the vendor's own spelling; no type hints
    except ImportError as exc:
        package = "rpi-lgpio" if model.generation and model.generation >= 5 else "RPi.GPIO"
        raise BackendUnavailableError(
            f"RPi.GPIO is not available on this {model.name}: install {package!r} "
            f"(RPi.GPIO on a Pi 1-4, rpi-lgpio on a Pi 5: same RPi.GPIO module) ({exc})"
        ) from exc
    except RuntimeError as exc:  # RPi.GPIO raises this off a Pi, on a Pi 5, or without /dev/gpiomem
        if model.generation and model.generation >= 5:
            raise BackendUnavailableError(
                f"RPi.GPIO cannot drive the {model.name}'s RP1 ({exc}): pip uninstall RPi.GPIO, "
                "then pip install rpi-lgpio (systemd/install.sh picks it by the model)"
            ) from exc
        raise SensorError(f"RPi.GPIO cannot run on this {model.name}: {exc}") from exc
    return GPIO


def setup_error(exc: Exception, model: PiModel) -> SensorError:
    """What RPi.GPIO's first setup() failure means here, with the fix.

    RPi.GPIO 0.7.1 maps the GPIO registers at the first setup(), not at import (py_gpio.c,
    mmap_gpio_mem): on a Pi 5 it raises "Cannot determine SOC peripheral base address"; when
    /dev/gpiomem cannot be opened it falls back to /dev/mem and raises "No access to /dev/mem.
    Try running as root!", which is the wrong advice for the service.
    """
    text = str(exc)
    if "SOC peripheral base address" in text and model.generation and model.generation >= 5:
        return BackendUnavailableError(
            f"RPi.GPIO cannot drive the {model.name}'s RP1 ({text}): pip uninstall RPi.GPIO, then "
            "pip install rpi-lgpio (systemd/install.sh picks it by the model)")
    if "No access to /dev/mem" in text:
        return SensorError(
            f"RPi.GPIO cannot open /dev/gpiomem ({text}): add the user to the gpio group "
            "(sudo usermod -aG gpio USER, then log in again); for the service, the unit must allow /dev/gpiomem")
    return SensorError(f"cannot set up the matrix pins: {text}")


class GpioMatrixSource(SensorSource):
    """Scans the matrix through RPi.GPIO (BCM numbering); see the module docstring.

    ``pinmap`` is a :class:`PinMap` or its :class:`MatrixPins`. ``settle_us`` (default: the
    pin map's) is the wait between selecting a row and reading its columns. ``gpio`` injects a
    module with the RPi.GPIO API (``board_driver.backends.mock_gpio.MockGPIO`` in tests); ``delay_us``
    injects the wait. ``poll_interval`` is the pause of the scanning thread between scans.
    ``lock`` (default: /run/echiquier/gpio.lock) is held while the pins are claimed, so a
    second scanner (hwtest beside the service) refuses with HardwareBusyError.
    """

    def __init__(
        self,
        pinmap: PinMap | MatrixPins,
        *,
        settle_us: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        gpio: Any = None,  # RPi.GPIO (untyped) or a stand-in such as MockGPIO
        poll_interval: float = 0.002,
        delay_us: Callable[[float], None] = busy_wait_us,
        lock: HardwareLock | None = None,
        root: Path = Path("/"),
    ):
        super().__init__()
        self.pins = pinmap.matrix if isinstance(pinmap, PinMap) else pinmap
        if not isinstance(self.pins, MatrixPins):
            raise TypeError(f"pinmap must be a PinMap or MatrixPins, not {type(pinmap).__name__}")
        self.settle_us = self.pins.settle_us if settle_us is None else settle_us
        if self.settle_us < 0:
            raise ValueError("settle_us must be >= 0")
        self.poll_interval = poll_interval
        self._clock = clock
        self._gpio = gpio
        self._delay_us = delay_us
        self._scan: Callable[[], int] | None = None
        self._claimed: list[int] = []
        self.lock = lock if lock is not None else gpio_lock()
        self._root = root

    @property
    def gpio(self) -> Any:
        """The RPi.GPIO module in use (imported on first use)."""
        if self._gpio is None:
            self._gpio = import_rpi_gpio(self._root)
        return self._gpio

    def read_once(self) -> Reading:
        with self._open_lock:
            self._ensure_open()
            scan = self._scan
            assert scan is not None  # built by _open
            occupied = scan()
        return Reading(self._clock(), occupied)

    def _open(self) -> None:
        self.lock.acquire()  # HardwareBusyError while the service (or another hwtest) scans
        try:
            self._setup()
        except BaseException:
            self.lock.release()
            raise

    def _setup(self) -> None:
        gpio = self.gpio
        mode = gpio.getmode()
        if mode not in (None, gpio.BCM):
            raise SensorError("GPIO numbering is already set to BOARD in this process; the matrix scanner needs BCM")
        pins = self.pins
        occupied = gpio.LOW if pins.active == "low" else gpio.HIGH
        pull = gpio.PUD_UP if occupied == gpio.LOW else gpio.PUD_DOWN
        select = gpio.LOW if pins.select_level == "low" else gpio.HIGH
        release = gpio.HIGH if select == gpio.LOW else gpio.LOW
        try:
            gpio.setmode(gpio.BCM)
            for col in pins.cols:
                gpio.setup(col, gpio.IN, pull_up_down=pull)
                self._claimed.append(col)
            for row in pins.rows:
                if pins.idle == "drive":
                    gpio.setup(row, gpio.OUT, initial=release)
                else:
                    gpio.setup(row, gpio.IN, pull_up_down=gpio.PUD_OFF)
                self._claimed.append(row)
        except (RuntimeError, ValueError) as exc:
            self._release()
            raise setup_error(exc, detect(self._root)) from exc
        self._scan = self._build_scan(gpio, select, release, occupied)

    def _build_scan(self, gpio: Any, select: int, release: int, occupied_level: int) -> Callable[[], int]:
        pins = self.pins
        # One (row pin, [(column pin, square bit), ...]) per row, computed once.
        plan = [
            (row, [(col, 1 << pins.square(r, c)) for c, col in enumerate(pins.cols)])
            for r, row in enumerate(pins.rows)
        ]
        inp, out, setup = gpio.input, gpio.output, gpio.setup
        settle_us, delay = self.settle_us, self._delay_us
        OUT, IN, PUD_OFF = gpio.OUT, gpio.IN, gpio.PUD_OFF

        if pins.idle == "drive":
            def scan() -> int:
                occupied = 0
                for row, cols in plan:
                    out(row, select)
                    if settle_us:
                        delay(settle_us)
                    for col, bit in cols:
                        if inp(col) == occupied_level:
                            occupied |= bit
                    out(row, release)
                return occupied
        else:
            def scan() -> int:
                occupied = 0
                for row, cols in plan:
                    setup(row, OUT, initial=select)
                    if settle_us:
                        delay(settle_us)
                    for col, bit in cols:
                        if inp(col) == occupied_level:
                            occupied |= bit
                    setup(row, IN, pull_up_down=PUD_OFF)
                return occupied
        return scan

    def _close(self) -> None:
        self._scan = None
        self._release()
        self.lock.release()

    def _release(self) -> None:
        if self._claimed:
            pins, self._claimed = self._claimed, []
            self.gpio.cleanup(pins)  # only our pins: other users of RPi.GPIO keep theirs
