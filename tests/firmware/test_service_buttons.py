"""The board's GPIO buttons through the real service and session, the fake RPi.GPIO at the pins: a press, its effect."""
from __future__ import annotations

import asyncio
import json
import logging
import threading
from pathlib import Path

import pytest

from board_driver.buttons import GpioButtons
from board_driver.hw_lock import HardwareLock
from board_driver.pinmap import BUTTON_NAMES, ButtonPins
from board_driver.backends.sim import SimulatedBoard
from board_driver.backends.sim_leds import RecordingLedSink
from chess_core import Position, parse_square
from firmware.config import loads_config
from firmware.referee.gestures import BUTTONS
from firmware.service import Service, build_buttons
from tests.fakes.fake_gpio import FakeGPIO

PINS = {"resign_white": 14, "resign_black": 15, "draw": 18, "promote": 7, "return": 8, "speak": 2, "describe": 3,
        "hint": 9}


@pytest.fixture(autouse=True)
async def no_task_left_behind():
    yield
    current = asyncio.current_task()
    left = [t for t in asyncio.all_tasks() if t is not current and not t.done()]
    assert not left, f"tasks left behind: {left}"


class HandClock:
    def __init__(self) -> None:
        self.t = 50.0

    def __call__(self) -> float:
        return self.t


class FakeNotifier:
    watchdog_interval = None

    def ready(self, status: str = "") -> bool:
        return True

    def watchdog(self) -> bool:
        return True

    def status(self, text: str) -> bool:
        return True

    def stopping(self) -> bool:
        return True

    def close(self) -> None:
        pass


class Board:
    """A service on a simulated board with every button wired to the fake GPIO; time by hand."""

    def __init__(self, tmp_path: Path, extra: str = "", *, poll_s: float | None = None, buttons=None,
                 clock=None, companions=()) -> None:
        self.config = loads_config(f'[board]\nsensors = "sim"\nsettle_ms = 30\n[storage]\ndir = "{tmp_path / "state"}"\n'
                                   + extra)
        self.clock = clock or HandClock()
        self.gpio = FakeGPIO()
        self.buttons = buttons or GpioButtons(ButtonPins(tuple(PINS.items())), gpio=self.gpio,
                                              lock=HardwareLock("buttons", "the GPIO buttons", tmp_path))
        self.board = SimulatedBoard(Position().occupied, clock=self.clock)
        self.leds = RecordingLedSink()
        self.service = Service(self.config, source=self.board, leds=self.leds, notifier=FakeNotifier(),
                               clock=self.clock, opponent=None, buttons=self.buttons, button_poll_s=poll_s,
                               companions=companions)
        self.poll_s = poll_s
        self.task: asyncio.Task[int] | None = None

    async def __aenter__(self) -> "Board":
        self.task = asyncio.create_task(self.service.run())
        await asyncio.wait_for(self.service.ready.wait(), 5)
        await self.after(0.1)
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.service.stop()
        assert self.task is not None and await asyncio.wait_for(self.task, 5) == 0

    async def after(self, seconds: float) -> None:
        """Let ``seconds`` pass in 10 ms samples of the buttons, as the polling thread takes them."""
        steps = max(1, round(seconds / 0.01))
        for _ in range(steps):
            self.clock.t += seconds / steps
            if self.poll_s is None:     # (else the service's thread samples them)
                self.service.poll_buttons(self.clock.t)
        self.service.poke()
        await self.service.processed()

    async def press(self, name: str, held: float = 0.1) -> None:
        self.gpio.press_button(PINS[name])
        await self.after(held)
        self.gpio.release_button(PINS[name])
        await self.after(0.1)

    async def move(self, uci: str) -> None:
        self.board.lift(parse_square(uci[:2]))
        await self.after(0.1)
        self.board.place(parse_square(uci[2:4]))
        await self.after(0.1)


def test_the_pin_maps_buttons_are_the_gestures_the_sessions_the_voices_and_the_coachs():
    assert set(BUTTON_NAMES) == set(BUTTONS) | {"promote", "return", "speak", "describe", "hint"}


async def test_a_resign_button_resigns_through_the_session(tmp_path):
    async with Board(tmp_path) as b:
        await b.move("e2e4")
        await b.press("resign_black")
        assert b.service.session.game.outcome.result() == "1-0"
        assert b.service.session.file.recorder.load().outcome == ["resignation", 0]


async def test_a_press_shorter_than_30_ms_does_nothing(tmp_path):
    async with Board(tmp_path) as b:
        await b.move("e2e4")
        await b.press("resign_black", held=0.02)
        assert b.service.session.game.outcome is None


