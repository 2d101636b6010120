"""Gestures: resigning, drawing and choosing a promotion with the pieces, time driven by hand."""
from __future__ import annotations

from chess_core import BISHOP, BLACK, KNIGHT, QUEEN, ROOK, WHITE, Position, parse_square
from firmware.referee.gestures import (CyclePromotion, DrawGesture, GestureTracker, Resign, next_promotion)

START = Position()
FULL = START.occupied
KINGS = (parse_square("e1"), parse_square("e8"))


def bit(name: str) -> int:
    return 1 << parse_square(name)


def test_holding_the_king_of_the_side_to_move_off_the_board_resigns():
    g = GestureTracker(resign_s=3.0)
    assert g.observe(10.0, FULL & ~bit("e1"), FULL, KINGS, WHITE) == []
    assert g.next_deadline() == 13.0
    assert g.poll(12.9) == []
    assert g.poll(13.0) == [Resign(WHITE)]
    assert g.poll(14.0) == []  # once
    assert g.next_deadline() is None


def test_putting_the_king_back_in_time_cancels_the_resignation():
    g = GestureTracker()
    g.observe(10.0, FULL & ~bit("e1"), FULL, KINGS, WHITE)
    assert g.observe(12.0, FULL, FULL, KINGS, WHITE) == []
    assert g.poll(20.0) == [] and g.next_deadline() is None


def test_the_king_of_the_side_not_to_move_does_not_resign():
    g = GestureTracker()
    g.observe(10.0, FULL & ~bit("e8"), FULL, KINGS, WHITE)
    assert g.poll(20.0) == []


def test_a_king_move_in_progress_is_not_a_resignation():
    g = GestureTracker()
    g.observe(10.0, FULL & ~bit("e1"), FULL, KINGS, WHITE)
    g.observe(11.0, (FULL & ~bit("e1")) | bit("e4"), FULL, KINGS, WHITE)  # king placed elsewhere
    assert g.poll(20.0) == []


def test_black_resigns_on_its_turn():
    g = GestureTracker()
    assert g.observe(5.0, FULL & ~bit("e8"), FULL, KINGS, BLACK) == []
    assert g.observe(8.5, FULL & ~bit("e8"), FULL, KINGS, BLACK) == [Resign(BLACK)]


def test_both_kings_lifted_together_make_a_draw_gesture():
    g = GestureTracker(draw_s=2.0)
    g.observe(1.0, FULL & ~bit("e1"), FULL, KINGS, WHITE)     # first king...
    g.observe(1.5, FULL & ~bit("e1") & ~bit("e8"), FULL, KINGS, WHITE)   # ...then both
    assert g.next_deadline() == 3.5
    assert g.poll(3.4) == []
    assert g.poll(3.5) == [DrawGesture()]
    # the first king alone would have resigned at 4.0: the draw replaced that hold
    assert g.poll(10.0) == []


def test_lifting_and_replacing_a_promoted_piece_cycles_it():
    g = GestureTracker()
    g.promotion_made(parse_square("e1"))  # any square: what matters is the lift and replace
    expected = FULL
    assert g.observe(1.0, expected & ~bit("e1"), expected, (-1, KINGS[1]), BLACK) == []
    assert g.observe(1.4, expected, expected, (-1, KINGS[1]), BLACK) == [CyclePromotion(parse_square("e1"))]
    assert g.observe(1.8, expected & ~bit("e1"), expected, (-1, KINGS[1]), BLACK) == []
    assert g.observe(2.0, expected, expected, (-1, KINGS[1]), BLACK) == [CyclePromotion(parse_square("e1"))]
    g.promotion_closed()
    g.observe(3.0, expected & ~bit("e1"), expected, (-1, KINGS[1]), BLACK)
    assert g.observe(3.5, expected, expected, (-1, KINGS[1]), BLACK) == []


def test_a_capture_of_the_promoted_piece_is_not_a_cycle():
    g = GestureTracker()
    g.promotion_made(parse_square("d1"))
    g.observe(1.0, FULL & ~bit("d1"), FULL, KINGS, BLACK)              # the queen taken off...
    g.observe(1.2, FULL & ~bit("d1") & ~bit("d8"), FULL, KINGS, BLACK)  # ...the taker lifted
    assert g.observe(1.5, FULL & ~bit("d8"), FULL, KINGS, BLACK) == []    # ...and put on d1


def test_the_promotion_cycle_order():
    assert [next_promotion(p) for p in (QUEEN, ROOK, BISHOP, KNIGHT)] == [ROOK, BISHOP, KNIGHT, QUEEN]
