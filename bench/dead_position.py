"""Benchmark of chess_core.dead: the judgement after every move of long games, the replay of them, and the CHA test vector.

Prints, CPU time (process time: this machine is shared):

* is_dead after every move of long Stockfish games (tests/chess_core/data/stockfish-long.pgn),
  asked as a game asks it (what was proved for one position carries to the next): median, p99,
  max per move and the total; the same after every move of random games;
* ``echiquier replay`` of those games (captures made by the simulated hands of
  tests/fakes/hands.py), in this process, so without the command's start-up: CPU per ply, with
  the exact dead-position rule (the default) and without it;
* the CHA test vector (1,803 positions, two side-questions each): how many questions are decided,
  how many verdicts are wrong (must be 0), the time per question and in all. The published
  analyser (CHA 2, in C++ on Stockfish) decides 3,586 of the 3,606 with a limit of 10 million
  nodes a question; ``--budget 5000000`` measures this analysis near that limit.

    python bench/dead_position.py [--budget N] [--step K] [--jobs J] [--games G] [--no-vector | --no-games]
    python bench/dead_position.py --compare REF     # the same figures for commit REF, in the same run

``--step K`` takes every K-th position of the vector; ``--jobs`` spreads it over processes.
``--compare REF`` measures the tree of REF too (git archive into a temporary directory, run by
this script in a subprocess with that tree first on the path), before this one.
"""
from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VECTOR = ROOT / "tests" / "chess_core" / "data" / "cha-test-vector.txt"
LONG_GAMES = ROOT / "tests" / "chess_core" / "data" / "stockfish-long.pgn"
CHA_DECIDED = 3586
CHA_LIMIT = 10_000_000
CHA_NODES = 435_276_245


def _use(root: Path) -> None:
    """Import the project (chess_core, firmware) from ``root``; the tests' helpers from this tree."""
    sys.path[:0] = [str(root)] if root == ROOT else [str(root), str(ROOT)]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def position(fen: str):  # type: ignore[no-untyped-def]
    """The position of ``fen``; composed positions that FEN validation refuses (more promoted pieces
    than missing pawns, as in some of the vector's problems) are read all the same; some lines
    give only the placement and the side to move."""
    from chess_core.position import Position
    fields = fen.split()
    return Position.from_fen(" ".join(fields + ["-"] * (4 - len(fields))), validate=False)


# -- the vector -------------------------------------------------------------------------------------

def analyse(args: tuple[str, str, int]) -> tuple[int, int, list[float]]:
    """Both questions of one position, each cold (nothing proved before counts): decided, wrong,
    CPU seconds of each."""
    from chess_core.dead import Mateability, can_mate, forget_proofs
    tag, fen, budget = args
    decided = wrong = 0
    times = []
    for color in (0, 1):
        forget_proofs()
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
    return decided, wrong, times


def bench_vector(budget: int, step: int, jobs: int) -> None:
    rows = []
    for line in VECTOR.read_text().splitlines():
        if not line.startswith("#") and line.strip():
            rows.append((line[:2], line[3:].strip(), budget))
    rows = rows[::step]
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            results = list(pool.map(analyse, rows, chunksize=4))
    else:
        results = [analyse(row) for row in rows]
    decided = sum(r[0] for r in results)
    wrong = sum(r[1] for r in results)
    per_question = [t for r in results for t in r[2]]
    print(f"CHA test vector: {len(rows)} positions, {2 * len(rows)} side-questions, budget {budget}")
    print(f"  decided {decided} / {2 * len(rows)}   wrong {wrong}")
    print(f"  CHA 2 as published (tests/test.output of D3-Chess: C++ on Stockfish, a limit of "
          f"{CHA_LIMIT:,} nodes a question): {CHA_DECIDED} / 3606 on the whole vector, "
          f"{CHA_NODES:,} nodes in all (no times published)")
    print(f"  CPU per question: median {statistics.median(per_question) * 1e3:.1f} ms, "
          f"p99 {percentile(per_question, 0.99) * 1e3:.0f} ms, max {max(per_question) * 1e3:.0f} ms, "
          f"total {sum(per_question):.0f} s")


# -- games ------------------------------------------------------------------------------------------

def long_games() -> list[list[str]]:
    import chess.pgn
    games = []
    with LONG_GAMES.open() as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            games.append([move.uci() for move in game.mainline_moves()])
    return games


