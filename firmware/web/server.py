"""The web companion's server: the page, its websocket, the commands, the game library, pairing.

One :class:`WebCompanion` serves one :class:`~firmware.web.backend.Backend` on the session's
asyncio loop. Every request must be addressed to one of the board's names (its ``Host``: an IP
literal, ``localhost``, its hostname, ``<hostname>.local`` or ``[web] hosts``), else it is a 421,
so that a page whose own name was pointed at the board (DNS rebinding) reads nothing. Reading
is then free: the page, ``GET /api/state``, the websocket ``/ws`` (the page
state, pushed after every change by the :class:`~firmware.web.page_push.Broadcaster`; nothing
polls) and the library (:class:`~firmware.web.library_pages.LibraryPages`). Every other method
changes state and passes the guard first (:class:`~firmware.web.guard.ChangeGuard`, which says
who may change what):

* a request from another site is refused (its ``Origin``, when sent, must be this host;
  ``Origin: null``, a sandboxed or file page, is refused too), and a body must be JSON
  (``Content-Type: application/json``), which a cross-site form cannot send; without pairing
  (loopback only) the ``Host`` must be a loopback name, against DNS rebinding;
* on a server that needs pairing (bound to the LAN), the client must hold the pairing cookie
  (``POST /api/pair`` with the code) or give the code in ``X-Pairing-Code``; wrong codes and
  bad cookies are rate-limited alike.

The websocket checks the ``Origin`` too, so another site's page cannot read the live board.
Connections are bounded per client and in all, and idle or slow ones closed
(:mod:`netserver.limits`). Bodies are parsed with bounded nesting and numbers, then checked
field by field (:mod:`firmware.web.validate`). Errors are answered as JSON ``{"error": "..."}``
with a 4xx status, and written to the journal once per client per minute; anything
unexpected is logged and answered with a 500 that says nothing of the code.

A room beside the page may add its commands (:class:`~firmware.web.rooms.PageRoom`): the
simulator's hand (``/api/sim/...``, built by ``firmware/sim/``); those routes do not exist
otherwise, and the page never imports the room.
"""
from __future__ import annotations

import asyncio
import inspect
import logging
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


from chess_core.chess960 import VARIANTS

import firmware.words as words
from firmware.words import in_english
from firmware.words.message import catalogue_json, with_texts
from firmware.words.spoken import square_words
from firmware.web.answers import NO_STORE, ServerRefusal, http_error_answer, refusal_answer
from firmware.web.backend import (CLOCK_ACTIONS, COACHED, COLOUR_CHOICES, COLOURS, DRAW_ACTIONS, ENGINE_SIDES, OPPONENTS,
                      PROMOTION_PIECES, TAKEBACK_ANSWERS, CLAIMS_WHEN_GONE, CommandRefused, Backend)
from firmware.web.page_push import Broadcaster
from firmware.web.guard import ChangeGuard
from netserver.host_names import HostNames
from netserver.http_server import (HTTPError, HTTPServer, Request, Response, Router, file_response, json_response,
                                   static_file)
from firmware.library.analyses import Analyses
from firmware.library.games import GameLibrary
from firmware.web.library_pages import LibraryPages
from firmware.web.training_pages import TrainingPages
from netserver.limits import ConnectionGuard, LogLimiter, parse_json
from firmware.web.pairing import Pairing, client_key
from firmware.web.rooms import Action, PageRoom, RoomFactory
from firmware.web.validate import (BadRequest, Boolean, Choice, Fen, Number, Secret, Spec, Text, TimeControlText,
                       check_body)

log = logging.getLogger(__name__)

STATIC_DIR = Path(__file__).parent / "static"
MAX_BODY = 16 * 1024
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")

