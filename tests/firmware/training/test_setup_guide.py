"""The board leading a hand from what stands on it to a position, seeing occupancy only: a hand that follows its steps (in its order or any other) reaches the target, in the fewest moves, and a piece put wrong is asked to move on."""
from __future__ import annotations

import random

import chess
import pytest

from chess_core import STARTING_FEN
from firmware.training.setup_guide import UNKNOWN, SetupGuide
from firmware.training.setup_plan import Step
from firmware.training.setup_plan import fewest_moves, placement

from tests.firmware.training.test_setup_plan import position_of


def occupancy(board: dict[int, str]) -> int:
    return sum(1 << sq for sq in board)


class Hand:
    """A physical board and a hand: each lift and each placing is a settled reading the guide sees."""

    def __init__(self, board: dict[int, str], guide: SetupGuide) -> None:
        self.board, self.guide, self.holding, self.moves = dict(board), guide, [], 0

    def lift(self, square: int) -> None:
        self.holding.append(self.board.pop(square))
        self.guide = self.guide.seen(occupancy(self.board))

    def place(self, piece: str, square: int) -> None:
        if piece in self.holding:
            self.holding.remove(piece)
        self.board[square] = piece
        self.guide = self.guide.seen(occupancy(self.board))

    def follow(self, rng: random.Random | None = None) -> None:
        """Carry out the guide's first step (or, with ``rng``, any of them), as the LEDs show it."""
        steps = self.guide.steps
        held = [s for s in steps if s.source is None and s.piece in self.holding and s.target not in self.board]
        # (any order, but a hand puts down what it holds before it takes another piece)
        step = steps[0] if rng is None else rng.choice(held or steps)
        if step.source is not None:
            self.lift(step.source)
        piece = step.piece if step.source is None else self.holding[-1]
        if step.source is None and piece not in self.holding:
            self.holding.append(piece)   # from the box
        assert piece == step.piece
        if step.target is not None:
            if step.target in self.board:
                self.lift(step.target)   # (a trade: that piece waits in the hand)
            self.place(piece, step.target)
        else:
            self.holding.remove(piece)   # into the box: the sensors see nothing
        self.moves += 1


def start_fens(rng: random.Random) -> list[dict[int, str]]:
    start = placement(STARTING_FEN)
    half = {sq: p for sq, p in start.items() if rng.random() < 0.5}
    return [start, half, {}]


@pytest.mark.parametrize("seed", range(40))
def test_a_hand_following_the_first_step_reaches_a_middlegame_in_the_fewest_moves(seed):
    rng = random.Random(seed)
    fen = _fen(position_of(rng, rng.randrange(10, 60)))
    for board in start_fens(rng):
        hand = Hand(board, SetupGuide.start(fen, board, occupancy(board)))
        fewest = fewest_moves(board, placement(fen))
        assert len(hand.guide.steps) == fewest
        while not hand.guide.done:
            assert hand.moves < fewest, "more moves than the fewest"
            hand.follow()
        assert hand.board == placement(fen)
        assert hand.moves == fewest and hand.guide.wrong() == 0 and not hand.guide.steps


@pytest.mark.parametrize("seed", range(40))
def test_a_hand_taking_the_steps_in_any_order_reaches_the_target(seed):
    rng = random.Random(1000 + seed)
    fen = _fen(position_of(rng, rng.randrange(10, 60)))
    for board in start_fens(rng):
        hand = Hand(board, SetupGuide.start(fen, board, occupancy(board)))
        fewest = len(hand.guide.steps)
        while not hand.guide.done:
            assert hand.moves <= 2 * fewest + 2
            hand.follow(rng)
        assert hand.board == placement(fen)


def test_a_piece_put_on_the_wrong_square_is_asked_to_move_on_and_the_game_waits_for_it():
    fen = "4k3/8/8/8/8/8/8/2B1K1N1 w - - 0 1"
    board = {4: "K", 60: "k", 6: "N", 11: "B"}          # the bishop on d2, to go to c1
    hand = Hand(board, SetupGuide.start(fen, board, occupancy(board)))
    assert [(s.piece, s.source, s.target) for s in hand.guide.steps] == [("B", 11, 2)]
    hand.lift(6)                                        # the knight lifted...
    hand.place("N", 2)                                  # ...and put where the bishop goes
    guide = hand.guide
    assert dict(guide.board)[2] == "N" and guide.wrong() == (1 << 2) | (1 << 11)
    assert sorted((s.piece, s.source, s.target) for s in guide.steps) == [("B", 11, 2), ("N", 2, 6)]
    hand.lift(2)
    assert hand.guide.from_hand(next(s for s in hand.guide.steps if s.piece == "N"))
    hand.lift(11)
    hand.place("B", 2)
    hand.place("N", 6)
    assert hand.guide.done and hand.guide.wrong() == 0


def test_the_step_the_leds_show_is_the_one_the_hand_carried_out():
    # The knight lifted for c3 is lit to go there (first, as the hand holds it); the queen from the
    # box goes to d4 after. A knight put on d4 instead cannot be told from the queen by occupancy:
    # the board believes the queen (its steps said so) and shows the knight's step still to do.
    fen = "4k3/8/8/8/3Q4/2N5/8/4K3 w - - 0 1"
    board = {4: "K", 60: "k", 1: "N"}
    hand = Hand(board, SetupGuide.start(fen, board, occupancy(board)))
    assert sorted((s.piece, s.source, s.target) for s in hand.guide.steps) == [("N", 1, 18), ("Q", None, 27)]
    hand.lift(1)
    assert hand.guide.steps[0] == Step("N", None, 18)   # the knight in the hand to c3, lit first
    hand.place("N", 18)
    assert hand.guide.steps == (Step("Q", None, 27),)


def test_a_piece_put_where_the_target_wants_none_is_the_one_in_the_hand():
    fen = "4k3/8/8/8/8/8/8/4K1N1 w - - 0 1"
    board = {4: "K", 60: "k", 6: "N"}
    hand = Hand(board, SetupGuide.start(fen, board, occupancy(board)))
    hand.lift(6)
    hand.place("N", 3)
    assert dict(hand.guide.board)[3] == "N"
    assert [(s.piece, s.source, s.target) for s in hand.guide.steps] == [("N", 3, 6)]


def test_pieces_the_board_never_saw_go_to_the_box():
    fen = "4k3/8/8/8/8/8/8/4K3 w - - 0 1"
    guide = SetupGuide.start(fen, {4: "K", 60: "k"}, (1 << 4) | (1 << 60) | (1 << 27))
    assert dict(guide.board) == {4: "K", 60: "k", 27: UNKNOWN}
    assert dict(SetupGuide.start(fen, {}, 1 << 4).board) == {4: UNKNOWN}   # (never assumed: unknown, to the box)
    assert [(s.piece, s.source, s.target) for s in guide.steps] == [(UNKNOWN, 27, None)]
    guide = guide.seen((1 << 4) | (1 << 60))
    assert guide.done and [piece for piece, _ in guide.hand] == [UNKNOWN]


def test_the_same_occupancy_is_the_same_guide():
    guide = SetupGuide.start(STARTING_FEN, placement(STARTING_FEN), occupancy(placement(STARTING_FEN)))
    assert guide.seen(guide.occupied) is guide and guide.done


def _fen(board: dict[int, str]) -> str:
    b = chess.Board(None)
    for sq, piece in board.items():
        b.set_piece_at(sq, chess.Piece.from_symbol(piece))
    return b.fen()
