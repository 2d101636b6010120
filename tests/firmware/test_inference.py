"""Move inference, one physical pattern per test: settled readings in, verdicts out."""
from __future__ import annotations

import pytest

from chess_core import KNIGHT, ROOK, parse_square
from firmware.referee.inference import WAIT_CASTLE, WAIT_SLIDE, WAIT_SWEPT, WAIT_SWEPT_SLID, VerdictKind
from tests.fakes.hands import Hand, bb, uci

MOVE, AMEND, TAKEBACK = VerdictKind.MOVE, VerdictKind.AMEND, VerdictKind.TAKEBACK
LIFTED, STABLE, ILLEGAL, TOUCHED = VerdictKind.LIFTED, VerdictKind.STABLE, VerdictKind.ILLEGAL, VerdictKind.TOUCHED

CASTLING = "r3k2r/pppq1ppp/2npbn2/2b1p3/2B1P3/2NPBN2/PPPQ1PPP/R3K2R w KQkq - 0 1"
ROOKS = "4k3/p7/8/8/8/8/8/R3K3 w - - 0 1"  # a white rook on a1 with the a-file open up to a7


def committed(verdicts):
    return [v.move.uci() for v in verdicts if v.kind in (MOVE, AMEND)]


# -- quiet moves and latency -------------------------------------------------------------------

def test_knight_move_commits_as_soon_as_it_lands():
    hand = Hand()
    assert hand.lift("g1")[0].kind is LIFTED
    out = hand.place("f3")
    assert [v.kind for v in out] == [MOVE] and out[0].move == uci("g1f3")
    assert out[0].time == hand.t


def test_lifted_piece_shows_its_candidates():
    hand = Hand()
    v = hand.lift("g1")[0]
    assert v.kind is LIFTED and v.lifted == bb("g1")
    assert set(v.candidates) == {uci("g1f3"), uci("g1h3")}


def test_pawn_single_step_waits_for_a_double_step_then_commits_at_its_landing():
    hand = Hand()
    hand.lift("e2")
    landed = hand.t + 0.5
    v = hand.place("e3")[0]
    assert v.kind is LIFTED and v.move == uci("e2e3") and uci("e2e4") in v.candidates
    assert hand.inference.next_deadline() == pytest.approx(landed + WAIT_SLIDE)
    assert hand.wait(WAIT_SLIDE / 2) == []
    out = hand.wait(WAIT_SLIDE)
    assert [v.kind for v in out] == [MOVE] and out[0].move == uci("e2e3")
    assert out[0].time == pytest.approx(landed)  # timed at the landing, not at the commit


def test_double_step_commits_at_once():
    hand = Hand()
    hand.lift("e2")
    assert committed(hand.place("e4")) == ["e2e4"]


def test_slide_is_not_recorded_as_a_shorter_move():
    hand = Hand(ROOKS)
    out = hand.slide("a1", "a2", "a3", "a4", "a5", "a6")
    assert committed(out) == []  # every square on the way could be extended: nothing commits
    assert [v.move.uci() for v in out if v.move] == ["a1a2", "a1a3", "a1a4", "a1a5", "a1a6"]
    hand.settle()
    assert hand.moves() == ["a1a6"]


def test_slide_to_the_last_empty_square_before_a_blocker_of_ones_own_commits_at_once():
    hand = Hand("4k3/p7/8/8/8/8/P7/R3K3 w - - 0 1")  # own pawn on a2: nothing to slide to
    hand.lift("a1")
    assert committed(hand.place("b1")) == []  # b1 could still go on to c1, d1
    hand = Hand("4k3/8/8/8/8/8/8/R1N1K3 w - - 0 1")  # own knight on c1 blocks the rank
    hand.lift("a1")
    assert committed(hand.place("b1")) == ["a1b1"]


def test_a_slide_that_pauses_longer_than_the_wait_is_amended():
    hand = Hand(ROOKS)
    hand.slide("a1", "a2", "a3")
    hand.wait(WAIT_SLIDE * 3)
    assert hand.moves() == ["a1a3"]
    hand.slide("a3", "a4", "a5")
    hand.settle()
    assert hand.moves() == ["a1a5"]
    assert AMEND in hand.kinds() and hand.kinds().count(MOVE) == 1


