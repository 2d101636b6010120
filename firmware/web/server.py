"""The web companion's server: the page, its websocket, the commands, the game library, pairing.

One :class:`WebCompanion` serves one :class:`~firmware.web.backend.Backend` on the session's
asyncio loop. Reading is free: the page, ``GET /api/state``, the websocket ``/ws`` (the page
state, pushed after every change; nothing polls) and the library. Every other method changes
state and passes the guard first:

* a request from another site is refused (its ``Origin``, when sent, must be this host;
  ``Origin: null``, a sandboxed or file page, is refused too), and a body must be JSON
  (``Content-Type: application/json``), which a cross-site form cannot send; without pairing
  (loopback only) the ``Host`` must be a loopback name, against DNS rebinding;
* on a server that needs pairing (bound to the LAN), the client must hold the pairing cookie
  (``POST /api/pair`` with the code) or give the code in ``X-Pairing-Code``; wrong codes and
  bad cookies are rate-limited alike.

The websocket checks the ``Origin`` too, so another site's page cannot read the live board.
Connections are bounded per client and in all, and idle or slow ones closed
(:mod:`firmware.web.limits`). Bodies are parsed with bounded nesting and numbers, then checked
field by field (:mod:`firmware.web.validate`). Errors are answered as JSON ``{"error": "..."}``
with a 4xx status, and written to the journal once per client per minute; anything
unexpected is logged and answered with a 500 that says nothing of the code.

In the simulator the companion also drives the simulated board through a
:class:`~firmware.web.simhand.SimHand` (``/api/sim/...``); those routes do not exist otherwise.
"""
from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit


from chess_core.chess960 import VARIANTS

from firmware.referee import words
from firmware.tasks import cancel_and_wait
from firmware.web.backend import (CLOCK_ACTIONS, COLOUR_CHOICES, COLOURS, DRAW_ACTIONS, ENGINE_SIDES, OPPONENTS,
                      PROMOTION_PIECES, TAKEBACK_ANSWERS, CLAIMS_WHEN_GONE, CommandRefused, Backend)
from netserver.http_server import (HTTPError, HTTPServer, Request, Response, Router, file_response, json_response,
                                   static_file)
from firmware.web.library import GameLibrary, UnknownGame
from netserver.limits import ConnectionGuard, LogLimiter, parse_json
from firmware.web.pairing import COOKIE, COOKIE_MAX_AGE_S, HEADER, Pairing, Refusal, client_key
from firmware.web.simhand import HandError, SimHand
from netserver.websocket import GOING_AWAY, WebSocket
from firmware.web.validate import (BadRequest, Boolean, Choice, Fen, Number, Secret, Square, Squares, Text, TimeControlText,
                       check_body)

log = logging.getLogger(__name__)

STATIC_DIR = Path(__file__).parent / "static"
MAX_BODY = 16 * 1024
COOKIE_CHECKED = "pairing_cookie_checked"
SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or "localhost") is reachable from this machine only."""
    if host in ("localhost", "ip6-localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _error(status: int, message: str, **extra: Any) -> Response:
    return json_response({"error": message, **extra}, status=status, headers={"Cache-Control": "no-store"})


def _http_error(exc: HTTPError) -> Response:
    """An HTTPError in the page's error shape, with its headers (Allow, Retry-After...)."""
    response = _error(exc.status, exc.message)
    response.headers.update(exc.headers)
    return response


class _Client:
    """One websocket: the latest text to send, and the task that sends it (latest wins)."""

    def __init__(self, ws: WebSocket) -> None:
        self.ws = ws
        self.pending: str | None = None
        self.ready = asyncio.Event()
        self.task: asyncio.Task | None = None

    def offer(self, text: str) -> None:
        self.pending = text
        self.ready.set()

    async def run(self) -> None:
        try:
            while not self.ws.closed:
                await self.ready.wait()
                self.ready.clear()
                text, self.pending = self.pending, None
                if text is not None:
                    await self.ws.send_str(text)
        except (ConnectionError, RuntimeError):
            pass  # the peer went away; the handler closes and forgets us


