"""The companion against a hostile LAN (issue 12), in process: bad cookies, bad JSON, other sites,
links in games/, idle and slow connections. The same attacks on a real `echiquier sim`
subprocess are in tests/web/test_security.py."""
from __future__ import annotations

import asyncio
import json
import logging
import socket

import pytest

from firmware.library.games import GameLibrary, UnknownGame
from netserver.limits import ConnectionGuard, LogLimiter, parse_json
from firmware.web.pairing import COOKIE
from tests.netserver.oracles import HTTPClient, read_answer

JSON = {"Content-Type": "application/json"}


async def post(client, path, body=None, headers=None):
    data = body if isinstance(body, (str, bytes)) else json.dumps(body if body is not None else {})
    return await client.post(path, data=data, headers={**JSON, **(headers or {})})


# -- point 1: bad cookies count like wrong codes ------------------------------------------------------

async def test_bad_cookies_are_counted_and_then_refused_like_wrong_codes(serve):
    client, _, backend = await serve(code="35162478")
    for i in range(5):
        client.session.cookie_jar.update_cookies({COOKIE: f"{i:032x}." + "0" * 64})
        response = await client.get("/api/session")
        assert (await response.json())["paired"] is False
    limited = await post(client, "/api/pair", {"code": "35162478"})
    assert limited.status == 429
    assert not backend.calls


async def test_a_bad_cookie_is_dropped_so_it_is_counted_once(serve):
    client, _, _ = await serve(code="35162478")
    client.session.cookie_jar.update_cookies({COOKIE: "1" * 32 + "." + "0" * 64})
    response = await client.get("/api/session")
    assert "Max-Age=0" in response.headers.get("Set-Cookie", "") or 'expires=' in response.headers.get(
        "Set-Cookie", "").lower()


# -- point 2: text validated at the edge --------------------------------------------------------------

@pytest.mark.parametrize("name", ["\ud83d", "a\u200eb", "\u202eevil", "x\ue000"])
async def test_a_name_that_is_not_printable_unicode_is_a_400(serve, name):
    client, _, backend = await serve()
    body = json.dumps({"white": name})   # ensure_ascii: the lone surrogate goes as \ud83d
    response = await post(client, "/api/game/new", body)
    assert response.status == 400, await response.text()
    assert "white" in (await response.json())["error"]
    assert not backend.calls


async def test_a_name_in_any_script_with_spaces_is_fine(serve):
    client, _, backend = await serve()
    response = await post(client, "/api/game/new", {"white": "Anna Müller", "black": "Ŝvejk 李"})
    assert response.status == 200


# -- point 6: bad JSON is a 400, logged once per client per minute ---------------------------------------

@pytest.mark.parametrize("body, words", [
    ("[" * 5000 + "]" * 5000, "nested"),
    ('{"engine_level": ' + "9" * 5000 + "}", "digits"),
    ('{"brightness": 1e999}', "too large"),
    ('{"brightness": NaN}', "not JSON"),
    ('{"white": "a"', "not valid JSON"),
])
async def test_hostile_json_is_a_400_that_says_why(serve, body, words):
    client, _, backend = await serve()
    response = await post(client, "/api/settings", body)
    assert response.status == 400
    assert words in (await response.json())["error"]
    assert not backend.calls


async def test_bad_requests_are_logged_once_per_client_per_minute(serve, clock, caplog):
    client, companion, _ = await serve()
    caplog.set_level(logging.WARNING)
    for _ in range(50):
        assert (await post(client, "/api/settings", "[" * 5000)).status == 400
    assert sum("bad request" in r.getMessage() for r in caplog.records) == 1
    clock.advance(61)
    assert (await post(client, "/api/settings", "[" * 5000)).status == 400
    assert sum("bad request" in r.getMessage() for r in caplog.records) == 2


def test_the_json_reader_bounds_depth_and_numbers():
    assert parse_json('{"a": [1, 2.5, "x"]}') == {"a": [1, 2.5, "x"]}
    assert parse_json('"[[[[[[[[[[[[[[[[[[[[["') == "[" * 21   # brackets in strings do not count
    for text in ("[" * 17 + "]" * 17, "1" * 31, "-1e400", "Infinity"):
        with pytest.raises(ValueError):
            parse_json(text)


