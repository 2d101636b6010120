"""`echiquier puzzles`: play Stockfish games at varied strengths, and mine puzzles from the games of a PGN file.

``echiquier puzzles games --count N --out games.pgn [--seed S] [--nodes N]`` plays Stockfish
against itself (``firmware.training.miner.play_game``), each game written as soon as it ends.
``echiquier puzzles mine GAMES.pgn --out puzzles.jsonl [--limit N]`` finds the puzzles of every
game (``firmware.training.miner``) and appends each to ``--out`` as one JSON line as soon as it
is found; the rate and what was refused go to the standard error. Exit 0 when done, 2 when
nothing could be done (no such file, no game in it, no engine, a bad option), 130 after a Ctrl-C
(what was written is kept).
"""
from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from pathlib import Path
from typing import TextIO

from chess_core import PgnError, PgnGame, read_games, write_pgn
from uci.engine import DEFAULT_ENGINE_PATH, EngineError, EngineLaunch, UciEngine

from firmware.training.miner import SLIPS, GameSettings, MineLimits, Miner, MineStats, play_game
from firmware.training.puzzles import dumps

MAX_PGN_BYTES = 256 * 1024 * 1024
ENGINE_OPTIONS = {"Threads": 1, "Hash": 16}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("puzzles", help="make puzzles: Stockfish games, then the puzzles mined from them",
                       description="Plays Stockfish games at varied strengths and mines puzzles from the games "
                       "of a PGN file, as lichess-puzzler does (firmware/training/miner.py).")
    what = p.add_subparsers(dest="puzzles_command", metavar="STEP", required=True)
    games = what.add_parser("games", help="Stockfish against itself at random Skill Levels, to a PGN file")
    games.add_argument("--count", type=int, required=True, metavar="N", help="games to play")
    games.add_argument("--out", required=True, metavar="FILE.pgn", help="where the games go")
    games.add_argument("--seed", type=int, default=1, help="draws the strengths and first moves (default 1)")
    games.add_argument("--nodes", type=int, default=3200, metavar="N",
                       help="the most nodes a move; each side's are drawn up to it (default 3200)")
    games.add_argument("--skills", default="0-20", metavar="LOW-HIGH",
                       help="Skill Levels are drawn from LOW..HIGH (default 0-20)")
    games.add_argument("--max-slip", type=float, default=max(SLIPS), metavar="P",
                       help=f"the most chance of a random move a side is given (default {max(SLIPS)})")
    games.add_argument("--engine", default=DEFAULT_ENGINE_PATH, help=f"the UCI engine (default {DEFAULT_ENGINE_PATH})")
    games.set_defaults(func=run_games)
    mine = what.add_parser("mine", help="the puzzles of the games of a PGN file, as JSON lines")
    mine.add_argument("pgn", metavar="GAMES.pgn", help="the games to mine")
    mine.add_argument("--out", required=True, metavar="FILE.jsonl", help="puzzles are appended there")
    mine.add_argument("--limit", type=int, metavar="N", help="stop after N puzzles")
    defaults = MineLimits()
    mine.add_argument("--scan-nodes", type=int, default=defaults.scan_nodes, metavar="N",
                      help=f"nodes for each position of a game (default {defaults.scan_nodes})")
    mine.add_argument("--nodes", type=int, default=defaults.pair_nodes, metavar="N",
                      help=f"nodes for each solver move, MultiPV 2 (default {defaults.pair_nodes})")
    mine.add_argument("--reply-nodes", type=int, default=defaults.reply_nodes, metavar="N",
                      help=f"nodes for each opponent reply (default {defaults.reply_nodes})")
    mine.add_argument("--scout-nodes", type=int, default=defaults.scout_pair_nodes, metavar="N",
                      help="search each line at N nodes a solver move (N/2 a reply) first, and again at the "
                           f"full budgets only if it is a puzzle there (0: no scouting; default {defaults.scout_pair_nodes})")
    mine.add_argument("--engine", default=DEFAULT_ENGINE_PATH, help=f"the UCI engine (default {DEFAULT_ENGINE_PATH})")
    mine.set_defaults(func=run_mine)


def _fail(message: str) -> int:
    print(f"echiquier puzzles: {message}", file=sys.stderr)
    return 2


def _positive(args: argparse.Namespace, *names: str) -> str | None:
    for name in names:
        value = getattr(args, name)
        if value is not None and value <= 0:
            return f"--{name.replace('_', '-')} must be > 0"
    return None


