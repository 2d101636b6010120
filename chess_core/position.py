"""A chess position: placement, side to move, castling, en passant; legal moves, make and unmake."""
from __future__ import annotations

from typing import Any, Callable, Iterable

from .fen import dump_fen, load_fen
from .move import (FLAG_CASTLE, FLAG_DOUBLE_PUSH, FLAG_EN_PASSANT, NULL_CODE, NULL_MOVE, IllegalMoveError,
                   Move, decode)
from .piece import Piece
from .squares import (ANTI_ATTACKS, ANTI_MASKS, BB_DARK_SQUARES, BB_FILE_A, BB_FILE_H, BB_LIGHT_SQUARES,
                      BB_RANKS, BETWEEN, BISHOP, BISHOP_PSEUDO, BLACK, DIAG_ATTACKS, DIAG_MASKS,
                      FILE_ATTACKS, FILE_MASKS, KING, KING_ATTACKS, KNIGHT, KNIGHT_ATTACKS, LINE, PAWN,
                      PAWN_ATTACKS, QUEEN, RANK_ATTACKS, RANK_MASKS, ROOK, ROOK_PSEUDO,
                      WHITE)

STARTING_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

# Castling rights as bits.
CASTLE_WK, CASTLE_WQ, CASTLE_BK, CASTLE_BQ = 1, 2, 4, 8
CASTLING_LETTERS = ((CASTLE_WK, "K"), (CASTLE_WQ, "Q"), (CASTLE_BK, "k"), (CASTLE_BQ, "q"))
# Rights kept when a piece leaves or lands on a square (a king or rook moves, a rook is taken).
CASTLE_KEEP = [15] * 64
CASTLE_KEEP[4] = 15 & ~(CASTLE_WK | CASTLE_WQ)
CASTLE_KEEP[7] = 15 & ~CASTLE_WK
CASTLE_KEEP[0] = 15 & ~CASTLE_WQ
CASTLE_KEEP[60] = 15 & ~(CASTLE_BK | CASTLE_BQ)
CASTLE_KEEP[63] = 15 & ~CASTLE_BK
CASTLE_KEEP[56] = 15 & ~CASTLE_BQ
# King destination -> (rook from, rook to).
_CASTLE_ROOK = {6: (7, 5), 2: (0, 3), 62: (63, 61), 58: (56, 59)}
# The rook of each right (K, Q, k, q) in standard chess; Chess960 positions keep their own.
STANDARD_CASTLE_ROOKS = (7, 0, 63, 56)
# Codes at or above this are castling (FLAG_CASTLE is the highest flag). In standard chess the
# code goes from the king to its destination (e1g1); in Chess960 from the king to its rook (e1h1).
_CASTLE_CODE = FLAG_CASTLE << 15
assert _CASTLE_CODE == 0x18000

_RANK_1, _RANK_2, _RANK_3, _RANK_6, _RANK_7, _RANK_8 = (BB_RANKS[i] for i in (0, 1, 2, 5, 6, 7))
_NOT_A, _NOT_H = ~BB_FILE_A, ~BB_FILE_H
_PROMOS = (QUEEN << 12, ROOK << 12, BISHOP << 12, KNIGHT << 12)


def _pinned(ksq: int, own: int, occ: int, rq: int, bq: int) -> int:
    """Our pieces pinned to our king on ``ksq``: each alone between it and an enemy slider
    (``rq`` rooks and queens, ``bq`` bishops and queens)."""
    pinned = 0
    snipers = (ROOK_PSEUDO[ksq] & rq) | (BISHOP_PSEUDO[ksq] & bq)
    while snipers:
        b = snipers & -snipers
        snipers ^= b
        between = BETWEEN[ksq][b.bit_length() - 1] & occ
        if between and not between & (between - 1) and between & own:
            pinned |= between
    return pinned


