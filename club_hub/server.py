"""The hub's web side (aiohttp): the hall page, its websocket, /round.pgn, per-board PGN, ratings.

Everything is read-only: the page and the files show what the boards sent, to requests addressed to
the hub's own names (a page whose name was pointed at the hub, DNS rebinding, gets a 421; the name is an
absolute-form request line's, which overrides the Host header, RFC 9112 3.2.2). A request the server
cannot parse, or that fails, is one journal line per client per minute, as on the board
(netserver.limits.LogLimiter), never a traceback for each. The websocket sends
every board once on connection, then each board again whenever it changes (the page never polls).
A board's update is encoded once and sent to every page.
"""
from __future__ import annotations

import asyncio
import json
import logging
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web
from aiohttp.http_exceptions import HttpProcessingError

from club_wire.topics import NAME
from club_hub.core import Hub
from netserver.host_names import HostNames
from netserver.http_server import ABSOLUTE
from netserver.limits import LogLimiter

log = logging.getLogger(__name__)

STATIC = Path(__file__).with_name("static")
PGN_TYPE = "application/x-chess-pgn"
NO_STORE = {"Cache-Control": "no-store"}


def _error(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status)


MISDIRECTED = ("this hub does not answer to that name: open the hall page by the hub's address or its own "
               "name (more names: echiquier hub --hosts)")


def addressed_to(request: web.BaseRequest) -> str:
    """The name a request is addressed to: an absolute-form target's authority (the Host header is
    then ignored, RFC 9112 3.2.2), else its Host header ("" without one)."""
    absolute = ABSOLUTE.fullmatch(request.raw_path)
    return absolute.group(1) if absolute else request.headers.get("Host", "")


