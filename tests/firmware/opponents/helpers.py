"""Test helpers: a listener that records what an opponent says, fake and logged engines, limits passed by hand, Stockfish processes counted."""
from __future__ import annotations

import asyncio
import os
import sys
import textwrap
from pathlib import Path
from typing import Any, Callable

from firmware.opponents.base import (ChallengeEvent, ChatLine, GameEnd, GameSync, LinkState, Offer, OpponentGone,
                                     OpponentListener, ServerClock)

STOCKFISH = "/usr/games/stockfish"


class Recorder(OpponentListener):
    """Records every call, in order, as (name, value); ``wait_for`` awaits the next one matching."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        self._changed = asyncio.Event()

    def _note(self, name: str, value: Any) -> None:
        self.calls.append((name, value))
        self._changed.set()

    def opponent_move(self, move):
        self._note("opponent_move", move)

    def game_sync(self, sync: GameSync):
        self._note("game_sync", sync)

    def clock_sync(self, clock: ServerClock):
        self._note("clock_sync", clock)

    def offer(self, offer: Offer):
        self._note("offer", offer)

    def move_rejected(self, move, reason: str):
        self._note("move_rejected", (move, reason))

    def game_over(self, end: GameEnd):
        self._note("game_over", end)

    def chat(self, line: ChatLine):
        self._note("chat", line)

    def opponent_gone(self, gone: OpponentGone):
        self._note("opponent_gone", gone)

    def challenge(self, event: ChallengeEvent):
        self._note("challenge", event)

    def link(self, state: LinkState, detail: str = ""):
        self._note("link", (state, detail))

    def values(self, name: str) -> list[Any]:
        return [v for n, v in self.calls if n == name]

    async def wait_for(self, name: str, predicate: Callable[[Any], bool] = lambda v: True, *, after: int = 0,
                       timeout: float = 10.0) -> Any:
        """The first call ``name`` at index >= ``after`` that satisfies ``predicate``."""
        async def scan() -> Any:
            while True:
                for n, v in self.calls[after:]:
                    if n == name and predicate(v):
                        return v
                self._changed.clear()
                await self._changed.wait()
        return await asyncio.wait_for(scan(), timeout)


class HandTimeouts:
    """``asyncio.timeout`` for the code under test, whose limits pass only when the test says so.

    ``asked`` holds every limit asked for (seconds), the latest last; ``expire()`` makes the
    latest pass now (a RuntimeError if its wait has already ended).
    """

    def __init__(self) -> None:
        self.asked: list[float] = []
        self._timeouts: list[asyncio.Timeout] = []
        self._changed = asyncio.Event()

    def __call__(self, delay: float) -> asyncio.Timeout:
        timeout = asyncio.timeout(None)
        self.asked.append(delay)
        self._timeouts.append(timeout)
        self._changed.set()
        return timeout

    async def asked_after(self, count: int, within: float = 10.0) -> float:
        """The limit asked for once ``count`` were (waits for it, at most ``within`` s)."""
        async with asyncio.timeout(within):
            while len(self.asked) <= count:
                self._changed.clear()
                await self._changed.wait()
        return self.asked[count]

    def expire(self) -> None:
        self._timeouts[-1].reschedule(asyncio.get_running_loop().time())


def fake_engine(tmp_path: Path, behaviour: str) -> tuple[str, tuple[str, ...]]:
    """A UCI 'engine' that misbehaves: ``silent`` (never answers), ``no-bestmove`` (never moves),
    ``nonsense`` (answers an illegal move). Returns (path, args) for EngineLaunch."""
    script = tmp_path / f"engine_{behaviour.replace('-', '_')}.py"
    script.write_text(textwrap.dedent(f"""
        import sys
        behaviour = {behaviour!r}
        for line in sys.stdin:
            word = line.split()[0] if line.split() else ""
            if behaviour == "silent":
                continue
            if word == "uci":
                print("id name FakeEngine 1", flush=True)
                print("option name Skill Level type spin default 20 min 0 max 20", flush=True)
                print("uciok", flush=True)
            elif word == "isready":
                print("readyok", flush=True)
            elif word == "go" and behaviour == "nonsense":
                print("bestmove e2e5", flush=True)
            elif word == "quit":
                break
    """))
    return sys.executable, (str(script),)


def stockfish_processes() -> set[int]:
    """The Stockfish processes among this test process's descendants (read from /proc)."""
    parents: dict[int, int] = {}
    names: dict[int, str] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        pid = int(stat.parent.name)
        head, _, tail = text.rpartition(")")
        fields = tail.split()
        if fields and fields[0] != "Z":
            parents[pid] = int(fields[1])
            names[pid] = head.partition("(")[2]
    me = os.getpid()

    def descends(pid: int) -> bool:
        seen = 0
        while pid in parents and seen < 64:
            pid, seen = parents[pid], seen + 1
            if pid == me:
                return True
        return False
    return {pid for pid, name in names.items() if name == "stockfish" and descends(pid)}


def logged_stockfish(directory: Path) -> tuple[str, Path, Path]:
    """A Stockfish that notes every process start (``starts``: one line each) and every command it
    is sent (``commands``): (its path, starts, commands). It ends when Stockfish ends."""
    starts, commands = directory / "starts", directory / "commands"
    script = directory / "stockfish-logged"
    script.write_text(f"#!{sys.executable}\n" + textwrap.dedent(f"""
        import os, subprocess, sys, threading
        with open({str(starts)!r}, "a") as f:
            f.write(f"{{os.getpid()}}\\n")
        log = open({str(commands)!r}, "a")
        engine = subprocess.Popen([{STOCKFISH!r}], stdin=subprocess.PIPE)

        def pump():
            for line in sys.stdin:
                log.write(line)
                log.flush()
                try:
                    engine.stdin.write(line.encode())
                    engine.stdin.flush()
                except BrokenPipeError:
                    return
            engine.stdin.close()

        threading.Thread(target=pump, daemon=True).start()
        sys.exit(engine.wait())
    """))
    script.chmod(0o755)
    return str(script), starts, commands


def lines(path: Path, prefix: str = "") -> list[str]:
    """The lines of ``path`` that start with ``prefix`` (none if it does not exist)."""
    try:
        return [line for line in path.read_text().splitlines() if line.startswith(prefix)]
    except FileNotFoundError:
        return []


def fill_the_queue(helper: Any) -> list[asyncio.Future]:
    """Long searches (10 s each, for positions nobody else asks) until the shared helper engine's
    queue is full (``helper.max_waiting``): the next search is refused as busy."""
    from chess_core import Move
    from uci.engine import SearchLimit
    from uci.helper import Search
    long = SearchLimit(movetime_ms=10_000)
    firsts = ("a2a3", "b2b3", "c2c3", "d2d3", "e2e3", "f2f3", "g2g3", "h2h3", "a2a4", "b2b4")
    return [asyncio.ensure_future(helper.search(Search(moves=(Move.from_uci(first),), limit=long)))
            for first in firsts[:helper.max_waiting]]
