"""Benchmark of firmware.analysis: a 40-move game analysed at 100 ms a position, as `echiquier analyse --movetime 100` does.

The game: the first 80 plies (40 moves) of a real game (Deep Blue - Kasparov, 1997, game 4, in
tests/chess_core/data/wild/). Its 81 positions are searched by the real Stockfish
(/usr/games/stockfish, one thread, 16 MB hash, nice 19, a new game per position), then judged
and written as an analysed PGN. Prints the wall time of the whole (median of 3 runs), the
engine's share (81 x 100 ms = 8.1 s is the floor: the search time asked), and the time of the
rest (judgement, SAN, PGN: the Python side, on this process's CPU).

Goal: <= 15 s for the 40-move game here.
Run: .venv/bin/python bench/analysis.py [--runs N] [--movetime MS]
"""
from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from chess_core import Game, PgnGame, read_games  # noqa: E402
from firmware.analysis.annotated import annotated_pgn  # noqa: E402
from firmware.analysis.engine import AnalysisLimit, evaluate_game  # noqa: E402
from firmware.analysis.review import review  # noqa: E402
from firmware.openings import classify  # noqa: E402

GOAL_S = 15.0
PLIES = 80


def the_game() -> PgnGame:
    text = (ROOT / "tests" / "chess_core" / "data" / "wild" / "pychess-kasparov-deep-blue-1997.pgn").read_text()
    full = [g for g in read_games(text) if not isinstance(g, Exception)][3]
    game = Game(full.game.start_fen)
    for move in full.moves[:PLIES]:
        game.push(move)
    return PgnGame(headers=dict(full.headers), game=game, clocks=[None] * PLIES, comments={}, result="*")


async def one_run(game: PgnGame, limit: AnalysisLimit) -> tuple[float, float, float]:
    t0 = time.perf_counter()
    cpu0 = time.process_time()
    evals = await evaluate_game(game.moves, limit)
    t1 = time.perf_counter()
    found = review(game.moves, evals, limit=limit.text())
    annotated_pgn(game, found, annotator=f"Stockfish, {limit.text()}", opening=classify(game.game))
    t2 = time.perf_counter()
    return t2 - t0, t1 - t0, (t2 - t1) + (time.process_time() - cpu0)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--movetime", type=int, default=100)
    args = parser.parse_args()
    game = the_game()
    limit = AnalysisLimit(movetime_ms=args.movetime)
    runs = [asyncio.run(one_run(game, limit)) for _ in range(args.runs)]
    total = statistics.median(r[0] for r in runs)
    engine = statistics.median(r[1] for r in runs)
    python = statistics.median(r[2] for r in runs)
    floor = (len(game.moves) + 1) * args.movetime / 1000
    print(f"{len(game.moves) // 2}-move game, {len(game.moves) + 1} positions at {args.movetime} ms: "
          f"{total:.2f} s (median of {args.runs}: {', '.join(f'{r[0]:.2f}' for r in runs)}); the engine's part "
          f"{engine:.2f} s (the searches asked: {floor:.1f} s); this process's CPU {python:.2f} s; "
          f"goal <= {GOAL_S:.0f} s: {'met' if total <= GOAL_S else 'MISSED'}")


if __name__ == "__main__":
    main()
