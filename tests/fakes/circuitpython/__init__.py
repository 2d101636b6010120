"""Stub CircuitPython modules (board, digitalio, neopixel, usb_cdc, microcontroller, supervisor, watchdog) for host tests.

Put this folder on sys.path (see ``install``) and the co-processor's code.py imports them as it
would on a Pico. ``digitalio`` reads the columns through the electrical matrix model of
board_driver.backends.mock_gpio, keyed by pin name ("GP2"...).
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
STUBS = ("board", "digitalio", "neopixel", "usb_cdc", "microcontroller", "supervisor", "watchdog")


def install(monkeypatch) -> None:
    """Make the stubs importable for one test (and forget them afterwards)."""
    monkeypatch.syspath_prepend(str(HERE))
    for name in STUBS:
        monkeypatch.delitem(sys.modules, name, raising=False)
