"""Gestures: results set with the kings on the centre (DGT style), taken back, and the promotion cycle; time by hand."""
from __future__ import annotations

from chess_core import BISHOP, BLACK, KNIGHT, QUEEN, ROOK, WHITE, Position, parse_square
from firmware.referee.gestures import (DrawGesture, GestureTracker, GestureUndone, Resign,
                                       draw_decision, next_promotion)

START = Position()
FULL = START.occupied
KINGS = (parse_square("e1"), parse_square("e8"))


def bit(name: str) -> int:
    return 1 << parse_square(name)


def kings_on(*names: str, expected: int = FULL, home=("e1", "e8")) -> int:
    """The board of ``expected`` with the kings taken from ``home`` and set on ``names``."""
    occ = expected
    for name in home:
        occ &= ~bit(name)
    for name in names:
        occ |= bit(name)
    return occ


# An opening where the centre is free: 1. Nf3 Nf6 (the kings still at home).
OPEN = FULL


def test_holding_the_king_off_the_board_is_never_a_resignation():
    g = GestureTracker(resign_s=3.0)
    assert g.observe(10.0, FULL & ~bit("e1"), FULL, KINGS, WHITE) == []
    assert g.next_deadline() is None and g.progress(12.0) is None
    assert g.poll(30.0) == []      # 20 s in the hand, thinking
    assert g.observe(30.5, FULL, FULL, KINGS, WHITE) == []


def test_both_kings_lifted_are_no_gesture():
    g = GestureTracker()
    g.observe(1.0, FULL & ~bit("e1") & ~bit("e8"), FULL, KINGS, WHITE)
    assert g.next_deadline() is None and g.poll(20.0) == []


def test_kings_on_the_light_centre_squares_build_up_to_white_wins():
    g = GestureTracker(resign_s=3.0)
    g.observe(1.0, FULL & ~bit("e1"), FULL, KINGS, BLACK)
    g.observe(1.3, FULL & ~bit("e1") & ~bit("e8"), FULL, KINGS, BLACK)
    g.observe(1.6, kings_on("d5"), FULL, KINGS, BLACK)
    assert g.next_deadline() is None
    assert g.observe(2.0, kings_on("d5", "e4"), FULL, KINGS, BLACK) == []
    assert g.next_deadline() == 5.0
    p = g.progress(3.5)
    assert (p.kind, p.result, p.fired, p.left, p.squares) == ("resign", "1-0", False, 1.5, bit("d5") | bit("e4"))
    assert p.fraction == 0.5 and p.to_json()["left_ms"] == 1500
    assert g.poll(4.9) == []
    assert g.poll(5.0) == [Resign(BLACK)]   # 1-0: Black resigned
    assert g.poll(6.0) == []                  # once


def test_kings_on_the_dark_centre_squares_mean_black_wins():
    g = GestureTracker(resign_s=3.0)
    g.observe(2.0, kings_on("d4", "e5"), FULL, KINGS, WHITE)
    assert g.poll(5.0) == [Resign(WHITE)]


def test_one_king_on_a_light_and_one_on_a_dark_square_is_a_draw():
    for squares in (("d4", "e4"), ("d5", "e5"), ("d4", "d5"), ("e4", "e5")):
        g = GestureTracker(draw_s=2.0)
        g.observe(1.0, kings_on(*squares), FULL, KINGS, WHITE)
        assert g.progress(1.0).result == "1/2-1/2"
        assert g.poll(3.0) == [DrawGesture(together=True)], squares


def test_taking_a_king_off_the_centre_cancels_the_countdown():
    g = GestureTracker(resign_s=3.0)
    g.observe(2.0, kings_on("d5", "e4"), FULL, KINGS, WHITE)
    g.observe(3.0, kings_on("d5"), FULL, KINGS, WHITE)
    assert g.next_deadline() is None and g.progress(3.0) is None
    assert g.poll(10.0) == []


