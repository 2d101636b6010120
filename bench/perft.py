"""Perft speed of chess_core against python-chess, measured the same way in the same run.

Two comparisons, both libraries alternating run by run so that a busy machine slows both alike:

* in this process, nodes per second of CPU time (median of the repetitions), the usual perft
  with bulk counting (the last ply's legal moves counted, not played) and, apart, with every leaf
  made and unmade (the cost of make/unmake on every move);
* whole processes: ``echiquier perft --depth D`` (start-up, imports and all) beside a plain
  python-chess perft with bulk counting in its own interpreter (``python -c``), CPU time of each
  child process (user + system, from wait4), median of the repetitions. Goal: >= 3x. When the
  optional compiled build is present (``make fast``: chess_core's hot modules compiled by mypyc),
  ``echiquier perft`` also runs on a copy of chess_core's .py files alone (pure Python), so both
  builds are measured beside python-chess in the same run.

    python bench/perft.py            # initial position depth 4, Kiwipete depth 3; processes at depth 5
    python bench/perft.py --deep     # also the other standard positions, deeper
    python bench/perft.py --reps 9
"""
from __future__ import annotations

import argparse
import importlib.machinery
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

from chess_core import Position, perft

ECHIQUIER = Path(sys.executable).with_name("echiquier")
INITIAL = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
# (name, FEN, depth, expected nodes)
STANDARD = [
    ("initial position", INITIAL, 4, 197281),
    ("Kiwipete", KIWIPETE, 3, 97862),
]
DEEP = [
    ("initial position", INITIAL, 5, 4865609),
    ("Kiwipete", KIWIPETE, 4, 4085603),
    ("position 3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5, 674624),
    ("position 4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 4, 422333),
    ("position 5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 3, 62379),
    ("position 6", "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 3, 89890),
]
PROCESS_CASES = [("initial position", INITIAL, 5, 4865609), ("Kiwipete", KIWIPETE, 4, 4085603)]

PYTHON_CHESS_PERFT = """
import sys, chess
def perft(board, depth):
    if depth == 1:
        return board.legal_moves.count()
    nodes = 0
    for move in board.legal_moves:
        board.push(move)
        nodes += perft(board, depth - 1)
        board.pop()
    return nodes
print(perft(chess.Board(sys.argv[1]), int(sys.argv[2])))
"""


def chess_core_perft(fen: str, depth: int, bulk: bool) -> int:
    return perft(Position(fen), depth, bulk)


def python_chess_perft(fen: str, depth: int, bulk: bool) -> int:
    import chess

    def walk(board: "chess.Board", depth: int) -> int:
        if bulk and depth == 1:
            return board.legal_moves.count()
        nodes = 0
        for move in board.legal_moves:
            board.push(move)
            nodes += walk(board, depth - 1) if depth > 1 else 1
            board.pop()
        return nodes

    return walk(chess.Board(fen), depth) if depth > 0 else 1


def timed(run: Callable[[str, int, bool], int], fen: str, depth: int, expected: int, bulk: bool) -> float:
    """Nodes per second of CPU time for one run; the count must be the published one."""
    start = time.process_time()
    nodes = run(fen, depth, bulk)
    elapsed = time.process_time() - start
    if nodes != expected:
        raise SystemExit(f"wrong perft count: {nodes}, expected {expected} ({fen} depth {depth})")
    return nodes / elapsed


def compiled_modules() -> list[str]:
    """chess_core's modules built as extensions (the optional mypyc build), by file name."""
    import chess_core
    return sorted(p.name for p in Path(chess_core.__file__).parent.iterdir()
                  if p.name.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)))


def child_cpu(argv: list[str], expected: int, env: dict | None = None) -> float:
    """CPU seconds (user + system) of a child process that must print ``expected``."""
    read, write = os.pipe()
    proc = subprocess.Popen(argv, stdout=write, stderr=subprocess.DEVNULL, env=env)
    os.close(write)
    with os.fdopen(read) as out:
        text = out.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0 or text.strip() != str(expected):
        raise SystemExit(f"{argv[:3]}: exit {proc.returncode}, printed {text.strip()!r}, expected {expected}")
    return usage.ru_utime + usage.ru_stime


def in_process(cases, reps: int, bulk: bool, chess) -> None:
    what = "bulk counting at the last ply" if bulk else "every leaf made and unmade"
    print(f"\nin process, {what}; median of {reps} runs; nodes/s of CPU time")
    print(f"{'position':<18}{'depth':>6}{'nodes':>10}{'chess_core':>14}{'python-chess':>14}{'ratio':>8}")
    for name, fen, depth, expected in cases:
        ours, theirs = [], []
        for _ in range(reps):
            ours.append(timed(chess_core_perft, fen, depth, expected, bulk))
            if chess is not None:
                theirs.append(timed(python_chess_perft, fen, depth, expected, bulk))
        ours_median = statistics.median(ours)
        if theirs:
            theirs_median = statistics.median(theirs)
            print(f"{name:<18}{depth:>6}{expected:>10}{ours_median:>14,.0f}{theirs_median:>14,.0f}"
                  f"{ours_median / theirs_median:>8.2f}")
        else:
            print(f"{name:<18}{depth:>6}{expected:>10}{ours_median:>14,.0f}{'-':>14}{'-':>8}")


def processes(reps: int) -> None:
    compiled = compiled_modules()
    pure_env = None
    if compiled:
        import chess_core
        pure = Path(tempfile.mkdtemp(prefix="perft-pure-"))
        shutil.copytree(Path(chess_core.__file__).parent, pure / "chess_core",
                        ignore=lambda d, names: [n for n in names if not n.endswith(".py")])
        pure_env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [str(pure), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]))
        print(f"\ncompiled build present ({len(compiled)} modules: {', '.join(n.split('.')[0] for n in compiled)}); "
              "'pure' runs a copy of chess_core's .py files")
    print(f"\nwhole processes, bulk counting: `echiquier perft` beside `python -c <python-chess perft>`; "
          f"median of {reps}; CPU s of the child")
    print(f"{'position':<18}{'depth':>6}{'nodes':>10}{'echiquier':>12}{'python-chess':>14}{'ratio':>8}"
          + (f"{'pure':>9}{'ratio':>8}{'compiled/pure':>15}" if compiled else ""))
    for name, fen, depth, expected in PROCESS_CASES:
        ours, theirs, pures = [], [], []
        command = [str(ECHIQUIER), "perft", "--fen", fen, "--depth", str(depth)]
        for _ in range(reps):
            ours.append(child_cpu(command, expected))
            theirs.append(child_cpu([sys.executable, "-c", PYTHON_CHESS_PERFT, fen, str(depth)], expected))
            if compiled:
                pures.append(child_cpu(command, expected, env=pure_env))
        o, t = statistics.median(ours), statistics.median(theirs)
        line = f"{name:<18}{depth:>6}{expected:>10}{o:>11.2f}s{t:>13.2f}s{t / o:>8.2f}"
        if compiled:
            p = statistics.median(pures)
            line += f"{p:>8.2f}s{t / p:>8.2f}{p / o:>14.2f}x"
        print(line + "  goal >= 3")
    if compiled:
        shutil.rmtree(pure)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5, help="repetitions per position (median taken)")
    parser.add_argument("--process-reps", type=int, default=3, help="repetitions of the process runs")
    parser.add_argument("--deep", action="store_true", help="also run the deeper standard positions")
    args = parser.parse_args(argv)
    try:
        import chess
    except ImportError:
        chess = None
        print("python-chess is not installed: chess_core figures only, no ratio")
    cases = STANDARD + (DEEP if args.deep else [])
    if chess is not None:
        print(f"python-chess {chess.__version__}, Python {sys.version.split()[0]}")
    in_process(cases, args.reps, True, chess)
    in_process(cases, args.reps, False, chess)
    print("ratio = chess_core nodes/s / python-chess nodes/s (higher is faster)")
    if chess is not None:
        processes(args.process_reps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
