"""The optional compiled build (`make fast`): what is compiled is imported, and never older than its source."""
from __future__ import annotations

import importlib
import importlib.machinery
from pathlib import Path

import chess_core

PACKAGE = Path(chess_core.__file__).parent


def _built() -> list[Path]:
    return sorted(p for p in PACKAGE.iterdir() if p.name.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)))


def test_every_compiled_module_is_newer_than_its_source_and_is_the_one_imported():
    """Without a build the list is empty and the .py files run; with one, a stale build (its source
    edited since) would run old rules, so it must be rebuilt (`make fast`) or removed (`make pure`)."""
    for built in _built():
        name = built.name.split(".")[0]
        source = PACKAGE / f"{name}.py"
        assert source.exists(), f"{built.name} has no source"
        assert built.stat().st_mtime >= source.stat().st_mtime, f"{built.name} is older than {source.name}: make fast"
        assert importlib.import_module(f"chess_core.{name}").__file__ == str(built)
