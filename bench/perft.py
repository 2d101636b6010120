"""Perft speed of chess_core against python-chess, measured the same way in the same run.

Both libraries walk the legal move tree with plain make/unmake down to the leaves: every leaf
is made and unmade (no bulk counting at depth 1), so the figure is the cost of generating,
making and unmaking moves. Runs alternate between the libraries so that a busy machine slows
both alike; each figure is the median of the repetitions, in nodes per second of CPU time.

    python bench/perft.py            # initial position depth 4, Kiwipete depth 3
    python bench/perft.py --deep     # also the other standard positions, deeper
    python bench/perft.py --reps 9
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from typing import Callable

from chess_core import Position, perft

# (name, FEN, depth, expected nodes)
STANDARD = [
    ("initial position", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 4, 197281),
    ("Kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 3, 97862),
]
DEEP = [
    ("initial position", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 5, 4865609),
    ("Kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 4, 4085603),
    ("position 3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5, 674624),
    ("position 4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 4, 422333),
    ("position 5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 3, 62379),
    ("position 6", "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 3, 89890),
]


def chess_core_perft(fen: str, depth: int) -> int:
    return perft(Position(fen), depth)


def python_chess_perft(fen: str, depth: int) -> int:
    import chess

    def walk(board: "chess.Board", depth: int) -> int:
        nodes = 0
        for move in board.legal_moves:
            board.push(move)
            nodes += walk(board, depth - 1) if depth > 1 else 1
            board.pop()
        return nodes

    return walk(chess.Board(fen), depth) if depth > 0 else 1


def timed(run: Callable[[str, int], int], fen: str, depth: int, expected: int) -> float:
    """Nodes per second of CPU time for one run; the count must be the published one."""
    start = time.process_time()
    nodes = run(fen, depth)
    elapsed = time.process_time() - start
    if nodes != expected:
        raise SystemExit(f"wrong perft count: {nodes}, expected {expected} ({fen} depth {depth})")
    return nodes / elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5, help="repetitions per position (median taken)")
    parser.add_argument("--deep", action="store_true", help="also run the deeper standard positions")
    args = parser.parse_args(argv)
    try:
        import chess
    except ImportError:
        chess = None
        print("python-chess is not installed: chess_core figures only, no ratio")
    cases = STANDARD + (DEEP if args.deep else [])
    print(f"perft, make/unmake to every leaf; median of {args.reps} runs; nodes/s of CPU time")
    if chess is not None:
        print(f"python-chess {chess.__version__}, Python {sys.version.split()[0]}")
    print(f"{'position':<18}{'depth':>6}{'nodes':>10}{'chess_core':>14}{'python-chess':>14}{'ratio':>8}")
    for name, fen, depth, expected in cases:
        ours, theirs = [], []
        for _ in range(args.reps):
            ours.append(timed(chess_core_perft, fen, depth, expected))
            if chess is not None:
                theirs.append(timed(python_chess_perft, fen, depth, expected))
        ours_median = statistics.median(ours)
        if theirs:
            theirs_median = statistics.median(theirs)
            print(f"{name:<18}{depth:>6}{expected:>10}{ours_median:>14,.0f}{theirs_median:>14,.0f}"
                  f"{ours_median / theirs_median:>8.2f}")
        else:
            print(f"{name:<18}{depth:>6}{expected:>10}{ours_median:>14,.0f}{'-':>14}{'-':>8}")
    print("ratio = chess_core nodes/s / python-chess nodes/s (higher is faster)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
