"""The board's LEDs lent to an app: while one is attached its lights are shown, the session's frames kept for after.

:class:`LentLeds` stands between the session and the board's LED sink. The session shows its
frames as always; while an app holds the LEDs (``lend(frame)``) those frames are only kept, and
the app's are shown; ``give_back()`` shows the session's latest frame again. ``on_show`` is
called after each of the session's frames (the session shows its frame right after it has read
an input, before it saves the game). ``frame_of`` turns
an app's :class:`~firmware.emulation.board.Lights` into a frame at a moment, in the colour set
for apps and at the app's brightness.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from board_driver.layout import check_colours
from board_driver.leds import DARK, LedSink
from chess_core.squares import BB_SQUARES

from firmware.emulation.board import Lights

Frame = tuple[int, ...]


def frame_of(lights: Lights, now: float, colour: int) -> Frame:
    """The 64 colours the app's ``lights`` ask for at ``now``: ``colour`` at their brightness."""
    lit = lights.lit(now)
    if not lit:
        return DARK
    b = lights.brightness
    dimmed = (round((colour >> 16) * b) << 16) | (round(((colour >> 8) & 0xFF) * b) << 8) | round((colour & 0xFF) * b)
    return tuple(dimmed if lit & BB_SQUARES[s] else 0 for s in range(64))


class LentLeds(LedSink):
    """The board's LED sink, lent to an app while one holds it; see the module docstring."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.own: Frame | None = None      # the session's latest frame
        self.app: Frame | None = None      # the app's, while it holds the LEDs
        self.on_show: Callable[[], None] | None = None

    @property
    def problem(self) -> str | None:        # type: ignore[override]
        return getattr(self.inner, "problem", None)

    @property
    def closed(self) -> bool:               # type: ignore[override]
        return bool(getattr(self.inner, "closed", False))

    @property
    def lent(self) -> bool:
        return self.app is not None

    def show(self, colours: Sequence[int]) -> None:
        """The session's frame: shown unless an app holds the LEDs."""
        self.own = tuple(check_colours(colours))
        if self.app is None and self.inner is not None:
            self.inner.show(self.own)
        if self.on_show is not None:
            self.on_show()

    def lend(self, frame: Frame) -> None:
        """The app's frame, shown now and until the next or ``give_back()``."""
        if frame == self.app:
            return
        self.app = tuple(check_colours(frame))
        if self.inner is not None and not self.closed:
            self.inner.show(self.app)

    def give_back(self) -> None:
        """The app is gone: the session's latest frame is shown again."""
        if self.app is None:
            return
        self.app = None
        if self.inner is not None and not self.closed:
            self.inner.show(self.own or DARK)

    def close(self) -> None:
        if self.inner is not None:
            self.inner.close()


__all__ = ["LentLeds", "frame_of"]
