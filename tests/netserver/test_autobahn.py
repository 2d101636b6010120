"""Autobahn|Testsuite's fuzzingclient cases (families 1-7 and 9) against netserver's WebSocket.

The cases are our own data (tests/netserver/autobahn_cases.py, which says where they come from and
where we adapted them). The server is netserver's HTTPServer in this process with one test-only
route, ``/echo``: it upgrades and sends every text message back, as Autobahn's echo server does.
The client here writes the case's frames (its own encoder: reserved bits, reserved opcodes and
bad payloads included), reads everything the server sends through wsproto (the oracle fails the
case on any frame a client must refuse), and judges the end as Autobahn does. Each case asserts
the verdict our server earns: OK, or NON-STRICT / INFORMATIONAL where autobahn_cases.py says why.
"""
from __future__ import annotations

import asyncio
import base64
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from netserver.http_server import HTTPServer, Request, Response, Router
from netserver.limits import ConnectionGuard
from tests.netserver.autobahn_cases import (CASES, CLOSE, NORMAL, PING, PONG, WINDOW_S, Case, Chunk, EchoEach, Event,
                                            Pause, Send, WaitFor)
from tests.netserver.oracles import OP_BINARY, OP_CLOSE, OP_TEXT, HTTPClient, ServerFrames, read_answer

ECHO_LIMIT = 16 * 2**20      # the echo route's message limit: family 9's largest message


async def _echo(request: Request) -> Response:
    ws = await request.upgrade(max_msg_size=ECHO_LIMIT, heartbeat=None)
    try:
        async for text in ws:
            await ws.send_str(text)
    except ConnectionError:
        pass
    finally:
        await ws.close()
    return Response()


@pytest.fixture
async def echo_port():
    router = Router()
    router.add_get("/echo", _echo)

    async def app(request: Request) -> Response:
        return await router.resolve(request)(request)

    http = HTTPServer(app, ConnectionGuard(time.monotonic))
    port = await http.start("127.0.0.1", 0)
    yield port
    await http.stop()


