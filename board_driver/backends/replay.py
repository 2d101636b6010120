"""Replay backend: plays a capture file back as a sensor source, in real time or as fast as possible."""
from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from ..capture import CaptureEvent, PromoteChoice, parse_capture, stream_capture
from ..reading import Reading
from ..sensors import SensorError, Sink, SensorSource


class ReplaySource(SensorSource):
    """Delivers the readings of a capture (see ``board_driver.capture``).

    ``path_or_lines`` is a file path (a ``Path``, or a ``str`` without a newline) or the
    lines (a list, an open file, or a ``str`` with newlines) of a capture; it is checked at
    once, so a malformed capture raises :class:`CaptureError` here. A file is read as it is
    replayed, never held whole (``events`` reads it again at each iteration): a capture of
    millions of lines takes no more memory than a short one. ``events`` may be replaced by
    any iterable of events before the replay starts (a resumed replay does). ``speed=None`` delivers
    as fast as the sink takes them; ``speed=1.0`` in real time, ``2.0`` twice as fast.
    Readings keep the capture's times (seconds since it began), whatever the speed, so a
    replay decides exactly as the game did. Promotion choices go to ``on_promote``.
    ``finished`` is set once everything was delivered. ``clock`` and ``wait`` (which waits
    for a number of seconds, returning early when stopped) are injectable for tests.
    """

    def __init__(
        self,
        path_or_lines: str | Path | Iterable[str],
        *,
        speed: float | None = None,
        on_promote: Callable[[PromoteChoice], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        wait: Callable[[float], None] | None = None,
    ):
        super().__init__()
        if speed is not None and speed <= 0:
            raise ValueError("speed must be positive (or None for as fast as possible)")
        self.events: Iterable[CaptureEvent]
        if isinstance(path_or_lines, Path) or (isinstance(path_or_lines, str) and "\n" not in path_or_lines):
            self.name = str(path_or_lines)
            self.events = CaptureFile(path_or_lines)
            first = None
            for event in self.events:   # every line checked now, one at a time
                if first is None and isinstance(event, Reading):
                    first = event
        else:
            self.name = "<capture>"
            self.events = parse_capture(path_or_lines)
            first = next((e for e in self.events if isinstance(e, Reading)), None)
        self.speed = speed
        self.on_promote = on_promote
        self._clock = clock
        self._wait = wait or self._stopping.wait
        self.finished = threading.Event()
        self._iterator: Iterator[CaptureEvent] | None = None
        self._next: CaptureEvent | None = None
        self._current: Reading | None = first

    @property
    def readings(self) -> list[Reading]:
        return [e for e in self.events if isinstance(e, Reading)]

    def read_once(self) -> Reading:
        """The reading the replay is at (the first one before it starts)."""
        if self._current is None:
            raise SensorError(f"{self.name}: the capture holds no reading")
        return self._current

    def _run(self) -> None:
        self.replay()

    def run(self, sink: Sink) -> None:
        """Deliver the whole capture to ``sink`` from the calling thread, then return."""
        if self.running:
            raise SensorError("ReplaySource is already started")
        self._stopping.clear()
        self._last = None
        self._sink = sink
        try:
            self.replay()
        finally:
            self._sink = None

    def replay(self) -> None:
        """Deliver the remaining events from the calling thread (``start()`` runs this on a thread)."""
        started = self._clock()
        if self._iterator is None:
            self._iterator = iter(self.events)
        t0: float | None = None
        done = False
        while not self._stopping.is_set():
            if self._next is None:
                self._next = next(self._iterator, None)
                if self._next is None:
                    done = True
                    break
            event = self._next
            if t0 is None:
                t0 = event.time
            if self.speed is not None:
                due = started + (event.time - t0) / self.speed
                delay = due - self._clock()
                if delay > 0:
                    self._wait(delay)
                    continue  # re-check: the wait may end early (stop, or a test clock)
            self._next = None
            if isinstance(event, PromoteChoice):
                if self.on_promote is not None:
                    self.on_promote(event)
            else:
                self._current = event
                self.scan_count += 1
                self._deliver(event)
        if done:
            self.finished.set()


class CaptureFile:
    """A capture file as an iterable of events, read line by line at each iteration."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def __iter__(self) -> Iterator[CaptureEvent]:
        return stream_capture(self.path)