def test_slide_into_a_capture_is_the_capture():
    hand = Hand(ROOKS)
    hand.slide("a1", "a2", "a3", "a4", "a5", "a6")
    hand.lift("a7", dt=0.05)  # the victim goes as the rook arrives
    hand.lift("a6", dt=0.05)
    hand.held.pop()  # the victim leaves the board
    out = hand.place("a7", colour=0, dt=0.05)
    assert committed(out) == ["a1a7"]
    assert hand.moves() == ["a1a7"]


# -- captures ----------------------------------------------------------------------------------

CAPTURE = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"


def test_capture_with_the_victim_lifted_first():
    hand = Hand(CAPTURE)
    assert hand.lift("d5")[0].kind is LIFTED
    hand.lift("e4")
    out = hand.place("d5")
    assert committed(out) == ["e4d5"]


def test_capture_with_the_mover_lifted_first():
    hand = Hand(CAPTURE)
    hand.lift("e4")
    hand.lift("d5")
    hand.held.pop()  # the victim leaves the board
    assert committed(hand.place("d5", colour=0)) == ["e4d5"]


def test_capture_commits_at_once():
    hand = Hand(CAPTURE)
    hand.lift("d5")
    hand.lift("e4")
    out = hand.place("d5")
    assert out[0].kind is MOVE and hand.inference.next_deadline() is None


def test_swept_capture_with_a_single_candidate_commits_after_the_wait():
    hand = Hand(CAPTURE)
    v = hand.lift("e4")[0]
    lifted_at = hand.t
    assert v.kind is LIFTED
    # The pawn lands on d5 as the victim is swept off: the square never reads empty.
    assert hand.wait(WAIT_SWEPT - 0.1) == []
    out = hand.wait(0.2)
    assert committed(out) == ["e4d5"] and out[0].time == pytest.approx(lifted_at)


def test_swept_capture_commits_at_once_when_the_opponent_starts():
    hand = Hand(CAPTURE)
    hand.lift("e4")
    out = hand.lift("d8", dt=0.6)  # the queen will take back on d5
    assert committed(out) == ["e4d5"]
    assert out[-1].kind is LIFTED
    hand.lift("d5", dt=0.3)
    hand.held.pop()
    assert committed(hand.place("d5", colour=1)) == ["d8d5"]
    assert hand.moves() == ["e4d5", "d8d5"]


def test_swept_capture_with_two_candidates_is_resolved_by_touching_one():
    hand = Hand("4k3/8/8/2p1p3/3P4/8/8/4K3 w - - 0 1")  # d4 can take c5 or e5
    v = hand.lift("d4")[0]
    assert {uci("d4c5"), uci("d4e5")} <= set(v.candidates)
    assert hand.wait(WAIT_SWEPT * 3) == []  # ambiguous: nothing commits by itself
    hand.lift("e5", dt=0.5)  # the LEDs point at c5 and e5; the hand touches e5
    out = hand.place("e5", colour=0, dt=0.2)
    assert committed(out) == ["d4e5"]


def test_a_piece_in_hand_with_one_capture_is_not_taken_for_a_capture_when_it_lands_elsewhere():
    hand = Hand(CAPTURE)
    hand.lift("e4")
    assert committed(hand.place("e5", dt=0.8)) == ["e4e5"]


# -- castling ----------------------------------------------------------------------------------

def test_king_first_castling_is_recorded_as_castling():
    hand = Hand(CASTLING)
    hand.lift("e1")
    hand.place("g1")
    hand.lift("h1")
    out = hand.place("f1")
    assert committed(out) == ["e1g1"]


def test_king_sliding_over_f1_is_castling_not_a_king_move():
    hand = Hand(CASTLING)
    hand.slide("e1", "f1", "g1")
    hand.wait(2.0)  # the king waits on g1 for the rook as long as it takes
    assert hand.moves() == []
    hand.lift("h1")
    assert committed(hand.place("f1")) == ["e1g1"]


