"""The shared helper engine with the real Stockfish: one search for the same position asked twice, a bounded queue, a hang timed out, a death restarted at the next request, an idle process quit."""
from __future__ import annotations

import asyncio
import os
import signal

import pytest

from chess_core import Move
from uci.helper import EngineBusy, HelperEngine, Search
from uci.engine import EngineLaunch, EngineError, EngineHung, SearchLimit

from .helpers import STOCKFISH, fake_engine, lines, logged_stockfish, stockfish_processes

pytestmark = pytest.mark.skipif(not os.access(STOCKFISH, os.X_OK), reason="needs /usr/games/stockfish")

QUICK = SearchLimit(depth=6)
LONG = SearchLimit(movetime_ms=5_000)


def after(*ucis: str, limit: SearchLimit = QUICK) -> Search:
    return Search(moves=tuple(Move.from_uci(u) for u in ucis), limit=limit)


async def test_the_same_search_asked_while_it_runs_is_one_search_and_one_answer(tmp_path):
    path, starts, commands = logged_stockfish(tmp_path)
    helper = HelperEngine(EngineLaunch(path))
    try:
        first, second = await asyncio.gather(helper.search(after("e2e4")), helper.search(after("e2e4")))
        third = await helper.search(after("d2d4"))
    finally:
        await helper.aclose()
    assert first is second and first.move is not None
    assert len(lines(commands, "go ")) == 2          # e4 once, d4 once
    assert len(lines(starts)) == 1                    # one process for both
    assert third.move is not None


async def test_a_full_queue_refuses_at_once_and_a_search_nobody_waits_for_is_dropped():
    helper = HelperEngine(EngineLaunch(STOCKFISH), max_waiting=2)
    try:
        running = asyncio.ensure_future(helper.search(after("e2e4", limit=LONG)))
        queued = asyncio.ensure_future(helper.search(after("d2d4", limit=LONG)))
        await asyncio.sleep(0)
        assert helper.busy
        with pytest.raises(EngineBusy):
            await helper.search(after("c2c4"))
        queued.cancel()                               # nobody waits for d4 any more: dropped
        await asyncio.gather(queued, return_exceptions=True)
        assert not helper.waiting(after("d2d4", limit=LONG)) and not helper.busy
        running.cancel()                              # the running one is stopped, not waited out
        await asyncio.gather(running, return_exceptions=True)
        async with asyncio.timeout(4):                # (LONG is 5 s: the stop ended it)
            answer = await helper.search(after("c2c4"))
        assert answer.move is not None
    finally:
        await helper.aclose()


async def test_a_hung_helper_search_times_out_and_the_next_request_starts_it_again(tmp_path):
    path, args = fake_engine(tmp_path, "no-bestmove")
    helper = HelperEngine(EngineLaunch(path, args, go_grace=0.1, stop_grace=0.1, quit_grace=0.1))
    try:
        for _ in range(2):
            with pytest.raises(EngineHung):
                await helper.search(after("e2e4", limit=SearchLimit(movetime_ms=50)))
        assert helper.starts == 2 and helper.pid is None
    finally:
        await helper.aclose()


async def test_a_helper_killed_between_requests_or_during_one_is_started_again_at_the_next():
    helper = HelperEngine(EngineLaunch(STOCKFISH))
    try:
        assert (await helper.search(after("e2e4"))).move is not None
        first = helper.pid
        assert first is not None and stockfish_processes() == {first}
        os.kill(first, signal.SIGKILL)               # between two requests
        assert (await helper.search(after("d2d4"))).move is not None
        second = helper.pid
        assert second not in (None, first) and stockfish_processes() == {second}
        searching = asyncio.ensure_future(helper.search(after("c2c4", limit=LONG)))
        while helper.searches < 3:
            await asyncio.sleep(0.01)
        os.kill(second, signal.SIGKILL)              # during one: that one fails, the next is answered
        with pytest.raises(EngineError):
            await searching
        assert (await helper.search(after("g1f3"))).move is not None
        assert helper.starts == 3 and len(stockfish_processes()) == 1
    finally:
        await helper.aclose()
    assert stockfish_processes() == set()


async def test_an_idle_helper_quits_its_process_and_starts_it_again_when_asked():
    helper = HelperEngine(EngineLaunch(STOCKFISH), idle_quit_s=0.05)
    try:
        await helper.search(after("e2e4"))
        async with asyncio.timeout(5):
            while helper.pid is not None or stockfish_processes():
                await asyncio.sleep(0.02)
        assert (await helper.search(after("d2d4"))).move is not None
        assert helper.starts == 2
    finally:
        await helper.aclose()
