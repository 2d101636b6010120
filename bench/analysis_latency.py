"""Benchmark: the board's step latency (a settled reading to its LED frame) with and without a library analysis running, in the same run.

bench/service.py's live measure, reused whole: the service in its default configuration (the web
page on), a 200-move game delivered by a scanner thread in real time, the latency of each frame
from the settle instant to the LED sink's ``show``. It runs twice per round, alternately:

* **without** an analysis: bench/service.py's ``service-page`` mode (a page open all along);
* **with** one: the same, but the page asks, as soon as the service listens, the page's API
  (``POST /api/games/{id}/analysis``, the library's button) to analyse three finished 200-move
  games kept in the service's library, so Stockfish (one thread, 16 MB hash, nice 19, 200 ms a
  position: about 50 s a game) searches throughout the 75 s the game lasts (the games whose
  analysis was written by the end are counted).

Prints, for each, the frames' median, p99 and max over the rounds (two by default), and how
many games were analysed meanwhile (the analysis was running); then, as bench/service.py splits
them, each frame's wait for the loop (from the settle instant to the start of the step that shows
it: the loop busy elsewhere, or the CPUs taken) and the CPU of that step itself. The machine has two
CPUs; other programs running meanwhile show in both columns alike.

Goal: the p99 with an analysis within 1 ms of the p99 without (bench/service.py's goal: 5 ms).
Run: .venv/bin/python bench/analysis_latency.py [--rounds N]
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

_spec = importlib.util.spec_from_file_location("bench_service", ROOT / "bench" / "service.py")
assert _spec is not None and _spec.loader is not None
service_bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(service_bench)

GAMES = 3
# The page: asks for every finished game of the library to be analysed, then waits (bench/service.py
# reads the last word it prints at SIGTERM).
ASKING_PAGE = """
import json, os, signal, sys, urllib.request
port = int(sys.argv[1])
base = f"http://127.0.0.1:{port}"
def done(*_):                 # (no request here: the service's loop waits for this very process)
    print(0, flush=True)
    os._exit(0)
signal.signal(signal.SIGTERM, done)
for game in json.load(urllib.request.urlopen(base + "/api/games"))["games"]:
    if not game["in_progress"]:
        request = urllib.request.Request(base + f"/api/games/{game['id']}/analysis", data=b"{}", method="POST",
                                         headers={"Content-Type": "application/json"})
        urllib.request.urlopen(request).read()
signal.pause()
"""


def library_games(state: Path, moves: list[str]) -> None:
    """GAMES finished games of ``moves`` in the service's library (<state>/games)."""
    from chess_core import Game, Move
    from chess_core.pgn import write_pgn
    game = Game()
    for uci in moves:
        game.push(Move.from_uci(uci))
    games = state / "games"
    games.mkdir(parents=True, exist_ok=True)
    for n in range(GAMES):
        (games / f"2025-01-0{n + 1}_1000_Anna-vs-Ben.pgn").write_text(
            write_pgn(game, {"White": "Anna", "Black": "Ben", "Date": f"2025.01.0{n + 1}", "Result": "1/2-1/2"}))


def analysing_child(capture: str, state: str) -> None:
    service_bench.PAGE_CLIENT = ASKING_PAGE      # the "page" of service-page mode asks for the analyses
    service_bench.child(capture, state, "service-page")


def run(capture: Path, state: Path, analysing: bool) -> dict:
    args = [sys.executable, __file__, "--analysing-child", str(capture), str(state)] if analysing else \
        [sys.executable, str(ROOT / "bench" / "service.py"), "--child", str(capture), str(state), "service-page"]
    out = subprocess.run(args, capture_output=True, text=True, timeout=1800)
    if out.returncode != 0:
        raise RuntimeError(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def row(name: str, samples: list[float]) -> str:
    return (f"{name:28s} median {statistics.median(samples):6.2f} ms  p99 {service_bench.pct(samples, 0.99):6.2f} ms  "
            f"max {max(samples):6.2f} ms  ({len(samples)} frames)")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    moves = service_bench.make_game()
    without: list[float] = []
    with_analysis: list[float] = []
    parts: dict[str, dict[str, list[float]]] = {"without": {"waits": [], "cpu": []}, "with": {"waits": [], "cpu": []}}
    searched = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        capture = tmp / "game.cap"
        capture.write_text(service_bench.make_capture(moves))
        for n in range(args.rounds):
            plain = run(capture, tmp / f"plain-{n}", False)
            without += plain["samples"]
            for key in ("waits", "cpu"):
                parts["without"][key] += [max(0.0, v) for v in plain[key]]
            state = tmp / f"analysing-{n}"
            library_games(state, moves)
            found = run(capture, state, True)
            with_analysis += found["samples"]
            for key in ("waits", "cpu"):
                parts["with"][key] += [max(0.0, v) for v in found[key]]
            searched.append(len(list((state / "analysis").glob("*.json"))))
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; {args.rounds} rounds, a 200-move game each")
    print(row("without an analysis", without))
    print(row("with an analysis running", with_analysis) +
          f"  (games analysed by the game's end: {', '.join(map(str, searched))}, the next one under way)")
    for key, what in (("waits", "of which waiting for the loop"), ("cpu", "CPU of the step behind a frame")):
        print(f"{what}: without {statistics.median(parts['without'][key]):.2f} ms median, "
              f"p99 {service_bench.pct(parts['without'][key], 0.99):.2f} ms; with {statistics.median(parts['with'][key]):.2f} "
              f"ms median, p99 {service_bench.pct(parts['with'][key], 0.99):.2f} ms")
    gap = service_bench.pct(with_analysis, 0.99) - service_bench.pct(without, 0.99)
    print(f"p99 with - without: {gap:+.2f} ms  goal <= +1 ms: {'met' if gap <= 1 else 'MISSED'}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--analysing-child":
        analysing_child(sys.argv[2], sys.argv[3])
        sys.exit(0)
    sys.exit(main())
