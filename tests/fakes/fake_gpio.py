"""Fake RPi.GPIO for tests: the electrical matrix model of board_driver.backends.mock_gpio, wired like a pin map."""
from __future__ import annotations

import sys
import types

from board_driver.backends.mock_gpio import COL_TO_ROW, NMOS, PMOS, ROW_TO_COL, ElectricalFault, MatrixModel, MockGPIO, row_drivers_for
from board_driver.pinmap import REFERENCE, MatrixPins, PinMap

FakeGPIO = MockGPIO

__all__ = ["COL_TO_ROW", "NMOS", "PMOS", "ROW_TO_COL", "ElectricalFault", "FakeGPIO", "MatrixModel", "install_module", "wired"]


def wired(pinmap: PinMap | MatrixPins = REFERENCE, bitboard: int = 0, *, diodes: str | None = "auto",
          seed: int = 0, row_drivers: str | None = "auto", **options) -> FakeGPIO:
    """A fake GPIO whose matrix is wired like ``pinmap`` and holds ``bitboard``.

    ``diodes="auto"`` orients the diodes for the pin map's ``active`` level; ``None`` leaves
    them out (bare switches, which ghost). ``row_drivers="auto"`` adds the MOSFET row drivers
    a ``select`` level different from ``active`` implies.
    """
    pins = pinmap.matrix if isinstance(pinmap, PinMap) else pinmap
    if diodes == "auto":
        diodes = COL_TO_ROW if pins.active == "low" else ROW_TO_COL
    if row_drivers == "auto":
        row_drivers = row_drivers_for(pins)
    model = MatrixModel(pins.rows, pins.cols, diodes=diodes, row_drivers=row_drivers)
    model.set_bitboard(bitboard, transpose=pins.transpose)
    return FakeGPIO(model, seed=seed, **options)


def install_module(monkeypatch, fake: FakeGPIO) -> None:
    """Make ``import RPi.GPIO`` return ``fake`` for the rest of the test."""
    package = types.ModuleType("RPi")
    package.GPIO = fake
    package.__path__ = []
    monkeypatch.setitem(sys.modules, "RPi", package)
    monkeypatch.setitem(sys.modules, "RPi.GPIO", fake)
