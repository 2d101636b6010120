"""Benchmark of `echiquier analyse --out`: rewriting the file whole (atomically) after each game, against appending the game alone.

The file is valid PGN at every moment because it is rewritten whole after each game (a temporary
file, fsync, rename: ``durable.atomic_file.write_atomically``). The cost grows with the games
already written; the peer is the cheapest durable alternative, appending the new game and
fsyncing (which a kill in the middle of the write could leave half-written). The game written is
a real analysed one (Deep Blue - Kasparov 1997, game 6, analysed at depth 8). Prints, for files
of 10, 100 and 1,000 games, the median and the slowest of the writes of one more game, beside the
time the analysis of one such game takes at the default 200 ms a position (its positions x 0.2 s).

Run: .venv/bin/python bench/analysis_output.py [--writes N]
"""
from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from chess_core import read_games  # noqa: E402
from firmware.analysis.annotated import annotated_pgn  # noqa: E402
from firmware.analysis.engine import AnalysisLimit, evaluate_game  # noqa: E402
from firmware.analysis.review import review  # noqa: E402
from durable.atomic_file import write_atomically  # noqa: E402
from firmware.openings import classify  # noqa: E402


def analysed_game() -> tuple[str, int]:
    text = (ROOT / "tests" / "chess_core" / "data" / "wild" / "pychess-kasparov-deep-blue-1997.pgn").read_text()
    game = [g for g in read_games(text) if not isinstance(g, Exception)][-1]
    evals = asyncio.run(evaluate_game(game.moves, AnalysisLimit(depth=8)))
    found = review(game.moves, evals)
    return annotated_pgn(game, found, annotator="Stockfish, depth 8", opening=classify(game.game)), len(evals)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--writes", type=int, default=15)
    args = parser.parse_args()
    text, positions = analysed_game()
    print(f"one analysed game: {len(text)} bytes; its analysis at 200 ms a position: {positions * 0.2:.1f} s")
    with tempfile.TemporaryDirectory(dir=ROOT) as tmp:
        for games in (10, 100, 1000):
            texts = [text] * games
            whole, append = [], []
            for i in range(args.writes):
                t0 = time.perf_counter()
                write_atomically(Path(tmp) / "out.pgn", "\n".join(texts))
                whole.append(time.perf_counter() - t0)
                path = Path(tmp) / f"appended{i}.pgn"
                path.write_text("\n".join(texts[:-1]), encoding="utf-8")
                t0 = time.perf_counter()
                with open(path, "a", encoding="utf-8") as f:
                    f.write("\n" + text)
                    f.flush()
                    os.fsync(f.fileno())
                append.append(time.perf_counter() - t0)
                path.unlink()
            size = len("\n".join(texts).encode()) / 1e6
            print(f"{games:5d} games ({size:.2f} MB): rewritten whole median {statistics.median(whole) * 1e3:.1f} ms, "
                  f"slowest {max(whole) * 1e3:.1f} ms; appended (peer) median {statistics.median(append) * 1e3:.1f} ms, "
                  f"slowest {max(append) * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
