"""Fake adafruit-circuitpython-neopixel and board modules: record what would go down the wire."""
from __future__ import annotations

import types

RGB, GRB, RGBW, GRBW = "RGB", "GRB", "RGBW", "GRBW"


class FakeNeoPixel:
    """Records pixels as set (RGB or RGBW tuples) and the frames shown, in wire byte order too."""

    instances: list[FakeNeoPixel] = []

    def __init__(self, pin, n, *, bpp=3, brightness=1.0, auto_write=True, pixel_order=None):
        self.pin, self.n, self.bpp = pin, n, bpp
        self.brightness, self.auto_write = brightness, auto_write
        self.pixel_order = pixel_order or (GRB if bpp == 3 else GRBW)
        self.buffer = [(0,) * bpp for _ in range(n)]
        self.shown: list[list[tuple[int, ...]]] = []
        self.deinited = False

    def __len__(self):
        return self.n

    def __setitem__(self, index, value):
        if isinstance(value, int):
            value = (value >> 16 & 255, value >> 8 & 255, value & 255) + ((0,) if self.bpp == 4 else ())
        if len(value) != self.bpp or not all(0 <= v <= 255 for v in value):
            raise ValueError(f"bad pixel {value!r} for bpp={self.bpp}")
        self.buffer[index] = tuple(value)

    def __getitem__(self, index):
        return self.buffer[index]

    def fill(self, value):
        for i in range(self.n):
            self[i] = value

    def show(self):
        self.shown.append(list(self.buffer))

    def deinit(self):
        self.deinited = True

    def wire_bytes(self, frame: int = -1) -> bytes:
        """The bytes the chain would receive for a shown frame, in ``pixel_order``."""
        index = {c: i for i, c in enumerate("RGBW")}
        return bytes(p[index[c]] for p in self.shown[frame] for c in self.pixel_order)


def make_neopixel_module(show_error: Exception | None = None, fail_after: int = 0):
    """A fake ``neopixel`` module; with ``show_error``, every ``show()`` after the first
    ``fail_after`` raises it, as Blinka's rpi_ws281x path does without root ("NeoPixel support
    requires running with sudo, please try again!", raised by ws2811_init at the first show)."""
    module = types.ModuleType("neopixel")
    module.RGB, module.GRB, module.RGBW, module.GRBW = RGB, GRB, RGBW, GRBW
    instances: list[FakeNeoPixel] = []

    class NeoPixel(FakeNeoPixel):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            instances.append(self)

        def show(self):
            if show_error is not None and len(self.shown) >= fail_after:
                raise show_error
            super().show()

    module.NeoPixel = NeoPixel
    module.instances = instances
    return module


def make_board_module():
    module = types.ModuleType("board")
    for n in range(28):
        setattr(module, f"D{n}", f"D{n}")
    return module
