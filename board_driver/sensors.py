"""The sensor-source interface every backend implements, its scanning thread and typed errors."""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import ClassVar, Self

from .reading import Reading

log = logging.getLogger(__name__)

Sink = Callable[[Reading], None]


class SensorError(Exception):
    """A sensor backend failed, or was asked for something it cannot do."""


class PinMapError(SensorError, ValueError):
    """A pin map is invalid; the message names the file and the key."""


class BackendUnavailableError(SensorError, ImportError):
    """The vendor library a backend needs (RPi.GPIO, neopixel, pyserial) cannot be imported."""


class SensorSource:
    """Delivers raw :class:`Reading` objects of the whole board to a sink.

    Use::

        with GpioMatrixSource(pinmap) as source:
            source.start(queue.put)      # a thread calls the sink from now on
            ...
        # leaving the block stops the thread and releases the hardware

    ``start(sink)`` starts delivering: a scanning thread calls ``sink`` with the first reading
    and then with every reading whose squares differ from the previous one (raw: bounce and
    all; debouncing is the consumer's job). ``read_once()`` reads the board now and returns the
    reading without delivering it. ``stop()`` is idempotent: it joins the thread and releases
    the hardware. The sink runs on the scanning thread and must be quick (put it on a queue).

    A backend **must** override:

    * ``read_once()`` -- read the whole board now and return a :class:`Reading`.

    A backend **may** override:

    * ``_open()`` -- claim the hardware. Called once before the first scan (by ``start()``,
      or lazily by a backend's ``read_once()`` through ``_ensure_open()``).
    * ``_close()`` -- release the hardware. Called once by ``stop()`` if ``_open()`` ran.
    * ``poll_interval`` -- seconds the default thread waits between two ``read_once()`` calls.
    * ``_run()`` -- the thread body, for sources whose readings are pushed rather than polled
      (serial link, replay). It must deliver through ``self._deliver(reading)`` and return
      soon after ``self._stopping`` is set.
    * ``uses_thread = False`` -- for sources that deliver from the caller's thread (the
      simulated board): ``start()`` then only records the sink and delivers the first reading.
    """

    poll_interval: float = 0.0
    uses_thread: ClassVar[bool] = True

    def __init__(self) -> None:
        self._sink: Sink | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self._deliver_lock = threading.Lock()
        self._last: Reading | None = None
        self._opened = False
        self._open_lock = threading.RLock()
        self.scan_count = 0
        """Readings taken by the scanning thread (for a scan rate)."""
        self.delivered_count = 0
        """Readings handed to the sink."""
        self.error: BaseException | None = None
        """The exception that ended the scanning thread, if any."""

    # -- what backends implement ---------------------------------------------------------
    def read_once(self) -> Reading:
        """Read the whole board now."""
        raise NotImplementedError

    def _open(self) -> None:
        """Claim the hardware (default: nothing to claim)."""

    def _close(self) -> None:
        """Release the hardware (default: nothing to release)."""

    def _run(self) -> None:
        """Thread body: poll ``read_once()`` and deliver changes until stopped."""
        while not self._stopping.is_set():
            reading = self.read_once()
            self.scan_count += 1
            self._deliver(reading)
            if self.poll_interval > 0:
                self._stopping.wait(self.poll_interval)

    # -- the public interface -------------------------------------------------------------
    @property
    def running(self) -> bool:
        """True between ``start()`` and ``stop()``."""
        return self._sink is not None

    @property
    def last_delivered(self) -> Reading | None:
        """The last reading handed to the sink."""
        return self._last

    def start(self, sink: Sink) -> None:
        """Start delivering readings to ``sink``; see the class docstring."""
        if self._sink is not None:
            raise SensorError(f"{type(self).__name__} is already started")
        self._ensure_open()
        self._stopping.clear()
        self._last = None
        self.error = None
        self._sink = sink
        if not self.uses_thread:
            self._deliver(self.read_once())
            return
        self._thread = threading.Thread(
            target=self._thread_main, name=f"{type(self).__name__}-scan", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        """Stop delivering, join the scanning thread and release the hardware. Idempotent."""
        self._stopping.set()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join()
        self._sink = None
        with self._open_lock:
            if self._opened:
                self._opened = False
                self._close()

    close = stop

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # -- helpers for backends -------------------------------------------------------------
    def _ensure_open(self) -> None:
        with self._open_lock:
            if not self._opened:
                self._open()
                self._opened = True

    def _deliver(self, reading: Reading) -> bool:
        """Hand ``reading`` to the sink if it is the first or its squares changed."""
        with self._deliver_lock:
            sink = self._sink
            if sink is None or reading.same_squares(self._last):
                return False
            self._last = reading
            self.delivered_count += 1
        sink(reading)
        return True

    def _thread_main(self) -> None:
        try:
            self._run()
        except Exception as exc:  # the thread must not die silently
            self.error = exc
            log.exception("%s scanning thread stopped", type(self).__name__)