def _mask(payload: bytes, key: bytes) -> bytes:
    n = len(payload)
    if not n:
        return b""
    return (int.from_bytes(payload, "big") ^ int.from_bytes((key * (n // 4 + 1))[:n], "big")).to_bytes(n, "big")


def client_frame(frame: Send) -> tuple[bytes, int]:
    """The frame's bytes as a client sends them (masked), and the length of its head."""
    first = (0x80 if frame.fin else 0) | (frame.rsv << 4) | frame.opcode
    n = len(frame.payload)
    if n < 126:
        head = bytes([first, 0x80 | n])
    elif n < 1 << 16:
        head = bytes([first, 0x80 | 126]) + n.to_bytes(2, "big")
    else:
        head = bytes([first, 0x80 | 127]) + n.to_bytes(8, "big")
    key = os.urandom(4)
    return head + key + _mask(frame.payload, key), len(head) + 4


@dataclass
class Run:
    """What happened on one case's connection."""

    received: list[Event] = field(default_factory=list)
    client_closed: bool = False           # the client has sent its close frame
    closed_by_client: bool | None = None  # who began the closing handshake (None: nobody did)
    server_close: bytes | None = None     # the payload of the server's close frame
    reset: bool = False
    ended: asyncio.Event = field(default_factory=asyncio.Event)
    changed: asyncio.Event = field(default_factory=asyncio.Event)


class Client:
    """One case's client: writes the steps, reads the server through wsproto, closes as Autobahn's does."""

    def __init__(self, case: Case, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 first: bytes) -> None:
        self.case, self.reader, self.writer = case, reader, writer
        self.frames = ServerFrames()
        self.run = Run()
        self._first = first
        self._chunked: tuple[bytes, int] = (b"", 0)    # the frame being written in chunks, its head's length

    def matches(self) -> bool:
        return any(self.run.received == events for events in self.case.expected.values())

    async def write(self, data: bytes) -> None:
        if self.writer.is_closing():
            raise ConnectionResetError
        self.writer.write(data)
        await self.writer.drain()

    async def close(self, payload: bytes) -> None:
        if not self.run.client_closed:
            self.run.client_closed = True
            try:
                await self.write(client_frame(Send(CLOSE, payload))[0])
            except ConnectionError:
                pass

    async def finish_when_done(self) -> None:
        """Autobahn's finishWhenDone: the client closes (1000) once the events match an expectation."""
        if self.case.close_when_done and self.case.by_client and self.matches():
            await self.close(NORMAL.to_bytes(2, "big"))

    async def read(self) -> None:
        data = self._first
        try:
            while True:
                for frame in self.frames.feed(data) if data else ():
                    if frame.opcode in (OP_TEXT, OP_BINARY):
                        self.run.received.append(("message", frame.payload, frame.opcode == OP_BINARY))
                    elif frame.opcode == PONG:
                        self.run.received.append(("pong", frame.payload))
                    elif frame.opcode == PING:
                        await self.write(client_frame(Send(PONG, frame.payload))[0])
                    elif frame.opcode == OP_CLOSE:
                        self.run.server_close = frame.payload
                        if self.run.closed_by_client is None:
                            self.run.closed_by_client = self.run.client_closed
                        await self.close(frame.payload[:2])     # the code echoed back
                    self.run.changed.set()
                    await self.finish_when_done()
                data = await self.reader.read(65536)
                if not data:
                    break
        except ConnectionResetError:
            self.run.reset = True
        finally:
            if self.run.closed_by_client is None and self.run.client_closed:
                self.run.closed_by_client = True
            self.run.ended.set()
            self.run.changed.set()

    async def until(self, condition: Callable[[], bool]) -> None:
        while not condition() and not self.run.ended.is_set():
            self.run.changed.clear()
            await self.run.changed.wait()

    async def send(self) -> None:
        """The case's steps; they stop when the server has ended the connection."""
        pending = b""
        try:
            for step in self.case.steps:
                if isinstance(step, Send) and step.opcode == CLOSE and not step.rsv:
                    self.run.client_closed = True                 # the case's own close frame
                if isinstance(step, Send) and not step.sync and step.chop is None:
                    pending += client_frame(step)[0]      # written together with the next ones
                    continue
                if pending:
                    await self.write(pending)
                    pending = b""
                if isinstance(step, Send):
                    data = client_frame(step)[0]
                    size = step.chop or len(data)
                    for start in range(0, len(data), size):
                        await self.write(data[start:start + size])
                        await asyncio.sleep(0)
                elif isinstance(step, Chunk):
                    data, head = client_frame(step.frame) if step.start == 0 else self._chunked
                    self._chunked = (data, head)
                    await self.write(data[(head + step.start if step.start else 0):head + step.end])
                elif isinstance(step, WaitFor):
                    await self.until(lambda: len(self.run.received) >= step.count)
                elif isinstance(step, Pause):
                    try:
                        await asyncio.wait_for(self.run.ended.wait(), WINDOW_S)
                        return                                    # the server acted in the window
                    except asyncio.TimeoutError:
                        self.run.received.append(("timeout", step.label))
                elif isinstance(step, EchoEach):
                    for i in range(step.count):
                        await self.write(client_frame(step.frame)[0])
                        await self.until(lambda: len(self.run.received) > i)
            if pending:
                await self.write(pending)
            await self.finish_when_done()                         # the events may already match
        except ConnectionError:
            pass                                                  # the server failed the connection


@dataclass
class Verdict:
    behaviour: str
    close: str
    run: Run


async def play(port: int, case: Case) -> Verdict:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write((f"GET /echo HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    http = HTTPClient(upgrade=True)
    answer = await read_answer(reader, http)
    assert answer.status == 101, answer
    client = Client(case, reader, writer, http.trailing)
    reading = asyncio.create_task(client.read())
    try:
        async with asyncio.timeout(case.timeout_s):      # a bound on a failure only: every case ends by itself
            await client.send()
            await reading
    finally:
        reading.cancel()
        writer.close()
    return judge(case, client.run)


def judge(case: Case, run: Run) -> Verdict:
    """Autobahn's verdict (case.py's onConnectionLost) on what happened."""
    behaviour = next((label for label, events in case.expected.items() if run.received == events), "FAILED")
    code = int.from_bytes(run.server_close[:2], "big") if run.server_close else None
    clean = run.server_close is not None and run.client_closed and not run.reset
    if bool(run.closed_by_client) != case.by_client:
        close = "FAILED"                                   # the connection was failed by the wrong side
        if case.wrong_end_fatal:
            behaviour = "FAILED"
    elif case.clean and not clean:
        close = "UNCLEAN"
    elif code is not None and code not in case.codes:
        close = "WRONG CODE"
        if case.id.startswith("7."):
            behaviour = "FAILED"
    else:
        close = "OK"
    if case.informational:
        behaviour = close = "INFORMATIONAL"
    return Verdict(behaviour, close, run)


def _param(case: Case) -> Any:   # a pytest.param
    return pytest.param(case, id=case.id, marks=[pytest.mark.slow] if case.slow else [])


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
async def test_autobahn_case(echo_port: int, case: Case) -> None:
    verdict = await play(echo_port, case)
    seen = [(e[0], e[1][:40], *e[2:]) for e in verdict.run.received][:6]
    assert (verdict.behaviour, verdict.close) == (case.ours, "INFORMATIONAL" if case.informational else "OK"), \
        (f"{case.id}: {verdict.behaviour}/{verdict.close}; received {seen}, server close "
         f"{verdict.run.server_close!r}, closed by client {verdict.run.closed_by_client}; {case.note}")