def test_the_log_limiter_allows_one_line_per_client_per_minute():
    limiter = LogLimiter(period_s=60)
    assert limiter.allow("a", "bad", 0.0) and not limiter.allow("a", "bad", 30.0)
    assert limiter.allow("b", "bad", 30.0) and limiter.allow("a", "bad", 60.0)
    assert limiter.suppressed == 1


# -- point 7: other sites ---------------------------------------------------------------------------------

async def test_origin_null_is_refused(serve):
    client, _, backend = await serve()
    response = await post(client, "/api/game/resign", {"color": "white"}, headers={"Origin": "null"})
    assert response.status == 403 and not backend.calls


async def test_the_websocket_refuses_another_sites_page(serve):
    client, _, _ = await serve()
    for origin in ("http://evil.example", "null"):
        response = await client.get("/ws", headers={"Origin": origin, "Connection": "Upgrade",
                                                    "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
                                                    "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="})
        assert response.status == 403
    ws = await client.ws_connect("/ws", headers={"Origin": f"http://{client.server.host}:{client.server.port}"})
    assert json.loads((await ws.receive(timeout=2)).data)["type"] == "hello"
    await ws.close()


def test_a_link_in_the_games_directory_is_not_followed(tmp_path):
    games = tmp_path / "games"
    games.mkdir()
    secret = tmp_path / "secret.txt"
    secret.write_text("the owner's private notes")
    (games / "2025-01-01_1000_A-vs-B.pgn").symlink_to(secret)
    library = GameLibrary(games)
    assert library.games() == []
    with pytest.raises(UnknownGame):
        library.pgn("2025-01-01_1000_A-vs-B")
    assert "private" not in library.all_pgn()


# -- point 4: connections ----------------------------------------------------------------------------------

class FakeTransport:
    def __init__(self, peer):
        self.peer = peer
        self.closed = False

    def get_extra_info(self, name):
        return (self.peer, 40000) if name == "peername" else None

    def is_closing(self):
        return self.closed

    def close(self):
        self.closed = True

    abort = close


def test_connections_are_capped_per_client_and_in_all():
    guard = ConnectionGuard(lambda: 0.0, total=10, per_client=4)
    mine = [FakeTransport("10.0.0.2") for _ in range(5)]
    assert [guard.admit(t) for t in mine] == [True] * 4 + [False]
    others = [FakeTransport(f"10.0.1.{i}") for i in range(7)]
    assert [guard.admit(t) for t in others] == [True] * 6 + [False]
    guard.forget(mine[0])
    assert guard.admit(FakeTransport("10.0.0.3"))


def test_idle_and_slow_connections_are_closed_but_busy_ones_stay():
    now = [0.0]
    guard = ConnectionGuard(lambda: now[0], total=10, per_client=10, idle_s=10)
    idle, slow, busy = FakeTransport("a"), FakeTransport("b"), FakeTransport("c")
    for t in (idle, slow, busy):
        guard.admit(t)
    guard.begin(busy)            # a websocket, or a request being answered
    now[0] = 9.0
    assert guard.sweep(now[0]) == 0
    now[0] = 10.0
    assert guard.sweep(now[0]) == 2
    assert idle.closed and slow.closed and not busy.closed
    guard.end(busy)              # its answer went out at 10 s: idle from then on
    assert guard.sweep(19.0) == 0 and guard.sweep(20.0) == 1


async def test_many_idle_connections_do_not_stop_the_page(serve, unused_tcp_port):
    """Issue 12: 1,100 idle connections exhausted the file handles. Served for real (start()),
    one client's connections are capped, and another client still gets the page."""
    from aiohttp import ClientSession

    from firmware.web.pairing import Pairing
    from firmware.web.server import WebCompanion
    from tests.web.fakes import FakeBackend

    companion = WebCompanion(FakeBackend(), pairing=Pairing(None, required=False))
    port = await companion.start("127.0.0.1", unused_tcp_port)
    loop = asyncio.get_running_loop()
    socks = []
    try:
        for _ in range(60):
            sock = socket.socket()
            sock.setblocking(False)
            sock.bind(("127.0.0.2", 0))
            await loop.sock_connect(sock, ("127.0.0.1", port))
            socks.append(sock)
        for _ in range(10_000):     # let the server accept them (loop turns, no time measured)
            if companion.connections.open + companion.connections.refused >= 60:
                break
            await asyncio.sleep(0)
        assert companion.connections.open <= companion.connections.per_client
        assert companion.connections.refused >= 60 - companion.connections.per_client
        async with ClientSession() as http:
            async with http.get(f"http://127.0.0.1:{port}/api/state") as response:
                assert response.status == 200
    finally:
        for sock in socks:
            sock.close()
        await companion.stop()


