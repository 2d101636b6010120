"""Puzzles as values: the JSON lines codec round-trips and names a bad line; choose() stays near the player's rating and never repeats while others remain."""
from __future__ import annotations

import json
import random

import pytest

from firmware.training.puzzles import Puzzle, PuzzleError, choose, dumps, loads, puzzle_id

FORK = Puzzle(id="fork0001", fen="r3k3/8/8/3N4/8/8/8/6K1 w - - 0 1", blunder="e7e8",
              solution=("d5c7", "e8d7", "c7a8"), themes=("fork",), rating=1234, source="test",
              before="r7/4k3/8/3N4/8/8/8/6K1 b - - 0 1", depths=(5, 1))


def _puzzle(n: int, rating: int) -> Puzzle:
    return Puzzle(id=f"p{n}", fen=FORK.fen, blunder="e7e8", solution=("d5c7",), rating=rating)


def test_a_puzzle_comes_back_from_its_json_line_unchanged():
    text = dumps([FORK, _puzzle(2, 800)])
    assert text.count("\n") == 2
    assert loads(text) == [FORK, _puzzle(2, 800)]


def test_the_solver_moves_are_every_other_move_from_the_first():
    assert FORK.solver_moves == ("d5c7", "c7a8")


def test_unknown_keys_are_ignored_and_blank_lines_skipped():
    record = FORK.to_json() | {"popularity": 93}
    assert loads("\n" + json.dumps(record) + "\n\n") == [FORK]


@pytest.mark.parametrize("line, why", [
    ("{not json", "not JSON"),
    ('{"id": "x", "fen": "8/8/8/8/8/8/8/K6k w - - 0 1", "blunder": "a2a1"}', "no 'solution'"),
    ('{"id": "x", "fen": "f", "blunder": "b", "solution": ["a1a2", "a2a3"]}', "odd number"),
    ('{"id": "x", "fen": "f", "blunder": "b", "solution": ["a1a2"], "rating": "high"}', "integer"),
    ('[1, 2]', "JSON object"),
])
def test_a_bad_record_is_refused_with_its_line_number(line, why):
    with pytest.raises(PuzzleError, match=f"line 2: .*{why}"):
        loads(dumps([FORK]) + line + "\n")


def test_the_id_is_decided_by_the_position_and_the_blunder_not_the_move_counters():
    assert puzzle_id(FORK.fen, "e7e8") == puzzle_id(FORK.fen.replace(" 0 1", " 12 40"), "e7e8")
    assert puzzle_id(FORK.fen, "e7e8") != puzzle_id(FORK.fen, "e7d8")


def test_choose_takes_a_puzzle_near_the_players_rating():
    puzzles = [_puzzle(n, rating) for n, rating in enumerate((700, 1000, 1480, 1550, 2000, 2400))]
    rng = random.Random(1)
    picks = {choose(puzzles, 1500, set(), rng).id for _ in range(50)}
    assert picks == {"p2", "p3"}


def test_choose_widens_its_window_when_nothing_is_near():
    puzzles = [_puzzle(1, 700), _puzzle(2, 2400)]
    assert choose(puzzles, 1000, set(), random.Random(2)).id == "p1"


def test_choose_never_repeats_a_puzzle_while_another_remains():
    puzzles = [_puzzle(n, 1500) for n in range(5)]
    rng, done = random.Random(3), set()
    for _ in range(5):
        done.add(choose(puzzles, 1500, done, rng).id)
    assert done == {p.id for p in puzzles}
    assert choose(puzzles, 1500, done, rng).id in done      # all done: any again


def test_choose_prefers_one_not_done_even_far_from_the_rating():
    puzzles = [_puzzle(1, 1500), _puzzle(2, 2500)]
    assert choose(puzzles, 1500, {"p1"}, random.Random(4)).id == "p2"


def test_choose_needs_puzzles():
    with pytest.raises(ValueError):
        choose([], 1500, set(), random.Random(5))

