"""Optional compiled build: ECHIQUIER_MYPYC=1 compiles chess_core's hot modules with mypyc (see `make fast`)."""
from __future__ import annotations

import os

from setuptools import setup

# The modules on perft's path and the dead-position check's (most of the pipeline's CPU); each
# falls back to its .py when not built.
MYPYC_MODULES = ["chess_core/squares.py", "chess_core/piece.py", "chess_core/move.py", "chess_core/position.py",
                 "chess_core/perft.py", "chess_core/notation.py", "chess_core/dead.py", "chess_core/dead_search.py",
                 "chess_core/dead_static.py", "chess_core/dead_guide.py"]

ext_modules = []
if os.environ.get("ECHIQUIER_MYPYC") == "1":
    from mypyc.build import mypycify  # mypy provides mypyc: `pip install mypy` (never a requirement)

    # Type errors in the modules they import (not compiled) are not theirs to stop the build.
    ext_modules = mypycify(["--follow-imports=silent", *MYPYC_MODULES], opt_level="3")

setup(ext_modules=ext_modules)
