"""Tournament conditions a round sets on a board: when a draw may be offered (pure)."""
from __future__ import annotations

from firmware.words import FALLBACK, draw_offers_from


def draw_offer_refused(fullmove_number: int, from_move: int, lang: str = FALLBACK) -> str | None:
    """Why a draw offer is refused at move ``fullmove_number`` when offers start at ``from_move``
    (0 or 1: any time), in ``lang`` (a language of firmware.words, whose words these are), or None when it
    may be made."""
    if from_move <= 1 or fullmove_number >= from_move:
        return None
    return draw_offers_from(from_move, fullmove_number, lang)
