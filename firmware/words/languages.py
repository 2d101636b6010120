"""The languages the board speaks, found in this package: each is a catalogue (``xx.py``) and a voice (``spoken_xx.py``).

A language is added by adding its two files, named by its ISO 639 code: ``de.py`` holds
``CATALOGUE`` (a ``Catalogue``: what players read), ``spoken_de.py`` holds ``SPOKEN`` (what the
voice says, and espeak-ng's voice for it). Nothing else names a language: the page's menu, the
configuration's ``[voice] language``, the voice, the simulator's ``--voice`` read ``LANGS``. Its
SAN letters are chess_core's (``chess_core.notation.LETTERS``, below this layer).
"""
from __future__ import annotations

import importlib
import os
import re
from types import ModuleType

# English: the words of a language the board does not know, and the language of what is kept
# for machines and other programs (the journal, a side's default name in the PGN).
FALLBACK = "en"
_CODE = re.compile(r"([a-z]{2,3})\.py")   # an ISO 639 code: a catalogue's module
_HERE = os.path.dirname(os.path.abspath(__file__))


def found(here: str | os.PathLike[str] = _HERE) -> tuple[str, ...]:
    """The codes of the catalogues in ``here`` (this package), English first, then in the codes' order."""
    codes = sorted(m.group(1) for name in os.listdir(here) if (m := _CODE.fullmatch(name)))
    if FALLBACK not in codes:
        raise ImportError(f"firmware/words has no {FALLBACK}.py: the catalogue every other language falls back to")
    return (FALLBACK, *(code for code in codes if code != FALLBACK))


LANGS: tuple[str, ...] = found()


def module_of(lang: str, prefix: str = "") -> ModuleType:
    """The module ``prefix + lang`` of this package ("de": the catalogue, "spoken_de": its voice)."""
    return importlib.import_module(f"{__package__}.{prefix}{lang}")


__all__ = ["FALLBACK", "LANGS", "found", "module_of"]
