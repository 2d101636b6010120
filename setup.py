"""Optional compiled build: ECHIQUIER_MYPYC=1 compiles chess_core's hot modules with mypyc, or leaves pure Python."""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Callable, Mapping, Optional

from setuptools import setup
from setuptools.command.build_ext import build_ext
from setuptools.errors import BaseError, CCompilerError

# The modules on perft's path and the dead-position check's (most of the pipeline's CPU); each
# falls back to its .py when not built.
MYPYC_MODULES = ["chess_core/squares.py", "chess_core/piece.py", "chess_core/move.py", "chess_core/position.py",
                 "chess_core/perft.py", "chess_core/notation.py", "chess_core/dead.py", "chess_core/dead_search.py",
                 "chess_core/dead_static.py", "chess_core/dead_guide.py", "chess_core/dead_memory.py"]
PURE = "chess_core stays pure Python (it runs the same, slower)"


def say(message: str) -> None:
    print(f"echiquier setup.py: {message}", file=sys.stderr)


def compiled_extensions(environ: Mapping[str, str] = os.environ,
                        translate: Optional[Callable[..., list]] = None) -> list:
    """The extension modules to build: mypyc's when ECHIQUIER_MYPYC=1 and mypyc can translate the
    modules to C; none (pure Python, said why) when it is not asked for, not installed or fails.
    ``translate`` stands for mypyc.build.mypycify."""
    if environ.get("ECHIQUIER_MYPYC") != "1":
        return []
    if translate is None:
        try:
            from mypyc.build import mypycify as translate  # mypy provides mypyc (never a requirement)
        except ImportError:
            say(f"ECHIQUIER_MYPYC=1 but mypyc is not installed (pip install mypy): {PURE}")
            return []
    try:
        # Type errors in the modules they import (not compiled) are not theirs to stop the build.
        return translate(["--follow-imports=silent", *MYPYC_MODULES], opt_level="3")
    except (Exception, SystemExit) as exc:  # mypyc exits on a type error it cannot compile
        say(f"mypyc could not translate chess_core ({exc!r}): {PURE}")
        return []


class AllOrNothingBuildExt(build_ext):
    """Builds every compiled module or none: when the C compiler fails (none installed, no Python
    headers), the modules built so far are removed and the install goes on in pure Python; a
    half-built set would import a module whose shared runtime is missing."""

    def run(self) -> None:
        try:
            super().run()
        except (CCompilerError, BaseError, OSError) as exc:
            removed = self.remove_outputs()
            say(f"compiling chess_core failed ({exc}); {len(removed)} built module(s) removed: {PURE}")

    def remove_outputs(self) -> list[Path]:
        """Delete every extension file this command may have written, in the build tree and (``--inplace``) next
        to the sources; returns those it deleted."""
        removed = []
        inplace = self.inplace
        try:
            for self.inplace in (False, True):
                for ext in self.extensions:
                    path = Path(self.get_ext_fullpath(ext.name))
                    if path.exists():
                        path.unlink()
                        removed.append(path)
        finally:
            self.inplace = inplace
        return removed


if __name__ == "__main__":
    setup(ext_modules=compiled_extensions(), cmdclass={"build_ext": AllOrNothingBuildExt})