def random_games(count: int) -> list[list[str]]:
    from chess_core.position import Position
    rng = random.Random(20260101)
    games = []
    for _ in range(count):
        pos = Position()
        moves = []
        for _ply in range(rng.randint(20, 160)):
            legal = pos.legal_moves()
            if not legal:
                break
            move = rng.choice(legal)
            pos.push(move)
            moves.append(move.uci())
        games.append(moves)
    return games


def judge_games(games: list[list[str]]) -> tuple[list[float], int]:
    """is_dead after every move, as a game asks it (the memory of proofs carried from move to
    move, cleared between games); CPU seconds per move, and the games found dead."""
    from chess_core.dead import forget_proofs, is_dead
    from chess_core.move import Move
    from chess_core.position import Position
    times = []
    dead = 0
    for moves in games:
        forget_proofs()
        pos = Position()
        for uci in moves:
            pos.push(Move.from_uci(uci))
            start = time.process_time()
            verdict = is_dead(pos)
            times.append(time.process_time() - start)
            if verdict:
                dead += 1
                break
    return times, dead


def report_judgement(name: str, games: list[list[str]]) -> None:
    times, dead = judge_games(games)
    print(f"is_dead after every move of {name} ({len(games)} games, {len(times)} moves, {dead} ended dead):")
    print(f"  median {statistics.median(times) * 1e3:.3f} ms, p90 {percentile(times, 0.9) * 1e3:.2f} ms, "
          f"p99 {percentile(times, 0.99) * 1e3:.1f} ms, max {max(times) * 1e3:.1f} ms, "
          f"total {sum(times):.2f} s ({sum(times) / len(times) * 1e3:.2f} ms a move)")


def bench_replay(games: list[list[str]]) -> None:
    """CPU per ply of `echiquier replay` on captures of ``games`` (in this process: no start-up)."""
    from chess_core.dead import forget_proofs
    from firmware.commands.replay import replay
    from firmware.referee.match import MatchConfig
    from tests.fakes.hands import capture_game
    print("echiquier replay of the long games (captures by tests/fakes/hands.py, seeds 0..), CPU per ply:")
    for seed, moves in enumerate(games):
        lines = capture_game(moves, seed=seed).lines
        figures = []
        for exact in (True, False):
            forget_proofs()
            start = time.process_time()
            match = replay(lines, MatchConfig(exact_dead_positions=exact))
            spent = time.process_time() - start
            figures.append((spent, len(match.game.moves)))
        (exact_s, plies), (material_s, _) = figures
        print(f"  game {seed + 1}: {plies} plies, {exact_s / plies * 1e3:.2f} ms a ply "
              f"(material rules only: {material_s / plies * 1e3:.2f} ms), {exact_s:.2f} s")


def bench(args: argparse.Namespace) -> None:
    if not args.no_games:
        games = long_games()
        report_judgement("the long Stockfish games", games)
        report_judgement("random games", random_games(args.games))
        bench_replay(games)
    if not args.no_vector:
        bench_vector(args.budget, args.step, args.jobs)


def compare(ref: str, argv: list[str]) -> None:
    """The figures of commit ``ref`` (its tree from git archive), by this script in a subprocess."""
    with tempfile.TemporaryDirectory(prefix="dead-position-") as tree:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tree], input=archive, check=True)
        print(f"== {ref} ({subprocess.run(['git', '-C', str(ROOT), 'rev-parse', '--short', ref], capture_output=True, text=True).stdout.strip()})", flush=True)
        subprocess.run([sys.executable, __file__, "--root", tree, *argv], check=True, cwd=tree)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--budget", type=int, default=None, help="the vector's budget (default: can_mate's)")
    parser.add_argument("--step", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--games", type=int, default=100, help="random games")
    parser.add_argument("--no-vector", action="store_true", help="skip the CHA vector (minutes)")
    parser.add_argument("--no-games", action="store_true", help="the CHA vector only")
    parser.add_argument("--compare", metavar="REF", help="measure commit REF as well, first")
    parser.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.compare:
        passed = [a for a in sys.argv[1:] if a != "--compare" and a != args.compare]
        compare(args.compare, passed)
        print(f"== this tree ({ROOT})", flush=True)
    _use(args.root.resolve())
    if args.budget is None:
        from chess_core.dead import DEFAULT_BUDGET
        args.budget = DEFAULT_BUDGET
    bench(args)


if __name__ == "__main__":
    main()
