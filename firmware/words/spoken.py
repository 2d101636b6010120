"""What the board says aloud, one spoken catalogue per language (spoken_en.py, spoken_fr.py, spoken_de.py): moves, endings, clocks, the position."""
from __future__ import annotations

import re
from dataclasses import dataclass

from .languages import FALLBACK, LANGS, module_of


@dataclass(frozen=True)
class Spoken:
    """The words of the voice in one language; ``firmware.voice.phrases`` puts them together.

    Every language has the same keys, and a template's ``{placeholders}`` are the same in every
    language (tests/firmware/voice/test_phrases.py checks both). Pieces by type (1 pawn .. 6
    king); the singular names are the catalogue's (``firmware.words``: "cavalier")."""

    says: dict[str, str]                 # str.format templates: "{piece} prend {to}"
    plurals: dict[int, str]              # "cavaliers", to describe the position
    coloured: dict[tuple[int, int], str]  # (colour, type): "pion blanc", "tour noire" (French agrees the colour)
    espeak: str                          # espeak-ng's voice for the language ("fr"), unless [voice] voice names one
    # what the synthesizer should read otherwise than written: (pattern, replacement), in order
    respell: tuple[tuple[re.Pattern[str], str], ...] = ()


SPOKEN: dict[str, Spoken] = {lang: Spoken(**module_of(lang, "spoken_").SPOKEN) for lang in LANGS}


def spoken(lang: str) -> Spoken:
    """The spoken words of ``lang`` (English for a language the board does not speak)."""
    return SPOKEN.get(lang, SPOKEN[FALLBACK])


_SYMBOLS = "PNBRQK"


def square_words(lang: str) -> dict[str, object]:
    """How the page names a square for a screen reader (GET /api/words' ``squares``): templates of
    ``{square}`` and ``{piece}``, and the pieces by their FEN letter ("P": "white pawn")."""
    words = spoken(lang)
    pieces = {(symbol if colour == 0 else symbol.lower()): words.coloured[(colour, kind)]
              for colour in (0, 1) for kind, symbol in enumerate(_SYMBOLS, start=1)}
    return {"piece": words.says["square_piece"], "empty": words.says["empty_square"],
            "expected": words.says["expected_square"], "unknown": words.says["unknown_square"], "pieces": pieces}


__all__ = ["Spoken", "SPOKEN", "spoken", "square_words"]
