"""A power model of an LED chain and the scaling that keeps a frame under a current budget.

Model (WS2812B / SK6812 at 5 V, the reference build): each colour channel draws about
``MA_PER_CHANNEL`` = 20 mA at full value (255) and proportionally less below it (the LED is
PWM-dimmed, so the *average* current is linear in the value); each pixel also draws
``IDLE_MA_PER_PIXEL`` = 1 mA for its controller even when dark. A full-white RGB pixel is
thus about 61 mA, a 64-LED board at full white about 3.9 A. The estimate errs on the high
side: real WS2812B draw 12-18 mA per channel.

When a frame's estimate exceeds the budget, every channel value is scaled by the same factor
(rounded down, so the estimate of the result never exceeds the budget) and hues are kept.
"""
from __future__ import annotations

from collections.abc import Sequence

MA_PER_CHANNEL = 20.0
IDLE_MA_PER_PIXEL = 1.0

Pixel = tuple[int, ...]


def estimate_milliamps(
    pixels: Sequence[Sequence[int]],
    *,
    ma_per_channel: float = MA_PER_CHANNEL,
    idle_ma: float = IDLE_MA_PER_PIXEL,
) -> float:
    """The estimated current of ``pixels`` (tuples of channel values 0..255), in mA."""
    total = sum(sum(p) for p in pixels)
    return idle_ma * len(pixels) + ma_per_channel * total / 255


def limit_to_budget(
    pixels: Sequence[Pixel],
    max_milliamps: float | None,
    *,
    ma_per_channel: float = MA_PER_CHANNEL,
    idle_ma: float = IDLE_MA_PER_PIXEL,
) -> tuple[list[Pixel], float]:
    """``(pixels, scale)``: the frame scaled so its estimate is at most ``max_milliamps``.

    ``scale`` is 1.0 when the frame already fits (or there is no budget).

    >>> limit_to_budget([(255, 255, 255)] * 2, 62.0)
    ([(127, 127, 127), (127, 127, 127)], 0.5)
    """
    pixels = list(pixels)
    if max_milliamps is None:
        return pixels, 1.0
    estimate = estimate_milliamps(pixels, ma_per_channel=ma_per_channel, idle_ma=idle_ma)
    if estimate <= max_milliamps:
        return pixels, 1.0
    idle = idle_ma * len(pixels)
    lit = estimate - idle
    scale = max(0.0, (max_milliamps - idle) / lit) if lit else 0.0
    return [tuple(int(v * scale) for v in p) for p in pixels], scale
