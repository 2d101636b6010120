"""A reviewed game's move and the engine's better move on the board's LEDs, from the library, while no game is played."""
from __future__ import annotations

from chess_core import Move, parse_square
from firmware.referee.feedback import LedStyle
from firmware.web.session_backend import SessionBackend
from tests.firmware.session_support import Table

STYLE = LedStyle()


def lit(table: Table) -> dict[str, int]:
    frame = table.session.leds_frame or ()
    return {name: frame[parse_square(name)] for name in ("e2", "e4", "d2", "d4", "g1", "f3") if frame[parse_square(name)]}


def test_a_reviewed_move_and_the_better_one_light_up_until_the_board_changes(tmp_path):
    table = Table(tmp_path)
    table.setup()
    table.play_all("e2e4 e7e5 f1c4 b8c6 d1h5 g8f6 h5f7")        # the game is over: 4. Qxf7#
    backend = SessionBackend(table.session)
    game_frame = table.session.leds_frame
    assert backend.show_on_board(Move.from_uci("e2e4"), Move.from_uci("d2d4"), table.t) is True
    assert lit(table) == {"e2": STYLE.last_move, "e4": STYLE.last_move, "d2": STYLE.legal, "d4": STYLE.legal}
    assert table.session.state(table.t).leds == table.session.leds_frame      # the page shows it too
    assert backend.show_on_board(Move.from_uci("g1f3"), Move.from_uci("g1f3"), table.t) is True
    assert lit(table) == {"g1": STYLE.legal, "f3": STYLE.legal}                 # the engine's own move: green
    assert backend.show_on_board(None, None, table.t) is True
    assert table.session.leds_frame == game_frame                               # the game's LEDs again
    backend.show_on_board(Move.from_uci("e2e4"), None, table.t)
    assert lit(table) == {"e2": STYLE.last_move, "e4": STYLE.last_move}
    table.lift("a2")                                                             # the board changed: gone
    assert "e2" not in lit(table) and "e4" not in lit(table)


def test_a_game_set_up_but_not_begun_may_show_a_review_until_a_piece_is_lifted(tmp_path):
    table = Table(tmp_path)
    table.setup()                                   # the start position: a game waits for its first move
    backend = SessionBackend(table.session)
    assert table.session.live and backend.idle()
    assert backend.show_on_board(Move.from_uci("e2e4"), Move.from_uci("d2d4"), table.t) is True
    assert lit(table) == {"e2": STYLE.last_move, "e4": STYLE.last_move, "d2": STYLE.legal, "d4": STYLE.legal}
    table.play("g1f3")                              # the game begins: its own LEDs
    assert lit(table).get("d2") is None and lit(table).get("e2") is None


def test_during_a_game_the_board_shows_the_game(tmp_path):
    table = Table(tmp_path)
    table.setup()
    table.play("e2e4")
    backend = SessionBackend(table.session)
    before = table.session.leds_frame
    assert backend.show_on_board(Move.from_uci("d2d4"), Move.from_uci("g1f3"), table.t) is False
    assert table.session.leds_frame == before
    assert backend.idle() is False
