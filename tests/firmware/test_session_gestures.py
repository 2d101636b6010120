"""Gestures through the whole session: results set with the kings on the centre, taken back, and the promote button."""
from __future__ import annotations

import chess.pgn

from chess_core import BISHOP, KNIGHT, QUEEN, ROOK, WHITE, parse_square
from firmware.referee.feedback import LedStyle

from firmware.session.state import Phase
from firmware.session.game_commands import button, choose_promotion

from .session_support import Table

STYLE = LedStyle()
PROMOTION_FEN = "8/1P5k/8/8/8/8/6p1/K7 w - - 0 1"


def test_holding_the_king_while_thinking_never_resigns(tmp_path):
    table = Table(tmp_path)
    table.setup()
    table.play_all("e2e4 e7e5")
    table.lift("e1", wait=20.0)
    assert not table.session.game.is_over and table.session.snapshot()["gesture"] is None
    table.place("e1", wait=1.0)
    table.play("g1f3")
    assert not table.session.game.is_over


def _kings_to_centre(table, white_to: str, black_to: str, wait: float = 0.3) -> None:
    table.lift("e1", wait=0.2)
    table.lift("e8", wait=0.2)
    table.place(white_to, wait=0.2)
    table.place(black_to, wait=wait)


def test_kings_on_the_light_centre_squares_count_down_then_white_wins(tmp_path):
    table = Table(tmp_path)
    table.setup()
    table.play_all("g1f3 g8f6")
    _kings_to_centre(table, "d5", "e4", wait=1.0)
    snap = table.session.snapshot()
    assert not snap["over"]
    assert snap["gesture"]["result"] == "1-0" and not snap["gesture"]["fired"]
    assert snap["problems"] == []   # a gesture on its way, not a wrong board
    assert 1500 <= snap["gesture"]["left_ms"] <= 2100
    assert {"d5", "e4"} <= table.lit_names(STYLE.loss, blink_on=True)   # the kings, and the ring filling
    assert "c3" in table.lit_names(STYLE.loss, blink_on=True)
    table.wait(2.2)
    snap = table.session.snapshot()
    assert snap["status"] == "White wins by resignation"
    pgn = chess.pgn.read_game(open(table.session.file.recorder.pgn_path(table.session.file.record)))
    assert pgn.headers["Result"] == "1-0"


def test_a_king_taken_off_the_centre_cancels_the_result(tmp_path):
    table = Table(tmp_path)
    table.setup()
    _kings_to_centre(table, "d4", "e5", wait=1.5)
    table.lift("e5", wait=5.0)
    assert not table.session.game.is_over and table.session.snapshot()["gesture"] is None


def test_a_result_by_gesture_is_taken_back_with_the_kings_home_in_time(tmp_path):
    table = Table(tmp_path)
    table.setup()
    table.play_all("g1f3 g8f6")
    _kings_to_centre(table, "d4", "e5", wait=3.5)      # dark squares: 0-1
    assert table.session.snapshot()["status"] == "Black wins by resignation"
    assert table.session.snapshot()["gesture"]["fired"]
    table.lift("d4", wait=0.2)
    table.lift("e5", wait=0.2)
    table.place("e1", wait=0.2)
    table.place("e8", wait=0.5)
    snap = table.session.snapshot()
    assert not snap["over"] and snap["gesture"] is None
    assert table.session.live and table.session.board_state.phase is Phase.PLAYING   # the game goes on (not left cleared)
    table.play("b1c3")
    assert table.session.game.moves[-1].uci() == "b1c3" and not table.session.game.is_over
    assert table.session.live
    pgn = chess.pgn.read_game(open(table.session.file.recorder.pgn_path(table.session.file.record)))
    assert pgn.headers["Result"] == "*"


def test_a_result_by_gesture_is_final_after_a_few_seconds(tmp_path):
    table = Table(tmp_path)
    table.setup()
    table.play_all("g1f3 g8f6")
    _kings_to_centre(table, "d4", "e5", wait=3.5)
    table.wait(6.0)
    table.lift("d4", wait=0.2)
    table.lift("e5", wait=0.2)
    table.place("e1", wait=0.2)
    table.place("e8", wait=0.5)
    assert table.session.snapshot()["status"] == "Black wins by resignation"


def test_gestures_can_be_switched_off(tmp_path):
    table = Table(tmp_path, gestures="enabled = false")
    table.setup()
    _kings_to_centre(table, "d5", "e4", wait=10)
    assert not table.session.game.is_over


