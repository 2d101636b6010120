"""Fixtures of the web companion's tests: a companion serving on a free loopback port, with a fake backend.

The client is aiohttp's (a test-only dependency): an HTTP and WebSocket implementation nobody here wrote."""
from __future__ import annotations

import pytest
import aiohttp

from board_driver.backends.sim import SimulatedBoard
from chess_core import Position
from firmware.library.games import GameLibrary
from firmware.web.pairing import FailureLimiter, Pairing
from firmware.web.server import WebCompanion
from firmware.sim.commands import SimCommands
from firmware.sim.hand import SimHand

from .fakes import FakeBackend


class PageClient:
    """A client of one companion: ``get``/``post``/``ws_connect`` by path, cookies kept (also for 127.0.0.1)."""

    def __init__(self, host: str, port: int) -> None:
        self.server = type("Address", (), {"host": host, "port": port})()
        self.session = aiohttp.ClientSession(base_url=f"http://{host}:{port}",
                                             cookie_jar=aiohttp.CookieJar(unsafe=True))

    def make_url(self, path: str) -> str:
        return f"http://{self.server.host}:{self.server.port}{path}"

    def get(self, path: str, **kw):
        return self.session.get(path, **kw)

    def post(self, path: str, **kw):
        return self.session.post(path, **kw)

    def request(self, method: str, path: str, **kw):
        return self.session.request(method, path, **kw)

    def ws_connect(self, path: str, **kw):
        return self.session.ws_connect(path, **kw)

    async def close(self) -> None:
        await self.session.close()


class ManualClock:
    """Time that moves only when a test says so."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
async def serve(clock, tmp_path):
    """``await serve(sim=..., code=..., names=HostNames(...))`` -> (client, companion, backend); closed
    after the test."""
    opened = []

    async def make(*, sim: bool = False, code: str | None = None, backend: FakeBackend | None = None,
                   games_dir=None, names=None):
        board = SimulatedBoard(Position().occupied, clock=clock) if sim else None
        backend = backend or FakeBackend(board=board)
        if board is not None:
            backend.board = board
        hand = SimHand(board, Position()) if board is not None else None
        pairing = Pairing(code, required=code is not None, limiter=FailureLimiter(per_client=5, overall=30,
                                                                                   window_s=600))
        library = GameLibrary(games_dir if games_dir is not None else tmp_path / "games")
        room = (lambda backend, changed: SimCommands(hand, backend, changed)) if hand is not None else None
        companion = WebCompanion(backend, pairing=pairing, library=library, room=room, clock=clock, names=names)
        port = await companion.start("127.0.0.1", 0)
        client = PageClient("127.0.0.1", port)
        opened.append((client, companion))
        return client, companion, backend

    yield make
    for client, companion in opened:
        await client.close()
        await companion.stop()
