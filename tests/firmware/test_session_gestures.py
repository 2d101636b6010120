"""Gestures through the whole session: resigning, drawing and choosing a promoted piece."""
from __future__ import annotations

import chess.pgn

from chess_core import BISHOP, KNIGHT, QUEEN, ROOK, WHITE, parse_square
from firmware.referee.feedback import LedStyle

from .session_support import Table

STYLE = LedStyle()
PROMOTION_FEN = "8/1P5k/8/8/8/8/6p1/K7 w - - 0 1"


def test_holding_the_king_off_the_board_resigns(tmp_path):
    table = Table(tmp_path)
    table.setup()
    table.play_all("e2e4 e7e5")
    table.lift("e1", wait=1.5)
    assert not table.session.game.is_over
    assert table.lit_names(STYLE.loss, blink_on=True) == {"e1"}  # the warning before it happens
    table.wait(1.6)
    snap = table.session.snapshot()
    assert snap["status"] == "Black wins by resignation"
    pgn = chess.pgn.read_game(open(table.session.recorder.pgn_path(table.session.record)))
    assert pgn.headers["Result"] == "0-1"


def test_a_king_move_is_not_a_resignation(tmp_path):
    table = Table(tmp_path)
    table.setup()
    table.play_all("e2e4 e7e5")
    table.lift("e1", wait=2.0)
    table.place("e2", wait=5)
    assert not table.session.game.is_over
    assert table.session.game.moves[-1].uci() == "e1e2"


def test_gestures_can_be_switched_off(tmp_path):
    table = Table(tmp_path, gestures="enabled = false")
    table.setup()
    table.lift("e1", wait=10)
    assert not table.session.game.is_over


def test_both_kings_lifted_offer_a_draw_which_the_opponent_accepts_the_same_way(tmp_path):
    table = Table(tmp_path)
    table.setup()
    table.play_all("e2e4 e7e5")
    table.lift("e1", wait=0.3)
    table.lift("e8", wait=2.2)
    table.place("e8", wait=0.1)
    table.place("e1", wait=0.5)
    snap = table.session.snapshot()
    assert snap["draw_offer"] == "white" and not snap["over"]
    assert table.lit_names(STYLE.draw) == {"e1", "e8"}
    table.play("g1f3")  # White moves on: the offer stands for Black
    assert table.session.snapshot()["draw_offer"] == "white"
    table.lift("e8", wait=0.3)
    table.lift("e1", wait=2.2)
    assert table.session.snapshot()["status"] == "Draw by agreement"


def test_a_draw_offer_lapses_when_the_opponent_moves(tmp_path):
    table = Table(tmp_path)
    table.setup()
    table.lift("e1", wait=0.3)
    table.lift("e8", wait=2.2)
    table.place("e8", wait=0.1)
    table.place("e1", wait=0.5)
    table.play_all("e2e4 e7e5")
    assert table.session.snapshot()["draw_offer"] is None


def test_both_kings_lifted_claim_a_threefold_repetition(tmp_path):
    table = Table(tmp_path)
    table.setup()
    table.play_all("g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8", think=0.2)
    assert table.session.snapshot()["claimable_draws"] == ["threefold repetition"]
    table.lift("e1", wait=0.3)
    table.lift("e8", wait=2.2)
    assert table.session.snapshot()["status"] == "Draw by threefold repetition"


def _promote(tmp_path):
    table = Table(tmp_path, fen=PROMOTION_FEN)
    table.setup(PROMOTION_FEN)
    assert table.session.match.started
    table.play("b7b8")
    assert table.session.game.moves[-1].promotion == QUEEN
    return table


def test_lifting_and_replacing_the_new_piece_cycles_the_promotion(tmp_path):
    table = _promote(tmp_path)
    assert table.session.snapshot()["promotion_square"] == "b8"
    assert table.lit_names(STYLE.promotion, blink_on=True) == {"b8"}
    for expected in (ROOK, BISHOP, KNIGHT, QUEEN, ROOK):
        table.lift("b8")
        table.place("b8")
        assert table.session.game.moves[-1].promotion == expected
    assert [m.uci() for m in table.session.game.moves] == ["b7b8r"]
    table.play("h7h6")  # the opponent moves: the choice is final
    assert table.session.snapshot()["promotion_square"] is None
    table.lift("b8")
    table.place("b8")
    assert [m.uci() for m in table.session.game.moves] == ["b7b8r", "h7h6"]
    saved = table.session.recorder.load()
    assert saved.moves == ["b7b8r", "h7h6"]


def test_choosing_the_promotion_from_the_companion(tmp_path):
    table = _promote(tmp_path)
    table.session.choose_promotion("n")
    assert table.session.game.moves[-1].promotion == KNIGHT
    assert table.session.snapshot()["moves"]["san"] == ["b8=N"]
    assert table.session.game.turn != WHITE
    assert parse_square("b8") in table.lit


def test_buttons_do_what_the_gestures_do(tmp_path):
    import pytest
    from firmware.session.session import SessionError

    table = _promote(tmp_path)
    table.session.button("promote")
    assert table.session.game.moves[-1].promotion == ROOK
    table.session.button("draw")
    assert table.session.snapshot()["draw_offer"] == "black"
    table.session.button("resign_black")
    assert table.session.snapshot()["status"] == "White wins by resignation"
    with pytest.raises(SessionError, match="no button"):
        table.session.button("eject")
