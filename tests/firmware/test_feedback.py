"""LED feedback: which squares light up, in which colour, for each state of the session."""
from __future__ import annotations

import pytest

from chess_core import BLACK, WHITE, Move, Outcome, Position, Termination, parse_square
from firmware.config import loads_config
from firmware.referee.feedback import (FeedbackState, LedStyle, blink_on, destinations, frame, next_change)

S = LedStyle()
ON, OFF = 0.0, 0.3  # a moment when blinking squares are lit, and one when they are dark


def sq(name: str) -> int:
    return parse_square(name)


def bb(*names: str) -> int:
    out = 0
    for name in names:
        out |= 1 << sq(name)
    return out


def lit(leds, colour=None) -> set[str]:
    from chess_core import square_name
    return {square_name(s) for s, c in enumerate(leds) if c and (colour is None or c == colour)}


def test_a_quiet_board_is_dark():
    assert frame(FeedbackState(Position()), ON) == (0,) * 64


def test_a_lifted_piece_shows_its_legal_destinations():
    leds = frame(FeedbackState(Position(), lifted=bb("g1")), ON)
    assert lit(leds, S.legal) == {"f3", "h3"}
    assert lit(leds, S.lifted) == {"g1"}


def test_captures_are_shown_in_another_colour():
    pos = Position("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2")
    leds = frame(FeedbackState(pos, lifted=bb("e4")), ON)
    assert lit(leds, S.legal) == {"e5"}
    assert lit(leds, S.capture) == {"d5"}


def test_legal_squares_can_be_switched_off():
    leds = frame(FeedbackState(Position(), lifted=bb("g1"), show_legal=False), ON)
    assert lit(leds) == {"g1"}


def test_lifting_the_piece_to_be_captured_shows_the_pieces_that_can_take_it():
    pos = Position("rnbqkbnr/ppp1pppp/8/3p4/4P3/2N5/PPPP1PPP/R1BQKBNR w KQkq - 0 2")
    leds = frame(FeedbackState(pos, lifted=bb("d5")), ON)
    assert lit(leds, S.capture) == {"e4", "c3"}
    assert lit(leds, S.lifted) == {"d5"}


def test_the_last_move_and_a_check():
    pos = Position("rnbqkbnr/ppppp2p/5p2/6pQ/4P3/8/PPPP1PPP/RNB1KBNR b KQkq - 1 3")
    leds = frame(FeedbackState(pos, last_move=Move.from_uci("d1h5")), ON)
    assert lit(leds, S.last_move) == {"d1", "h5"}
    assert lit(leds, S.check) == {"e8"}


def test_squares_to_put_right_show_alone_and_steadily():
    state = FeedbackState(Position(), lifted=bb("g1"), wrong=bb("e2", "e4"), last_move=Move.from_uci("e2e4"))
    assert lit(frame(state, ON)) == {"e2", "e4"}
    assert lit(frame(state, ON), S.fix) == {"e2", "e4"}
    assert lit(frame(state, OFF), S.fix) == {"e2", "e4"}   # not only on the blink's on phase
    assert next_change(state, 0.1) is None


