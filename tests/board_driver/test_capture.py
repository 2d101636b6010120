"""Capture format v1: parsing, errors that name their line, writing, and replaying."""
from __future__ import annotations

import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from board_driver.capture import CaptureError, CaptureWriter, PromoteChoice, iter_capture, parse_capture
from board_driver.reading import Reading
from board_driver.backends.replay import ReplaySource
from board_driver.sensors import SensorError

START = "ffff00000000ffff"
GAME = f"""# Échiquier capture
0 {START}
120 ffff00000000efff   # e2 lifted
480 ffff00001000efff
900 promote n
1000 00000000000000ff ff00000000000000
"""


def test_parses_every_kind_of_line():
    events = parse_capture(GAME)
    assert events == [
        Reading(0.0, 0xFFFF00000000FFFF),
        Reading(0.12, 0xFFFF00000000EFFF),
        Reading(0.48, 0xFFFF00001000EFFF),
        PromoteChoice(0.9, "n"),
        Reading(1.0, 0xFF000000000000FF, white=0xFF, black=0xFF00000000000000),
    ]


def test_accepts_lines_uppercase_hex_and_blank_lines():
    events = parse_capture(["", "  ", "5 FFFF00000000FFFF", "5 PROMOTE Q"])
    assert events == [Reading(0.005, 0xFFFF00000000FFFF), PromoteChoice(0.005, "q")]


@pytest.mark.parametrize(
    "line, words",
    [
        ("abc ffff00000000ffff", "the time must be a whole number of milliseconds, got 'abc'"),
        ("-5 ffff00000000ffff", "whole number"),
        ("1.5 ffff00000000ffff", "whole number"),
        ("50 ffff00000000ffff", "time 50 ms goes back before the previous line's 100 ms"),
        ("200 ffff0000ffff", "the occupancy must be 16 hex digits, got 'ffff0000ffff'"),
        ("200 ffff00000000fffg", "16 hex digits"),
        ("200 0xff00000000ffff", "16 hex digits"),
        ("200 ffff00000000ffff zz", "the black squares must be 16 hex digits"),
        ("200 00000000000000ff 00000000000000ff", "squares read both white and black"),
        ("200 promote k", "promotion piece must be q, r, b or n, got 'k'"),
        ("200 promote", "expected '<t_ms> promote <q|r|b|n>'"),
        ("200", "a time alone"),
        ("200 a b c", "expected 2 or 3 fields after the time, got 3"),
    ],
)
def test_malformed_line_names_its_number_and_the_problem(line, words):
    text = f"# header\n100 {START}\n{line}\n300 {START}\n"
    with pytest.raises(CaptureError) as err:
        parse_capture(text)
    assert err.value.line == 3
    assert str(err.value).startswith("line 3: ")
    assert words in str(err.value)
    assert isinstance(err.value, ValueError)


def test_iter_capture_collects_errors_and_keeps_going():
    errors: list[CaptureError] = []
    lines = ["0 " + START, "10 nothex", "5 " + START, "3 " + START, "20 promote x", "30 " + START]
    events = list(iter_capture(lines, errors))
    # A malformed line's time is not trusted: line 3 (5 ms) follows line 1 (0 ms) fine.
    assert [e.time for e in events] == [0.0, 0.005, 0.03]
    assert [e.line for e in errors] == [2, 4, 5]


@given(st.lists(st.tuples(st.integers(0, 5000), st.integers(0, (1 << 64) - 1)), max_size=30))
def test_writer_output_parses_back_to_the_same_readings(items):
    out = io.StringIO()
    writer = CaptureWriter(out)
    t = 10.0
    written = []
    for dt, occupied in items:
        t += dt / 1000
        reading = Reading(t, occupied)
        if not written or written[-1].occupied != occupied:
            written.append(reading)
        writer(reading)
    events = parse_capture(out.getvalue())
    assert [e.occupied for e in events] == [r.occupied for r in written]
    if written:
        assert events[0].time == 0.0
        for event, reading in zip(events, written):
            assert event.time == pytest.approx(reading.time - written[0].time, abs=0.0011)


def test_writer_writes_colour_readings_promotions_and_comments():
    out = io.StringIO()
    writer = CaptureWriter(out, header="test")
    writer.write(Reading(5.0, 0x3, 0x1, 0x2))
    writer.write_promote(5.25, "r")
    writer.comment("two\nlines")
    writer.write(Reading(5.5, 0x1, 0x1, 0x0))
    assert out.getvalue() == (
        "# test\n0 0000000000000001 0000000000000002\n250 promote r\n# two\n# lines\n"
        "500 0000000000000001 0000000000000000\n"
    )
    with pytest.raises(ValueError):
        writer.write_promote(6, "k")


def test_writer_keeps_times_non_decreasing_if_the_clock_steps_back():
    out = io.StringIO()
    writer = CaptureWriter(out, header=None)
    writer.write(Reading(1.0, 1))
    writer.write(Reading(2.0, 2))
    writer.write(Reading(1.5, 3))
    assert out.getvalue().splitlines() == [f"0 {1:016x}", f"1000 {2:016x}", f"1000 {3:016x}"]


