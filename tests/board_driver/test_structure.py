"""House rules of board_driver: docstrings, import direction, vendor libraries only where needed."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MODULES = sorted((ROOT / "board_driver").glob("*.py"))
OTHERS = {"debounce.py"}  # board_driver modules written by other engineers: only the import rules apply
MINE = [p for p in MODULES if p.name not in OTHERS] + sorted((ROOT / "coprocessor").glob("*.py")) + [ROOT / "firmware" / "commands" / "hwtest.py"]
VENDOR = {"RPi": "gpio_matrix.py", "neopixel": "neopixel_sink.py", "board": "neopixel_sink.py", "serial": "link.py"}


def imports(path: Path):
    """(module name, top level?) of every import in ``path``."""
    tree = ast.parse(path.read_text())
    top = set(map(id, tree.body))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, id(node) in top
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module, id(node) in top


@pytest.mark.parametrize("path", MINE, ids=lambda p: p.name)
def test_module_says_what_it_is_for_and_stays_focused(path):
    tree = ast.parse(path.read_text())
    doc = ast.get_docstring(tree)
    assert doc and doc.splitlines()[0].strip(), f"{path.name}: no one-line docstring"
    assert len(path.read_text().splitlines()) < 450, f"{path.name} is too long"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_board_driver_imports_nothing_of_ours_and_vendors_lazily(path):
    for name, top_level in imports(path):
        root = name.split(".")[0]
        assert root not in ("chess_core", "firmware"), f"{path.name} imports {name}"
        if root in VENDOR:
            assert path.name == VENDOR[root], f"{path.name} imports {name}"
            assert not top_level, f"{path.name} imports {name} at module level"


def test_every_module_imports_without_any_vendor_library():
    blocked = "; ".join(f"sys.modules[{name!r}] = None" for name in ("RPi", "RPi.GPIO", "neopixel", "board", "serial"))
    names = " ".join(p.stem for p in MODULES if p.stem != "__init__")
    code = f"import sys; {blocked}\nimport importlib\nfor n in {names.split()!r}: importlib.import_module('board_driver.' + n)"
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
