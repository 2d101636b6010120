"""Benchmark of chess_core.dead: the CHA test vector, and is_dead on ordinary positions.

Prints, for the vector (1,803 positions, two side-questions each): how many questions are decided,
how many verdicts are wrong (must be 0), and the time per position (both sides) and per question,
median and 99th percentile. Then the cost of is_dead after the moves of random games, the way
Game calls it, next to the cost of chess_core's own move generation on the same positions (the
peer figure).

    python bench/dead_position.py [--budget N] [--step K] [--jobs J] [--games G]

``--step K`` takes every K-th position of the vector; ``--jobs`` spreads it over processes.
The published analyser (CHA 2) decides 3,586 of the 3,606 questions.
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from chess_core.dead import DEFAULT_BUDGET, Mateability, can_mate, forget_proofs, is_dead  # noqa: E402
from chess_core.position import Position  # noqa: E402
from chess_core.squares import BLACK, WHITE  # noqa: E402

VECTOR = ROOT / "tests" / "chess_core" / "data" / "cha-test-vector.txt"


def position(fen: str) -> Position:
    """The position of ``fen``; composed positions that FEN validation refuses (more promoted pieces
    than missing pawns, as in some of the vector's problems) are read all the same; some lines
    give only the placement and the side to move."""
    fields = fen.split()
    return Position.from_fen(" ".join(fields + ["-"] * (4 - len(fields))), validate=False)


def analyse(args: tuple[str, str, int]) -> tuple[int, int, float, list[float]]:
    """Both questions of one position: decided, wrong, CPU seconds (both), CPU seconds each.

    CPU time of the process, not wall time: this machine is shared, and the other processes'
    load would otherwise be counted.
    """
    tag, fen, budget = args
    decided = wrong = 0
    times = []
    for color in (WHITE, BLACK):
        forget_proofs()  # cold: nothing proved before counts
        pos = position(fen)
        start = time.process_time()
        verdict = can_mate(pos, color, budget=budget).verdict
        times.append(time.process_time() - start)
        can = tag[color] != "-"
        if verdict is Mateability.CAN_MATE:
            decided += 1
            wrong += not can
        elif verdict is Mateability.CANNOT_MATE:
            decided += 1
            wrong += can
    return decided, wrong, sum(times), times


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def bench_vector(budget: int, step: int, jobs: int) -> None:
    rows = []
    for line in VECTOR.read_text().splitlines():
        if not line.startswith("#") and line.strip():
            rows.append((line[:2], line[3:].strip(), budget))
    rows = rows[::step]
    start = time.perf_counter()
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            results = list(pool.map(analyse, rows, chunksize=4))
    else:
        results = [analyse(row) for row in rows]
    wall = time.perf_counter() - start
    decided = sum(r[0] for r in results)
    wrong = sum(r[1] for r in results)
    per_position = [r[2] for r in results]
    per_question = [t for r in results for t in r[3]]
    print(f"CHA test vector: {len(rows)} positions, {2 * len(rows)} side-questions, budget {budget}")
    print(f"  decided {decided} / {2 * len(rows)}   wrong {wrong}   "
          f"(CHA 2: 3586 / 3606 on the whole vector)")
    print(f"  CPU time per position (both sides): median {statistics.median(per_position) * 1e3:.1f} ms, "
          f"p99 {percentile(per_position, 0.99) * 1e3:.1f} ms, max {max(per_position) * 1e3:.1f} ms")
    print(f"  CPU time per question:              median {statistics.median(per_question) * 1e3:.1f} ms, "
          f"p99 {percentile(per_question, 0.99) * 1e3:.1f} ms")
    print(f"  wall {wall:.1f} s with {jobs} process(es)")


def bench_is_dead(games: int) -> None:
    rng = random.Random(20260101)
    positions = []
    for _ in range(games):
        pos = Position()
        for _ply in range(rng.randint(20, 160)):
            moves = pos.legal_moves()
            if not moves:
                break
            pos.push(rng.choice(moves))
            positions.append(pos.copy())
    # Cold: the first question about each position, with the memory of proved verdicts cleared
    # (a game asks once per move). Warm: the same question again (a takeback, Game.reopen), apart.
    dead_times, warm_times, gen_times, found = [], [], [], 0
    for pos in positions:
        forget_proofs()
        start = time.process_time()
        found += is_dead(pos)
        dead_times.append(time.process_time() - start)
        start = time.process_time()
        is_dead(pos)
        warm_times.append(time.process_time() - start)
        start = time.process_time()
        for _ in range(5):
            pos.legal_codes()
        gen_times.append((time.process_time() - start) / 5)
    print(f"is_dead (CPU time) after every move of {games} random games ({len(positions)} positions, {found} dead):")
    print(f"  cold (first asked)  median {statistics.median(dead_times) * 1e6:.0f} us, "
          f"p90 {percentile(dead_times, 0.9) * 1e6:.0f} us, p99 {percentile(dead_times, 0.99) * 1e3:.1f} ms, "
          f"max {max(dead_times) * 1e3:.1f} ms")
    print(f"  warm (asked again)  median {statistics.median(warm_times) * 1e6:.0f} us, "
          f"p99 {percentile(warm_times, 0.99) * 1e3:.1f} ms, max {max(warm_times) * 1e3:.1f} ms")
    print(f"  peer: one legal move generation, median {statistics.median(gen_times) * 1e6:.0f} us "
          f"(ratio {statistics.median(dead_times) / statistics.median(gen_times):.1f})")
    middlegames = [
        "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8",
        "r2q1rk1/pb1nbppp/1p2pn2/2pp4/3P4/1PN1PNP1/PBQ1PPBP/R4RK1 w - - 0 11",  # pawns rammed
        "rnbqk2r/ppp1ppbp/3p1np1/8/2PPP3/2N5/PP3PPP/R1BQKBNR w KQkq - 0 5",
        "r1bqk2r/pp1nbppp/2p1pn2/3p4/2PP4/2NBPN2/PP3PPP/R1BQK2R w KQkq - 0 7",
        "2r2rk1/1b2qppp/p3pn2/1p6/3N4/P1B1P3/1P2QPPP/2RR2K1 w - - 0 20",
    ]
    for fen in middlegames:  # the fast path: nothing is remembered, every call is cold
        pos = Position(fen)
        start = time.process_time()
        for _ in range(200):
            is_dead(pos)
        print(f"  {fen}: {(time.process_time() - start) / 200 * 1e6:.0f} us")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=DEFAULT_BUDGET)
    parser.add_argument("--step", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--games", type=int, default=100)
    args = parser.parse_args()
    if VECTOR.exists():
        bench_vector(args.budget, args.step, args.jobs)
    else:
        print(f"CHA test vector not found at {VECTOR}: skipped")
    bench_is_dead(args.games)


if __name__ == "__main__":
    main()