SIM_CAPTURE_PAUSE_S = 0.15   # the victim's sensor settles empty before the mover lands (settle_ms is 30)

# Request bodies, one spec per command.
NEW_GAME = {
    "white": Text(max_length=60, default="White"),
    "black": Text(max_length=60, default="Black"),
    "time_control": TimeControlText(default="-"),
    "rules": Choice("fide", "casual", default="fide"),
    "colours": Choice(*COLOUR_CHOICES, default="as-entered"),
    "fen": Fen(optional=True),
    "opponent": Choice(*OPPONENTS, optional=True),          # absent: the configured one
    "player": Text(max_length=60, optional=True),           # the board's player against the engine
    "engine_side": Choice(*ENGINE_SIDES, optional=True),
    "engine_level": Number(low=0, high=20, integer=True, optional=True),
    "variant": Choice(*VARIANTS, optional=True),                               # absent: as configured
    "start_position": Number(low=-1, high=959, integer=True, optional=True),  # Chess960; -1: random
}
ENGINE_FIELDS = ("engine_side", "engine_level", "player")
SIDE = {"color": Choice(*COLOURS)}
CORRECT = {"move": Text(max_length=5, min_length=4)}   # UCI; the session checks it explains the board
TAKEBACK_ANSWER = {"action": Choice(*TAKEBACK_ANSWERS)}
LICHESS_LOGIN = {"token": Secret(max_length=200)}
LICHESS_CLAIM = {"what": Choice(*CLAIMS_WHEN_GONE)}
DRAW = {"action": Choice(*DRAW_ACTIONS), "color": Choice(*COLOURS, optional=True)}
PROMOTE = {"piece": Choice(*PROMOTION_PIECES)}
CLOCK = {"action": Choice(*CLOCK_ACTIONS)}
SETTINGS = {
    "show_legal": Boolean(optional=True),
    "touch_move": Boolean(optional=True),
    "alternate_colours": Boolean(optional=True),
    "takebacks": Boolean(optional=True),
    "brightness": Number(low=0, high=1, optional=True),
    "engine_level": Number(low=0, high=20, integer=True, optional=True),
    "engine_elo": Number(low=0, high=4000, integer=True, optional=True),   # 0: not limited by Elo
    "engine_move_time": Number(low=0.05, high=60, optional=True),          # seconds per move, no clock
}
PAIR = {"code": Text(max_length=32, min_length=1)}
SIM_SQUARE = {"square": Square(), "index": Number(low=0, high=1, integer=True, optional=True)}
SIM_PASS = {"squares": Squares(max_items=64)}
SIM_ASIDE = {"index": Number(low=0, high=1, integer=True, optional=True)}
EMPTY: dict = {}