def test_king_pausing_on_f1_on_its_way_to_castle_is_amended_to_castling():
    hand = Hand(CASTLING)
    hand.slide("e1", "f1")
    hand.wait(WAIT_SLIDE * 2)
    assert hand.moves() == ["e1f1"]
    hand.slide("f1", "g1")
    hand.lift("h1")
    hand.place("f1")
    assert hand.moves() == ["e1g1"] and hand.last().kind is AMEND


def test_rook_first_castling_is_recorded_as_castling():
    hand = Hand(CASTLING)
    hand.lift("h1")
    v = hand.place("f1")[0]
    assert v.kind is LIFTED and v.move == uci("h1f1") and uci("e1g1") in v.candidates
    hand.lift("e1", dt=0.8)
    out = hand.place("g1")
    assert committed(out) == ["e1g1"]
    assert hand.moves() == ["e1g1"]


def test_rook_first_castling_after_a_long_pause_amends_the_rook_move():
    hand = Hand(CASTLING)
    hand.lift("h1")
    hand.place("f1")
    hand.wait(WAIT_CASTLE + 0.5)
    assert hand.moves() == ["h1f1"]
    hand.lift("e1")
    hand.place("g1")
    assert hand.moves() == ["e1g1"] and hand.last().kind is AMEND


def test_queenside_castling_rook_first_and_king_first():
    hand = Hand(CASTLING)
    hand.slide("a1", "b1", "c1", "d1")
    hand.lift("e1")
    assert committed(hand.place("c1")) == ["e1c1"]
    hand = Hand(CASTLING)
    hand.slide("e1", "d1", "c1")
    hand.lift("a1")
    assert committed(hand.place("d1")) == ["e1c1"]


def test_castling_with_both_pieces_lifted_before_either_is_placed():
    for order in (("e1", "h1", "g1", "f1"), ("h1", "e1", "f1", "g1"), ("e1", "h1", "f1", "g1")):
        hand = Hand(CASTLING)
        hand.lift(order[0])
        hand.lift(order[1])
        hand.place(order[2], colour=0)
        hand.place(order[3], colour=0)
        assert hand.moves() == ["e1g1"], order


def test_a_real_rook_move_next_to_castling_is_a_rook_move():
    hand = Hand(CASTLING)
    hand.lift("h1")
    hand.place("f1")
    out = hand.wait(WAIT_CASTLE + 0.1)
    assert committed(out) == ["h1f1"]


# -- en passant and promotion --------------------------------------------------------------------

EP = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"


def test_en_passant_with_the_victim_removed_first():
    hand = Hand(EP)
    hand.lift("f5")
    hand.held.pop()
    hand.lift("e5")
    assert committed(hand.place("f6")) == ["e5f6"]


def test_en_passant_with_the_victim_removed_after():
    hand = Hand(EP)
    hand.lift("e5")
    v = hand.place("f6")[0]
    assert v.kind is LIFTED and v.candidates == (uci("e5f6"),)
    assert committed(hand.lift("f5")) == ["e5f6"]


PROMO = "1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1"


def test_promotion_is_to_a_queen_by_default():
    hand = Hand(PROMO)
    hand.lift("a7")
    assert committed(hand.place("a8")) == ["a7a8q"]


def test_promotion_takes_the_chosen_piece():
    hand = Hand(PROMO)
    hand.inference.choose_promotion(KNIGHT)
    hand.lift("a7")
    assert committed(hand.place("a8")) == ["a7a8n"]


def test_the_promotion_choice_holds_for_one_promotion():
    hand = Hand("8/P7/6k1/8/8/8/p7/4K3 w - - 0 1")
    hand.inference.choose_promotion(ROOK)
    hand.move("a7", "a8")
    hand.move("a2", "a1")
    assert hand.moves() == ["a7a8r", "a2a1q"]


def test_the_promotion_choice_lasts_while_another_piece_is_straightened():
    """Issue 32, item 1: the king lifted and set back (an adjustment) keeps the knight chosen."""
    hand = Hand(PROMO)
    hand.inference.choose_promotion(KNIGHT)
    hand.lift("e1")
    hand.place("e1")
    hand.lift("a7")
    assert committed(hand.place("a8")) == ["a7a8n"]


