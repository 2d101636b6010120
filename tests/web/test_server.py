"""The companion's server: the page, the websocket push, commands, validation and the pairing guard."""
from __future__ import annotations

import asyncio
import json

import pytest

from firmware.web.backend import CommandRefused
from firmware.web.pairing import COOKIE
from tests.said import both, error_in

JSON = {"Content-Type": "application/json"}


async def post(client, path, body=None, headers=None, **kw):
    data = body if isinstance(body, (str, bytes)) else json.dumps(body if body is not None else {})
    return await client.post(path, data=data, headers={**JSON, **(headers or {})}, **kw)


async def next_state(ws, timeout=2.0):
    while True:
        msg = json.loads((await ws.receive(timeout=timeout)).data)
        if msg["type"] == "state":
            return msg["state"]


# -- reading ------------------------------------------------------------------------------------

async def test_the_page_is_served_with_a_strict_content_policy(serve):
    client, _, _ = await serve()
    response = await client.get("/")
    assert response.status == 200
    text = await response.text()
    assert 'id="board"' in text and "/static/app.js" in text
    assert "default-src 'self'" in response.headers["Content-Security-Policy"]
    assert response.headers["X-Frame-Options"] == "DENY"
    for name in ("app.js", "style.css"):
        assert (await client.get(f"/static/{name}")).status == 200


async def test_the_page_fetches_nothing_from_elsewhere(serve):
    client, _, _ = await serve()
    for path in ("/", "/static/app.js", "/static/style.css"):
        text = await (await client.get(path)).text()
        assert "http://" not in text.replace("http://www.w3.org", "") and "https://" not in text, path
        assert "//cdn" not in text


async def test_the_words_offer_every_language_and_say_the_boards_own(serve, tmp_path):
    """GET /api/words: the page's words by language (its language buttons) and ``[web] language``,
    the page's language on a device where nobody chose one ("": the browser's)."""
    import firmware.words as words
    from firmware.config import loads_config
    from firmware.web.companion import build_companion
    from .test_session_backend import Table
    client, companion, _ = await serve()
    said = await (await client.get("/api/words")).json()
    assert list(said["page"]) == list(words.LANGS) and said["language"] == ""
    companion.language = "fr"
    assert (await (await client.get("/api/words")).json())["language"] == "fr"
    table = Table(tmp_path)
    try:
        config = loads_config('[board]\nsensors = "sim"\n[web]\nlanguage = "fr"')
        assert build_companion(table.session, config).language == "fr"     # the service's companion
    finally:
        await table.session.aclose()


async def test_the_state_lists_occupancy_leds_clocks_and_moves(serve):
    client, _, backend = await serve()
    backend.play("e2e4")
    backend.leds[12] = 0x00C000
    state = await (await client.get("/api/state")).json()
    assert state["turn"] == "black" and state["moves"] == {"uci": ["e2e4"], "san": ["e4"]}
    assert state["leds"][12] == "#00c000" and state["leds"][0] == ""
    assert "e4" in state["occupied"] and "e2" not in state["occupied"]
    assert state["sim"] is None and state["seq"] >= 1


async def test_the_websocket_says_hello_then_pushes_every_change(serve):
    client, companion, backend = await serve()
    ws = await client.ws_connect("/ws")
    hello = json.loads((await ws.receive(timeout=2)).data)
    assert hello == {"type": "hello", "pairing_required": False, "paired": True, "sim": False}
    first = await next_state(ws)
    assert first["moves"]["san"] == []
    backend.play("e2e4", "e7e5")
    pushed = await next_state(ws)
    assert pushed["moves"]["san"] == ["e4", "e5"] and pushed["seq"] > first["seq"]
    await ws.close()


async def test_a_change_reported_from_another_thread_reaches_the_page(serve):
    client, companion, backend = await serve()
    ws = await client.ws_connect("/ws")
    await next_state(ws)
    backend.game.push_text("d4")
    await asyncio.get_running_loop().run_in_executor(None, backend.notify)
    assert (await next_state(ws))["moves"]["san"] == ["d4"]
    await ws.close()


async def test_changes_in_a_burst_are_sent_once_with_the_latest_state(serve):
    client, companion, backend = await serve()
    ws = await client.ws_connect("/ws")
    await next_state(ws)
    for uci in ("e2e4", "e7e5", "g1f3"):
        backend.game.push_text(uci)
        backend.notify()
    state = await next_state(ws)
    assert state["moves"]["san"] == ["e4", "e5", "Nf3"]
    await ws.close()


