"""Benchmark of replaying a long capture: memory held by the replay source, streamed (ReplaySource on a
file) beside the whole capture parsed into a list first (the peer: what `run` did before issue 12).

Both deliver the same events to the same counting sink, in the same run; the figure is the peak
of Python allocations (tracemalloc) while the source is built and run, and the time it takes.
Run: .venv/bin/python bench/capture_stream.py [--lines 1000000]
"""
from __future__ import annotations

import argparse
import tempfile
import time
import tracemalloc
from pathlib import Path

from board_driver.backends.replay import ReplaySource


def write_capture(path: Path, lines: int) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.write("# echiquier capture v1\n")
        for i in range(lines):
            f.write(f"{i * 7} {(0xFFFF00000000FFFF ^ (1 << (i % 64))):016x}\n")


def measure(label: str, build) -> None:
    tracemalloc.start()
    t0 = time.perf_counter()
    source = build()
    count = [0]
    source.run(lambda reading: count.__setitem__(0, count[0] + 1))
    seconds = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"{label:<44} {count[0]:>9} readings  peak {peak / 1e6:8.1f} MB  {seconds:6.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "long.cap"
        write_capture(path, args.lines)
        print(f"capture of {args.lines} lines, {path.stat().st_size / 1e6:.1f} MB on disk")
        measure("streamed: ReplaySource(path)", lambda: ReplaySource(path))
        measure("peer: the whole capture parsed into a list",
                lambda: ReplaySource(path.read_text(encoding="utf-8").splitlines()))


if __name__ == "__main__":
    main()