def test_the_promotion_choice_ends_when_the_pawn_is_put_back_unmoved():
    hand = Hand(PROMO)
    hand.inference.choose_promotion(KNIGHT)
    hand.lift("a7")
    hand.place("a7")
    hand.lift("a7")
    assert committed(hand.place("a8")) == ["a7a8q"]


def test_the_promotion_choice_ends_when_its_side_moves_without_promoting():
    hand = Hand("8/P7/6k1/8/8/8/p7/4K3 w - - 0 1")
    hand.inference.choose_promotion(ROOK)
    hand.move("e1", "d1")
    hand.move("a2", "a1")
    assert hand.moves() == ["e1d1", "a2a1q"]


def test_promotion_with_capture_mover_first():
    hand = Hand(PROMO)
    hand.inference.choose_promotion(ROOK)
    hand.lift("a7")
    hand.lift("b8")
    hand.held.pop()
    assert committed(hand.place("b8", colour=0)) == ["a7b8r"]


# -- no move, touch-move, amend, takeback ------------------------------------------------------

def test_piece_lifted_and_put_back_is_no_move():
    hand = Hand()
    hand.lift("g1")
    out = hand.place("g1")
    assert [v.kind for v in out] == [STABLE]
    assert hand.moves() == []


def test_touch_move_warns_and_insists_that_the_touched_piece_moves():
    hand = Hand(touch_move=True)
    hand.lift("g1")
    v = hand.place("g1")[0]
    assert v.kind is TOUCHED and v.square == parse_square("g1")
    hand.lift("b1")
    assert hand.place("c3")[0].kind is ILLEGAL  # another piece may not move
    hand.lift("c3")
    assert hand.place("b1")[0].kind is TOUCHED  # back as it was: still insisting
    hand.lift("g1")
    assert committed(hand.place("f3")) == ["g1f3"]


def test_touch_move_does_not_bind_a_piece_that_cannot_move():
    hand = Hand(touch_move=True)
    hand.lift("a1")
    assert hand.place("a1")[0].kind is STABLE
    assert committed(hand.move("b1", "c3")) == ["b1c3"]


def test_move_corrected_before_the_opponent_starts_is_amended_not_doubled():
    hand = Hand()
    hand.move("g1", "f3")
    hand.lift("f3")
    out = hand.place("h3")
    assert [v.kind for v in out] == [AMEND] and out[0].move == uci("g1h3")
    assert hand.moves() == ["g1h3"]
    assert committed(hand.move("e7", "e5")) == ["e7e5"]


def test_correction_after_the_opponent_started_is_not_an_amend():
    hand = Hand()
    hand.move("g1", "f3")
    hand.lift("e7")
    hand.place("e7")  # black touched a pawn: black has started
    hand.lift("f3")
    out = hand.place("h3")
    assert out[0].kind is ILLEGAL
    assert out[0].wrong == bb("f3", "h3")
    assert hand.moves() == ["g1f3"]


def test_piece_put_back_on_its_square_after_committing_takes_the_move_back():
    hand = Hand()
    hand.move("g1", "f3")
    hand.lift("f3")
    out = hand.place("g1")
    assert [v.kind for v in out] == [TAKEBACK] and out[0].move == uci("g1f3")
    assert hand.moves() == [] and hand.position.fen().split()[1] == "w"


def test_physical_takeback_when_allowed():
    hand = Hand(takebacks=True)
    hand.move("e2", "e4")
    hand.move("e7", "e5")
    hand.lift("f2")  # white starts: the amend window of e7e5 is closed
    hand.place("f2")
    hand.move("e5", "e7")
    assert hand.last().kind is TAKEBACK and hand.last().move == uci("e7e5")
    hand.move("e4", "e2")
    assert hand.last().kind is TAKEBACK and hand.moves() == []


def test_physical_takeback_refused_when_not_allowed():
    hand = Hand()
    hand.move("e2", "e4")
    hand.move("e7", "e5")
    hand.lift("f2")
    hand.place("f2")
    hand.lift("e5")
    v = hand.place("e7")[0]
    assert v.kind is ILLEGAL and v.wrong == bb("e5", "e7")
    assert hand.moves() == ["e2e4", "e7e5"]


