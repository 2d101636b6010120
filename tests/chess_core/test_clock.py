"""Tests for chess_core.clock: every time control driven by hand-made timestamps, and the formats."""
import pytest
from hypothesis import given
from hypothesis import strategies as st

from chess_core.clock import (BLACK, WHITE, Clock, ClockError, ClockFormatError, FlagReason, format_clock,
                              format_pgn_clk, parse_pgn_clk)
from chess_core.timecontrol import TimeControl

S = 1000
MIN = 60 * S


def started(text, side=WHITE, at=0, **kwargs):
    clock = Clock(text, **kwargs)
    clock.start(at, side)
    return clock


def play(clock, *press_times):
    for at in press_times:
        assert clock.press(at) is None


# -- sudden death and the flag -----------------------------------------------------------------

def test_only_the_side_to_move_loses_time():
    clock = started("300")
    assert clock.remaining(WHITE, 10 * S) == 290 * S
    assert clock.remaining(BLACK, 10 * S) == 300 * S
    play(clock, 10 * S)
    assert clock.remaining(WHITE, 70 * S) == 290 * S
    assert clock.remaining(BLACK, 70 * S) == 240 * S
    assert clock.running_side == BLACK and clock.side_to_move == BLACK


def test_sudden_death_flag_falls_when_the_time_is_used_up():
    clock = started("60")
    assert clock.flag_time() == 60 * S
    assert clock.flagged(60 * S - 1) is None
    assert clock.remaining(WHITE, 60 * S - 1) == 1
    assert clock.flagged(60 * S) == WHITE
    assert clock.remaining(WHITE, 90 * S) == 0


def test_a_press_at_exactly_the_flag_instant_is_too_late():
    clock = started("60")
    assert clock.press(60 * S) == WHITE
    assert clock.flag_fallen == WHITE and clock.flag_reason is FlagReason.TIME
    assert clock.moves_made(WHITE) == 0


def test_a_press_one_millisecond_before_the_flag_is_in_time():
    clock = started("60")
    assert clock.press(60 * S - 1) is None
    assert clock.remaining(WHITE, 60 * S) == 1


def test_the_flag_is_sticky_and_a_late_press_does_not_revive_the_player():
    clock = started("60+5")
    assert clock.press(75 * S) == WHITE
    assert clock.press(76 * S) == WHITE
    assert clock.flagged(100 * S) == WHITE
    assert clock.remaining(WHITE, 100 * S) == 0
    assert clock.side_to_move == WHITE and clock.running_side is None
    assert clock.flag_time() == 60 * S
    with pytest.raises(ClockError, match="flag"):
        clock.resume(101 * S)


def test_both_clocks_stop_at_the_flag_instant():
    clock = started("*60")   # a sandclock, where the waiting side's time moves too
    assert clock.flagged(500 * S) == WHITE
    assert clock.remaining(BLACK, 500 * S) == 120 * S
    clock.pause(500 * S)
    assert clock.flag_fallen == WHITE
    assert clock.remaining(BLACK, 900 * S) == 120 * S


def test_a_flag_found_by_pause_is_recorded_at_its_instant():
    clock = started("60", at=5 * S)
    clock.pause(100 * S)
    assert clock.flag_fallen == WHITE and clock.flag_time() == 65 * S


# -- Fischer increment -------------------------------------------------------------------------

def test_increment_is_added_after_every_move_from_move_one():
    clock = started("300+3")
    assert clock.remaining(WHITE, 0) == 300 * S   # nothing added at the start
    play(clock, 10 * S)
    assert clock.remaining(WHITE, 10 * S) == 293 * S
    play(clock, 12 * S)
    assert clock.remaining(BLACK, 12 * S) == 301 * S


def test_no_increment_is_added_to_a_move_that_flagged():
    clock = started("10+5")
    assert clock.press(10 * S) == WHITE
    assert clock.remaining(WHITE, 10 * S) == 0


# -- simple (US) delay -------------------------------------------------------------------------

