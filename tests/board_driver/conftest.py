"""Fixtures of the board_driver tests: pin maps, fake GPIO, the co-processor's modules."""
from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from board_driver.pinmap import REFERENCE

ROOT = Path(__file__).resolve().parents[2]
COPROCESSOR = ROOT / "firmware" / "coprocessor"


@pytest.fixture
def pinmap():
    return REFERENCE


@pytest.fixture
def coprocessor(monkeypatch):
    """The co-processor's pure modules, imported as the Pico imports them (top-level names)."""
    monkeypatch.syspath_prepend(str(COPROCESSOR))
    names = ("cp_protocol", "cp_matrix", "cp_device")
    modules = {name: importlib.import_module(name) for name in names}
    yield type("Coprocessor", (), modules)
    for name in names:
        sys.modules.pop(name, None)
