"""The game library on the page: the recorded games listed, shown move by move, analysed and downloaded as PGN."""
from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from chess_core import InvalidMoveError, Move

from firmware.library.analyses import Analyses, AnalysisLink, AnalysisRefused
from firmware.web.answers import NO_STORE, ServerRefusal, error_answer, refusal_answer
from firmware.web.backend import Backend
from firmware.library.games import GameLibrary, UnknownGame
from firmware.web.validate import BadRequest, Boolean, Field, Spec, check_body
from netserver.http_server import HTTPError, Request, Response, Router, json_response
from firmware.words import in_english
from netserver.limits import parse_json


class Uci(Field):
    """A move in UCI ("e2e4", "e7e8q"), or null."""

    def check(self, value: Any) -> Move:
        try:
            if not isinstance(value, str) or len(value) > 5:
                raise InvalidMoveError("")
            return Move.from_uci(value)
        except InvalidMoveError:
            raise BadRequest("expected_uci", got=repr(value)) from None

    def describe(self) -> str:
        return "a move in UCI"


SHOW: Spec = {"played": Uci(optional=True), "best": Uci(optional=True)}
ANALYSIS_SETTINGS: Spec = {"when_idle": Boolean()}


class LibraryPages:
    """The routes of a :class:`~firmware.library.games.GameLibrary` and its analyses (``add_to(router)``).

    * ``GET /api/games``: ``{"games": [summary...], "analysis": {"when_idle": bool}}``;
      ``GET /api/games/{id}``: one game, replayed, with ``analysis`` (the page's review of it, or
      null) and ``analysing`` (``{"state": "queued" | "running" | "failed", ...}`` or null).
    * ``POST /api/games/{id}/analysis``: analyse the game, 202 (a refusal in words: 409 while it
      is played or without moves, 422 when it is too long to analyse).
    * ``POST /api/analysis/settings`` ``{"when_idle": bool}``: analyse finished games while idle.
    * ``POST /api/board/show`` ``{"played": uci|null, "best": uci|null}``: light a reviewed move
      and the better one on the board's LEDs while no game is played (``{"shown": false}`` else).
    * ``GET /games.pgn``: every game in one file; ``GET /games/{id}.pgn``: one game, as a
      download (analysed, when its analysis is of its moves).
    * An id the library does not know is a 404 ``"no such game"``. Without a library (None) the
      list is empty, the whole PGN empty, and one game a 404 ``"no game library here"``.
    * The reading routes change nothing and need no pairing; the POSTs are commands, under the
      server's guard as every other.
    * The files are read in a worker thread (``asyncio.to_thread``), never on the loop that steps
      the board; one listing at a time, the idle analyses' included (a second waits for it, then
      finds the summaries made).
    * An analysis kept as a link (``analysis/<id>.pgn`` pointing elsewhere) is not followed: its
      download is a 403 that says so.
    """

    def __init__(self, library: GameLibrary | None, *, analyses: Analyses | None = None,
                 backend: Backend | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.library = library
        self.analyses = analyses
        self.backend = backend
        self.clock = clock
        self._listing = analyses.listing if analyses is not None else asyncio.Lock()

    def add_to(self, router: Router) -> None:
        router.add_get("/api/games", self.games)
        router.add_get("/api/games/{id}", self.game)
        router.add_post("/api/games/{id}/analysis", self.analyse)
        router.add_post("/api/analysis/settings", self.analysis_settings)
        router.add_post("/api/board/show", self.show)
        router.add_get("/games.pgn", self.all_pgn)
        router.add_get("/games/{id}.pgn", self.game_pgn)

    async def games(self, request: Request) -> Response:
        library = self.library
        async with self._listing:
            games = await asyncio.to_thread(library.games) if library is not None else []
        when_idle = await self._when_idle()
        return json_response({"games": games, "analysis": {"when_idle": when_idle}}, headers=dict(NO_STORE))

    async def game(self, request: Request) -> Response:
        game_id = request.match_info["id"]
        library, analyses = self._library(), self.analyses

        def read() -> dict[str, Any]:
            game = library.game(game_id)
            game["analysis"] = analyses.review(game_id, game["uci"]) if analyses is not None else None
            return game

        try:
            game = await asyncio.to_thread(read)
        except UnknownGame:
            return error_answer(404, "no such game")
        game["analysing"] = analyses.status(game_id) if analyses is not None else None
        return json_response(game, headers=dict(NO_STORE))

    async def analyse(self, request: Request) -> Response:
        if self.analyses is None:
            return error_answer(404, "no analyses here")
        check_body(self._json(request), {})
        self._library()
        try:
            status = await self.analyses.request(request.match_info["id"])
        except UnknownGame:
            return error_answer(404, "no such game")
        except AnalysisRefused as exc:
            return refusal_answer(exc, exc.status)
        return json_response({"ok": True, "analysing": status}, status=202, headers=dict(NO_STORE))

    async def analysis_settings(self, request: Request) -> Response:
        if self.analyses is None:
            return error_answer(404, "no analyses here")
        values = check_body(self._json(request), ANALYSIS_SETTINGS)
        self._library()
        await self.analyses.set_when_idle(values["when_idle"])    # (it looks at once, in a thread)
        return json_response({"ok": True, "when_idle": await self._when_idle()}, headers=dict(NO_STORE))

    async def _when_idle(self) -> bool:
        analyses = self.analyses
        return await asyncio.to_thread(lambda: analyses.when_idle) if analyses is not None else False

    async def show(self, request: Request) -> Response:
        values = check_body(self._json(request), SHOW)
        backend = self.backend
        shown = backend is not None and backend.show_on_board(values["played"], values["best"], self.clock())
        return json_response({"ok": True, "shown": shown}, headers=dict(NO_STORE))

    async def game_pgn(self, request: Request) -> Response:
        game_id = request.match_info["id"]
        library, analyses = self._library(), self.analyses
        try:
            text = await asyncio.to_thread(library.pgn, game_id)
            analysed = await asyncio.to_thread(
                lambda: analyses.pgn(game_id, library.moves(game_id))) if analyses is not None else None
        except UnknownGame:
            return error_answer(404, "no such game")
        except AnalysisLink:
            return refusal_answer(ServerRefusal("analysis_link"), 403)
        return self._pgn_response(analysed or text, f"{game_id}.pgn")

    async def all_pgn(self, request: Request) -> Response:
        library = self.library
        async with self._listing:
            text = await asyncio.to_thread(library.all_pgn) if library is not None else ""
        return self._pgn_response(text, "echiquier-games.pgn")

    def _library(self) -> GameLibrary:
        if self.library is None:
            raise HTTPError(404, "no game library here")
        return self.library

    @staticmethod
    def _json(request: Request) -> Any:
        try:
            text = request.body.decode("utf-8") if request.body else ""
            return parse_json(text) if text.strip() else {}
        except UnicodeDecodeError:
            raise BadRequest("not_utf8") from None
        except ValueError as exc:   # (the parser's English: the French says what it means)
            raise BadRequest("not_json", detail=in_english(str(exc))) from None

    @staticmethod
    def _pgn_response(text: str, filename: str) -> Response:
        return Response(text, content_type="application/x-chess-pgn", charset="utf-8",
                        headers={"Content-Disposition": f'attachment; filename="{filename}"',
                                 "Cache-Control": "no-store"})


__all__ = ["LibraryPages"]