def test_a_move_within_the_delay_costs_nothing():
    clock = started("300d5")
    assert clock.remaining(WHITE, 4 * S) == 300 * S
    assert clock.delay_left(4 * S) == 1 * S
    play(clock, 5 * S)
    assert clock.remaining(WHITE, 5 * S) == 300 * S


def test_the_main_time_runs_once_the_delay_is_over():
    clock = started("300d5")
    assert clock.remaining(WHITE, 8 * S) == 297 * S
    assert clock.delay_left(8 * S) == 0
    play(clock, 8 * S)
    assert clock.remaining(WHITE, 8 * S) == 297 * S
    assert clock.delay_left(8 * S) == 5 * S   # black's delay starts afresh


def test_with_delay_the_flag_falls_after_the_delay_and_the_main_time():
    clock = started("10d5")
    assert clock.flag_time() == 15 * S
    assert clock.flagged(15 * S - 1) is None
    assert clock.press(15 * S) == WHITE


def test_delay_does_not_run_during_a_pause():
    clock = started("300d5")
    clock.pause(3 * S)
    clock.resume(100 * S)
    assert clock.delay_left(101 * S) == 1 * S
    assert clock.remaining(WHITE, 104 * S) == 298 * S


# -- Bronstein delay ---------------------------------------------------------------------------

def test_bronstein_gives_back_the_time_used_up_to_the_delay():
    clock = started("300b5")
    assert clock.remaining(WHITE, 3 * S) == 297 * S   # the time runs during the move
    play(clock, 3 * S)
    assert clock.remaining(WHITE, 3 * S) == 300 * S   # all 3 s given back
    play(clock, 13 * S)
    assert clock.remaining(BLACK, 13 * S) == 295 * S  # 10 s used, only 5 s given back


def test_bronstein_never_lifts_a_clock_above_where_the_move_began():
    clock = started("300b5")
    play(clock, 1, 2, 3, 4)
    assert clock.remaining(WHITE, 4) == 300 * S and clock.remaining(BLACK, 4) == 300 * S


def test_bronstein_does_not_save_a_player_whose_time_ran_out_during_the_move():
    clock = started("3b5")
    assert clock.press(3 * S) == WHITE


# -- per-move limit ----------------------------------------------------------------------------

def test_a_move_that_reaches_the_per_move_limit_loses_on_time_with_time_left():
    clock = started("300+2/m30")
    assert clock.flag_time() == 30 * S
    assert clock.move_time_left(29 * S) == 1 * S
    assert clock.press(30 * S) == WHITE
    assert clock.flag_reason is FlagReason.MOVE_LIMIT
    assert clock.remaining(WHITE, 40 * S) == 270 * S   # frozen at the flag instant


def test_moves_under_the_limit_are_fine_and_the_limit_restarts_each_move():
    clock = started("300/m30")
    play(clock, 29 * S, 58 * S)
    assert clock.move_time(60 * S) == 2 * S
    assert clock.flag_time() == 88 * S


def test_the_main_time_flag_can_come_before_the_move_limit():
    clock = started("20/m30")
    assert clock.press(25 * S) == WHITE and clock.flag_reason is FlagReason.TIME


def test_pauses_do_not_count_toward_the_per_move_limit():
    clock = started("300/m30")
    clock.pause(20 * S)
    clock.resume(200 * S)
    assert clock.move_time(205 * S) == 25 * S
    assert clock.press(205 * S) is None


def test_a_clock_with_only_a_per_move_limit():
    clock = started("-/m10")
    assert clock.remaining(WHITE, 5 * S) is None
    play(clock, 9 * S)
    assert clock.flag_time() == 19 * S
    assert clock.press(19 * S) == BLACK and clock.flag_reason is FlagReason.MOVE_LIMIT


def test_move_time_left_is_none_without_a_limit():
    assert started("300").move_time_left(1) is None


# -- periods -----------------------------------------------------------------------------------

