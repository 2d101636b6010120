"""Benchmark of firmware.openings: building the index of opening names, its memory, and naming positions.

Prints the time to build the index (median of 5 fresh books); the resident memory it adds, in a
fresh interpreter with chess_core and firmware.openings imported (VmRSS before and after the
build, garbage collected), and what Python allocates for it (tracemalloc: kept, and the peak
while it is built); then the cost of naming one position (``OpeningBook.named``) over every position of
the real games in tests/chess_core/data/wild/ (median and p99), of an update of the session's
cache per move played, and of naming a whole game at once (``classify``), beside what chess_core
takes to push the same moves (the peer: the replay alone).

Goals: the index built in <= 1 s here (a Pi Zero 2 W is about six times slower: the session
never waits for it, see OpeningCache), <= 3 MB resident added, a move's update <= 0.1 ms.
Run: .venv/bin/python bench/openings.py
"""
from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from chess_core import Game, read_games  # noqa: E402
from firmware.openings import OpeningBook, OpeningCache, classify  # noqa: E402

WILD = ROOT / "tests" / "chess_core" / "data" / "wild"


def games() -> list[Game]:
    found = []
    for path in sorted(WILD.glob("*.pgn")):
        for game in read_games(path.read_text(encoding="utf-8-sig")):
            if not isinstance(game, Exception) and not game.game.chess960 and game.moves:
                found.append(game.game)
    return found


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


# The memory, in a fresh interpreter: its modules imported, nothing else allocated before the build.
MEMORY = """
import gc, tracemalloc
from pathlib import Path
from firmware.openings import OpeningBook
def rss_kb():
    return next(int(l.split()[1]) for l in Path("/proc/self/status").read_text().splitlines() if l.startswith("VmRSS:"))
gc.collect()
before = rss_kb()
book = OpeningBook()
book.index()
gc.collect()
added = rss_kb() - before
tracemalloc.start()
other = OpeningBook()
other.index()
kept, peak = tracemalloc.get_traced_memory()
print(added, kept, peak)
"""


def main() -> None:
    out = subprocess.run([sys.executable, "-c", MEMORY], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    added_kb, kept, peak = (int(x) for x in out.split())
    played = games()
    book = OpeningBook()
    builds = []
    for _ in range(5):
        other = OpeningBook()
        t0 = time.perf_counter()
        other.index()
        builds.append(time.perf_counter() - t0)
    book.index()
    print(f"index: {len(book.index())} names, built in {statistics.median(builds) * 1000:.0f} ms (median of 5); "
          f"VmRSS +{added_kb / 1024:.2f} MB in a fresh interpreter; Python keeps {kept / 1e6:.2f} MB for it, "
          f"peak {peak / 1e6:.2f} MB while building")

    per_position: list[float] = []
    for game in played:
        pos = game.start_position()
        for move in game.moves:
            pos.push(move)
            t0 = time.perf_counter()
            book.named(pos)
            per_position.append(time.perf_counter() - t0)
    print(f"naming one position: median {statistics.median(per_position) * 1e6:.1f} us, "
          f"p99 {percentile(per_position, 0.99) * 1e6:.1f} us ({len(per_position)} positions, {len(played)} games)")

    per_move: list[float] = []
    replay: list[float] = []
    for game in played:
        cache, growing = OpeningCache(book), Game(game.start_fen)
        cache.update(growing)
        for move in game.moves:
            growing.push(move)
            t0 = time.perf_counter()
            cache.update(growing)
            per_move.append(time.perf_counter() - t0)
        pos = game.start_position()
        t0 = time.perf_counter()
        for move in game.moves:
            pos.push(move)
        replay.append((time.perf_counter() - t0) / len(game.moves))
    print(f"the session's cache, per move played: median {statistics.median(per_move) * 1e6:.1f} us, "
          f"p99 {percentile(per_move, 0.99) * 1e6:.1f} us (peer: chess_core pushes a move in "
          f"{statistics.median(replay) * 1e6:.1f} us)")

    whole = []
    for game in played:
        t0 = time.perf_counter()
        classify(game, book)
        whole.append(time.perf_counter() - t0)
    print(f"naming a whole game (classify): median {statistics.median(whole) * 1000:.2f} ms, "
          f"max {max(whole) * 1000:.2f} ms (median game {statistics.median(len(g.moves) for g in played):.0f} plies)")


if __name__ == "__main__":
    main()
