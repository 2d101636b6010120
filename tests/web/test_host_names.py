"""DNS rebinding (issue 26): the companion answers only the names it is known by, reads and the live board included.

A page of evil.example whose name is pointed at the board (DNS rebinding) is, for the browser,
of the same origin as the board: its Origin matches its Host, and every read the page does is
allowed. Only the Host it sends gives it away: the board answers to its addresses, localhost,
its host name and ``<hostname>.local``, and the names of ``[web] hosts``; anything else is a 421.
"""
from __future__ import annotations

import asyncio
import json
import socket

import pytest

from firmware.config import ConfigError, parse_config
from firmware.web.companion import build_companion
from tests.netserver.oracles import HTTPClient, read_answer

READS = ["/", "/api/state", "/api/session", "/api/words", "/api/games", "/games.pgn", "/static/app.js"]
HANDSHAKE = ("Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
             "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n")


async def ask(port: int, method: str, path: str, host: str, extra: str = "", *, upgrade: bool = False):
    """One request with ``Host: host`` (and a matching Origin, as the rebound page sends), read by h11."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"{method} {path} HTTP/1.1\r\nHost: {host}\r\nOrigin: http://{host}\r\n{extra}\r\n".encode())
    try:
        return await read_answer(reader, HTTPClient([method], upgrade=upgrade))
    finally:
        writer.close()


@pytest.mark.parametrize("path", READS)
async def test_a_read_for_another_name_is_a_421_that_says_why(serve, path):
    client, _, _ = await serve()
    port = client.server.port
    answer = await ask(port, "GET", path, f"evil.example:{port}")
    assert answer.status == 421, answer
    assert "[web] hosts" in json.loads(answer.body)["error"]
    assert (await ask(port, "GET", path, f"127.0.0.1:{port}")).status == 200
    head = await ask(port, "HEAD", path, f"evil.example:{port}")
    assert head.status == 421 and head.body == b""


async def test_the_live_board_is_not_served_to_another_name(serve):
    client, companion, _ = await serve()
    port = client.server.port
    answer = await ask(port, "GET", "/ws", f"evil.example:{port}", HANDSHAKE, upgrade=True)
    assert answer.status == 421 and not companion.clients
    assert (await ask(port, "GET", "/ws", f"127.0.0.1:{port}", HANDSHAKE, upgrade=True)).status == 101


async def test_a_change_for_another_name_is_a_421_too(serve):
    client, _, backend = await serve()
    port = client.server.port
    answer = await ask(port, "POST", "/api/game/resign", f"evil.example:{port}",
                       'Content-Type: application/json\r\nContent-Length: 17\r\n\r\n{"color":"white"}')
    assert answer.status == 421 and not backend.calls


@pytest.mark.parametrize("name", ["localhost", "[::1]", "127.1", socket.gethostname(),
                                  f"{socket.gethostname()}.local", f"{socket.gethostname().upper()}.LOCAL."])
async def test_the_board_answers_to_its_addresses_localhost_and_its_host_names(serve, name):
    client, _, _ = await serve()
    answer = await ask(client.server.port, "GET", "/api/state", f"{name}:{client.server.port}")
    assert answer.status == 200


def test_the_names_of_web_hosts_are_checked_host_names():
    from firmware.web.companion import names_for

    config = parse_config({"web": {"hosts": ["chess.lan", "Board.Example.org."]}})
    assert "board.example.org:8080" in names_for(config) and "chess.lan" in names_for(config)
    assert parse_config({}).web.hosts == ()
    for bad in ("chess.lan", ["evil.example/x"], ["chess.lan:8080"], ["*.lan"], ["-a.lan"], ["a" * 64 + ".lan"]):
        with pytest.raises(ConfigError, match="web.hosts"):
            parse_config({"web": {"hosts": bad}})


async def test_the_board_answers_to_the_names_of_web_hosts_and_to_the_name_it_listens_on(tmp_path):
    from firmware.session.session import Session

    config = parse_config({"board": {"sensors": "sim"}, "storage": {"dir": str(tmp_path)},
                           "web": {"host": "board.lan", "port": 8080, "hosts": ["chess.lan"]}})
    companion = build_companion(Session(config), config)
    port = await companion.start("127.0.0.1", 0)
    try:
        for name in ("chess.lan", "BOARD.LAN."):
            assert (await ask(port, "GET", "/api/state", f"{name}:{port}")).status == 200
        assert (await ask(port, "GET", "/api/state", f"other.lan:{port}")).status == 421
    finally:
        await companion.stop()
