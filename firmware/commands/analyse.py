"""`echiquier analyse`: Stockfish's analysis of the games of a PGN file, written into it as Lichess exports an analysed game.

Every game of the file is analysed (``firmware.analysis``): each position searched for a fixed
time (``--movetime``, 200 ms by default) or to a fixed depth (``--depth``: the same evaluations
run after run), by one engine process at the lowest priority, one thread, a bounded hash. The
annotated PGN goes to ``--out`` (written whole, atomically) or to the standard output; a line per
game on the standard error says each side's accuracy and faults. Exit 0 when every game was
analysed, 1 when some could not be read (the others are written), 2 when nothing could be done
(no such file, no engine, a bad option).
"""
from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

from chess_core import PgnError, PgnGame, read_games

from firmware.analysis.annotated import annotated_pgn
from firmware.analysis.engine import HASH_MB, NICE, AnalysisLimit, evaluate_game
from firmware.analysis.judgement import Judgement
from firmware.analysis.review import GameReview, review
from firmware.atomic_file import write_atomically
from firmware.openings import classify
from firmware.opponents.engine.uci import DEFAULT_ENGINE_PATH, EngineError

DEFAULT_MOVETIME_MS = 200
PLURALS = {Judgement.INACCURACY: "inaccuracies", Judgement.MISTAKE: "mistakes", Judgement.BLUNDER: "blunders"}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("analyse", aliases=["analyze"], help="Stockfish's analysis of the games of a PGN file",
                       description="Analyses every game of a PGN file with Stockfish and writes it back with "
                       "[%eval] comments, the opening, ?! ? ?? marks, the better move and its line, as Lichess exports an "
                       "analysed game; each side's accuracy is printed on the standard error.")
    p.add_argument("pgn", metavar="FILE.pgn", help="the games to analyse (- reads the standard input)")
    limit = p.add_mutually_exclusive_group()
    limit.add_argument("--movetime", type=int, metavar="MS",
                       help=f"milliseconds of search per position (default {DEFAULT_MOVETIME_MS})")
    limit.add_argument("--depth", type=int, metavar="N",
                       help="search each position to this depth instead (the same evaluations every run)")
    p.add_argument("--out", metavar="FILE", help="write the analysed games there (default: the standard output)")
    p.add_argument("--engine", default=DEFAULT_ENGINE_PATH, help=f"the UCI engine (default {DEFAULT_ENGINE_PATH})")
    p.add_argument("--hash", type=int, default=HASH_MB, metavar="MB", help=f"the engine's hash (default {HASH_MB} MB)")
    p.set_defaults(func=run)


def summary(index: int, game: PgnGame, found: GameReview) -> str:
    """One line per game: "game 1 (Anna - Ben): White 87.3% (1 mistake), Black 64.0% (2 blunders)"."""
    first = 1 if found.start_fen.split()[1:2] == ["b"] else 0
    counts: list[dict[Judgement, int]] = [{j: 0 for j in Judgement}, {j: 0 for j in Judgement}]
    for move in found.moves:
        if move.advice is not None:
            counts[first if move.ply % 2 else 1 - first][move.advice.judgement] += 1
    parts = []
    for side, name in ((0, "White"), (1, "Black")):
        faults = ", ".join(f"{n} {PLURALS[j] if n > 1 else j.word.lower()}" for j, n in counts[side].items() if n)
        accuracy = f"{found.accuracy[side]:.1f}%" if found.accuracy else "-"
        parts.append(f"{name} {accuracy}" + (f" ({faults})" if faults else ""))
    players = f"{game.headers.get('White', '?')} - {game.headers.get('Black', '?')}"
    return f"game {index} ({players}): " + ", ".join(parts)


async def analyse_games(games: list[PgnGame], limit: AnalysisLimit, engine: str, hash_mb: int) -> list[str]:
    texts = []
    for index, game in enumerate(games, start=1):
        def progress(done: int, total: int, index: int = index) -> None:
            if sys.stderr.isatty():    # (a count that rewrites itself: on a terminal only)
                print(f"\rgame {index}: {done}/{total} positions", end="", file=sys.stderr, flush=True)

        names: list[str] = []
        evals = await evaluate_game(game.moves, limit, start_fen=game.game.start_fen, chess960=game.game.chess960,
                                    engine_path=engine, hash_mb=hash_mb, progress=progress, names=names)
        name = names[0] if names else "Stockfish"
        found = review(game.moves, evals, start_fen=game.game.start_fen, chess960=game.game.chess960,
                       engine=name, limit=limit.text())
        print(("\r" if sys.stderr.isatty() else "") + summary(index, game, found), file=sys.stderr)
        texts.append(annotated_pgn(game, found, annotator=f"{name}, {limit.text()}", opening=classify(game.game)))
    return texts


def run(args: argparse.Namespace) -> int:
    try:
        limit = AnalysisLimit(movetime_ms=DEFAULT_MOVETIME_MS if args.movetime is None and args.depth is None
                              else args.movetime, depth=args.depth)
    except ValueError as exc:
        print(f"echiquier analyse: {exc}", file=sys.stderr)
        return 2
    if not 1 <= args.hash <= 1024:
        print("echiquier analyse: --hash is 1 to 1024 MB", file=sys.stderr)
        return 2
    try:
        text = sys.stdin.read() if args.pgn == "-" else Path(args.pgn).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        print(f"echiquier analyse: cannot read {args.pgn}: {getattr(exc, 'strerror', None) or exc}", file=sys.stderr)
        return 2
    games: list[PgnGame] = []
    unread = 0
    for found in read_games(text):
        if isinstance(found, PgnError):
            print(f"echiquier analyse: {found} (left out)", file=sys.stderr)
            unread += 1
        else:
            games.append(found)
    if not games:
        print(f"echiquier analyse: no game to analyse in {args.pgn}", file=sys.stderr)
        return 2
    niceness = os.nice(0)
    if niceness < NICE:
        os.nice(NICE - niceness)     # this process too gives way to the board's service
    try:
        texts = asyncio.run(analyse_games(games, limit, args.engine, args.hash))
    except EngineError as exc:
        print(f"\nechiquier analyse: {exc}", file=sys.stderr)
        return 2
    out = "\n".join(texts)
    if args.out:
        try:
            write_atomically(args.out, out)
        except OSError as exc:
            print(f"echiquier analyse: cannot write {args.out}: {exc.strerror or exc}", file=sys.stderr)
            return 2
    else:
        sys.stdout.write(out)
    return 1 if unread else 0
