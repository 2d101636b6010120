"""A command refused is a 409 in the player's words, English and French, saying what to do (issue 26.10)."""
from __future__ import annotations

import json

import pytest

from .test_session_backend import Table
from tests.said import both, error_in

JSON = {"Content-Type": "application/json"}


async def post(client, path, body):
    return await client.post(path, data=json.dumps(body), headers=JSON)


async def test_the_sessions_refusals_come_in_both_languages(serve, tmp_path):
    table = Table(tmp_path)
    client, _, _ = await serve(backend=table.backend)
    table.move("e2", "e4")
    refused = await post(client, "/api/game/takeback", {})
    assert refused.status == 409
    assert both(await refused.json()) == ("takebacks are not allowed in this game: switch them on in the settings first", "les reprises ne sont pas permises dans cette partie : activez-les d'abord dans les réglages")
    assert (await post(client, "/api/game/resign", {"color": "black"})).status == 200
    again = await (await post(client, "/api/game/resign", {"color": "white"})).json()
    assert both(again) == ("the game is over (White wins by resignation)", "la partie est terminée (Les Blancs gagnent par abandon)")


async def test_a_click_on_a_square_that_holds_a_piece_says_what_to_do(serve):
    """The quick third click of the simulator: the page still thought a8 empty."""
    client, _, _ = await serve(sim=True)
    assert (await post(client, "/api/sim/lift", {"square": "b8"})).status == 200
    refused = await post(client, "/api/sim/place", {"square": "a8"})
    assert refused.status == 409
    assert both(await refused.json()) == ("a8 already holds a piece: click it again to lift it, or put the piece in the hand down on an "
                 "empty square", "a8 porte déjà une pièce : cliquez de nouveau dessus pour la soulever, ou posez la pièce en "
                    "main sur une case vide")
    empty = await (await post(client, "/api/sim/lift", {"square": "e4"})).json()
    assert error_in(empty, "fr") == "il n'y a pas de pièce en e4 : cliquez sur une pièce pour la soulever"


async def test_what_a_board_cannot_do_is_refused_in_both_languages(serve):
    client, _, _ = await serve()
    refused = await post(client, "/api/game/correct", {"move": "c2c8"})
    assert refused.status == 409
    assert both(await refused.json()) == ("no move to correct", "aucun coup à corriger")


# -- issue 26.10's gaps: the pairing answers, the misdirected and the bad-input ones (400) ----------

CODE = "35162478"
ENGLISH_WORDS = ("the ", " is ", "expected", " got ", "required", "must ", "not ", "this board", "wrong", "too many")


def _french_only(answer: dict) -> str:
    """The answer's French, checked to hold no English sentence (names, keys and values excepted)."""
    french = error_in(answer, "fr")
    assert french and french != answer["error"]
    assert not [w for w in ENGLISH_WORDS if w in french], french
    return french


async def test_the_pairing_answers_come_in_both_languages(serve):
    client, _, _ = await serve(code=CODE)
    needed = await post(client, "/api/game/resign", {"color": "white"})
    assert needed.status == 403
    said = await needed.json()
    assert said["error"] == "this board needs its pairing code to change anything" and said["pairing"] is True
    assert _french_only(said) == "cet échiquier demande son code d'appairage pour tout changement"
    wrong = await client.post("/api/game/resign", data=json.dumps({"color": "white"}),
                              headers={**JSON, "X-Pairing-Code": "11111111"})
    assert wrong.status == 403 and _french_only(await wrong.json()) == "code d'appairage erroné"
    for _ in range(4):   # five wrong codes in all from this device: the next is limited
        pair = await post(client, "/api/pair", {"code": "22222222"})
    assert pair.status == 403 and (await pair.json())["error"] == "wrong pairing code"
    limited = await post(client, "/api/pair", {"code": "33333333"})
    assert limited.status == 429
    said = await limited.json()
    assert said["error"].startswith("too many wrong codes: try again in ")
    assert _french_only(said).startswith("trop de codes erronés : réessayez dans ")


async def test_another_sites_request_and_a_misdirected_one_are_refused_in_both_languages(serve):
    client, _, _ = await serve()
    other = await client.post("/api/game/resign", data=json.dumps({"color": "white"}),
                              headers={**JSON, "Origin": "http://evil.example"})
    assert other.status == 403
    assert _french_only(await other.json()) == "les demandes venant d'un autre site sont refusées"
    host = f"evil.example:{client.server.port}"
    misdirected = await client.get("/api/state", headers={"Host": host})
    assert misdirected.status == 421
    said = await misdirected.json()
    assert "[web] hosts" in said["error"] and "evil.example" in error_in(said, "fr")
    assert _french_only(said).startswith("cet échiquier ne répond pas au nom 'evil.example'")
    form = await client.post("/api/game/resign", data="color=white",
                             headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert form.status == 415 and error_in(await form.json(), "fr").startswith("le corps doit être du JSON")


@pytest.mark.parametrize("path, body, english, french", [
    ("/api/game/resign", {"color": "green"}, "color: expected one of 'white', 'black', got 'green'",
     "color : l'une de ces valeurs est attendue : 'white', 'black', pas 'green'"),
    ("/api/game/resign", {"colour": "white"}, "unknown field 'colour' (known fields: color)",
     "champ inconnu 'colour' (champs connus : color)"),
    ("/api/game/resign", {}, "color: required", "color : obligatoire"),
    ("/api/settings", {}, "no setting given", "aucun réglage donné"),
    ("/api/game/draw", {"action": "offer"}, "color: required to offer, accept or decline a draw",
     "color : obligatoire pour proposer, accepter ou refuser une nulle"),
    ("/api/game/new", {"time_control": "banana"}, "time_control: not a time control (",
     "time_control : ce n'est pas une cadence (écrivez-la par exemple « 300+3 » : 300 s, plus 3 s par coup)"),
    ("/api/game/new", {"fen": "8/8/8/8/8/8/8/8 w - - 0 1"}, "fen: not a usable FEN (white must have exactly one king",
     "fen : ce n'est pas une position FEN utilisable"),
    ("/api/game/new", {"white": "a" * 61}, "white: expected 0 to 60 characters, got 61",
     "white : de 0 à 60 caractères sont attendus, pas 61"),
    ("/api/game/new", {"opponent": "none", "engine_level": 3},
     'engine_level: only for a game against the engine (opponent "engine")',
     "engine_level : seulement pour une partie contre l'ordinateur (opponent « engine »)"),
    ("/api/lichess/login", {"token": "two words"}, "token: expected one word without spaces or control characters",
     "token : un seul mot est attendu, sans espace ni caractère de contrôle"),
])
async def test_a_request_that_cannot_be_used_is_a_400_in_both_languages(serve, path, body, english, french):
    client, _, _ = await serve()
    answer = await post(client, path, body)
    assert answer.status == 400
    said = await answer.json()
    assert said["error"].startswith(english), said["error"]
    assert _french_only(said) == french


async def test_a_body_that_is_not_json_is_a_400_in_both_languages(serve):
    client, _, _ = await serve()
    answer = await client.post("/api/game/resign", data="{not json", headers=JSON)
    said = await answer.json()
    assert answer.status == 400 and said["error"].startswith("the body is not valid JSON")
    assert _french_only(said) == "le corps n'est pas du JSON utilisable"
    answer = await client.post("/api/game/resign", data=b"\xff\xfe", headers=JSON)
    assert error_in(await answer.json(), "fr") == "le corps n'est pas du texte UTF-8"