# Request bodies, one spec per command.
NEW_GAME: Spec = {
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
    "coach": Choice(*COACHED, optional=True),   # the sides the coach helps (absent: as configured)
    "hints": Boolean(optional=True),            # whether they may ask for hints (absent: as configured)
}
ENGINE_FIELDS = ("engine_side", "engine_level", "player")
COACH_FIELDS = ("coach", "hints")   # not online: no assistance there
SIDE: Spec = {"color": Choice(*COLOURS)}
SET_UP: Spec = {"fen": Fen()}   # a position the board leads the hand to, the next game's start
CORRECT: Spec = {"move": Text(max_length=5, min_length=4)}   # UCI; the session checks it explains the board
TAKEBACK_ANSWER: Spec = {"action": Choice(*TAKEBACK_ANSWERS)}
LICHESS_LOGIN: Spec = {"token": Secret(max_length=200)}
LICHESS_CLAIM: Spec = {"what": Choice(*CLAIMS_WHEN_GONE)}
DRAW: Spec = {"action": Choice(*DRAW_ACTIONS), "color": Choice(*COLOURS, optional=True)}
PROMOTE: Spec = {"piece": Choice(*PROMOTION_PIECES)}
CLOCK: Spec = {"action": Choice(*CLOCK_ACTIONS)}
SETTINGS: Spec = {
    "show_legal": Boolean(optional=True),
    "touch_move": Boolean(optional=True),
    "alternate_colours": Boolean(optional=True),
    "takebacks": Boolean(optional=True),
    "brightness": Number(low=0, high=1, optional=True),
    "engine_level": Number(low=0, high=20, integer=True, optional=True),
    "engine_elo": Number(low=0, high=4000, integer=True, optional=True),   # 0: not limited by Elo
    "engine_move_time": Number(low=0.05, high=60, optional=True),          # seconds per move, no clock
    "coach_white": Boolean(optional=True),                                 # [coach] white, black, hints
    "coach_black": Boolean(optional=True),
    "coach_hints": Boolean(optional=True),
}
SQUARE_WORDS = {lang: square_words(lang) for lang in words.LANGS}   # the board's squares named for a screen reader
MESSAGE_WORDS = {lang: catalogue_json(lang) for lang in words.LANGS}   # how the page says the state's messages
PAIR: Spec = {"code": Text(max_length=32, min_length=1)}
VOICE: Spec = {"say": Choice("repeat", "describe", "clocks", optional=True), "lang": Choice(*words.LANGS),
               "mute": Boolean(optional=True)}
EMPTY: Spec = {}

Handler = Callable[[Request], Any]


