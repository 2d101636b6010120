"""The coach from the page: POST /api/coach/hint lights the real Stockfish's best move and says it, a side not coached (or the engine's) is a 409 in both languages, the page state says when a hint may be asked, and the new game and the settings choose the sides coached and the hints."""
from __future__ import annotations

import json

import pytest

from firmware.config import with_overrides

from .test_session_backend import Table, needs_stockfish
from tests.said import both, error_in

JSON = {"Content-Type": "application/json"}
HINTS_OFF = ("hints are off (the coach settings say whether it gives them): the coach only judges the moves",
             "les conseils sur demande sont coupés (les réglages du conseil le disent) : le conseil juge "
             "seulement les coups")
NOT_COACHED = ("the coach does not help the side to move (the coach settings name the sides it helps)",
               "le conseil n'aide pas le camp au trait (ses réglages nomment les camps qu'il aide)")


def coached(tmp_path, **coach: object) -> Table:
    table = Table(tmp_path)
    table.session.config = with_overrides(table.session.config, coach={"depth": 6, **coach})
    table.setup()
    return table


async def post(client, path: str, body: dict | None = None) -> tuple[int, dict]:
    answer = await client.post(path, data=json.dumps(body or {}), headers=JSON)
    return answer.status, await answer.json()


async def refused(client, path: str) -> tuple[int, tuple[str, str]]:
    """A refused request's status and its words in English and French."""
    status, body = await post(client, path)
    return status, both(body)


def coach_settings(table: Table) -> dict:
    settings = table.state()["settings"]
    return {key: settings[key] for key in ("coach_white", "coach_black", "coach_hints")}


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


async def test_the_new_game_chooses_the_sides_the_coach_helps_and_whether_they_may_ask_for_hints(serve, tmp_path):
    """Issue 34: the coach from the new-game dialog (POST /api/game/new's ``coach`` and ``hints``),
    through the session's door into ``[coach]``; the page state says it, and a side coached without
    hints is refused a hint, in both languages."""
    table = Table(tmp_path)
    client, _, _ = await serve(backend=table.backend)
    try:
        assert coach_settings(table) == {"coach_white": False, "coach_black": False, "coach_hints": True}
        assert await post(client, "/api/game/new", {"opponent": "none", "coach": "white", "hints": False}) == \
            (200, {"ok": True})
        coach = table.session.config.coach
        assert (coach.white, coach.black, coach.hints) == (True, False, False)
        table.setup()
        assert coach_settings(table) == {"coach_white": True, "coach_black": False, "coach_hints": False}
        assert table.session.coach.coached(0) and table.state()["hint_available"] is False
        assert await refused(client, "/api/coach/hint") == (409, HINTS_OFF)
        assert (await post(client, "/api/game/new", {"coach": "both", "hints": True}))[0] == 200
        assert coach_settings(table) == {"coach_white": True, "coach_black": True, "coach_hints": True}
        assert (await post(client, "/api/game/new", {"coach": "none"}))[0] == 200   # hints as they were
        assert coach_settings(table) == {"coach_white": False, "coach_black": False, "coach_hints": True}
        assert (await post(client, "/api/game/new", {}))[0] == 200                  # absent: as configured
        assert coach_settings(table) == {"coach_white": False, "coach_black": False, "coach_hints": True}
    finally:
        await table.session.aclose()


async def test_the_settings_turn_the_coach_and_its_hints_on_and_off_at_once(serve, tmp_path):
    table = Table(tmp_path)
    table.setup()
    client, _, _ = await serve(backend=table.backend)
    try:
        assert table.state()["hint_available"] is False
        assert (await post(client, "/api/settings", {"coach_white": True}))[0] == 200
        assert table.state()["hint_available"] is True                       # White to move: coached now
        assert (await post(client, "/api/settings", {"coach_hints": False, "coach_black": True}))[0] == 200
        assert coach_settings(table) == {"coach_white": True, "coach_black": True, "coach_hints": False}
        assert table.state()["hint_available"] is False
        assert (await post(client, "/api/settings", {"coach_hints": True, "coach_white": False}))[0] == 200
        assert table.state()["hint_available"] is False                      # White is no longer coached
        assert await refused(client, "/api/coach/hint") == (409, NOT_COACHED)
    finally:
        await table.session.aclose()


@pytest.mark.parametrize("path, body, english, french", [
    ("/api/game/new", {"coach": "me"}, "coach: expected one of 'none', 'white', 'black', 'both', got 'me'",
     "coach : l'une de ces valeurs est attendue : 'none', 'white', 'black', 'both', pas 'me'"),
    ("/api/game/new", {"coach": True}, "coach: expected one of 'none', 'white', 'black', 'both', got True",
     "coach : l'une de ces valeurs est attendue : 'none', 'white', 'black', 'both', pas True"),
    ("/api/game/new", {"hints": "yes"}, "hints: expected true or false, got 'yes'",
     "hints : true ou false est attendu, pas 'yes'"),
    ("/api/game/new", {"opponent": "lichess", "coach": "white"}, "coach: not for an online game (no assistance there)",
     "coach : pas pour une partie en ligne (aucune aide n'y est permise)"),
    ("/api/game/new", {"opponent": "lichess", "hints": True}, "hints: not for an online game (no assistance there)",
     "hints : pas pour une partie en ligne (aucune aide n'y est permise)"),
    ("/api/settings", {"coach_white": 1}, "coach_white: expected true or false, got 1",
     "coach_white : true ou false est attendu, pas 1"),
    ("/api/settings", {"coach_black": "false"}, "coach_black: expected true or false, got 'false'",
     "coach_black : true ou false est attendu, pas 'false'"),
    ("/api/settings", {"coach": "white"}, "unknown field 'coach' (known fields: ",
     "champ inconnu 'coach' (champs connus : "),
])
async def test_a_bad_coach_field_is_a_400_that_says_why_in_both_languages(serve, path, body, english, french):
    client, _, backend = await serve()
    status, said = await post(client, path, body)
    assert status == 400
    assert said["error"].startswith(english) and error_in(said, "fr").startswith(french), said
    assert not [call for call in backend.calls if call[0] in ("new_game", "settings")]