def test_the_second_period_is_added_exactly_when_the_fortieth_move_is_completed():
    clock = started("40/5400+30:1800+30")
    now = 0
    for _ in range(39):
        now += 60 * S
        play(clock, now)       # white moves in 60 s
        now += 1 * S
        play(clock, now)       # black in 1 s
    # 39 moves each: white used 39 min and got 39 x 30 s back
    assert clock.remaining(WHITE, now) == 90 * MIN - 39 * 60 * S + 39 * 30 * S
    assert clock.period_index(WHITE) == 0
    now += 60 * S
    play(clock, now)           # white's 40th move: 30 s increment, then the 30 min
    assert clock.remaining(WHITE, now) == 90 * MIN - 40 * 60 * S + 40 * 30 * S + 30 * MIN
    assert clock.moves_made(WHITE) == 40 and clock.period_index(WHITE) == 1
    assert clock.remaining(BLACK, now) == 90 * MIN - 39 * S + 39 * 30 * S   # black not yet
    now += 1 * S
    play(clock, now)
    assert clock.remaining(BLACK, now) == 90 * MIN - 40 * S + 40 * 30 * S + 30 * MIN


def test_a_repeating_period_adds_its_time_every_time_it_is_completed():
    clock = started("2/60")
    play(clock, 10 * S, 10 * S)               # white 10 s, black 0 s
    assert clock.remaining(WHITE, 10 * S) == 50 * S
    play(clock, 20 * S)                        # white's 2nd move: another 60 s
    assert clock.remaining(WHITE, 20 * S) == 100 * S
    play(clock, 20 * S, 20 * S, 20 * S)        # black's 2nd, white's 3rd and black's 3rd
    assert clock.remaining(WHITE, 20 * S) == 100 * S
    play(clock, 20 * S)                        # white's 4th
    assert clock.remaining(WHITE, 20 * S) == 160 * S


def test_moves_already_made_put_a_restored_clock_in_its_period():
    clock = Clock("40/5400+30:1800+30", start_ms_white=10 * S, start_ms_black=20 * MIN, moves_white=39,
                  moves_black=39)
    clock.start(0, WHITE)
    play(clock, 5 * S)
    assert clock.remaining(WHITE, 5 * S) == 5 * S + 30 * S + 30 * MIN


def test_each_period_uses_its_own_bonus():
    clock = started("1/60+10:60d5")
    play(clock, 1 * S)                                 # move 1: increment
    assert clock.remaining(WHITE, 1 * S) == 129 * S
    play(clock, 1 * S, 4 * S)                          # white's move 2 falls in the delay
    assert clock.remaining(WHITE, 4 * S) == 129 * S


# -- pause and resume --------------------------------------------------------------------------

def test_no_time_passes_while_paused():
    clock = started("300")
    clock.pause(10 * S)
    assert clock.paused and clock.running_side is None
    assert clock.flag_time() is None
    assert clock.remaining(WHITE, 1000 * S) == 290 * S
    clock.resume(1000 * S)
    assert clock.remaining(WHITE, 1005 * S) == 285 * S
    assert clock.flag_time() == 1290 * S


def test_pause_and_resume_are_idempotent():
    clock = started("300")
    clock.resume(1 * S)
    clock.pause(2 * S)
    clock.pause(3 * S)
    clock.resume(4 * S)
    clock.resume(5 * S)
    assert clock.remaining(WHITE, 6 * S) == 296 * S


def test_a_press_while_paused_is_refused():
    clock = started("300")
    clock.pause(1 * S)
    with pytest.raises(ClockError, match="paused"):
        clock.press(2 * S)


# -- arbiter adjustments -----------------------------------------------------------------------

def test_add_and_set_time_of_the_waiting_side():
    clock = started("300")
    clock.add_time(BLACK, 2 * MIN)
    assert clock.remaining(BLACK, 10 * S) == 7 * MIN
    clock.set_time(BLACK, 1 * MIN)
    assert clock.remaining(BLACK, 10 * S) == 1 * MIN