class Position:
    """Placement and game state, with legal move generation and push/pop.

    >>> p = Position()
    >>> len(p.legal_moves())
    20
    >>> p.push(Move.from_uci("e2e4")); p.fen()
    'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1'
    """

    __slots__ = ("board", "bb_color", "bb_piece", "king", "turn", "castling", "ep", "halfmove_clock",
                 "fullmove_number", "_stack", "chess960", "castle_rooks", "castle_keep")

    # ``fen`` is a str or None; anything else is a FenError from load_fen (typed Any so that the
    # compiled build, which checks declared types itself, leaves that message to it).
    def __init__(self, fen: Any = STARTING_FEN, *, chess960: bool = False) -> None:
        self.board = [0] * 64  # piece code per square: type | colour << 3, 0 when empty
        self.bb_color = [0, 0]
        self.bb_piece = [0] * 7
        self.king = [-1, -1]
        self.turn = WHITE
        self.castling = 0
        self.ep = -1  # square behind a pawn that just moved two squares, -1 when none
        self.halfmove_clock = 0
        self.fullmove_number = 1
        self._stack: list[tuple[int, int, int, int, int]] = []  # code, captured, castling, ep, halfmove clock
        # Chess960 (Fischer random): castling follows the rook of each right, wherever it stands,
        # and castling moves are written king-takes-rook (e1h1), as UCI_Chess960 engines expect.
        self.chess960 = chess960
        self.castle_rooks = STANDARD_CASTLE_ROOKS  # rook square of each right (K, Q, k, q)
        self.castle_keep = CASTLE_KEEP  # rights kept when a piece leaves or lands on a square
        if fen is not None:
            load_fen(self, fen)

    @classmethod
    def from_fen(cls, fen: str, *, validate: bool = True, chess960: bool = False) -> "Position":
        """The position of ``fen``; ``validate=False`` skips the checks that the position could
        occur in a game (for composed problems), keeping the syntax checks."""
        if validate:
            return cls(fen, chess960=chess960)
        pos = cls(None, chess960=chess960)
        load_fen(pos, fen, validate_position=False)
        return pos

    @classmethod
    def empty(cls, *, chess960: bool = False) -> "Position":
        return cls(None, chess960=chess960)

    def fen(self, *, shredder: bool = False) -> str:
        """The FEN; a Chess960 position writes its castling rights in X-FEN (KQkq, a file letter
        only where another rook stands further out), or in Shredder-FEN (HAha) with ``shredder``."""
        return dump_fen(self, shredder=shredder)

    def copy(self, stack: bool = False) -> "Position":
        # Position(None), not Position.__new__: in the compiled build (make fast) __new__ took the
        # slow generic path, 29 us a copy against 0.65 (0.9 us in pure Python, 0.56 with __new__).
        other = Position(None)
        other.board = self.board[:]
        other.bb_color = self.bb_color[:]
        other.bb_piece = self.bb_piece[:]
        other.king = self.king[:]
        other.turn = self.turn
        other.castling = self.castling
        other.ep = self.ep
        other.halfmove_clock = self.halfmove_clock
        other.fullmove_number = self.fullmove_number
        other.chess960 = self.chess960
        other.castle_rooks = self.castle_rooks
        other.castle_keep = self.castle_keep
        other._stack = self._stack[:] if stack else []
        return other

    def __repr__(self) -> str:
        return f"Position({self.fen()!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Position) and self.fen() == other.fen()

    # Unhashable (mutable, compared by value): Python's own spelling, which mypy does not accept.
    __hash__ = None  # type: ignore[assignment]

    # -- placement ---------------------------------------------------------------------------

    @property
    def occupied(self) -> int:
        return self.bb_color[0] | self.bb_color[1]

    def occupied_by(self, color: int) -> int:
        return self.bb_color[color]

    def pieces(self, piece_type: int, color: int) -> int:
        return self.bb_piece[piece_type] & self.bb_color[color]

    def piece_at(self, sq: int) -> Piece | None:
        code = self.board[sq]
        return Piece(code & 7, code >> 3) if code else None

    def set_piece(self, sq: int, piece: Piece | None) -> None:
        """Put ``piece`` on ``sq`` (or clear it); for building positions, not for moves."""
        old = self.board[sq]
        bit = 1 << sq
        if old:
            self.bb_color[old >> 3] &= ~bit
            self.bb_piece[old & 7] &= ~bit
            self.board[sq] = 0
            if old & 7 == KING and self.king[old >> 3] == sq:
                self.king[old >> 3] = -1
        if piece is not None:
            self.board[sq] = piece.piece_type | piece.color << 3
            self.bb_color[piece.color] |= bit
            self.bb_piece[piece.piece_type] |= bit
            if piece.piece_type == KING:
                self.king[piece.color] = sq

    # -- attacks -----------------------------------------------------------------------------

    def attackers(self, color: int, sq: int, occupied: int | None = None) -> int:
        """Bitboard of the pieces of ``color`` that attack ``sq``."""
        occ = self.occupied if occupied is None else occupied
        bbp = self.bb_piece
        rq = bbp[ROOK] | bbp[QUEEN]
        bq = bbp[BISHOP] | bbp[QUEEN]
        att = ((KNIGHT_ATTACKS[sq] & bbp[KNIGHT]) | (KING_ATTACKS[sq] & bbp[KING])
               | (PAWN_ATTACKS[color ^ 1][sq] & bbp[PAWN])
               | ((RANK_ATTACKS[sq][occ & RANK_MASKS[sq]] | FILE_ATTACKS[sq][occ & FILE_MASKS[sq]]) & rq)
               | ((DIAG_ATTACKS[sq][occ & DIAG_MASKS[sq]] | ANTI_ATTACKS[sq][occ & ANTI_MASKS[sq]]) & bq))
        return att & self.bb_color[color]

    def _attacked(self, color: int, sq: int, occ: int) -> bool:
        bbp = self.bb_piece
        own = self.bb_color[color]
        if (KNIGHT_ATTACKS[sq] & bbp[KNIGHT] | KING_ATTACKS[sq] & bbp[KING]
                | PAWN_ATTACKS[color ^ 1][sq] & bbp[PAWN]) & own:
            return True
        rq = (bbp[ROOK] | bbp[QUEEN]) & own
        if rq & ROOK_PSEUDO[sq] and (RANK_ATTACKS[sq][occ & RANK_MASKS[sq]]
                                     | FILE_ATTACKS[sq][occ & FILE_MASKS[sq]]) & rq:
            return True
        bq = (bbp[BISHOP] | bbp[QUEEN]) & own
        return bool(bq & BISHOP_PSEUDO[sq] and (DIAG_ATTACKS[sq][occ & DIAG_MASKS[sq]]
                                                | ANTI_ATTACKS[sq][occ & ANTI_MASKS[sq]]) & bq)

    def is_attacked_by(self, color: int, sq: int) -> bool:
        return self._attacked(color, sq, self.occupied)

    def checkers(self) -> int:
        ksq = self.king[self.turn]
        return self.attackers(self.turn ^ 1, ksq) if ksq >= 0 else 0

    def is_check(self) -> bool:
        ksq = self.king[self.turn]
        return ksq >= 0 and self._attacked(self.turn ^ 1, ksq, self.occupied)

    def _king_exposed(self, color: int) -> bool:
        ksq = self.king[color]
        return ksq >= 0 and self._attacked(color ^ 1, ksq, self.bb_color[0] | self.bb_color[1])

    # -- move generation ---------------------------------------------------------------------

    def _king_steps(self, ksq: int, us: int, own: int, opp: int, occ: int, rq: int, bq: int) -> int:
        """The squares the king on ``ksq`` may step to: not its own pieces', not attacked. The enemy
        king, pawns and knights are taken in bulk; the sliders (``rq``, ``bq``) square by square, with
        our king off the board (it must not hide behind itself on the line of a check)."""
        bbp = self.bb_piece
        t = KING_ATTACKS[ksq] & ~own
        if not t:
            return 0
        eksq = self.king[us ^ 1]
        if eksq >= 0:
            t &= ~KING_ATTACKS[eksq]
        epawns = bbp[PAWN] & opp
        if us == WHITE:
            t &= ~(((epawns & _NOT_A) >> 9) | ((epawns & _NOT_H) >> 7))
        else:
            t &= ~(((epawns & _NOT_A) << 7) | ((epawns & _NOT_H) << 9))
        knights = bbp[KNIGHT] & opp
        while knights and t:
            b = knights & -knights
            knights ^= b
            t &= ~KNIGHT_ATTACKS[b.bit_length() - 1]
        occ_noking = occ ^ (1 << ksq)
        safe = 0
        while t:
            b = t & -t
            t ^= b
            to = b.bit_length() - 1
            if rq & ROOK_PSEUDO[to] and (RANK_ATTACKS[to][occ_noking & RANK_MASKS[to]]
                                         | FILE_ATTACKS[to][occ_noking & FILE_MASKS[to]]) & rq:
                continue
            if bq & BISHOP_PSEUDO[to] and (DIAG_ATTACKS[to][occ_noking & DIAG_MASKS[to]]
                                           | ANTI_ATTACKS[to][occ_noking & ANTI_MASKS[to]]) & bq:
                continue
            safe |= b
        return safe

    def legal_codes(self) -> list[int]:
        """Every legal move as an internal int code (see chess_core.move)."""
        us = self.turn
        them = us ^ 1
        bbc = self.bb_color
        bbp = self.bb_piece
        own = bbc[us]
        opp = bbc[them]
        occ = own | opp
        ksq = self.king[us]
        moves: list[int] = []
        append = moves.append
        if ksq < 0:
            return moves
        rq = (bbp[ROOK] | bbp[QUEEN]) & opp
        bq = (bbp[BISHOP] | bbp[QUEEN]) & opp

        # King steps. Squares the enemy king, pawns and knights attack go first, in bulk; the
        # sliders are asked square by square, with our king taken off the board (it must not
        # hide behind itself on the line of a check).
        t = self._king_steps(ksq, us, own, opp, occ, rq, bq)
        while t:
            b = t & -t
            t ^= b
            append(ksq | (b.bit_length() - 1) << 6)

        checkers = (((KNIGHT_ATTACKS[ksq] & bbp[KNIGHT]) | (PAWN_ATTACKS[us][ksq] & bbp[PAWN])) & opp
                    | (RANK_ATTACKS[ksq][occ & RANK_MASKS[ksq]] | FILE_ATTACKS[ksq][occ & FILE_MASKS[ksq]]) & rq
                    | (DIAG_ATTACKS[ksq][occ & DIAG_MASKS[ksq]] | ANTI_ATTACKS[ksq][occ & ANTI_MASKS[ksq]]) & bq)
        if checkers:
            if checkers & (checkers - 1):
                if self.ep >= 0:
                    self._gen_en_passant(us, append)
                return moves  # double check: only the king may move
            csq = checkers.bit_length() - 1
            target = BETWEEN[ksq][csq] | checkers
        else:
            target = ~own & 0xFFFFFFFFFFFFFFFF
            self._gen_castling(us, them, occ, append)

        pinned = _pinned(ksq, own, occ, rq, bq)   # own pieces alone between the king and an enemy slider
        line = LINE[ksq]

        # Knights (a pinned knight never moves).
        pieces = bbp[KNIGHT] & own & ~pinned
        while pieces:
            b = pieces & -pieces
            pieces ^= b
            frm = b.bit_length() - 1
            t = KNIGHT_ATTACKS[frm] & target
            while t:
                tb = t & -t
                t ^= tb
                append(frm | (tb.bit_length() - 1) << 6)

        # Sliders.
        pieces = (bbp[BISHOP] | bbp[ROOK] | bbp[QUEEN]) & own
        board = self.board
        while pieces:
            b = pieces & -pieces
            pieces ^= b
            frm = b.bit_length() - 1
            kind = board[frm] & 7
            if kind == BISHOP:
                t = DIAG_ATTACKS[frm][occ & DIAG_MASKS[frm]] | ANTI_ATTACKS[frm][occ & ANTI_MASKS[frm]]
            elif kind == ROOK:
                t = RANK_ATTACKS[frm][occ & RANK_MASKS[frm]] | FILE_ATTACKS[frm][occ & FILE_MASKS[frm]]
            else:
                t = (DIAG_ATTACKS[frm][occ & DIAG_MASKS[frm]] | ANTI_ATTACKS[frm][occ & ANTI_MASKS[frm]]
                     | RANK_ATTACKS[frm][occ & RANK_MASKS[frm]] | FILE_ATTACKS[frm][occ & FILE_MASKS[frm]])
            t &= target
            if b & pinned:
                t &= line[frm]
            while t:
                tb = t & -t
                t ^= tb
                append(frm | (tb.bit_length() - 1) << 6)

        self._gen_pawns(us, own, opp, occ, target, pinned, line, append)
        if self.ep >= 0:
            self._gen_en_passant(us, append)
        return moves

    def count_legal(self) -> int:
        """len(self.legal_codes()), counted from the target bitboards without listing the moves
        (perft's bulk counting); the rare cases (en passant, castling, pinned pawns) are listed."""
        us = self.turn
        them = us ^ 1
        bbc = self.bb_color
        bbp = self.bb_piece
        own = bbc[us]
        opp = bbc[them]
        occ = own | opp
        ksq = self.king[us]
        if ksq < 0:
            return 0
        rq = (bbp[ROOK] | bbp[QUEEN]) & opp
        bq = (bbp[BISHOP] | bbp[QUEEN]) & opp
        found: list[int] = []
        count = self._king_steps(ksq, us, own, opp, occ, rq, bq).bit_count()
        checkers = (((KNIGHT_ATTACKS[ksq] & bbp[KNIGHT]) | (PAWN_ATTACKS[us][ksq] & bbp[PAWN])) & opp
                    | (RANK_ATTACKS[ksq][occ & RANK_MASKS[ksq]] | FILE_ATTACKS[ksq][occ & FILE_MASKS[ksq]]) & rq
                    | (DIAG_ATTACKS[ksq][occ & DIAG_MASKS[ksq]] | ANTI_ATTACKS[ksq][occ & ANTI_MASKS[ksq]]) & bq)
        if checkers:
            if checkers & (checkers - 1):
                if self.ep >= 0:
                    self._gen_en_passant(us, found.append)
                return count + len(found)
            target = BETWEEN[ksq][checkers.bit_length() - 1] | checkers
        else:
            target = ~own & 0xFFFFFFFFFFFFFFFF
            self._gen_castling(us, them, occ, found.append)
        pinned = _pinned(ksq, own, occ, rq, bq)
        line = LINE[ksq]
        pieces = bbp[KNIGHT] & own & ~pinned
        while pieces:
            b = pieces & -pieces
            pieces ^= b
            count += (KNIGHT_ATTACKS[b.bit_length() - 1] & target).bit_count()
        pieces = (bbp[BISHOP] | bbp[QUEEN]) & own
        while pieces:
            b = pieces & -pieces
            pieces ^= b
            frm = b.bit_length() - 1
            t = (DIAG_ATTACKS[frm][occ & DIAG_MASKS[frm]] | ANTI_ATTACKS[frm][occ & ANTI_MASKS[frm]]) & target
            count += (t & line[frm] if b & pinned else t).bit_count()
        pieces = (bbp[ROOK] | bbp[QUEEN]) & own
        while pieces:
            b = pieces & -pieces
            pieces ^= b
            frm = b.bit_length() - 1
            t = (RANK_ATTACKS[frm][occ & RANK_MASKS[frm]] | FILE_ATTACKS[frm][occ & FILE_MASKS[frm]]) & target
            count += (t & line[frm] if b & pinned else t).bit_count()
        pawns = bbp[PAWN] & own
        free = pawns & ~pinned
        empty = ~occ & 0xFFFFFFFFFFFFFFFF
        if us == WHITE:
            single = (free << 8) & empty
            double = ((single & _RANK_3) << 8) & empty & target
            hits = (single & target, ((free & _NOT_A) << 7) & opp & target, ((free & _NOT_H) << 9) & opp & target)
            last = _RANK_8
        else:
            single = (free >> 8) & empty
            double = ((single & _RANK_6) >> 8) & empty & target
            hits = (single & target, ((free & _NOT_A) >> 9) & opp & target, ((free & _NOT_H) >> 7) & opp & target)
            last = _RANK_1
        count += double.bit_count()
        for t in hits:
            count += t.bit_count() + 3 * (t & last).bit_count()
        if pawns & pinned:
            self._gen_pawns(us, own, opp, occ, target, pinned, line, found.append, pinned_only=True)
        if self.ep >= 0:
            self._gen_en_passant(us, found.append)
        return count + len(found)

    def _gen_pawns(self, us: int, own: int, opp: int, occ: int, target: int, pinned: int, line: list[int],
                   append: Callable[[int], None], pinned_only: bool = False) -> None:
        pawns = self.bb_piece[PAWN] & own
        empty = ~occ & 0xFFFFFFFFFFFFFFFF
        free = 0 if pinned_only else pawns & ~pinned
        if us == WHITE:
            single = (free << 8) & empty
            double = ((single & _RANK_3) << 8) & empty & target
            single &= target
            left = ((free & _NOT_A) << 7) & opp & target
            right = ((free & _NOT_H) << 9) & opp & target
            d1, d2, dl, dr, last = 8, 16, 7, 9, _RANK_8
        else:
            single = (free >> 8) & empty
            double = ((single & _RANK_6) >> 8) & empty & target
            single &= target
            left = ((free & _NOT_A) >> 9) & opp & target
            right = ((free & _NOT_H) >> 7) & opp & target
            d1, d2, dl, dr, last = -8, -16, -9, -7, _RANK_1
        for t, delta in ((single, d1), (left, dl), (right, dr)):
            promo = t & last
            t ^= promo
            while t:
                b = t & -t
                t ^= b
                to = b.bit_length() - 1
                append((to - delta) | to << 6)
            while promo:
                b = promo & -promo
                promo ^= b
                to = b.bit_length() - 1
                base = (to - delta) | to << 6
                for p in _PROMOS:
                    append(base | p)
        while double:
            b = double & -double
            double ^= b
            to = b.bit_length() - 1
            append((to - d2) | to << 6 | FLAG_DOUBLE_PUSH << 15)
        # Pinned pawns move only along the line through their king.
        pieces = pawns & pinned
        while pieces:
            b = pieces & -pieces
            pieces ^= b
            frm = b.bit_length() - 1
            t = (PAWN_ATTACKS[us][frm] & opp)
            one = frm + d1
            if empty >> one & 1:
                t |= 1 << one
                if (b & (_RANK_2 if us == WHITE else _RANK_7)) and empty >> (one + d1) & 1:
                    if (1 << (one + d1)) & target & line[frm]:
                        append(frm | (one + d1) << 6 | FLAG_DOUBLE_PUSH << 15)
            t &= target & line[frm]
            while t:
                tb = t & -t
                t ^= tb
                to = tb.bit_length() - 1
                if tb & last:
                    for p in _PROMOS:
                        append(frm | to << 6 | p)
                else:
                    append(frm | to << 6)

    def _gen_en_passant(self, us: int, append: Callable[[int], None]) -> None:
        ep = self.ep
        capturers = PAWN_ATTACKS[us ^ 1][ep] & self.bb_piece[PAWN] & self.bb_color[us]
        if capturers:
            # An en passant square set by hand must still have the pawn that passed it (FEN checks).
            passed = ep - 8 if us == WHITE else ep + 8
            board = self.board
            if ep >> 3 != (5 if us == WHITE else 2) or board[ep] or board[passed] != PAWN | (us ^ 1) << 3:
                return
        while capturers:
            b = capturers & -capturers
            capturers ^= b
            code = (b.bit_length() - 1) | ep << 6 | FLAG_EN_PASSANT << 15
            # Rare and subtle (discovered checks along the rank): decide by playing it.
            self.make(code)
            exposed = self._king_exposed(us)
            self.unmake()
            if not exposed:
                append(code)

    def _gen_castling(self, us: int, them: int, occ: int, append: Callable[[int], None]) -> None:
        rights = self.castling
        if not rights:
            return
        if self.chess960:
            self._gen_castling960(us, them, occ, append)
            return
        attacked = self._attacked
        rooks = self.bb_piece[ROOK] & self.bb_color[us]
        # The rook and king presence tests matter only for rights set by hand (FEN checks them).
        if us == WHITE:
            if self.king[WHITE] != 4:
                return
            if (rights & CASTLE_WK and rooks & 0x80 and not occ & 0x60
                    and not attacked(them, 5, occ) and not attacked(them, 6, occ)):
                append(4 | 6 << 6 | FLAG_CASTLE << 15)
            if (rights & CASTLE_WQ and rooks & 0x01 and not occ & 0x0E
                    and not attacked(them, 3, occ) and not attacked(them, 2, occ)):
                append(4 | 2 << 6 | FLAG_CASTLE << 15)
        else:
            if self.king[BLACK] != 60:
                return
            if (rights & CASTLE_BK and rooks & (0x80 << 56) and not occ & (0x60 << 56)
                    and not attacked(them, 61, occ) and not attacked(them, 62, occ)):
                append(60 | 62 << 6 | FLAG_CASTLE << 15)
            if (rights & CASTLE_BQ and rooks & (0x01 << 56) and not occ & (0x0E << 56)
                    and not attacked(them, 59, occ) and not attacked(them, 58, occ)):
                append(60 | 58 << 6 | FLAG_CASTLE << 15)

    def _gen_castling960(self, us: int, them: int, occ: int, append: Callable[[int], None]) -> None:
        """Castling with the rook of each right: the king goes to the g or c file and the rook to
        f or d, whatever stands between them apart from these two; no square the king crosses or
        reaches may be attacked (the king is not in check: the caller knows)."""
        ksq = self.king[us]
        base = 0 if us == WHITE else 56
        if ksq & 56 != base:
            return
        board = self.board
        attacked = self._attacked
        kb = 1 << ksq
        for bit, rsq in ((CASTLE_WK, self.castle_rooks[0]), (CASTLE_WQ, self.castle_rooks[1])) if us == WHITE \
                else ((CASTLE_BK, self.castle_rooks[2]), (CASTLE_BQ, self.castle_rooks[3])):
            if not self.castling & bit or board[rsq] != ROOK | us << 3:
                continue
            if rsq > ksq:
                kto, rto = base + 6, base + 5
            else:
                kto, rto = base + 2, base + 3
            rb = 1 << rsq
            crossed = BETWEEN[ksq][kto]
            if (occ ^ kb ^ rb) & (crossed | BETWEEN[rsq][rto] | 1 << kto | 1 << rto):
                continue
            safe = True
            while crossed:
                b = crossed & -crossed
                crossed ^= b
                if attacked(them, b.bit_length() - 1, occ ^ kb):
                    safe = False
                    break
            if safe and not attacked(them, kto, occ ^ kb ^ rb ^ 1 << rto):
                append(ksq | rsq << 6 | FLAG_CASTLE << 15)

    def castling_squares(self, move: Move) -> tuple[int, int, int, int]:
        """(king from, king to, rook from, rook to) of a castling ``move`` in this position."""
        return self._castle_squares(move.from_square | move.to_square << 6)

    def _castle_squares(self, code: int) -> tuple[int, int, int, int]:
        kfrm = code & 63
        to = (code >> 6) & 63
        if not self.chess960:
            return (kfrm, to) + _CASTLE_ROOK[to]
        base = kfrm & 56
        if to > kfrm:
            return kfrm, base + 6, to, base + 5
        return kfrm, base + 2, to, base + 3

    def _make_castle(self, code: int) -> None:
        kfrm, kto, rfrm, rto = self._castle_squares(code)
        us = self.turn
        self._stack.append((code, 0, self.castling, self.ep, self.halfmove_clock))
        self._move_castlers(us, kfrm, kto, rfrm, rto)
        self.halfmove_clock += 1
        self.ep = -1
        self.castling &= self.castle_keep[kfrm]
        if us == BLACK:
            self.fullmove_number += 1
        self.turn = us ^ 1

    def _move_castlers(self, us: int, kfrm: int, kto: int, rfrm: int, rto: int) -> None:
        """King and rook from their squares to their others (which may be each other's)."""
        board = self.board
        king, rook = board[kfrm], board[rfrm]
        board[kfrm] = board[rfrm] = 0
        board[kto], board[rto] = king, rook
        kb = (1 << kfrm) ^ (1 << kto)
        rb = (1 << rfrm) ^ (1 << rto)
        self.bb_color[us] ^= kb ^ rb
        self.bb_piece[KING] ^= kb
        self.bb_piece[ROOK] ^= rb
        self.king[us] = kto

    # -- make / unmake -----------------------------------------------------------------------

    def make(self, code: int) -> None:
        """Play a move given as an internal code; no legality check (see push)."""
        if code >= 0x18000:  # _CASTLE_CODE, as a constant: this is the hot path
            self._make_castle(code)
            return
        board = self.board
        bbc = self.bb_color
        bbp = self.bb_piece
        frm = code & 63
        to = (code >> 6) & 63
        us = self.turn
        piece = board[frm]
        captured = board[to]
        self._stack.append((code, captured, self.castling, self.ep, self.halfmove_clock))
        bto = 1 << to
        moved = (1 << frm) | bto
        kind = piece & 7
        if captured:
            bbc[us ^ 1] ^= bto
            bbp[captured & 7] ^= bto
            self.halfmove_clock = 0
        elif kind == PAWN:
            self.halfmove_clock = 0
        else:
            self.halfmove_clock += 1
        bbc[us] ^= moved
        board[frm] = 0
        self.ep = -1
        if code < 4096:  # no promotion, no flag: the common case
            bbp[kind] ^= moved
            board[to] = piece
            if kind == KING:
                self.king[us] = to
        else:
            promo = (code >> 12) & 7
            flag = code >> 15
            if promo:
                bbp[PAWN] ^= 1 << frm
                bbp[promo] ^= bto
                board[to] = promo | us << 3
            else:
                bbp[kind] ^= moved
                board[to] = piece
            if flag == FLAG_DOUBLE_PUSH:
                self.ep = (frm + to) >> 1
            elif flag == FLAG_EN_PASSANT:
                cb = 1 << (to - 8 if us == WHITE else to + 8)
                bbc[us ^ 1] ^= cb
                bbp[PAWN] ^= cb
                board[to - 8 if us == WHITE else to + 8] = 0
        if self.castling:
            keep = self.castle_keep
            self.castling &= keep[frm] & keep[to]
        if us == BLACK:
            self.fullmove_number += 1
        self.turn = us ^ 1

    def unmake(self) -> int:
        """Take back the last move made; returns its code."""
        code, captured, self.castling, self.ep, self.halfmove_clock = self._stack.pop()
        board = self.board
        bbc = self.bb_color
        bbp = self.bb_piece
        frm = code & 63
        to = (code >> 6) & 63
        us = self.turn ^ 1
        self.turn = us
        if us == BLACK:
            self.fullmove_number -= 1
        if code >= 0x18000:  # _CASTLE_CODE
            kfrm, kto, rfrm, rto = self._castle_squares(code)
            self._move_castlers(us, kto, kfrm, rto, rfrm)
            return code
        bto = 1 << to
        moved = (1 << frm) | bto
        piece = board[to]
        bbc[us] ^= moved
        board[to] = captured
        if code < 4096:  # no promotion, no flag
            bbp[piece & 7] ^= moved
            board[frm] = piece
            if captured:  # after the mover has left: it may be of the same type
                bbc[us ^ 1] |= bto
                bbp[captured & 7] |= bto
            if piece & 7 == KING:
                self.king[us] = frm
            return code
        promo = (code >> 12) & 7
        flag = code >> 15
        if promo:
            bbp[promo] ^= bto
            bbp[PAWN] ^= 1 << frm
            board[frm] = PAWN | us << 3
        else:
            bbp[piece & 7] ^= moved
            board[frm] = piece
        if captured:
            bbc[us ^ 1] |= bto
            bbp[captured & 7] |= bto
        if flag == FLAG_EN_PASSANT:
            cap = to - 8 if us == WHITE else to + 8
            cb = 1 << cap
            bbc[us ^ 1] |= cb
            bbp[PAWN] |= cb
            board[cap] = PAWN | (us ^ 1) << 3
        return code

    # -- public move API ---------------------------------------------------------------------

    def legal_moves(self) -> list[Move]:
        return [decode(c) for c in self.legal_codes()]

    def code_of(self, move: Move) -> int:
        """The internal code of a legal move; IllegalMoveError otherwise."""
        code = self._make_legal(move)
        self.unmake()
        return code

    def _code_among(self, codes: list[int], move: Move) -> int:
        wanted = move.from_square | move.to_square << 6 | (move.promotion or 0) << 12
        for code in codes:
            if code & 0x7FFF == wanted:  # the flag bits (15 and up) are the generator's own
                return code
        raise IllegalMoveError(f"illegal move {move.uci()} in {self.fen()}")

    def _make_legal(self, move: Move) -> int:
        """Make ``move`` if it is legal and return its code; IllegalMoveError (nothing made) if not.

        Ordinary moves are checked on their own: the piece can go there (pseudo-legal), and after
        making it the mover's king is not attacked. Castling, en passant and king moves while
        castling rights remain are looked up among the generated legal moves (rare, and subtle).
        """
        frm, to, promo = move
        board = self.board
        us = self.turn
        if frm >> 6 or to >> 6 or self.king[us] < 0:
            raise IllegalMoveError(f"illegal move {move.uci()} in {self.fen()}")
        piece = board[frm]
        kind = piece & 7
        target = board[to]
        if not piece or piece >> 3 != us or (target and target >> 3 == us):
            if kind == KING and target and target >> 3 == us:
                return self._make_generated(move)  # a king taking its own rook: castling notations
            raise IllegalMoveError(f"illegal move {move.uci()} in {self.fen()}")
        code = frm | to << 6
        if kind == PAWN:
            if to == self.ep and (frm ^ to) & 7:
                return self._make_generated(move)
            step = 8 if us == WHITE else -8
            if not (frm ^ to) & 7:  # a push
                if target:
                    raise IllegalMoveError(f"illegal move {move.uci()} in {self.fen()}")
                if to != frm + step:
                    if (to != frm + 2 * step or frm >> 3 != (1 if us == WHITE else 6)
                            or board[frm + step]):
                        raise IllegalMoveError(f"illegal move {move.uci()} in {self.fen()}")
                    code |= FLAG_DOUBLE_PUSH << 15
            elif not (target and PAWN_ATTACKS[us][frm] >> to & 1):
                raise IllegalMoveError(f"illegal move {move.uci()} in {self.fen()}")
            if to >> 3 == (7 if us == WHITE else 0):
                if not promo or not KNIGHT <= promo <= QUEEN:
                    raise IllegalMoveError(f"illegal move {move.uci()} in {self.fen()}")
                code |= promo << 12
            elif promo:
                raise IllegalMoveError(f"illegal move {move.uci()} in {self.fen()}")
        else:
            if promo:
                raise IllegalMoveError(f"illegal move {move.uci()} in {self.fen()}")
            if kind == KNIGHT:
                reach = KNIGHT_ATTACKS[frm]
            elif kind == KING:
                if self.castling & (3 if us == WHITE else 12):
                    return self._make_generated(move)
                reach = KING_ATTACKS[frm]
            else:
                occ = self.bb_color[0] | self.bb_color[1]
                reach = 0
                if kind != BISHOP:
                    reach = RANK_ATTACKS[frm][occ & RANK_MASKS[frm]] | FILE_ATTACKS[frm][occ & FILE_MASKS[frm]]
                if kind != ROOK:
                    reach |= DIAG_ATTACKS[frm][occ & DIAG_MASKS[frm]] | ANTI_ATTACKS[frm][occ & ANTI_MASKS[frm]]
            if not reach >> to & 1:
                raise IllegalMoveError(f"illegal move {move.uci()} in {self.fen()}")
        self.make(code)
        if self._king_exposed(us):
            self.unmake()
            raise IllegalMoveError(f"illegal move {move.uci()} in {self.fen()}")
        return code

    def _make_generated(self, move: Move) -> int:
        code = self._code_among(self.legal_codes(), move)
        self.make(code)
        return code

    def is_legal(self, move: Move) -> bool:
        try:
            self._make_legal(move)
        except IllegalMoveError:
            return False
        self.unmake()
        return True

    def push(self, move: Move) -> None:
        """Play a legal move; IllegalMoveError (the position unchanged) for any other."""
        if move == NULL_MOVE:
            self.push_null()
            return
        self._make_legal(move)

    def push_null(self) -> None:
        """Pass the move to the other side (a null move, ``--`` in PGN analysis); pop takes it back."""
        self._stack.append((NULL_CODE, 0, self.castling, self.ep, self.halfmove_clock))
        self.ep = -1
        self.halfmove_clock += 1
        if self.turn == BLACK:
            self.fullmove_number += 1
        self.turn ^= 1

    def pop(self) -> Move:
        if self._stack and self._stack[-1][0] == NULL_CODE:
            _, _, self.castling, self.ep, self.halfmove_clock = self._stack.pop()
            self.turn ^= 1
            if self.turn == BLACK:
                self.fullmove_number -= 1
            return NULL_MOVE
        return decode(self.unmake())

    def move_stack(self) -> list[Move]:
        return [decode(entry[0]) for entry in self._stack]

    def is_castling(self, move: Move) -> bool:
        """Whether ``move`` (legal, or at least the mover's) castles: two files in standard chess,
        king takes own rook in Chess960."""
        if self.board[move.from_square] & 7 != KING:
            return False
        if self.chess960:
            return self.board[move.to_square] == ROOK | self.turn << 3
        return abs((move.from_square & 7) - (move.to_square & 7)) == 2

    def is_en_passant(self, move: Move) -> bool:
        return (move.to_square == self.ep and self.board[move.from_square] & 7 == PAWN
                and (move.from_square & 7) != (move.to_square & 7))

    def is_capture(self, move: Move) -> bool:
        target = self.board[move.to_square]
        return (bool(target) and target >> 3 != self.turn) or self.is_en_passant(move)

    def gives_check(self, move: Move) -> bool:
        self._make_legal(move)
        try:
            return self.is_check()
        finally:
            self.unmake()

    # -- game end in this position -----------------------------------------------------------

    def has_legal_move(self) -> bool:
        return bool(self.legal_codes())

    def is_checkmate(self) -> bool:
        return self.is_check() and not self.legal_codes()

    def is_stalemate(self) -> bool:
        return not self.is_check() and not self.legal_codes()

    def is_insufficient_material(self) -> bool:
        """K v K, K+B v K, K+N v K, and any number of bishops all on squares of one colour."""
        bbp = self.bb_piece
        if bbp[PAWN] | bbp[ROOK] | bbp[QUEEN]:
            return False
        minors = bbp[KNIGHT] | bbp[BISHOP]
        if not minors & (minors - 1):
            return True
        if bbp[KNIGHT]:
            return False
        bishops = bbp[BISHOP]
        return not bishops & BB_DARK_SQUARES or not bishops & BB_LIGHT_SQUARES

    def has_legal_en_passant(self) -> bool:
        if self.ep < 0:
            return False
        found: list[int] = []
        self._gen_en_passant(self.turn, found.append)
        return bool(found)

    def repetition_key(self) -> tuple[int, ...]:
        """Equal for positions that FIDE 9.2.3 counts as the same (placement, turn, rights, e.p.)."""
        bbc, bbp = self.bb_color, self.bb_piece
        return (bbc[0], bbc[1], bbp[1], bbp[2], bbp[3], bbp[4], bbp[5], bbp[6], self.turn, self.castling,
                self.ep if self.has_legal_en_passant() else -1)

    def placement(self) -> Iterable[tuple[int, Piece]]:
        for sq in range(64):
            code = self.board[sq]
            if code:
                yield sq, Piece(code & 7, code >> 3)
