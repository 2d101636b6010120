"""A fake of Lichess's broadcast push endpoint (POST /api/broadcast/round/{id}/push) that checks the body."""
from __future__ import annotations

import asyncio
import io
from typing import Optional

import chess.pgn
from aiohttp import web

REQUIRED_TAGS = ("Event", "Site", "Date", "White", "Black", "Result")


class FakeBroadcast:
    """Answers as Lichess does: 401 without the token, 404 for another round, 400 for a body that is
    not PGN text, 429 when told to; 200 with ``{"games": [{"tags", "moves"} or {"tags", "error"}]}``.

    ``bodies``: every PGN accepted; ``max_in_flight``: the most requests open at once; ``hold``:
    while cleared, requests wait for it (to prove that changes meanwhile are coalesced).
    """

    def __init__(self, round_id: str = "AbCd1234", token: str = "lip_test") -> None:
        self.round_id, self.token = round_id, token
        self.bodies: list[str] = []
        self.answers: list[int] = []
        self.in_flight = self.max_in_flight = 0
        self.hold = asyncio.Event()
        self.hold.set()
        self.arrived = asyncio.Event()
        self.fail_with: list[int] = []
        self.problems: list[str] = []
        self.app = web.Application()
        self.app.router.add_post("/api/broadcast/round/{id}/push", self._push)
        self.runner: Optional[web.AppRunner] = None
        self.url = ""

    async def start(self) -> str:
        self.runner = web.AppRunner(self.app, access_log=None)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        self.url = f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}"
        return self.url

    async def stop(self) -> None:
        self.hold.set()
        if self.runner is not None:
            await self.runner.cleanup()

    async def _push(self, request: web.Request) -> web.Response:
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        self.arrived.set()
        try:
            await self.hold.wait()
            answer = self._answer(request, await request.read())
            self.answers.append(answer.status)
            return answer
        finally:
            self.in_flight -= 1

    def _answer(self, request: web.Request, raw: bytes) -> web.Response:
        if request.headers.get("Authorization") != f"Bearer {self.token}":
            return web.json_response({"error": "No such token"}, status=401)
        if request.match_info["id"] != self.round_id:
            return web.json_response({"error": "Not found"}, status=404)
        if self.fail_with:
            status = self.fail_with.pop(0)
            return web.json_response({"error": "Too many requests. Try again later."}, status=status)
        if not request.headers.get("Content-Type", "").startswith("text/plain"):
            self.problems.append(f"content type {request.headers.get('Content-Type')}")
            return web.json_response({"error": "expected text/plain PGN"}, status=400)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            return web.json_response({"error": "not UTF-8"}, status=400)
        games = []
        stream = io.StringIO(text)
        while (game := chess.pgn.read_game(stream)) is not None:
            tags = dict(game.headers)
            missing = [t for t in REQUIRED_TAGS if t not in game.headers]
            if game.errors or missing:
                error = str(game.errors[0]) if game.errors else f"missing tags {missing}"
                self.problems.append(error)
                games.append({"tags": tags, "error": error})
            else:
                games.append({"tags": tags, "moves": len(list(game.mainline_moves()))})
        if not games:
            return web.json_response({"error": "no game in the PGN"}, status=400)
        if len(games) > 64:
            return web.json_response({"error": "at most 64 games per round"}, status=400)
        self.bodies.append(text)
        return web.json_response({"games": games})