# -- point 10: a taken web port -------------------------------------------------------------------------------

async def test_a_taken_port_is_said_loudly_on_the_leds_too_and_retried(tmp_path, unused_tcp_port, caplog):
    from board_driver.backends.sim_leds import RecordingLedSink
    from firmware.config import parse_config
    from firmware.session.session import Session
    from firmware.web.companion import NO_PAGE_SQUARES, build_companion, listen

    config = parse_config({"board": {"sensors": "sim"}, "storage": {"dir": str(tmp_path)}})

    class Service:
        leds = RecordingLedSink()
        session = Session(config, leds=leds)   # (the session alone shows frames on the board's LEDs)

        def offer(self, **parts) -> None:   # (what a companion lends the board: not looked at here)
            pass

    holder = socket.socket()
    holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    holder.bind(("127.0.0.1", unused_tcp_port))
    holder.listen()
    companion = build_companion(Service.session, config)
    task = asyncio.create_task(listen(Service(), companion, "127.0.0.1", unused_tcp_port, retry_s=0))
    try:
        for _ in range(10_000):
            if Service.leds.frames:
                break
            await asyncio.sleep(0)
        frame = Service.leds.frames[-1]
        assert all(frame[s] == 0xFF0000 for s in NO_PAGE_SQUARES)
        assert any(r.levelno >= logging.ERROR and "cannot listen" in r.getMessage() for r in caplog.records)
        assert not task.done()   # the board plays on, the page is tried again
        holder.close()
        assert await asyncio.wait_for(task, 5) == unused_tcp_port
    finally:
        holder.close()
        task.cancel()
        await companion.stop()


async def test_past_the_hard_limit_the_leds_show_the_code_and_the_owner_pairs(tmp_path, unused_tcp_port):
    """Issue 12, point 5: the global limit slows guessing, but a code entered while the LEDs show it
    always pairs; past the hard limit a refusal makes the board show its code."""
    from aiohttp import ClientSession

    from board_driver.backends.sim_leds import RecordingLedSink
    from firmware.config import parse_config
    from firmware.session.session import Session
    from firmware.web.companion import start_web
    from firmware.web.pairing import led_pattern

    config = parse_config({"board": {"sensors": "sim"}, "storage": {"dir": str(tmp_path)},
                           "web": {"host": "127.1", "port": unused_tcp_port, "pairing_code": "35162478"}})
    now = [1000.0]

    class Service:
        leds = RecordingLedSink()
        session = Session(config, leds=leds, clock=lambda: now[0])   # (the session alone shows frames on them)

        def offer(self, **parts) -> None:   # (what a companion lends the board: not looked at here)
            pass

    service = Service()
    service.config = config
    companion = await start_web(service, pattern_s=15)
    try:
        assert service.leds.last == led_pattern("35162478")          # shown at start
        limiter = companion.pairing.limiter
        assert limiter.open_until == 1015.0
        now[0] = 2000.0                                               # long after: the LEDs are back
        service.session.poll(now[0])                                  # (the loop wakes at the code's end)
        for n in range(limiter.hard):
            limiter.failed(f"10.9.{n // 250}.{n % 250}", now[0])
        service.leds.frames.clear()
        async with ClientSession() as http:
            url = f"http://127.0.0.1:{unused_tcp_port}/api/pair"
            async with http.post(url, json={"code": "35162478"}) as response:
                assert response.status == 200                         # the owner's right code pairs
            assert service.leds.last == led_pattern("35162478")      # as the board shows its code
            async with http.post(url, json={"code": "11111111"}) as response:
                assert response.status == 403                         # a stranger still gets 5 tries only
            limiter.open_until = now[0]                               # the LEDs are back to the game
            async with http.post(url, json={"code": "35162478"}) as response:
                assert response.status == 429                         # shown again only after a while
                assert "shows its code" in (await response.json())["error"]
    finally:
        await companion.stop()