def test_moving_a_king_to_another_centre_square_starts_again_with_its_result():
    g = GestureTracker(resign_s=3.0, draw_s=2.0)
    g.observe(2.0, kings_on("d5", "e4"), FULL, KINGS, WHITE)
    g.observe(4.0, kings_on("d5", "e5"), FULL, KINGS, WHITE)   # changed its mind: a draw
    assert g.poll(5.9) == [] and g.poll(6.0) == [DrawGesture(together=True)]


def test_anything_else_out_of_place_is_no_gesture():
    g = GestureTracker()
    g.observe(2.0, kings_on("d5", "e4") & ~bit("a2"), FULL, KINGS, WHITE)   # a pawn in the hand too
    assert g.next_deadline() is None
    g.observe(2.5, kings_on("d5", "e4", "c4"), FULL, KINGS, WHITE)
    assert g.next_deadline() is None


def test_a_king_already_on_the_centre_counts_where_it_stands():
    pos = Position("8/8/8/8/4K3/8/8/7k w - - 0 1")   # White's king on e4 (light)
    kings = (pos.king[0], pos.king[1])
    occ = (pos.occupied & ~bit("h1")) | bit("d5")     # Black's king brought to d5 beside it
    g = GestureTracker(resign_s=3.0)
    g.observe(1.0, occ, pos.occupied, kings, WHITE)
    assert g.poll(4.0) == [Resign(BLACK)]


def test_colours_must_show_one_king_of_each_side():
    g = GestureTracker(resign_s=3.0)
    white, black = START.bb_color
    occ = kings_on("d5", "e4")
    both_white = (white & ~bit("e1")) | bit("d5") | bit("e4")
    g.observe(1.0, occ, FULL, KINGS, WHITE, both_white, black & ~bit("e8"))
    assert g.next_deadline() is None
    g.observe(1.5, occ, FULL, KINGS, WHITE, (white & ~bit("e1")) | bit("d5"), (black & ~bit("e8")) | bit("e4"))
    assert g.next_deadline() == 4.5


def test_a_result_by_gesture_is_taken_back_by_putting_the_kings_home_in_time():
    g = GestureTracker(resign_s=3.0, undo_s=5.0)
    g.observe(2.0, kings_on("d4", "e5"), FULL, KINGS, WHITE)
    assert g.poll(5.0) == [Resign(WHITE)]
    assert g.undoable(9.9) and not g.undoable(10.0)
    p = g.progress(6.0)
    assert p.fired and p.left == 4.0
    g.observe(6.5, kings_on("e5"), FULL, KINGS, WHITE)
    assert g.observe(7.0, FULL, FULL, KINGS, WHITE) == [GestureUndone("0-1")]
    assert g.hold is None and g.next_deadline() is None


def test_a_result_by_gesture_is_final_after_the_undo_time():
    g = GestureTracker(resign_s=3.0, undo_s=5.0)
    g.observe(2.0, kings_on("d4", "e5"), FULL, KINGS, WHITE)
    g.poll(5.0)
    assert g.next_deadline() == 10.0
    assert g.poll(10.0) == [] and g.progress(10.0) is None
    assert g.observe(11.0, FULL, FULL, KINGS, WHITE) == []


def test_draw_decision():
    kings, button = DrawGesture(together=True), DrawGesture()
    assert draw_decision(kings, True, True, True) == "claim"
    assert draw_decision(kings, False, True, False) == "accept"
    assert draw_decision(kings, False, False, False) == "agree"
    assert draw_decision(kings, False, False, True) == "offer"
    assert draw_decision(button, False, False, False) == "offer"


def test_lifting_and_replacing_a_piece_is_no_gesture():
    # the usual promotion exchange (pawn off, new piece on) looks just like it: it must choose nothing
    g = GestureTracker()
    expected = FULL
    for t in (1.0, 2.0, 3.0):
        assert g.observe(t, expected & ~bit("e1"), expected, (-1, KINGS[1]), BLACK) == []
        assert g.observe(t + 0.4, expected, expected, (-1, KINGS[1]), BLACK) == []
    assert g.next_deadline() is None


def test_the_promotion_cycle_order():
    assert [next_promotion(p) for p in (QUEEN, ROOK, BISHOP, KNIGHT)] == [ROOK, BISHOP, KNIGHT, QUEEN]
