"""A faithful fake of Lichess's Board API on 127.0.0.1 (aiohttp): ndjson streams, real field names, faults."""
from __future__ import annotations

import asyncio
import json
import random
import re
import time
from dataclasses import dataclass, field
from typing import Any, Optional

from aiohttp import web

from chess_core import BLACK, KING, ROOK, STARTING_FEN, WHITE, Game, Move, Position
from chess_core.squares import SQUARE_NAMES
from firmware.tasks import cancel_and_wait

KEEPALIVE = 7.0          # s between keep-alive lines: "An empty line is sent every 7 seconds" (the spec)
FIRST_MOVE_MS = 30_000   # the time each side has to make its first move before the game is aborted
# GameStatusName -> GameStatusId, as the specification lists them
STATUS_IDS = {"created": 10, "started": 20, "aborted": 25, "mate": 30, "resign": 31, "stalemate": 32,
              "timeout": 33, "draw": 34, "outoftime": 35, "cheat": 36, "noStart": 37, "unknownFinish": 38,
              "insufficientMaterialClaim": 39, "variantEnd": 60}
CORRESPONDENCE_MS = 2_147_483_647   # what Lichess puts in wtime/btime for a game without a clock
STANDARD = {"key": "standard", "name": "Standard", "short": "Std"}
VARIANTS = {"standard": STANDARD, "chess960": {"key": "chess960", "name": "Chess960", "short": "960"},
            "crazyhouse": {"key": "crazyhouse", "name": "Crazyhouse", "short": "ZH"},
            "atomic": {"key": "atomic", "name": "Atomic", "short": "Atom"},
            "fromPosition": {"key": "fromPosition", "name": "From Position", "short": "FEN"}}
# The reasons a challenge may be declined with (the spec's enum, POST /api/challenge/{id}/decline)
DECLINE_REASONS = ("generic", "later", "tooFast", "tooSlow", "timeControl", "rated", "casual", "standard",
                   "variant", "noBot", "onlyBot")
NOT_YOUR_TURN = "Not your turn, or game already over"
_CUT, _ABORT = object(), object()
USER = web.RequestKey("user", str)


@dataclass
class Fault:
    """Answer ``status`` to the next ``count`` requests matching ``method`` and ``pattern``.

    ``after``: carry the request out first, then answer ``status`` (the answer is lost).
    ``delay``: wait this long before answering (a hung server); with ``status`` None, only that.
    """

    method: str
    pattern: str
    status: Optional[int] = 503
    count: int = 1
    after: bool = False
    delay: float = 0.0
    body: Optional[dict] = None


