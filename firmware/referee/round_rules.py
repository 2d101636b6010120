"""Tournament conditions a round sets on a board: when a draw may be offered (pure)."""
from __future__ import annotations

from typing import Optional


def draw_offer_refused(fullmove_number: int, from_move: int, lang: str = "en") -> Optional[str]:
    """Why a draw offer is refused at move ``fullmove_number`` when offers start at ``from_move``
    (0 or 1: any time), or None when it may be made; ``lang`` "en" or "fr".

    >>> draw_offer_refused(12, 20)
    'Draw offers are allowed from move 20 on (this is move 12): play on.'
    >>> draw_offer_refused(12, 20, "fr")
    'La nulle se propose à partir du coup 20 (c’est le coup 12) : jouez.'
    >>> draw_offer_refused(20, 20) is None
    True
    """
    if from_move <= 1 or fullmove_number >= from_move:
        return None
    if lang == "fr":
        return f"La nulle se propose à partir du coup {from_move} (c’est le coup {fullmove_number}) : jouez."
    return f"Draw offers are allowed from move {from_move} on (this is move {fullmove_number}): play on."
