"""Fixtures for the opponents' tests: no task or child process may outlive a test; the fake Lichess."""
from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from firmware.opponents.lichess.client import LichessClient, LichessConfig
from firmware.opponents.lichess.reconnect import Backoff
from firmware.opponents.lichess.token import Token
from firmware.tasks import cancel_and_wait
from tests.fakes.fake_lichess import FakeLichess

BOARD_TOKEN = "lip_b0ardT0kenS3cret"
FAST_BACKOFF = Backoff(first=0.01, factor=2.0, cap=0.05, jitter=0.5)


def zombie_children() -> list[int]:
    """Our child processes that have ended but were never waited for."""
    me = os.getpid()
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] == "Z" and int(fields[1]) == me:
            found.append(int(stat.parent.name))
    return found


@pytest.fixture(autouse=True)
async def no_leftovers():
    """Fail a test that leaves a task running or a child process unreaped."""
    before = set(asyncio.all_tasks())
    yield
    await asyncio.sleep(0)
    left = [t for t in asyncio.all_tasks() - before if t is not asyncio.current_task() and not t.done()]
    for task in left:   # ended here, bounded (the loop's close would wait for them with no limit)
        await cancel_and_wait(task, grace=0.5, tries=2)
    assert not left, f"tasks left running: {[t.get_name() for t in left]}"
    assert not zombie_children(), f"unreaped child processes: {zombie_children()}"


@pytest.fixture
async def fake():
    server = FakeLichess({BOARD_TOKEN: "Bobby"}, keepalive=0.05)
    await server.start()
    yield server
    await server.stop()


def fast_config(base_url: str, **overrides) -> LichessConfig:
    values = dict(base_url=base_url, token_file="/nonexistent", connect_timeout=2.0, request_timeout=2.0,
                  silence_timeout=0.5, rate_limit_pause=0.05, backoff=FAST_BACKOFF)
    values.update(overrides)
    return LichessConfig(**values)


@pytest.fixture
async def client(fake):
    c = LichessClient(fast_config(fake.base_url), Token(BOARD_TOKEN))
    yield c
    await c.aclose()
