"""Training on the page: a game's mistakes or a puzzle chosen for the player, read in a worker thread and handed to the board's trainer.

Routes (commands, under the server's guard as every other; refusals in words):

* ``POST /api/training/start`` ``{"game": ID, "side"?: "white"|"black"|"both", "player"?: NAME}``:
  the player's inaccuracies, mistakes and blunders of an analysed game of the library, in turn
  (409 ``no_analysis`` before its analysis, ``no_mistakes`` when it has none, ``no_such_game`` for
  a game the library does not have). ``{"kind": "puzzle", "player"?: NAME}``: a puzzle of the shipped set
  (:mod:`firmware.training.puzzles`) near the player's rating, one not solved yet while others
  remain. ``player``: whose progress it counts in (default: the board's White player).
* ``POST /api/training/next``: the next drill; ``POST /api/training/stop``: the training ends.
* ``GET /api/training/progress?player=NAME``: that player's progress (rating, themes, attempts).

The analysis, the game and its mistakes, the puzzle set (once) and the progress file (once per
change, while the board holds none) are read in worker threads, never on the loop that steps the
board; a body gives ``game`` or ``kind``, one of them (400 otherwise).
"""
from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from firmware.library.analyses import Analyses
from firmware.library.games import GameLibrary, UnknownGame
from firmware.training import progress as kept
from firmware.training.drill import Drill, of_exercise, of_puzzle
from firmware.training.exercises import exercises_of
from firmware.training.puzzles import Puzzle, choose, load
from firmware.web.answers import NO_STORE
from firmware.web.backend import Backend, CommandRefused
from firmware.web.validate import Choice, Spec, Text, one_of
from firmware.words.message import SidePlayed
from netserver.http_server import Request, Response, Router, json_response

PLAYER = Text(max_length=60, optional=True)
START: Spec = {"game": Text(max_length=200, optional=True), "kind": Choice("puzzle", optional=True),
               "side": Choice("white", "black", "both", optional=True), "player": PLAYER}
SIDES = {"white": (0,), "black": (1,), "both": (0, 1)}


class TrainingPages:
    """The training routes (``add_to(router)``); see the module docstring."""

    def __init__(self, backend: Backend, library: GameLibrary | None, analyses: Analyses | None, state_dir: Path | None,
                 *, puzzles_file: Path | None = None, clock: Callable[[], float] = time.monotonic,
                 rng: random.Random | None = None) -> None:
        self.backend, self.library, self.analyses, self.state_dir = backend, library, analyses, state_dir
        self.puzzles_file = puzzles_file
        self.clock = clock
        self.rng = rng or random.Random()
        self._puzzles: list[Puzzle] | None = None
        self._read: tuple[tuple[int, int] | None, dict[str, kept.Progress]] | None = None

    def add_to(self, router: Router, command: Callable[[Spec, Any], Any]) -> None:
        router.add_post("/api/training/start", command(START, self.start))
        router.add_post("/api/training/next", command({}, lambda v, now: self.backend.next_training(now)))
        router.add_post("/api/training/stop", command({}, lambda v, now: self.backend.stop_training(now)))
        router.add_get("/api/training/progress", self.progress)

    async def start(self, values: dict[str, Any], now: float) -> Any:
        which = one_of(values, "game", "kind")   # (a 400 in words for both or neither)
        player = values.get("player") or self.backend.player_name()
        progresses = await self._progresses()
        if which == "game":
            drills = await self._mistakes(values["game"], values.get("side") or "both")
        else:
            drills = (await self._puzzle(kept.player(progresses, player)),)
        return await _answer(self.backend.start_training(drills, player, progresses, None))

    async def _mistakes(self, game_id: str, side: str) -> tuple[Drill, ...]:
        if self.library is None or self.analyses is None:
            raise CommandRefused("no_analysis")
        library, analyses = self.library, self.analyses

        def read() -> tuple[Drill, ...]:
            """In a worker thread: the game, its analysis, its mistakes (a long game's take a while)."""
            game = library.game(game_id)   # (UnknownGame for an id that is not a file name of the library)
            analysis = analyses.kept(game_id)
            fens = game.get("fens") or []
            if analysis is None or not fens:
                raise CommandRefused("no_analysis")
            if game.get("chess960"):
                raise CommandRefused("training_960")
            try:
                found = exercises_of(analysis, SIDES[side], game_id=game_id, start_fen=fens[0])
            except ValueError:   # (an analysis of other moves: the game was continued since)
                raise CommandRefused("no_analysis") from None
            if not found:
                if side == "both":
                    raise CommandRefused("no_mistakes_both")
                raise CommandRefused("no_mistakes", side=SidePlayed(SIDES[side][0]))
            return tuple(of_exercise(exercise) for exercise in found)
        try:
            return await asyncio.to_thread(read)
        except UnknownGame:
            raise CommandRefused("no_such_game") from None

    async def _puzzle(self, progress: kept.Progress) -> Drill:
        if self._puzzles is None:
            try:
                found = await asyncio.to_thread(load, *(() if self.puzzles_file is None else (self.puzzles_file,)))
            except (OSError, ValueError):   # (tried again at the next request)
                found = []
            if found:
                self._puzzles = found
        if not self._puzzles:
            raise CommandRefused("no_puzzles")
        puzzle = choose(self._puzzles, round(progress.rating.rating), set(progress.solved_puzzles), self.rng)
        return of_puzzle(puzzle.id, puzzle.fen, puzzle.solution, rating=puzzle.rating, themes=puzzle.themes,
                         blunder=puzzle.blunder)

    async def _progresses(self) -> dict[str, kept.Progress]:
        """The players' progress: the board's own while it holds one, else the state folder's,
        read in a worker thread once per change of the file (its size and time)."""
        held = self.backend.training_progress()
        if held is not None:
            return dict(held)
        if self.state_dir is None:
            return {}
        path = self.state_dir / kept.FILE
        try:
            stat = await asyncio.to_thread(path.lstat)
            stamp: tuple[int, int] | None = (stat.st_mtime_ns, stat.st_size)
        except OSError:
            stamp = None
        if self._read is None or self._read[0] != stamp:
            self._read = (stamp, await asyncio.to_thread(kept.load, self.state_dir))
        return dict(self._read[1])

    async def progress(self, request: Request) -> Response:
        given = request.query.get("player")
        name = (PLAYER.check(given) if given else "") or self.backend.player_name()   # (a 400 in words, as the start's)
        found = kept.player(await self._progresses(), name)
        return json_response({"player": name, **found.to_json()}, headers=dict(NO_STORE))


async def _answer(result: Any) -> Any:
    return await result if asyncio.iscoroutine(result) or isinstance(result, asyncio.Future) else result


__all__ = ["TrainingPages", "START"]
