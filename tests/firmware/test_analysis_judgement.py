"""The judgement of moves against hand-checked values of Lichess's formulas, and Lichess's own accuracy test cases."""
from __future__ import annotations

import math

import pytest

from firmware.analysis.judgement import (BLACK, WHITE, Advice, Judgement, Score, advise, game_accuracy,
                                         move_accuracy, win_percent, winning_chances)


def test_win_percent_follows_the_formula_with_centipawns_ceiled_at_ten_pawns():
    # 50 + 50 * (2 / (1 + e^(-0.00368208 * cp)) - 1): e^-0.368208 = 0.691980, 2 / 1.691980 - 1 = 0.182052
    assert win_percent(Score(cp=0)) == 50
    assert win_percent(Score(cp=100)) == pytest.approx(59.1026, abs=1e-4)
    assert win_percent(Score(cp=-100)) == pytest.approx(100 - 59.1026, abs=1e-4)
    # e^-3.68208 = 0.025176: 2 / 1.025176 - 1 = 0.950884
    assert win_percent(Score(cp=1000)) == pytest.approx(97.5447, abs=1e-4)
    assert win_percent(Score(cp=2500)) == win_percent(Score(cp=1000)) == win_percent(Score(mate=7))
    assert win_percent(Score(mate=-1)) == win_percent(Score(cp=-1000)) == win_percent(Score.checkmated(WHITE))
    assert win_percent(Score.checkmated(BLACK)) == win_percent(Score(cp=1000))
    assert winning_chances(-10 ** 6) == -1.0 and winning_chances(10 ** 6) == 1.0   # no overflow


@pytest.mark.parametrize("after, expected", [
    (-54, None),                      # 0.0991 of winning chances lost
    (-55, Judgement.INACCURACY),      # 0.1009
    (-110, Judgement.INACCURACY),     # 0.1998
    (-111, Judgement.MISTAKE),        # 0.2016
    (-168, Judgement.MISTAKE),        # 0.2998
    (-169, Judgement.BLUNDER),        # 0.3015
    (-900, Judgement.BLUNDER),
])
def test_a_white_move_from_equality_is_judged_by_the_winning_chances_it_loses(after, expected):
    advice = advise(Score(cp=0), Score(cp=after), WHITE)
    assert (advice.judgement if advice else None) is expected
    # the same move by Black, the board turned round
    mirrored = advise(Score(cp=0), Score(cp=-after), BLACK)
    assert (mirrored.judgement if mirrored else None) is expected


def test_a_move_that_gains_or_keeps_is_never_judged_and_centipawns_are_not_ceiled_for_judgement():
    assert advise(Score(cp=0), Score(cp=300), WHITE) is None
    assert advise(Score(cp=0), Score(cp=-300), BLACK) is None
    # 20 pawns to 12: ceiled both would be 10 pawns (nothing lost); Lichess's judgement uses them as they are
    lost = winning_chances(2000) - winning_chances(1200)
    assert 0 < lost < 0.1 and advise(Score(cp=2000), Score(cp=1200), WHITE) is None


def test_mates_created_and_lost_as_lichess_says_them():
    assert advise(Score(cp=50), Score(mate=-3), WHITE) == Advice(Judgement.BLUNDER, "Checkmate is now unavoidable")
    assert advise(Score(cp=-800), Score(mate=-3), WHITE) == Advice(Judgement.MISTAKE, "Checkmate is now unavoidable")
    assert advise(Score(cp=-1200), Score(mate=-3), WHITE) == Advice(Judgement.INACCURACY,
                                                                    "Checkmate is now unavoidable")
    assert advise(Score(cp=-50), Score(mate=4), BLACK) == Advice(Judgement.BLUNDER, "Checkmate is now unavoidable")
    assert advise(Score(mate=2), Score(cp=300), WHITE) == Advice(Judgement.BLUNDER, "Lost forced checkmate sequence")
    assert advise(Score(mate=2), Score(cp=800), WHITE) == Advice(Judgement.MISTAKE, "Lost forced checkmate sequence")
    assert advise(Score(mate=2), Score(cp=1500), WHITE) == Advice(Judgement.INACCURACY,
                                                                  "Lost forced checkmate sequence")
    assert advise(Score(mate=2), Score(mate=-5), WHITE) == Advice(Judgement.BLUNDER, "Lost forced checkmate sequence")
    assert advise(Score(mate=-3), Score(cp=-200), BLACK) == Advice(Judgement.BLUNDER, "Lost forced checkmate sequence")
    assert advise(Score(mate=3), Score(mate=5), WHITE) is None        # a longer mate: not judged
    assert advise(Score(mate=1), Score.checkmated(BLACK), WHITE) is None   # the mate itself


