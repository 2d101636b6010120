"""The reconnecting stream: backoff capped with jitter, dispatch by type, timers fired by hand."""
from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest

from firmware.opponents.lichess.reconnect import (BACKOFF_CAP, BACKOFF_FIRST, Backoff, PermanentError, ReconnectingStream,
                                          StreamState, TransientError)


class Timers:
    """An injected ``sleep`` whose waits the test fires by hand."""

    def __init__(self) -> None:
        self.pending: list[tuple[float, asyncio.Future]] = []
        self.asked = asyncio.Event()

    async def sleep(self, delay: float) -> None:
        fut = asyncio.get_running_loop().create_future()
        self.pending.append((delay, fut))
        self.asked.set()
        await fut

    async def next_wait(self) -> float:
        while not self.pending:
            self.asked.clear()
            await asyncio.wait_for(self.asked.wait(), 2)
        return self.pending[0][0]

    def fire(self) -> float:
        delay, fut = self.pending.pop(0)
        fut.set_result(None)
        return delay


class Script:
    """``open_stream`` for the tests: each connection plays the next item (an exception or events)."""

    def __init__(self, *connections: Any) -> None:
        self.connections = list(connections)
        self.opened = 0
        self.holding = asyncio.Event()

    def __call__(self) -> contextlib.AbstractAsyncContextManager:
        self.opened += 1
        item = self.connections.pop(0) if self.connections else "hold"
        return self._connection(item)

    @contextlib.asynccontextmanager
    async def _connection(self, item: Any):
        if isinstance(item, BaseException):
            raise item
        yield self._events(item)

    async def _events(self, item: Any):
        if item == "hold":
            self.holding.set()
            await asyncio.Event().wait()
        for event in item:
            if isinstance(event, BaseException):
                raise event
            yield event


def test_backoff_doubles_up_to_the_cap_and_jitter_only_shortens():
    backoff = Backoff()
    assert [backoff.delay(n, 0.0) for n in range(8)] == [1, 2, 4, 8, 16, 32, 60, 60]
    assert backoff.delay(0, 0.0) == BACKOFF_FIRST and backoff.delay(500, 0.0) == BACKOFF_CAP
    assert backoff.delay(3, 0.999) == pytest.approx(4.004)
    for n in range(20):
        for draw in (0.0, 0.3, 0.999):
            assert backoff.delay(n, 0.0) * 0.5 <= backoff.delay(n, draw) <= BACKOFF_CAP


async def test_failures_back_off_more_each_time_then_a_good_connection_resets():
    timers = Timers()
    seen: list[dict] = []
    script = Script(TransientError("503"), TransientError("drop"), TransientError("silent"),
                    [{"type": "gameState", "n": 1}], TransientError("cut"))
    stream = ReconnectingStream("t", script, {"gameState": seen.append}, backoff=Backoff(jitter=0.0),
                                sleep=timers.sleep, draw=lambda: 0.0)
    stream.start()
    try:
        waits = []
        for _ in range(5):
            await timers.next_wait()
            waits.append(timers.fire())
        # 503, drop, silent; then a connection that worked and was closed; then a cut
        assert waits == [1.0, 2.0, 4.0, 1.0, 2.0], "the good connection reset the backoff"
        await asyncio.wait_for(script.holding.wait(), 2)
        assert seen == [{"type": "gameState", "n": 1}]
        assert stream.state is StreamState.OPEN and stream.connections == 2
    finally:
        await stream.stop()
    assert stream.state is StreamState.STOPPED


async def test_an_unexpected_error_in_a_connection_is_retried_not_the_end_of_the_stream(caplog):
    # (httpx.DecodingError from a proxy's broken gzip is neither a TransportError nor a StreamError:
    # it ended the reading task, and the board said "connecting" for ever)
    timers = Timers()
    seen: list[dict] = []
    script = Script(ValueError("a surprise"), [{"type": "gameState", "n": 1}])
    stream = ReconnectingStream("t", script, {"gameState": seen.append}, backoff=Backoff(jitter=0.0),
                                sleep=timers.sleep, draw=lambda: 0.0)
    stream.start()
    try:
        assert await timers.next_wait() == 1.0 and stream.state is StreamState.WAITING
        timers.fire()
        await timers.next_wait()     # (that connection gave its event, then closed: a cut)
        timers.fire()
        await asyncio.wait_for(script.holding.wait(), 2)
        assert seen == [{"type": "gameState", "n": 1}] and stream.running
        assert "a surprise" in caplog.text
    finally:
        await stream.stop()


