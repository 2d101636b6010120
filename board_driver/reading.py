"""One raw sensor reading: which squares hold a piece at a moment (and their colour, if sensed)."""
from __future__ import annotations

from dataclasses import dataclass

ALL_SQUARES = (1 << 64) - 1


@dataclass(frozen=True, slots=True)
class Reading:
    """A raw reading of the whole board.

    ``time`` is in seconds from a monotonic source; ``occupied`` is a bitboard (bit ``s`` set
    when square ``s`` holds a piece, a1 = 0 ... h8 = 63). A colour-sensing board also gives
    ``white`` and ``black``; then ``occupied == white | black``.

    >>> Reading(1.5, 0x1)
    Reading(time=1.5, occupied=1, white=None, black=None)
    """

    time: float
    occupied: int
    white: int | None = None
    black: int | None = None

    def same_squares(self, other: Reading | None) -> bool:
        """True when ``other`` reads the same squares (and colours), whatever its time."""
        return (
            other is not None
            and self.occupied == other.occupied
            and self.white == other.white
            and self.black == other.black
        )


def colour_reading(time: float, white: int, black: int) -> Reading:
    """A colour-sensing reading; ``occupied`` is derived as ``white | black``."""
    return Reading(time, white | black, white, black)
