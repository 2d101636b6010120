"""The optional compiled build (`make fast`): what is compiled is imported, and never older than its source."""
from __future__ import annotations

import importlib
import importlib.machinery
import subprocess
import sys
from pathlib import Path

import pytest

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


@pytest.mark.slow
def test_mypyc_translates_every_module_of_the_compiled_build(tmp_path):
    """`make fast` falls back to pure Python, with one line said, when mypyc cannot translate a
    module (a construct it does not implement, such as ``continue`` inside ``try``/``finally``):
    the translation to C is checked here, without compiling it."""
    root = PACKAGE.parent
    script = ("import sys; sys.path.insert(0, '.'); import setup; from mypyc.build import mypycify; "
              f"mypycify(['--follow-imports=silent', *setup.MYPYC_MODULES], opt_level='0', target_dir={str(tmp_path)!r})")
    done = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True, text=True, timeout=300)
    errors = [line for line in done.stdout.splitlines() + done.stderr.splitlines() if ": error:" in line]
    assert done.returncode == 0 and not errors, "\n".join(errors) or done.stderr[-2000:]
    assert len(list(tmp_path.rglob("*.c"))) >= 1