def test_kings_on_a_light_and_a_dark_square_agree_a_draw_over_the_board(tmp_path):
    table = Table(tmp_path)
    table.setup()
    table.play_all("e2e4 e7e5")
    _kings_to_centre(table, "d4", "d5", wait=2.5)
    assert table.session.snapshot()["status"] == "Draw by agreement"


def test_the_draw_gesture_claims_a_threefold_repetition(tmp_path):
    table = Table(tmp_path)
    table.setup()
    table.play_all("g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8", think=0.2)
    assert table.session.snapshot()["claimable_draws"] == ["threefold repetition"]
    _kings_to_centre(table, "e4", "e5", wait=2.5)
    assert table.session.snapshot()["status"] == "Draw by threefold repetition"


def _promote(tmp_path):
    table = Table(tmp_path, fen=PROMOTION_FEN)
    table.setup(PROMOTION_FEN)
    assert table.session.referee.started
    table.play("b7b8")
    assert table.session.game.moves[-1].promotion == QUEEN
    return table


def test_the_promote_button_cycles_the_promotion_and_lifting_the_new_piece_does_not(tmp_path):
    table = _promote(tmp_path)
    assert table.session.snapshot()["promotion"]["square"] == "b8"
    assert table.lit_names(STYLE.promotion, blink_on=True) == {"b8"}
    for expected in (ROOK, BISHOP, KNIGHT, QUEEN, ROOK):
        button(table.session, "promote")
        table.lift("b8")   # the exchange, or straightening the piece: no choice
        table.place("b8")
        assert table.session.game.moves[-1].promotion == expected
    assert [m.uci() for m in table.session.game.moves] == ["b7b8r"]
    table.play("h7h6")  # the opponent moves: the choice is final
    assert table.session.snapshot()["promotion"] is None
    button(table.session, "promote")
    assert [m.uci() for m in table.session.game.moves] == ["b7b8r", "h7h6"]
    saved = table.session.file.recorder.load()
    assert saved.moves == ["b7b8r", "h7h6"]


def test_choosing_the_promotion_from_the_companion(tmp_path):
    table = _promote(tmp_path)
    choose_promotion(table.session, "n")
    assert table.session.game.moves[-1].promotion == KNIGHT
    assert table.session.snapshot()["moves"]["san"] == ["b8=N"]
    assert table.session.game.turn != WHITE
    assert parse_square("b8") in table.lit


def test_buttons_do_what_the_gestures_do(tmp_path):
    import pytest
    from firmware.session.session import SessionError

    table = _promote(tmp_path)
    button(table.session, "promote")
    assert table.session.game.moves[-1].promotion == ROOK
    button(table.session, "draw")
    assert table.session.snapshot()["draw_offer"] == "black"
    button(table.session, "resign_black")
    assert table.session.snapshot()["status"] == "White wins by resignation"
    with pytest.raises(SessionError, match="no button"):
        button(table.session, "eject")


def test_the_snapshot_offers_the_moves_that_explain_the_board_as_well(tmp_path):
    fen = "2r4k/8/6p1/8/8/8/2Q5/K7 w - - 0 1"
    table = Table(tmp_path, fen=fen)
    table.setup(fen)
    table.lift("c2", wait=1.0)      # the queen lands on g6 or c8, sweeping the victim off unseen
    table.lift("g6", wait=0.3)      # the LEDs show both; the hand touches g6
    table.place("g6", wait=0.5)
    assert [m.uci() for m in table.session.game.moves] == ["c2g6"]
    assert [c["uci"] for c in table.session.snapshot()["corrections"]] == ["c2c8"]


def test_a_draw_offered_too_early_by_gesture_is_told_on_the_page_until_the_next_move(tmp_path):
    from firmware.session.state import to_json
    table = Table(tmp_path, draw_offers_from_move=3)
    table.setup()
    table.play_all("e2e4 e7e5")
    button(table.session, "draw")                  # as the kings' draw gesture does
    online = to_json(table.session.state(table.t))["online"]
    assert online["notice"] == "Draw offers are allowed from move 3 on (this is move 2): play on."
    assert online["notice_fr"] == "La nulle se propose à partir du coup 3 (c’est le coup 2) : jouez."
    assert table.session.snapshot()["draw_offer"] is None
    table.play("g1f3")
    online = to_json(table.session.state(table.t))["online"]
    assert online["notice"] is None and online["notice_fr"] is None
