"""A piece: its type (PAWN..KING) and colour, and its FEN letter."""
from __future__ import annotations

from typing import NamedTuple

from .squares import BLACK, PIECE_SYMBOLS, WHITE


class Piece(NamedTuple):
    """A piece type (PAWN..KING) and its colour (WHITE or BLACK)."""

    piece_type: int
    color: int

    def symbol(self) -> str:
        s = PIECE_SYMBOLS[self.piece_type]
        return s.upper() if self.color == WHITE else s

    @classmethod
    def from_symbol(cls, symbol: str) -> "Piece":
        return cls(PIECE_SYMBOLS.index(symbol.lower()), WHITE if symbol.isupper() else BLACK)
