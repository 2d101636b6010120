"""`echiquier analyse`: Stockfish's analysis of the games of a PGN file, written into it as Lichess exports an analysed game.

Every game of the file is analysed (``firmware.analysis``): each position searched for a fixed
time (``--movetime``, 200 ms by default) or to a fixed depth (``--depth``: the same evaluations
run after run), by one engine process at the lowest priority, one thread, a bounded hash. The
annotated PGN goes to ``--out`` or to the standard output; a line per
game on the standard error says each side's accuracy and faults. Each game is written as soon as
it is analysed (``--out`` rewritten whole, atomically, after each game): what was written is valid
PGN at every moment, and a Ctrl-C (SIGINT) or a timeout (SIGTERM) keeps the games done, with a
line that says how many. Exit 0 when every game was analysed, 1 when some could not be read (the
others are written), 2 when nothing could be done (no such file, no engine, a bad option), 130
after a Ctrl-C, 143 after a SIGTERM.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from chess_core import PgnError, PgnGame, read_games

from firmware.analysis.annotated import annotated_pgn
from firmware.analysis.engine import HASH_MB, NICE, AnalysisLimit, evaluate_game
from firmware.analysis.judgement import Judgement
from firmware.analysis.review import GameReview, review
from durable.atomic_file import write_atomically
from firmware.openings import classify
from uci.engine import DEFAULT_ENGINE_PATH, EngineError

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


def _file_mode(path: str) -> int:
    """The mode a file the user names is written with: its own if it exists, else as any new file
    of theirs (0666 less the umask), not the service's private 0640."""
    try:
        return os.stat(path).st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


class Output:
    """Where the analysed games go, each as soon as it is done, so that what was written is
    valid PGN at every moment: ``--out`` is rewritten whole (atomically: the games so far),
    the standard output gets each game and is flushed."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self.texts: list[str] = []
        self.mode = _file_mode(path) if path else 0o644


    def add(self, text: str) -> None:
        """Write one more game (OSError: ``--out`` cannot be written; it keeps the games before)."""
        self.texts.append(text)
        if self.path:
            write_atomically(self.path, "\n".join(self.texts), mode=self.mode)
        else:
            sys.stdout.write(("\n" if len(self.texts) > 1 else "") + text)
            sys.stdout.flush()


async def analyse_games(games: list[PgnGame], limit: AnalysisLimit, engine: str, hash_mb: int,
                        output: Output) -> None:
    """Analyse the games one after the other, each written out (``output``) before its line on
    the standard error."""
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
        output.add(annotated_pgn(game, found, annotator=f"{name}, {limit.text()}", opening=classify(game.game)))
        print(("\r" if sys.stderr.isatty() else "") + summary(index, game, found), file=sys.stderr)


async def until_stopped(work: Coroutine[Any, Any, None], caught: list[int]) -> None:
    """Run ``work`` until it ends, or until SIGINT (Ctrl-C) or SIGTERM (a timeout, a stop):
    then it is cancelled (the engine quit and reaped) and the signal's number put in ``caught``.
    The signal is noted at once, before the loop reads anything: an engine that ends meanwhile
    is then no engine error (the engine runs in a session of its own: the Ctrl-C is ours alone)."""
    task = asyncio.current_task()
    assert task is not None

    def stop(signum: int, frame: object) -> None:
        if not caught:
            caught.append(signum)
            task.cancel()
            asyncio.get_running_loop().call_soon_threadsafe(lambda: None)   # (wakes a waiting select)

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        await work
    except (asyncio.CancelledError, EngineError):
        if not caught:
            raise
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


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
    output = Output(args.out)
    caught: list[int] = []
    try:
        asyncio.run(until_stopped(analyse_games(games, limit, args.engine, args.hash, output), caught))
    except (KeyboardInterrupt, asyncio.CancelledError):   # (a signal before or after the handlers were in place)
        caught.append(signal.SIGINT)
    except EngineError as exc:
        print(f"\nechiquier analyse: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"\nechiquier analyse: cannot write {args.out}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    if caught:
        where = f" in {args.out}" if args.out else ""
        print(f"\nechiquier analyse: stopped ({signal.Signals(caught[0]).name}): {len(output.texts)} of "
              f"{len(games)} games analysed and written{where}", file=sys.stderr)
        return 128 + caught[0]
    return 1 if unread else 0
