"""The game library on the page: the recorded games listed, shown move by move and downloaded as PGN."""
from __future__ import annotations

from firmware.web.answers import NO_STORE, error_answer
from firmware.web.library import GameLibrary, UnknownGame
from netserver.http_server import HTTPError, Request, Response, Router, json_response


class LibraryPages:
    """The read-only routes of a :class:`~firmware.web.library.GameLibrary` (``add_to(router)``).

    * ``GET /api/games``: ``{"games": [summary...]}``; ``GET /api/games/{id}``: one game, replayed.
    * ``GET /games.pgn``: every game in one file; ``GET /games/{id}.pgn``: one game, as a download.
    * An id the library does not know is a 404 ``"no such game"``. Without a library (None) the
      list is empty, the whole PGN empty, and one game a 404 ``"no game library here"``.
    * Nothing here changes state: these routes need no pairing, and nothing is cached.
    """

    def __init__(self, library: GameLibrary | None) -> None:
        self.library = library

    def add_to(self, router: Router) -> None:
        router.add_get("/api/games", self.games)
        router.add_get("/api/games/{id}", self.game)
        router.add_get("/games.pgn", self.all_pgn)
        router.add_get("/games/{id}.pgn", self.game_pgn)

    async def games(self, request: Request) -> Response:
        games = self.library.games() if self.library is not None else []
        return json_response({"games": games}, headers=dict(NO_STORE))

    async def game(self, request: Request) -> Response:
        try:
            game = self._library().game(request.match_info["id"])
        except UnknownGame:
            return error_answer(404, "no such game")
        return json_response(game, headers=dict(NO_STORE))

    async def game_pgn(self, request: Request) -> Response:
        game_id = request.match_info["id"]
        try:
            text = self._library().pgn(game_id)
        except UnknownGame:
            return error_answer(404, "no such game")
        return self._pgn_response(text, f"{game_id}.pgn")

    async def all_pgn(self, request: Request) -> Response:
        text = self.library.all_pgn() if self.library is not None else ""
        return self._pgn_response(text, "echiquier-games.pgn")

    def _library(self) -> GameLibrary:
        if self.library is None:
            raise HTTPError(404, "no game library here")
        return self.library

    @staticmethod
    def _pgn_response(text: str, filename: str) -> Response:
        return Response(text, content_type="application/x-chess-pgn", charset="utf-8",
                        headers={"Content-Disposition": f'attachment; filename="{filename}"',
                                 "Cache-Control": "no-store"})


__all__ = ["LibraryPages"]
