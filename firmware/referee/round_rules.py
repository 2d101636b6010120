"""Tournament conditions a round sets on a board: when a draw may be offered (pure)."""
from __future__ import annotations

from firmware.words import draw_offers_from


def draw_offer_refused(fullmove_number: int, from_move: int, lang: str = "en") -> str | None:
    """Why a draw offer is refused at move ``fullmove_number`` when offers start at ``from_move``
    (0 or 1: any time), in ``lang`` ("en" or "fr"; the words are firmware.words'), or None when it
    may be made."""
    if from_move <= 1 or fullmove_number >= from_move:
        return None
    return draw_offers_from(from_move, fullmove_number, lang)
