"""A training's drills as one value: a puzzle's moves and replies, a wrong try taken back, the right move shown after two, a mistake's other move judged by its evaluation."""
from __future__ import annotations

from firmware.analysis.judgement import Score
from firmware.training.drill import Training, evaluated, moved, of_exercise, of_puzzle, replied
from firmware.training.exercises import Exercise

PUZZLE = of_puzzle("p1", "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", ("a1a8",), rating=800, themes=("mateIn1",))
LONG = of_puzzle("p2", "r5k1/5ppp/8/8/8/8/5PPP/R3R1K1 w - - 0 1", ("e1e8", "a8e8", "a1a8", "e8a8"), rating=1200)


def test_a_puzzle_solved_with_its_replies_to_carry_out():
    t = Training((LONG,), "Ada")
    out = moved(t, "e1e8")
    assert out.reply == "a8e8" and not out.take_back and not out.training.over
    t = replied(out.training, "a8e8")
    out = moved(t, "a1a8")
    assert out.reply == "e8a8"
    t = replied(out.training, "e8a8")
    assert t.made == 4 and not t.over   # (a solution that ends on a reply: nothing more of the solver's)


def test_a_mate_in_one_by_another_mating_move_is_right():
    out = moved(Training((PUZZLE,), "Ada"), "a1a7", mates=True)
    assert out.training.over and out.training.verdict == "solved" and not out.training.failed


def test_two_wrong_tries_then_the_right_move_is_shown_to_carry_out():
    t = Training((PUZZLE, LONG), "Ada")
    out = moved(t, "g1f1")
    assert out.take_back and out.reply is None and out.training.verdict == "try again" and out.training.failed
    t = out.training
    out = moved(t, "h2h3")
    assert out.take_back and out.reply == "a1a8" and out.training.verdict == "shown" and not out.training.over
    t = replied(out.training, "a1a8")
    assert t.over and t.left == 1 and t.next() == Training((LONG,), "Ada")


def _exercise() -> Exercise:
    return Exercise("g1", 7, "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 2 3", 0, "f3f6",
                    "blunder", "f3f7", ("f3f7",), Score(mate=1), Score(cp=-500))


def test_a_mistakes_other_move_waits_for_its_evaluation():
    t = Training((of_exercise(_exercise()),), "Ada")
    out = moved(t, "c4f7")
    assert out.evaluate and out.training.waiting == "c4f7" and moved(out.training, "a2a3").training == out.training
    wrong = evaluated(out.training, "c4f7", Score(cp=300))
    assert wrong.take_back and wrong.training.verdict == "try again"
    right = evaluated(out.training, "c4f7", Score(mate=2))
    assert right.training.over and right.training.verdict == "solved"
    assert moved(t, "f3f7").training.verdict == "solved"
    assert moved(t, "f3f6").take_back   # the move played in the game: wrong without an evaluation