class WebCompanion:
    """The page and its API for one backend; ``start(host, port)`` serves it, ``stop()`` ends it."""

    def __init__(self, backend: Backend, *, pairing: Pairing, library: GameLibrary | None = None,
                 hand: SimHand | None = None, clock: Callable[[], float] = time.monotonic,
                 static_dir: Path = STATIC_DIR) -> None:
        self.backend = backend
        self.pairing = pairing
        self.library = library
        self.hand = hand
        self.clock = clock
        self.static_dir = Path(static_dir)
        self.clients: set[_Client] = set()
        self.seq = 0
        self.last_state: dict[str, Any] | None = None
        self._dirty: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._broadcaster: asyncio.Task | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._http: HTTPServer | None = None
        self.port = 0
        self.sent = 0
        # Connections live in real time, whatever clock the game runs on (a test's, a replay's).
        self.connections = ConnectionGuard(time.monotonic)
        self.log_limiter = LogLimiter()
        self.on_show_code: Callable[[], None] | None = None   # show the code on the LEDs (the service)
        self._sweeper: asyncio.Task | None = None
        self.router = self._routes()

    # -- application -----------------------------------------------------------------------------
    def _routes(self) -> Router:
        r = Router()
        r.add_get("/", self._index)
        r.add_get("/ws", self._websocket)
        r.add_get("/api/state", self._state)
        r.add_get("/api/session", self._session_info)
        r.add_get("/api/words", self._words)
        r.add_post("/api/pair", self._pair)
        r.add_post("/api/game/new", self._command(NEW_GAME, self._new_game))
        r.add_post("/api/game/resign", self._command(SIDE, lambda v, now: self.backend.resign(v["color"], now)))
        r.add_post("/api/game/draw", self._command(DRAW, self._draw))
        r.add_post("/api/game/promotion", self._command(PROMOTE, lambda v, now: self.backend.promote(v["piece"], now)))
        r.add_post("/api/game/clock", self._command(CLOCK, lambda v, now: self.backend.clock(v["action"], now)))
        r.add_post("/api/game/takeback", self._command(EMPTY, lambda v, now: self.backend.takeback(now)))
        r.add_post("/api/game/takeback-offer",
                   self._command(TAKEBACK_ANSWER, lambda v, now: self.backend.answer_takeback(v["action"], now)))
        r.add_post("/api/game/takeover",
                   self._command(SIDE, lambda v, now: self.backend.take_over(v["color"], now)))
        r.add_post("/api/game/correct", self._command(CORRECT, lambda v, now: self.backend.correct(v["move"], now)))
        r.add_post("/api/game/giveback",
                   self._command(SIDE, lambda v, now: self.backend.give_back(v["color"], now)))
        r.add_post("/api/lichess/login", self._command(LICHESS_LOGIN, self._lichess_login))
        r.add_post("/api/lichess/logout", self._command(EMPTY, lambda v, now: self.backend.lichess_logout(now)))
        r.add_post("/api/lichess/claim",
                   self._command(LICHESS_CLAIM, lambda v, now: self.backend.claim_when_gone(v["what"], now)))
        r.add_post("/api/settings", self._command(SETTINGS, self._settings))
        r.add_get("/api/games", self._games)
        r.add_get("/api/games/{id}", self._game)
        r.add_get("/games.pgn", self._all_pgn)
        r.add_get("/games/{id}.pgn", self._game_pgn)
        if self.hand is not None:
            r.add_post("/api/sim/click", self._command(SIM_SQUARE, self._sim_click))
            r.add_post("/api/sim/lift", self._command(SIM_SQUARE, self._sim_lift))
            r.add_post("/api/sim/place", self._command(SIM_SQUARE, self._sim_place))
            r.add_post("/api/sim/pass", self._command(SIM_PASS, self._sim_pass))
            r.add_post("/api/sim/aside", self._command(SIM_ASIDE, self._sim_aside))
            r.add_post("/api/sim/setup", self._command(EMPTY, self._sim_setup))
        r.add_get("/static/{name}", self._static)
        return r

    @staticmethod
    def _headers(request: Request, response: Response) -> None:
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        if response.content_type == "text/html":
            response.headers.setdefault("Content-Security-Policy", CSP)
        if request.path.startswith("/static/") or request.path == "/":
            response.headers.setdefault("Cache-Control", "no-cache")

    async def handle(self, request: Request) -> Response:
        """The application: the route, the guard, errors in words, the common headers."""
        response = await self._errors(request, self._guard)
        self._headers(request, response)
        return response

    def _may_log(self, request: Request, kind: str) -> bool:
        return self.log_limiter.allow(client_key(request.remote), kind, self.clock())

    async def _errors(self, request: Request, handler: Callable[[Request], Any]) -> Response:
        try:
            return await handler(request)
        except HTTPError as exc:
            return _http_error(exc)
        except BadRequest as exc:
            if self._may_log(request, "bad request"):
                log.warning("bad request from %s on %s (once a minute per client): %s", request.remote,
                            request.path, exc)
            return _error(400, str(exc))
        except (CommandRefused, HandError) as exc:
            return _error(409, str(exc))
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - the client gets no stack trace, the journal does
            ref = secrets.token_hex(4)
            if self._may_log(request, "internal error"):
                log.exception("internal error %s on %s %s", ref, request.method, request.path)
            return _error(500, f"internal error (reference {ref}, see the journal)")

    def _other_site(self, request: Request) -> bool:
        """Whether the request comes from another site's page (or an opaque one: ``null``)."""
        origin = request.headers.get("Origin")
        if origin is None:
            return False
        try:
            return origin == "null" or urlsplit(origin).netloc != request.host
        except ValueError:   # "http://[": not this host's origin, whatever it is
            return True

    async def _guard(self, request: Request) -> Response:
        handler = self.router.resolve(request)
        if request.method in SAFE_METHODS:
            return await handler(request)
        if self._other_site(request):
            return _error(403, "requests from another site are refused")
        if not self.pairing.required and not is_loopback(urlsplit(f"//{request.host}").hostname or ""):
            # A server without pairing listens on loopback only; another Host means DNS rebinding.
            return _error(403, "this board answers changes addressed to 127.0.0.1 only")
        if request.content_type != "application/json":
            return _error(415, "the body must be JSON (Content-Type: application/json)")
        if request.path != "/api/pair" and self.pairing.required:
            cookie = self._cookie_check(request)
            if isinstance(cookie, Refusal):
                return self._too_many(cookie)
            if cookie is not True:
                code = request.headers.get(HEADER)
                if code is None:
                    return self._forget_cookie(request, _error(
                        403, "this board needs its pairing code to change anything", pairing=True))
                outcome = self._attempt(request, code)
                if isinstance(outcome, Refusal):
                    return self._too_many(outcome)
                if outcome is None:
                    return self._forget_cookie(request, _error(403, "wrong pairing code", pairing=True))
        return await handler(request)

    def _cookie_check(self, request: Request) -> bool | Refusal:
        """The request's pairing cookie, checked once per request: a bad one counts as a wrong code."""
        if COOKIE_CHECKED not in request.state:
            request.state[COOKIE_CHECKED] = self.pairing.check_token(self._client_key(request),
                                                                     request.cookies.get(COOKIE), self.clock())
        return request.state[COOKIE_CHECKED]

    @staticmethod
    def _forget_cookie(request: Request, response: Response) -> Response:
        """Tell the browser to drop a cookie that did not pass (it is counted once, not at every request)."""
        if request.cookies.get(COOKIE):
            response.del_cookie(COOKIE, path="/")
        return response

    @staticmethod
    def _client_key(request: Request) -> str:
        return client_key(request.remote)

    def _attempt(self, request: Request, code: str) -> str | Refusal | None:
        """Try a code. Refused because of others' wrong codes, the board shows its code on the
        LEDs (at most every few minutes) and a code entered while they show it is heard: this
        one at once."""
        client, now = self._client_key(request), self.clock()
        outcome = self.pairing.attempt(client, code, now)
        if isinstance(outcome, Refusal) and outcome.everyone and self.on_show_code is not None:
            try:
                self.on_show_code()
            except Exception:  # noqa: BLE001 - the LEDs must not turn a refusal into a 500
                log.exception("cannot show the pairing code")
            if self.pairing.limiter.open_until > now:
                outcome = self.pairing.attempt(client, code, now)
        return outcome

    def _too_many(self, refusal: Refusal) -> Response:
        wait = max(1, int(refusal.retry_after + 0.999))
        message = f"too many wrong codes: try again in {wait} s"
        if refusal.everyone:
            message = (f"too many wrong codes from other devices: try again in {wait} s, or while the board "
                       f"shows its code on its LEDs")
        response = _error(429, message, retry_after=wait)
        response.headers["Retry-After"] = str(wait)
        return response

    @staticmethod
    def _body(request: Request, spec: dict) -> dict[str, Any]:
        if not request.body:
            raw: Any = {}
        else:
            try:
                text = request.body.decode("utf-8")
            except UnicodeDecodeError:
                raise BadRequest("the body is not UTF-8 text") from None
            try:
                raw = parse_json(text) if text.strip() else {}
            except ValueError as exc:
                raise BadRequest(str(exc)) from None
        return check_body(raw, spec)

    def _command(self, spec: dict, action: Callable[[dict[str, Any], float], Any]):
        async def handler(request: Request) -> Response:
            values = self._body(request, spec)
            result = action(values, self.clock())
            if asyncio.iscoroutine(result):
                result = await result
            self.changed()
            body = {"ok": True}
            if isinstance(result, dict):
                body.update(result)
            return json_response(body, headers={"Cache-Control": "no-store"})
        return handler

    # -- lifecycle ---------------------------------------------------------------------------------
    def attach(self) -> None:
        """Subscribe to the backend and start broadcasting (on the running loop); idempotent."""
        if self._broadcaster is not None:
            return
        self._loop = asyncio.get_running_loop()
        self._dirty = asyncio.Event()
        self._unsubscribe = self.backend.subscribe(self.changed)
        self._broadcaster = self._loop.create_task(self._broadcast_loop(), name="web-broadcast")

    async def start(self, host: str, port: int) -> int:
        """Serve on ``host:port`` (port 0: any free port); returns the port. Idempotent."""
        self.attach()
        if self._http is None:
            server = HTTPServer(self.handle, self.connections, max_body=MAX_BODY, on_error=_http_error)
            self.port = await server.start(host, port)
            self._http = server
            self._sweeper = asyncio.get_running_loop().create_task(self._sweep_loop(), name="web-sweep")
        return self.port

    async def _sweep_loop(self) -> None:
        """Close idle and slow connections, once a second."""
        while True:
            await asyncio.sleep(1.0)
            self.connections.sweep(time.monotonic())

    async def stop(self) -> None:
        """Close every websocket, stop serving, unsubscribe; idempotent."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        clients = list(self.clients)
        # At once: each close waits for its client's answer, and a client may never answer.
        await asyncio.gather(*(client.ws.close(GOING_AWAY) for client in clients), return_exceptions=True)
        for client in clients:
            if client.task is not None:
                client.task.cancel()
        self.clients.clear()
        if self._broadcaster is not None:
            await cancel_and_wait(self._broadcaster)
            self._broadcaster = None
        if self._sweeper is not None:
            self._sweeper.cancel()
            self._sweeper = None
        if self._http is not None:
            await self._http.stop()
            self._http = None

    # -- state and broadcasting ------------------------------------------------------------------------
    def changed(self) -> None:
        """Something changed: send the page state to every client soon (callable from any thread)."""
        if self._dirty is None or self._loop is None:
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:
            self._dirty.set()
        else:
            self._loop.call_soon_threadsafe(self._dirty.set)

    def page_state(self) -> dict[str, Any]:
        state = self.backend.state(self.clock())
        if self.hand is not None:
            self.hand.sync(self.backend.position())
            state["sim"] = self.hand.state()
        else:
            state["sim"] = None
        self.seq += 1
        state["seq"] = self.seq
        self.last_state = state
        return state

    async def _broadcast_loop(self) -> None:
        assert self._dirty is not None
        while True:
            await self._dirty.wait()
            self._dirty.clear()
            if not self.clients:
                continue
            try:
                text = json.dumps({"type": "state", "state": self.page_state()}, separators=(",", ":"))
            except Exception:  # noqa: BLE001 - a bad state must not stop the broadcaster
                log.exception("cannot build the page state")
                continue
            for client in list(self.clients):
                client.offer(text)
            self.sent += 1

    # -- handlers: reading -------------------------------------------------------------------------
    async def _index(self, request: Request) -> Response:
        return file_response(self.static_dir / "index.html", request)

    async def _static(self, request: Request) -> Response:
        return file_response(static_file(self.static_dir, request.match_info["name"]), request)

    def _paired(self, request: Request) -> bool:
        return not self.pairing.required or self._cookie_check(request) is True

    def _hello(self, request: Request) -> dict[str, Any]:
        return {"pairing_required": self.pairing.required, "paired": self._paired(request),
                "sim": self.hand is not None}

    async def _session_info(self, request: Request) -> Response:
        hello = self._hello(request)
        response = json_response(hello, headers={"Cache-Control": "no-store"})
        return self._forget_cookie(request, response) if not hello["paired"] else response

    async def _words(self, request: Request) -> Response:
        """The page's words in English and French, and the LED legend (firmware.referee.words)."""
        return json_response({"page": words.PAGE, "leds": words.LED_ROLES, "colours": self.backend.led_colours()})

    async def _state(self, request: Request) -> Response:
        return json_response(self.page_state(), headers={"Cache-Control": "no-store"})

    async def _websocket(self, request: Request) -> Response:
        if self._other_site(request):
            # Another site's page (the owner's browser) must not read the live board.
            return _error(403, "the live board is not served to other sites")
        hello = self._hello(request)
        handshake = Response(status=101)
        if not hello["paired"]:
            self._forget_cookie(request, handshake)   # a stale or bad cookie: the browser drops it
        try:
            ws = await request.upgrade(handshake, max_msg_size=4096, heartbeat=30)
        except ConnectionError:   # the client went (or was dropped) before the answer: nobody to tell
            return _error(400, "the connection closed during the handshake")
        client = _Client(ws)
        try:
            await ws.send_str(json.dumps({"type": "hello", **hello}))
            await ws.send_str(json.dumps({"type": "state", "state": self.page_state()}, separators=(",", ":")))
            self.clients.add(client)
            client.task = asyncio.get_running_loop().create_task(client.run(), name="web-client")
            async for text in ws:
                if text == "ping":
                    await ws.send_str('{"type":"pong"}')
        except ConnectionError:
            pass   # the client went, or the heartbeat or the sweep dropped it
        finally:
            self.clients.discard(client)
            if client.task is not None:
                await cancel_and_wait(client.task)
            await ws.close()
        return handshake

    async def _games(self, request: Request) -> Response:
        games = self.library.games() if self.library is not None else []
        return json_response({"games": games}, headers={"Cache-Control": "no-store"})

    def _library(self) -> GameLibrary:
        if self.library is None:
            raise HTTPError(404, "no game library here")
        return self.library

    async def _game(self, request: Request) -> Response:
        try:
            game = self._library().game(request.match_info["id"])
        except UnknownGame:
            return _error(404, "no such game")
        return json_response(game, headers={"Cache-Control": "no-store"})

    async def _game_pgn(self, request: Request) -> Response:
        game_id = request.match_info["id"]
        try:
            text = self._library().pgn(game_id)
        except UnknownGame:
            return _error(404, "no such game")
        return self._pgn_response(text, f"{game_id}.pgn")

    async def _all_pgn(self, request: Request) -> Response:
        text = self.library.all_pgn() if self.library is not None else ""
        return self._pgn_response(text, "echiquier-games.pgn")

    @staticmethod
    def _pgn_response(text: str, filename: str) -> Response:
        return Response(text, content_type="application/x-chess-pgn", charset="utf-8",
                        headers={"Content-Disposition": f'attachment; filename="{filename}"',
                                 "Cache-Control": "no-store"})

    # -- handlers: pairing and commands -------------------------------------------------------------
    async def _pair(self, request: Request) -> Response:
        values = self._body(request, PAIR)
        if not self.pairing.required:
            return json_response({"ok": True, "paired": True, "required": False})
        outcome = self._attempt(request, values["code"])
        if isinstance(outcome, Refusal):
            return self._too_many(outcome)
        if outcome is None:
            log.warning("wrong pairing code from %s", request.remote)
            return _error(403, "wrong pairing code", pairing=True)
        response = json_response({"ok": True, "paired": True, "required": True})
        response.set_cookie(COOKIE, outcome, max_age=COOKIE_MAX_AGE_S, httponly=True, samesite="Strict",
                            path="/")
        return response

    def _new_game(self, values: dict[str, Any], now: float) -> None:
        opponent = values["opponent"]
        if opponent is not None and opponent != "engine":
            given = [name for name in ENGINE_FIELDS if values[name] is not None]
            if given:
                raise BadRequest(f"{given[0]}: only for a game against the engine (opponent \"engine\")")
        self.backend.new_game(now=now, **values)
        if self.hand is not None:
            self.hand.setup(self.backend.position())

    def _draw(self, values: dict[str, Any], now: float) -> None:
        color = values["color"]
        if color is None:
            if values["action"] != "claim":
                raise BadRequest("color: required to offer, accept or decline a draw")
            color = "white" if self.backend.position().turn == 0 else "black"
        self.backend.draw(values["action"], color, now)

    async def _lichess_login(self, values: dict[str, Any], now: float) -> None:
        token = values["token"]
        try:
            result = self.backend.lichess_login(token, now)
            if asyncio.iscoroutine(result):
                await result
        except CommandRefused as exc:
            # The session's words, without the token should they quote it.
            raise CommandRefused(str(exc).replace(token, "<token>")) from None

    def _settings(self, values: dict[str, Any], now: float) -> None:
        changes = {k: v for k, v in values.items() if v is not None}
        if not changes:
            raise BadRequest("no setting given")
        self.backend.settings(changes, now)

    # -- handlers: the simulated hand ------------------------------------------------------------------
    def _turn_colour(self) -> str:
        return "white" if self.backend.position().turn == 0 else "black"

    async def _sim_click(self, values: dict[str, Any], now: float) -> dict[str, Any]:
        assert self.hand is not None
        if await self._sim_capture(values):
            return {"did": "capture"}
        did = self.hand.click(values["square"], self._turn_colour(), values["index"])
        return {"did": did}

    async def _sim_capture(self, values: dict[str, Any]) -> bool:
        """A held piece put down on one of the other colour: the hand takes that piece off, then
        (once the sensors have settled on its going) sets the held piece down: one capture."""
        hand, square, turn = self.hand, values["square"], self._turn_colour()
        if not hand.captures(square, turn, values["index"]):
            return False
        hand.take(square)
        self.changed()
        await asyncio.sleep(SIM_CAPTURE_PAUSE_S)
        if square in hand.pieces or not hand.held:   # another request changed the hand meanwhile
            return True
        hand.place(square, turn, values["index"])
        return True

    def _sim_lift(self, values: dict[str, Any], now: float) -> None:
        assert self.hand is not None
        self.hand.lift(values["square"])

    async def _sim_place(self, values: dict[str, Any], now: float) -> None:
        assert self.hand is not None
        if not await self._sim_capture(values):
            self.hand.place(values["square"], self._turn_colour(), values["index"])

    def _sim_pass(self, values: dict[str, Any], now: float) -> None:
        assert self.hand is not None
        for square in values["squares"]:
            self.hand.pass_over(square)

    def _sim_aside(self, values: dict[str, Any], now: float) -> None:
        assert self.hand is not None
        self.hand.put_aside(values["index"])

    async def _sim_setup(self, values: dict[str, Any], now: float) -> None:
        """The arbiter sets the pieces up. Pieces that change on a square that stays filled (a
        Chess960 first rank) are lifted off first, and set down once the sensors have settled on
        their going: occupancy alone would not show them set anew, and the game waits for that."""
        assert self.hand is not None
        changing = self.hand.changing(self.backend.position())
        if changing:
            self.hand.lift_off(changing)
            self.changed()
            await asyncio.sleep(SIM_CAPTURE_PAUSE_S)
        self.hand.setup(self.backend.position())


__all__ = ["WebCompanion", "is_loopback", "STATIC_DIR"]
