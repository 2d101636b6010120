"""Benchmark of the puzzle miner (firmware.training.miner): Stockfish games mined as `echiquier puzzles mine` does, with the scan's searches timed against python-chess's engine client at the same limit.

Games: ``--games`` Stockfish games played by ``play_game`` from a seed (as ``echiquier puzzles
games``). Each is mined at the shipped file's budgets (scan 500 nodes a position, scout 20,000 /
10,000, solver moves 400,000 with MultiPV 2, replies 200,000), one engine process, one thread,
16 MB hash. Prints the rate (positions scanned a second, puzzles an hour of one core), the median
and tail (90th percentile, max) of a scan search and of a candidate's probe, and the peer figure:
python-chess's ``chess.engine`` (its own UCI client) searching the same positions at the same
limit, median and tail, with the ratio of the medians (ours / python-chess's; below 1: ours is
faster). Stockfish's Skill Level draws its own random numbers: the games differ run to run.

Run: .venv/bin/python bench/puzzle_mining.py [--games N] [--seed S]
"""
from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import chess  # noqa: E402
import chess.engine  # noqa: E402

from chess_core import Position  # noqa: E402
from firmware.training.miner import GameSettings, MineLimits, Miner, play_game  # noqa: E402
from uci.engine import DEFAULT_ENGINE_PATH, EngineLaunch, UciEngine  # noqa: E402

LIMITS = MineLimits()
OPTIONS = {"Threads": 1, "Hash": 16}


def tails(values: list[float]) -> str:
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    return f"median {statistics.median(ordered):.2f}, p90 {p90:.2f}, max {ordered[-1]:.2f}"


class TimedMiner(Miner):
    """The miner, with the time of each scan search and of each probe noted."""

    scans: list[float]
    probes: list[float]
    fens: list[str]

    async def evaluate(self, fen, nodes):  # type: ignore[no-untyped-def]
        t0 = time.perf_counter()
        found = await super().evaluate(fen, nodes)
        if nodes == self.limits.scan_nodes:
            self.scans.append((time.perf_counter() - t0) * 1000)
            self.fens.append(fen)
        return found

    async def probe(self, candidate):  # type: ignore[no-untyped-def]
        t0 = time.perf_counter()
        found = await super().probe(candidate)
        self.probes.append((time.perf_counter() - t0) * 1000)
        return found


async def mine(games: int, seed: int) -> tuple[TimedMiner, float, int]:
    rng = random.Random(seed)
    async with UciEngine(EngineLaunch(options=OPTIONS)) as engine:
        played = [await play_game(engine, GameSettings.draw(rng, 3200)) for _ in range(games)]
        miner = TimedMiner(engine, LIMITS)
        miner.scans, miner.probes, miner.fens = [], [], []
        t0 = time.perf_counter()
        found = 0
        for index, game in enumerate(played, 1):
            found += len(await miner.mine(game.start_fen, game.moves, f"bench game {index}"))
        return miner, time.perf_counter() - t0, found


def peer(fens: list[str]) -> list[float]:
    """python-chess's engine client on the same positions at the same limit (ms each)."""
    times = []
    with chess.engine.SimpleEngine.popen_uci(DEFAULT_ENGINE_PATH) as engine:
        engine.configure(OPTIONS)
        for fen in fens:
            board = chess.Board(fen)
            if not Position(fen).has_legal_move():
                continue
            t0 = time.perf_counter()
            engine.analyse(board, chess.engine.Limit(nodes=LIMITS.scan_nodes))
            times.append((time.perf_counter() - t0) * 1000)
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    miner, seconds, found = asyncio.run(mine(args.games, args.seed))
    stats = miner.stats
    print(f"{stats.games} games, {stats.positions} positions scanned, {stats.candidates} probed, {found} puzzles "
          f"in {seconds:.1f} s of mining")
    print(f"rate: {stats.positions / seconds:.0f} positions/s, {found * 3600 / seconds:.0f} puzzles an hour of one "
          f"core ({stats.nodes / seconds / 1000:.0f} knodes/s)")
    print(f"scan search ({LIMITS.scan_nodes} nodes), ms: {tails(miner.scans)}")
    if miner.probes:
        print(f"probe of a candidate, ms: {tails(miner.probes)}")
    theirs = peer(miner.fens)
    print(f"peer, python-chess's chess.engine on the same {len(theirs)} positions, ms: {tails(theirs)}")
    print(f"ratio of the medians (ours / python-chess): "
          f"{statistics.median(miner.scans) / statistics.median(theirs):.2f}")


if __name__ == "__main__":
    main()
