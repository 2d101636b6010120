"""Benchmark of chess_core's public Move API beside python-chess, on the same moves in the same run.

* push + pop of a Move (legality checked by chess_core; python-chess's push does not check);
* san(position, move) beside python-chess's Board.san (both with check and mate marks);
* the session's SAN cache (firmware.session.state.SanCache) per snapshot, one new move each time,
  early and late in long games: it must not grow with the game's length. Peer: one python-chess
  Board.san of the new move (the work a snapshot cannot avoid).

Games are random legal games (fixed seed). Each figure is per call, in microseconds of wall time
(perf_counter_ns around each call), median and p99 over every call; both libraries run
alternately, game by game, so a busy machine slows both alike.

    python bench/move_api.py [--games 60]
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

from chess_core import Game, Move, Position, san  # noqa: E402
from firmware.session.state import SanCache  # noqa: E402

ns = time.perf_counter_ns


def games(count: int, plies: int) -> list[list[Move]]:
    rng = random.Random(20261201)
    out = []
    while len(out) < count:
        game = Game(rules="casual")
        while len(game.moves) < plies and not game.is_over:
            game.push(rng.choice(game.position.legal_moves()))
        out.append(list(game.moves))
    return out


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def bench_push_pop(moves_list, ours, theirs) -> None:
    for moves in moves_list:
        pos = Position()
        push, pop = pos.push, pos.pop
        for move in moves:
            t = ns()
            push(move)
            ours.append(ns() - t)
        for _ in moves:
            t = ns()
            pop()
            ours.append(ns() - t)
        board = chess.Board()
        cmoves = [chess.Move(m.from_square, m.to_square, m.promotion) for m in moves]
        bpush, bpop = board.push, board.pop
        for move in cmoves:
            t = ns()
            bpush(move)
            theirs.append(ns() - t)
        for _ in cmoves:
            t = ns()
            bpop()
            theirs.append(ns() - t)


def bench_san(moves_list, ours, theirs) -> None:
    for moves in moves_list:
        pos = Position()
        for move in moves:
            t = ns()
            san(pos, move)
            ours.append(ns() - t)
            pos.push(move)
        board = chess.Board()
        for m in moves:
            move = chess.Move(m.from_square, m.to_square, m.promotion)
            t = ns()
            board.san(move)
            theirs.append(ns() - t)
            board.push(move)


def bench_cache(moves_list, ours: dict, theirs: dict, buckets) -> None:
    for moves in moves_list:
        game, cache = Game(rules="casual"), SanCache()
        board = chess.Board()
        for ply, move in enumerate(moves):
            game.push(move)
            t = ns()
            cache.update(game)
            spent = ns() - t
            cmove = chess.Move(move.from_square, move.to_square, move.promotion)
            t = ns()
            board.san(cmove)
            peer = ns() - t
            board.push(cmove)
            for lo, hi in buckets:
                if lo <= ply < hi:
                    ours[(lo, hi)].append(spent)
                    theirs[(lo, hi)].append(peer)


def row(name: str, ours: list[int], theirs: list[int]) -> None:
    om, tm = statistics.median(ours) / 1000, statistics.median(theirs) / 1000
    print(f"  {name:34s} {om:8.1f} {pct(ours, 0.99) / 1000:8.1f}   {tm:8.1f} {pct(theirs, 0.99) / 1000:8.1f}"
          f"   x{tm / om:5.2f}  ({len(ours)} calls)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=60)
    args = parser.parse_args()
    long_games = games(args.games, 400)
    print(f"python-chess {chess.__version__}, Python {sys.version.split()[0]}; {args.games} random games, "
          f"{sum(map(len, long_games))} moves")
    print(f"  {'(us per call)':34s} {'ours':>8s} {'p99':>8s}   {'peer':>8s} {'p99':>8s}   speed-up (median)")
    ours, theirs = [], []
    bench_push_pop(long_games, ours, theirs)
    row("push or pop of a Move", ours, theirs)
    ours, theirs = [], []
    bench_san(long_games, ours, theirs)
    row("san(), English letters", ours, theirs)
    buckets = [(0, 50), (150, 200), (350, 400)]
    cache_ours = {b: [] for b in buckets}
    cache_theirs = {b: [] for b in buckets}
    bench_cache(long_games, cache_ours, cache_theirs, buckets)
    for lo, hi in buckets:
        if cache_ours[(lo, hi)]:
            row(f"SanCache.update, plies {lo}-{hi}", cache_ours[(lo, hi)], cache_theirs[(lo, hi)])
    print("peers: python-chess Board.push/pop, Board.san; for SanCache.update (English and French SAN of"
          " the new move) one Board.san")
    return 0


if __name__ == "__main__":
    sys.exit(main())
