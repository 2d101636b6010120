"""Fixtures of the web companion's tests: a companion on aiohttp's test server, with a fake backend."""
from __future__ import annotations

import pytest
from aiohttp.test_utils import TestClient, TestServer

from board_driver.sim import SimulatedBoard
from chess_core import Position
from firmware.web.library import GameLibrary
from firmware.web.pairing import FailureLimiter, Pairing
from firmware.web.server import WebCompanion
from firmware.web.simhand import SimHand

from .fakes import FakeBackend


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
    """``await serve(sim=..., code=...)`` -> (client, companion, backend); closed after the test."""
    opened = []

    async def make(*, sim: bool = False, code: str | None = None, backend: FakeBackend | None = None,
                   games_dir=None):
        board = SimulatedBoard(Position().occupied, clock=clock) if sim else None
        backend = backend or FakeBackend(board=board)
        if board is not None:
            backend.board = board
        hand = SimHand(board, Position()) if board is not None else None
        pairing = Pairing(code, required=code is not None, limiter=FailureLimiter(per_client=5, overall=30,
                                                                                   window_s=600))
        library = GameLibrary(games_dir if games_dir is not None else tmp_path / "games")
        companion = WebCompanion(backend, pairing=pairing, library=library, hand=hand, clock=clock)
        companion.attach()
        client = TestClient(TestServer(companion.app))
        await client.start_server()
        opened.append((client, companion))
        return client, companion, backend

    yield make
    for client, companion in opened:
        await client.close()
        await companion.stop()
