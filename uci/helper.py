"""The one helper engine the coach, the hints and the analyses share: one process, a bounded queue, a limit on each search, restarted when it dies.

Contract
========

* One :class:`HelperEngine` per service runs at most one engine process (beside the opponent's),
  started at the first request, quit after ``idle_quit_s`` without one, at ``nice`` 19 with
  ``Threads`` 1 and a bounded ``Hash`` (:data:`HASH_MB`, Stockfish's default): the board's step, its
  LEDs and the opponent come first, even on a Pi Zero 2 W (512 MB).
* :meth:`HelperEngine.search` queues a :class:`Search` (a position and a limit) and returns the
  engine's :class:`~uci.engine.BestMove`; the searches run one at a time, in the
  order asked, each afresh (``ucinewgame``): the answer is the engine's alone, whoever asked first.
* The same search asked again while it waits or runs is the same answer from one search.
* The queue holds at most ``max_waiting`` different searches (the one running included); one more
  is refused at once with :class:`EngineBusy` (the page: 429), never held.
* Every search is bounded in time (``UciEngine.play``: its budget, then ``stop``, then the process
  is killed): a helper that hangs or dies fails the searches it owed with an ``EngineError`` and is
  started again at the next request. A search nobody waits for any more is dropped (queued) or
  stopped (running).
* :meth:`HelperEngine.aclose` quits the engine, reaps it and fails what waits; for good.
"""
from __future__ import annotations

import asyncio
import logging
import os
from collections import deque
from dataclasses import dataclass, field, replace
from typing import Any

from chess_core import STARTING_FEN, Move

from uci.engine import (DEFAULT_ENGINE_PATH, BestMove, EngineLaunch, EngineCrashed, EngineError,
                                          EngineState, SearchLimit, UciEngine)
from uci.tasks import cancel_and_wait

log = logging.getLogger(__name__)

__all__ = ["EngineBusy", "HASH_MB", "HelperEngine", "IDLE_QUIT_S", "MAX_WAITING", "NICE", "Search"]

NICE = 19              # the lowest priority: the board's service and the opponent come first
HASH_MB = 16           # Stockfish's default: a helper's search (a fresh one, under a second) fills a few MB
MAX_WAITING = 8        # different searches queued at once (a game analysed, a hint, a move judged: 1-2 each)
IDLE_QUIT_S = 60.0     # an idle helper's process is quit after this long (its ~120 MB back to the board)


class EngineBusy(EngineError):
    """The helper engine's queue is full: ask again later (the page: 429)."""


@dataclass(frozen=True)
class Search:
    """One search: the position after ``moves`` from ``start_fen``, searched within ``limit``."""

    start_fen: str = STARTING_FEN
    moves: tuple[Move, ...] = ()
    limit: SearchLimit = field(default_factory=lambda: SearchLimit(movetime_ms=100))
    chess960: bool = False


class _Abandoned(Exception):
    """Nobody waits for the search any more: it is not sent."""


@dataclass(eq=False)
class _Request:
    search: Search
    answer: asyncio.Future[BestMove]
    waiters: int = 0


