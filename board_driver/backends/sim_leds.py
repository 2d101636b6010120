"""A recording LED sink: keeps the frames it is shown, for tests and the web simulator."""
from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Sequence

from ..layout import check_colours
from ..leds import LedSink

Frame = tuple[int, ...]


class RecordingLedSink(LedSink):
    """Records every frame (a tuple of 64 colours); ``last`` is the latest one.

    ``max_frames`` bounds the history (the simulator keeps only a few). ``subscribe(fn)``
    calls ``fn(frame)`` on every ``show()`` and returns the function that unsubscribes.
    """

    def __init__(self, max_frames: int | None = None):
        self.frames: deque[Frame] = deque(maxlen=max_frames)
        self.show_count = 0
        self._listeners: list[Callable[[Frame], None]] = []
        self._lock = threading.Lock()

    @property
    def last(self) -> Frame | None:
        """The last frame shown, or None before the first."""
        with self._lock:
            return self.frames[-1] if self.frames else None

    def show(self, colours: Sequence[int]) -> None:
        if self.closed:
            raise RuntimeError("show() on a closed LED sink")
        frame = tuple(check_colours(colours))
        with self._lock:
            self.frames.append(frame)
            self.show_count += 1
            listeners = list(self._listeners)
        for listener in listeners:
            listener(frame)

    def lit(self) -> dict[int, int]:
        """The lit squares of the last frame: ``{square: colour}``."""
        frame = self.last or ()
        return {s: c for s, c in enumerate(frame) if c}

    def subscribe(self, listener: Callable[[Frame], None]) -> Callable[[], None]:
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe
