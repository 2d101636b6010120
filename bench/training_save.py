"""Benchmark: what keeping a training with the game in progress adds to each save of current.json, by the number of drills left, beside the same game saved without one.

A drill's game is saved after each move (firmware.session.game_file: the training is encoded when it
changes, the record written whole). Each sample is one move's work: the training encoded
(``training_json``) and the record's JSON built (``GameRecord.to_json``), in CPU time, then the
atomic write of current.json (``write_atomically``: fsync and rename) in wall time. The peer is
the same 40-ply game's record without a training, in the same run, alternated sample by sample.
Prints medians, p99 and max, and the file's size.
Run: .venv/bin/python bench/training_save.py [--samples N]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from durable.atomic_file import write_atomically  # noqa: E402
from firmware.analysis.judgement import Score  # noqa: E402
from firmware.session.recorder import GameRecord  # noqa: E402
from firmware.training.drill import Training, of_exercise, of_puzzle  # noqa: E402
from firmware.training.drill_codec import MAX_DRILLS, training_json  # noqa: E402
from firmware.training.exercises import Exercise  # noqa: E402
from firmware.training.puzzles import load  # noqa: E402

MOVES = ("e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6 e1g1 f8e7 f1e1 b7b5 a4b3 d7d6 c2c3 e8g8 h2h3 c6a5 b3c2 c7c5 "
         "d2d4 d8c7 b1d2 c5d4 c3d4 a5c6 d2b3 a6a5 c1e3 a5a4 b3d2 c8d7 a1c1 c7b7 d2f1 f8c8 c2d3 c6b4 d3b1 d6d5").split()


def drills(n: int) -> tuple:
    """``n`` drills as a game's analysis gives them: the player's mistakes, with their lines."""
    puzzles = load()
    found = []
    for i in range(n):
        if i % 2:
            p = puzzles[i % len(puzzles)]
            found.append(of_puzzle(p.id, p.fen, p.solution, rating=p.rating, themes=p.themes, blunder=p.blunder))
        else:
            found.append(of_exercise(Exercise("2025-03-01_1000_Anna-vs-Ben", 6 + i,
                                              "r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 3 3", 1,
                                              "g8f6", "blunder", "g7g6", ("g7g6", "h5f3", "g8f6", "f3f7") * 4,
                                              Score(cp=-30), Score(mate=1))))
    return tuple(found)


def record(training: Training | None) -> GameRecord:
    return GameRecord(pgn_name="2026-12-05_0100_Ada-vs-Board.pgn", started="2026-12-05T01:00:00", white="Ada",
                      moves=list(MOVES), clocks=[None] * len(MOVES), event="Training")


def sample(path: Path, rec: GameRecord, training: Training | None) -> tuple[float, float, int]:
    start = time.thread_time_ns()
    rec.training = training_json(training) if training is not None else None
    text = rec.to_json()
    cpu = (time.thread_time_ns() - start) / 1e6
    start = time.perf_counter_ns()
    write_atomically(path, text)
    return cpu, (time.perf_counter_ns() - start) / 1e6, len(text.encode())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=200)
    args = parser.parse_args()
    cases = {"no training (peer)": None}
    cases.update({f"{n} drill{'s' if n > 1 else ''} left": Training(drills(n), "Ada") for n in (1, 20, MAX_DRILLS)})
    results: dict[str, list[tuple[float, float, int]]] = {name: [] for name in cases}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "current.json"
        recs = {name: record(t) for name, t in cases.items()}
        for _ in range(args.samples):
            for name, training in cases.items():
                results[name].append(sample(path, recs[name], training))
    print(f"{args.samples} saves each, alternated; CPU of encoding, wall of the atomic write (fsync)")
    print(f"{'case':22} {'size':>9} {'CPU median':>11} {'p99':>8} {'max':>8} {'write median':>13} {'p99':>8}")
    for name, rows in results.items():
        cpu = sorted(r[0] for r in rows)
        wall = sorted(r[1] for r in rows)
        p99 = int(len(rows) * 0.99) - 1
        print(f"{name:22} {rows[0][2]:>8,}B {statistics.median(cpu):>9.3f}ms {cpu[p99]:>6.3f}ms {cpu[-1]:>6.3f}ms "
              f"{statistics.median(wall):>11.3f}ms {wall[p99]:>6.3f}ms")


if __name__ == "__main__":
    main()