def test_move_accuracy_follows_the_fitted_curve():
    # 103.1668100711649 * e^(-0.04354415386753951 * 10) - 3.166924740191411 + 1 = 64.5798
    assert move_accuracy(50, 40) == pytest.approx(64.5798, abs=1e-4)
    assert move_accuracy(60, 55) == pytest.approx(80.8153, abs=1e-4)
    assert move_accuracy(40, 45) == 100 == move_accuracy(40, 40)
    assert move_accuracy(40, 39.9999) == 100          # the bonus of 1, capped at 100
    assert move_accuracy(100, 0) == 0


# Lichess's own test cases (lila modules/analyse/src/test/AccuracyPercentTest.scala): the
# evaluations after each move from White's side, the expected accuracies and tolerances.
LICHESS_CASES = [
    ("two good moves", WHITE, [15, 15], (100, 1), (100, 1)),
    ("white blunders on first move", WHITE, [-900, -900], (10, 5), (100, 1)),
    ("black blunders on first move", WHITE, [15, 900], (100, 1), (10, 5)),
    ("both blunder on first move", WHITE, [-900, 0], (10, 5), (10, 5)),
    ("20 perfect moves", WHITE, [15] * 20, (100, 1), (100, 1)),
    ("20 perfect moves and a white blunder", WHITE, [15] * 20 + [-900], (50, 5), (100, 1)),
    ("21 perfect moves and a black blunder", WHITE, [15] * 21 + [900], (100, 1), (50, 5)),
    ("5 average moves (65 cpl) on each side", WHITE, [-50, 15] * 5, (76, 8), (76, 8)),
    ("50 average moves (65 cpl) on each side", WHITE, [-50, 15] * 50, (76, 8), (76, 8)),
    ("50 mediocre moves (150 cpl) on each side", WHITE, [-135, 15] * 50, (54, 8), (54, 8)),
    ("50 terrible moves (500 cpl) on each side", WHITE, [-435, 15] * 50, (20, 8), (20, 8)),
    ("black moves first, two good moves", BLACK, [15, 15], (100, 1), (100, 1)),
    ("black moves first, black blunders on first move", BLACK, [900, 900], (100, 1), (10, 5)),
    ("black moves first, white blunders on first move", BLACK, [15, -900], (10, 5), (100, 1)),
    ("black moves first, both blunder on first move", BLACK, [900, 0], (10, 5), (10, 5)),
]


@pytest.mark.parametrize("name, start, cps, white, black", LICHESS_CASES, ids=[c[0] for c in LICHESS_CASES])
def test_game_accuracy_passes_lichess_own_cases(name, start, cps, white, black):
    found = game_accuracy(start, cps)
    assert found is not None
    assert abs(found[0] - white[0]) <= white[1], found
    assert abs(found[1] - black[0]) <= black[1], found


def test_game_accuracy_needs_a_move_by_each_side():
    assert game_accuracy(WHITE, []) is None
    assert game_accuracy(WHITE, [15]) is None
    assert game_accuracy(BLACK, [15]) is None


def test_game_accuracy_by_hand_for_two_moves():
    # win% 51.380 (the start, 15 cp), 38.692 (-125), 38.692: window 2, two windows; White lost
    # 12.688 points: accuracy 103.1668 e^(-0.043544 * 12.688) - 2.1669 = 103.1668 * 0.57552 - 2.1669
    # = 57.21; Black lost nothing: 100.
    start, after = 50 + 50 * winning_chances(15), 50 + 50 * winning_chances(-125)
    white_move = 103.1668100711649 * math.exp(-0.04354415386753951 * (start - after)) - 3.166924740191411 + 1
    white, black = game_accuracy(WHITE, [-125, -125])
    assert white == pytest.approx(white_move)          # one move: its weighted and harmonic means are itself
    assert black == 100
    assert white == pytest.approx(57.21, abs=0.01)


def test_scores_are_written_as_lichess_writes_them():
    assert [Score(cp=34).pgn(), Score(cp=-150).pgn(), Score(cp=0).pgn(), Score(mate=-3).pgn(), Score(mate=2).pgn()] == [
        "0.34", "-1.5", "0.0", "#-3", "#2"]
    assert Score.checkmated(WHITE).pgn() is None
    assert [Score(cp=34).words(), Score(cp=-150).words(), Score(mate=-3).words()] == ["0.34", "-1.50", "Mate in 3"]
    assert Score.from_mover("cp", 31, BLACK) == Score(cp=-31)
    assert Score.from_mover("mate", -2, BLACK) == Score(mate=2)
    assert Score.from_mover("mate", 0, WHITE) == Score.checkmated(WHITE)
    with pytest.raises(ValueError):
        Score(cp=1, mate=2)