def test_the_opponents_move_to_carry_out():
    pos = Position("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
    state = FeedbackState(pos, opponent_move=Move.from_uci("e7e5"))
    assert lit(frame(state, ON), S.opponent) == {"e7", "e5"}
    assert lit(frame(state, OFF), S.opponent) == {"e5"}
    # while the piece is in the hand, its square stays marked as lifted and the target lit
    lifted = frame(FeedbackState(pos, lifted=bb("e7"), opponent_move=Move.from_uci("e7e5")), OFF)
    assert lit(lifted, S.opponent) == {"e5"} and lit(lifted, S.legal) == set()


def test_a_promotion_being_chosen_blinks():
    pos = Position("1Q6/7k/8/8/8/8/8/K7 b - - 0 1")
    state = FeedbackState(pos, promotion_square=sq("b8"), last_move=Move.from_uci("b7b8q"))
    assert lit(frame(state, ON), S.promotion) == {"b8"}
    assert lit(frame(state, OFF)) == {"b7"}


@pytest.mark.parametrize("winner, white_king, black_king", [
    (WHITE, S.win, S.loss), (BLACK, S.loss, S.win), (None, S.draw, S.draw)])
def test_the_end_of_the_game_lights_the_kings(winner, white_king, black_king):
    outcome = Outcome(Termination.RESIGNATION if winner is not None else Termination.AGREEMENT, winner)
    leds = frame(FeedbackState(Position(), outcome=outcome, lifted=bb("g1"), last_move=Move.from_uci("g1f3")), ON)
    assert leds[sq("e1")] == white_king and leds[sq("e8")] == black_king
    assert lit(leds) == {"e1", "e8"}


def test_low_time_blinks_the_king():
    state = FeedbackState(Position(), low_time=WHITE)
    assert lit(frame(state, ON), S.low_time) == {"e1"}
    assert lit(frame(state, OFF)) == set()


def test_blinking_comes_from_the_time_given():
    assert blink_on(0.0) and blink_on(0.24) and not blink_on(0.25) and blink_on(0.5)
    state = FeedbackState(Position(), promotion_square=bb("e8").bit_length() - 1)
    assert next_change(state, 0.1) == pytest.approx(0.25)
    assert next_change(state, 0.25) == pytest.approx(0.5)
    assert next_change(FeedbackState(Position()), 0.1) is None


def test_the_frame_is_the_same_for_the_same_state_and_time():
    state = FeedbackState(Position(), lifted=bb("b1"), wrong=0)
    assert frame(state, 12.3) == frame(state, 12.3)
    assert frame(state, 12.3) == frame(state, 99.9)  # nothing blinks


def test_colours_and_brightness_come_from_the_configuration():
    config = loads_config('[leds]\nbrightness = 0.5\n[leds.colours]\nlegal = "#204080"\nlifted = "#ffffff"')
    style = LedStyle.from_config(config.leds)
    leds = frame(FeedbackState(Position(), lifted=bb("g1")), ON, style)
    assert leds[sq("f3")] == 0x102040
    assert leds[sq("g1")] == 0x808080


def test_destinations_separates_quiet_moves_and_captures():
    pos = Position("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2")
    quiet, captures = destinations(pos, sq("e5"))
    assert quiet == bb("e6") and captures == bb("d6")


def test_a_touched_piece_shows_where_it_can_go():
    leds = frame(FeedbackState(Position(), touched=sq("g1")), ON)
    assert lit(leds, S.legal) == {"f3", "h3"} and lit(leds, S.lifted) == {"g1"}


def test_a_gesture_being_held_blinks_the_kings_and_fills_the_ring_as_it_counts_down():
    centre = bb("d5", "e4")
    wrong = bb("e1", "e8", "d5", "e4")   # the board does not show the game meanwhile: the gesture wins
    start = FeedbackState(Position(), wrong=wrong, held=centre, held_kind="resign", held_progress=0.0)
    assert lit(frame(start, ON), S.loss) == {"d5", "e4"}
    assert lit(frame(start, OFF), S.loss) == set() and lit(frame(start, ON), S.fix) == set()
    half = FeedbackState(Position(), wrong=wrong, held=centre, held_kind="resign", held_progress=0.5)
    assert lit(frame(half, OFF), S.loss) == {"c3", "d3", "e3", "f3", "f4", "f5"}
    draw = FeedbackState(Position(), wrong=wrong, held=bb("d4", "e4"), held_kind="draw", held_progress=1.0)
    assert len(lit(frame(draw, ON), S.draw)) == 14


def test_a_draw_offer_lights_both_kings():
    assert lit(frame(FeedbackState(Position(), draw_offer=True), ON), S.draw) == {"e1", "e8"}
