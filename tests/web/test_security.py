"""The attacks of issue 12 against a real `echiquier sim --host 127.1 --pairing-code ...` (a subprocess).

127.1 is the loopback address spelt so that the simulator takes it for a LAN address: pairing is
required, exactly as on a real board, and nothing leaves this machine. Other clients come from
other loopback addresses (127.0.0.2...). Every attack is bounded in count and time.
"""
from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import re
import socket
import sys
from pathlib import Path

import aiohttp
import pytest

from firmware.web.pairing import COOKIE
from tests.said import both, error_in

CODE = "35162478"
ECHIQUIER = Path(sys.executable).with_name("echiquier")
TIMEOUT = aiohttp.ClientTimeout(total=10)


class Board:
    """The running simulator: its address, and clients from chosen loopback addresses."""

    def __init__(self, proc: asyncio.subprocess.Process, port: int, state: Path) -> None:
        self.proc = proc
        self.port = port
        self.state = state
        self.url = f"http://127.0.0.1:{port}"    # listening on 127.1, the same address
        self.origin = self.url

    def client(self, address: str = "127.0.0.1", **kw) -> aiohttp.ClientSession:
        connector = aiohttp.TCPConnector(local_addr=(address, 0), force_close=True)
        return aiohttp.ClientSession(connector=connector, timeout=TIMEOUT,
                                     cookie_jar=aiohttp.CookieJar(unsafe=True), **kw)

    async def post(self, http: aiohttp.ClientSession, path: str, body, headers=None):
        data = body if isinstance(body, str) else json.dumps(body)
        async with http.post(self.url + path, data=data,
                             headers={"Content-Type": "application/json", **(headers or {})}) as response:
            return response.status, await response.text()

    async def alive(self) -> bool:
        async with self.client("127.0.0.250") as http:
            async with http.get(self.url + "/api/state") as response:
                return response.status == 200


async def _start(state: Path, **kw) -> Board:
    proc = await asyncio.create_subprocess_exec(
        str(ECHIQUIER), "sim", "--host", "127.1", "--port", "0", "--pairing-code", CODE,
        "--state-dir", str(state), stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, **kw)
    line = await asyncio.wait_for(proc.stdout.readline(), 60)
    found = re.search(rb"http://127\.1:(\d+)/", line)
    assert found, line
    return Board(proc, int(found.group(1)), state)


@pytest.fixture
async def board(tmp_path):
    board = await _start(tmp_path / "state")
    yield board
    if board.proc.returncode is None:
        board.proc.terminate()
        await asyncio.wait_for(board.proc.wait(), 30)


async def test_a_cookie_forged_from_the_code_alone_changes_nothing(board):
    """The 67-second attack: the cookie was an HMAC keyed by the code alone."""
    key = hashlib.sha256(b"echiquier pairing token\0" + CODE.encode()).digest()
    nonce = "ab" * 16
    forged = f"{nonce}.{hmac.new(key, nonce.encode(), hashlib.sha256).hexdigest()}"
    async with board.client("127.0.0.2") as http:
        http.cookie_jar.update_cookies({COOKIE: forged})
        async with http.get(board.url + "/api/session") as response:
            assert (await response.json())["paired"] is False
        http.cookie_jar.update_cookies({COOKIE: forged})
        status, _ = await board.post(http, "/api/settings", {"show_legal": False})
        assert status == 403


async def test_bad_cookies_are_counted_as_guesses(board):
    async with board.client("127.0.0.3") as http:
        for i in range(5):
            http.cookie_jar.update_cookies({COOKIE: f"{i:032x}." + "0" * 64})
            async with http.get(board.url + "/api/session") as response:
                assert (await response.json())["paired"] is False
        status, text = await board.post(http, "/api/pair", {"code": CODE})
        assert status == 429, text


