"""Benchmark: the game library with a big file: the first listing's time, the board's state latency meanwhile, memory with a 3.9 MB comment, and a 4 MB game of 538,164 plies.

Listing (the simulator, the whole service, in this process): ``games/`` holds an import of
5,000 real games (a Chess.com archive export, tests/chess_core/data/wild, over and over) and 50
recorded games. Each round makes the import new (its mtime changes), then a client thread asks
``GET /api/state`` again and again while another asks ``GET /api/games``: the time of the
listing, and the state's latency while it runs (median, p99) against the state's latency with
nothing else running. Peers, in the same run: python-chess reading the headers of every game of
the file (``chess.pgn.read_headers``), and chess_core reading every game of the first 4 MB (what
the listing did before: the loop was held that long).

Memory (``--memory``; each figure a child process's, VmRSS and its peak VmHWM): the library's
analysis of a real game with a 3.9 MB comment (a base64 blob, one word: the worst case), and
``echiquier analyse`` on it; the peer is python-chess reading that game. ``--before REF`` runs
the same children on the code of a former commit too (``git archive``).
Long game (``--long``; each figure a fresh child process's CPU time and peak RSS, VmHWM): a legal
4 MB file holding one game (knights going out and back, 538,164 plies, ``1/2-1/2``), listed
(``games()``) and opened (``game()``); with ``--before REF`` the same children on the code of a
former commit. Peer, in the same run: python-chess reading the file's headers (what a listing
needs), and reading its game up to the library's ply cap.
Run: .venv/bin/python bench/library.py [--rounds N] [--memory | --long] [--before REF]
"""
from __future__ import annotations

import argparse
import asyncio
import base64
import io
import os
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WILD = ROOT / "tests" / "chess_core" / "data" / "wild" / "chesscom-cancer0707.pgn"


def real_games() -> list[str]:
    return [g.rstrip() + "\n\n" for g in re.split(r"(?m)^(?=\[Event )", WILD.read_text()) if g.strip()]


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))]


def ms(values: list[float]) -> str:
    return f"median {statistics.median(values) * 1000:7.2f} ms, p99 {pct(values, 99) * 1000:7.2f} ms (n={len(values)})"


class Poller:
    """GET /api/state again and again on its own thread, each latency kept while ``keep`` is set."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.keep = threading.Event()
        self.stop = threading.Event()
        self.latencies: list[float] = []
        self.thread = threading.Thread(target=lambda: asyncio.run(self._run()), daemon=True)

    async def _run(self) -> None:
        import aiohttp
        async with aiohttp.ClientSession() as http:
            while not self.stop.is_set():
                t0 = time.perf_counter()
                async with http.get(self.url + "api/state") as r:
                    await r.read()
                if self.keep.is_set():
                    self.latencies.append(time.perf_counter() - t0)
                await asyncio.sleep(0.002)


async def listing(rounds: int) -> None:
    import aiohttp
    import chess.pgn

    from chess_core import read_pgn
    from firmware.sim.simulator import Simulator, simulator_config

    games = real_games()
    state_dir = Path(tempfile.mkdtemp(prefix="echiquier-bench-library-"))
    (state_dir / "games").mkdir()
    big = state_dir / "games" / "2020-01-01_0000_import.pgn"
    big.write_text("".join(games[i % len(games)] for i in range(5000)))
    for i in range(50):
        (state_dir / "games" / f"2025-01-01_{i:04d}_A-vs-B.pgn").write_text(games[i])
    size = big.stat().st_size
    print(f"games/: an import of 5,000 real games ({size / 1e6:.1f} MB) and 50 recorded games")

    sim = Simulator(simulator_config(None, state_dir), port=0)
    service = asyncio.create_task(sim.run())
    url = await sim.started()
    poller = Poller(url)
    poller.thread.start()
    idle: list[float] = []
    during: list[float] = []
    firsts: list[float] = []
    try:
        async with aiohttp.ClientSession() as http:
            for n in range(rounds):
                poller.latencies = idle
                poller.keep.set()
                await asyncio.sleep(0.5)
                poller.keep.clear()
                os.utime(big, ns=(time.time_ns(), time.time_ns() + n))      # a new file: read again
                poller.latencies = during
                poller.keep.set()
                t0 = time.perf_counter()
                async with http.get(url + "api/games") as r:
                    listed = await r.json()
                firsts.append(time.perf_counter() - t0)
                poller.keep.clear()
        assert any(g["cut"] for g in listed["games"]), "the import should be listed as cut"
    finally:
        poller.stop.set()
        poller.thread.join(5)
        sim.stop()
        await service

    t0 = time.perf_counter()
    with open(big, encoding="utf-8") as fh:
        headers = 0
        while chess.pgn.read_headers(fh) is not None:
            headers += 1
    peer_headers = time.perf_counter() - t0
    t0 = time.perf_counter()
    with open(big, encoding="utf-8") as fh:
        chess.pgn.read_game(fh)
    peer_first = time.perf_counter() - t0
    t0 = time.perf_counter()
    with open(big, "rb") as fh:
        before = len(read_pgn(fh.read(4 * 1024 * 1024).decode("utf-8", errors="replace"), []))
    old_way = time.perf_counter() - t0

    print(f"first GET /api/games, every file new:      {firsts[0] * 1000:7.2f} ms")
    print(f"GET /api/games, the import new each round: {ms(firsts[1:] or firsts)}")
    print(f"GET /api/state while it lists:             {ms(during)}")
    print(f"GET /api/state with nothing else:          {ms(idle)}")
    print(f"peer: python-chess, headers of all {headers:,} games: {peer_headers * 1000:8.1f} ms "
          f"(first GET / peer: {statistics.median(firsts) / peer_headers:.3f})")
    print(f"peer: python-chess, the first game:            {peer_first * 1000:8.1f} ms")
    print(f"before: chess_core reading every game of 4 MB ({before:,}), on the loop: {old_way * 1000:8.1f} ms")


CHILD_SERVICE = r"""
import asyncio, json, sys
from pathlib import Path
def rss():
    fields = dict(l.split(":", 1) for l in open("/proc/self/status"))
    return int(fields["VmRSS"].split()[0]) // 1024, int(fields["VmHWM"].split()[0]) // 1024