def test_adjusting_a_running_clock_needs_the_time():
    clock = started("300")
    with pytest.raises(ClockError, match="now_ms"):
        clock.set_time(WHITE, 10 * S)
    with pytest.raises(ClockError, match="now_ms"):
        started("*60").add_time(BLACK, 10 * S)   # a sandclock's waiting side gains time
    clock.set_time(WHITE, 10 * S, now_ms=50 * S)
    assert clock.remaining(WHITE, 55 * S) == 5 * S
    clock.add_time(WHITE, -3 * S, now_ms=55 * S)
    assert clock.remaining(WHITE, 55 * S) == 2 * S
    assert clock.flag_time() == 57 * S


def test_adjusting_a_paused_clock_needs_no_time():
    clock = started("300d5")
    clock.pause(3 * S)
    clock.set_time(WHITE, 20 * S)
    clock.resume(10 * S)
    assert clock.remaining(WHITE, 10 * S) == 20 * S
    assert clock.flag_time() == 10 * S + 2 * S + 20 * S   # the 2 s of delay left still count


def test_adjustments_are_checked():
    clock = started("300")
    with pytest.raises(ValueError):
        clock.add_time(BLACK, -301 * S)
    with pytest.raises(ValueError):
        clock.set_time(BLACK, -1)
    with pytest.raises(ValueError):
        clock.set_time(True, 1)
    with pytest.raises(ClockError, match="no game clock"):
        started("-").add_time(WHITE, 1)


def test_adjustments_after_a_flag_are_refused():
    clock = started("60")
    clock.press(60 * S)
    with pytest.raises(ClockError, match="flag"):
        clock.add_time(WHITE, 1 * MIN)


def test_setting_the_time_before_the_start_and_odds_times():
    clock = Clock("300", start_ms_black=3 * MIN)
    clock.set_time(WHITE, 4 * MIN)
    assert clock.remaining(WHITE, 0) == 4 * MIN and clock.remaining(BLACK, 0) == 3 * MIN


# -- takebacks ---------------------------------------------------------------------------------

def test_undo_press_restores_the_state_before_the_press():
    clock = started("300+3")
    play(clock, 10 * S)
    clock.undo_press(30 * S)   # black thought for 20 s, then the move was taken back
    assert clock.side_to_move == WHITE and clock.moves_made(WHITE) == 0
    assert clock.remaining(BLACK, 30 * S) == 300 * S
    assert clock.remaining(WHITE, 30 * S) == 290 * S   # the 20 s after the press are nobody's
    play(clock, 35 * S)
    assert clock.remaining(WHITE, 35 * S) == 288 * S


def test_undo_press_keeps_the_move_time_for_delays_and_limits():
    clock = started("300d5/m30")
    play(clock, 4 * S)
    clock.undo_press(100 * S)
    assert clock.delay_left(100 * S) == 1 * S
    assert clock.flag_time() == 100 * S + 26 * S


def test_undo_press_revives_a_flag_that_fell_after_the_press():
    clock = started("60")
    play(clock, 1 * S)
    assert clock.press(100 * S) == BLACK
    clock.undo_press(100 * S)
    assert clock.flag_fallen is None and clock.side_to_move == WHITE
    assert clock.remaining(WHITE, 100 * S) == 59 * S


def test_undo_press_while_paused_stays_paused_and_several_undos_go_back_in_turn():
    clock = started("300")
    play(clock, 1 * S, 3 * S)
    clock.pause(4 * S)
    clock.undo_press(5 * S)
    assert clock.paused and clock.side_to_move == BLACK
    clock.undo_press(6 * S)
    assert clock.side_to_move == WHITE and not clock.can_undo
    with pytest.raises(ClockError, match="no press"):
        clock.undo_press(7 * S)


# -- no clock and sandclock --------------------------------------------------------------------

@pytest.mark.parametrize("text", ["-", "?"])
def test_without_a_clock_everything_works_and_remaining_is_none(text):
    clock = started(text)
    play(clock, 10 * S, 1000 * S)
    clock.pause(2000 * S)
    clock.resume(3000 * S)
    assert clock.remaining(WHITE, 10**9) is None
    assert clock.flagged(10**9) is None and clock.flag_time() is None
    assert clock.moves_made(WHITE) == 1 and clock.moves_made(BLACK) == 1
    assert clock.period_index(WHITE) is None
    assert format_clock(clock.remaining(WHITE, 10**9)) == "-:--:--"


