"""Glicko-2: Glickman's worked example, lila's own figures, an independent implementation (PyPI's glicko2), Lichess's puzzle use."""
from __future__ import annotations

import math
import random

import glicko2 as oracle
import pytest

from firmware.training.glicko2 import (DEFAULT, MAX_DEVIATION, MAX_VOLATILITY, MIN_DEVIATION, MIN_RATING, TAU,
                                       Rating, after_puzzle, expected, idle, rate)


def test_glickmans_worked_example():
    """"Example of the Glicko-2 system" (glicko.net, 2013), tau 0.5: 1464.06, 151.52, 0.05999."""
    found = rate(Rating(1500, 200, 0.06), [(Rating(1400, 30, 0.06), 1), (Rating(1550, 100, 0.06), 0),
                                           (Rating(1700, 300, 0.06), 0)], tau=0.5)
    assert abs(found.rating - 1464.06) < 0.01
    assert abs(found.deviation - 151.52) < 0.005
    assert abs(found.volatility - 0.05999) < 0.00001      # (the paper's rounded figures)


def test_the_paper_examples_intermediate_quantities():
    """Step 3 and 4 of the example: E = 0.639, 0.432, 0.303."""
    player = Rating(1500, 200, 0.06)
    assert [round(expected(player, Rating(r, d, 0.06)), 3) for r, d in ((1400, 30), (1550, 100), (1700, 300))] == \
        [0.639, 0.432, 0.303]


@pytest.mark.parametrize("white, black, score, expect_white, expect_black", [
    # lila modules/rating/src/test/RatingCalculatorTest.scala (one game, the deviation not widened first)
    ((1500, 500, 0.09), (1500, 500, 0.09), 1, (1741, 396, 0.0899983), (1258, 396, 0.0899983)),
    ((1500, 500, 0.09), (1500, 500, 0.09), 0.5, (1500, 396, 0.0899954), (1500, 396, 0.0899954)),
    ((1500, 80, 0.06), (1500, 80, 0.06), 1, (1517, 78, 0.06), (1482, 78, 0.06)),
    ((1400, 79, 0.06), (1550, 110, 0.065), 0, (1389, 78, 0.06), (1568, 105, 0.065)),
    ((1200, 60, 0.053), (1850, 200, 0.062), 1, (1216.7, 59.9, 0.053013), (1636, 196.9, 0.062028)),
    ((1200, 60, 0.053), (1850, 200, 0.062), 0.5, (1208.0, 59.9, 0.053002), (1745.7, 196.98729, 0.062006)),
])
def test_lichess_figures_for_one_game(white, black, score, expect_white, expect_black):
    w, b = Rating(*white), Rating(*black)
    for player, opponent, points, expect in ((w, b, score, expect_white), (b, w, 1 - score, expect_black)):
        found = rate(player, [(opponent, points)], periods=0)
        tolerance = 0.1 if isinstance(expect[0], float) and expect[0] % 1 else 1
        assert abs(found.rating - expect[0]) <= tolerance
        assert abs(found.deviation - expect[1]) <= 1
        assert abs(found.volatility - expect[2]) <= 0.00001


class Corrected(oracle.Player):
    """PyPI's glicko2 (Ryan Kirkman's, 2.1.0), whose step 5 function f squares the rating where
    the paper squares the deviation (phi): with that one term as the paper has it."""

    _tau = TAU

    def _f(self, x, delta, v, a):
        ex, phi2 = math.exp(x), self._Player__rd ** 2
        return ex * (delta ** 2 - phi2 - v - ex) / (2 * (phi2 + v + ex) ** 2) - (x - a) / self._tau ** 2


def random_periods(count: int):
    rng = random.Random(35)
    for _ in range(count):
        player = Rating(rng.uniform(600, 2700), rng.uniform(30, 500), rng.uniform(0.03, 0.1))
        games = [(Rating(rng.uniform(600, 2700), rng.uniform(30, 350), 0.06), rng.choice((0, 0.5, 1)))
                 for _ in range(rng.randint(1, 6))]
        yield player, games


