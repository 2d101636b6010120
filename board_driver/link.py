"""The connection to the co-processor: one serial port, its frame decoder, silence detection and reconnection.

``poll()`` does one step: connect when an attempt is due, read what arrived, hand good frames
to the subscribers, and declare the link lost when the device has been silent (no READING or
HEARTBEAT for ``silence_timeout`` s) or the port raised (USB cable pulled). A lost link closes
its port and retries with a capped exponential backoff; on every (re)connection it drops any
partial frame and asks the device for its version and current reading. Time comes from
``clock`` and the port from ``serial_factory`` (``serial.Serial`` by default, imported on
first use), so tests run it by hand. ``resolve`` (for ``port_name = "auto"``) names the device
at each attempt, so a co-processor plugged in after the service started is found. ``board_driver.backends.serial_link`` builds the sensor source
and the LED sink on it.
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any
from dataclasses import dataclass

from . import framing
from .framing import Frame, FrameDecoder, FrameError, FrameType
from .retry import Backoff, LinkState
from .sensors import BackendUnavailableError, SensorError

log = logging.getLogger(__name__)

DEFAULT_BAUDRATE = 115200
SILENCE_TIMEOUT = 2.0
"""Seconds without a READING or HEARTBEAT before the link is declared dead (device sends 4/s)."""
READ_TIMEOUT = 0.05
"""Seconds one port read may block; bounds how late ``stop()`` and silence checks run."""
BACKOFF_INITIAL = 0.25
BACKOFF_FACTOR = 2.0
BACKOFF_CAP = 8.0
"""Reconnect attempts wait 0.25 s, 0.5 s, 1 s ... at most 8 s apart."""
SERIAL_BACKOFF = Backoff(BACKOFF_INITIAL, BACKOFF_FACTOR, BACKOFF_CAP, jitter=0.0)


@dataclass(slots=True)
class LinkStats:
    readings: int = 0
    heartbeats: int = 0
    missed_frames: int = 0
    """Frames the device sent that never arrived whole (from gaps in sequence numbers)."""
    bad_payloads: int = 0
    connects: int = 0
    disconnects: int = 0
    silences: int = 0
    open_failures: int = 0


FrameListener = Callable[[Frame, float], None]
# Listener calls gathered under the lock, made once it is released: (listener, its arguments).
Notify = list[tuple[Callable[..., None], tuple[Any, ...]]]


class SerialLink:
    """The port to the co-processor, its decoder and its reconnection; see the module docstring.

    ``poll()`` does one step (connect if due, read what arrived, dispatch frames, check for
    silence). ``acquire()`` / ``release()`` count users; with ``threaded=True`` the first
    user starts a thread that polls until the last one leaves.
    """

    def __init__(
        self,
        port_name: str,
        *,
        baudrate: int = DEFAULT_BAUDRATE,
        serial_factory: Callable[..., Any] | None = None,
        clock: Callable[[], float] = time.monotonic,
        silence_timeout: float = SILENCE_TIMEOUT,
        backoff: Backoff | None = None,
        read_timeout: float = READ_TIMEOUT,
        threaded: bool = True,
        resolve: Callable[[], str] | None = None,
    ):
        self.port_name = port_name
        self._resolve = resolve
        self.baudrate = baudrate
        self._factory = serial_factory
        self._clock = clock
        self.silence_timeout = silence_timeout
        self.backoff = backoff or SERIAL_BACKOFF
        self._failures = 0   # tries in a row that failed: the next wait grows with them
        self._open_error: str | None = None  # why the port last failed to open, as last logged
        self._open_warned = 0.0  # when that was logged loudly
        self.read_timeout = read_timeout
        self.threaded = threaded
        self.decoder = FrameDecoder(framing.DEVICE_TO_HOST)
        self.stats = LinkStats()
        self.device_version: tuple[int, int, str] | None = None
        self.device_uptime_ms: int | None = None
        self.device_scan_rate: int | None = None
        self.retry_at = 0.0
        self.last_error: str | None = None
        """Why the last attempt to open the port failed (None once open)."""
        self.port_in_use: str | None = None
        """The device last opened (``port_name`` resolved when it is "auto")."""
        self._state = LinkState.CLOSED
        self._port = None
        self._lock = threading.RLock()
        self._tx_seq = 0
        self._rx_seq: int | None = None
        self._last_rx = 0.0
        self._listeners: dict[int, list[FrameListener]] = {}
        self._state_listeners: list[Callable[[LinkState], None]] = []
        self._users = 0
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()

    # -- subscriptions --------------------------------------------------------------------
    def subscribe(self, ftype: int, listener: FrameListener) -> Callable[[], None]:
        """Call ``listener(frame, arrival_time)`` for every good frame of ``ftype``."""
        with self._lock:
            self._listeners.setdefault(int(ftype), []).append(listener)

        def unsubscribe() -> None:
            with self._lock:
                listeners = self._listeners.get(int(ftype), [])
                if listener in listeners:
                    listeners.remove(listener)

        return unsubscribe

    def on_state(self, listener: Callable[[LinkState], None]) -> Callable[[], None]:
        """Call ``listener(state)`` on every state change; returns the unsubscriber."""
        with self._lock:
            self._state_listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._state_listeners:
                    self._state_listeners.remove(listener)

        return unsubscribe

    @property
    def state(self) -> LinkState:
        return self._state

    @property
    def connected(self) -> bool:
        return self._state is LinkState.CONNECTED

    # -- lifecycle ------------------------------------------------------------------------
    def open(self) -> None:
        """Start connecting (the first attempt happens at the next ``poll()``). Idempotent."""
        with self._lock:
            if self._state is LinkState.CLOSED:
                self.retry_at = self._clock()
                self._failures = 0
                self._set_state(LinkState.CONNECTING)

    def close(self) -> None:
        """Stop the thread and close the port for good. Idempotent."""
        self._stop_thread()
        with self._lock:
            self._drop_port()
            self._users = 0
            self._set_state(LinkState.CLOSED)

    def acquire(self) -> None:
        """Register a user; the first one opens the link (and starts its thread)."""
        with self._lock:
            self._users += 1
            self.open()
            if self.threaded and self._thread is None:
                self._stopping.clear()
                self._thread = threading.Thread(target=self._thread_main, name="SerialLink", daemon=True)
                self._thread.start()

    def release(self) -> None:
        """Unregister a user; the last one closes the link."""
        with self._lock:
            self._users = max(0, self._users - 1)
            last = self._users == 0
        if last:
            self.close()

    # -- the work -------------------------------------------------------------------------
    def poll(self) -> int:
        """One step of the link; returns the number of good frames handled."""
        notify: Notify = []
        with self._lock:
            count = self._poll(notify)
        for fn, args in notify:
            fn(*args)
        return count

    def send(self, ftype: int, payload: bytes = b"") -> bool:
        """Send one frame; False if there is no connection (the frame is dropped)."""
        notify: Notify = []
        with self._lock:
            port = self._port
            if port is None:
                return False
            data = framing.encode_frame(ftype, self._tx_seq, payload)
            self._tx_seq = (self._tx_seq + 1) & 0xFF
            try:
                port.write(data)
                ok = True
            except OSError as exc:  # serial.SerialException is an OSError
                self._lost(f"write failed: {exc}", notify)
                ok = False
        for fn, args in notify:
            fn(*args)
        return ok

    def _poll(self, notify: Notify) -> int:
        if self._state is LinkState.CLOSED:
            return 0
        if self._port is None:
            if self._clock() < self.retry_at:
                return 0
            self._connect(notify)
            if self._port is None:
                return 0
        try:
            data = self._port.read(self._port.in_waiting or 1)
        except OSError as exc:
            self._lost(f"read failed: {exc}", notify)
            return 0
        now = self._clock()
        handled = 0
        for frame in self.decoder.feed(data) if data else ():
            handled += self._handle(frame, now, notify)
        if now - self._last_rx > self.silence_timeout:
            self.stats.silences += 1
            self._lost(f"no frame for {now - self._last_rx:.1f} s", notify)
        return handled

    def _handle(self, frame: Frame, now: float, notify: Notify) -> int:
        if self._rx_seq is not None:
            self.stats.missed_frames += (frame.seq - self._rx_seq - 1) & 0xFF
        self._rx_seq = frame.seq
        try:
            if frame.type == FrameType.READING:
                framing.decode_reading(frame.payload)  # validate before anyone sees it
                self.stats.readings += 1
            elif frame.type == FrameType.HEARTBEAT:
                self.device_uptime_ms, self.device_scan_rate = framing.decode_heartbeat(frame.payload)
                self.stats.heartbeats += 1
            elif frame.type == FrameType.VERSION:
                self.device_version = framing.decode_version(frame.payload)
        except FrameError as exc:
            self.stats.bad_payloads += 1
            log.warning("dropped a bad %s frame: %s", FrameType(frame.type).name, exc)
            return 0
        self._last_rx = now
        self._failures = 0  # the device is really talking: next outage starts from the bottom
        for listener in self._listeners.get(frame.type, ()):
            notify.append((listener, (frame, now)))
        return 1

    def _connect(self, notify: Notify) -> None:
        factory = self._factory
        if factory is None:
            try:
                import serial  # type: ignore[import-untyped]  # pyserial ships no type hints
            except ImportError as exc:
                raise BackendUnavailableError(f"pyserial is not installed ({exc})") from exc
            factory = self._factory = serial.Serial
        name = self.port_name
        if self._resolve is not None:  # "auto": the device may appear later (plugged in after boot)
            try:
                name = self._resolve()
            except (OSError, SensorError) as exc:
                self.last_error = str(exc)
                self.stats.open_failures += 1
                self.retry_at = self._clock() + self._next_wait()
                return
        self.port_in_use = name
        try:
            # exclusive: pyserial flocks the port, so a second process (hwtest beside the
            # service) fails to open it instead of silently sharing the frames.
            port = factory(name, baudrate=self.baudrate, timeout=self.read_timeout, write_timeout=1.0,
                           exclusive=True)
        except (OSError, ValueError) as exc:
            self.last_error = str(exc)
            self.stats.open_failures += 1
            self.retry_at = self._clock() + self._next_wait()
            # Loud the first time, when the reason changes, and once a minute: a board without
            # its co-processor reads nothing, and whoever looks at the journal must see why.
            reason, now = str(exc), self._clock()
            if reason != self._open_error or now - self._open_warned >= 60.0:
                self._open_error, self._open_warned = reason, now
                log.warning("cannot open the serial port %s: %s (the board reads nothing until it opens; "
                            "retrying)", self.port_name, exc)
            else:
                log.debug("cannot open %s: %s", self.port_name, exc)
            return
        self._port = port
        self.last_error = None
        if self._open_error is not None:
            log.warning("serial port %s open", self.port_name)
            self._open_error = None
        self.decoder.reset()
        self._rx_seq = None
        self._last_rx = self._clock()  # the silence window starts now
        self.stats.connects += 1
        self._set_state(LinkState.CONNECTED, notify)
        for ftype in (FrameType.HELLO, FrameType.READ):
            data = framing.encode_frame(ftype, self._tx_seq)
            self._tx_seq = (self._tx_seq + 1) & 0xFF
            try:
                port.write(data)
            except OSError as exc:
                self._lost(f"write failed: {exc}", notify)
                return

    def _lost(self, reason: str, notify: Notify) -> None:
        log.info("serial link %s lost: %s", self.port_name, reason)
        self._drop_port()
        self.stats.disconnects += 1
        self.retry_at = self._clock() + self._next_wait()
        self._set_state(LinkState.CONNECTING, notify)

    def _drop_port(self) -> None:
        port, self._port = self._port, None
        if port is not None:
            try:
                port.close()
            except OSError:
                pass

    def _next_wait(self) -> float:
        wait = self.backoff.delay(self._failures)
        self._failures += 1
        return wait

    def _set_state(self, state: LinkState, notify: Notify | None = None) -> None:
        if state is self._state:
            return
        self._state = state
        for listener in list(self._state_listeners):
            if notify is None:
                listener(state)
            else:
                notify.append((listener, (state,)))

    def _thread_main(self) -> None:
        while not self._stopping.is_set():
            try:
                self.poll()
            except Exception:
                log.exception("serial link poll failed")
                self._stopping.wait(self.read_timeout)
            if self._port is None and not self._stopping.is_set():
                self._stopping.wait(max(0.0, min(self.read_timeout, self.retry_at - self._clock())))

    def _stop_thread(self) -> None:
        self._stopping.set()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join()
