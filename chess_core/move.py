"""Moves: the public ``Move`` value and the compact int codes the generator works with."""
from __future__ import annotations

from typing import NamedTuple

from .squares import PIECE_SYMBOLS, SQUARE_NAMES, parse_square

# Internal move code: from | to << 6 | promotion << 12 | flag << 15.
FLAG_NORMAL = 0
FLAG_DOUBLE_PUSH = 1
FLAG_EN_PASSANT = 2
FLAG_CASTLE = 3


class InvalidMoveError(ValueError):
    """A move string that cannot be read at all (syntax)."""


class IllegalMoveError(ValueError):
    """A move that is well formed but not legal in the position."""


class AmbiguousMoveError(ValueError):
    """A SAN move that matches more than one legal move."""


class Move(NamedTuple):
    """A move from one square to another, with the promotion piece type if any.

    >>> Move.from_uci("e7e8q")
    Move.from_uci('e7e8q')
    """

    from_square: int
    to_square: int
    promotion: int | None = None

    def uci(self) -> str:
        if self.from_square == self.to_square:
            return "0000"  # the null move
        text = SQUARE_NAMES[self.from_square] + SQUARE_NAMES[self.to_square]
        if self.promotion:
            text += PIECE_SYMBOLS[self.promotion]
        return text

    @classmethod
    def from_uci(cls, text: str) -> "Move":
        if not isinstance(text, str) or len(text) not in (4, 5):
            raise InvalidMoveError(f"not a UCI move: {text!r}")
        try:
            frm, to = parse_square(text[0:2]), parse_square(text[2:4])
        except ValueError:
            raise InvalidMoveError(f"not a UCI move: {text!r}") from None
        promotion = None
        if len(text) == 5:
            if text[4] not in "nbrq":
                raise InvalidMoveError(f"not a UCI move (promotion must be n, b, r or q): {text!r}")
            promotion = PIECE_SYMBOLS.index(text[4])
        if frm == to:
            raise InvalidMoveError(f"not a UCI move (same square twice): {text!r}")
        return cls(frm, to, promotion)

    def __repr__(self) -> str:
        return f"Move.from_uci({self.uci()!r})"

    def __str__(self) -> str:
        return self.uci()


# The null move (the side to move passes): only PGN analysis and the reader know it; no player
# can make it on the board, and the move generator never yields it.
NULL_MOVE = Move(0, 0)
NULL_CODE = 0


def encode(frm: int, to: int, promotion: int = 0, flag: int = FLAG_NORMAL) -> int:
    return frm | to << 6 | promotion << 12 | flag << 15


def decode(code: int) -> Move:
    promo = (code >> 12) & 7
    return Move(code & 63, (code >> 6) & 63, promo or None)