def run_games(args: argparse.Namespace) -> int:
    problem = _positive(args, "count", "nodes")
    low, _, high = args.skills.partition("-")
    if not problem and not (low.isdigit() and high.isdigit() and 0 <= int(low) <= int(high) <= 20):
        problem = "--skills must be LOW-HIGH within 0-20"
    if not problem and not 0 <= args.max_slip <= 1:
        problem = "--max-slip must be within 0..1"
    if problem:
        return _fail(problem)
    args.skill_range = (int(low), int(high))
    try:
        out = open(args.out, "w", encoding="utf-8")
    except OSError as exc:
        return _fail(f"cannot write {args.out}: {exc.strerror or exc}")
    try:
        with out:
            return asyncio.run(_games(args, out))
    except EngineError as exc:
        return _fail(str(exc))
    except KeyboardInterrupt:
        return 130


async def _games(args: argparse.Namespace, out: TextIO) -> int:
    rng = random.Random(args.seed)
    async with UciEngine(EngineLaunch(path=args.engine, options=ENGINE_OPTIONS)) as engine:
        for index in range(1, args.count + 1):
            settings = GameSettings.draw(rng, args.nodes, args.skill_range, args.max_slip)
            game = await play_game(engine, settings)
            headers = {"Event": "Echiquier puzzle games", "Site": f"seed {args.seed} game {index}",
                       "Round": str(index), "White": _player(engine.name, settings, 0),
                       "Black": _player(engine.name, settings, 1), "Seed": str(settings.seed)}
            out.write(("\n" if index > 1 else "") + write_pgn(game, headers))
            out.flush()
            print(f"game {index}/{args.count}: {len(game.moves)} plies", file=sys.stderr)
    return 0


def _player(name: str, settings: GameSettings, side: int) -> str:
    return (f"{name} skill {settings.skills[side]} nodes {settings.nodes[side]} "
            f"slips {settings.slips[side]:.0%}")


def run_mine(args: argparse.Namespace) -> int:
    problem = _positive(args, "limit", "scan_nodes", "nodes", "reply_nodes") or (
        "--scout-nodes must be >= 0" if args.scout_nodes < 0 else None)
    if problem:
        return _fail(problem)
    path = Path(args.pgn)
    try:
        if path.stat().st_size > MAX_PGN_BYTES:
            return _fail(f"{args.pgn} is larger than {MAX_PGN_BYTES // (1024 * 1024)} MB")
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        return _fail(f"cannot read {args.pgn}: {exc.strerror or exc}")
    games: list[PgnGame] = []
    bad = 0
    for found in read_games(text):
        if isinstance(found, PgnError):
            bad += 1
            print(f"echiquier puzzles: {args.pgn}: game {found.number} left out: {found}", file=sys.stderr)
        else:
            games.append(found)
    if not games:
        return _fail(f"{args.pgn} holds no game that can be read" + (f" ({bad} bad)" if bad else ""))
    limits = MineLimits(scan_nodes=args.scan_nodes, pair_nodes=args.nodes, reply_nodes=args.reply_nodes,
                        scout_pair_nodes=args.scout_nodes, scout_reply_nodes=args.scout_nodes // 2)
    try:
        out = open(args.out, "a", encoding="utf-8")
    except OSError as exc:
        return _fail(f"cannot write {args.out}: {exc.strerror or exc}")
    stats = MineStats()
    started = time.monotonic()
    try:
        with out:
            asyncio.run(_mine(args, games, limits, stats, out))
    except EngineError as exc:
        return _fail(str(exc))
    except KeyboardInterrupt:
        _report(stats, time.monotonic() - started)
        return 130
    _report(stats, time.monotonic() - started)
    return 0


async def _mine(args: argparse.Namespace, games: list[PgnGame], limits: MineLimits, stats: MineStats, out: TextIO) -> None:
    name = Path(args.pgn).name
    async with UciEngine(EngineLaunch(path=args.engine, options=ENGINE_OPTIONS)) as engine:
        miner = Miner(engine, limits, stats)
        for game in games:
            source = game.headers.get("Site") or f"{name} game {game.number}"
            for puzzle in await miner.mine(game.game.start_fen, game.game.moves, source):
                out.write(dumps([puzzle]))
                out.flush()
                if args.limit and stats.puzzles >= args.limit:
                    return


def _report(stats: MineStats, seconds: float) -> None:
    rate = stats.positions / seconds if seconds else 0.0
    per_hour = stats.puzzles * 3600 / seconds if seconds else 0.0
    refused = ", ".join(f"{why}: {n}" for why, n in sorted(stats.refused.items()))
    print(f"{stats.games} games, {stats.positions} positions, {stats.candidates} probed, {stats.puzzles} puzzles "
          f"in {seconds:.0f} s: {rate:.1f} positions/s, {per_hour:.0f} puzzles an hour; "
          f"{stats.searches} searches, {stats.nodes} nodes; refused {refused or 'none'}", file=sys.stderr)
