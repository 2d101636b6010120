"""Benchmark: the time to plan a setup (firmware.training.setup_plan) from the start position, a half-cleared board or an empty one to random positions of random games, beside the fewest moves possible.

Prints the steps against the fewest possible (they must be equal), and the CPU time of one plan:
median, p99 and max over every sample (goal: under 10 ms on this machine). The peer is counting
the fewest moves alone (no plan), the least work any planner must do.
Run: .venv/bin/python bench/setup_plan.py [--positions N]
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import chess  # noqa: E402

from firmware.training.setup_plan import fewest_moves, placement, plan  # noqa: E402


def positions(n: int, rng: random.Random) -> list[dict[int, str]]:
    found = []
    for _ in range(n):
        game = chess.Board()
        for _ in range(rng.randrange(10, 80)):
            moves = list(game.legal_moves)
            if not moves:
                break
            game.push(rng.choice(moves))
        found.append(placement(game.board_fen()))
    return found


def timed(fn, *args) -> float:
    start = time.thread_time_ns()
    fn(*args)
    return (time.thread_time_ns() - start) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--positions", type=int, default=500)
    args = parser.parse_args()
    rng = random.Random(35)
    targets = positions(args.positions, rng)
    start = placement(chess.STARTING_BOARD_FEN)
    boards = [("start", start), ("empty", {})] + [("half-cleared", {s: p for s, p in t.items() if rng.random() < 0.5})
                                                    for t in positions(1, rng)]
    for name, board in boards:
        planned, counted, equal, steps = [], [], 0, []
        for target in targets:
            planned.append(timed(plan, board, target))
            counted.append(timed(fewest_moves, board, target))
            made = plan(board, target)
            equal += len(made) == fewest_moves(board, target)
            steps.append(len(made))
        ordered = sorted(planned)
        print(f"from {name:12s}: {len(targets)} targets, steps = fewest possible in {equal}/{len(targets)} "
              f"(median {statistics.median(steps):.0f} steps); plan CPU median {statistics.median(planned):.3f} ms, "
              f"p99 {ordered[int(len(ordered) * 0.99) - 1]:.3f} ms, max {ordered[-1]:.3f} ms (goal < 10 ms); "
              f"peer (counting alone) median {statistics.median(counted):.3f} ms")


if __name__ == "__main__":
    main()
