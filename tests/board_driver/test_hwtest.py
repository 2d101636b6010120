"""`echiquier hwtest` and the diagnostics behind it (grid, flicker, scan rate, LED patterns)."""
from __future__ import annotations

import io
import sys

import pytest

from board_driver import framing
from board_driver.diagnostics import (
    MatrixMonitor,
    brightness_frame,
    colours_frame,
    follow_frame,
    pattern_frame,
    render_grid,
    square_name,
    walk_frame,
)
from board_driver.framing import HOST_TO_DEVICE, FrameDecoder, FrameType
from board_driver.pinmap import REFERENCE, loads_pinmap
from board_driver.reading import Reading
from board_driver.backends.sim_leds import RecordingLedSink
from firmware.cli import build_parser, main
from tests.fakes.fake_gpio import wired
from tests.fakes.fake_serial import FakeLine

CUSTOM = """
[matrix]
rows = [2, 3, 4, 17, 27, 22, 10, 9]
cols = [11, 5, 6, 13, 19, 26, 14, 15]
active = "low"
settle_us = 0
"""


def hwtest_args(*argv):
    return build_parser().parse_args(["hwtest", *argv])


# -- --once -------------------------------------------------------------------------------------
def test_once_with_fake_prints_the_occupancy_as_16_hex_digits(capsys):
    assert main(["hwtest", "--fake", "--once"]) == 0
    assert capsys.readouterr().out == "ffff00000000ffff\n"
    assert main(["hwtest", "--fake", "--once", "--fake-occupied", "0000000000000001"]) == 0
    assert capsys.readouterr().out == "0000000000000001\n"


def test_once_reads_the_matrix_through_the_pin_map_file(tmp_path, capsys):
    path = tmp_path / "board.toml"
    path.write_text(CUSTOM)
    pinmap = loads_pinmap(CUSTOM)
    args = hwtest_args("--once", "--pinmap", str(path))
    args.gpio = wired(pinmap, 0x8000_0000_0000_1001)
    assert args.func(args) == 0
    assert capsys.readouterr().out == "8000000000001001\n"
    assert args.gpio.direction == {}  # pins released


def test_bad_pin_map_exits_2_naming_the_key(tmp_path, capsys):
    path = tmp_path / "board.toml"
    path.write_text(CUSTOM.replace("[2, 3, 4,", "[2, 2, 4,"))
    assert main(["hwtest", "--once", "--pinmap", str(path)]) == 2
    err = capsys.readouterr().err
    assert "board.toml: matrix.rows[1]: BCM pin 2 is already used by matrix.rows[0]" in err


def test_without_rpi_gpio_the_error_says_what_to_install(monkeypatch, capsys, tmp_path):
    monkeypatch.setitem(sys.modules, "RPi", None)
    path = tmp_path / "board.toml"
    path.write_text(CUSTOM)
    assert main(["hwtest", "--once", "--pinmap", str(path)]) == 2
    assert "rpi-lgpio" in capsys.readouterr().err


def test_once_through_a_coprocessor(capsys):
    line = FakeLine()

    def device(data):
        for frame in FrameDecoder(HOST_TO_DEVICE).feed(data):
            if frame.type == FrameType.READ:
                line.send(framing.encode_frame(FrameType.READING, 0, framing.encode_reading(0xF00F)))

    line.on_host_bytes = device
    args = hwtest_args("--once", "--serial", "/dev/ttyACM1")
    args.serial_factory = line.factory
    assert args.func(args) == 0
    assert capsys.readouterr().out == "000000000000f00f\n"


# -- live view ------------------------------------------------------------------------------------
def live(*argv, frames=3, leds=None, clock=None):
    args = hwtest_args("--fake", "--frames", str(frames), *argv)
    args.out = io.StringIO()
    args.sleep = lambda s: None
    args.leds = leds
    if clock is not None:
        args.clock = clock
    return args.func(args), args.out.getvalue()


def test_live_view_draws_the_grid_rank_8_on_top_and_follows_with_leds():
    leds = RecordingLedSink()
    code, out = live("--refresh", "0", leds=leds)
    assert code == 0
    screen = out.split("\n\n")[0]
    assert "8 # # # # # # # #\n7 # # # # # # # #\n6 . . . . . . . ." in screen
    assert "  a b c d e f g h" in screen and "scan rate" in screen and "flickering 0 squares" in screen
    assert "follow" in screen
    follow = leds.frames[0]
    assert follow == tuple(follow_frame(0xFFFF00000000FFFF))
    assert leds.last == (0,) * 64 and leds.closed  # dark and closed when leaving


