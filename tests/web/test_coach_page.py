"""The coach from the page: POST /api/coach/hint lights the real Stockfish's best move and says it, a side not coached (or the engine's) is a 409 in both languages, and the page state says when a hint may be asked."""
from __future__ import annotations

import json

from firmware.config import with_overrides

from .test_session_backend import Table, needs_stockfish
from tests.said import both

JSON = {"Content-Type": "application/json"}
NOT_COACHED = ("the coach does not help the side to move (the coach settings name the sides it helps)",
               "le conseil n'aide pas le camp au trait (ses réglages nomment les camps qu'il aide)")


def coached(tmp_path, **coach: object) -> Table:
    table = Table(tmp_path)
    table.session.config = with_overrides(table.session.config, coach={"depth": 6, **coach})
    table.setup()
    return table


async def post(client, path: str) -> tuple[int, dict]:
    answer = await client.post(path, data=json.dumps({}), headers=JSON)
    return answer.status, await answer.json()


async def refused(client, path: str) -> tuple[int, tuple[str, str]]:
    """A refused request's status and its words in English and French."""
    status, body = await post(client, path)
    return status, both(body)


@needs_stockfish
async def test_a_hint_asked_from_the_page_lights_the_best_move_and_says_it(serve, tmp_path):
    table = coached(tmp_path, white=True)
    client, _, _ = await serve(backend=table.backend)
    try:
        assert table.state()["hint_available"] is True
        status, _ = await post(client, "/api/coach/hint")
        assert status == 200
        await table.session.coach.settled()
        table.settle(0.1)
        state = table.state()
        assert state["online"]["notice"].startswith("Hint: ")
        assert table.state("fr")["online"]["notice"].startswith("Conseil : ")
        style = table.session.style
        hint = f"#{style.dim(style.hint):06x}"
        assert sum(colour == hint for colour in state["leds"]) == 2
    finally:
        await table.session.aclose()


@needs_stockfish
async def test_a_side_not_coached_is_refused_a_hint_in_both_languages(serve, tmp_path):
    table = coached(tmp_path, white=True)
    client, _, _ = await serve(backend=table.backend)
    try:
        table.move("e2", "e4")
        assert table.state()["hint_available"] is False
        assert await refused(client, "/api/coach/hint") == (409, NOT_COACHED)
    finally:
        await table.session.aclose()


@needs_stockfish
async def test_the_engines_side_is_never_coached(serve, tmp_path):
    table = coached(tmp_path, white=True, black=True)
    client, _, _ = await serve(backend=table.backend)
    try:
        table.backend.new_game(white="White", black="Black", time_control="-", rules="fide", colours="as-entered",
                               opponent="engine", engine_side="white", engine_level=1, player="Anna",
                               now=table.clock.now)
        table.setup()
        assert table.session.game.turn == 0 and table.state()["opponent"]["sides"] == ["white"]
        assert table.session.coach.coached(0) is False and table.session.coach.coached(1) is True
        assert table.state()["hint_available"] is False
        assert await refused(client, "/api/coach/hint") == (409, NOT_COACHED)
    finally:
        await table.session.aclose()


async def test_a_coach_whose_engine_fails_is_said_once_on_the_page(serve, tmp_path):
    table = coached(tmp_path, white=True)
    table.session.config = with_overrides(table.session.config, engine={"path": str(tmp_path / "no-stockfish")})
    client, _, _ = await serve(backend=table.backend)
    try:
        assert table.state()["failed_helpers"] == []
        for _ in range(2):
            status, _ = await post(client, "/api/coach/hint")
            assert status == 200
            await table.session.coach.settled()
        table.settle(0.1)
        assert table.state()["failed_helpers"] == [{
            "helper": "coach",
            "text": "The coach's engine failed: no hint nor judgement for now (the service's journal says why)"}]
        assert table.state("fr")["failed_helpers"][0]["text"] == (
            "Le moteur du conseil est en panne : ni conseil ni jugement pour l'instant (le journal du service dit pourquoi)")
    finally:
        await table.session.aclose()