class WebCompanion:
    """The page and its API for one backend; ``start(host, port)`` serves it, ``stop()`` ends it."""

    def __init__(self, backend: Backend, *, pairing: Pairing, library: GameLibrary | None = None,
                 room: RoomFactory | None = None, clock: Callable[[], float] = time.monotonic,
                 static_dir: Path = STATIC_DIR, names: HostNames | None = None, language: str = "") -> None:
        self.backend = backend
        self.language = language   # [web] language: the page's where nobody chose one ("": the browser's)
        self.pairing = pairing
        self.library = library
        self.clock = clock
        self.static_dir = Path(static_dir)
        self.guard = ChangeGuard(pairing, clock, names)
        self.broadcaster = Broadcaster(self.page_state)
        self.clients = self.broadcaster.clients   # the open pages (the same set, for the tests)
        self.sim: PageRoom | None = room(backend, self.changed) if room is not None else None
        self.seq = 0
        self.last_state: dict[str, Any] | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._http: HTTPServer | None = None
        self.port = 0
        # Connections live in real time, whatever clock the game runs on (a test's, a replay's).
        self.connections = ConnectionGuard(time.monotonic)
        self.log_limiter = LogLimiter()
        self._sweeper: asyncio.Task[None] | None = None
        self.analyses = Analyses(library, library.games_dir.parent / "analysis", idle=backend.idle,
                                 engine_path=backend.engine_path(), engine=backend.helper_engine()) \
            if library is not None else None
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
        r.add_post("/api/position/setup", self._command(SET_UP, lambda v, now: self.backend.set_up_position(v["fen"], now)))
        r.add_post("/api/game/resign", self._command(SIDE, lambda v, now: self.backend.resign(v["color"], now)))
        r.add_post("/api/game/draw", self._command(DRAW, self._draw))
        r.add_post("/api/game/promotion", self._command(PROMOTE, lambda v, now: self.backend.promote(v["piece"], now)))
        r.add_post("/api/game/clock", self._command(CLOCK, lambda v, now: self.backend.clock(v["action"], now)))
        r.add_post("/api/game/takeback", self._command(EMPTY, lambda v, now: self.backend.takeback(now)))
        r.add_post("/api/coach/hint", self._command(EMPTY, lambda v, now: self.backend.hint(now)))
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
        r.add_post("/api/voice", self._command(VOICE, lambda v, now: self.backend.voice(v.get("say"), v["lang"], now,
                                                                                        v.get("mute"))))
        LibraryPages(self.library, analyses=self.analyses, backend=self.backend, clock=self.clock).add_to(r)
        TrainingPages(self.backend, self.library, self.analyses,
                      self.library.games_dir.parent if self.library is not None else None).add_to(r, self._command)
        if self.sim is not None:
            for path, (spec, action) in self.sim.commands().items():
                r.add_post(path, self._command(spec, action))
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
        response = await self._errors(request, self._guarded)
        self._headers(request, response)
        return response

    def _may_log(self, request: Request, kind: str) -> bool:
        return self.log_limiter.allow(client_key(request.remote), kind, self.clock())

    async def _errors(self, request: Request, handler: Handler) -> Response:
        try:
            response: Response = await handler(request)
            return response
        except HTTPError as exc:
            return http_error_answer(exc)
        except BadRequest as exc:
            if self._may_log(request, "bad request"):
                log.warning("bad request from %s on %s (once a minute per client): %s", request.remote,
                            request.path, exc)
            return refusal_answer(exc, 400)
        except CommandRefused as exc:   # (the shared engine's full queue: a 429)
            return refusal_answer(exc, 429 if exc.key == "engine_busy" else 409)
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - the client gets no stack trace, the journal does
            ref = secrets.token_hex(4)
            if self._may_log(request, "internal error"):
                log.exception("internal error %s on %s %s", ref, request.method, request.path)
            return refusal_answer(ServerRefusal("internal_error", ref=ref), 500)

    async def _guarded(self, request: Request) -> Response:
        """The request's handler, once the guard let it through: a misdirected request (another
        name: DNS rebinding) is a 421 first, then an unknown route a 404, then the guard's checks."""
        refusal = self.guard.misdirected(request)
        if refusal is not None:
            return refusal
        handler = self.router.resolve(request)
        refusal = self.guard.check(request)
        if refusal is not None:
            return refusal
        return await handler(request)

    @staticmethod
    def _body(request: Request, spec: Spec) -> dict[str, Any]:
        if not request.body:
            raw: Any = {}
        else:
            try:
                text = request.body.decode("utf-8")
            except UnicodeDecodeError:
                raise BadRequest("not_utf8") from None
            try:
                raw = parse_json(text) if text.strip() else {}
            except ValueError as exc:   # (the parser's English: the French says what it means)
                raise BadRequest("not_json", detail=in_english(str(exc))) from None
        return check_body(raw, spec)

    def _command(self, spec: Spec, action: Action) -> Handler:
        async def handler(request: Request) -> Response:
            values = self._body(request, spec)
            result = await _answer(action(values, self.clock()))
            self.changed()
            body = {"ok": True}
            if isinstance(result, dict):
                body.update(result)
            return json_response(body, headers=dict(NO_STORE))
        return handler

    # -- lifecycle ---------------------------------------------------------------------------------
    def attach(self) -> None:
        """Subscribe to the backend and start broadcasting (on the running loop); idempotent."""
        if self.broadcaster.start():
            self._unsubscribe = self.backend.subscribe(self.changed)
        if self.analyses is not None:
            self.analyses.start()     # finished games analysed while the board is idle, if asked to

    async def start(self, host: str, port: int) -> int:
        """Serve on ``host:port`` (port 0: any free port); returns the port. Idempotent."""
        self.attach()
        if self._http is None:
            server = HTTPServer(self.handle, self.connections, max_body=MAX_BODY, on_error=http_error_answer)
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
        await self.broadcaster.stop()
        if self.analyses is not None:
            await self.analyses.stop()
        if self._sweeper is not None:
            self._sweeper.cancel()
            self._sweeper = None
        if self._http is not None:
            await self._http.stop()
            self._http = None

    # -- state -----------------------------------------------------------------------------------------
    def changed(self) -> None:
        """Something changed: send the page state to every client soon (callable from any thread)."""
        self.broadcaster.changed()

    def page_state(self) -> dict[str, Any]:
        state = self.backend.state(self.clock())
        state["sim"] = self.sim.state() if self.sim is not None else None
        state["said"] = self.backend.said()
        self.seq += 1
        state["seq"] = self.seq
        self.last_state = state
        return state

    # -- handlers: reading -------------------------------------------------------------------------
    async def _index(self, request: Request) -> Response:
        return file_response(self.static_dir / "index.html", request)

    async def _static(self, request: Request) -> Response:
        return file_response(static_file(self.static_dir, request.match_info["name"]), request)

    def _hello(self, request: Request) -> dict[str, Any]:
        return {"pairing_required": self.pairing.required, "paired": self.guard.paired(request),
                "sim": self.sim is not None}

    async def _session_info(self, request: Request) -> Response:
        hello = self._hello(request)
        response = json_response(hello, headers=dict(NO_STORE))
        return self.guard.forget_cookie(request, response) if not hello["paired"] else response

    async def _words(self, request: Request) -> Response:
        """The page's words in every language, the LED legend, what the page needs to say the state's
        messages (firmware.words: each language's templates, names and SAN letters), and the language
        the board's configuration gives a device where nobody chose one ("": the browser's)."""
        return json_response({"page": words.PAGE, "leds": words.LED_ROLES, "colours": self.backend.led_colours(),
                              "squares": SQUARE_WORDS, "messages": MESSAGE_WORDS, "language": self.language})

    async def _state(self, request: Request) -> Response:
        """The state; ``?lang=xx``: each message in it also carries its text in that language."""
        lang = request.query.get("lang")
        if lang is not None and lang not in words.LANGS:
            codes = ", ".join(words.LANGS)
            return refusal_answer(ServerRefusal("bad_field", field="lang", problem=in_english(f"one of {codes}", codes)), 400)
        state = self.page_state()
        return json_response(state if lang is None else with_texts(state, lang), headers=dict(NO_STORE))

    async def _websocket(self, request: Request) -> Response:
        if self.guard.other_site(request):
            # Another site's page (the owner's browser) must not read the live board.
            return refusal_answer(ServerRefusal("live_board_other_site"), 403)
        hello = self._hello(request)
        handshake = Response(status=101)
        if not hello["paired"]:
            self.guard.forget_cookie(request, handshake)   # a stale or bad cookie: the browser drops it
        try:
            ws = await request.upgrade(handshake, max_msg_size=4096, heartbeat=30)
        except ConnectionError:   # the client went (or was dropped) before the answer: nobody to tell
            return refusal_answer(ServerRefusal("handshake_closed"), 400)
        await self.broadcaster.serve(ws, hello)
        return handshake

    # -- handlers: pairing and commands -------------------------------------------------------------
    async def _pair(self, request: Request) -> Response:
        values = self._body(request, PAIR)
        return self.guard.pair(request, values["code"])

    async def _new_game(self, values: dict[str, Any], now: float) -> None:
        opponent = values["opponent"]
        if opponent is not None and opponent != "engine":
            given = [name for name in ENGINE_FIELDS if values[name] is not None]
            if given:
                raise BadRequest("engine_only", field=given[0])
        if opponent == "lichess":
            given = [name for name in COACH_FIELDS if values[name] is not None]
            if given:
                raise BadRequest("coach_not_online", field=given[0])
        await _answer(self.backend.new_game(now=now, **values))
        if self.sim is not None:
            self.sim.set_up()

    def _draw(self, values: dict[str, Any], now: float) -> Any:
        color = values["color"]
        if color is None:
            if values["action"] != "claim":
                raise BadRequest("draw_colour_needed")
            color = "white" if self.backend.position().turn == 0 else "black"
        return self.backend.draw(values["action"], color, now)

    async def _lichess_login(self, values: dict[str, Any], now: float) -> None:
        token = values["token"]
        try:
            await _answer(self.backend.lichess_login(token, now))
        except CommandRefused as exc:
            # The session's words, without the token should they quote it.
            raise exc.without(token) from None

    def _settings(self, values: dict[str, Any], now: float) -> Any:
        changes = {k: v for k, v in values.items() if v is not None}
        if not changes:
            raise BadRequest("no_setting_given")
        return self.backend.settings(changes, now)


async def _answer(result: Any) -> Any:
    """A backend command's answer: awaited when the board's loop gives it later."""
    return await result if inspect.isawaitable(result) else result


__all__ = ["WebCompanion", "STATIC_DIR"]