@dataclass
class FakeGame:
    id: str
    white: str
    black: str
    initial_fen: str = "startpos"
    limit_ms: Optional[int] = 600_000
    increment_ms: int = 5_000
    days_per_turn: Optional[int] = None   # a correspondence game (limit_ms None)
    king_takes_rook: bool = False         # castling in the moves string as e1h1 (the spec's way)
    variant: str = "standard"             # "chess960": castling is king-takes-rook both ways
    rated: bool = False
    source: str = "friend"
    moves: list[str] = field(default_factory=list)
    status: str = "started"
    winner: Optional[int] = None
    wtime: int = 0
    btime: int = 0
    draw: set = field(default_factory=set)
    takeback: set = field(default_factory=set)
    claimable: bool = False
    moved_at: float = 0.0
    created_at: int = 1_700_000_000_000
    script: list[str] = field(default_factory=list)    # the fake opponent's moves, in order
    streams: list = field(default_factory=list)
    _game: Optional[Game] = field(default=None, repr=False)

    def start_fen(self) -> str:
        return STARTING_FEN if self.initial_fen == "startpos" else self.initial_fen

    def game(self) -> Game:
        """The game so far (kept up to date move by move; rebuilt after a takeback)."""
        game = self._game
        if game is None or [m.uci() for m in game.moves[:len(self.moves)]] != self.moves[:len(game.moves)] \
                or len(game.moves) > len(self.moves):
            game = self._game = Game(self.start_fen(), rules="casual", chess960=self.variant == "chess960")
        for uci in self.moves[len(game.moves):]:
            game.push(Move.from_uci(uci))
        return game

    def color_of(self, user: str) -> Optional[int]:
        return WHITE if user == self.white else BLACK if user == self.black else None

    def player(self, color: int) -> str:
        return self.white if color == WHITE else self.black

    def speed(self) -> str:
        if self.limit_ms is None:
            return "correspondence"
        estimate = self.limit_ms / 1000 + 40 * self.increment_ms / 1000
        for bound, name in ((29, "ultraBullet"), (179, "bullet"), (479, "blitz"), (1499, "rapid")):
            if estimate <= bound:
                return name
        return "classical"

    def moves_text(self) -> str:
        """The moves as Lichess sends them: castling king-two-squares, or king-takes-rook."""
        if not self.king_takes_rook:
            return " ".join(self.moves)
        pos, out = Position(self.start_fen()), []
        for uci in self.moves:
            move = Move.from_uci(uci)
            if pos.is_castling(move):
                rook = (move.from_square & ~7) | (7 if move.to_square > move.from_square else 0)
                uci = move.uci()[:2] + SQUARE_NAMES[rook]
            out.append(uci)
            pos.push(move)
        return " ".join(out)

    def state(self) -> dict:
        out: dict[str, Any] = {"type": "gameState", "moves": self.moves_text(), "wtime": self.wtime,
                               "btime": self.btime, "winc": self.increment_ms, "binc": self.increment_ms,
                               "status": self.status}
        if self.winner is not None:
            out["winner"] = "white" if self.winner == WHITE else "black"
        if self.status == "started" and len(self.moves) < 2:
            idle = int((time.monotonic() - self.moved_at) * 1000)
            out["expiration"] = {"idleMillis": idle, "millisToMove": FIRST_MOVE_MS}
        for color, key in ((WHITE, "wdraw"), (BLACK, "bdraw")):
            if color in self.draw:
                out[key] = True
        for color, key in ((WHITE, "wtakeback"), (BLACK, "btakeback")):
            if color in self.takeback:
                out[key] = True
        return out

    def full(self) -> dict:
        def who(user: str) -> dict:
            return {"id": user.lower(), "name": user, "title": None, "rating": 1500}
        out = {"id": self.id, "variant": VARIANTS[self.variant], "speed": self.speed(), "perf": {"name": self.speed().title()},
               "rated": self.rated, "createdAt": self.created_at, "white": who(self.white),
               "black": who(self.black), "initialFen": self.initial_fen, "type": "gameFull",
               "state": self.state()}
        if self.limit_ms is not None:
            out["clock"] = {"initial": self.limit_ms, "increment": self.increment_ms}
        if self.days_per_turn is not None:
            out["daysPerTurn"] = self.days_per_turn
        return out

    def event_game(self, user: str) -> dict:
        color = self.color_of(user)
        other = self.player(color ^ 1) if color is not None else self.black
        game = self.game()
        turn = game.turn
        return {"fullId": self.id + "abcd", "gameId": self.id, "fen": game.fen(),
                "color": "white" if color == WHITE else "black", "lastMove": self.moves[-1] if self.moves else "",
                "source": self.source, "status": {"id": STATUS_IDS[self.status], "name": self.status},
                "variant": VARIANTS[self.variant], "speed": self.speed(), "perf": self.speed(), "rated": self.rated,
                "hasMoved": any(True for i, _ in enumerate(self.moves) if (i % 2) == (0 if color == turn else 1)),
                "opponent": {"id": other.lower(), "username": other, "rating": 1500}, "isMyTurn": turn == color,
                "secondsLeft": (self.wtime if color == WHITE else self.btime) // 1000,
                "compat": {"bot": False, "board": self.speed() not in ("bullet", "ultraBullet")}, "id": self.id,
                **({"winner": "white" if self.winner == WHITE else "black"} if self.winner is not None else {})}


