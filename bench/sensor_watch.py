"""Benchmark: what finding a dead or stuck sensor costs the loop, beside the poll it replaces.

Generated games (tests/fakes/hands.py) with the sensor under one square failed from half-way
(dead under a piece, or stuck on under an empty square) run through ``Match`` as ``echiquier
replay`` does, in the default configuration. Measured, CPU time (``time.process_time_ns``
around each call, microseconds):

* each poll in which ``SensorWatch.check`` tried a square blind (the readings since the board
  was last understood read again without it; one square a poll): median, p99, max;
* every other call into the match (a raw reading fed, a poll at a deadline) in the same run:
  median, p99, max, the peer: what a call costs when nothing is tried.

The budget: nothing the board does beside its path holds the loop past a frame (16 ms here;
about six times the figure on a Pi Zero 2 W).

    .venv/bin/python bench/sensor_watch.py            # 40 games each way
    .venv/bin/python bench/sensor_watch.py --games 100
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from board_driver.capture import PromoteChoice, iter_capture   # noqa: E402
from firmware.referee.match import Match, MatchConfig   # noqa: E402
from firmware.referee.sensor_watch import SensorWatch   # noqa: E402
from tests.firmware.test_sensor_faults import game_with_a_fault   # noqa: E402


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run(seed: int, reads_piece: bool, tried: list[float], plain: list[float]) -> None:
    _, lines, _ = game_with_a_fault(seed, reads_piece)
    match = Match(MatchConfig())
    calls = 0
    original = SensorWatch._try

    def tried_once(self, inference, square, now):
        nonlocal calls
        calls += 1
        return original(self, inference, square, now)

    SensorWatch._try = tried_once   # type: ignore[method-assign]

    def timed(call, *args) -> None:
        """CPU time of one call into the match, counted as a try when it tried a square."""
        seen = calls
        t0 = time.process_time_ns()
        call(*args)
        (tried if calls != seen else plain).append((time.process_time_ns() - t0) / 1000)

    try:
        for item in iter_capture(lines, []):
            now = item.time
            while (due := match.next_deadline()) is not None and due <= now:
                timed(match.poll, due)
            if isinstance(item, PromoteChoice):
                match.promote(item.piece, now)
            else:
                timed(match.feed, item)
    finally:
        SensorWatch._try = original   # type: ignore[method-assign]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    args = parser.parse_args()
    for reads_piece in (False, True):
        tried: list[float] = []
        plain: list[float] = []
        for seed in range(args.games):
            random.seed(seed)
            run(seed, reads_piece, tried, plain)
        what = "stuck on" if reads_piece else "dead under a piece"
        print(f"sensor {what}, {args.games} games:")
        print(f"  a call that tried squares blind: n={len(tried)} median {statistics.median(tried):.0f} us, "
              f"p99 {pct(tried, 0.99):.0f} us, max {max(tried):.0f} us")
        print(f"  every other call (peer):         n={len(plain)} median {statistics.median(plain):.0f} us, "
              f"p99 {pct(plain, 0.99):.0f} us, max {max(plain):.0f} us")


if __name__ == "__main__":
    main()