class HelperEngine:
    """The shared helper engine; see the module docstring. ``config.options`` come on top of the
    helper's own (``Threads`` 1, ``Hash`` :data:`HASH_MB`, ``UCI_AnalyseMode``); an option the engine
    does not announce is left out."""

    def __init__(self, config: EngineLaunch = EngineLaunch(), *, hash_mb: int = HASH_MB,
                 max_waiting: int = MAX_WAITING, idle_quit_s: float = IDLE_QUIT_S) -> None:
        options: dict[str, Any] = {"Threads": 1, "Hash": hash_mb, "UCI_AnalyseMode": True, **config.options}
        self.config = replace(config, options=options)
        self.max_waiting = max_waiting
        self.idle_quit_s = idle_quit_s
        self.searches = 0                     # searches sent to an engine (the tests count them)
        self.starts = 0                       # engine processes started
        self._said_name: str | None = None
        self._engine: UciEngine | None = None
        self._chess960 = False
        self._requests: dict[Search, _Request] = {}    # waiting or running, by search
        self._queue: deque[_Request] = deque()
        self._running: _Request | None = None
        self._wakeup: asyncio.Event | None = None
        self._worker: asyncio.Task[None] | None = None
        self._closed = False

    @classmethod
    def at(cls, path: str = DEFAULT_ENGINE_PATH) -> "HelperEngine":
        """The helper running the engine at ``path``."""
        return cls(EngineLaunch(path=path))

    @property
    def name(self) -> str:
        """The engine's UCI id name once it said it ("Stockfish 15.1"), else "Stockfish"/"Engine"."""
        if self._said_name:
            return self._said_name
        return "Stockfish" if "stockfish" in self.config.path.lower() else "Engine"

    @property
    def pid(self) -> int | None:
        """The engine process's id while one runs."""
        engine = self._engine
        return engine.pid if engine is not None and engine.state is not EngineState.FAILED else None

    @property
    def asked(self) -> int:
        """The different searches queued or running (at most ``max_waiting``)."""
        return len(self._requests)

    @property
    def busy(self) -> bool:
        """Whether a new search would be refused now."""
        return len(self._requests) >= self.max_waiting

    def waiting(self, search: Search) -> bool:
        """Whether ``search`` is queued or running."""
        return search in self._requests

    # -- asking ----------------------------------------------------------------------------------

    async def search(self, search: Search) -> BestMove:
        """The engine's answer for ``search`` (see the module docstring); EngineBusy when the queue
        is full, another EngineError when the engine failed it."""
        if self._closed:
            raise EngineError("the helper engine is closed")
        request = self._requests.get(search)
        if request is None:
            if self.busy:
                raise EngineBusy(f"the engine is busy ({len(self._requests)} searches waiting): ask again later")
            request = _Request(search, asyncio.get_running_loop().create_future())
            self._requests[search] = request
            self._queue.append(request)
            self._wake()
        request.waiters += 1
        try:
            return await asyncio.shield(request.answer)
        finally:
            request.waiters -= 1
            if request.waiters == 0 and not request.answer.done():
                self._abandon(request)

    def _abandon(self, request: _Request) -> None:
        """Nobody waits for ``request`` any more: dropped if queued, stopped if running."""
        if request is self._running:
            if self._engine is not None:
                self._engine.stop_search()     # (its answer, soon, goes to nobody)
            return
        if request in self._queue:
            self._queue.remove(request)
        self._requests.pop(request.search, None)
        request.answer.cancel()

    def _wake(self) -> None:
        if self._wakeup is None:
            self._wakeup = asyncio.Event()
        self._wakeup.set()
        if self._worker is None or self._worker.done():
            self._worker = asyncio.get_running_loop().create_task(self._work(), name="helper-engine")

    # -- the worker --------------------------------------------------------------------------------

    async def _work(self) -> None:
        """The searches one at a time; the engine quit when idle, and the worker gone with it (the
        next request starts both again)."""
        assert self._wakeup is not None
        try:
            while True:
                if not self._queue:
                    self._wakeup.clear()
                    if self._engine is None:
                        return
                    try:
                        async with asyncio.timeout(self.idle_quit_s):
                            await self._wakeup.wait()
                    except TimeoutError:
                        await self._drop_engine()
                    continue
                request = self._running = self._queue.popleft()
                try:
                    best = await self._run(request)
                except _Abandoned:
                    pass
                except Exception as exc:   # (EngineError, OSError...: a helper's failure never ends the queue)
                    log.warning("the helper engine failed a search: %s", exc)
                    await self._drop_engine()       # started again at the next request
                    self._settle(request, exc)
                else:
                    self._settle(request, best)
                finally:
                    self._running = None
                    self._requests.pop(request.search, None)
        finally:
            self._settle_all(EngineError("the helper engine stopped"))

    async def _run(self, request: _Request) -> BestMove:
        search = request.search
        for attempt in (1, 2):
            fresh = self._engine is None or self._engine.state is not EngineState.READY
            engine = await self._ready()
            try:
                if search.chess960 != self._chess960 and "UCI_Chess960" in engine.options:
                    await engine.set_option("UCI_Chess960", search.chess960)
                    self._chess960 = search.chess960
                await engine.new_game()
                break
            except EngineCrashed:
                if fresh or attempt == 2:
                    raise
                await self._drop_engine()     # (it died an instant ago, unseen yet: a new one)
        if request.waiters == 0:
            raise _Abandoned()
        self.searches += 1
        return await engine.play(search.start_fen, list(search.moves), search.limit)

    async def _ready(self) -> UciEngine:
        engine = self._engine
        if engine is not None and engine.state is EngineState.READY:
            return engine
        if engine is not None:              # it died between two searches: a new one
            log.warning("the helper engine ended (exit code %s): starting it again", engine.returncode)
            await self._drop_engine()
        engine = UciEngine(EngineLaunch(self.config.path, self.config.args, options={},
                                       handshake_timeout=self.config.handshake_timeout,
                                       go_grace=self.config.go_grace, stop_grace=self.config.stop_grace,
                                       quit_grace=self.config.quit_grace))
        self._engine = engine
        self.starts += 1
        try:
            await engine.start()
            _lower_priority(engine.pid)
            for name, value in self.config.options.items():
                if name in engine.options:
                    await engine.set_option(name, value)
                else:
                    log.debug("the helper engine has no option %r: left out", name)
            self._chess960 = False
            await engine.ping()
        except BaseException:
            await self._drop_engine()
            raise
        if engine.name != os.path.basename(self.config.path):
            self._said_name = engine.name
        return engine

    async def _drop_engine(self) -> None:
        engine = self._engine
        if engine is None:
            return
        try:
            await engine.close()
        finally:   # (kept until closed: a close a cancellation cut short is finished by aclose)
            if self._engine is engine:
                self._engine = None

    @staticmethod
    def _settle(request: _Request, outcome: BestMove | Exception) -> None:
        answer = request.answer
        if answer.done():
            return
        if isinstance(outcome, Exception):
            answer.set_exception(outcome)
            answer.exception()     # retrieved: no warning when nobody waits any more
        else:
            answer.set_result(outcome)

    # -- the end -----------------------------------------------------------------------------------

    async def release(self) -> None:
        """Quit the process now if nothing is asked of it (the next request starts it again): an
        owner done with it for a while gives its memory back without waiting ``idle_quit_s``."""
        if not self._requests:
            await self._drop_engine()
            if self._wakeup is not None:
                self._wakeup.set()      # (the worker sees it and ends)

    async def aclose(self) -> None:
        """Quit the engine and reap it; what waits fails with EngineError. Idempotent, for good."""
        self._closed = True
        worker, self._worker = self._worker, None
        if worker is not None:
            await cancel_and_wait(worker)
        await self._drop_engine()
        self._settle_all(EngineError("the helper engine was closed"))

    def _settle_all(self, exc: EngineError) -> None:
        for request in list(self._requests.values()):
            self._settle(request, exc)
        self._requests.clear()
        self._queue.clear()


def _lower_priority(pid: int | None) -> None:
    if pid is None:
        return
    try:
        os.setpriority(os.PRIO_PROCESS, pid, NICE)
    except OSError as exc:   # it runs all the same, at the engine's priority
        log.warning("cannot lower the helper engine's priority (%s)", exc.strerror or exc)
