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

The analysis, the game, the puzzle set (once) and the progress file are read in worker threads,
never on the loop that steps the board.
"""
from __future__ import annotations

import asyncio
import importlib
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
from firmware.web.answers import NO_STORE, error_answer
from firmware.web.backend import Backend, CommandRefused
from firmware.web.validate import Choice, Spec, Text
from firmware.words.message import SidePlayed
from netserver.http_server import Request, Response, Router, json_response

START: Spec = {"game": Text(max_length=200, optional=True), "kind": Choice("mistakes", "puzzle", optional=True),
               "side": Choice("white", "black", "both", optional=True), "player": Text(max_length=60, optional=True)}
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
        self._puzzles: list[Any] | None = None

    def add_to(self, router: Router, command: Callable[[Spec, Any], Any]) -> None:
        router.add_post("/api/training/start", command(START, self.start))
        router.add_post("/api/training/next", command({}, lambda v, now: self.backend.next_training(now)))
        router.add_post("/api/training/stop", command({}, lambda v, now: self.backend.stop_training(now)))
        router.add_get("/api/training/progress", self.progress)

    async def start(self, values: dict[str, Any], now: float) -> Any:
        player = values.get("player") or self.backend.player_name()
        progresses = await asyncio.to_thread(self._progresses)
        if values.get("game") is not None:
            drills = await self._mistakes(values["game"], values.get("side") or "both")
        elif values.get("kind") == "puzzle":
            drills = (await self._puzzle(kept.player(progresses, player)),)
        else:
            raise CommandRefused("no_drills")
        return await _answer(self.backend.start_training(drills, player, progresses, now))

    async def _mistakes(self, game_id: str, side: str) -> tuple[Drill, ...]:
        if self.library is None or self.analyses is None:
            raise CommandRefused("no_analysis")
        library, analyses = self.library, self.analyses

        def read() -> tuple[dict[str, Any], dict[str, Any] | None]:
            return library.game(game_id), analyses.kept(game_id)
        try:
            game, analysis = await asyncio.to_thread(read)
        except UnknownGame:
            raise CommandRefused("no_such_game") from None
        if analysis is None:
            raise CommandRefused("no_analysis")
        try:
            found = exercises_of(analysis, SIDES[side], game_id=game_id, start_fen=game["fens"][0],
                                 chess960=bool(game.get("chess960")))
        except ValueError:   # (an analysis of other moves: the game was continued since)
            raise CommandRefused("no_analysis") from None
        if not found:
            if side == "both":
                raise CommandRefused("no_mistakes_both")
            raise CommandRefused("no_mistakes", side=SidePlayed(SIDES[side][0]))
        return tuple(of_exercise(exercise) for exercise in found)

    async def _puzzle(self, progress: kept.Progress) -> Drill:
        try:   # (the shipped set and its reader: firmware.training.puzzles)
            puzzles = importlib.import_module("firmware.training.puzzles")
        except ImportError:
            raise CommandRefused("no_puzzles") from None
        if self._puzzles is None:
            try:
                self._puzzles = await asyncio.to_thread(puzzles.load, *(() if self.puzzles_file is None else (self.puzzles_file,)))
            except (OSError, ValueError):
                self._puzzles = []
        if not self._puzzles:
            raise CommandRefused("no_puzzles")
        puzzle = puzzles.choose(self._puzzles, round(progress.rating.rating), set(progress.solved_puzzles), self.rng)
        return of_puzzle(puzzle.id, puzzle.fen, puzzle.solution, rating=puzzle.rating, themes=puzzle.themes,
                         blunder=puzzle.blunder)

    def _progresses(self) -> dict[str, kept.Progress]:
        return kept.load(self.state_dir) if self.state_dir is not None else {}

    async def progress(self, request: Request) -> Response:
        name = request.query.get("player") or self.backend.player_name()
        if len(name) > 60:
            return error_answer(400, "a player's name is at most 60 characters")
        found = kept.player(await asyncio.to_thread(self._progresses), name)
        return json_response({"player": name, **found.to_json()}, headers=dict(NO_STORE))


async def _answer(result: Any) -> Any:
    return await result if asyncio.iscoroutine(result) or isinstance(result, asyncio.Future) else result


__all__ = ["TrainingPages", "START"]
