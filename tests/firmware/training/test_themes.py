"""The themes of a puzzle by Lichess's names, on hand-built positions, with python-chess as the oracle of attacks and pins."""
from __future__ import annotations

import random

import chess
import pytest

from chess_core import Position
from firmware.training.themes import attacks, is_defended, pin_line, themes


@pytest.mark.parametrize("fen, solution, expected", [
    ("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", ["a1a8"], ("mate", "mateIn1")),
    ("7k/8/8/8/8/8/R7/1R4K1 w - - 0 1", ["a2a7", "h8g8", "b1b8"], ("mate", "mateIn2")),
    ("7k/8/8/8/8/8/R7/1R4K1 w - - 0 1", ["a2a7", "h8g8", "b1b7", "g8f8", "b7b8"], ("mate", "mateIn3")),
    ("8/4P1k1/8/8/8/8/8/K7 w - - 0 1", ["e7e8q"], ("promotion",)),
    ("r3k3/8/8/3N4/8/8/8/6K1 w - - 0 1", ["d5c7", "e8d7", "c7a8"], ("fork",)),
    ("4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1", ["d2d5"], ("hangingPiece",)),
    ("4k3/3r4/8/8/B7/8/8/4K3 w - - 0 1", ["a4b5"], ("pin",)),
    ("8/8/3k3q/8/8/8/8/R3K3 w - - 0 1", ["a1a6", "d6d5", "a6h6"], ("skewer",)),
])
def test_a_puzzle_has_the_themes_lichess_would_give_it(fen, solution, expected):
    assert themes(fen, solution) == expected


def test_taking_back_what_the_blunder_took_is_not_a_hanging_piece():
    before = "4k3/8/3q4/3Q4/8/8/3R4/4K3 b - - 0 1"     # Black's queen takes White's on d5 ...
    fen = "4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1"          # ... and the rook takes back: a trade
    assert themes(fen, ["d2d5"], before, "d6d5") == ()


def test_a_defended_piece_taken_is_not_hanging():
    assert "hangingPiece" not in themes("4k3/4p3/3q4/8/8/8/3R4/4K3 w - - 0 1", ["d2d6"])


def test_a_defence_behind_the_attacker_counts():
    # the black rook on d8 defends d5 through the white rook that attacks it from d7 (an x-ray)
    pos = Position("3rk3/3R4/8/3n4/8/8/8/4K3 w - - 0 1")
    assert is_defended(pos, 35)


def test_a_fork_from_a_square_where_the_forker_is_lost_is_no_fork():
    # the knight on c7 attacks king and rook, but the rook on c8 takes it, undefended: a bad spot
    assert "fork" not in themes("r1r1k3/8/8/3N4/8/8/8/6K1 w - - 0 1", ["d5c7", "e8d7", "c7a8"])


def test_a_pinned_piece_attacked_by_a_dearer_piece_is_no_pin():
    # the queen pins a bishop to the king: the bishop is worth less than the queen and defended
    assert "pin" not in themes("4k3/3b4/2p5/8/Q7/8/8/4K3 w - - 0 1", ["e1f2"])


def _positions(count: int, seed: int) -> list[chess.Board]:
    rng = random.Random(seed)
    boards = []
    while len(boards) < count:
        board = chess.Board()
        for _ in range(rng.randint(10, 80)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        boards.append(board)
    return boards


def test_attacks_and_pins_agree_with_python_chess():
    for board in _positions(150, 35):
        pos = Position(board.fen())
        for sq, piece in board.piece_map().items():
            assert attacks(pos, sq) == int(board.attacks_mask(sq)), (board.fen(), sq)
            pin = board.pin(piece.color, sq)
            expected = None if pin == chess.BB_ALL or piece.piece_type == chess.KING else int(pin)
            assert pin_line(pos, sq) == expected, (board.fen(), chess.square_name(sq))
            defended = bool(board.attackers(piece.color, sq))
            if defended:
                assert is_defended(pos, sq), (board.fen(), sq)
