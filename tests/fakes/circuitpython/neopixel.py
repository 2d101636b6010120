"""Stub of the CircuitPython ``neopixel`` library (records frames); see tests/fakes/fake_neopixel.py."""
from tests.fakes.fake_neopixel import GRB, GRBW, RGB, RGBW, FakeNeoPixel

instances = []


class NeoPixel(FakeNeoPixel):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        instances.append(self)


__all__ = ["GRB", "GRBW", "RGB", "RGBW", "NeoPixel", "instances"]
