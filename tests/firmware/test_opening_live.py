"""A game's opening live in the session's state (and its JSON) and in its PGN's ECO and Opening tags, as the board plays it."""
from __future__ import annotations

import io

import chess.pgn

from firmware.openings import BOOK
from firmware.session.state import to_json
from tests.firmware.session_support import Table
from tests.web.test_state_schema import assert_conforms


def pgn_of(table: Table) -> chess.pgn.Game:
    record = table.session.file.record
    assert record is not None
    path = table.session.file.recorder.pgn_path(record)
    game = chess.pgn.read_game(io.StringIO(path.read_text(encoding="utf-8")))
    assert game is not None
    return game


def test_the_opening_shows_live_and_goes_into_the_pgn_tags(tmp_path):
    BOOK.index()   # built (the service builds it in a thread of its own; see the next test)
    table = Table(tmp_path)
    table.setup()
    assert to_json(table.session.state(table.t))["opening"] is None
    table.play_all("e2e4 c7c5")
    state = table.session.state(table.t)
    assert (state.opening.eco, state.opening.name) == ("B20", "Sicilian Defense")
    assert to_json(state)["opening"] == {"eco": "B20", "name": "Sicilian Defense", "ply": 2}
    assert_conforms(to_json(state))   # docs/state.schema.json
    assert pgn_of(table).headers["ECO"] == "B20" and pgn_of(table).headers["Opening"] == "Sicilian Defense"
    table.play_all("b1c3 b8c6")
    assert to_json(table.session.state(table.t))["opening"]["name"] == "Sicilian Defense: Closed, Traditional"
    headers = pgn_of(table).headers
    assert (headers["ECO"], headers["Opening"]) == ("B23", "Sicilian Defense: Closed, Traditional")


def test_a_game_that_reaches_no_named_position_has_no_opening_tags(tmp_path):
    BOOK.index()
    table = Table(tmp_path, fen="4k3/8/8/8/8/8/4P3/4K3 w - - 0 1")
    table.setup("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1")
    table.play_all("e2e4 e8d7")
    assert table.session.game.moves and to_json(table.session.state(table.t))["opening"] is None
    headers = pgn_of(table).headers
    assert "ECO" not in headers and "Opening" not in headers
