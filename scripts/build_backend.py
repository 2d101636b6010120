"""Build backend: setuptools', which also asks for mypy when ECHIQUIER_MYPYC=1 (the compiled build, see setup.py)."""
from __future__ import annotations

import os
from contextlib import contextmanager
from typing import Iterator

from setuptools import build_meta
from setuptools.build_meta import *  # noqa: F401,F403 (the hooks this module does not change)

FLAG = "ECHIQUIER_MYPYC"
MYPY = "mypy>=1.8"


@contextmanager
def _flag_off() -> Iterator[bool]:
    """The flag hidden while setup.py is only asked for its requirements (mypy is not there yet:
    it would say it builds pure Python, and translate twice where mypy is); yields whether it was set."""
    value = os.environ.pop(FLAG, None)
    try:
        yield value == "1"
    finally:
        if value is not None:
            os.environ[FLAG] = value


def get_requires_for_build_wheel(config_settings=None) -> list[str]:
    with _flag_off() as compiled:
        requires = build_meta.get_requires_for_build_wheel(config_settings)
    return [*requires, MYPY] if compiled else requires


def get_requires_for_build_editable(config_settings=None) -> list[str]:
    with _flag_off() as compiled:
        requires = build_meta.get_requires_for_build_editable(config_settings)
    return [*requires, MYPY] if compiled else requires
