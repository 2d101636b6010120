"""Nothing waits on Lichess for ever: a stream that never closes, a line arriving as it stops, an answer that never ends."""
from __future__ import annotations

import asyncio
import contextlib
from typing import AsyncIterator

import httpx
import pytest

from firmware.opponents.lichess.client import LichessClient, LichessUnavailable
from firmware.opponents.lichess.opponent import LichessOpponent
from firmware.opponents.lichess.reconnect import ReconnectingStream, StreamState
from firmware.opponents.lichess.token import Token

from .conftest import BOARD_TOKEN, fast_config
from .helpers import Recorder

BOUND = 5.0   # s: far more than any of these stops needs; only a hang takes it


class EndlessBody(httpx.AsyncByteStream):
    """An ndjson body that never ends: it sends what the test puts in ``lines``, nothing else."""

    def __init__(self) -> None:
        self.lines: asyncio.Queue[bytes] = asyncio.Queue()
        self.waiting = asyncio.Event()   # the reader waits for the next line
        self.closed = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        while True:
            self.waiting.set()
            line = await self.lines.get()
            self.waiting.clear()
            yield line

    async def aclose(self) -> None:
        self.closed = True


def endless_lichess() -> tuple[httpx.MockTransport, list[EndlessBody]]:
    """A Lichess whose event streams never close (every stream open is in the list)."""
    bodies: list[EndlessBody] = []

    async def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/account":
            return httpx.Response(200, json={"id": "bobby", "username": "Bobby"})
        body = EndlessBody()
        bodies.append(body)
        return httpx.Response(200, headers={"Content-Type": "application/x-ndjson"}, stream=body)
    return httpx.MockTransport(answer), bodies


async def stopped_within(stop, bound: float = BOUND) -> bool:
    """Whether ``stop()`` ends within ``bound`` seconds; a stop still waiting is cancelled (no hang here)."""
    stopping = asyncio.ensure_future(stop())
    done, _ = await asyncio.wait({stopping}, timeout=bound)
    if not done:
        stopping.cancel()
        with contextlib.suppress(BaseException):
            await stopping
        return False
    stopping.result()
    return True


async def test_the_opponent_stops_while_lichess_keeps_its_stream_open_and_a_line_arrives_as_it_stops():
    # A keep-alive line landing in the same turn of the loop as the stop: asyncio.wait_for (3.11)
    # returned the line and dropped the cancellation, so the stream read on and stop() waited forever.
    transport, bodies = endless_lichess()
    client = LichessClient(fast_config("http://lichess.test", silence_timeout=600.0), Token(BOARD_TOKEN),
                           transport=transport)
    opponent = LichessOpponent(client, close_client=True)
    opponent.events._stop_grace = 600.0          # one cancellation must do: no second one to rescue it
    await opponent.start(Recorder())
    await asyncio.wait_for(_first_stream_waiting(bodies), BOUND)
    bodies[0].lines.put_nowait(b"\n")            # a keep-alive, read in the next turn of the loop ...
    assert await stopped_within(opponent.stop)   # ... which is when the stop cancels the read
    assert opponent.events.state is StreamState.STOPPED and bodies[0].closed and len(bodies) == 1


async def test_a_stream_stops_even_when_a_peer_library_eats_its_cancellation():
    eaten = []

    @contextlib.asynccontextmanager
    async def stubborn_stream():
        async def events():
            while True:
                try:
                    await asyncio.Event().wait()    # a read that never gets a line
                except asyncio.CancelledError:
                    if eaten:
                        raise
                    eaten.append(True)              # the first cancellation is swallowed
            yield {}
        yield events()

    stream = ReconnectingStream("stubborn", stubborn_stream, {}, stop_grace=0.05)
    stream.start()
    await asyncio.wait_for(_until(lambda: stream.state is StreamState.OPEN), BOUND)
    assert await stopped_within(stream.stop)
    assert eaten and stream.state is StreamState.STOPPED and not stream.running


async def _first_stream_waiting(bodies: list[EndlessBody]) -> None:
    while not bodies:
        await asyncio.sleep(0)
    await bodies[0].waiting.wait()


async def _until(condition) -> None:
    while not condition():
        await asyncio.sleep(0)


async def test_a_request_whose_answer_never_ends_gives_up_after_the_request_timeout():
    # httpx's timeouts bound each read, not the whole: an answer that trickles in for ever
    # (a byte now and then) held the one-request-at-a-time lock, and every request after it.
    async def trickle() -> AsyncIterator[bytes]:
        while True:
            yield b" "
            await asyncio.sleep(0.01)

    class Trickle(httpx.AsyncByteStream):
        def __aiter__(self) -> AsyncIterator[bytes]:
            return trickle()

    async def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"Content-Type": "application/json"}, stream=Trickle())
    client = LichessClient(fast_config("http://lichess.test", connect_timeout=0.1, request_timeout=0.2),
                           Token(BOARD_TOKEN), transport=httpx.MockTransport(answer))
    try:
        with pytest.raises(LichessUnavailable, match="no answer within") as raised:
            await asyncio.wait_for(client.account(), BOUND)
        assert raised.value.timed_out      # (maybe carried out over there: a move is re-read, not re-sent)
    finally:
        await client.aclose()