class StuckTransport(FakeTransport):
    """A transport whose close() waits for a buffer the client never reads: only abort() ends it."""

    def __init__(self, host):
        super().__init__(host)
        self.aborted = False

    def abort(self):
        self.closed = self.aborted = True


def test_a_connection_closed_but_never_flushed_is_aborted_after_a_while():
    """asyncio's close() keeps a transport (its file handle, its place in the caps) until its buffer
    is written; a client that never reads never lets it go. The sweep aborts it once it has been
    closing for idle_s (the server closes it after an error, or the sweep did)."""
    now = [0.0]
    guard = ConnectionGuard(lambda: now[0], total=10, per_client=10, idle_s=10)
    stuck, upgraded = StuckTransport("a"), StuckTransport("b")
    guard.admit(stuck)
    guard.admit(upgraded)
    guard.begin(upgraded)
    guard.upgraded(upgraded)     # a websocket: bounded by its heartbeat, not by BUSY_S
    stuck.close()                # the server hung up; the buffer stays
    guard.sweep(5.0)
    assert not stuck.aborted
    guard.sweep(15.0)
    assert stuck.aborted
    guard.sweep(10_000.0)
    assert not upgraded.closed


@pytest.mark.parametrize("origin", ["http://[", "http://[::1", "null", "http://evil.example"])
async def test_a_malformed_origin_is_another_site_not_an_internal_error(serve, origin, caplog):
    """urlsplit() raises on "http://[": the Origin check turned a hostile header into a 500 and a
    stack trace in the journal. Whatever cannot be this host's origin is another site's (403)."""
    client, _, backend = await serve()
    response = await post(client, "/api/game/new", {}, headers={"Origin": origin})
    assert response.status == 403, await response.text()
    reader, writer = await asyncio.open_connection(client.server.host, client.server.port)
    writer.write(f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{client.server.port}\r\nOrigin: {origin}\r\n"
                 f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                 f"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n".encode())
    answer = await read_answer(reader, HTTPClient(upgrade=True))     # read by h11
    writer.close()
    assert answer.status == 403 and json.loads(answer.body)["error"]
    assert not backend.calls and not any("internal error" in r.getMessage() for r in caplog.records)


def test_websockets_are_capped_per_client_and_in_all_below_the_connections():
    """A websocket is held for as long as its page answers the heartbeat, each with its buffers and
    three tasks: 256 of them (the connection cap) could take much of a Pi Zero 2 W's spare memory,
    and leave no connection to load the page or send a command. They have caps of their own."""
    guard = ConnectionGuard(lambda: 0.0, total=20, per_client=10, sockets=4, sockets_per_client=2)
    mine = [FakeTransport("10.0.0.2") for _ in range(3)]
    others = [FakeTransport(f"10.0.1.{i}") for i in range(3)]
    for t in mine + others:
        assert guard.admit(t)
    assert guard.may_upgrade(mine[0])
    guard.upgraded(mine[0])
    guard.upgraded(mine[1])
    assert not guard.may_upgrade(mine[2])                    # two per client
    guard.upgraded(others[0])
    guard.upgraded(others[1])
    assert not guard.may_upgrade(others[2])                  # four in all
    guard.forget(mine[0])
    assert guard.may_upgrade(others[2]) and guard.may_upgrade(mine[2])


async def test_a_socket_past_the_cap_is_a_503_that_says_why(serve):
    client, companion, backend = await serve()
    companion.connections.sockets_per_client = 1
    first = await client.ws_connect("/ws")
    response = await client.get("/ws", headers={"Upgrade": "websocket", "Connection": "Upgrade",
                                                "Sec-WebSocket-Version": "13",
                                                "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="})
    assert response.status == 503 and response.headers["Retry-After"]
    assert "open" in (await response.json())["error"]
    await first.close()


def test_websockets_leave_half_the_connections_when_file_handles_are_few():
    """connection_cap() lowers the connections to what the file-handle limit allows (8 at least):
    websockets then take at most half of them, whatever their own cap."""
    guard = ConnectionGuard(lambda: 0.0, total=8, per_client=8, sockets=64, sockets_per_client=8)
    pages = [FakeTransport(f"10.0.0.{i}") for i in range(8)]
    allowed = 0
    for t in pages:
        guard.admit(t)
        if guard.may_upgrade(t):
            guard.upgraded(t)
            allowed += 1
    assert allowed == 4
