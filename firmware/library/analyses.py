"""The library's computer analyses: games analysed on request or when the board is idle, one at a time, kept beside the games.

Contract
========

* :meth:`Analyses.request` queues a finished game of the library (404 if unknown, a refusal in
  words if it is still being played, has no move or is ``too_long``: over the library's
  ``MAX_PLIES``, only its beginning is read); one game is analysed at a time
  (``firmware.analysis``: the service's shared helper engine, ``engine``, the coach's too:
  Stockfish in its own process at nice 19, one thread, a 16 MB hash), in the order asked.
* The analysis of ``<id>`` is kept in ``<state>/analysis/``: ``<id>.json`` (what the page draws,
  with the moves it is of) and ``<id>.pgn`` (the game as Lichess exports an analysed game), each
  written whole (``durable.atomic_file``). It belongs to the game only while the game's moves are
  the same (a game continued after it is analysed again, not shown with another's analysis).
* :meth:`Analyses.status` says where a game's analysis stands: ``queued``, ``running`` (with the
  positions done and their total) or ``failed`` (with why, in words); None when nothing is asked.
* **When idle** (a setting kept in ``<state>/analysis/settings.json``, off by default): while no
  game is being played (``idle()``), the newest finished game without an analysis is analysed,
  one after the other; an analysis started so stops as soon as a game begins (it is asked for
  again when the board is idle again). An analysis asked for on the page runs, game or not.
* ``tick()`` is what the watch does every ``WATCH_S`` seconds (tests call it by hand): the
  setting, the library's listing and the analyses kept are read in a worker thread, never on the
  loop, under ``listing``, the lock the page's listings take too (one listing at a time). A game
  asked for is queued from its summary (read in a thread); its text is read, once, in a thread.
* The files of ``<state>/analysis/`` are read as the games are: a symbolic link there (or the
  folder itself a link) is never followed (the page shows no analysis, its download raises
  :class:`AnalysisLink`), and at most ``MAX_KEPT_BYTES`` of a file are read.
"""
from __future__ import annotations

import asyncio
import json
import logging
import stat as stat_module
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chess_core import PgnError, PgnGame

from firmware.analysis.annotated import annotated_pgn
from firmware.analysis.engine import AnalysisLimit, PositionEval, evaluate_game
from firmware.analysis.review import review
from durable.bounded_read import read_bounded
from durable.atomic_file import write_atomically
from firmware.openings import classify
from uci.helper import HelperEngine
from uci.engine import DEFAULT_ENGINE_PATH, EngineError
from firmware.tasks import cancel_and_wait
from firmware.library.games import ID_RE, MAX_PLIES, GameLibrary, UnknownGame, first_game
from firmware.words import Refusal

log = logging.getLogger(__name__)

__all__ = ["Analyses", "AnalysisLink", "AnalysisRefused", "LIMIT", "WATCH_S"]

LIMIT = AnalysisLimit(movetime_ms=200)   # per position: a 40-move game in about 20 s
WATCH_S = 10.0                           # how often the idle watch looks
MAX_KEPT_BYTES = 16 * 1024 * 1024        # an analysis file read back (a 2,000-ply game's is under 8 MB)
MAX_SETTINGS_BYTES = 4096                # settings.json read back


class AnalysisRefused(Refusal, ValueError):
    """A game that cannot be analysed (still being played, no moves, too long), in a player's words:
    ``status`` is the page's answer (409: not now; 422: never)."""

    @property
    def status(self) -> int:
        return 422 if self.key == "analysis_too_long" else 409


class AnalysisLink(OSError):
    """A file of the analyses (or their folder) is a symbolic link: it is not followed."""


@dataclass
class _Job:
    game_id: str
    asked: bool                 # asked on the page (else: the idle watch's)
    done: int = 0
    total: int = 0
    error: str | None = None


