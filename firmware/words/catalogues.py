"""Every language's catalogue by its code, the one registry the words are said from (English for a code it does not know)."""
from __future__ import annotations

from .catalogue import Catalogue
from .en import CATALOGUE as ENGLISH
from .fr import CATALOGUE as FRENCH

CATALOGUES: dict[str, Catalogue] = {"en": ENGLISH, "fr": FRENCH}
LANGS = tuple(CATALOGUES)


def catalogue_of(lang: str) -> Catalogue:
    """The catalogue of ``lang`` (English for a language it does not know)."""
    return CATALOGUES.get(lang, ENGLISH)


__all__ = ["CATALOGUES", "LANGS", "ENGLISH", "catalogue_of"]