async def test_the_draw_button_offers_a_draw(tmp_path):
    async with Board(tmp_path) as b:
        await b.move("e2e4")
        await b.press("draw")
        assert b.service.session.game.outcome is None
        assert b.service.session.snapshot()["draw_offer"] is not None


async def test_a_button_the_session_refuses_is_said_in_the_journal_and_the_board_plays_on(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="firmware.service")
    async with Board(tmp_path) as b:
        await b.press("return")      # nobody's side was taken over
        assert "the return button: the computer is not playing for anyone" in caplog.text
        await b.move("e2e4")
        assert [m.uci() for m in b.service.session.game.moves] == ["e2e4"]


async def test_a_button_shorted_at_start_is_no_press_and_is_said_stuck_once(tmp_path, caplog):
    caplog.set_level(logging.WARNING, logger="firmware.service")
    gpio = FakeGPIO()
    gpio.press_button(PINS["resign_white"])      # shorted to ground before the board starts
    buttons = GpioButtons(ButtonPins(tuple(PINS.items())), gpio=gpio,
                          lock=HardwareLock("buttons", "the GPIO buttons", tmp_path))
    async with Board(tmp_path, buttons=buttons) as b:
        await b.move("e2e4")
        await b.after(12)
        assert b.service.session.game.outcome is None
        stuck = [r.getMessage() for r in caplog.records if "stuck" in r.getMessage()]
        assert stuck == ["the resign_white button (GPIO 14) has read pressed for more than 10 s: stuck, or its wire "
                         "shorted to ground; it does nothing until released (echiquier hwtest --doctor checks it)"]
        await b.after(12)
        assert len([r for r in caplog.records if "stuck" in r.getMessage()]) == 1


async def test_the_hint_button_asks_the_sessions_coach(tmp_path, monkeypatch):
    async with Board(tmp_path) as b:
        await b.move("e2e4")
        asked: list[float] = []
        monkeypatch.setattr(b.service.session.coach, "hint", asked.append)   # (the coach: test_coach.py)
        await b.press("hint")
        assert len(asked) == 1 and 50 < asked[0] <= b.clock.t


async def test_the_hint_button_for_a_side_not_coached_is_refused_with_a_journal_line(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="firmware.service")
    async with Board(tmp_path) as b:
        await b.move("e2e4")
        frames, moves = b.service.session.frames_shown, list(b.service.session.game.moves)
        await b.press("hint")
        assert "the hint button: the coach does not help the side to move" in caplog.text
        assert b.service.session.frames_shown == frames and b.service.session.game.moves == moves


async def test_speak_without_a_voice_or_a_page_is_said_in_the_journal(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="firmware.service")
    async with Board(tmp_path) as b:
        await b.press("speak")
        assert ("the speak button was pressed: the board has no voice ([voice] enabled) and no page to say it on"
                in caplog.text)


def wav_index(directory: Path) -> list[dict]:
    path = directory / "index.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


async def test_speak_and_describe_go_to_the_boards_voice(tmp_path):
    """No page served: the board's voice (espeak-ng, writing WAV files here) says the last move
    with the clocks, then the position, as the page's requests have it say them."""
    from firmware.voice.companion import serve_voice
    out = tmp_path / "voice"
    extra = f'[game]\ntime_control = "300+0"\n[voice]\nenabled = true\nlanguage = "en"\nwav_dir = "{out}"\n'
    async with Board(tmp_path, extra, companions=(serve_voice,)) as b:
        while b.service.voice is None:
            await asyncio.sleep(0)
        await b.move("g1f3")
        await b.press("speak")
        await b.press("describe")
        assert await asyncio.to_thread(b.service.voice.wait_idle, 20)
    said = wav_index(out)
    requested = [(u["kinds"], u["text"]) for u in said if u["kinds"][0] in ("repeat", "describe")]
    assert [kinds for kinds, _ in requested] == [["repeat"], ["describe"]]
    assert requested[0][1].startswith("Last move: knight f3") and "White: 5 minutes" in requested[0][1]
    assert requested[1][1].startswith("White: king e1") and "knights b1 and f3" in requested[1][1]
    assert all((out / u["file"]).stat().st_size > 44 for u in said)