class Analyses:
    """The analyses of one library's games; see the module docstring."""

    def __init__(self, library: GameLibrary, directory: str | Path, *, idle: Callable[[], bool] = lambda: True,
                 engine_path: str = DEFAULT_ENGINE_PATH, limit: AnalysisLimit = LIMIT,
                 on_change: Callable[[], None] | None = None, engine: HelperEngine | None = None,
                 listing: asyncio.Lock | None = None) -> None:
        self.library = library
        self.listing = listing if listing is not None else asyncio.Lock()   # one listing at a time: the page's too
        self.directory = Path(directory)
        self.idle = idle
        self.engine_path = engine_path
        self._own_engine = engine is None                 # (else the service's, closed by its owner)
        self.engine = HelperEngine.at(engine_path) if engine is None else engine
        self.limit = limit
        self.on_change = on_change
        self._queue: deque[_Job] = deque()
        self._running: _Job | None = None
        self._failed: dict[str, _Job] = {}
        self._task: asyncio.Task[None] | None = None      # the queue's runner
        self._work: asyncio.Task[None] | None = None      # the game being analysed
        self._watch: asyncio.Task[None] | None = None
        self._cache: dict[str, tuple[tuple[int, int], dict[str, Any]]] = {}

    # -- the setting ---------------------------------------------------------------------------------
    @property
    def when_idle(self) -> bool:
        """The setting, read from its file (blocking: in a worker thread)."""
        try:
            read = self._read("settings.json", MAX_SETTINGS_BYTES)
            settings = json.loads(read[1]) if read is not None else None
        except (OSError, ValueError):
            return False
        return isinstance(settings, dict) and settings.get("when_idle") is True

    async def set_when_idle(self, on: bool) -> None:
        """Keep the setting (written in a thread), then look at once."""
        def write() -> None:
            self.directory.mkdir(parents=True, exist_ok=True)
            write_atomically(self.directory / "settings.json", json.dumps({"when_idle": bool(on)}) + "\n")
        await asyncio.to_thread(write)
        await self.tick()

    # -- what the page reads ---------------------------------------------------------------------------
    def status(self, game_id: str) -> dict[str, Any] | None:
        job = self._running if self._running is not None and self._running.game_id == game_id else None
        if job is not None:
            return {"state": "running", "done": job.done, "total": job.total}
        if any(j.game_id == game_id for j in self._queue):
            return {"state": "queued"}
        failed = self._failed.get(game_id)
        return {"state": "failed", "error": failed.error} if failed is not None else None

    def review(self, game_id: str, moves: list[str]) -> dict[str, Any] | None:
        """The analysis of ``game_id`` for the page, if there is one of these very ``moves``."""
        try:
            kept = self._kept(game_id)
        except AnalysisLink:
            return None
        return kept["review"] if kept is not None and kept.get("moves") == moves else None

    def pgn(self, game_id: str, moves: list[str]) -> str | None:
        """The analysed PGN of ``game_id``, if there is one of these very ``moves`` (AnalysisLink
        if it, or the analysis it goes with, is a link)."""
        kept = self._kept(game_id)
        if kept is None or kept.get("moves") != moves:
            return None
        try:
            read = self._read(f"{game_id}.pgn")
            return read[1].decode("utf-8") if read is not None else None
        except UnicodeDecodeError:
            return None

    def _read(self, name: str, most: int = MAX_KEPT_BYTES) -> tuple[tuple[int, int], bytes] | None:
        """(stamp, bytes) of the file ``name`` of the folder, None if there is none (or it is over
        ``most`` bytes); AnalysisLink if it, or the folder, is a symbolic link."""
        for path in (self.directory, self.directory / name):
            try:
                if stat_module.S_ISLNK(path.lstat().st_mode):
                    log.warning("%s is a symbolic link: not followed", path)
                    raise AnalysisLink(f"{path} is a symbolic link")
            except FileNotFoundError:
                return None
        try:
            read = read_bounded(self.directory / name, most)
        except OSError:     # (ELOOP: a link put there meanwhile; not a regular file)
            return None
        return None if read.cut else (read.stamp, read.data)

    def kept(self, game_id: str) -> dict[str, Any] | None:
        """The analysis kept of ``game_id`` (its ``<id>.json``), None if none; it reads the file:
        call it in a worker thread (AnalysisLink for a link)."""
        if not ID_RE.fullmatch(game_id):
            return None
        return self._kept(game_id)

    def _kept(self, game_id: str) -> dict[str, Any] | None:
        path = self.directory / f"{game_id}.json"
        try:
            stat = path.lstat()
        except OSError:
            self._cache.pop(game_id, None)
            return None
        stamp = (stat.st_mtime_ns, stat.st_size)
        cached = self._cache.get(game_id)
        if cached is not None and cached[0] == stamp and not stat_module.S_ISLNK(stat.st_mode):
            return cached[1]
        try:
            read = self._read(f"{game_id}.json")
            if read is None:
                return None
            stamp, kept = read[0], json.loads(read[1])
        except AnalysisLink:
            raise
        except (OSError, ValueError):
            return None
        if not isinstance(kept, dict):
            return None
        self._cache[game_id] = (stamp, kept)
        return kept

    # -- asking ----------------------------------------------------------------------------------------
    async def request(self, game_id: str, *, asked: bool = True) -> dict[str, Any]:
        """Queue ``game_id`` (UnknownGame, AnalysisRefused); its status. Its summary is read in a
        worker thread (the library's, kept since its listing unless the file changed)."""
        return self._ask(await asyncio.to_thread(self.library.summary, game_id), asked)

    def _ask(self, summary: dict[str, Any], asked: bool) -> dict[str, Any]:
        """Queue the game of ``summary`` (on the loop: nothing is read here)."""
        game_id = summary["id"]
        if summary["in_progress"]:
            raise AnalysisRefused("analysis_still_played")
        if summary["too_long"]:
            raise AnalysisRefused("analysis_too_long", moves=MAX_PLIES // 2)
        if not summary["plies"]:
            raise AnalysisRefused("analysis_no_moves")
        if self.status(game_id) is None or self._failed.pop(game_id, None) is not None:
            self._queue.append(_Job(game_id, asked))
            self._start()
            self._changed()
        return self.status(game_id) or {"state": "queued"}

    def _start(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run(), name="analyses")

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    async def _run(self) -> None:
        """The queue's games, one after the other; each in a task of its own, which the idle watch
        may cancel without stopping the queue."""
        while self._queue:
            job = self._running = self._queue.popleft()
            work = self._work = asyncio.get_running_loop().create_task(self._analyse(job),
                                                                        name=f"analysis-{job.game_id}")
            try:
                await asyncio.wait({work})
            except asyncio.CancelledError:
                await cancel_and_wait(work)
                raise
            finally:
                self._running = self._work = None
            if not work.cancelled() and (exc := work.exception()) is not None:
                if not isinstance(exc, (EngineError, OSError, PgnError, UnknownGame, ValueError)):
                    log.error("analysis of %s failed", job.game_id, exc_info=exc)
                else:
                    log.warning("analysis of %s failed: %s", job.game_id, exc)
                job.error = f"the analysis failed: {exc}"
                self._failed[job.game_id] = job
            self._changed()
        if self._own_engine:
            await self.engine.release()    # (its own process lives as long as its queue)

    async def _analyse(self, job: _Job) -> None:
        """One game: read, searched position by position (the engine's own process), judged and
        kept. The reading, the judging and the writing (CPU and disk) run in a thread, off the
        loop that steps the board: it waits at most Python's switch interval (5 ms) for them."""
        text = await asyncio.to_thread(self.library.pgn, job.game_id)      # (the text only) ...
        game = await asyncio.to_thread(first_game, text)                   # ... read once, within MAX_PLIES
        if game.cut:        # (it grew past the cap since it was asked for)
            raise AnalysisRefused("analysis_too_long", moves=MAX_PLIES // 2)

        def progress(done: int, total: int) -> None:
            job.done, job.total = done, total

        job.total = len(game.moves) + 1
        names: list[str] = []
        evals = await evaluate_game(game.moves, self.limit, start_fen=game.game.start_fen,
                                    chess960=game.game.chess960, engine=self.engine,
                                    progress=progress, names=names)
        if await asyncio.to_thread(self.library.pgn, job.game_id) != text:   # the game changed meanwhile: this analysis is not of it
            raise ValueError("the game changed while it was analysed")
        await asyncio.to_thread(self._keep, job.game_id, game, evals, names[0] if names else "Stockfish")

    def _keep(self, game_id: str, game: PgnGame, evals: list[PositionEval], engine: str) -> None:
        """The game judged and written, its analysed PGN and the page's review (in a thread)."""
        found = review(game.moves, evals, start_fen=game.game.start_fen, chess960=game.game.chess960,
                       engine=engine, limit=self.limit.text())
        annotated = annotated_pgn(game, found, annotator=f"{engine}, {self.limit.text()}",
                                  opening=classify(game.game))
        self.directory.mkdir(parents=True, exist_ok=True)
        write_atomically(self.directory / f"{game_id}.pgn", annotated)
        write_atomically(self.directory / f"{game_id}.json", json.dumps(
            {"moves": [m.uci() for m in game.moves], "review": found.to_json()}))

    # -- the idle watch ----------------------------------------------------------------------------------
    async def tick(self) -> None:
        """Stop an idle analysis once a game is played; start the next one while idle and asked to
        (chosen in a worker thread, under the listing lock)."""
        running = self._running
        if not self.idle():
            dropped = [j for j in self._queue if not j.asked]
            for job in dropped:
                self._queue.remove(job)
            if running is not None and not running.asked and self._work is not None:
                self._work.cancel()     # (it is asked for again when the board is idle again)
            if dropped or running is not None:
                self._changed()
            return
        if running is not None or self._queue:
            return
        async with self.listing:
            chosen = await asyncio.to_thread(self._choose)
        if chosen is None or self._running is not None or self._queue or not self.idle():
            return      # (a game began, or one was asked for, meanwhile)
        try:
            self._ask(chosen, asked=False)
        except AnalysisRefused:
            pass

    def _choose(self) -> dict[str, Any] | None:
        """The newest finished game without an analysis, if the setting says so (in a thread)."""
        if not self.when_idle:
            return None
        for summary in self.library.games():   # newest first
            if summary["in_progress"] or summary["plies"] < 2 or summary["problem"] or summary["too_long"]:
                continue
            game_id = summary["id"]
            try:
                if game_id in self._failed or self._kept(game_id) is not None and self.review(
                        game_id, self.library.moves(game_id)) is not None:
                    continue
            except (AnalysisLink, UnknownGame):
                continue
            return summary
        return None

    def start(self) -> None:
        """Watch for idle moments (on the running loop); idempotent."""
        if self._watch is None:
            self._watch = asyncio.get_running_loop().create_task(self._watch_loop(), name="analyses-watch")

    async def _watch_loop(self) -> None:
        while True:
            try:
                await self.tick()
            except Exception:  # noqa: BLE001 - the watch must outlive a bad file
                log.exception("the idle analysis watch failed")
            await asyncio.sleep(WATCH_S)

    async def settled(self) -> None:
        """Return once no analysis runs or waits (the tests; nothing else waits for one)."""
        while self._task is not None and not self._task.done():
            await asyncio.wait({self._task})

    async def stop(self) -> None:
        """Stop the watch and any analysis (the engine is quit and reaped)."""
        for task in (self._watch, self._task):
            if task is not None:
                await cancel_and_wait(task)
        self._watch = self._task = None
        self._queue.clear()
        self._running = None
        if self._own_engine:
            await self.engine.aclose()
