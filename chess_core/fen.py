"""FEN reading and writing, with validation that names what is wrong with a position."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .piece import Piece
from .squares import (BB_RANKS, BISHOP, BLACK, COLOR_NAMES, FILE_NAMES, KING, KNIGHT, LINE, PAWN,
                      PIECE_SYMBOLS, QUEEN, RANK_NAMES, ROOK, SQUARE_NAMES, WHITE, parse_square)

if TYPE_CHECKING:
    from .position import Position


class FenError(ValueError):
    """A FEN string that cannot be read, or that describes an impossible position: ``reason``
    says what is wrong; ``hint`` (may be empty) guesses what was meant ("choose the chess960
    variant"), unchecked: a caller that offers it should check first that it reads the FEN."""

    def __init__(self, reason: str, hint: str = "") -> None:
        super().__init__(f"{reason} ({hint})" if hint else reason)
        self.reason = reason
        self.hint = hint


_CASTLE_NEEDS = {  # right letter -> (bit, king square, rook square, colour)
    "K": (1, 4, 7, WHITE), "Q": (2, 4, 0, WHITE), "k": (4, 60, 63, BLACK), "q": (8, 60, 56, BLACK),
}
_STANDARD_FILE_LETTERS = {"H": "K", "A": "Q", "h": "k", "a": "q"}  # Shredder-FEN of standard rights


def _read_castling(pos: "Position", text: str, *, strict: bool) -> None:
    """The castling field: KQkq (X-FEN: the outermost rook on that side), or the rook's file
    letter (Shredder-FEN, HAha, and X-FEN for an inner rook). Standard chess reads the letters of
    its corner rooks only; Chess960 keeps the rook of each right in ``castle_rooks``. ``strict``
    (a game position) refuses a right whose rook or king is not there; otherwise such a right is
    dropped, as python-chess does."""
    pos.castling = 0
    if text == "-":
        if pos.chess960:
            _set_castle_rooks(pos, [-1, -1, -1, -1])
        return
    seen = set()
    for letter in text:
        if letter in seen:
            raise FenError(f"castling letter {letter!r} repeated in {text!r}")
        seen.add(letter)
        if not (letter in "KQkq" or letter.lower() in FILE_NAMES and len(letter) == 1):
            raise FenError(f"unexpected castling letter {letter!r} in {text!r}")
    if not pos.chess960:
        for letter in text:
            standard = _STANDARD_FILE_LETTERS.get(letter, letter)
            if standard not in _CASTLE_NEEDS:
                raise FenError(f"castling letter {letter!r} in {text!r} names a rook off the corner: "
                               f"Chess960 castling", "choose the chess960 variant")
            bit = _CASTLE_NEEDS[standard][0]
            if pos.castling & bit:
                raise FenError(f"castling right {standard!r} given twice in {text!r}")
            pos.castling |= bit
        return
    rooks = [-1, -1, -1, -1]  # K, Q, k, q
    for letter in text:
        color = WHITE if letter.isupper() else BLACK
        base = 0 if color == WHITE else 56
        own_rook = ROOK | color << 3
        backrank = [base + f for f in range(8) if pos.board[base + f] == own_rook]
        ksq = pos.king[color]
        king_home = ksq >= 0 and ksq & 56 == base
        lower = letter.lower()
        if lower == "k":
            rsq = backrank[-1] if backrank and king_home and backrank[-1] > ksq else base + 7
        elif lower == "q":
            rsq = backrank[0] if backrank and king_home and backrank[0] < ksq else base
        else:
            rsq = base + FILE_NAMES.index(lower)
        problem = ""
        if not king_home:
            problem = f"needs the {COLOR_NAMES[color]} king on its first rank"
        elif pos.board[rsq] != own_rook:
            problem = f"needs a {COLOR_NAMES[color]} rook on {SQUARE_NAMES[rsq]}"
        elif rsq == ksq:
            problem = "names the king's own square"
        if problem:
            if strict:
                raise FenError(f"castling right {letter!r} {problem}")
            continue
        index = (0 if rsq > ksq else 1) + (0 if color == WHITE else 2)
        if rooks[index] >= 0 and rooks[index] != rsq:
            if strict:
                raise FenError(f"two castling rights on the same side of the {COLOR_NAMES[color]} king "
                               f"in {text!r}")
            # python-chess keeps the outermost rook of each side.
            rsq = max(rsq, rooks[index]) if index % 2 == 0 else min(rsq, rooks[index])
        rooks[index] = rsq
    _set_castle_rooks(pos, rooks)


def _set_castle_rooks(pos: "Position", rooks: list[int]) -> None:
    """The Chess960 rights: the rook of each (-1 for none), and the squares whose leaving or
    taking drops them (the king's and the rook's)."""
    keep = [15] * 64
    for index, rsq in enumerate(rooks):
        if rsq < 0:
            continue
        bit = 1 << index
        pos.castling |= bit
        keep[rsq] &= ~bit
        keep[pos.king[WHITE if index < 2 else BLACK]] &= ~bit
    kept = [rsq if rsq >= 0 else default for rsq, default in zip(rooks, (7, 0, 63, 56))]
    # The types Position declares (a 4-tuple, a list): the compiled build (make fast) checks them.
    pos.castle_rooks = (kept[0], kept[1], kept[2], kept[3])
    pos.castle_keep = keep


def _castling_960(pos: "Position", shredder: bool) -> str:
    """X-FEN (KQkq, or the file letter when another rook stands further out on that side) or
    Shredder-FEN (the file letters), White's then Black's, h side first."""
    text = ""
    for index, rsq in enumerate(pos.castle_rooks):
        if not pos.castling & (1 << index):
            continue
        color = WHITE if index < 2 else BLACK
        letter = FILE_NAMES[rsq & 7]
        if not shredder:
            own_rook = ROOK | color << 3
            base = rsq & 56
            outer = range(rsq + 1, base + 8) if index % 2 == 0 else range(base, rsq)
            if not any(pos.board[sq] == own_rook for sq in outer):
                letter = "k" if index % 2 == 0 else "q"
        text += letter.upper() if color == WHITE else letter
    return text or "-"


def load_fen(pos: "Position", fen: str, *, validate_position: bool = True) -> None:
    """Fill an empty ``pos`` from ``fen``; FenError names the first problem found.

    ``validate_position=False`` reads the syntax only, for composed problems that break the rules
    of a real game (more promoted pieces than missing pawns, say); analysis tools use it.
    """
    if not isinstance(fen, str):
        raise FenError(f"FEN must be a string, not {type(fen).__name__}")
    fields = fen.split()
    if len(fields) not in (4, 6):
        raise FenError(f"FEN needs 6 fields (or 4), found {len(fields)}: {fen!r}; a FEN is the pieces (rank 8 "
                       "first, ranks separated by '/'), the side to move (w or b), castling (KQkq or -), the en "
                       "passant square (or -), the halfmove clock and the move number, separated by spaces, as in "
                       "'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1'")
    board, side, castling, ep = fields[:4]
    halfmove, fullmove = fields[4:] if len(fields) == 6 else ("0", "1")

    ranks = board.split("/")
    if len(ranks) != 8:
        raise FenError(f"the board needs 8 ranks separated by '/', found {len(ranks)}")
    for row, text in enumerate(ranks):
        rank = 7 - row
        file = 0
        previous = ""
        for ch in text:
            if ch in "12345678":
                if previous.isdigit():
                    raise FenError(f"two digits in a row in rank {RANK_NAMES[rank]} of the board: {text!r}")
                file += int(ch)
            elif ch in "pnbrqkPNBRQK":
                if file > 7:
                    raise FenError(f"rank {RANK_NAMES[rank]} has more than 8 squares: {text!r}")
                pos.set_piece(file + 8 * rank, Piece.from_symbol(ch))
                file += 1
            else:
                raise FenError(f"unexpected character {ch!r} in rank {RANK_NAMES[rank]} of the board")
            previous = ch
        if file != 8:
            raise FenError(f"rank {RANK_NAMES[rank]} has {file} squares, not 8: {text!r}")

    if side not in ("w", "b"):
        raise FenError(f"side to move must be 'w' or 'b', not {side!r}")
    pos.turn = WHITE if side == "w" else BLACK

    _read_castling(pos, castling, strict=validate_position)

    if ep == "-":
        pos.ep = -1
    else:
        try:
            pos.ep = parse_square(ep)
        except ValueError:
            raise FenError(f"en passant square {ep!r} is not a square") from None

    for name, text, low in (("halfmove clock", halfmove, 0), ("fullmove number", fullmove, 1)):
        # isdigit() alone lets through '²' and other Unicode digits that int() refuses or misreads.
        if not (text.isascii() and text.isdigit()) or int(text) < low:
            raise FenError(f"the {name} must be a whole number >= {low}, not {text!r}")
    pos.halfmove_clock = int(halfmove)
    pos.fullmove_number = int(fullmove)
    if validate_position:
        validate(pos)


def validate(pos: "Position") -> None:
    """Raise FenError naming the first reason the position cannot occur in a game."""
    for color, name in ((WHITE, "white"), (BLACK, "black")):
        kings = (pos.bb_piece[KING] & pos.bb_color[color]).bit_count()
        if kings != 1:
            raise FenError(f"{name} must have exactly one king, found {kings}")
        if pos.bb_color[color].bit_count() > 16:
            raise FenError(f"{name} has more than 16 pieces")
        pawns = (pos.bb_piece[PAWN] & pos.bb_color[color]).bit_count()
        if pawns > 8:
            raise FenError(f"{name} has more than 8 pawns")
        # Every piece beyond the initial set is a promoted pawn, and that pawn is no longer a pawn.
        extra = sum(max(0, (pos.bb_piece[kind] & pos.bb_color[color]).bit_count() - start)
                    for kind, start in ((KNIGHT, 2), (BISHOP, 2), (ROOK, 2), (QUEEN, 1)))
        if extra > 8 - pawns:
            raise FenError(f"{name} has more pieces than promotions allow: {extra} beyond the initial set "
                           f"with {pawns} pawns still on the board")
    backranks = pos.bb_piece[PAWN] & (BB_RANKS[0] | BB_RANKS[7])
    if backranks:
        sq = (backranks & -backranks).bit_length() - 1
        raise FenError(f"a pawn stands on the first or last rank ({SQUARE_NAMES[sq]})")
    if not pos.chess960:
        for letter, (bit, ksq, rsq, color) in _CASTLE_NEEDS.items():
            if pos.castling & bit:
                king_ok = pos.board[ksq] == (KING | color << 3)
                rook_ok = pos.board[rsq] == (4 | color << 3)
                if not (king_ok and rook_ok):
                    hint = ("a Chess960 position? choose the chess960 variant"
                            if _looks_960(pos, color, ksq, rsq) else "")
                    raise FenError(f"castling right {letter!r} needs the king on {SQUARE_NAMES[ksq]} "
                                   f"and a rook on {SQUARE_NAMES[rsq]}", hint)
    pushed = origin = -1
    if pos.ep >= 0:
        ep = pos.ep
        if pos.turn == WHITE:
            rank_ok, pushed, origin = ep >> 3 == 5, ep - 8, ep + 8
            mover = BLACK
        else:
            rank_ok, pushed, origin = ep >> 3 == 2, ep + 8, ep - 8
            mover = WHITE
        if not rank_ok:
            raise FenError(f"en passant square {SQUARE_NAMES[ep]} is on the wrong rank for the side to move")
        if pos.board[pushed] != (PAWN | mover << 3) or pos.board[ep] or pos.board[origin]:
            raise FenError(f"en passant square {SQUARE_NAMES[ep]} cannot be: no pawn just moved two squares "
                           f"past it")
    them = pos.turn ^ 1
    if pos.attackers(pos.turn, pos.king[them]):
        raise FenError(f"the side not to move ({COLOR_NAMES[them]}) is in check")
    _validate_checks(pos, pushed, origin)


def _validate_checks(pos: "Position", pushed: int, origin: int) -> None:
    """Checks on the side to move that no last move could have given (``pushed`` >= 0: the pawn
    that the en passant square says just moved two squares from ``origin``)."""
    name = COLOR_NAMES[pos.turn]
    checkers = pos.checkers()
    count = checkers.bit_count()
    if count > 2:
        raise FenError(f"{name} is in check from {count} pieces; no move gives more than a double check")
    if count == 2:
        ksq = pos.king[pos.turn]
        first, second = (checkers & -checkers).bit_length() - 1, checkers.bit_length() - 1
        sliders = pos.bb_piece[BISHOP] | pos.bb_piece[ROOK] | pos.bb_piece[QUEEN]
        # A double check is a move that checks and uncovers a slider's check on another line.
        if not checkers & sliders or LINE[first][second] & (1 << ksq):
            raise FenError(f"{name} is in double check from {SQUARE_NAMES[first]} and {SQUARE_NAMES[second]}, "
                           f"which no move can give")
    if count and pushed >= 0:
        before = (pos.occupied & ~(1 << pushed)) | (1 << origin)
        if count > 1 or (checkers != 1 << pushed and pos.attackers(pos.turn ^ 1, pos.king[pos.turn], before)):
            raise FenError(f"{name} is in check, which the pawn move past {SQUARE_NAMES[pos.ep]} "
                           f"cannot have given")


def _looks_960(pos: "Position", color: int, ksq: int, rsq: int) -> bool:
    """A standard right that fails as a Chess960 one would not: the king on its first rank off
    e1/e8, or a rook of that colour between the king and the empty corner."""
    king = pos.king[color]
    if king < 0 or king >> 3 != ksq >> 3:
        return False
    if king != ksq:
        return True
    lo, hi = sorted((king, rsq))
    return any(pos.board[sq] == (ROOK | color << 3) for sq in range(lo + 1, hi))


def dump_fen(pos: "Position", *, shredder: bool = False) -> str:
    """The FEN of ``pos``; the en passant square is written only when the capture is legal."""
    rows = []
    for rank in range(7, -1, -1):
        row, empty = "", 0
        for file in range(8):
            code = pos.board[file + 8 * rank]
            if not code:
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            symbol = PIECE_SYMBOLS[code & 7]
            row += symbol.upper() if code >> 3 == WHITE else symbol
        if empty:
            row += str(empty)
        rows.append(row)
    if pos.chess960:
        castling = _castling_960(pos, shredder)
    else:
        castling = "".join(letter for letter, (bit, *_rest) in _CASTLE_NEEDS.items() if pos.castling & bit) or "-"
    ep = SQUARE_NAMES[pos.ep] if pos.has_legal_en_passant() else "-"
    side = "w" if pos.turn == WHITE else "b"
    return f"{'/'.join(rows)} {side} {castling} {ep} {pos.halfmove_clock} {pos.fullmove_number}"


__all__ = ["FenError", "load_fen", "dump_fen", "validate", "FILE_NAMES"]