# -- commands -------------------------------------------------------------------------------------

async def test_commands_reach_the_backend(serve):
    client, _, backend = await serve()
    assert (await post(client, "/api/game/new", {"white": " Anna ", "black": "Ben", "time_control": "300+3",
                                                "rules": "casual"})).status == 200
    assert backend.calls[-1] == ("new_game", {"now": 1000.0, "white": "Anna", "black": "Ben", "time_control": "300+3",
                                              "rules": "casual", "colours": "as-entered", "fen": None,
                                              "opponent": None, "player": None, "engine_side": None,
                                              "engine_level": None, "variant": None, "start_position": None,
                                              "coach": None, "hints": None})
    assert (await post(client, "/api/game/new", {"variant": "chess960", "start_position": 323})).status == 200
    assert backend.calls[-1][1]["variant"] == "chess960" and backend.calls[-1][1]["start_position"] == 323
    for bad in ({"variant": "atomic"}, {"start_position": 960}, {"start_position": 1.5}):
        response = await post(client, "/api/game/new", bad)
        assert response.status == 400 and "Traceback" not in await response.text()
    for empty in ("", "  "):   # an empty custom time control is refused, not taken as "no clock"
        response = await post(client, "/api/game/new", {"time_control": empty})
        assert response.status == 400 and "enter a time control" in await response.text()
    backend.play("e2e4")
    for path, body, call in [
        ("/api/game/draw", {"action": "offer", "color": "white"}, ("draw", "offer", "white")),
        ("/api/game/promotion", {"piece": "n"}, ("promote", "n")),
        ("/api/game/clock", {"action": "pause"}, ("clock", "pause")),
        ("/api/game/takeback", {}, ("takeback",)),
        ("/api/settings", {"touch_move": True, "brightness": 0.25}, ("settings", {"touch_move": True,
                                                                                "brightness": 0.25})),
        ("/api/settings", {"engine_level": 3, "engine_elo": 1500, "engine_move_time": 0.5},
         ("settings", {"engine_level": 3, "engine_elo": 1500, "engine_move_time": 0.5})),
        ("/api/game/takeover", {"color": "white"}, ("take_over", "white")),
        ("/api/lichess/logout", {}, ("lichess_logout",)),
        ("/api/game/resign", {"color": "black"}, ("resign", "black")),
    ]:
        response = await post(client, path, body)
        assert response.status == 200, (path, await response.text())
        assert backend.calls[-1] == call


async def test_a_new_game_against_the_engine_from_a_fen(serve):
    client, _, backend = await serve()
    fen = "k7/4P3/8/8/8/8/P7/4K3  w - - 0 1"
    response = await post(client, "/api/game/new", {"opponent": "engine", "engine_side": "random",
                                                     "engine_level": 0, "player": "Anna", "fen": fen,
                                                     "time_control": " 300d5 "})
    assert response.status == 200, await response.text()
    call = backend.calls[-1][1]
    assert (call["opponent"], call["engine_side"], call["engine_level"], call["player"]) == ("engine", "random", 0,
                                                                                             "Anna")
    assert call["fen"] == "k7/4P3/8/8/8/8/P7/4K3 w - - 0 1" and call["time_control"] == "300d5"
    online = await post(client, "/api/game/new", {"opponent": "lichess"})
    assert online.status == 200 and backend.calls[-1][1]["opponent"] == "lichess"


async def test_the_takeback_offer_of_the_other_end_is_answered(serve):
    client, _, backend = await serve()
    backend.takeback_offer = "black"
    state = await (await client.get("/api/state")).json()
    assert state["takeback_offer"] == "black"
    assert (await post(client, "/api/game/takeback-offer", {"action": "accept"})).status == 200
    assert backend.calls[-1] == ("answer_takeback", "accept")
    again = await post(client, "/api/game/takeback-offer", {"action": "decline"})
    assert again.status == 409 and "no takeback offer" in (await again.json())["error"]


async def test_the_computer_takes_over_a_side(serve):
    client, _, backend = await serve()
    assert (await post(client, "/api/game/takeover", {"color": "black"})).status == 200
    state = await (await client.get("/api/state")).json()
    assert state["opponent"]["sides"] == ["black"] and state["take_over"] == ["white"]


