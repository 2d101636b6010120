"""Issue 26 (13a): a Chess960 game at a club night, from the board's message to the hub's page, round PGN and restart."""
from __future__ import annotations

import json

import pytest

from chess_core.chess960 import start_fen
from club_wire.message import game_message
from club_hub.core import Hub
from club_hub.games import MessageError, check_message
from tests.firmware.session_support import Table

from .support import read_games, uci_moves
from firmware.session.game_commands import set_round
from tests.said import english

MOVES = "g2g3 g7g6 g1f3 d7d6 e1f1 d8d7 d2d3 e8c8".split()   # O-O with the rook staying; O-O-O onto the rook's square
NUMBER = 323


def played_960(tmp_path) -> Table:
    table = Table(tmp_path, variant="chess960", start_position=NUMBER, white="Ada", black="Bo")
    table.setup(start_fen(NUMBER))
    table.play_all(" ".join(MOVES))
    return table


def test_a_960_game_from_a_board_is_kept_shown_and_written_with_its_variant_and_start(tmp_path):
    table = played_960(tmp_path)
    hub = Hub(tmp_path / "hub", site="Club")
    payload = game_message("3", english(table.session.snapshot()), 1_764_000_000.0)
    assert json.loads(payload)["variant"] == "chess960"
    assert hub.receive("3", "game", payload), hub.dropped
    game = hub.boards["3"]
    assert game.moves == tuple(MOVES) and game.san[4] == "O-O" and game.san[7] == "O-O-O"
    assert game.fen == table.session.game.fen()
    view = hub.board_view("3")
    assert view["fen"] == table.session.game.fen() and view["variant"] == "chess960"
    (pgn,) = read_games(hub.round_pgn())
    assert pgn.headers["Variant"] == "Chess960" and pgn.headers["SetUp"] == "1"
    assert pgn.headers["FEN"] == start_fen(NUMBER) and uci_moves(pgn) == MOVES
    assert pgn.headers["White"] == "Ada" and pgn.headers["Board"] == "3"
    # A restarted hub reads its kept game as the same Chess960 game.
    hub.store.close()
    again = Hub(tmp_path / "hub", site="Club")
    again.load()
    assert again.boards["3"].san == game.san and '[Variant "Chess960"]' in again.round_pgn()


def test_a_960_game_continued_message_by_message_keeps_its_castling(tmp_path):
    base = {"v": 1, "board": "1", "game": "g", "sent": 1.0, "result": "*", "variant": "chess960",
            "start_fen": start_fen(NUMBER)}
    first = check_message(json.dumps({**base, "moves": MOVES[:4]}).encode(), "1")
    later = check_message(json.dumps({**base, "moves": MOVES}).encode(), "1", first)
    assert later.san[4] == "O-O" and later.san[7] == "O-O-O"


def test_a_standard_message_without_a_variant_is_still_read_and_a_wrong_variant_is_refused(tmp_path):
    base = {"v": 1, "board": "1", "game": "g", "sent": 1.0, "result": "*", "moves": ["e2e4"]}
    assert check_message(json.dumps(base).encode(), "1").moves == ("e2e4",)   # boards before the field
    with pytest.raises(MessageError, match="variant"):
        check_message(json.dumps({**base, "variant": "crazyhouse"}).encode(), "1")


def test_a_pairing_on_a_960_board_names_the_players_and_the_game_stays_960(tmp_path):
    table = Table(tmp_path, variant="chess960", start_position=NUMBER)
    table.setup(start_fen(NUMBER))
    table.play_all(" ".join(MOVES[:4]))
    set_round(table.session, "Cy", "Di", time_control="600+5", round="2")
    snap = english(table.session.snapshot())
    assert snap["players"] == {"white": "Cy", "black": "Di"} and snap["chess960"]
    assert snap["moves"]["uci"] == MOVES[:4] and table.session.config.game.chess960   # the next game too
    table.play_all(" ".join(MOVES[4:]))
    hub = Hub(tmp_path / "hub")
    assert hub.receive("1", "game", game_message("1", table.session.snapshot(), 1.0))
    assert hub.boards["1"].san[7] == "O-O-O" and hub.boards["1"].white == "Cy"
