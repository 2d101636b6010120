"""What an emulated board reports and is asked for: the pieces it shows and the app's lights (pure).

Contract
========

* :func:`pieces_shown` (the game's position as FEN, the settled occupancy, the colours when the
  sensors read them) -> :class:`Pieces`: the game's piece on every square where the sensors see
  a piece; a square the game has empty, or whose piece is off the board (lifted), is shown
  empty; on a board that reads colours, a square whose colour disagrees with the game's piece is
  empty too. An occupancy board cannot name a piece the game does not have: none is invented.
* :class:`Lights`: the LEDs an app asks for, one 8-slot pattern per square (bit 7 first, one
  slot every ``slot_s`` seconds from ``since``; 0xFF steady, 0 dark) and a brightness 0..1;
  ``lit(now)`` the squares lit at ``now`` (a bitboard), ``next_change(now)`` when that changes.
* The events every codec returns: :class:`Send` (bytes for the app), :class:`Light` (the app's
  lights changed), :class:`AppSeen` (the first well-formed command of a link).
* :func:`corner_patterns_to_squares` maps the 81 corner LEDs of a Millennium board (a 9x9 grid)
  onto squares: a square is lit in a slot when its four corners are; see its docstring.

Squares are chess_core's: a1 = 0, b1 = 1 .. h8 = 63. Nothing here reads a clock.
"""
from __future__ import annotations

from dataclasses import dataclass

from chess_core.squares import BB_SQUARES

PIECE_LETTERS = "PNBRQKpnbrqk"
EMPTY = "."


@dataclass(frozen=True)
class Pieces:
    """The board as an app is told it: 64 characters, a FEN piece letter or ``"."``, a1 first."""

    letters: str = EMPTY * 64

    def __post_init__(self) -> None:
        if len(self.letters) != 64 or any(c != EMPTY and c not in PIECE_LETTERS for c in self.letters):
            raise ValueError("Pieces: 64 characters, each a FEN piece letter or '.'")

    def at(self, square: int) -> str:
        """The piece letter on ``square`` (a1 = 0), ``"."`` when empty."""
        return self.letters[square]

    @property
    def occupied(self) -> int:
        """The squares shown with a piece, as a bitboard."""
        bb = 0
        for square, letter in enumerate(self.letters):
            if letter != EMPTY:
                bb |= BB_SQUARES[square]
        return bb


EMPTY_BOARD = Pieces()


def placement(fen: str) -> str:
    """The 64 letters (a1 first, ``"."`` empty) of a FEN's piece placement; ValueError if malformed.

    >>> placement("8/8/8/8/8/8/8/K6k w - - 0 1")[:8]
    'K......k'
    """
    rows = fen.split(" ", 1)[0].split("/")
    if len(rows) != 8:
        raise ValueError(f"not a FEN placement: {fen!r}")
    ranks: list[str] = []
    for row in rows:          # rank 8 first
        line = ""
        for ch in row:
            if ch.isdigit():
                line += EMPTY * int(ch)
            elif ch in PIECE_LETTERS:
                line += ch
            else:
                raise ValueError(f"not a FEN placement: {fen!r}")
        if len(line) != 8:
            raise ValueError(f"not a FEN placement: {fen!r}")
        ranks.append(line)
    return "".join(reversed(ranks))


def pieces_shown(fen: str, occupied: int, white: int | None = None, black: int | None = None) -> Pieces:
    """The pieces an app is told of: the game's (``fen``) where the sensors see a piece
    (``occupied``, a bitboard); with ``white``/``black`` (a colour-sensing board) only where the
    colour read is the piece's. See the module docstring.

    >>> from chess_core import STARTING_FEN
    >>> pieces_shown(STARTING_FEN, 0xFFFF00000000EFFF).at(12)   # e2 lifted
    '.'
    """
    letters = []
    for square, letter in enumerate(placement(fen)):
        bit = BB_SQUARES[square]
        if letter == EMPTY or not occupied & bit:
            letters.append(EMPTY)
            continue
        if white is not None and black is not None:
            seen = white if letter.isupper() else black
            if not seen & bit:
                letters.append(EMPTY)
                continue
        letters.append(letter)
    return Pieces("".join(letters))


STEADY = 0xFF