def test_takeback_of_a_capture_puts_the_victim_back():
    hand = Hand(CAPTURE, takebacks=True)
    hand.lift("d5")
    hand.lift("e4")
    hand.place("d5")
    hand.lift("a7")
    hand.place("a7")
    hand.lift("d5")
    hand.place("e4")
    assert hand.place("d5", colour=1)[0].kind is TAKEBACK
    assert hand.moves() == []


# -- wrong side, illegal states ----------------------------------------------------------------

def test_wrong_side_moving_records_nothing_and_names_the_squares():
    hand = Hand()
    assert hand.lift("e7")[0].kind is LIFTED  # in the hand: not wrong yet
    v = hand.place("e5")[0]
    assert v.kind is ILLEGAL and v.wrong == bb("e7", "e5") and v.move is None
    hand.lift("e5")
    assert hand.place("e7")[0].kind is STABLE
    assert hand.moves() == []


def test_illegal_move_names_the_squares_that_differ():
    hand = Hand()
    hand.lift("f1")  # a bishop behind its own pawns
    v = hand.place("c4")[0]
    assert v.kind is ILLEGAL and v.wrong == bb("f1", "c4")


def test_extra_piece_on_the_board_is_illegal():
    hand = Hand()
    v = hand.place("e4", colour=0)[0]
    assert v.kind is ILLEGAL and v.wrong == bb("e4")


def test_two_pieces_moved_at_once_is_illegal():
    hand = Hand()
    hand.move("e2", "e4")
    hand.lift("d2")
    v = hand.place("d4")[0]
    assert hand.moves() == ["e2e4"]
    assert v.kind is ILLEGAL


# -- colour-sensing board ----------------------------------------------------------------------

def test_colour_sensing_board_commits_a_swept_capture_at_once():
    hand = Hand(CAPTURE, colour=True)
    hand.lift("e4")
    out = hand.sweep("d5")  # d5 turns from black to white without ever reading empty
    assert committed(out) == ["e4d5"]


def test_colour_sensing_board_takes_a_wrong_colour_for_illegal():
    hand = Hand(colour=True)
    hand.lift("e2")
    v = hand.place("e4", colour=1)[0]
    assert v.kind is ILLEGAL and v.wrong == bb("e2", "e4")


def test_colour_sensing_board_tells_a_piece_in_hand_from_a_swept_capture():
    hand = Hand(CAPTURE, colour=True)
    hand.lift("e4")
    assert hand.wait(WAIT_SWEPT * 2) == []  # the victim is still black: the pawn is in the hand
    assert committed(hand.place("e5")) == ["e4e5"]


def test_colour_sensing_castling_rook_first():
    hand = Hand(CASTLING, colour=True)
    hand.lift("h1")
    hand.place("f1")
    hand.lift("e1")
    assert committed(hand.place("g1")) == ["e1g1"]


# -- the opponent's move -------------------------------------------------------------------------

def test_expected_move_is_the_only_one_accepted():
    hand = Hand()
    hand.inference.expect(uci("e2e4"))
    hand.lift("d2")
    assert hand.place("d4")[0].kind is ILLEGAL
    hand.lift("d4")
    hand.place("d2")
    hand.lift("e2")
    assert committed(hand.place("e4")) == ["e2e4"]  # no waiting for a longer move either


def test_expecting_an_illegal_move_is_refused():
    with pytest.raises(ValueError):
        Hand().inference.expect(uci("e2e5"))


def test_waiting_move_commits_when_the_opponent_starts():
    hand = Hand()
    hand.lift("e2")
    hand.place("e3")
    out = hand.lift("e7", dt=0.3)
    assert [v.kind for v in out] == [MOVE, LIFTED] and out[0].move == uci("e2e3")


def test_duplicate_reading_gives_no_verdict():
    hand = Hand()
    hand.lift("e2")
    assert hand.inference.feed(hand.t + 1, hand.occupied) == []