async def test_a_server_pause_is_respected_over_a_shorter_backoff():
    timers = Timers()
    limited = TransientError("429")
    limited.pause = 60.0
    stream = ReconnectingStream("t", Script(limited), {}, sleep=timers.sleep, draw=lambda: 0.0)
    stream.start()
    try:
        assert await timers.next_wait() == 60.0
    finally:
        await stream.stop()


async def test_events_go_to_the_handler_of_their_type_and_unknown_types_are_ignored():
    got: dict[str, list] = {"gameState": [], "chatLine": []}
    script = Script([{"type": "chatLine", "text": "hi"}, {"type": "gameState", "moves": "e2e4"},
                     {"type": "somethingNew"}, {"no": "type"}])
    stream = ReconnectingStream("t", script, {k: v.append for k, v in got.items()})
    stream.start()
    try:
        await asyncio.wait_for(script.holding.wait(), 2)
    finally:
        await stream.stop()
    assert got == {"gameState": [{"type": "gameState", "moves": "e2e4"}],
                   "chatLine": [{"type": "chatLine", "text": "hi"}]}


async def test_a_failing_handler_does_not_stop_the_stream(caplog):
    def broken(event: dict) -> None:
        raise KeyError("bug")
    later: list = []
    script = Script([{"type": "a"}, {"type": "b"}])
    stream = ReconnectingStream("t", script, {"a": broken, "b": later.append})
    stream.start()
    try:
        await asyncio.wait_for(script.holding.wait(), 2)
    finally:
        await stream.stop()
    assert later == [{"type": "b"}]
    assert "the 'a' handler failed" in caplog.text


async def test_a_permanent_error_fails_the_stream_without_retrying():
    states: list = []
    stream = ReconnectingStream("t", Script(PermanentError("token refused")), {},
                                on_state=lambda s, d: states.append((s, d)))
    stream.start()
    await asyncio.wait_for(stream.wait(), 2)
    assert states[-1] == (StreamState.FAILED, "token refused")
    await stream.stop()
    assert stream.state is StreamState.FAILED


async def test_a_clean_end_when_nothing_more_is_wanted_is_the_end():
    over = False

    def end(event: dict) -> None:
        nonlocal over
        over = True
    stream = ReconnectingStream("t", Script([{"type": "gameState", "status": "mate"}]), {"gameState": end},
                                keep_going=lambda: not over)
    stream.start()
    await asyncio.wait_for(stream.wait(), 2)
    assert stream.state is StreamState.ENDED and stream.connections == 1
    await stream.stop()


async def test_a_clean_end_mid_game_is_a_cut_and_reconnects():
    timers = Timers()
    script = Script([{"type": "gameState"}], [{"type": "gameState"}])
    stream = ReconnectingStream("t", script, {}, sleep=timers.sleep, draw=lambda: 0.0)
    stream.start()
    try:
        assert await timers.next_wait() == BACKOFF_FIRST
        timers.fire()
        await timers.next_wait()
        assert script.opened == 2
    finally:
        await stream.stop()


async def test_reconnect_drops_the_connection_and_reopens_at_once():
    script = Script("hold", "hold")
    stream = ReconnectingStream("t", script, {})
    stream.start()
    try:
        await asyncio.wait_for(script.holding.wait(), 2)
        script.holding.clear()
        stream.reconnect()
        await asyncio.wait_for(script.holding.wait(), 2)
        assert script.opened == 2 and stream.waits == []
    finally:
        await stream.stop()


async def test_start_and_stop_are_idempotent():
    stream = ReconnectingStream("t", Script("hold"), {})
    stream.start()
    stream.start()
    await asyncio.sleep(0)
    await stream.stop()
    await stream.stop()
    stream.start()       # a stopped stream stays stopped: it is used once
    assert not stream.running


async def test_a_stop_that_reaches_the_connection_as_another_error_still_stops():
    """Cancelling a connection under way may surface as a transport error (httpx while it connects):
    the stop must not be taken for a failure to retry after a backoff."""
    timers = Timers()
    opening = asyncio.Event()

    @contextlib.asynccontextmanager
    async def connect():
        opening.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            raise TransientError("ConnectError") from None
        yield None   # never reached

    stream = ReconnectingStream("t", connect, {}, sleep=timers.sleep)
    stream.start()
    await asyncio.wait_for(opening.wait(), 2)
    await asyncio.wait_for(stream.stop(), 2)
    assert not stream.running and not timers.pending and stream.state is StreamState.STOPPED
