"""The hall against hostile requests (issue 32, item 13): a request it cannot parse is one journal line per client per minute, not a traceback each time; an absolute-form request line names the host checked."""
from __future__ import annotations

import asyncio
import logging

import pytest

from club_hub.core import Hub
from club_hub.server import HubServer
from netserver.host_names import HostNames

MALFORMED = [b"GARBAGE \x01\x02 nonsense\r\n\r\n",                       # not HTTP at all
             b"GET / HTTP/1.1\r\nHost: localhost\r\nno colon here\r\n\r\n",  # a header line without a name
             b"GET / HTTP/9.9x\r\nHost: localhost\r\n\r\n"]                 # no such version


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def hall(tmp_path):
    clock = Clock()
    server = HubServer(Hub(tmp_path), names=HostNames(hostname="clubpc"), clock=clock)
    port = await server.start("127.0.0.1", 0)
    yield port, clock
    await server.stop()


async def exchange(port: int, data: bytes) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(data)
        await writer.drain()
        async with asyncio.timeout(10):
            return await reader.read()
    finally:
        writer.close()


def journal(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name.startswith(("aiohttp", "club_hub"))]


async def test_200_malformed_requests_are_one_journal_line_per_client_per_minute(hall, caplog):
    port, clock = hall
    caplog.set_level(logging.DEBUG)
    for i in range(200):
        answer = await exchange(port, MALFORMED[i % len(MALFORMED)])
        assert answer.split(b"\r\n", 1)[0].endswith(b" 400 Bad Request"), answer[:80]   # (with its reason)
    lines = journal(caplog)
    assert len(lines) == 1 and not lines[0].exc_info, [r.getMessage() for r in lines][:3]
    assert lines[0].getMessage().startswith("bad request from 127.0.0.1 (once a minute per client): ")
    assert len(caplog.text) < 500
    clock.now += 59
    await exchange(port, MALFORMED[1])
    assert len(journal(caplog)) == 1
    clock.now += 2          # a minute since the line: one more
    await exchange(port, MALFORMED[1])
    assert len(journal(caplog)) == 2


@pytest.mark.parametrize("target", [b"http://evil.example/", b"http://evil.example:80/api/boards",
                                    b"HTTP://Evil.Example/round.pgn"])
async def test_an_absolute_form_request_line_to_another_host_is_refused(hall, target):
    port, _ = hall
    answer = await exchange(port, b"GET " + target + b" HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 421"), head
    assert b"does not answer to that name" in body and b"evil" not in body.lower()


async def test_an_absolute_form_request_line_to_the_hub_is_answered(hall):
    port, _ = hall
    answer = await exchange(port, b"GET http://clubpc:%d/api/boards HTTP/1.1\r\nHost: evil.example\r\n"
                                  b"Connection: close\r\n\r\n" % port)
    assert answer.startswith(b"HTTP/1.1 200"), answer[:80]
