"""Every language's catalogue by its code, the one registry the words are said from (English for a code it does not know)."""
from __future__ import annotations

from chess_core.notation import LETTERS

from .catalogue import Catalogue
from .languages import FALLBACK, LANGS, module_of


def _catalogue(lang: str) -> Catalogue:
    found = getattr(module_of(lang), "CATALOGUE", None)
    if not isinstance(found, Catalogue):
        raise TypeError(f"firmware/words/{lang}.py: its CATALOGUE is not a Catalogue")
    if lang not in LETTERS:
        raise ImportError(f"firmware/words/{lang}.py: no SAN letters for {lang!r} in chess_core.notation.LETTERS")
    return found


CATALOGUES: dict[str, Catalogue] = {lang: _catalogue(lang) for lang in LANGS}
ENGLISH = CATALOGUES[FALLBACK]
# A side's default name as the record keeps it (the PGN's): "White", "Black"; shown in each language.
DEFAULT_NAMES = ENGLISH.sides


def catalogue_of(lang: str) -> Catalogue:
    """The catalogue of ``lang`` (English for a language it does not know)."""
    return CATALOGUES.get(lang, ENGLISH)


__all__ = ["CATALOGUES", "LANGS", "FALLBACK", "ENGLISH", "DEFAULT_NAMES", "catalogue_of"]
