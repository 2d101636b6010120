"""Simulated board: a sensor source driven by code (the web simulator, tests) instead of magnets."""
from __future__ import annotations

import threading
import time
from collections.abc import Callable

from ..reading import Reading
from ..sensors import SensorSource

WHITE, BLACK = "white", "black"
_COLOURS = {"white": WHITE, "w": WHITE, "black": BLACK, "b": BLACK}


def _check_square(square: int) -> int:
    if isinstance(square, bool) or not isinstance(square, int) or not 0 <= square < 64:
        raise ValueError(f"square must be an int 0..63, not {square!r}")
    return square


class SimulatedBoard(SensorSource):
    """A board whose sensors are set by calls: ``lift(square)``, ``place(square)``...

    Every call that changes what the sensors read delivers a :class:`Reading` to the sink at
    once, from the caller's thread, stamped with ``clock()``. Calls that change nothing
    (lifting from an empty square, placing on an occupied one) deliver nothing and return
    False. With ``colour=True`` the board senses colours like bipolar Hall sensors:
    ``place(square, "white")`` and readings carry ``white`` and ``black``.
    """

    uses_thread = False

    def __init__(self, occupied: int = 0, *, colour: bool = False, white: int = 0, black: int = 0,
                 clock: Callable[[], float] = time.monotonic):
        super().__init__()
        self.colour = colour
        self._clock = clock
        self._lock = threading.RLock()
        if colour:
            if white & black:
                raise ValueError("a square cannot hold a white and a black piece")
            self._white, self._black = white, black
        else:
            self._white, self._black = occupied, 0

    # -- state ----------------------------------------------------------------------------
    @property
    def occupied(self) -> int:
        return self._white | self._black

    @property
    def white(self) -> int | None:
        return self._white if self.colour else None

    @property
    def black(self) -> int | None:
        return self._black if self.colour else None

    def read_once(self) -> Reading:
        with self._lock:
            return self._reading()

    def _reading(self) -> Reading:
        if self.colour:
            return Reading(self._clock(), self._white | self._black, self._white, self._black)
        return Reading(self._clock(), self._white)

    def _change(self, white: int, black: int) -> bool:
        with self._lock:
            if (white, black) == (self._white, self._black):
                return False
            self._white, self._black = white, black
            self._deliver(self._reading())
            return True

    # -- moves of the hands -----------------------------------------------------------------
    def set_occupied(self, bitboard: int) -> bool:
        """Set every sensor at once (a colour board reads the new squares as white)."""
        if not 0 <= bitboard < 1 << 64:
            raise ValueError("a bitboard is a 64-bit non-negative int")
        if self.colour:
            with self._lock:
                return self._change((self._white & bitboard) | (bitboard & ~self.occupied), self._black & bitboard)
        return self._change(bitboard, 0)

    def set_colours(self, white: int, black: int) -> bool:
        """Set every sensor of a colour board at once."""
        if white & black:
            raise ValueError("a square cannot hold a white and a black piece")
        if not self.colour:
            return self._change(white | black, 0)
        return self._change(white, black)

    def lift(self, square: int) -> bool:
        """Take the piece off ``square``."""
        bit = 1 << _check_square(square)
        with self._lock:
            if not self.occupied & bit:
                return False
            return self._change(self._white & ~bit, self._black & ~bit)

    def place(self, square: int, colour: str | None = None) -> bool:
        """Put a piece on ``square`` (of ``colour``, "white" or "black", on a colour board)."""
        bit = 1 << _check_square(square)
        if self.colour:
            if colour not in _COLOURS:
                raise ValueError(f"a colour board needs colour 'white' or 'black', not {colour!r}")
            colour = _COLOURS[colour]
        elif colour is not None and colour not in _COLOURS:
            raise ValueError(f"colour must be 'white' or 'black', not {colour!r}")
        with self._lock:
            if self.occupied & bit:
                return False
            if self.colour and colour == BLACK:
                return self._change(self._white, self._black | bit)
            return self._change(self._white | bit, self._black)

    def move(self, from_square: int, to_square: int) -> None:
        """Lift a piece and put it down elsewhere (two readings), keeping its colour."""
        colour = BLACK if self.colour and self._black >> from_square & 1 else WHITE
        if self.lift(from_square):
            self.place(to_square, colour if self.colour else None)