TOKEN = "lip_Sup3rSecretT0ken"


async def test_a_lichess_token_goes_in_and_never_comes_back(serve):
    client, _, backend = await serve()
    ws = await client.ws_connect("/ws")
    await next_state(ws)
    response = await post(client, "/api/lichess/login", {"token": f"  {TOKEN} "})
    assert response.status == 200
    text = await response.text()
    assert TOKEN not in text and json.loads(text) == {"ok": True}
    pushed = await next_state(ws)
    assert pushed["lichess"]["account"] == "anna"
    assert TOKEN not in json.dumps(pushed)
    assert TOKEN not in await (await client.get("/api/state")).text()
    assert backend.calls[-1] == ("lichess_login", "<token>")
    assert (await post(client, "/api/lichess/logout", {})).status == 200
    assert (await (await client.get("/api/state")).json())["lichess"]["account"] is None
    await ws.close()


async def test_a_refused_lichess_token_is_not_quoted_in_the_answer(serve):
    client, _, backend = await serve()
    backend.login_error = "Lichess refused the token {token}: 401 Unauthorized"
    response = await post(client, "/api/lichess/login", {"token": TOKEN})
    assert response.status == 409
    error = (await response.json())["error"]
    assert TOKEN not in error and "Lichess refused the token <token>: 401" in error


@pytest.mark.parametrize("token", [TOKEN + " and more", 12345, "", "x" * 201, TOKEN + "\u0007"])
async def test_a_malformed_lichess_token_is_a_400_that_does_not_echo_it(serve, token):
    client, _, backend = await serve()
    response = await post(client, "/api/lichess/login", {"token": token})
    assert response.status == 400
    error = (await response.json())["error"]
    assert error.startswith("token: ")
    assert not str(token) or str(token)[:8] not in error.replace("token: ", "", 1)
    assert not backend.calls


async def test_a_draw_claim_without_colour_is_made_by_the_side_to_move(serve):
    client, _, backend = await serve()
    backend.claims = ["threefold repetition"]
    assert (await post(client, "/api/game/draw", {"action": "claim"})).status == 200
    assert backend.calls[-1] == ("draw", "claim", "white")


async def test_a_command_impossible_now_is_a_409_with_the_reason(serve):
    client, _, backend = await serve()
    response = await post(client, "/api/game/draw", {"action": "claim", "color": "white"})
    assert response.status == 409
    said = await response.json()
    assert said["error"].startswith("no draw can be claimed now") and error_in(said, "fr").startswith("aucune nulle")


@pytest.mark.parametrize("path, body, words", [
    ("/api/game/resign", {"color": "green"}, "color: expected one of 'white', 'black', got 'green'"),
    ("/api/game/resign", {}, "color: required"),
    ("/api/game/resign", {"color": "white", "extra": 1}, "unknown field 'extra'"),
    ("/api/game/resign", [1, 2], "expected a JSON object"),
    ("/api/game/resign", "{not json", "the body is not valid JSON"),
    ("/api/game/promotion", {"piece": "k"}, "piece: expected one of"),
    ("/api/game/new", {"white": "x" * 61}, "white: expected 0 to 60 characters, got 61"),
    ("/api/game/new", {"white": "a\u0000b"}, "white: control characters are not allowed"),
    ("/api/game/new", {"rules": 3}, "rules: expected one of"),
    ("/api/settings", {"brightness": 2}, "brightness: expected a number from 0 to 1, got 2"),
    ("/api/settings", {"brightness": True}, "brightness: expected a number, got True"),
    ("/api/settings", {"engine_level": 2.5}, "engine_level: expected a whole number"),
    ("/api/settings", {}, "no setting given"),
    ("/api/game/draw", {"action": "offer"}, "color: required to offer"),
    ("/api/game/new", {"time_control": "banana"}, "time_control: not a time control"),
    ("/api/game/new", {"fen": "8/8/8/8/8/8/8/8 w - - 0 1"}, "fen: not a usable FEN (white must have exactly one king"),
    ("/api/game/new", {"opponent": "stockfish"}, "opponent: expected one of 'none', 'engine', 'lichess'"),
    ("/api/game/new", {"opponent": "engine", "engine_side": "green"}, "engine_side: expected one of"),
    ("/api/game/new", {"opponent": "engine", "engine_level": 21}, "engine_level: expected a number from 0 to 20"),
    ("/api/game/new", {"opponent": "none", "engine_level": 3}, "engine_level: only for a game against the engine"),
    ("/api/game/new", {"opponent": "lichess", "engine_side": "white"}, "engine_side: only for a game against"),
    ("/api/game/takeover", {"color": "both"}, "color: expected one of 'white', 'black'"),
    ("/api/game/takeover", {}, "color: required"),
    ("/api/game/takeback-offer", {"action": "offer"}, "action: expected one of 'accept', 'decline'"),
    ("/api/game/takeback-offer", {"action": "accept", "color": "white"}, "unknown field 'color'"),
    ("/api/lichess/login", {}, "token: required"),
    ("/api/lichess/login", {"token": "abc", "user": "anna"}, "unknown field 'user'"),
    ("/api/lichess/logout", {"now": 1}, "unknown field 'now'"),
    ("/api/settings", {"engine_elo": -5}, "engine_elo: expected a number from 0 to 4000"),
    ("/api/settings", {"engine_move_time": 0}, "engine_move_time: expected a number from 0.05 to 60"),
    ("/api/settings", {"engine_move_time": "1"}, "engine_move_time: expected a number, got '1'"),
])
async def test_bad_bodies_are_400s_that_say_what_is_wrong(serve, path, body, words):
    client, _, backend = await serve()
    response = await post(client, path, body)
    assert response.status == 400
    assert words in (await response.json())["error"]
    assert not backend.calls