async def test_strangers_wrong_codes_do_not_lock_the_owner_out(board):
    for n in range(6):
        async with board.client(f"127.0.1.{n + 1}") as http:
            for guess in range(5):
                status, _ = await board.post(http, "/api/pair", {"code": f"1111111{guess + 1}"})
                assert status == 403
    async with board.client("127.0.2.1") as owner:
        status, text = await board.post(owner, "/api/pair", {"code": CODE})
        assert status == 200, text
        status, text = await board.post(owner, "/api/settings", {"show_legal": False})
        assert status == 200, text


async def _flood(port: int, addresses: list[str], per_address: int) -> list[socket.socket]:
    """Open idle connections (nothing sent) from ``addresses``; those refused are dropped."""
    loop = asyncio.get_running_loop()
    socks = []
    for address in addresses:
        for _ in range(per_address):
            sock = socket.socket()
            sock.setblocking(False)
            sock.bind((address, 0))
            try:
                await asyncio.wait_for(loop.sock_connect(sock, ("127.0.0.1", port)), 5)
            except (ConnectionError, OSError, asyncio.TimeoutError):
                sock.close()
                continue
            socks.append(sock)
    return socks


@pytest.fixture
async def tight_board(tmp_path):
    """The simulator with 256 file handles (LimitNOFILE), as a small board would have."""
    def limit() -> None:
        import resource
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
    board = await _start(tmp_path / "state", preexec_fn=limit)
    yield board
    if board.proc.returncode is None:
        board.proc.terminate()
        await asyncio.wait_for(board.proc.wait(), 30)


async def test_idle_connections_neither_take_the_page_down_nor_stop_the_saves(tight_board):
    """Issue 12: 1,100 idle connections exhausted the file handles: the page stopped answering
    and the next save failed with EMFILE."""
    board = tight_board
    connector = aiohttp.TCPConnector(local_addr=("127.0.0.5", 0), limit=1)   # one kept-alive connection
    watcher = board.client("127.0.0.6")                                # the page, on its websocket
    async with aiohttp.ClientSession(connector=connector, timeout=TIMEOUT) as owner, watcher:
        async with owner.get(board.url + "/api/state") as response:
            assert response.status == 200
        ws = await watcher.ws_connect(board.url + "/ws", headers={"Origin": board.origin})
        socks = await _flood(board.port, ["127.0.0.4"], 300)          # one attacker
        try:
            assert await board.alive()                                 # the page answers others
            socks += await _flood(board.port, [f"127.0.5.{n}" for n in range(1, 21)], 15)   # many
            for square in ("e2", "e4"):                                # the owner plays on
                status, text = await board.post(owner, "/api/sim/click", {"square": square},
                                                headers={"X-Pairing-Code": CODE, "Origin": board.origin})
                assert status == 200, text
            state = None
            for _ in range(200):
                message = json.loads((await ws.receive(timeout=10)).data)
                if message["type"] == "state" and message["state"]["moves"]["san"] == ["e4"]:
                    state = message["state"]
                    break
            assert state is not None and not state.get("save_problem")
            saved = json.loads((board.state / "current.json").read_text())
            assert saved["moves"] == ["e2e4"]                          # the save went through
        finally:
            for sock in socks:
                sock.close()
            await ws.close()
    assert await board.alive()


@pytest.mark.parametrize("body", [
    "[" * 5000 + "]" * 5000,
    '{"code": ' + "9" * 5000 + "}",
    '{"code": "' + "\\ud83d" + '"}',
])
async def test_bad_bodies_are_400s_and_the_board_stays_up(board, body):
    async with board.client("127.0.0.6") as http:
        for _ in range(20):
            status, text = await board.post(http, "/api/pair", body)
            assert status == 400, text
            assert "Traceback" not in text
    assert await board.alive()


async def test_a_name_that_would_stop_every_restart_is_refused(board):
    async with board.client("127.0.0.7") as http:
        status, _ = await board.post(http, "/api/game/new", '{"white": "\\ud83d"}', headers={"X-Pairing-Code": CODE})
        assert status == 400
    board.proc.terminate()
    await asyncio.wait_for(board.proc.wait(), 30)
    again = await _start(board.state)     # starts, whatever was saved
    try:
        assert await again.alive()
    finally:
        again.proc.terminate()
        await asyncio.wait_for(again.proc.wait(), 30)