def test_sandclock_moves_time_from_the_side_to_move_to_the_other():
    clock = started("*60")
    assert clock.remaining(BLACK, 10 * S) == 70 * S
    play(clock, 10 * S)
    assert clock.remaining(WHITE, 15 * S) == 55 * S
    assert clock.remaining(BLACK, 15 * S) == 65 * S
    assert clock.flag_time() == 10 * S + 70 * S


def test_sandclock_adjustment_of_the_waiting_side_counts_from_now():
    clock = started("*60")
    clock.set_time(BLACK, 10 * S, now_ms=20 * S)
    assert clock.remaining(BLACK, 25 * S) == 15 * S
    play(clock, 25 * S)
    assert clock.remaining(BLACK, 25 * S) == 15 * S and clock.flag_time() == 40 * S


# -- misuse ------------------------------------------------------------------------------------

def test_the_clock_must_be_started_once_before_anything_else():
    clock = Clock(TimeControl.parse("300"))
    assert clock.remaining(WHITE, 5 * S) == 300 * S and clock.running_side is None
    for action in (clock.press, clock.pause, clock.resume):
        with pytest.raises(ClockError, match="not been started"):
            action(1)
    clock.start(0, BLACK)
    assert clock.running_side == BLACK
    with pytest.raises(ClockError, match="already"):
        clock.start(1, WHITE)


def test_time_must_not_go_backwards():
    clock = started("300", at=10 * S)
    with pytest.raises(ClockError, match="backwards"):
        clock.press(9 * S)
    with pytest.raises(ClockError, match="backwards"):
        clock.remaining(WHITE, 9 * S)


def test_the_last_time_given_is_readable_so_that_a_caller_never_goes_back_before_it():
    clock = Clock("300")
    assert clock.last_time_ms is None
    clock.start(10 * S, WHITE)
    clock.press(12 * S)
    assert clock.last_time_ms == 12 * S
    clock.remaining(WHITE, 15 * S)    # a query does not move it on
    assert clock.last_time_ms == 12 * S
    clock.pause(20 * S)
    assert clock.last_time_ms == 20 * S


@pytest.mark.parametrize("side", [True, False, 2, -1, "white", None])
def test_a_side_is_a_plain_int_zero_or_one(side):
    with pytest.raises(ValueError, match="WHITE"):
        Clock("300").remaining(side, 0)


def test_start_times_need_a_game_clock_and_a_time_control():
    with pytest.raises(ValueError, match="no game clock"):
        Clock("-", start_ms_white=1000)
    with pytest.raises(TypeError):
        Clock(300)


# -- properties --------------------------------------------------------------------------------

@given(st.lists(st.integers(0, 20 * S), max_size=40), st.sampled_from(["+", "d", "b"]))
def test_each_side_ends_with_its_start_plus_its_bonuses_minus_what_it_was_charged(durations, kind):
    clock = started(f"3600{kind}5")
    now, charged, bonus = 0, [0, 0], [0, 0]
    for index, used in enumerate(durations):
        side = index % 2
        now += used
        play(clock, now)
        charged[side] += used - min(used, 5 * S) if kind == "d" else used
        bonus[side] += {"+": 5 * S, "d": 0, "b": min(used, 5 * S)}[kind]
    for side in (WHITE, BLACK):
        assert clock.remaining(side, now) == 3600 * S - charged[side] + bonus[side]


@given(st.integers(0, 600 * S - 1), st.integers(0, 10**6), st.integers(0, 10**6))
def test_a_pause_of_any_length_changes_nothing(before, pause, after):
    paused, straight = started("600+1/m900"), started("600+1/m900")
    paused.pause(before)
    paused.resume(before + pause)
    assert paused.remaining(WHITE, before + pause + after) == straight.remaining(WHITE, before + after)
    assert paused.flagged(before + pause + after) == straight.flagged(before + after)