class FakeLichess:
    """The fake server. ``users`` maps tokens to usernames; the fake plays ``opponent``'s moves.

    The opponent plays the game's ``script`` while it lasts, then a random legal move (``seed``).
    Faults: ``add_fault``, ``cut_game_streams``, ``cut_event_streams``, ``silence_game_streams``;
    the opponent's doings: ``opponent_move``, ``opponent_offers_draw``, ``opponent_proposes_takeback``,
    ``chat``, ``opponent_gone``, ``opponent_resigns``; games started on the website: ``start_game``.
    """

    def __init__(self, users: Optional[dict[str, str]] = None, *, opponent: str = "Mary", keepalive: float = KEEPALIVE,
                 seed: int = 0, reply_delay: float = 0.0, accept_draws: bool = False,
                 accept_takebacks: bool = True) -> None:
        self.users = users or {"lip_board_token": "Bobby"}
        self.opponent = opponent
        self.keepalive = keepalive
        self.rng = random.Random(seed)
        self.reply_delay = reply_delay
        self.accept_draws = accept_draws
        self.accept_takebacks = accept_takebacks
        self.games: dict[str, FakeGame] = {}
        self.challenges: dict[str, dict] = {}
        self.faults: list[Fault] = []
        self.requests: list[tuple[str, str, int]] = []          # method, path, status
        self.move_posts: list[tuple[str, str, int, int]] = []    # game, uci, ply it was sent at, status
        self.event_streams: dict[str, list] = {}                 # user -> open event stream queues
        self.event_connections = 0
        self.game_connections = 0
        self.seek_pairing: Optional[dict] = {"delay": 0.0}       # None: seeks are never answered
        self.max_inflight = 0                                    # most requests under way at once
        self._inflight = 0
        self.base_url = ""
        self._ids = 0
        self._tasks: set[asyncio.Task] = set()
        self._handlers: set[asyncio.Task] = set()   # the tasks answering requests (aiohttp's)
        self._runner: Optional[web.AppRunner] = None

    # -- lifecycle -----------------------------------------------------------------------------

    async def start(self) -> str:
        app = web.Application(middlewares=[self._middleware])
        app.router.add_get("/api/account", self._account)
        app.router.add_get("/api/stream/event", self._event_stream)
        app.router.add_get("/api/board/game/stream/{id}", self._game_stream)
        app.router.add_post("/api/board/game/{id}/move/{uci}", self._move)
        app.router.add_post("/api/board/game/{id}/{action:resign|abort|claim-victory|claim-draw}", self._decision)
        app.router.add_post("/api/board/game/{id}/draw/{answer}", self._draw)
        app.router.add_post("/api/board/game/{id}/takeback/{answer}", self._takeback)
        app.router.add_post("/api/board/game/{id}/chat", self._chat)
        app.router.add_post("/api/board/seek", self._seek)
        app.router.add_post("/api/challenge/{id}/{action:accept|decline|cancel}", self._challenge_answer)
        app.router.add_post("/api/challenge/{username}", self._challenge)
        # A request still under way at stop() (a fault holding it) is cancelled after 0.1 s, not 60 s.
        self._runner = web.AppRunner(app, handle_signals=False, shutdown_timeout=0.1)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]
        self.base_url = f"http://127.0.0.1:{port}"
        return self.base_url

    async def stop(self) -> None:
        for queues in list(self.event_streams.values()):
            for q in queues:
                q.put_nowait(_CUT)
        for game in self.games.values():
            for q in game.streams:
                q.put_nowait(_CUT)
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._runner is not None:
            await self._runner.cleanup()
        for task in list(self._handlers):   # aiohttp cancels a request still held (a fault's delay)
            await cancel_and_wait(task)      # without waiting for it: the fake does

    # -- faults and the opponent's doings ------------------------------------------------------

    def add_fault(self, method: str, pattern: str, status: Optional[int] = 503, count: int = 1, *, after: bool = False,
                  delay: float = 0.0, body: Optional[dict] = None) -> Fault:
        fault = Fault(method, pattern, status, count, after, delay, body)
        self.faults.append(fault)
        return fault

    def cut_game_streams(self, game_id: str, abort: bool = False) -> None:
        for q in self.games[game_id].streams:
            q.put_nowait(_ABORT if abort else _CUT)

    def cut_event_streams(self, user: Optional[str] = None, abort: bool = False) -> None:
        for name, queues in self.event_streams.items():
            if user is None or name == user:
                for q in queues:
                    q.put_nowait(_ABORT if abort else _CUT)

    def silence_game_streams(self, game_id: str) -> None:
        """The open streams of the game say nothing more, not even keep-alives (a dead link)."""
        for q in self.games[game_id].streams:
            q.silenced = True

    def send_keep_alive(self, game_id: str) -> None:
        """The open streams of the game send a keep-alive line now (with a long ``keepalive``, the
        only ones they send)."""
        for q in self.games[game_id].streams:
            q.put_nowait(None)

    def start_game(self, user: str, *, color: int = WHITE, moves: tuple[str, ...] = (), source: str = "friend",
                   limit_ms: Optional[int] = 600_000, increment_ms: int = 5_000, script: tuple[str, ...] = (),
                   initial_fen: str = "startpos", days: Optional[int] = None,
                   king_takes_rook: bool = False, variant: str = "standard") -> FakeGame:
        """A game started elsewhere (website, app, lobby), maybe already under way. ``days``: a
        correspondence game (no clock, ``daysPerTurn``)."""
        white, black = (user, self.opponent) if color == WHITE else (self.opponent, user)
        if days is not None:
            limit_ms, increment_ms = None, 0
        game = FakeGame(self._new_id(), white, black, initial_fen=initial_fen, limit_ms=limit_ms,
                        increment_ms=increment_ms, source=source, moves=list(moves), script=list(script),
                        days_per_turn=days, king_takes_rook=king_takes_rook, variant=variant)
        game.wtime = game.btime = CORRESPONDENCE_MS if limit_ms is None else limit_ms
        game.moved_at = time.monotonic()
        self.games[game.id] = game
        for player in (white, black):
            self._emit_event(player, {"type": "gameStart", "game": game.event_game(player)})
        self._opponent_turn(game)
        return game

    def opponent_move(self, game_id: str, uci: Optional[str] = None) -> str:
        game = self.games[game_id]
        played = game.game()
        move = Move.from_uci(uci) if uci else self._choose(game, played)
        self._play(game, played.position.turn, move.uci())
        return move.uci()

    def opponent_offers_draw(self, game_id: str) -> None:
        game = self.games[game_id]
        game.draw.add(game.color_of(self.opponent))
        self._broadcast(game, game.state())

    def opponent_proposes_takeback(self, game_id: str) -> None:
        game = self.games[game_id]
        game.takeback.add(game.color_of(self.opponent))
        self._broadcast(game, game.state())

    def chat(self, game_id: str, text: str, username: Optional[str] = None, room: str = "player") -> None:
        self._broadcast(self.games[game_id], {"type": "chatLine", "room": room,
                                              "username": username or self.opponent, "text": text})

    def opponent_gone(self, game_id: str, gone: bool = True, claim_in: Optional[int] = 0) -> None:
        game = self.games[game_id]
        game.claimable = gone and claim_in == 0
        event: dict[str, Any] = {"type": "opponentGone", "gone": gone}
        if gone and claim_in is not None:
            event["claimWinInSeconds"] = claim_in
        self._broadcast(game, event)

    def opponent_resigns(self, game_id: str) -> None:
        game = self.games[game_id]
        self._finish(game, "resign", game.color_of(self.opponent) ^ 1)

    def end_game(self, game_id: str, status: str, winner: Optional[int] = None) -> None:
        """The game ends over there as Lichess ends games: ``outoftime`` (a flag; no winner when
        the other side cannot mate), ``noStart`` (a first move not made in time),
        ``insufficientMaterialClaim``, ``variantEnd``, ``cheat``..."""
        if status not in STATUS_IDS or status in ("created", "started"):
            raise ValueError(f"not an ending status: {status!r}")
        game = self.games[game_id]
        if status == "outoftime":
            loser = game.game().turn if winner is None else winner ^ 1
            if loser == WHITE:
                game.wtime = 0
            else:
                game.btime = 0
        self._finish(game, status, winner)

    def send_challenge(self, dest: str, limit_s: int = 600, increment: int = 5, *, variant: str = "standard",
                       challenger: Optional[str] = None) -> dict:
        """The opponent (or ``challenger``) challenges ``dest`` (an incoming challenge for the board),
        in ``variant`` (a key of VARIANTS)."""
        challenger = challenger or self.opponent
        data = self._challenge_json(self._new_id(), challenger, dest, limit_s, increment, "random", variant)
        self.challenges[data["id"]] = data
        for user in (challenger, dest):
            self._emit_event(user, {"type": "challenge", "challenge": data})
        return data

    # -- HTTP: plumbing ------------------------------------------------------------------------

    @web.middleware
    async def _middleware(self, request: web.Request, handler: Any) -> web.StreamResponse:
        user = self.users.get(request.headers.get("Authorization", "").removeprefix("Bearer "))
        if user is None:
            self.requests.append((request.method, request.path, 401))
            return web.json_response({"error": "No such token"}, status=401)
        request[USER] = user
        handler_task = asyncio.current_task()
        if handler_task is not None:
            self._handlers.add(handler_task)
            handler_task.add_done_callback(self._handlers.discard)
        counted = "/stream/" not in request.path and request.path != "/api/board/seek"
        if counted:     # Lichess asks for one request at a time: count how many overlap
            self._inflight += 1
            self.max_inflight = max(self.max_inflight, self._inflight)
        try:
            return await self._answer(request, handler)
        finally:
            if counted:
                self._inflight -= 1

    async def _answer(self, request: web.Request, handler: Any) -> web.StreamResponse:
        fault = next((f for f in self.faults if f.count > 0 and f.method == request.method
                      and re.search(f.pattern, request.path)), None)
        if fault is not None:
            fault.count -= 1
            if fault.delay:
                await asyncio.sleep(fault.delay)
            if fault.status is None:      # only slow: answered as usual after the delay
                response = await handler(request)
                self.requests.append((request.method, request.path, response.status))
                return response
            if fault.after:
                await handler(request)
            self.requests.append((request.method, request.path, fault.status))
            body = fault.body or ({"error": "Too many requests. Try again later."} if fault.status == 429
                                  else {"error": "Server error"})
            return web.json_response(body, status=fault.status)
        response = await handler(request)
        self.requests.append((request.method, request.path, response.status))
        return response

    async def _ndjson(self, request: web.Request, queue: asyncio.Queue,
                      first: list[dict], close_after_first: bool = False) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
        await response.prepare(request)
        try:
            for line in first:
                await response.write(json.dumps(line).encode() + b"\n")
            if close_after_first:
                return response
            while True:
                try:   # (not asyncio.wait_for: on 3.11 it drops a cancellation that meets an item)
                    async with asyncio.timeout(self.keepalive):
                        item = await queue.get()
                except asyncio.TimeoutError:
                    item = None
                if getattr(queue, "silenced", False):
                    if item is _CUT or item is _ABORT:
                        break
                    continue
                if item is _CUT:
                    break
                if item is _ABORT:
                    request.transport.close()   # no final chunk: a broken connection
                    return response
                if item is None:
                    await response.write(b"\n")
                    continue
                closing = item.pop("_close", False)
                await response.write(json.dumps(item).encode() + b"\n")
                if closing:
                    break
        except (ConnectionResetError, asyncio.CancelledError):
            return response
        return response

    def _emit_event(self, user: str, event: dict) -> None:
        for q in self.event_streams.get(user, []):
            q.put_nowait(event)

    def _broadcast(self, game: FakeGame, event: dict) -> None:
        for q in game.streams:
            q.put_nowait(dict(event))

    def _new_id(self) -> str:
        self._ids += 1
        return f"G{self._ids:07d}"

    def _background(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- HTTP: endpoints -----------------------------------------------------------------------

    async def _account(self, request: web.Request) -> web.Response:
        user = request[USER]
        return web.json_response({"id": user.lower(), "username": user})

    async def _event_stream(self, request: web.Request) -> web.StreamResponse:
        user = request[USER]
        for old in self.event_streams.get(user, []):
            old.put_nowait(_CUT)     # one event stream per token: a new one closes the old
        queue: asyncio.Queue = asyncio.Queue()
        self.event_streams[user] = [queue]
        self.event_connections += 1
        first = [{"type": "gameStart", "game": g.event_game(user)} for g in self.games.values()
                 if g.status == "started" and g.color_of(user) is not None]
        first += [{"type": "challenge", "challenge": c} for c in self.challenges.values()
                  if c["status"] == "created" and user in (c["challenger"]["name"], c["destUser"]["name"])]
        try:
            return await self._ndjson(request, queue, first)
        finally:
            if queue in self.event_streams.get(user, []):
                self.event_streams[user].remove(queue)

    async def _game_stream(self, request: web.Request) -> web.StreamResponse:
        game = self.games.get(request.match_info["id"])
        if game is None or game.color_of(request[USER]) is None:
            return web.json_response({"error": "Not found"}, status=404)
        self.game_connections += 1
        self._tick(game)
        queue: asyncio.Queue = asyncio.Queue()
        game.streams.append(queue)
        try:
            return await self._ndjson(request, queue, [game.full()], close_after_first=game.status != "started")
        finally:
            if queue in game.streams:
                game.streams.remove(queue)

    async def _move(self, request: web.Request) -> web.Response:
        game = self.games.get(request.match_info["id"])
        uci = request.match_info["uci"]
        if game is None:
            return web.json_response({"error": "Not found"}, status=404)
        color = game.color_of(request[USER])
        error = self._check_move(game, color, uci)
        self.move_posts.append((game.id, uci, len(game.moves), 400 if error else 200))
        if error:
            return web.json_response({"error": error}, status=400)
        self._play(game, color, self._castling_as_king_two(game.game().position, Move.from_uci(uci)).uci())
        return web.json_response({"ok": True})

    async def _decision(self, request: web.Request) -> web.Response:
        game = self.games.get(request.match_info["id"])
        if game is None:
            return web.json_response({"error": "Not found"}, status=404)
        color = game.color_of(request[USER])
        action = request.match_info["action"]
        if game.status != "started":
            return web.json_response({"error": "This game is already over"}, status=400)
        if action == "resign":
            self._finish(game, "resign", color ^ 1)
        elif action == "abort":
            if len(game.moves) >= 2:
                return web.json_response({"error": "This game can no longer be aborted"}, status=400)
            self._finish(game, "aborted", None)
        else:
            if not game.claimable:
                what = "victory" if action == "claim-victory" else "a draw"
                return web.json_response({"error": f"This is not the time to claim {what}"}, status=400)
            if action == "claim-victory":
                self._finish(game, "timeout", color)
            else:
                self._finish(game, "draw", None)
        return web.json_response({"ok": True})

    async def _draw(self, request: web.Request) -> web.Response:
        game = self.games[request.match_info["id"]]
        color = game.color_of(request[USER])
        yes = request.match_info["answer"] in ("yes", "true")
        if game.status != "started":
            return web.json_response({"error": NOT_YOUR_TURN}, status=400)
        if not yes:
            game.draw.discard(color ^ 1)
        elif color ^ 1 in game.draw or self.accept_draws:
            self._finish(game, "draw", None)
            return web.json_response({"ok": True})
        else:
            game.draw.add(color)
            self._broadcast(game, game.state())
            game.draw.discard(color)   # the fake opponent declines at once
        self._broadcast(game, game.state())
        return web.json_response({"ok": True})

    async def _takeback(self, request: web.Request) -> web.Response:
        game = self.games[request.match_info["id"]]
        color = game.color_of(request[USER])
        yes = request.match_info["answer"] in ("yes", "true")
        if game.status != "started":
            return web.json_response({"error": NOT_YOUR_TURN}, status=400)
        if not yes:
            game.takeback.discard(color ^ 1)
        elif color ^ 1 in game.takeback:
            self._take_back(game, color ^ 1)
        elif self.accept_takebacks and self._has_moved(game, color):
            self._take_back(game, color)
        else:
            game.takeback.add(color)
        self._broadcast(game, game.state())
        return web.json_response({"ok": True})

    async def _chat(self, request: web.Request) -> web.Response:
        game = self.games[request.match_info["id"]]
        form = await request.post()
        self._broadcast(game, {"type": "chatLine", "room": form.get("room", "player"),
                               "username": request[USER], "text": form.get("text", "")})
        return web.json_response({"ok": True})

    async def _seek(self, request: web.Request) -> web.StreamResponse:
        form = await request.post()
        user = request[USER]
        if "days" in form:
            return web.json_response({"id": self._new_id()})
        minutes, increment = float(form.get("time", 0)), int(form.get("increment", 0))
        probe = FakeGame("", "", "", limit_ms=int(minutes * 60_000), increment_ms=increment * 1000)
        if probe.speed() not in ("rapid", "classical"):
            return web.json_response({"error": {"time": [f"Invalid speed: {probe.speed()} is not allowed "
                                                         f"with the Board API"]}}, status=400)
        queue: asyncio.Queue = asyncio.Queue()
        if self.seek_pairing is not None:
            async def pair() -> None:
                await asyncio.sleep(self.seek_pairing["delay"])
                color = {"white": WHITE, "black": BLACK}.get(form.get("color", ""), self.rng.choice((WHITE, BLACK)))
                self.start_game(user, color=color, source="lobby", limit_ms=probe.limit_ms,
                                increment_ms=probe.increment_ms)
                queue.put_nowait(_CUT)
            self._background(pair())
        return await self._ndjson(request, queue, [])

    async def _challenge(self, request: web.Request) -> web.Response:
        form = await request.post()
        dest = request.match_info["username"]
        limit = int(form["clock.limit"]) if "clock.limit" in form else None
        data = self._challenge_json(self._new_id(), request[USER], dest, limit,
                                    int(form.get("clock.increment", 0)), form.get("color", "random"))
        self.challenges[data["id"]] = data
        self._emit_event(request[USER], {"type": "challenge", "challenge": data})
        if dest.lower() == self.opponent.lower():     # the fake opponent accepts at once
            self._background(self._accept(data["id"], delay=0.0))
        return web.json_response(data)

    async def _challenge_answer(self, request: web.Request) -> web.Response:
        data = self.challenges.get(request.match_info["id"])
        if data is None or data["status"] != "created":
            return web.json_response({"error": "Not found"}, status=404)
        action = request.match_info["action"]
        if action == "accept":
            await self._accept(data["id"])
        else:
            reason = "generic"
            if action == "decline":
                reason = str((await request.post()).get("reason", "generic"))
                if reason not in DECLINE_REASONS:
                    return web.json_response({"error": f"reason: {reason!r} is not one of "
                                                       f"{', '.join(DECLINE_REASONS)}"}, status=400)
            data["status"] = "declined" if action == "decline" else "canceled"
            if action == "decline":
                data["declineReason"] = "I'm not accepting challenges at the moment."
                data["declineReasonKey"] = reason
            kind = "challengeDeclined" if action == "decline" else "challengeCanceled"
            for user in (data["challenger"]["name"], data["destUser"]["name"]):
                self._emit_event(user, {"type": kind, "challenge": data})
        return web.json_response({"ok": True})

    # -- the game ------------------------------------------------------------------------------

    async def _accept(self, challenge_id: str, delay: float = 0.0) -> None:
        await asyncio.sleep(delay)
        data = self.challenges[challenge_id]
        data["status"] = "accepted"
        challenger = data["challenger"]["name"]
        color = {"white": WHITE, "black": BLACK}.get(data["color"], WHITE)
        white, black = (challenger, data["destUser"]["name"]) if color == WHITE else (data["destUser"]["name"],
                                                                                     challenger)
        board_user = black if white == self.opponent else white
        self.start_game(board_user, color=WHITE if white == board_user else BLACK,
                        limit_ms=data["timeControl"]["limit"] * 1000,
                        increment_ms=data["timeControl"]["increment"] * 1000)

    def _challenge_json(self, cid: str, challenger: str, dest: str, limit: Optional[int], increment: int,
                        color: str, variant: str = "standard") -> dict:
        def who(name: str) -> dict:
            return {"id": name.lower(), "name": name, "rating": 1500, "online": True}
        probe = FakeGame("", "", "", limit_ms=None if limit is None else limit * 1000, increment_ms=increment * 1000)
        return {"id": cid, "url": f"{self.base_url}/{cid}", "status": "created", "compat": {"bot": False, "board": True},
                "challenger": who(challenger), "destUser": who(dest), "variant": VARIANTS[variant], "rated": False,
                "timeControl": {"type": "clock", "limit": limit, "increment": increment,
                                "show": f"{(limit or 0) // 60}+{increment}"},
                "color": color, "finalColor": "white" if color != "black" else "black", "speed": probe.speed(),
                "perf": {"icon": "#", "name": probe.speed().title()}}

    def _check_move(self, game: FakeGame, color: Optional[int], uci: str) -> Optional[str]:
        if not re.fullmatch(r"[a-h][1-8][a-h][1-8][qrbn]?", uci):
            return f"Invalid UCI: {uci}"
        played = game.game()
        if game.status != "started" or color is None or played.turn != color:
            return NOT_YOUR_TURN
        move = self._castling_as_king_two(played.position, Move.from_uci(uci))
        if played.position.piece_at(move.from_square) is None:
            return f"No piece on {uci[:2]}"
        if not played.position.is_legal(move):
            return f"Piece on {uci[:2]} cannot move to {uci[2:4]}"
        return None

    @staticmethod
    def _castling_as_king_two(position: Position, move: Move) -> Move:
        """Lichess takes castling both ways, e1g1 and e1h1 (king takes own rook); in Chess960 only the latter."""
        if position.chess960:
            return move
        piece, target = position.piece_at(move.from_square), position.piece_at(move.to_square)
        if (piece is not None and target is not None and piece.piece_type == KING and target.piece_type == ROOK
                and piece.color == target.color):
            return Move(move.from_square, move.from_square + (2 if move.to_square > move.from_square else -2))
        return move

    def _tick(self, game: FakeGame) -> None:
        """Charge the running clock up to now (the clocks run once both sides have moved)."""
        now = time.monotonic()
        if game.status == "started" and len(game.moves) >= 2 and game.limit_ms is not None:
            spent = int((now - game.moved_at) * 1000)
            if game.game().turn == WHITE:
                game.wtime = max(0, game.wtime - spent)
            else:
                game.btime = max(0, game.btime - spent)
        game.moved_at = now

    def _play(self, game: FakeGame, color: int, uci: str) -> None:
        self._tick(game)
        if len(game.moves) >= 2 and game.limit_ms is not None:
            if color == WHITE:
                game.wtime += game.increment_ms
            else:
                game.btime += game.increment_ms
        game.moves.append(uci)
        game.draw.discard(color ^ 1)          # a move declines the other side's offer
        game.takeback.clear()
        played = game.game()
        if played.outcome is not None:
            status = {"checkmate": "mate", "stalemate": "stalemate"}.get(played.outcome.termination.value, "draw")
            self._finish(game, status, played.outcome.winner)
            return
        self._broadcast(game, game.state())
        self._opponent_turn(game)

    def _opponent_turn(self, game: FakeGame) -> None:
        if game.status != "started" or game.game().turn != game.color_of(self.opponent):
            return

        async def reply(plies: int) -> None:
            await asyncio.sleep(self.reply_delay)
            if game.status == "started" and len(game.moves) == plies:
                self.opponent_move(game.id)
        self._background(reply(len(game.moves)))

    def _choose(self, game: FakeGame, played: Game) -> Move:
        while game.script:
            move = Move.from_uci(game.script.pop(0))
            if played.position.is_legal(move):
                return move
        return self.rng.choice(sorted(played.position.legal_moves(), key=Move.uci))

    @staticmethod
    def _has_moved(game: FakeGame, color: int) -> bool:
        start_turn = Position(game.start_fen(), chess960=game.variant == "chess960").turn
        return any(start_turn ^ (i & 1) == color for i in range(len(game.moves)))

    def _take_back(self, game: FakeGame, proposer: int) -> None:
        start_turn = Position(game.start_fen(), chess960=game.variant == "chess960").turn
        while game.moves:
            last_mover = start_turn ^ ((len(game.moves) - 1) & 1)
            game.moves.pop()
            if last_mover == proposer:
                break
        game.takeback.clear()
        game.draw.clear()
        self._opponent_turn(game)

    def _finish(self, game: FakeGame, status: str, winner: Optional[int]) -> None:
        self._tick(game)
        game.status, game.winner = status, winner
        final = dict(game.state(), _close=True)
        self._broadcast(game, final)
        for player in (game.white, game.black):
            self._emit_event(player, {"type": "gameFinish", "game": game.event_game(player)})


def legal_random_game(seed: int, plies: int) -> list[str]:
    """Some legal moves from the start, for scripts and checks."""
    rng = random.Random(seed)
    game = Game()
    out: list[str] = []
    while len(out) < plies and not game.is_over:
        move = rng.choice(sorted(game.position.legal_moves(), key=Move.uci))
        game.push(move)
        out.append(move.uci())
    return out


__all__ = ["DECLINE_REASONS", "Fault", "FakeGame", "FakeLichess", "KEEPALIVE", "NOT_YOUR_TURN", "legal_random_game"]
