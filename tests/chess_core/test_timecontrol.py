"""Tests for chess_core.timecontrol: the PGN TimeControl spelling, its extensions and periods."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chess_core.timecontrol import MAX_MOVES, MAX_MS, UNTIMED, Period, TimeControl, TimeControlError

S = 1000
MIN = 60 * S


@pytest.mark.parametrize("text, expected", [
    ("-", TimeControl()),
    ("?", TimeControl(unknown=True)),
    ("300", TimeControl([Period(5 * MIN)])),
    ("300+3", TimeControl([Period(5 * MIN, increment_ms=3 * S)])),
    ("300d5", TimeControl([Period(5 * MIN, delay_ms=5 * S)])),
    ("300b5", TimeControl([Period(5 * MIN, bronstein_ms=5 * S)])),
    ("40/5400+30:1800+30", TimeControl([Period(90 * MIN, 40, increment_ms=30 * S),
                                         Period(30 * MIN, increment_ms=30 * S)])),
    ("40/9000", TimeControl([Period(150 * MIN, 40)])),
    ("40/7200:20/3600", TimeControl([Period(120 * MIN, 40), Period(60 * MIN, 20)])),
    ("*180", TimeControl(sandclock_ms=180 * S)),
    ("300+3/m30", TimeControl([Period(5 * MIN, increment_ms=3 * S)], move_limit_ms=30 * S)),
    ("-/m30", TimeControl(move_limit_ms=30 * S)),
    ("*180/m10", TimeControl(sandclock_ms=180 * S, move_limit_ms=10 * S)),
    ("15+0.5", TimeControl([Period(15 * S, increment_ms=500)])),
    ("0d5", TimeControl([Period(0, delay_ms=5 * S)])),
])
def test_every_spelling_parses_and_prints_back(text, expected):
    assert TimeControl.parse(text) == expected
    assert str(expected) == text


@pytest.mark.parametrize("text, canonical", [
    ("300+0", "300"),
    ("0300+03", "300+3"),
    ("  300+3\n", "300+3"),
    ("300+3.500", "300+3.5"),
    ("1.000", "1"),
    ("40/5400d0:1800", "40/5400:1800"),
])
def test_variants_print_in_canonical_form(text, canonical):
    assert str(TimeControl.parse(text)) == canonical


def test_unknown_is_kept_apart_from_none_but_neither_is_timed():
    assert TimeControl.parse("?") != TimeControl.parse("-")
    assert not TimeControl.parse("?").timed and not TimeControl.parse("-").timed
    assert not TimeControl.parse("-/m30").timed
    assert TimeControl.parse("*180").timed and TimeControl.parse("300").timed
    assert UNTIMED == TimeControl.parse("-")


@pytest.mark.parametrize("text, initial", [("-", None), ("?", None), ("300+3", 300 * S),
                                           ("40/5400+30:1800+30", 5400 * S), ("*180", 180 * S)])
def test_initial_time(text, initial):
    assert TimeControl.parse(text).initial_ms == initial


@pytest.mark.parametrize("text, words", [
    ("-", "no clock"),
    ("?", "unknown time control"),
    ("300", "5 min"),
    ("300+3", "5 min + 3 s"),
    ("180+2", "3 min + 2 s"),
    ("150+0.5", "2 min 30 s + 0.5 s"),
    ("300d5", "5 min + 5 s delay"),
    ("300b5", "5 min + 5 s Bronstein delay"),
    ("40/5400+30:1800+30", "90 min for 40 moves, then 30 min; + 30 s per move from move 1"),
    ("40/5400+30:1800", "90 min for 40 moves + 30 s, then 30 min"),
    ("40/9000", "150 min for every 40 moves"),
    ("40/7200:20/3600", "120 min for 40 moves, then 60 min for every 20 moves"),
    ("*180", "3 min sandclock"),
    ("300+3/m30", "5 min + 3 s, at most 30 s per move"),
    ("-/m30", "no game clock, at most 30 s per move"),
])
def test_describe_in_words(text, words):
    assert TimeControl.parse(text).describe() == words


def test_repr_can_be_pasted_back():
    tc = TimeControl.parse("40/5400+30:1800+30/m60")
    assert repr(tc) == "TimeControl.parse('40/5400+30:1800+30/m60')"
    assert eval(repr(tc)) == tc


def test_periods_are_stored_as_a_tuple_so_the_time_control_is_hashable():
    tc = TimeControl([Period(5 * MIN)])
    assert tc.periods == (Period(5 * MIN),)
    assert hash(tc) == hash(TimeControl.parse("300"))


# -- errors ------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, words", [
    ("", "empty"),
    ("abc", "character 1: expected seconds"),
    ("300+", "at the end: expected increment seconds"),
    ("40/", "at the end: expected seconds for the 40 moves"),
    ("300:60", "only the last period can be open-ended"),
    ("*180:60", "character 5: unexpected ':'"),
    ("?/m30", "'?' (unknown) stands alone"),
    ("300+3d5", "at most one of increment, delay and Bronstein"),
    ("0+3", "the first period has no time"),
    ("300/m0", "a per-move limit needs time"),
    ("*0", "a sandclock needs time"),
    ("40.5/300", "a move count is a whole number"),
    ("0/300", "a move count is a whole number"),
    ("300.1234", "at most three decimals"),
    ("1.", "expected digits after '.'"),
    (".5", "expected seconds"),
    ("9999999999", "too many digits"),
    ("300+3/m30/m30", "comes once, at the end"),
    ("300 + 3", "unexpected ' '"),
    ("300D5", "lower case"),
    ("3e5", "unexpected 'e'"),
    ("300+3*", "stands alone"),
    ("١٢٣", "expected seconds"),   # digits, but not ASCII ones
])
def test_malformed_text_names_the_problem(text, words):
    with pytest.raises(TimeControlError) as info:
        TimeControl.parse(text)
    assert words in str(info.value)


def test_parse_of_something_not_text_is_a_time_control_error():
    with pytest.raises(TimeControlError, match="text, not int"):
        TimeControl.parse(300)


@pytest.mark.parametrize("build, words", [
    (lambda: Period(-1), "time_ms"),
    (lambda: Period(1.5), "time_ms"),
    (lambda: Period(True), "time_ms"),
    (lambda: Period(MAX_MS + 1), "time_ms"),
    (lambda: Period(1000, moves=0), "moves"),
    (lambda: Period(1000, increment_ms=1, delay_ms=1), "at most one"),
    (lambda: TimeControl([Period(1000), Period(1000)]), "needs a move count"),
    (lambda: TimeControl(["300"]), "Period objects"),
    (lambda: TimeControl(5), "sequence of Period"),
    (lambda: TimeControl([Period(1000)], sandclock_ms=1000), "stands alone"),
    (lambda: TimeControl(unknown=True, move_limit_ms=1000), "nothing else"),
    (lambda: TimeControl(move_limit_ms=0), "move_limit_ms"),
])
def test_invalid_parts_are_refused(build, words):
    with pytest.raises(TimeControlError, match=words):
        build()


# -- periods -----------------------------------------------------------------------------------

def test_fide_periods_roll_over_when_the_fortieth_move_is_completed():
    fide = TimeControl.parse("40/5400+30:1800+30")
    assert [fide.period_index(n) for n in (1, 40, 41, 200)] == [0, 0, 1, 1]
    assert fide.time_added_after(40) == 30 * MIN
    assert [fide.time_added_after(n) for n in (1, 39, 41, 80, 120)] == [0, 0, 0, 0, 0]


def test_a_last_period_with_a_move_count_repeats():
    tc = TimeControl.parse("40/7200:20/3600")
    assert [tc.period_index(n) for n in (40, 41, 60, 61, 1000)] == [0, 1, 1, 1, 1]
    added = {n: tc.time_added_after(n) for n in range(1, 121) if tc.time_added_after(n)}
    assert added == {40: 60 * MIN, 60: 60 * MIN, 80: 60 * MIN, 100: 60 * MIN, 120: 60 * MIN}
    single = TimeControl.parse("40/9000")
    assert [single.time_added_after(n) for n in (40, 80, 79)] == [150 * MIN, 150 * MIN, 0]
    assert single.period_for_move(85) == single.periods[0]


def test_period_questions_need_periods_and_a_move_number_from_one():
    with pytest.raises(ValueError):
        TimeControl.parse("-").period_index(1)
    with pytest.raises(ValueError):
        TimeControl.parse("300").time_added_after(0)


# -- properties --------------------------------------------------------------------------------

ms_values = st.integers(0, MAX_MS)
positive_ms = st.integers(1, MAX_MS)


@st.composite
def periods(draw, *, last, first):
    moves = draw(st.one_of(st.none(), st.integers(1, MAX_MOVES))) if last else draw(st.integers(1, MAX_MOVES))
    kind = draw(st.sampled_from(["none", "increment_ms", "delay_ms", "bronstein_ms"]))
    bonus = {} if kind == "none" else {kind: draw(ms_values)}
    time_ms = draw(positive_ms if first and kind != "delay_ms" else ms_values)
    if first and kind == "delay_ms" and time_ms == 0 and bonus[kind] == 0:
        time_ms = 1
    return Period(time_ms, moves, **bonus)


@st.composite
def time_controls(draw):
    kind = draw(st.sampled_from(["none", "unknown", "sandclock", "periods"]))
    if kind == "unknown":
        return TimeControl(unknown=True)
    limit = draw(st.one_of(st.none(), positive_ms))
    if kind == "none":
        return TimeControl(move_limit_ms=limit)
    if kind == "sandclock":
        return TimeControl(sandclock_ms=draw(positive_ms), move_limit_ms=limit)
    count = draw(st.integers(1, 4))
    return TimeControl([draw(periods(last=i == count - 1, first=i == 0)) for i in range(count)],
                       move_limit_ms=limit)


@given(time_controls())
def test_printed_time_controls_parse_back_to_themselves(tc):
    assert TimeControl.parse(str(tc)) == tc
    assert isinstance(tc.describe(), str)


@given(st.text())
@settings(max_examples=500)
def test_any_text_parses_or_raises_only_time_control_error(text):
    try:
        tc = TimeControl.parse(text)
    except TimeControlError:
        return
    assert TimeControl.parse(str(tc)) == tc


@given(st.text(alphabet="0123456789+-/:*?.dbm ", max_size=30))
@settings(max_examples=1000)
def test_near_miss_text_parses_to_a_canonical_form_or_raises_time_control_error(text):
    try:
        tc = TimeControl.parse(text)
    except TimeControlError:
        return
    canonical = str(tc)
    assert TimeControl.parse(canonical) == tc
    assert str(TimeControl.parse(canonical)) == canonical
