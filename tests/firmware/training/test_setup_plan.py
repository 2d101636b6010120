"""The setup plan from any board to any position: as short as an exhaustive search finds on small boards, and carried out by a hand it reaches the target, on real games' positions."""
from __future__ import annotations

import random

import chess
import pytest

from firmware.training.setup_plan import Step, fewest_moves, placement, plan

KINDS = "PNBRQKpnbrqk"


def carried_out(board: dict[int, str], steps: tuple[Step, ...]) -> dict[int, str]:
    """The board after a hand follows ``steps`` in order: a piece on a square a step fills waits in
    the hand until its own step takes it from there."""
    board, hand = dict(board), {}
    for step in steps:
        if step.source is not None:
            piece = board.pop(step.source) if step.source in board and step.source not in hand else hand.pop(step.source)
            assert piece == step.piece, (step, piece)
        if step.target is not None:
            if step.target in board:
                assert step.target not in hand
                hand[step.target] = board.pop(step.target)
            board[step.target] = step.piece
    assert not hand, f"pieces left in the hand: {hand}"
    return board


def least_moved(board: dict[int, str], target: dict[int, str]) -> int:
    """An exhaustive search: each target square is served by a piece of its kind from a square of
    the board or from the box; every piece that does not stay where it stands is moved once."""
    squares = sorted(target)
    best = len(board) + len(target)

    def serve(i: int, used: frozenset[int], moved: int) -> None:
        nonlocal best
        if moved >= best:
            return
        if i == len(squares):
            best = min(best, moved + len(set(board) - used))   # the pieces no square took: to the box
            return
        to = squares[i]
        for source in [s for s, p in board.items() if p == target[to] and s not in used]:
            serve(i + 1, used | {source}, moved + (source != to))
        serve(i + 1, used, moved + 1)   # from the box

    serve(0, frozenset(), 0)
    return best


def small(rng: random.Random) -> tuple[dict[int, str], dict[int, str]]:
    squares, kinds = rng.sample(range(64), 6), rng.sample(KINDS, 3)
    pick = lambda: {s: rng.choice(kinds) for s in squares if rng.random() < 0.6}   # noqa: E731
    return pick(), pick()


@pytest.mark.parametrize("seed", range(300))
def test_the_plan_is_as_short_as_an_exhaustive_search_and_reaches_the_target(seed):
    board, target = small(random.Random(seed))
    steps = plan(board, target)
    assert len(steps) == fewest_moves(board, target) == least_moved(board, target), (board, target, steps)
    assert carried_out(board, steps) == target


def position_of(rng: random.Random, plies: int) -> dict[int, str]:
    game = chess.Board()
    for _ in range(plies):
        moves = list(game.legal_moves)
        if not moves:
            break
        game.push(rng.choice(moves))
    return placement(game.board_fen())


@pytest.mark.parametrize("seed", range(60))
def test_any_middlegame_from_the_start_or_a_half_cleared_board(seed):
    rng = random.Random(seed)
    target = position_of(rng, rng.randrange(10, 60))
    start = placement(chess.STARTING_BOARD_FEN)
    half = {s: p for s, p in position_of(rng, rng.randrange(0, 40)).items() if rng.random() < 0.5}
    for board in (start, half, {}):
        steps = plan(board, target)
        assert carried_out(board, steps) == target
        assert len(steps) == fewest_moves(board, target)
        assert all(board.get(s) != target.get(s) for s in {st.source for st in steps} - {None})   # nothing right moves


def test_a_piece_on_its_square_stays_and_one_of_a_kind_goes_to_the_nearest_square():
    board = placement(chess.STARTING_BOARD_FEN)
    target = placement("rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R")
    assert plan(board, target) == (Step("N", 6, 21),)
    assert plan(board, board) == ()
    assert [step.to_json() for step in plan({}, {28: "P"})] == [{"piece": "P", "from": None, "to": "e4"}]
    assert [step.to_json() for step in plan({28: "P"}, {})] == [{"piece": "P", "from": "e4", "to": None}]


def test_pieces_that_trade_squares_cost_one_step_each():
    board, target = {0: "R", 1: "N"}, {0: "N", 1: "R"}
    steps = plan(board, target)
    assert len(steps) == 2 and carried_out(board, steps) == target