class FaultLog(logging.LoggerAdapter):  # type: ignore[type-arg]
    """aiohttp's server logger for the hub: a request it cannot parse is one warning line, a failure
    of ours one traceback, each at most once a minute per client (``clock``: the limiter's time)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(log, {})
        self.clock = clock
        self.limiter = LogLimiter()

    def log(self, level: int, msg: object, *args: Any, exc_info: Any = None, **kwargs: Any) -> None:
        if not self.isEnabledFor(max(level, logging.WARNING)):
            return
        client = str(args[0]) if args and str(msg).endswith("from %s") else "?"
        exc = exc_info if isinstance(exc_info, BaseException) else sys.exc_info()[1] if exc_info else None
        if isinstance(exc, HttpProcessingError):
            if self.limiter.allow(client, "bad request", self.clock()):
                said = "".join(c if c.isprintable() else "?" for c in " ".join(str(exc.message).split())[:200])
                self.logger.warning("bad request from %s (once a minute per client): %s", client, said)
        elif exc is not None or level >= logging.ERROR:
            if self.limiter.allow(client, "fault", self.clock()):
                self.logger.log(max(level, logging.ERROR), "%s (once a minute per client)", str(msg) % args,
                                exc_info=exc_info)
        elif level >= logging.WARNING:
            self.logger.log(level, msg, *args, **kwargs)


class HubServer:
    """Serves ``hub`` on ``host``:``port`` (``await start()``, ``await stop()``) to requests addressed
    to one of ``names`` (default: its addresses, localhost and this machine's names); ``clock`` times
    the journal's limits."""

    def __init__(self, hub: Hub, names: HostNames | None = None, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.hub = hub
        self.names = names if names is not None else HostNames()
        self.fault_log = FaultLog(clock)
        self.sockets: set[web.WebSocketResponse] = set()
        self._sending: set[asyncio.Task] = set()
        self.app = web.Application(middlewares=[self._addressed_here])
        r = self.app.router
        r.add_get("/", self._page)
        r.add_get("/ws", self._websocket)
        r.add_get("/api/boards", self._boards)
        r.add_get("/round.pgn", self._round_pgn)
        r.add_get("/round/{round}.pgn", self._a_round_pgn)
        r.add_get("/board/{board}.pgn", self._board_pgn)
        r.add_get("/ratings.csv", self._ratings_csv)
        r.add_get("/api/ratings", self._ratings)
        r.add_get("/api/player/{name}", self._player)
        r.add_get("/player/{name}.csv", self._player_csv)
        self.runner: web.AppRunner | None = None
        self.port: int | None = None
        hub.listeners.append(self.board_changed)

    @web.middleware
    async def _addressed_here(self, request: web.Request, handler: Any) -> web.StreamResponse:
        if addressed_to(request) not in self.names:
            return _error(421, MISDIRECTED)
        response: web.StreamResponse = await handler(request)
        return response

    async def start(self, host: str, port: int) -> int:
        self.runner = web.AppRunner(self.app, access_log=None, logger=self.fault_log)
        await self.runner.setup()
        site = web.TCPSite(self.runner, host, port)
        await site.start()
        port = self.runner.addresses[0][1]   # the port the system chose for port 0
        self.port = port
        return port

    async def stop(self) -> None:
        for ws in list(self.sockets):
            await ws.close()
        if self._sending:
            await asyncio.gather(*self._sending, return_exceptions=True)
        if self.runner is not None:
            await self.runner.cleanup()

    # -- live updates ------------------------------------------------------------------------

    def board_changed(self, board: str) -> None:
        if not self.sockets:
            return
        text = json.dumps({"type": "board", "board": self.hub.board_view(board),
                           "ratings": self.hub.ratings_view()}, separators=(",", ":"))
        for ws in list(self.sockets):
            if ws.closed:
                self.sockets.discard(ws)
                continue
            self._send(ws, text)

    def _send(self, ws: web.WebSocketResponse, text: str) -> None:
        task = asyncio.ensure_future(ws.send_str(text))
        self._sending.add(task)

        def done(t: asyncio.Task) -> None:
            self._sending.discard(t)
            if not t.cancelled() and t.exception() is not None:
                self.sockets.discard(ws)   # a page gone away
        task.add_done_callback(done)

    def _all(self) -> dict[str, Any]:
        hub = self.hub
        return {"type": "all", "round": hub.round, "site": hub.site,
                "boards": [hub.board_view(b) for b in hub.board_names()], "ratings": hub.ratings_view()}

    async def _websocket(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(heartbeat=30)
        await ws.prepare(request)
        await ws.send_str(json.dumps(self._all(), separators=(",", ":")))
        self.sockets.add(ws)
        try:
            async for message in ws:
                if message.type == WSMsgType.ERROR:
                    break
        finally:
            self.sockets.discard(ws)
        return ws

    # -- pages and files -----------------------------------------------------------------------

    async def _page(self, request: web.Request) -> web.StreamResponse:
        return web.FileResponse(STATIC / "hub.html", headers=NO_STORE)

    async def _boards(self, request: web.Request) -> web.Response:
        return web.json_response(self._all(), headers=NO_STORE)

    async def _round_pgn(self, request: web.Request) -> web.Response:
        return web.Response(text=self.hub.round_pgn(), content_type=PGN_TYPE, headers=NO_STORE)

    async def _a_round_pgn(self, request: web.Request) -> web.Response:
        round = request.match_info["round"]
        text = self.hub.round_pgn(round)
        if not text:
            return _error(404, f"no game of round {round[:40]!r} is kept")
        return web.Response(text=text, content_type=PGN_TYPE, headers=NO_STORE)

    async def _board_pgn(self, request: web.Request) -> web.Response:
        board = request.match_info["board"]
        if not NAME.fullmatch(board):
            return _error(400, f"a board is named with letters, digits, - and _, not {board[:40]!r}")
        text = self.hub.board_pgn(board)
        if text is None:
            return _error(404, f"board {board} has no game yet")
        return web.Response(text=text, content_type=PGN_TYPE, headers=NO_STORE)

    async def _ratings_csv(self, request: web.Request) -> web.Response:
        return web.Response(text=self.hub.ratings.to_csv(), content_type="text/csv", headers=NO_STORE)

    async def _ratings(self, request: web.Request) -> web.Response:
        return web.json_response({"players": self.hub.ratings_view()}, headers=NO_STORE)

    async def _player(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name not in self.hub.ratings.players:
            return _error(404, f"no player {name[:80]!r} in the rating list")
        p = self.hub.ratings.players[name]
        games = [vars(r) for r in self.hub.ratings.player_history(name)]
        return web.json_response({"name": name, "rating": round(p.rating), "games": games}, headers=NO_STORE)

    async def _player_csv(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name not in self.hub.ratings.players:
            return _error(404, f"no player {name[:80]!r} in the rating list")
        return web.Response(text=self.hub.ratings.history_csv(name), content_type="text/csv", headers=NO_STORE)
