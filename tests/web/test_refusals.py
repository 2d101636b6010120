"""A command refused is a 409 in the player's words, English and French, saying what to do (issue 26.10)."""
from __future__ import annotations

import json

from .test_session_backend import Table

JSON = {"Content-Type": "application/json"}


async def post(client, path, body):
    return await client.post(path, data=json.dumps(body), headers=JSON)


async def test_the_sessions_refusals_come_in_both_languages(serve, tmp_path):
    table = Table(tmp_path)
    client, _, _ = await serve(backend=table.backend)
    table.move("e2", "e4")
    refused = await post(client, "/api/game/takeback", {})
    assert refused.status == 409
    assert await refused.json() == {
        "error": "takebacks are not allowed in this game: switch them on in the settings first",
        "error_fr": "les reprises ne sont pas permises dans cette partie : activez-les d'abord dans les réglages"}
    assert (await post(client, "/api/game/resign", {"color": "black"})).status == 200
    again = await (await post(client, "/api/game/resign", {"color": "white"})).json()
    assert again == {"error": "the game is over (White wins by resignation)",
                     "error_fr": "la partie est terminée (Les Blancs gagnent par abandon)"}


async def test_a_click_on_a_square_that_holds_a_piece_says_what_to_do(serve):
    """The quick third click of the simulator: the page still thought a8 empty."""
    client, _, _ = await serve(sim=True)
    assert (await post(client, "/api/sim/lift", {"square": "b8"})).status == 200
    refused = await post(client, "/api/sim/place", {"square": "a8"})
    assert refused.status == 409
    assert await refused.json() == {
        "error": "a8 already holds a piece: click it again to lift it, or put the piece in the hand down on an "
                 "empty square",
        "error_fr": "a8 porte déjà une pièce : cliquez de nouveau dessus pour la soulever, ou posez la pièce en "
                    "main sur une case vide"}
    empty = await (await post(client, "/api/sim/lift", {"square": "e4"})).json()
    assert empty["error_fr"] == "il n'y a pas de pièce en e4 : cliquez sur une pièce pour la soulever"


async def test_what_a_board_cannot_do_is_refused_in_both_languages(serve):
    client, _, _ = await serve()
    refused = await post(client, "/api/game/correct", {"move": "c2c8"})
    assert refused.status == 409
    assert await refused.json() == {"error": "no move to correct", "error_fr": "aucun coup à corriger"}