from firmware.analysis.engine import AnalysisLimit
from firmware.library.analyses import Analyses
from firmware.library.games import GameLibrary
state = Path(sys.argv[1])
async def main():
    library = GameLibrary(state / "games")
    analyses = Analyses(library, state / "analysis", limit=AnalysisLimit(depth=6))
    library.games()
    before = rss()[0]
    await analyses.request("comment")
    await analyses.settled()
    after, peak = rss()
    print(json.dumps({"before": before, "after": after, "peak": peak, "status": analyses.status("comment")}))
asyncio.run(main())
"""

CHILD_PEER = r"""
import json, sys, chess.pgn
def rss():
    fields = dict(l.split(":", 1) for l in open("/proc/self/status"))
    return int(fields["VmRSS"].split()[0]) // 1024, int(fields["VmHWM"].split()[0]) // 1024
before = rss()[0]
with open(sys.argv[1], encoding="utf-8") as fh:
    game = chess.pgn.read_game(fh)
after, peak = rss()
print(json.dumps({"before": before, "after": after, "peak": peak}))
"""


def child(code: str, args: list[str], path: Path) -> dict:
    import json
    env = {**os.environ, "PYTHONPATH": str(path)}
    out = subprocess.run([sys.executable, "-c", code, *args], env=env, cwd=path, capture_output=True, text=True,
                         timeout=600, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def analyse_peak(path: Path, pgn: Path) -> int:
    """Peak RSS (MB) of ``echiquier analyse`` on ``pgn`` with the code at ``path``."""
    env = {**os.environ, "PYTHONPATH": str(path)}
    code = ("import sys, resource; from firmware.cli import main\n"
            "try:\n    main()\nfinally:\n"
            "    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024, file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code, "analyse", str(pgn), "--depth", "6", "--out", os.devnull],
                         env=env, cwd=path, capture_output=True, text=True, timeout=600)
    return int(out.stderr.strip().splitlines()[-1])


def memory(before_ref: str | None) -> None:
    game = real_games()[0]
    blob = base64.b64encode(os.urandom(3_900_000 * 3 // 4)).decode()
    head, moves = game.split("\n\n", 1)
    first, rest = moves.split(" ", 1)
    text = f"{head}\n\n{first} {{{blob}}} {rest}"
    trees = trees_of(before_ref)
    print(f"a real game with a comment of {len(blob) / 1e6:.1f} MB (one word); RSS in MB")
    for name, path in trees.items():
        state = Path(tempfile.mkdtemp(prefix="echiquier-bench-comment-"))
        (state / "games").mkdir()
        (state / "games" / "comment.pgn").write_text(text)
        found = child(CHILD_SERVICE, [str(state)], path)
        print(f"{name:>20}: the service's analysis: {found['before']} -> {found['after']} MB (peak {found['peak']}),"
              f" {found['status'] or 'done'}")
        print(f"{name:>20}: echiquier analyse: peak {analyse_peak(path, state / 'games' / 'comment.pgn')} MB")
    state = Path(tempfile.mkdtemp(prefix="echiquier-bench-comment-"))
    (state / "comment.pgn").write_text(text)
    peer = child(CHILD_PEER, [str(state / "comment.pgn")], ROOT)
    print(f"{'peer':>20}: python-chess reads the game: {peer['before']} -> {peer['after']} MB (peak {peer['peak']})")


LONG_PLIES = 538_164


def long_game() -> str:
    """One legal game of 538,164 plies in under 4 MB: both knights go out and back (a fivefold
    repetition nobody stopped), a draw."""
    head = '[Event "Shuffle"]\n[White "A"]\n[Black "B"]\n[Result "1/2-1/2"]\n\n'
    cycle = ("Nf3", "Nf6", "Ng1", "Ng8")
    parts, line = [], []
    for ply in range(LONG_PLIES):
        move = cycle[ply % 4]
        line.append(f"{ply // 2 + 1}. {move}" if ply % 2 == 0 else move)
        if len(line) == 16:
            parts.append(" ".join(line))
            line = []
    parts.append(" ".join(line + ["1/2-1/2"]))
    return head + "\n".join(parts) + "\n"


CHILD_LONG = r"""
import json, resource, sys, time
from pathlib import Path
def peak():
    fields = dict(l.split(":", 1) for l in open("/proc/self/status"))
    return int(fields["VmHWM"].split()[0]) // 1024
