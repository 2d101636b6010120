"""Benchmark: the page's own HTTP/WebSocket server beside aiohttp's, serving the same three things.

Each server runs alone in a child process and serves what the board's page asks of it:
``GET /static/app.js`` (the page's script, from disk), ``GET /api/state`` (a page state of
the board, JSON) and ``/ws`` (a WebSocket that answers the page's ``ping`` with a pong). The
peer is aiohttp's server (``aiohttp.web``, as the board used until this was written, access log
off); ours is ``netserver.http_server`` with ``netserver.websocket``. The same client (raw
sockets, one kept-alive connection, in this process) sends the same requests to both, in turns.

Prints, per server: resident memory (VmRSS) once it listens and after the requests, the CPU the
server spent per request (utime + stime of the child, over all requests: free of the client's
and others' scheduling), and the client's round-trip median and p99.

Run: .venv/bin/python bench/http_server.py [--requests N]
"""
from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import socket
import statistics
import struct
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
STATIC = ROOT / "firmware" / "web" / "static"
TICKS = os.sysconf("SC_CLK_TCK")


def page_state() -> dict:
    """A page state of the size the board sends mid-game (a real one, from the session)."""
    from board_driver.reading import Reading
    from chess_core import Position
    from firmware.config import Config
    from firmware.session.session import Session
    from firmware.web.session_backend import page_state as build
    session = Session(Config())
    session.feed(Reading(0.0, Position().occupied))
    return json.loads(json.dumps(build(session.state(1.0)), default=str))


# -- the two servers (each in its own child process) ----------------------------------------------

def serve_ours(port: int, state: dict) -> None:
    from netserver.http_server import HTTPServer, Request, Response, Router, file_response, json_response
    from netserver.limits import ConnectionGuard

    async def script(request: Request) -> Response:
        return file_response(STATIC / "app.js", request)

    async def api_state(request: Request) -> Response:
        return json_response(state)

    async def ws(request: Request) -> Response:
        socket_ = await request.upgrade(heartbeat=None)
        async for text in socket_:
            if text == "ping":
                await socket_.send_str('{"type":"pong"}')
        return Response(status=101)

    router = Router()
    router.add_get("/static/app.js", script)
    router.add_get("/api/state", api_state)
    router.add_get("/ws", ws)

    async def app(request: Request) -> Response:
        return await router.resolve(request)(request)

    async def main() -> None:
        await HTTPServer(app, ConnectionGuard(time.monotonic)).start("127.0.0.1", port)
        print("listening", flush=True)
        await asyncio.Event().wait()

    asyncio.run(main())


def serve_aiohttp(port: int, state: dict) -> None:
    from aiohttp import WSMsgType, web

    async def script(request):
        return web.FileResponse(STATIC / "app.js")

    async def api_state(request):
        return web.json_response(state)

    async def ws(request):
        socket_ = web.WebSocketResponse(max_msg_size=4096)
        await socket_.prepare(request)
        async for msg in socket_:
            if msg.type == WSMsgType.TEXT and msg.data == "ping":
                await socket_.send_str('{"type":"pong"}')
        return socket_

    app = web.Application()
    app.router.add_get("/static/app.js", script)
    app.router.add_get("/api/state", api_state)
    app.router.add_get("/ws", ws)

    async def main() -> None:
        runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", port).start()
        print("listening", flush=True)
        await asyncio.Event().wait()

    asyncio.run(main())


# -- the client ---------------------------------------------------------------------------------

def status_of(pid: int) -> tuple[float, float]:
    """(VmRSS in MB, CPU seconds used) of a process."""
    rss = next(int(l.split()[1]) for l in Path(f"/proc/{pid}/status").read_text().splitlines()
               if l.startswith("VmRSS:")) / 1024
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return rss, (int(fields[11]) + int(fields[12])) / TICKS


async def http_round_trips(port: int, path: str, n: int) -> list[float]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
    times = []
    for _ in range(n):
        start = time.perf_counter()
        writer.write(request)
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length:"))
        body = await reader.readexactly(length)
        times.append((time.perf_counter() - start) * 1e6)
        assert head.startswith(b"HTTP/1.1 200") and body
    writer.close()
    return times


async def ws_round_trips(port: int, n: int) -> list[float]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write((f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    head = await reader.readuntil(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 101"), head
    mask = os.urandom(4)
    ping = bytes([0x81, 0x80 | 4]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(b"ping"))
    times = []
    for _ in range(n):
        start = time.perf_counter()
        writer.write(ping)
        first, second = await reader.readexactly(2)
        payload = await reader.readexactly(second & 0x7F)
        times.append((time.perf_counter() - start) * 1e6)
        assert first & 0x0F == 1 and b"pong" in payload
    writer.close()
    return times


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def measure(kind: str, n: int) -> dict:
    port = free_port()
    proc = subprocess.Popen([sys.executable, __file__, "--serve", kind, str(port)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "listening"
        rss_start, cpu_start = status_of(proc.pid)

        async def client() -> dict:
            return {"app.js": await http_round_trips(port, "/static/app.js", n),
                    "state": await http_round_trips(port, "/api/state", n),
                    "ws": await ws_round_trips(port, n)}

        times = asyncio.run(client())
        rss_end, cpu_end = status_of(proc.pid)
    finally:
        proc.terminate()
        proc.wait()
    return {"rss_start": rss_start, "rss_end": rss_end, "cpu_us": (cpu_end - cpu_start) / (3 * n) * 1e6,
            "times": times}


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=3000, help="requests of each kind (default 3000)")
    parser.add_argument("--rounds", type=int, default=3, help="turns of the two servers (default 3)")
    args = parser.parse_args()
    results: dict[str, list[dict]] = {"ours": [], "aiohttp": []}
    for _ in range(args.rounds):
        for kind in results:
            results[kind].append(measure(kind, args.requests))
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; {args.rounds} rounds of "
          f"{args.requests} requests of each kind, the two servers in turns")
    for kind, runs in results.items():
        print(f"{kind:8s} RSS listening {statistics.median(r['rss_start'] for r in runs):5.1f} MB, after the requests "
              f"{statistics.median(r['rss_end'] for r in runs):5.1f} MB; server CPU per request "
              f"{statistics.median(r['cpu_us'] for r in runs):5.0f} us (median of the rounds)")
        for what in ("app.js", "state", "ws"):
            samples = [t for r in runs for t in r["times"][what]]
            print(f"         {what:7s} round trip median {statistics.median(samples):6.0f} us  "
                  f"p99 {pct(samples, 0.99):6.0f} us  ({len(samples)} requests)")
    ours, peer = results["ours"], results["aiohttp"]
    print(f"ours / aiohttp: RSS when listening x{statistics.median(r['rss_start'] for r in ours) / statistics.median(r['rss_start'] for r in peer):.2f}, "
          f"CPU per request x{statistics.median(r['cpu_us'] for r in ours) / statistics.median(r['cpu_us'] for r in peer):.2f}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--serve":
        state = page_state()
        (serve_ours if sys.argv[2] == "ours" else serve_aiohttp)(int(sys.argv[3]), state)
        sys.exit(0)
    sys.exit(main())