async def test_other_sites_can_neither_write_nor_read_the_live_board(board):
    async with board.client("127.0.0.8") as http:
        for origin in ("null", "http://evil.example"):
            status, _ = await board.post(http, "/api/settings", {"show_legal": False},
                                         headers={"Origin": origin, "X-Pairing-Code": CODE})
            assert status == 403
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await http.ws_connect(board.url + "/ws", headers={"Origin": origin})
            assert refused.value.status == 403
        ws = await http.ws_connect(board.url + "/ws", headers={"Origin": board.origin})
        assert json.loads((await ws.receive(timeout=5)).data)["type"] == "hello"
        await ws.close()


async def test_a_page_that_points_its_own_name_at_the_board_reads_nothing(board):
    """DNS rebinding (issue 26, point 1): evil.example, pointed at the board's address, sends
    ``Host: evil.example:PORT`` and a matching Origin; the state, the library, the PGN and the live
    board all answered 200/101. Every request under a name the board does not answer to is a 421."""
    evil = f"evil.example:{board.port}"
    rebound = {"Host": evil, "Origin": f"http://{evil}"}
    async with board.client("127.0.0.12") as http:
        for path in ("/api/state", "/api/games", "/games.pgn"):
            async with http.get(board.url + path, headers=rebound) as response:
                assert response.status == 421, path
                assert set(await response.json()) == {"error", "message"}
            async with http.get(board.url + path) as response:
                assert response.status == 200, path           # by the board's address
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await http.ws_connect(board.url + "/ws", headers=rebound)
        assert refused.value.status == 421


async def test_a_link_in_the_games_directory_is_not_served(board, tmp_path):
    secret = tmp_path / "notes.txt"
    secret.write_text("the owner's private notes")
    games = board.state / "games"
    games.mkdir(parents=True, exist_ok=True)
    (games / "2025-01-01_1000_A-vs-B.pgn").symlink_to(secret)
    async with board.client("127.0.0.9") as http:
        async with http.get(board.url + "/api/games") as response:
            assert all(g["id"] != "2025-01-01_1000_A-vs-B" for g in (await response.json())["games"])
        async with http.get(board.url + "/games/2025-01-01_1000_A-vs-B.pgn") as response:
            assert response.status == 404
        async with http.get(board.url + "/games.pgn") as response:
            assert "private" not in await response.text()


@pytest.mark.slow
async def test_a_slow_request_head_is_cut_off(board):
    """A client that sends its request head a byte at a time (slowloris) holds nothing for long:
    the connection is closed once it has not brought a whole request in 10 s."""
    loop = asyncio.get_running_loop()
    sock = socket.socket()
    sock.setblocking(False)
    sock.bind(("127.0.0.10", 0))
    try:
        await loop.sock_connect(sock, ("127.0.0.1", board.port))
        await loop.sock_sendall(sock, b"GET / HTTP/1.1\r\nHost: 127.1\r\n")   # and never the end
        closed = await asyncio.wait_for(loop.sock_recv(sock, 1024), 30)
        assert closed == b""
    finally:
        sock.close()


@pytest.mark.slow
async def test_a_slow_body_gets_a_408_and_holds_nothing(board):
    """A client that sends its head and then its body a trickle at a time gets 408 after 10 s."""
    loop = asyncio.get_running_loop()
    sock = socket.socket()
    sock.setblocking(False)
    sock.bind(("127.0.0.11", 0))
    try:
        await loop.sock_connect(sock, ("127.0.0.1", board.port))
        head = (f"POST /api/pair HTTP/1.1\r\nHost: 127.1:{board.port}\r\nContent-Type: application/json\r\n"
                f"Content-Length: 100\r\n\r\n" + '{"code": ').encode()
        await loop.sock_sendall(sock, head)                          # and never the rest
        answer = await asyncio.wait_for(loop.sock_recv(sock, 4096), 30)
        assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
    finally:
        sock.close()
    assert await board.alive()
