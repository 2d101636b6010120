"""A training kept in the game in progress and read back (firmware/training/drill_codec.py): the shipped puzzles and a mistake round-trip, and anything else is refused with ValueError."""
from __future__ import annotations

import copy
import json
import random
from dataclasses import replace

import pytest

from firmware.analysis.judgement import Score
from firmware.session.state import training_json as state_training, training_said
from firmware.training.drill import Training, moved, of_exercise, of_puzzle
from firmware.training.drill_codec import MAX_DRILLS, training_json, training_of_json
from firmware.training.exercises import Attempt, Exercise
from firmware.training.puzzles import load

MATE_IN_TWO = ("m2", "1r4k1/5ppp/8/8/8/8/3R1PPP/3R2K1 w - - 0 1", ("d2d8", "b8d8", "d1d8"))
MISTAKE = Exercise("2025-03-01_1000_Anna-vs-Ben", 6, "r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 3 3",
                   1, "g8f6", "blunder", "g7g6", ("g7g6", "h5f3", "g8f6"), Score(cp=-30), Score(mate=1))


def trainings() -> list[Training]:
    """Trainings as the board makes them: the shipped puzzles in queues, a mistake, mid-way."""
    puzzles = [of_puzzle(p.id, p.fen, p.solution, rating=p.rating, themes=p.themes, blunder=p.blunder)
               for p in load()]
    rng = random.Random(35)
    found = []
    for _ in range(40):
        drills = tuple(rng.sample(puzzles, rng.randint(1, 5)))
        made = rng.randint(0, len(drills[0].solution))
        end = rng.choice([None, len(drills[0].solution)]) if made < len(drills[0].solution) else made
        found.append(Training(drills, rng.choice(["Ada", "Zoë", "Ben Ö."]),
                              Attempt(rng.randint(0, 2), ("a1a2",) * rng.randint(0, 2), rng.choice([None, "try again"])),
                              made, end, rng.random() < 0.5))
    found.append(Training((of_exercise(MISTAKE), *puzzles[:2]), "Ada"))
    found.append(Training((of_exercise(Exercise(**{**vars(MISTAKE), "played_score": Score(mate=0, mated=0)})),),
                          "Ada", Attempt(1, ("d8e7",), "solved"), 1, 1))
    return found


@pytest.mark.parametrize("training", trainings(), ids=lambda t: t.drill.id)
def test_a_training_reads_back_as_it_was_through_json(training):
    kept = json.loads(json.dumps(training_json(training)))
    assert training_of_json(kept) == training


def test_the_awaited_move_is_not_kept():
    training = Training((of_exercise(MISTAKE),), "Ada", waiting="d8e7")
    assert training_of_json(training_json(training)).waiting is None


def usable(training: Training) -> None:
    """What the board does with a training read back: say it, show it, judge the next move."""
    for verdict in (None, "solved", "try again", "shown"):
        shown = replace(training, attempt=replace(training.attempt, last=verdict))
        training_said(shown)
        state_training(shown, None)
    if training.made < len(training.drill.solution) and training.end is None:
        moved(training, training.drill.solution[training.made])


def test_what_the_board_relies_on_is_checked_on_reading():
    good = training_json(Training((of_puzzle(*MATE_IN_TWO, rating=1300),), "Ada"))
    for change in ({"made": 4}, {"made": 1, "end": 0}, {"end": 4}):
        with pytest.raises(ValueError):
            training_of_json({**good, **change})
    drill = good["drills"][0]
    for change in ({"solution": ["d2d8", "d8d2", "d1d8"]}, {"solution": ["a1a1"]}, {"side": 1},
                   {"fen": "not a position"}, {"kind": "mistake"}, {"exercise": training_json(
                       Training((of_exercise(MISTAKE),), "Ada"))["drills"][0]["exercise"]}):
        with pytest.raises(ValueError):
            training_of_json({**good, "drills": [{**drill, **change}]})
    usable(training_of_json({**good, "made": 2}))


def leaves(data, path=()):
    if isinstance(data, dict):
        for key, value in data.items():
            yield from leaves(value, path + (key,))
    elif isinstance(data, list) and data:
        for index, value in enumerate(data):
            yield from leaves(value, path + (index,))
    else:
        yield path


def put(data, path, value):
    for key in path[:-1]:
        data = data[key]
    data[path[-1]] = value


ODD = [None, True, -1, 10 ** 9, 1.5, "", "x" * 5000, "e2e4\x00", "Ada\u202e", "\ud83d", [], {}, ["e2e4"] * 70, {"cp": 1}]


def test_anything_but_what_the_board_wrote_is_refused_with_a_value_error():
    good = training_json(Training((of_exercise(MISTAKE), *[of_puzzle(p.id, p.fen, p.solution, rating=p.rating,
                                                                      themes=p.themes) for p in load()[:2]]), "Ada"))
    refused = 0
    for path in leaves(good):
        for odd in ODD:
            bad = copy.deepcopy(good)
            put(bad, path, odd)
            try:
                read = training_of_json(bad)
            except ValueError:
                refused += 1
                continue
            assert training_of_json(training_json(read)) == read
            usable(read)
    assert refused > len(list(leaves(good))) * len(ODD) * 0.8
    for bad in (None, [], {}, {**good, "more": 1}, {**good, "drills": []},
                {**good, "drills": good["drills"][:1] * (MAX_DRILLS + 1)}):
        with pytest.raises(ValueError):
            training_of_json(bad)
