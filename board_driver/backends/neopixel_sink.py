"""NeoPixel backend: drives a WS2812B/SK6812 chain from the Pi through adafruit-circuitpython-neopixel.

The chain is written with ``auto_write=False`` and one ``show()`` per frame, so a frame never
appears half-drawn. Brightness and the power budget are applied here, before the library
(which is given brightness 1.0), so the current estimate is about the bytes actually sent.
On a Pi 1-4 the data pin must be one rpi_ws281x can drive (BCM 10 by SPI, the reference
build's; 12, 13, 18, 19 by PWM and 21 by PCM, as root only); the Pi 5 support package
(adafruit-blinka-raspberry-pi5-neopixel) drives any pin.
"""
from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ..layout import LedLayout
from ..leds import LedSink, PixelPipeline
from ..pi_platform import PiModel, detect
from ..sensors import BackendUnavailableError

if TYPE_CHECKING:
    from ..pinmap import LedPins


def _import(name: str) -> ModuleType:
    try:
        return __import__(name)
    except ImportError as exc:
        raise BackendUnavailableError(
            f"cannot import {name!r}: install adafruit-circuitpython-neopixel and adafruit-blinka on the Pi ({exc})"
        ) from exc


class NeoPixelSink(LedSink):
    """Shows frames on a NeoPixel chain.

    ``pin`` is the BCM number of the data pin; ``order`` the chain's byte order ("GRB" for
    WS2812B, "GRBW" for SK6812 RGBW...); ``brightness`` 0..1; ``max_milliamps`` the budget
    (None: unlimited). ``neopixel_module`` / ``board_module`` inject the libraries for tests;
    ``model`` the Pi (default: read from /proc/device-tree/model), whose LED pins are checked.
    """

    def __init__(
        self,
        *,
        pin: int = 18,
        layout: LedLayout | None = None,
        order: str = "GRB",
        brightness: float = 0.5,
        max_milliamps: float | None = None,
        neopixel_module: Any = None,  # the untyped vendor modules, or stand-ins in tests
        board_module: Any = None,
        model: PiModel | None = None,
    ):
        problem = (model or detect()).led_pin_problem(pin)
        if problem:  # rpi_ws281x would only fail at the first show(), with a vaguer message
            raise ValueError(problem)
        self.layout = layout or LedLayout("square")
        order = order.upper()
        if sorted(order) not in (sorted("RGB"), sorted("RGBW")):
            raise ValueError(f"pixel order must be a permutation of RGB or RGBW, not {order!r}")
        self.order = order
        self.pipeline = PixelPipeline(
            self.layout, brightness=brightness, max_milliamps=max_milliamps, channels=len(order)
        )
        neopixel = neopixel_module or _import("neopixel")
        board = board_module or _import("board")
        try:
            board_pin = getattr(board, f"D{pin}")
        except AttributeError:
            raise ValueError(f"the board module has no pin D{pin}") from None
        self._pixels = neopixel.NeoPixel(
            board_pin,
            self.layout.pixel_count,
            bpp=len(order),
            brightness=1.0,
            auto_write=False,
            pixel_order=getattr(neopixel, order, order),
        )

    @classmethod
    def from_pins(cls, leds: LedPins, **kwargs: Any) -> NeoPixelSink:
        """A sink for a pin map's ``[leds]`` table (:class:`board_driver.pinmap.LedPins`)."""
        return cls(
            pin=leds.data_pin,
            layout=LedLayout.from_pins(leds),
            order=leds.order,
            brightness=leds.brightness,
            max_milliamps=leds.max_milliamps,
            **kwargs,
        )

    @property
    def milliamps(self) -> float:
        """The estimated current of the last frame shown."""
        return self.pipeline.last_milliamps

    def show(self, colours: Sequence[int]) -> None:
        if self.closed:
            raise RuntimeError("show() on a closed LED sink")
        pixels = self._pixels
        for index, value in enumerate(self.pipeline(colours)):
            pixels[index] = value
        pixels.show()

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        try:
            self._pixels.fill((0,) * len(self.order))
            self._pixels.show()
        finally:
            deinit = getattr(self._pixels, "deinit", None)
            if deinit is not None:
                deinit()