async def test_a_body_must_be_declared_json(serve):
    client, _, _ = await serve()
    response = await client.post("/api/game/resign", data="color=white",
                                 headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert response.status == 415


async def test_a_request_from_another_site_is_refused(serve):
    client, _, backend = await serve()
    response = await post(client, "/api/game/resign", {"color": "white"}, headers={"Origin": "http://evil.example"})
    assert response.status == 403 and not backend.calls
    same = await post(client, "/api/game/resign", {"color": "white"},
                      headers={"Origin": f"http://{client.server.host}:{client.server.port}"})
    assert same.status == 200


async def test_a_simulator_refuses_changes_addressed_to_another_host(serve):
    """Another name is misdirected whatever the request (421: tests/web/test_misdirected.py); without
    pairing, a change must moreover come by a loopback name, not by the machine's other names."""
    from netserver.host_names import HostNames

    client, _, backend = await serve(names=HostNames(["chess.home.arpa"], hostname="echiquier"))
    rebound = await post(client, "/api/game/resign", {"color": "white"}, headers={"Host": "evil.example:8080"})
    assert rebound.status == 421 and not backend.calls
    for name in ("echiquier.local:8080", "chess.home.arpa:8080"):
        named = await post(client, "/api/game/resign", {"color": "white"}, headers={"Host": name})
        assert named.status == 403 and not backend.calls
        assert (await client.get("/api/state", headers={"Host": name})).status == 200
    local = await post(client, "/api/game/resign", {"color": "white"}, headers={"Host": "localhost:8080"})
    assert local.status == 200


async def test_a_huge_body_is_refused(serve):
    client, _, _ = await serve()
    response = await post(client, "/api/game/new", {"white": "x" * 100_000})
    assert response.status == 413
    assert "error" in await response.json()


async def test_an_unknown_path_is_a_json_404(serve):
    client, _, _ = await serve()
    response = await client.get("/api/nothing")
    assert response.status == 404 and "error" in await response.json()


async def test_a_failure_inside_is_a_500_without_a_stack_trace(serve, caplog):
    client, _, backend = await serve()

    def broken(color, now):
        raise KeyError("secret detail")
    backend.resign = broken
    response = await post(client, "/api/game/resign", {"color": "white"})
    assert response.status == 500
    text = await response.text()
    assert "Traceback" not in text and "secret" not in text and "internal error" in text
    assert "secret detail" in caplog.text


# -- pairing ------------------------------------------------------------------------------------------

async def test_on_the_lan_a_change_without_the_code_is_refused_but_reading_is_free(serve):
    client, _, backend = await serve(code="351624")
    response = await post(client, "/api/game/resign", {"color": "white"})
    assert response.status == 403
    assert (await response.json())["pairing"] is True
    assert not backend.calls
    assert (await client.get("/api/state")).status == 200
    assert (await client.get("/api/games")).status == 200
    ws = await client.ws_connect("/ws")
    hello = json.loads((await ws.receive(timeout=2)).data)
    assert hello["pairing_required"] is True and hello["paired"] is False
    await ws.close()


CHANGES = [
    ("/api/game/new", {"opponent": "engine", "engine_side": "black"}),
    ("/api/game/takeover", {"color": "black"}),
    ("/api/game/takeback-offer", {"action": "accept"}),
    ("/api/lichess/login", {"token": TOKEN}),
    ("/api/lichess/logout", {}),
    ("/api/settings", {"engine_level": 4}),
]


@pytest.mark.parametrize("path, body", CHANGES)
async def test_on_the_lan_every_new_command_needs_the_code(serve, path, body):
    client, _, backend = await serve(code="351624")
    refused = await post(client, path, body)
    assert refused.status == 403 and (await refused.json())["pairing"] is True
    wrong = await post(client, path, body, headers={"X-Pairing-Code": "111111"})
    assert wrong.status == 403
    assert not backend.calls
    backend.takeback_offer = "black"
    allowed = await post(client, path, body, headers={"X-Pairing-Code": "351624"})
    assert allowed.status == 200, await allowed.text()
    assert len(backend.calls) == 1


async def test_pairing_sets_a_cookie_that_opens_the_commands(serve):
    client, _, backend = await serve(code="351624")
    assert (await post(client, "/api/pair", {"code": "000000"})).status == 403
    response = await post(client, "/api/pair", {"code": "351 624"})
    assert response.status == 200
    morsel = response.cookies[COOKIE]
    assert morsel["httponly"] and morsel["samesite"] == "Strict"
    assert (await post(client, "/api/game/resign", {"color": "white"})).status == 200
    assert backend.calls == [("resign", "white")]
    ws = await client.ws_connect("/ws")
    assert json.loads((await ws.receive(timeout=2)).data)["paired"] is True
    await ws.close()


async def test_the_code_may_be_given_in_a_header_by_scripts(serve):
    client, _, backend = await serve(code="351624")
    response = await post(client, "/api/game/resign", {"color": "white"}, headers={"X-Pairing-Code": "351624"})
    assert response.status == 200
    wrong = await post(client, "/api/game/resign", {"color": "white"}, headers={"X-Pairing-Code": "111111"})
    assert wrong.status == 403


async def test_a_forged_cookie_does_not_pair(serve):
    client, _, backend = await serve(code="351624")
    client.session.cookie_jar.update_cookies({COOKIE: "0" * 32 + "." + "0" * 64})
    assert (await post(client, "/api/game/resign", {"color": "white"})).status == 403


async def test_guessing_codes_is_rate_limited_and_the_limit_passes_with_time(serve, clock):
    client, _, _ = await serve(code="351624")
    for guess in ("111111", "222222", "333333", "444444", "555555"):
        assert (await post(client, "/api/pair", {"code": guess})).status == 403
    limited = await post(client, "/api/pair", {"code": "351624"})
    assert limited.status == 429
    assert int(limited.headers["Retry-After"]) == 600
    header_too = await post(client, "/api/game/resign", {"color": "white"}, headers={"X-Pairing-Code": "351624"})
    assert header_too.status == 429
    clock.advance(601)
    assert (await post(client, "/api/pair", {"code": "351624"})).status == 200


async def test_the_pairing_code_is_itself_validated(serve):
    client, _, _ = await serve(code="351624")
    assert (await post(client, "/api/pair", {"code": 351624})).status == 400
    assert (await post(client, "/api/pair", {"code": "1" * 100})).status == 400


async def test_the_simulator_routes_exist_only_in_the_simulator(serve):
    client, _, _ = await serve()
    assert (await post(client, "/api/sim/click", {"square": "e2"})).status == 404


async def test_a_correction_is_checked_at_the_edge_and_refused_in_words(serve):
    client, _, _ = await serve()
    for body in ({"move": 5}, {"move": "e2"}, {"move": "e2e4e5x"}, {}):
        response = await post(client, "/api/game/correct", body)
        assert response.status == 400 and "move" in (await response.json())["error"]
    refused = await post(client, "/api/game/correct", {"move": "c2c8"})
    assert refused.status == 409 and (await refused.json())["error"]   # the fake has no move to correct
