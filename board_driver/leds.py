"""The LED-sink interface every LED backend implements, and the square-to-pixel pipeline they share."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Self

from .layout import LedLayout, check_colours
from .power import IDLE_MA_PER_PIXEL, MA_PER_CHANNEL, Pixel, estimate_milliamps, limit_to_budget

DARK = (0,) * 64


class LedSink:
    """Shows frames: ``show(colours)`` with 64 colours 0xRRGGBB, one per square (0 = dark).

    A backend **must** override ``show()``; it **may** override ``close()`` (release the
    hardware; called once, idempotent for the caller). Sinks are context managers. ``show()``
    raises ValueError for a frame that is not 64 colours (see ``layout.check_colours``).
    """

    closed = False
    problem: str | None = None   # why the LEDs are off (a guarded sink whose library failed), else None

    def show(self, colours: Sequence[int]) -> None:
        raise NotImplementedError

    def clear(self) -> None:
        """Turn every LED off."""
        self.show(DARK)

    def close(self) -> None:
        self.closed = True

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class PixelPipeline:
    """Square colours to chain pixels: layout, brightness, white channel, power budget.

    ``channels`` is 3 (RGB tuples) or 4 (RGBW: the white LED takes ``min(R, G, B)``, which is
    removed from the colour LEDs). ``brightness`` (0..1) scales every channel first; then the
    frame is scaled down further if its estimated current exceeds ``max_milliamps``
    (see ``board_driver.power``). The last frame's estimate and scale are kept for display.
    """

    def __init__(
        self,
        layout: LedLayout,
        *,
        brightness: float = 1.0,
        max_milliamps: float | None = None,
        channels: int = 3,
        ma_per_channel: float = MA_PER_CHANNEL,
        idle_ma: float = IDLE_MA_PER_PIXEL,
    ):
        if not 0.0 <= brightness <= 1.0:
            raise ValueError(f"brightness must be between 0 and 1, not {brightness!r}")
        if channels not in (3, 4):
            raise ValueError("channels must be 3 (RGB) or 4 (RGBW)")
        self.layout = layout
        self.brightness = brightness
        self.max_milliamps = max_milliamps
        self.channels = channels
        self.ma_per_channel = ma_per_channel
        self.idle_ma = idle_ma
        self.last_milliamps = 0.0
        self.last_scale = 1.0

    def __call__(self, colours: Sequence[int]) -> list[Pixel]:
        check_colours(colours)
        b = self.brightness
        pixels: list[Pixel] = []
        for c in self.layout.render(colours):
            r, g, bl = round((c >> 16) * b), round(((c >> 8) & 0xFF) * b), round((c & 0xFF) * b)
            if self.channels == 4:
                w = min(r, g, bl)
                pixels.append((r - w, g - w, bl - w, w))
            else:
                pixels.append((r, g, bl))
        pixels, self.last_scale = limit_to_budget(
            pixels, self.max_milliamps, ma_per_channel=self.ma_per_channel, idle_ma=self.idle_ma
        )
        self.last_milliamps = estimate_milliamps(pixels, ma_per_channel=self.ma_per_channel, idle_ma=self.idle_ma)
        return pixels
