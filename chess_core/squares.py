"""Squares, bitboards, colours, piece types and the attack tables, built once at import."""
from __future__ import annotations

from typing import Iterator

WHITE = 0
BLACK = 1
COLORS = (WHITE, BLACK)
COLOR_NAMES = ("white", "black")

PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = 1, 2, 3, 4, 5, 6
PIECE_TYPES = (PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING)
PIECE_SYMBOLS = ("", "p", "n", "b", "r", "q", "k")
PIECE_NAMES = ("", "pawn", "knight", "bishop", "rook", "queen", "king")

FILE_NAMES = "abcdefgh"
RANK_NAMES = "12345678"
SQUARE_NAMES = [f + r for r in RANK_NAMES for f in FILE_NAMES]
SQUARES = range(64)

A1, B1, C1, D1, E1, F1, G1, H1 = range(8)
A8, B8, C8, D8, E8, F8, G8, H8 = range(56, 64)

BB_EMPTY = 0
BB_ALL = (1 << 64) - 1
BB_SQUARES = [1 << s for s in range(64)]
BB_FILES = [0x0101010101010101 << f for f in range(8)]
BB_RANKS = [0xFF << (8 * r) for r in range(8)]
BB_FILE_A, BB_FILE_H = BB_FILES[0], BB_FILES[7]
BB_LIGHT_SQUARES = 0x55AA55AA55AA55AA
BB_DARK_SQUARES = 0xAA55AA55AA55AA55


def square(file: int, rank: int) -> int:
    """The square at ``file`` (0 = a) and ``rank`` (0 = first rank).

    >>> square(4, 1)
    12
    """
    return file + 8 * rank


def square_file(sq: int) -> int:
    return sq & 7


def square_rank(sq: int) -> int:
    return sq >> 3


def square_name(sq: int) -> str:
    """>>> square_name(28)
    'e4'
    """
    return SQUARE_NAMES[sq]


def parse_square(name: str) -> int:
    """The square named ``name`` ('e4' -> 28); ValueError names a bad one."""
    if not isinstance(name, str) or len(name) != 2 or name[0] not in FILE_NAMES or name[1] not in RANK_NAMES:
        raise ValueError(f"not a square name: {name!r}")
    return FILE_NAMES.index(name[0]) + 8 * RANK_NAMES.index(name[1])


def scan_squares(bb: int) -> Iterator[int]:
    """The squares of a bitboard, lowest first."""
    while bb:
        low = bb & -bb
        yield low.bit_length() - 1
        bb ^= low


def popcount(bb: int) -> int:
    return bb.bit_count()


def square_distance(a: int, b: int) -> int:
    return max(abs((a & 7) - (b & 7)), abs((a >> 3) - (b >> 3)))


def _step_attacks(deltas: tuple[tuple[int, int], ...]) -> list[int]:
    table = []
    for sq in range(64):
        f, r = sq & 7, sq >> 3
        bb = 0
        for df, dr in deltas:
            nf, nr = f + df, r + dr
            if 0 <= nf < 8 and 0 <= nr < 8:
                bb |= 1 << (nf + 8 * nr)
        table.append(bb)
    return table


KNIGHT_ATTACKS = _step_attacks(((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)))
KING_ATTACKS = _step_attacks(((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)))
# PAWN_ATTACKS[colour][sq]: the squares a pawn of that colour on sq attacks.
PAWN_ATTACKS = [_step_attacks(((-1, 1), (1, 1))), _step_attacks(((-1, -1), (1, -1)))]


def _ray(sq: int, df: int, dr: int, occupied: int) -> int:
    bb = 0
    f, r = (sq & 7) + df, (sq >> 3) + dr
    while 0 <= f < 8 and 0 <= r < 8:
        s = f + 8 * r
        bb |= 1 << s
        if occupied >> s & 1:
            break
        f += df
        r += dr
    return bb


def _subsets(mask: int) -> Iterator[int]:
    sub = 0
    while True:
        yield sub
        sub = (sub - mask) & mask
        if not sub:
            return


def _line_tables(directions: tuple[tuple[int, int], tuple[int, int]]) -> tuple[list[int], list[int], list[dict[int, int]]]:
    """Each square's whole line in ``directions``, its key mask (the line less the squares at
    its ends, whose occupancy never changes what is attacked) and the attacks by key."""
    lines, masks, tables = [], [], []
    shared: dict[int, int] = {}  # one int object per distinct attack set (about 3 MB less)
    for sq in range(64):
        line = mask = 0
        for df, dr in directions:
            ray = _ray(sq, df, dr, 0)
            line |= ray
            end = ray & -ray if df + 8 * dr < 0 else (1 << ray.bit_length() - 1 if ray else 0)
            mask |= ray & ~end  # the ray less its last square
        table = {}
        for occ in _subsets(mask):
            att = 0
            for df, dr in directions:
                att |= _ray(sq, df, dr, occ)
            table[occ] = shared.setdefault(att, att)
        lines.append(line)
        masks.append(mask)
        tables.append(table)
    return lines, masks, tables


# Sliding attacks are looked up by the occupancy of each line through the square (its *_MASKS
# part: the line less its end squares, as python-chess does); *_LINES are the whole lines.
RANK_LINES, RANK_MASKS, RANK_ATTACKS = _line_tables(((1, 0), (-1, 0)))
FILE_LINES, FILE_MASKS, FILE_ATTACKS = _line_tables(((0, 1), (0, -1)))
DIAG_LINES, DIAG_MASKS, DIAG_ATTACKS = _line_tables(((1, 1), (-1, -1)))
ANTI_LINES, ANTI_MASKS, ANTI_ATTACKS = _line_tables(((1, -1), (-1, 1)))
ROOK_PSEUDO = [RANK_LINES[s] | FILE_LINES[s] for s in range(64)]
BISHOP_PSEUDO = [DIAG_LINES[s] | ANTI_LINES[s] for s in range(64)]


def rook_attacks(sq: int, occupied: int) -> int:
    return RANK_ATTACKS[sq][occupied & RANK_MASKS[sq]] | FILE_ATTACKS[sq][occupied & FILE_MASKS[sq]]


def bishop_attacks(sq: int, occupied: int) -> int:
    return DIAG_ATTACKS[sq][occupied & DIAG_MASKS[sq]] | ANTI_ATTACKS[sq][occupied & ANTI_MASKS[sq]]


def queen_attacks(sq: int, occupied: int) -> int:
    return rook_attacks(sq, occupied) | bishop_attacks(sq, occupied)


def _between_and_lines() -> tuple[list[list[int]], list[list[int]]]:
    between = [[0] * 64 for _ in range(64)]
    lines = [[0] * 64 for _ in range(64)]
    shared: dict[int, int] = {}  # one int object per distinct set (BETWEEN[a][b] is BETWEEN[b][a])
    for a in range(64):
        for masks in (RANK_LINES, FILE_LINES, DIAG_LINES, ANTI_LINES):
            for b in scan_squares(masks[a]):
                line = masks[a] | (1 << a)
                lines[a][b] = shared.setdefault(line, line)
        for dirs in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1)):
            df, dr = dirs
            f, r = (a & 7) + df, (a >> 3) + dr
            acc = 0
            while 0 <= f < 8 and 0 <= r < 8:
                b = f + 8 * r
                between[a][b] = shared.setdefault(acc, acc)
                acc |= 1 << b
                f += df
                r += dr
    return between, lines


# BETWEEN[a][b]: squares strictly between a and b on a shared line (0 if none).
# LINE[a][b]: the whole line through a and b, both included (0 if they share none).
BETWEEN, LINE = _between_and_lines()