@dataclass(frozen=True)
class Lights:
    """The LEDs an app asks for; see the module docstring. ``patterns``: 64 bytes, a1 first."""

    patterns: tuple[int, ...] = (0,) * 64
    slot_s: float = 0.0
    since: float = 0.0
    brightness: float = 1.0

    def __post_init__(self) -> None:
        if len(self.patterns) != 64 or any(not 0 <= p <= 0xFF for p in self.patterns):
            raise ValueError("Lights: 64 patterns of 8 bits")
        if not 0.0 <= self.brightness <= 1.0:
            raise ValueError("Lights: brightness 0..1")

    @classmethod
    def steady(cls, squares: int, brightness: float = 1.0) -> "Lights":
        """The squares of the bitboard ``squares`` lit steadily."""
        return cls(tuple(STEADY if squares & BB_SQUARES[s] else 0 for s in range(64)), brightness=brightness)

    @property
    def dark(self) -> bool:
        return not any(self.patterns)

    def _slot(self, now: float) -> int:
        if self.slot_s <= 0:
            return 0
        return int((now - self.since) // self.slot_s) % 8

    def lit(self, now: float) -> int:
        """The squares lit at ``now``, as a bitboard (without a slot time: those with any bit)."""
        bb = 0
        if self.slot_s <= 0:
            for square, pattern in enumerate(self.patterns):
                if pattern:
                    bb |= BB_SQUARES[square]
            return bb
        bit = 0x80 >> self._slot(now)
        for square, pattern in enumerate(self.patterns):
            if pattern & bit:
                bb |= BB_SQUARES[square]
        return bb

    def next_change(self, now: float) -> float | None:
        """When the squares lit next change (None: never without a new command)."""
        if self.slot_s <= 0 or all(p in (0, STEADY) for p in self.patterns):
            return None
        slots = (now - self.since) // self.slot_s + 1
        deadline = self.since + slots * self.slot_s
        return deadline if deadline > now else deadline + self.slot_s   # (a float rounded down)


def _corners_of(square: int) -> tuple[int, int, int, int]:
    x, y = square % 8, square // 8
    return (x + 9 * y, x + 1 + 9 * y, x + 9 * (y + 1), x + 1 + 9 * (y + 1))


SQUARE_CORNERS = tuple(_corners_of(s) for s in range(64))


def _squares_lit(lit: set[int], possible: list[int]) -> list[int]:
    """The squares one slot's lit corners show (see corner_patterns_to_squares)."""
    candidates = [s for s in range(64) if all(c in lit for c in SQUARE_CORNERS[s])]
    sharing = [0] * 81                          # how many candidates have each corner
    for s in candidates:
        for c in SQUARE_CORNERS[s]:
            sharing[c] += 1
    chosen = [s for s in candidates if any(sharing[c] == 1 for c in SQUARE_CORNERS[s])]   # a corner its own
    covered = {c for s in chosen for c in SQUARE_CORNERS[s]}
    for s in candidates:                        # a square none of the others explains
        if s not in chosen and any(c not in covered for c in SQUARE_CORNERS[s]):
            chosen.append(s)
            covered.update(SQUARE_CORNERS[s])
    leftover = lit - covered
    if leftover:                                # corners a neighbour's pattern wrote over
        chosen += [s for s in possible if s not in chosen and sum(c in leftover for c in SQUARE_CORNERS[s]) >= 2]
    return chosen


def corner_patterns_to_squares(corners: tuple[int, ...]) -> tuple[int, ...]:
    """The 64 square patterns (a1 first) of 81 corner patterns, ``corners[cx + 9 * cy]``: the
    corner at column ``cx`` (0 the a-file's outer edge .. 8 the h-file's) and row ``cy`` (0 the
    first rank's outer edge .. 8 the eighth's).

    An app lights a square by its four corners; two squares side by side share two, and two a
    square apart light the corners of the one between. In each slot the squares shown are the
    fewest that light the corners lit: each square with a corner no other lit square has, then
    any whose corners those leave unexplained (e2 and e4 show e2 and e4, not e3 between them).
    Corners still lit after that, whose square's own corners were written over by a neighbour's
    pattern (python-mchess's ``set_led``), light the square they are two of, if its four corners
    are lit in some slot. A corner alone lights nothing.

    >>> corner_patterns_to_squares(tuple(0xFF if i in (0, 1, 9, 10) else 0 for i in range(81)))[0]
    255
    """
    if len(corners) != 81:
        raise ValueError("81 corner patterns")
    possible = [s for s in range(64) if all(corners[c] for c in SQUARE_CORNERS[s])]
    patterns = [0] * 64
    if not possible:
        return tuple(patterns)
    shown: dict[frozenset[int], list[int]] = {}    # slots that light the same corners show the same
    for slot in range(8):
        bit = 0x80 >> slot
        lit = frozenset(c for c in range(81) if corners[c] & bit)
        if lit not in shown:
            shown[lit] = _squares_lit(set(lit), possible)
        for square in shown[lit]:
            patterns[square] |= bit
    return tuple(patterns)


@dataclass(frozen=True)
class Send:
    """Bytes for the app, as they go on the wire."""

    data: bytes


@dataclass(frozen=True)
class Light:
    """The app's lights changed."""

    lights: Lights


@dataclass(frozen=True)
class AppSeen:
    """The first well-formed command of this link: an app is attached."""

    command: str


Event = Send | Light | AppSeen