actions = st.lists(st.tuples(st.sampled_from(["press", "pause", "resume", "undo", "add"]),
                             st.integers(0, 40 * S), st.integers(-5 * S, 5 * S)), max_size=60)


@given(st.sampled_from(["10+2", "10d3", "10b3", "2/10+1:5", "*10", "-/m8", "30/m8", "-"]), actions)
def test_random_use_keeps_times_non_negative_and_flags_sticky(text, steps):
    clock, now = started(text), 0
    for action, wait, amount in steps:
        now += wait
        fallen = clock.flagged(now)
        if action == "press":
            if clock.paused and fallen is None:
                with pytest.raises(ClockError):
                    clock.press(now)
            else:
                assert clock.press(now) == fallen
        elif action == "pause":
            clock.pause(now)
        elif action == "resume":
            if fallen is None:
                clock.resume(now)
        elif action == "undo" and clock.can_undo:
            clock.undo_press(now)
            fallen = None
        elif action == "add" and fallen is None and clock.time_control.timed:
            side = amount % 2
            if clock.remaining(side, now) + amount >= 0:
                clock.add_time(side, amount, now_ms=now)
        if fallen is not None:
            assert clock.flagged(now) == fallen
        if clock.time_control.timed:
            assert clock.remaining(WHITE, now) >= 0 and clock.remaining(BLACK, now) >= 0
        at = clock.flag_time()
        if clock.flagged(now) is None and at is not None:
            assert at > now and clock.running_side is not None


# -- display and PGN formats -------------------------------------------------------------------

@pytest.mark.parametrize("ms, face", [
    (5_400_000, "1:30:00"),
    (36_000_000, "10:00:00"),
    (300_000, "0:05:00"),
    (299_700, "0:04:59"),
    (20_999, "0:00:20"),
    (20_000, "0:00:20"),
    (19_999, "0:19.9"),
    (10_050, "0:10.0"),
    (5_300, "0:05.3"),
    (99, "0:00.0"),
    (0, "0:00.0"),
    (None, "-:--:--"),
])
def test_clock_face_shows_hms_from_twenty_seconds_and_tenths_below(ms, face):
    assert format_clock(ms) == face


def test_clock_face_refuses_negative_times():
    with pytest.raises(ValueError):
        format_clock(-1)


@pytest.mark.parametrize("ms, text", [
    (299_700, "0:04:59.7"),
    (300_000, "0:05:00"),
    (300_099, "0:05:00"),
    (5_400_000, "1:30:00"),
    (0, "0:00:00"),
])
def test_pgn_clk_writes_the_tenth_only_when_there_is_one(ms, text):
    assert format_pgn_clk(ms) == text


def test_pgn_clk_tenths_can_be_forced_either_way():
    assert format_pgn_clk(300_000, tenths=True) == "0:05:00.0"
    assert format_pgn_clk(299_700, tenths=False) == "0:04:59"


@pytest.mark.parametrize("text, ms", [
    ("0:04:59.7", 299_700),
    ("0:04:59", 299_000),
    (" 1:30:00 ", 5_400_000),
    ("0:00:01.25", 1_250),
    ("12:00:00.005", 43_200_005),
])
def test_pgn_clk_parses(text, ms):
    assert parse_pgn_clk(text) == ms


@pytest.mark.parametrize("text", ["", "4:59", "0:4:59", "0:60:00", "0:00:60", "0:04:59.", "0:04:59.1234",
                                  "a:bc:de", "0:04:59\n7", "-0:04:59", "٠:٠٤:٥٩"])
def test_malformed_pgn_clk_is_a_clock_format_error(text):
    with pytest.raises(ClockFormatError, match="clock time"):
        parse_pgn_clk(text)


@given(st.integers(0, 999_999 * 3600 * S))
def test_pgn_clk_round_trips_to_the_tenth(ms):
    assert parse_pgn_clk(format_pgn_clk(ms)) == ms - ms % 100


@given(st.text())
def test_any_text_is_a_clock_time_or_a_clock_format_error(text):
    try:
        assert parse_pgn_clk(text) >= 0
    except ClockFormatError:
        pass