# -- replay -------------------------------------------------------------------------------------
def test_replay_as_fast_as_possible_delivers_changes_and_promotions():
    promotions = []
    source = ReplaySource(GAME.splitlines(), on_promote=promotions.append)
    got = []
    source.run(got.append)
    assert [r.occupied for r in got] == [0xFFFF00000000FFFF, 0xFFFF00000000EFFF, 0xFFFF00001000EFFF, 0xFF000000000000FF]
    assert got[-1].white == 0xFF
    assert promotions == [PromoteChoice(0.9, "n")]
    assert source.finished.is_set()
    assert source.read_once().occupied == 0xFF000000000000FF


def test_replay_reads_a_file(tmp_path):
    path = tmp_path / "game.cap"
    path.write_text(GAME)
    for arg in (path, str(path)):
        source = ReplaySource(arg)
        assert source.read_once().occupied == 0xFFFF00000000FFFF  # before it starts: the first
        assert len(source.readings) == 4


def test_replay_of_a_malformed_file_fails_at_once(tmp_path):
    path = tmp_path / "bad.cap"
    path.write_text(f"0 {START}\n10 oops\n")
    with pytest.raises(CaptureError, match="line 2"):
        ReplaySource(path)


def test_replay_skips_repeated_readings():
    source = ReplaySource([f"0 {START}", f"5 {START}", "6 promote q", f"7 {START}", f"9 {'0' * 16}"])
    got = []
    source.run(got.append)
    assert [r.time for r in got] == [0.0, 0.009]


def test_replay_in_real_time_waits_by_the_speed_factor():
    class Clock:
        t = 50.0

    waits = []

    def wait(seconds):
        waits.append(round(seconds, 6))
        Clock.t += seconds

    source = ReplaySource(GAME.splitlines(), speed=2.0, clock=lambda: Clock.t, wait=wait)
    got = []
    source.run(got.append)
    assert waits == [0.06, 0.18, 0.21, 0.05]  # (120, 480, 900, 1000 ms) / 2, differences
    assert [r.time for r in got] == [0.0, 0.12, 0.48, 1.0]  # capture times, whatever the speed


def test_replay_on_its_thread_and_stop():
    source = ReplaySource(GAME.splitlines())
    got = []
    source.start(got.append)
    assert source.finished.wait(5)
    source.stop()
    source.stop()
    assert len(got) == 4 and source.scan_count == 4


def test_stop_interrupts_a_slow_replay():
    source = ReplaySource([f"0 {START}", f"100000000 {'0' * 16}"], speed=1.0)
    got = []
    source.start(got.append)
    while not got:
        source._stopping.wait(0.001)
    source.stop()  # returns at once: the wait ends on stop
    assert len(got) == 1 and not source.finished.is_set()


def test_empty_capture():
    source = ReplaySource(["# nothing\n", "\n"])
    with pytest.raises(SensorError, match="no reading"):
        source.read_once()
    source.run(lambda r: None)
    assert source.finished.is_set()
    with pytest.raises(ValueError):
        ReplaySource(["0 " + START], speed=0)


@pytest.mark.parametrize("digits", [13, 400, 5000])
def test_a_time_with_too_many_digits_is_refused_with_its_line_number(digits):
    """Issue 12: 400-digit times crashed replay (OverflowError), 5,000 digits gave no line number."""
    words = f"the time has {digits} digits: at most 12" if digits < 4000 else "a line of 5017 characters"
    with pytest.raises(CaptureError, match=rf"line 2: {words}"):
        parse_capture(f"0 {START}\n{'9' * digits} {START}\n")


def test_a_very_long_line_is_refused_without_being_read_whole(tmp_path):
    path = tmp_path / "long.cap"
    path.write_text(f"0 {START}\n5 {START} # " + "x" * 100_000 + "\n")
    with pytest.raises(CaptureError, match="line 2: a line of 4097 characters"):
        ReplaySource(path)


def test_a_capture_file_is_streamed_not_held_in_memory(tmp_path):
    path = tmp_path / "game.cap"
    path.write_text(GAME)
    source = ReplaySource(path)
    assert not isinstance(source.events, list)   # read again as it is replayed (bench/capture_stream.py)
    got = []
    source.run(got.append)
    assert [r.occupied for r in got] == [r.occupied for r in ReplaySource(GAME.splitlines()).readings]


def test_echiquier_replay_names_the_line_of_a_huge_time(tmp_path):
    import subprocess
    import sys
    from pathlib import Path
    path = tmp_path / "bad.cap"
    path.write_text(f"0 {START}\n{'9' * 5000} {START}\n")
    done = subprocess.run([str(Path(sys.executable).with_name("echiquier")), "replay", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert "line 2" in done.stderr and "Traceback" not in done.stderr
