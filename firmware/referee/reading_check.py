"""A settled reading held against a position: does the board show it, are pieces only lifted, which squares are gone or wrong (pure).

A reading is the occupancy, and the colours of a colour-sensing board (None on the others). The
squares of ``blind`` sensors (found dead or stuck, :mod:`firmware.referee.sensor_watch`) are left
out of every comparison.
"""
from __future__ import annotations

from chess_core import Move, Position

__all__ = ["Sensed", "shows", "only_lifted", "gone", "wrong", "exchanging"]

Sensed = tuple[int, int | None, int | None]   # occupancy, and the colours of a colour-sensing board


def shows(reading: Sensed, pos: Position, blind: int) -> bool:
    """Does ``reading`` show ``pos`` (its occupancy, and colours where sensed)?"""
    occ, white, black = reading
    keep = ~blind
    if (occ ^ pos.occupied) & keep:
        return False
    return white is None or black is None or not ((white ^ pos.bb_color[0]) | (black ^ pos.bb_color[1])) & keep


def only_lifted(reading: Sensed, pos: Position, blind: int) -> bool:
    """Are pieces of ``pos`` only missing (in the hand), none set where ``pos`` has none (nor, where
    colours are sensed, a piece of the other colour)?"""
    occ, white, black = reading
    keep = ~blind
    if occ & ~pos.occupied & keep:
        return False
    if white is None or black is None:
        return True
    return not ((white & ~pos.bb_color[0]) | (black & ~pos.bb_color[1])) & keep


def gone(reading: Sensed, pos: Position, blind: int) -> int:
    """The squares of ``pos`` that ``reading`` shows empty."""
    return pos.occupied & ~reading[0] & ~blind


def wrong(reading: Sensed, pos: Position, blind: int) -> int:
    """The squares where ``reading`` differs from ``pos`` (occupancy, and colour where sensed)."""
    occ, white, black = reading
    found = pos.occupied ^ occ
    if white is not None and black is not None:
        found |= (pos.bb_color[0] ^ white) | (pos.bb_color[1] ^ black)
    return found & ~blind


def exchanging(last: Move | None, reading: Sensed, pos: Position, blind: int) -> bool:
    """The promotion ``last`` just made (``pos`` after it) has its new piece lifted off its square
    and nothing else changed: the pawn being exchanged for the piece (FIDE 3.7.5.3), or the piece
    straightened. No other move of the pawn (a capture swept off beside it) is read into that."""
    if last is None or not last.promotion:
        return False
    return not (reading[0] ^ pos.occupied & ~(1 << last.to_square)) & ~blind
