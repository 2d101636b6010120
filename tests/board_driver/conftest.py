"""Fixtures of the board_driver tests: pin maps, fake GPIO, the co-processor's modules."""
from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from board_driver.pinmap import REFERENCE

ROOT = Path(__file__).resolve().parents[2]
COPROCESSOR = ROOT / "coprocessor"


@pytest.fixture
def pinmap():
    return REFERENCE


@pytest.fixture(scope="session")
def coprocessor():
    """The co-processor's pure modules, imported as the Pico imports them (top-level names).

    They stay in sys.modules (their cp_ names are unique); the folder leaves sys.path.
    """
    sys.path.insert(0, str(COPROCESSOR))
    try:
        modules = {name: importlib.import_module(name) for name in ("cp_protocol", "cp_matrix", "cp_device")}
    finally:
        sys.path.remove(str(COPROCESSOR))
    return type("Coprocessor", (), modules)