def oracle_rate(cls, player: Rating, games) -> tuple[float, float, float]:
    other = cls(player.rating, player.deviation, player.volatility)
    other.update_player([o.rating for o, _ in games], [o.deviation for o, _ in games], [s for _, s in games])
    return other.rating, other.rd, other.vol


def test_the_same_as_an_independent_implementation_on_a_thousand_periods():
    for player, games in random_periods(1000):
        found = rate(player, games)
        rating, deviation, volatility = oracle_rate(Corrected, player, games)
        assert found.rating == pytest.approx(rating, abs=1e-6)
        assert found.deviation == pytest.approx(deviation, abs=1e-6)
        assert found.volatility == pytest.approx(volatility, abs=1e-9)


def test_the_independent_implementation_as_published_differs_only_by_its_slip():
    class AsPublished(oracle.Player):
        _tau = TAU

    for player, games in random_periods(300):
        found = rate(player, games)
        rating, deviation, volatility = oracle_rate(AsPublished, player, games)
        assert abs(found.rating - rating) < 0.2 and abs(found.deviation - deviation) < 0.1
        assert abs(found.volatility - volatility) < 0.002


def test_a_period_without_games_only_widens_the_deviation():
    found = rate(Rating(1500, 200, 0.06), [])
    assert (found.rating, found.volatility) == (1500, 0.06)
    assert found.deviation == pytest.approx(math.sqrt((200 / 173.7178) ** 2 + 0.06 ** 2) * 173.7178)


def test_a_new_player_is_lichess_default_and_provisional():
    assert DEFAULT == Rating(1500, 500, 0.09) and DEFAULT.provisional
    assert not Rating(1500, 80, 0.06).provisional


def test_solving_a_puzzle_raises_the_rating_and_failing_lowers_it():
    won, lost = after_puzzle(DEFAULT, 1500, True), after_puzzle(DEFAULT, 1500, False)
    assert won.rating > 1500 > lost.rating
    assert won.deviation < 500 and lost.deviation < 500
    assert won.rating - 1500 == pytest.approx(1500 - lost.rating)


def test_a_puzzle_is_one_rating_period_the_deviation_widened_first():
    player = Rating(1600, 100, 0.06)
    assert after_puzzle(player, Rating(1700, 80, 0.09), True) == rate(player, [(Rating(1700, 80, 0.09), 1)])


def test_a_puzzle_without_a_deviation_counts_as_a_settled_one():
    assert after_puzzle(DEFAULT, 1800, True) == after_puzzle(DEFAULT, Rating(1800, 75, 0.09), True)


def test_the_rating_stays_within_lichess_bounds():
    player = DEFAULT
    for _ in range(300):
        player = after_puzzle(player, 600, False)
    assert player.rating >= MIN_RATING and player.deviation >= MIN_DEVIATION
    for _ in range(300):
        player = after_puzzle(player, 2900, True)
    assert player.deviation >= MIN_DEVIATION and player.volatility <= MAX_VOLATILITY
    assert after_puzzle(Rating(300, 500, 0.09), 300, False).rating >= MIN_RATING


def test_a_puzzle_below_the_floor_counts_as_the_floor():
    assert after_puzzle(DEFAULT, 100, True) == after_puzzle(DEFAULT, Rating(MIN_RATING, 75, 0.09), True)


def test_a_result_lichess_finds_insane_starts_again_from_the_default():
    assert after_puzzle(Rating(3999, 45, 0.09), Rating(3999, 45, 0.09), True) == DEFAULT     # (over 4000)


def test_a_year_away_widens_a_settled_deviation_from_60_to_110():
    assert idle(Rating(1500, 60, 0.06), 365).deviation == pytest.approx(110, abs=0.5)
    assert idle(Rating(1500, 60, 0.06), 0) == Rating(1500, 60, 0.06)
    assert idle(Rating(1500, 400, 0.09), 10_000).deviation == MAX_DEVIATION


def test_days_away_count_before_the_puzzle():
    player = Rating(1500, 60, 0.06)
    assert after_puzzle(player, 1500, True, days_idle=365) == after_puzzle(idle(player, 365), 1500, True)
    assert after_puzzle(player, 1500, True, days_idle=365).deviation > after_puzzle(player, 1500, True).deviation
