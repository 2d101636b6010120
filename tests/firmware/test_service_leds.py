"""The board keeps playing when its LED library is missing or its show() fails, and the page says so."""
from __future__ import annotations

import sys
from pathlib import Path

import chess.pgn

from board_driver.backends import open_leds
from board_driver.guarded_leds import GuardedLedSink
from board_driver.pinmap import REFERENCE
from firmware.config import load_config
from firmware.service import Service
from firmware.session.state import to_json
from tests.fakes.fake_neopixel import make_board_module, make_neopixel_module
from tests.fakes.hands import capture_game
from tests.said import english

ROOT = Path(__file__).resolve().parents[2]
MOVES = "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6".split()
SUDO = "NeoPixel support requires running with sudo, please try again!"


class QuietNotifier:
    watchdog_interval = None

    def ready(self, status=""): return True
    def watchdog(self): return True
    def status(self, text): return True
    def stopping(self): return True
    def close(self): pass


def neopixel_replay(tmp_path: Path) -> Path:
    (tmp_path / "game.cap").write_text(capture_game(MOVES, seed=3, amend_rate=0).text)
    (tmp_path / "pinmap.toml").write_text((ROOT / "hardware/reference-board.toml").read_text())
    config = tmp_path / "config.toml"
    config.write_text('[board]\nsensors = "replay"\ncapture = "game.cap"\nspeed = 0\npinmap = "pinmap.toml"\n'
                      '[leds]\nsink = "neopixel"\n[storage]\ndir = "state"\n')
    return config


def saved_moves(state: Path) -> list[str]:
    (game_file,) = (state / "games").glob("*.pgn")
    return [m.uci() for m in chess.pgn.read_game(open(game_file, encoding="utf-8")).mainline_moves()]


async def test_a_failing_show_turns_the_leds_off_and_the_game_goes_on(tmp_path, monkeypatch):
    neopixel = make_neopixel_module(show_error=RuntimeError(SUDO), fail_after=2)
    monkeypatch.setitem(sys.modules, "neopixel", neopixel)
    monkeypatch.setitem(sys.modules, "board", make_board_module())
    service = Service(load_config(neopixel_replay(tmp_path)), notifier=QuietNotifier())
    assert await service.run() == 0
    assert saved_moves(tmp_path / "state") == MOVES  # every move made and saved
    assert isinstance(service.leds, GuardedLedSink) and len(neopixel.instances[0].shown) == 2
    snap = english(service.session.snapshot(service.now))
    assert snap["leds_problem"].startswith("LEDs off: showing a frame failed (RuntimeError: NeoPixel support requires")
    assert "hwtest --doctor" in english(to_json(service.session.state(service.now)))["leds_problem"]


async def test_a_missing_led_library_leaves_a_board_that_plays(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "neopixel", None)  # import neopixel raises ImportError
    service = Service(load_config(neopixel_replay(tmp_path)), notifier=QuietNotifier())
    assert await service.run() == 0
    assert saved_moves(tmp_path / "state") == MOVES
    problem = english(service.session.snapshot(service.now))["leds_problem"]
    assert problem.startswith("LEDs off: opening the LED chain failed (BackendUnavailableError: cannot import 'neopixel'")


def test_working_leds_show_no_problem_and_pass_frames_through():
    neopixel = make_neopixel_module()
    sink = open_leds("neopixel", pins=REFERENCE.leds,
                     neopixel_options={"neopixel_module": neopixel, "board_module": make_board_module()})
    sink.show([0xFF0000] + [0] * 63)
    assert sink.working and sink.problem is None and len(neopixel.instances[0].shown) == 1
    sink.close()
    assert neopixel.instances[0].deinited


def test_unguarded_leds_raise_for_hwtest():
    neopixel = make_neopixel_module(show_error=RuntimeError(SUDO))
    sink = open_leds("neopixel", pins=REFERENCE.leds, guarded=False,
                     neopixel_options={"neopixel_module": neopixel, "board_module": make_board_module()})
    try:
        sink.show([0] * 64)
    except RuntimeError as exc:
        assert SUDO in str(exc)
    else:
        raise AssertionError("show() did not raise")


def test_a_pin_rpi_ws281x_cannot_drive_is_said_on_the_page_before_any_show(tmp_path):
    from board_driver.pi_platform import detect
    from board_driver.pinmap import LedPins
    from tests.fakes.fake_pi import emulated_pi
    model = detect(emulated_pi(tmp_path / "pi"))
    sink = open_leds("neopixel", pins=LedPins(data_pin=17), neopixel_options={
        "neopixel_module": make_neopixel_module(), "board_module": make_board_module(), "model": model})
    sink.show([0] * 64)
    assert sink.problem.startswith("LEDs off: opening the LED chain failed (ValueError: GPIO 17 cannot drive "
                                   "NeoPixels on a Raspberry Pi 4 Model B Rev 1.5")