def test_live_walk_pattern_steps_square_by_square():
    t = [0.0]

    def clock():
        t[0] += 0.25
        return t[0]

    leds = RecordingLedSink()
    code, out = live("--pattern", "walk", "--step", "0.5", leds=leds, frames=6, clock=clock)
    assert code == 0
    lit = [next(s for s, c in enumerate(f) if c) for f in list(leds.frames)[:-1]]
    assert lit == [0, 1, 2, 3]  # steps at 0, 0.25 .. 1.5 s after the start, 0.5 s each
    assert "walk: a1 lit" in out and "walk: b1 lit" in out


def test_live_without_leds():
    code, out = live("--no-leds")
    assert code == 0 and "LEDs off" in out


def test_hwtest_is_registered_in_the_cli():
    assert "hwtest" in build_parser().format_help()


# -- diagnostics ------------------------------------------------------------------------------------
def test_grid_has_a8_top_left_and_h1_bottom_right():
    grid = render_grid((1 << 56) | (1 << 7), marks=[63]).splitlines()
    assert grid[0] == "8 # . . . . . . !"
    assert grid[7] == "1 . . . . . . . #"
    assert square_name(0) == "a1" and square_name(63) == "h8" and square_name(12) == "e2"


def test_monitor_counts_flickering_squares_in_a_window():
    monitor = MatrixMonitor(window=1.0, threshold=4)
    monitor.update(Reading(0.0, 0))
    for i in range(1, 6):  # e4 bounces 5 times in 0.5 s
        monitor.update(Reading(i * 0.1, (1 << 28) if i % 2 else 0))
    monitor.update(Reading(0.6, (1 << 28) | 1))  # a1 placed once
    assert monitor.flickering(0.6) == {28: 5}
    assert "flickering 1 squares (! above): e4 x5" in monitor.render(0.6)
    assert monitor.flickering(1.55) == {}  # the bounces left the window
    assert monitor.changes[28] == 5 and monitor.changes[0] == 1


def test_monitor_scan_rate():
    monitor = MatrixMonitor(window=2.0)
    assert monitor.scan_rate is None
    for i in range(11):
        monitor.count_scans(i * 0.5, i * 250)
    assert monitor.scan_rate == pytest.approx(500.0)


def test_patterns():
    assert walk_frame(65) == walk_frame(1) and walk_frame(1)[1] == 0xFFFFFF and sum(walk_frame(1)) == 0xFFFFFF
    assert {tuple(colours_frame(i))[0] for i in range(4)} == {0xFF0000, 0x00FF00, 0x0000FF, 0xFFFFFF}
    assert brightness_frame(7)[0] == 0xFFFFFF and brightness_frame(0)[0] == 0x1F1F1F
    assert pattern_frame("follow", 0, 0b101)[:3] == [0x00FF00, 0, 0x00FF00]
    assert pattern_frame("off", 3) == [0] * 64
    with pytest.raises(ValueError):
        pattern_frame("disco", 0)
    assert REFERENCE.leds is not None


# -- the buttons, live ----------------------------------------------------------------------------
def test_live_view_shows_each_button_and_counts_its_presses(tmp_path):
    text = CUSTOM + "\n[buttons]\nspeak = 18\nresign_white = 7\n"
    path = tmp_path / "buttons.toml"
    path.write_text(text)
    pinmap = loads_pinmap(text)
    args = hwtest_args("--fake", "--frames", "4", "--pinmap", str(path), "--no-leds")
    args.out = io.StringIO()
    args.gpio = gpio = wired(pinmap, 0)
    args.button_poll_s = None            # sampled at each refresh, time by hand
    t = [0.0]

    def clock():
        t[0] += 0.05
        return t[0]
    frames = iter([lambda: gpio.press_button(18), lambda: None, lambda: gpio.release_button(18)])
    args.clock = clock
    args.sleep = lambda s: next(frames)()
    assert args.func(args) == 0
    screens = args.out.getvalue().split("Ctrl-C to quit")
    assert "speak         GPIO 18  0 presses  released" in screens[0]
    assert "resign_white  GPIO 7   0 presses  released" in screens[0]
    assert "speak         GPIO 18  0 presses  pressed" in screens[1]      # held, not 30 ms yet when sampled
    assert "speak         GPIO 18  1 press  pressed" in screens[2]
    assert "speak         GPIO 18  1 press  released" in screens[3]
    assert gpio.direction == {}                                        # every pin released at the end


def test_the_button_monitor_says_a_stuck_button_until_it_is_released():
    from board_driver.buttons import ButtonPress, ButtonStuck
    from board_driver.diagnostics import ButtonMonitor
    monitor = ButtonMonitor({"draw": 18})
    monitor.update(ButtonPress("draw", 1.0))
    monitor.update(ButtonStuck("draw", 0.97, 11.0))
    monitor.sample({"draw": True})
    assert monitor.render().splitlines()[1] == "  draw  GPIO 18  1 press  STUCK: held over 10 s, stuck or shorted to ground"
    monitor.sample({"draw": False})
    assert monitor.render().splitlines()[1] == "  draw  GPIO 18  1 press  released"
