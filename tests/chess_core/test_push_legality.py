"""Position.push / is_legal accept exactly the legal moves (checked on their own, not by generating
every move) and leave the position untouched when they refuse one; python-chess is the oracle."""
from __future__ import annotations

import random

import pytest

chess = pytest.importorskip("chess")

from chess_core import IllegalMoveError, Move, Position, san  # noqa: E402
from tests.chess_core.test_differential import START_FENS  # noqa: E402

PROMOTIONS = (None, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN, chess.KING, chess.PAWN)


def candidates(board: "chess.Board"):
    """Every move of a piece of the side to move to any other square, with any promotion letter
    for pawns reaching the last rank and a stray one now and then."""
    for frm in chess.SquareSet(board.occupied_co[board.turn]):
        pawn = board.piece_type_at(frm) == chess.PAWN
        for to in range(64):
            if to == frm:
                continue
            last = chess.square_rank(to) in (0, 7)
            for promo in PROMOTIONS if pawn and last else (None, chess.QUEEN) if to % 9 == 0 else (None,):
                yield frm, to, promo


@pytest.mark.parametrize("fen", START_FENS)
def test_push_accepts_exactly_the_legal_moves(fen):
    rng = random.Random(fen)
    board, pos = chess.Board(fen), Position(fen)
    for _ply in range(12):
        if board.is_game_over():
            break
        legal = {(m.from_square, m.to_square, m.promotion) for m in board.legal_moves}
        before = pos.fen()
        assert pos.count_legal() == len(legal), before  # perft's bulk count
        for frm, to, promo in candidates(board):
            move = Move(frm, to, promo)
            assert pos.is_legal(move) == ((frm, to, promo) in legal), (before, move)
            if (frm, to, promo) not in legal:
                with pytest.raises(IllegalMoveError):
                    pos.push(move)
            else:
                pos.push(move)
                board.push(chess.Move(frm, to, promo))
                assert pos.fen() == board.fen()
                board.pop()
                pos.pop()
            assert pos.fen() == before
        for m in board.legal_moves:
            assert san(pos, Move(m.from_square, m.to_square, m.promotion)) == board.san(m), (before, m)
        choice = rng.choice(list(board.legal_moves))
        board.push(choice)
        pos.push(Move(choice.from_square, choice.to_square, choice.promotion))