def test_the_promotion_just_made_may_be_changed_until_the_opponent_starts():
    hand = Hand(PROMO)
    hand.move("a7", "a8")
    out = hand.inference.amend_promotion(KNIGHT, hand.t + 1)
    assert [v.kind for v in out] == [AMEND] and out[0].move == uci("a7a8n")
    hand.verdicts += out
    hand.lift("e8", dt=1.5)
    assert hand.inference.amend_promotion(ROOK, hand.t + 1) == []  # black has started
    assert hand.moves() == ["a7a8n"]


def test_a_promote_choice_after_a_promotion_is_for_the_next_one():
    hand = Hand("8/P7/6k1/8/8/8/p7/4K3 w - - 0 1")
    hand.move("a7", "a8")
    hand.inference.choose_promotion(KNIGHT)  # black picks before promoting
    hand.move("a2", "a1")
    assert hand.moves() == ["a7a8q", "a2a1n"]


def test_guided_back_to_a_position_the_board_already_shows_the_same_reading_settles_it():
    from chess_core import Position
    from firmware.referee.inference import MoveInference
    position = Position()
    inference = MoveInference(position)
    inference.reset(position, guide_back=True)   # e.g. a game decided elsewhere, already on the board
    (verdict,) = inference.feed(1.0, position.occupied)
    assert verdict.kind is STABLE
    assert inference.feed(2.0, position.occupied & ~bb("g1"))[0].kind is LIFTED   # not still guiding


# -- mover-first captures beside another capture (issue 11, point 1) ---------------------------

# The queen on c2 can take the rook on c8 (up the c-file) or the pawn on g6 (along c2-g6).
TWO_CAPTURES = "2r4k/8/6p1/8/8/8/2Q5/K7 w - - 0 1"


def _slide_held(hand, squares, colour=0, step=0.05):
    """The piece in the hand is set down on squares[0] and slid over the rest (the last is its landing)."""
    out = hand.place(squares[0], colour=colour, dt=step)
    for a, b in zip(squares, squares[1:]):
        hand.lift(a, dt=0.004)
        hand.held.pop()
        out += hand.place(b, colour=colour, dt=step)
    return out


def test_mover_first_capture_is_never_taken_for_the_other_capture_swept():
    hand = Hand(TWO_CAPTURES)
    hand.lift("c2")
    hand.lift("c8", dt=0.15)   # the victim, 150 ms later
    hand.held = []
    out = _slide_held(hand, ["c3", "c4", "c5", "c6", "c7"])
    out += hand.lift("c7", dt=0.004) + hand.place("c8", colour=0, dt=0.05)
    hand.settle()
    assert hand.moves() == ["c2c8"]
    assert all(v.kind is not VerdictKind.ILLEGAL for v in hand.verdicts)


def test_mover_first_capture_carried_beside_another_capture():
    hand = Hand(TWO_CAPTURES)
    hand.lift("c2")
    hand.lift("c8", dt=0.15)
    hand.held = []
    assert committed(hand.place("c8", colour=0, dt=0.6)) == ["c2c8"]
    assert hand.moves() == ["c2c8"]


@pytest.mark.parametrize("held", [WAIT_SWEPT + 0.5, 20.0])
def test_mover_first_capture_after_a_long_hold_is_that_capture(held):
    hand = Hand("2r1k3/8/8/8/8/8/2Q5/K7 w - - 0 1")  # one capture only: Qxc8
    hand.lift("c2")
    hand.wait(held)              # thinking, the queen in the hand
    hand.lift("c8", dt=0.3)
    hand.held = []
    out = _slide_held(hand, ["c4", "c5", "c6", "c7"])
    out += hand.lift("c7", dt=0.004) + hand.place("c8", colour=0, dt=0.05)
    hand.settle()
    assert hand.moves() == ["c2c8"]
    assert hand.verdicts[-1].kind in (MOVE, AMEND, STABLE)