from firmware.library.games import GameLibrary
library = GameLibrary(Path(sys.argv[1]))
before = peak()
t0 = time.process_time()
if sys.argv[2] == "games":
    found = library.games()[0]
else:
    found = library.game("long")
print(json.dumps({"cpu": time.process_time() - t0, "before": before, "peak": peak(), "plies": found["plies"],
                  "cut": found.get("cut")}))
"""

CHILD_LONG_PEER = r"""
import json, sys, time, chess.pgn
def peak():
    fields = dict(l.split(":", 1) for l in open("/proc/self/status"))
    return int(fields["VmHWM"].split()[0]) // 1024
before = peak()
t0 = time.process_time()
with open(sys.argv[1], encoding="utf-8") as fh:
    if sys.argv[2] == "headers":
        chess.pgn.read_headers(fh)
        plies = 0
    else:
        class Capped(chess.pgn.GameBuilder):
            def visit_move(self, board, move):
                if board.ply() >= int(sys.argv[3]):
                    return chess.pgn.SKIP
                return super().visit_move(board, move)
        game = chess.pgn.read_game(fh, Visitor=Capped)
        plies = len(list(game.mainline_moves()))
print(json.dumps({"cpu": time.process_time() - t0, "before": before, "peak": peak(), "plies": plies}))
"""


def long(before_ref: str | None) -> None:
    trees = trees_of(before_ref)
    state = Path(tempfile.mkdtemp(prefix="echiquier-bench-long-"))
    (state / "games").mkdir()
    path = state / "games" / "long.pgn"
    path.write_text(long_game())
    print(f"one game of {LONG_PLIES:,} plies in {path.stat().st_size / 1e6:.2f} MB; CPU time, peak RSS (MB)")
    for name, tree in trees.items():
        for what in ("games", "game"):
            found = child(CHILD_LONG, [str(state / "games"), what], tree)
            print(f"{name:>20}: {what + '()':8} {found['cpu']:7.2f} s CPU, peak {found['before']} -> {found['peak']} MB,"
                  f" {found['plies']:,} plies{' (cut)' if found['cut'] else ''}")
    from firmware.library.games import MAX_PLIES
    for what, args in (("headers", []), (f"{MAX_PLIES:,} plies", ["moves", str(MAX_PLIES)])):
        found = child(CHILD_LONG_PEER, [str(path), args[0] if args else "headers", *args[1:]], ROOT)
        print(f"{'peer':>20}: python-chess, {what:12} {found['cpu']:7.2f} s CPU, peak {found['before']} -> "
              f"{found['peak']} MB")


def trees_of(before_ref: str | None) -> dict[str, Path]:
    """The code to run: this tree, and that of ``before_ref`` (``git archive``) first if given."""
    trees = {"now": ROOT}
    if before_ref:
        old = Path(tempfile.mkdtemp(prefix="echiquier-bench-before-"))
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", before_ref], capture_output=True, check=True)
        tarfile.open(fileobj=io.BytesIO(archive.stdout)).extractall(old)
        trees = {f"before ({before_ref})": old, **trees}
    return trees


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--memory", action="store_true", help="the memory figures instead of the listing's")
    parser.add_argument("--long", action="store_true", help="the figures of a 4 MB game of 538,164 plies")
    parser.add_argument("--before", metavar="REF", help="with --memory or --long: also the code of this commit")
    args = parser.parse_args()
    if args.long:
        long(args.before)
    elif args.memory:
        memory(args.before)
    else:
        asyncio.run(listing(args.rounds))


if __name__ == "__main__":
    main()