async def test_speak_with_the_page_served_goes_to_its_live_region_and_the_boards_voice(tmp_path):
    """With the page: the press is the page's "Say the last move and the clocks", announced in
    the page state's ``said`` (the aria-live region, and the phone's voice if asked) in both
    languages, and said by the board's voice too when it has one."""
    from firmware.web.companion import build_companion, speak_with
    async with Board(tmp_path, '[game]\ntime_control = "300+0"\n') as b:
        companion = build_companion(b.service.session, b.config, clock=b.clock)
        heard: list[str] = []
        pushed: list[dict] = []

        class BoardVoice:
            muted = False

            def request(self, what: str) -> None:
                heard.append(what)

            def use_language(self, lang: str) -> None:
                pass
        try:
            speak_with(companion, b.service)
            unsubscribe = companion.backend.subscribe(lambda: pushed.append(companion.backend.said()))
            await b.move("g1f3")
            n = companion.backend.said()["n"]
            await b.press("speak")
            said = companion.backend.said()
            assert said["n"] == n + 1 and said["kinds"] == ["repeat"]
            assert said["text"]["en"].startswith("Last move: knight f3") and said["text"]["fr"].startswith("Dernier coup : cavalier f3")
            assert pushed[-1] == said      # the page is sent it (a new state)
            assert heard == []             # no board voice
            b.service.voice = BoardVoice()
            await b.press("describe")
            assert heard == ["describe"] and companion.backend.said()["kinds"] == ["describe"]
            unsubscribe()
        finally:
            companion.backend.close()
            b.service.voice = None


async def test_the_polling_thread_reads_the_buttons_beside_the_board(tmp_path):
    """The service's own thread samples the buttons and hands the presses to its loop."""

    class Watched(GpioButtons):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            self.sampled, self.seen_pressed = threading.Event(), threading.Event()

        def poll(self, now):
            events = super().poll(now)
            self.sampled.set()
            if any(self.last_read.values()):
                self.seen_pressed.set()
            return events
    gpio = FakeGPIO()
    buttons = Watched(ButtonPins(tuple(PINS.items())), gpio=gpio, lock=HardwareLock("buttons", "b", tmp_path))
    async with Board(tmp_path, buttons=buttons, poll_s=0.002) as b:
        ended = asyncio.Event()
        b.service.session.subscribe(lambda state: ended.set() if b.service.session.game.outcome else None)
        await b.move("e2e4")
        assert await asyncio.to_thread(buttons.sampled.wait, 5)      # released: a press will count
        gpio.press_button(PINS["resign_black"])
        assert await asyncio.to_thread(buttons.seen_pressed.wait, 5)
        b.clock.t += 0.05                                            # held 50 ms at its next sample
        await asyncio.wait_for(ended.wait(), 5)
        assert b.service.session.game.outcome.result() == "1-0"
    assert PINS["resign_black"] not in gpio.direction and buttons.error is None    # released at the end


async def test_buttons_that_cannot_be_read_leave_the_board_playing(tmp_path, caplog):
    class Broken(GpioButtons):
        def open(self) -> None:
            from board_driver.sensors import SensorError
            raise SensorError("RPi.GPIO is not available on this unknown machine: install 'RPi.GPIO'")
    buttons = Broken(ButtonPins((("speak", 2),)), gpio=FakeGPIO(), lock=HardwareLock("b", "b", tmp_path))
    async with Board(tmp_path, buttons=buttons) as b:
        await b.move("e2e4")
        assert [m.uci() for m in b.service.session.game.moves] == ["e2e4"]
    assert ("the buttons cannot be read (RPi.GPIO is not available on this unknown machine: install 'RPi.GPIO'): "
            "the board plays on without them") in caplog.text


def test_the_buttons_come_from_the_pin_map_of_a_board_on_the_pis_pins(tmp_path):
    reference = Path(__file__).resolve().parents[2] / "hardware" / "reference-board.toml"
    with_buttons = tmp_path / "pinmap.toml"
    with_buttons.write_text(reference.read_text() + "\n[buttons]\nspeak = 18\ndescribe = 3\n")

    def config(sensors: str, pinmap: Path) -> object:
        return loads_config(f'[board]\nsensors = "{sensors}"\npinmap = "{pinmap}"\n'
                            + ('[leds]\nsink = "none"\n' if sensors == "serial" else ""))
    buttons = build_buttons(config("gpio", with_buttons))
    assert isinstance(buttons, GpioButtons) and buttons.pins == {"speak": 18, "describe": 3}
    assert build_buttons(config("serial", with_buttons)).pins == {"speak": 18, "describe": 3}
    assert build_buttons(config("gpio", reference)) is None                     # no [buttons]
    assert build_buttons(config("serial", tmp_path / "absent.toml")) is None     # a co-processor without a pin map
    assert build_buttons(config("sim", with_buttons)) is None                    # a laptop has no pins
