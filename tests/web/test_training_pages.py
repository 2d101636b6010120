"""The training routes on a real session and a real library analysed by the real Stockfish: a game's mistakes as drills, refusals in words, the progress served."""
from __future__ import annotations

import random

import pytest

from firmware.analysis.engine import AnalysisLimit
from firmware.config import parse_config
from firmware.session.session import Session
from firmware.web.pairing import Pairing
from firmware.web.server import WebCompanion
from firmware.web.session_backend import SessionBackend
from firmware.library.games import GameLibrary

from .conftest import ManualClock, PageClient
from .test_library import SHEPHERD, record
from tests.said import english, error_in

GAME = "2025-03-01_1000_Anna-vs-Ben"


@pytest.fixture
async def page(tmp_path):
    record(tmp_path / "games", GAME, SHEPHERD, Result="1-0")
    config = parse_config({"board": {"sensors": "sim"}, "storage": {"dir": str(tmp_path)},
                           "engine": {"path": "/usr/games/stockfish"}})
    clock = ManualClock(100.0)
    session = Session(config, clock=clock)
    companion = WebCompanion(SessionBackend(session, rng=random.Random(1)), pairing=Pairing(None, required=False),
                             library=GameLibrary(tmp_path / "games"), clock=clock)
    # A fixed depth judges the same moves on any machine: a timed search on a loaded one may not.
    companion.analyses.limit = AnalysisLimit(depth=14)
    port = await companion.start("127.0.0.1", 0)
    client = PageClient("127.0.0.1", port)
    yield client, companion, session
    await client.close()
    await companion.stop()
    await session.aclose()


async def answer(response) -> tuple[int, dict]:
    async with response as r:
        return r.status, english(await r.json())


async def test_a_games_mistakes_become_drills_once_it_is_analysed(page):
    client, companion, session = page
    status, body = await answer(client.post("/api/training/start", json={"game": GAME}))
    assert status == 409 and body["error"].startswith("this game has no analysis yet")
    await companion.analyses.request(GAME)
    await companion.analyses.settled()
    status, body = await answer(client.post("/api/training/start", json={"game": GAME, "side": "white",
                                                                         "player": "Ben"}))
    assert status == 409 and "nothing to train on" in body["error"]      # White made no mistake
    status, body = await answer(client.post("/api/training/start", json={"game": GAME, "player": "Ben"}))
    assert status == 200, body
    state = english(session.snapshot())
    training = state["training"]
    assert training["kind"] == "mistake" and training["side"] == "black" and training["judgement"] == "blunder"
    assert training["id"] == f"{GAME}:6" and training["player"] == "Ben"
    assert state["setup"]["target"] == training["fen"] == "r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 3 3"
    status, body = await answer(client.post("/api/training/next", json={}))
    assert status == 409 and body["error"].startswith("no exercise left here")
    status, body = await answer(client.post("/api/training/stop", json={}))
    assert status == 200 and session.snapshot()["training"] is None


async def test_bad_requests_are_refused_in_words(page):
    client, _, _ = page
    status, body = await answer(client.post("/api/training/start", json={"game": "no-such-game"}))
    assert status == 409 and body["error"] == "the library has no such game"
    status, body = await answer(client.post("/api/training/start", json={"game": GAME, "side": "purple"}))
    assert status == 400
    status, body = await answer(client.post("/api/training/start", json={}))
    assert status == 400 and "game" in body["error"]
    status, body = await answer(client.post("/api/training/start", json={"game": GAME, "kind": "puzzle"}))
    assert status == 400
    status, body = await answer(client.post("/api/training/start", json={"game": "../../etc/passwd"}))
    assert status == 409 and body["error"] == "the library has no such game"
    async with client.get("/api/training/progress?player=" + "x" * 61) as r:
        assert r.status == 400 and (await r.json())["message"]["key"]          # (in words, as every 400)
    for odd in ("%00", "Ada%0aBen", "Ada%E2%80%AE"):                           # (control and format characters)
        async with client.get("/api/training/progress?player=" + odd) as r:
            assert r.status == 400, odd
    async with client.get("/api/training/progress?player=%20%0a") as r:        # (blank: the board's player, as at start)
        assert r.status == 200 and (await r.json())["player"] == "White"
    status, body = await answer(client.post("/api/training/start", json={"kind": "mistakes"}))
    assert status == 400                                                         # (a game's mistakes need the game)


async def test_the_progress_of_a_player_is_served(page):
    client, _, _ = page
    async with client.get("/api/training/progress?player=Ada") as r:
        body = await r.json()
    assert r.status == 200 and body["player"] == "Ada" and body["rating"]["rating"] == 1500


async def test_no_mistake_for_a_side_names_the_side_in_the_players_words(page):
    client, companion, _ = page
    await companion.analyses.request(GAME)
    await companion.analyses.settled()
    async with client.post("/api/training/start", json={"game": GAME, "side": "white"}) as r:
        assert r.status == 409
        answer = await r.json()
    assert "white" not in error_in(answer, "fr") and "Blancs" in error_in(answer, "fr")
    assert "white" not in error_in(answer, "de") and "Weiß" in error_in(answer, "de")


async def test_a_puzzle_near_the_players_rating_from_the_shipped_set(page):
    from firmware.training.puzzles import load
    client, _, session = page
    status, body = await answer(client.post("/api/training/start", json={"kind": "puzzle", "player": "Ada"}))
    assert status == 200, body
    training = english(session.snapshot())["training"]
    shipped = {p.id: p for p in load()}
    puzzle = shipped[training["id"]]
    assert training["kind"] == "puzzle" and training["fen"] == puzzle.fen and training["player"] == "Ada"
    assert abs(puzzle.rating - 1500) <= min(abs(p.rating - 1500) for p in shipped.values()) + 200
    assert session.snapshot()["setup"]["target"] == puzzle.fen
