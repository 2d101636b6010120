"""Glicko-2 ratings as Glickman defines them, used for puzzles as Lichess does: one puzzle, one rating period.

Pure arithmetic on :class:`Rating` values; time comes in as days passed.

Contract
========

* :func:`rate` is one rating period of Mark Glickman's "Example of the Glicko-2 system" (glicko.net,
  2013; revised 2022): steps 1 to 8 with the Illinois algorithm of step 5 (``EPSILON`` 1e-6),
  ``tau`` given (the paper's example takes 0.5), a period without a game only widening the
  deviation (step 6). No bound is put on the values it gives.
* :func:`after_puzzle` is Lichess's use for puzzles (lila ``modules/puzzle/.../PuzzleFinisher.scala``
  and ``modules/rating/.../Glicko.scala``, ``glicko2/RatingCalculator.scala`` after Jeremy Gooch's
  Java port): each puzzle is a game against the puzzle's rating, won when solved, alone in its
  rating period (the deviation widens by one period's volatility first); ``TAU`` 0.75; a new
  player is ``DEFAULT`` (1500, deviation 500, volatility 0.09); the player's and the puzzle's rating
  are counted as at least ``MIN_RATING`` (400); the result is capped as Lichess's ``Glicko.cap``
  (rating at least 400, deviation within [45, 500], volatility at most 0.1), and a result outside
  Lichess's ``sanityCheck`` (a rating in (0, 4000), a deviation in (0, 1000), a volatility in
  (0, 0.2)) starts again from ``DEFAULT``.
* The deviation also widens while the player does not play, as Lichess's ``liveDeviation``:
  ``RATING_PERIODS_PER_DAY`` (0.21436, "a typical player's RD goes from 60 to 110 in a year")
  periods a day, within [45, 500] (:func:`idle`; :func:`after_puzzle`'s ``days_idle``).
* What Lichess does and the board does not: weighing the change by the puzzle's theme
  (``ponder``), and rating the puzzles themselves from the players' results (a board's few
  players would move them by chance): the puzzle's rating and deviation are the puzzle's own.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Rating", "rate", "idle", "after_puzzle", "expected", "DEFAULT", "TAU", "SCALE", "MIN_RATING",
           "MIN_DEVIATION", "MAX_DEVIATION", "MAX_VOLATILITY", "PROVISIONAL_DEVIATION", "PUZZLE_DEVIATION",
           "RATING_PERIODS_PER_DAY"]

SCALE = 173.7178                # the Glicko-2 scale: (r - 1500) / 173.7178 (paper, step 2)
EPSILON = 0.000001              # the convergence tolerance of step 5
MAX_ITERATIONS = 1000           # (lila's: a volatility that does not converge is an error)
TAU = 0.75                      # Lichess's (Glicko.tau; PuzzleFinisher's TAU)
MIN_RATING = 400.0              # lila Glicko.minRating
MIN_DEVIATION = 45.0            # lila Glicko.minDeviation
MAX_DEVIATION = 500.0           # lila Glicko.maxDeviation: a new player's
MAX_VOLATILITY = 0.1            # lila Glicko.maxVolatility ("past this, it might not stabilize ever again")
PROVISIONAL_DEVIATION = 110.0   # lila Glicko.provisionalDeviation: a rating shown with "?"
PUZZLE_DEVIATION = 75.0         # a puzzle's deviation when its source gives none (Lichess's settled puzzles: 75 to 80)
RATING_PERIODS_PER_DAY = 0.21436


@dataclass(frozen=True)
class Rating:
    """A Glicko-2 rating on the usual scale: ``rating`` (1500 the middle), its ``deviation`` (RD)
    and ``volatility`` (sigma)."""

    rating: float
    deviation: float
    volatility: float

    @property
    def provisional(self) -> bool:
        """Not settled yet (Lichess shows it with a "?")."""
        return self.deviation >= PROVISIONAL_DEVIATION

    def to_json(self) -> dict[str, float]:
        return {"rating": self.rating, "deviation": self.deviation, "volatility": self.volatility}


DEFAULT = Rating(1500.0, MAX_DEVIATION, 0.09)    # lila Glicko.default (defaultVolatility 0.09)


def _g(phi: float) -> float:
    return 1 / math.sqrt(1 + 3 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1 / (1 + math.exp(-_g(phi_j) * (mu - mu_j)))


def expected(player: Rating, opponent: Rating) -> float:
    """The player's expected score against ``opponent`` (paper, step 3's E)."""
    return _e((player.rating - 1500) / SCALE, (opponent.rating - 1500) / SCALE, opponent.deviation / SCALE)


def _volatility(sigma: float, phi: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the new volatility, by the Illinois algorithm."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2 * (phi * phi + v + ex) ** 2) - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    for _ in range(MAX_ITERATIONS):
        if abs(big_b - big_a) <= EPSILON:
            return math.exp(big_a / 2)
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2
        big_b, f_b = big_c, f_c
    raise ArithmeticError("the volatility did not converge")


def rate(player: Rating, results: Sequence[tuple[Rating, float]], *, tau: float = TAU,
         periods: float = 1.0) -> Rating:
    """``player``'s rating after one rating period of ``results`` (each the opponent's rating and
    the score, 1 a win, 0.5 a draw, 0 a loss); ``periods``: how many periods the deviation widens
    by (paper, step 6: one)."""
    mu, phi, sigma = (player.rating - 1500) / SCALE, player.deviation / SCALE, player.volatility
    if not results:
        return Rating(player.rating, math.sqrt(phi * phi + periods * sigma * sigma) * SCALE, sigma)
    games = [((o.rating - 1500) / SCALE, o.deviation / SCALE, score) for o, score in results]
    v = 1 / sum(_g(phi_j) ** 2 * _e(mu, mu_j, phi_j) * (1 - _e(mu, mu_j, phi_j)) for mu_j, phi_j, _ in games)
    gain = sum(_g(phi_j) * (score - _e(mu, mu_j, phi_j)) for mu_j, phi_j, score in games)
    new_sigma = _volatility(sigma, phi, v, v * gain, tau)
    phi_star = math.sqrt(phi * phi + periods * new_sigma * new_sigma)
    new_phi = 1 / math.sqrt(1 / (phi_star * phi_star) + 1 / v)
    return Rating(1500 + SCALE * (mu + new_phi * new_phi * gain), SCALE * new_phi, new_sigma)


def idle(player: Rating, days: float) -> Rating:
    """``player`` after ``days`` without a rated puzzle: the deviation widened as Lichess's
    ``liveDeviation`` (``RATING_PERIODS_PER_DAY``), within [45, 500]."""
    if days <= 0:
        return player
    widened = rate(player, (), periods=days * RATING_PERIODS_PER_DAY).deviation
    return Rating(player.rating, max(MIN_DEVIATION, min(MAX_DEVIATION, widened)), player.volatility)


def _sane(r: Rating) -> bool:
    """lila Glicko.sanityCheck."""
    return 0 < r.rating < 4000 and 0 < r.deviation < 1000 and 0 < r.volatility < MAX_VOLATILITY * 2


def after_puzzle(player: Rating, puzzle: Rating | float, solved: bool, *, days_idle: float = 0.0) -> Rating:
    """``player``'s rating after a puzzle (its rating, or its rating alone: ``PUZZLE_DEVIATION``),
    solved or not, ``days_idle`` days after the last rated one (see the module docstring)."""
    opponent = puzzle if isinstance(puzzle, Rating) else Rating(float(puzzle), PUZZLE_DEVIATION, DEFAULT.volatility)
    opponent = Rating(max(MIN_RATING, opponent.rating), opponent.deviation, opponent.volatility)
    now = idle(player, days_idle)
    found = rate(Rating(max(MIN_RATING, now.rating), now.deviation, now.volatility), ((opponent, 1.0 if solved else 0.0),))
    if not _sane(found):
        return DEFAULT
    return Rating(max(MIN_RATING, found.rating), max(MIN_DEVIATION, min(MAX_DEVIATION, found.deviation)),
                  min(MAX_VOLATILITY, found.volatility))
