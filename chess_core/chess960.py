"""Chess960 (Fischer random) start positions by their standard number, 0-959 (518 is the usual start)."""
from __future__ import annotations

from .position import Position

VARIANTS = ("standard", "chess960")  # the variants the board plays, as [game] variant and --variant spell them
COUNT = 960
STANDARD_NUMBER = 518
# Where the two knights go among the five squares left after the bishops and the queen.
_KNIGHTS = ((0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4))


def back_rank(number: int) -> str:
    """White's first rank of start position ``number`` (Scharnagl's numbering), as letters a to h.

    >>> back_rank(518), back_rank(0)
    ('RNBQKBNR', 'BBQNNRKR')
    """
    if not isinstance(number, int) or isinstance(number, bool) or not 0 <= number < COUNT:
        raise ValueError(f"a Chess960 start position is numbered 0 to 959, not {number!r}")
    rank: list[str | None] = [None] * 8
    n, light = divmod(number, 4)
    rank[2 * light + 1] = "B"
    n, dark = divmod(n, 4)
    rank[2 * dark] = "B"
    n, queen = divmod(n, 6)
    _place(rank, "Q", queen)
    first, second = _KNIGHTS[n]
    _place(rank, "N", second)  # the second first: placing the first would shift its index
    _place(rank, "N", first)
    for letter in "RKR":
        _place(rank, letter, 0)
    return "".join(piece for piece in rank if piece is not None)  # all eight are placed by now


def _place(rank: list[str | None], letter: str, index: int) -> None:
    """Put ``letter`` on the ``index``-th empty square (from the a file)."""
    empty = [f for f, piece in enumerate(rank) if piece is None]
    rank[empty[index]] = letter


def start_fen(number: int) -> str:
    """The FEN (X-FEN castling, KQkq) of start position ``number``."""
    rank = back_rank(number)
    return f"{rank.lower()}/pppppppp/8/8/8/8/PPPPPPPP/{rank} w KQkq - 0 1"


def start_position(number: int) -> Position:
    """Start position ``number``, in Chess960 mode."""
    return Position(start_fen(number), chess960=True)


_NUMBERS = {back_rank(n): n for n in range(COUNT)}


def rearranged(before: Position, after: Position) -> int:
    """The first- and last-rank squares whose piece differs between two start positions: the
    pieces to lift and set anew to go from ``before`` to ``after``."""
    squares = 0
    for sq in (*range(8), *range(56, 64)):
        if before.board[sq] != after.board[sq]:
            squares |= 1 << sq
    return squares


def number_of(pos: Position) -> int | None:
    """The start position number of ``pos`` if it is one (placement, White to move, all four
    rights, counters ignored), else None."""
    fields = pos.fen(shredder=True).split()
    ranks = fields[0].split("/")
    white = ranks[7]
    if (ranks[0] != white.lower() or ranks[1] != "pppppppp" or ranks[6] != "PPPPPPPP"
            or ranks[2:6] != ["8"] * 4 or fields[1] != "w" or white not in _NUMBERS):
        return None
    rooks = [f for f, letter in enumerate(white) if letter == "R"]
    letters = "".join("ABCDEFGH"[f] for f in reversed(rooks))
    if fields[2] != letters + letters.lower() and (pos.chess960 or fields[2] != "KQkq"):
        return None
    return _NUMBERS[white]
