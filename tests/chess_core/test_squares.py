"""The attack tables (keyed by each line less its end squares) against python-chess's, the oracle."""
from __future__ import annotations

import random

import chess

from chess_core.squares import BETWEEN, LINE, bishop_attacks, queen_attacks, rook_attacks


def test_sliding_attacks_match_python_chess_on_random_occupancies():
    rng = random.Random(14)
    for _ in range(5000):
        occupied = rng.getrandbits(64) & rng.getrandbits(64)
        sq = rng.randrange(64)
        assert rook_attacks(sq, occupied) == (chess.BB_RANK_ATTACKS[sq][occupied & chess.BB_RANK_MASKS[sq]]
                                              | chess.BB_FILE_ATTACKS[sq][occupied & chess.BB_FILE_MASKS[sq]])
        assert bishop_attacks(sq, occupied) == chess.BB_DIAG_ATTACKS[sq][occupied & chess.BB_DIAG_MASKS[sq]]
        assert queen_attacks(sq, occupied) == rook_attacks(sq, occupied) | bishop_attacks(sq, occupied)


def test_sliding_attacks_stop_at_the_edge_squares_whether_occupied_or_not():
    # a1's rook sees the whole first rank and a-file on an empty board, and h1, a8 when they hold a piece
    empty = rook_attacks(0, 0)
    assert empty == rook_attacks(0, chess.BB_H1 | chess.BB_A8) == (chess.BB_RANK_1 | chess.BB_FILE_A) & ~chess.BB_A1


def test_between_and_line_match_python_chess():
    for a in range(64):
        for b in range(64):
            assert BETWEEN[a][b] == chess.between(a, b)
            assert LINE[a][b] == chess.ray(a, b)