def test_swept_capture_then_the_opponent_moves_onto_the_path_of_the_other_capture():
    hand = Hand(TWO_CAPTURES)
    hand.lift("c2")
    hand.held = []               # the queen lands on g6, sweeping the pawn off unseen
    hand.wait(1.0)
    hand.lift("c8")              # black: Rc8-c3 (onto the path of Qxc8)
    hand.place("c3", colour=1, dt=0.5)
    hand.wait(4.0)
    hand.lift("g6")              # white: the queen goes on, Qg6-g1
    hand.place("g1", colour=0)
    hand.settle()
    assert hand.moves() == ["c2g6", "c8c3", "g6g1"]


# -- a move recorded wrong, put right (issue 11, point 6) --------------------------------------

def _queen_takes_g6_resolved_by_a_touch(hand):
    hand.lift("c2")
    hand.held = []                       # the queen lands on g6 or c8, the victim swept off unseen
    hand.wait(1.0)
    hand.lift("g6", dt=0.3)              # the LEDs show both captures; the hand touches g6
    hand.held = []
    out = hand.place("g6", colour=0, dt=0.2)
    assert committed(out) == ["c2g6"]


def test_the_moves_that_explain_the_board_as_well_are_offered_for_a_correction():
    hand = Hand(TWO_CAPTURES)
    _queen_takes_g6_resolved_by_a_touch(hand)
    assert hand.inference.alternatives() == (uci("c2c8"),)
    out = hand.inference.amend(uci("c2c8"), hand.t + 1)
    assert [v.kind for v in out] == [AMEND] and out[0].move == uci("c2c8")
    assert hand.position.piece_at(parse_square("c8")).piece_type == 5   # the queen
    assert hand.inference.alternatives() == (uci("c2g6"),)
    assert committed(hand.move("h8", "h7")) == ["h8h7"]                 # and the game goes on from there
    assert hand.inference.alternatives() == ()


def test_no_correction_once_the_opponent_has_started():
    hand = Hand(TWO_CAPTURES)
    _queen_takes_g6_resolved_by_a_touch(hand)
    hand.lift("h8")
    assert hand.inference.alternatives() == ()
    assert hand.inference.amend(uci("c2c8"), hand.t) == []


def test_a_correction_must_be_legal():
    hand = Hand(TWO_CAPTURES)
    _queen_takes_g6_resolved_by_a_touch(hand)
    with pytest.raises(ValueError):
        hand.inference.amend(uci("c2h7"), hand.t)


def test_a_capture_recorded_wrong_is_put_right_on_the_board_before_the_opponent_replies():
    hand = Hand(TWO_CAPTURES)
    _queen_takes_g6_resolved_by_a_touch(hand)
    # The players put the pieces back as they were (the victim first, then the queen) ...
    hand.lift("g6")
    hand.held = []
    hand.place("g6", colour=1)
    out = hand.place("c2", colour=0)
    assert [v.kind for v in out] == [TAKEBACK]
    # ... and the queen takes on c8 instead.
    hand.lift("c8")
    hand.held = []
    hand.lift("c2")
    assert committed(hand.place("c8")) == ["c2c8"]
    assert hand.moves() == ["c2c8"]


def test_a_piece_moved_on_to_where_it_should_be_amends_the_move():
    hand = Hand()
    hand.move("g1", "f3")
    hand.lift("f3", dt=1.0)
    assert committed(hand.place("h3")) == ["g1h3"] and hand.kinds()[-1] is AMEND


def test_a_piece_slid_all_the_way_to_a_victim_then_gone_took_it_soon():
    hand = Hand(TWO_CAPTURES)
    hand.lift("c2")
    hand.held = []
    _slide_held(hand, ["c3", "c4", "c5", "c6", "c7"])
    v = hand.lift("c7", dt=0.004)[0]        # ... and on onto c8, the rook swept off unseen
    hand.held = []
    assert v.kind is LIFTED and hand.inference.next_deadline() == pytest.approx(hand.t + WAIT_SWEPT_SLID)
    out = hand.wait(WAIT_SWEPT_SLID)
    assert committed(out) == ["c2c8"] and out[0].time == pytest.approx(hand.t - WAIT_SWEPT_SLID)


def test_a_piece_carried_to_one_of_two_victims_waits_for_a_touch():
    hand = Hand(TWO_CAPTURES)
    hand.lift("c2")
    assert hand.wait(WAIT_SWEPT * 3) == []
