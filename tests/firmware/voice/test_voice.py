"""The voice beside a real session: each state heard on the loop, announced on the voice's own thread after the LED frame, requests, stops."""
from __future__ import annotations

import shutil
import threading

import pytest

from chess_core import parse_square
from firmware.config import loads_config
from firmware.voice.announcer import Announcer
from firmware.voice.companion import Voice, build_voice
from firmware.voice.speaker import Speaker, SpeechSettings

from ..session_support import Table
from .test_speaker import FakeProcess


class Events:
    """LED frames shown and speech processes started, in the order they happened (any thread)."""

    def __init__(self, table: Table) -> None:
        self.log: list[tuple[str, object]] = []
        self._lock = threading.Lock()
        show = table.leds.show

        def shown(colours) -> None:
            show(colours)
            with self._lock:
                self.log.append(("frame", tuple(colours)))
        table.leds.show = shown

    def spawn(self, argv: list[str]) -> FakeProcess:
        process = FakeProcess(argv)
        process.end()   # (said at once)
        with self._lock:
            self.log.append(("speech", argv[-1]))
        return process

    def spoken(self) -> list[str]:
        return [text for kind, text in self.log if kind == "speech"]


def voice_on(table: Table, events: Events, lang: str = "fr", moves: str = "all") -> Voice:
    speaker = Speaker(SpeechSettings(), spawn=events.spawn)
    voice = Voice(Announcer(lang, moves), speaker, clock=lambda: table.t)
    table.session.subscribe(voice.on_state)
    voice.on_state(table.session.state())
    voice.start()
    return voice


def test_each_move_is_said_on_the_voices_thread_after_its_led_frame(tmp_path):
    table = Table(tmp_path)
    events = Events(table)
    voice = voice_on(table, events)
    try:
        table.setup()
        for uci in ("e2e4", "e7e5", "g1f3"):
            table.play(uci)
            assert voice.wait_idle(10)
    finally:
        voice.stop(finish=True)
    assert events.spoken() == ["La partie commence", "e4", "e5", "Cavalier f3"]
    said = events.log.index(("speech", "Cavalier f3"))
    g1, f3 = parse_square("g1"), parse_square("f3")
    frames_before = [frame for kind, frame in events.log[:said] if kind == "frame"]
    assert frames_before and frames_before[-1][g1] and frames_before[-1][f3]   # the last move lit first
    assert len(voice.latencies) == 4 and all(0 <= s < 1 for s in voice.latencies)


def test_a_prompt_that_stands_is_said_when_the_thread_wakes_at_its_time(tmp_path):
    table = Table(tmp_path)
    events = Events(table)
    voice = voice_on(table, events)
    try:
        table.setup()
        table.play("e2e4")
        table.lift("g8")
        table.place("g5")
        assert voice.wait_idle(10)
        assert events.spoken()[-1] == "e4"   # not yet: a hand may be on its way
        table.wait(0.5)
        voice.poke()
        assert voice.wait_idle(10)
    finally:
        voice.stop()
    assert events.spoken()[-1] == "Coup illégal (trait aux Noirs) : remettez le cavalier de g5 en g8"


def test_requests_repeat_describe_and_the_clocks(tmp_path):
    table = Table(tmp_path, time_control="300+0")
    events = Events(table)
    voice = voice_on(table, events, "en")
    try:
        table.setup()
        table.play_all("e2e4 e7e5")
        voice.request("repeat")
        voice.request("describe")
        voice.request("clocks")
        assert voice.wait_idle(10)
        with pytest.raises(ValueError, match="repeat, describe, clocks"):
            voice.request("sing")
    finally:
        voice.stop()
    repeat, describe, clocks = events.spoken()[-3:]
    assert repeat.startswith("Last move: e5. White: 4 minutes") and "Black: 4 minutes" in repeat
    assert describe.startswith("White: king e1, queen d1") and describe.endswith("White to move")
    assert clocks.startswith("White: 4 minutes") and clocks == repeat.split(". ", 1)[1]


def test_build_voice_reads_the_voice_section(tmp_path):
    config = loads_config(f'[voice]\nenabled = true\nlanguage = "fr"\nvoice = "mb-fr1"\nrate = 140\nvolume = 80\n'
                          f'moves = "opponent"\nwav_dir = "{tmp_path / "wav"}"\n')
    voice = build_voice(config)
    assert (voice.announcer.lang, voice.announcer.moves) == ("fr", "opponent")
    settings = voice.speaker.settings
    assert (settings.voice, settings.rate, settings.volume, settings.device) == ("mb-fr1", 140, 80, "")
    assert voice.speaker.out_dir == tmp_path / "wav"
    voice.speaker.close()
    assert build_voice(loads_config("[voice]\nenabled = true\n")).announcer.lang == "en"   # "page": until it says


@pytest.mark.parametrize("text, problem", [
    ('[voice]\nlanguage = "de"', "voice.language: expected one of 'fr', 'en', 'page', got 'de'"),
    ('[voice]\nmoves = "mine"', "voice.moves: expected one of 'all', 'opponent', 'none', got 'mine'"),
    ('[voice]\nrate = 1000', "voice.rate: expected a number from 80 to 450, got 1000"),
    ('[voice]\nvolume = -1', "voice.volume: expected a number from 0 to 200, got -1")])
def test_a_bad_voice_section_is_named(text, problem):
    from firmware.config import ConfigError
    with pytest.raises(ConfigError, match=problem):
        loads_config(text)


def test_sim_says_when_espeak_ng_is_missing(tmp_path, capsys, monkeypatch):
    import shutil

    from firmware.cli import main
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert main(["sim", "--port", "0", "--state-dir", str(tmp_path), "--voice", "fr"]) == 2
    assert "--voice and --voice-out need espeak-ng (Debian: sudo apt install espeak-ng)" in capsys.readouterr().err


def test_a_voice_set_to_the_pages_language_speaks_the_language_the_page_says():
    follows = build_voice(loads_config("[voice]\nenabled = true\n"))
    fixed = build_voice(loads_config('[voice]\nenabled = true\nlanguage = "en"\n'))
    for voice in (follows, fixed):
        voice.use_language("fr")
        voice.use_language("de")   # (no such voice: kept)
    assert (follows.announcer.lang, fixed.announcer.lang) == ("fr", "en")


def test_the_pages_switch_silences_the_board_at_once_and_it_speaks_of_news_only_after(tmp_path):
    table = Table(tmp_path)
    events = Events(table)
    voice = voice_on(table, events)
    try:
        table.setup()
        table.play("e2e4")
        assert voice.wait_idle(10)
        voice.mute(True)
        table.play_all("e7e5 g1f3")
        assert voice.wait_idle(10)
        assert events.spoken()[-1] == "e4"
        voice.mute(False)
        table.play("b8c6")
        assert voice.wait_idle(10)
    finally:
        voice.stop()
    assert events.spoken()[-2:] == ["e4", "Cavalier c6"]   # (not e5 nor Nf3, said while it was off)


# -- a hung espeak-ng and the stop; a failure told once (issue 32, item 7) -------------------------

@pytest.mark.parametrize("to_files", [False, True], ids=["sound card", "wav files"])
def test_a_stop_ends_a_hung_espeak_within_its_bound(tmp_path, to_files):
    from .test_speaker import Spawned, finishes_within, hanging_espeak, needs_espeak  # noqa: F401
    if shutil.which("espeak-ng") is None:
        pytest.skip("needs espeak-ng")
    spawned = Spawned()
    speaker = Speaker(SpeechSettings(program=hanging_espeak(tmp_path, always=True)), spawn=spawned,
                      out_dir=tmp_path / "wav" if to_files else None)
    table = Table(tmp_path)
    voice = Voice(Announcer("fr", "all"), speaker, clock=lambda: table.t)
    table.session.subscribe(voice.on_state)
    voice.on_state(table.session.state())
    voice.start()
    try:
        table.setup()        # "La partie commence": hangs
        table.play("e2e4")   # "e4": waits behind it, or cuts it and hangs
        took = finishes_within(12, lambda: voice.stop(finish=True))
    finally:
        spawned.end_all()
    assert took < 9     # (the service's stop has 10 s in all)
    assert spawned.started and all(p.returncode is not None for p in spawned.started)


def test_a_clock_warning_after_a_hung_utterance_is_said_on_the_voices_thread(tmp_path):
    from .test_speaker import Spawned, hanging_espeak
    if shutil.which("espeak-ng") is None:
        pytest.skip("needs espeak-ng")
    spawned = Spawned(wanted="White: 5 minutes")
    speaker = Speaker(SpeechSettings(program=hanging_espeak(tmp_path, always=True)), spawn=spawned, floor_s=0.3)
    table = Table(tmp_path, time_control="300+0")
    voice = Voice(Announcer("en", "all"), speaker, clock=lambda: table.t)
    table.session.subscribe(voice.on_state)
    voice.on_state(table.session.state())
    voice.start()
    try:
        table.setup()                    # "The game begins" (short: a 2.6 s limit) hangs
        assert voice.wait_idle(10)
        voice.request("clocks")          # waits for the news being said
        assert spawned.heard.wait(20)    # said once the hung one is ended at its limit
    finally:
        voice.stop()
        spawned.end_all()
    assert speaker.hung == 1 and voice.failed


def test_a_voice_that_fails_tells_it_once(tmp_path):
    told = []
    speaker = Speaker(SpeechSettings(program=str(tmp_path / "no-espeak")))
    table = Table(tmp_path)
    voice = Voice(Announcer("fr", "all"), speaker, clock=lambda: table.t)
    voice.on_failure = lambda: told.append(threading.current_thread().name)
    table.session.subscribe(voice.on_state)
    voice.on_state(table.session.state())
    voice.start()
    try:
        table.setup()
        table.play_all("e2e4 e7e5")
        assert voice.wait_idle(10)
    finally:
        voice.stop()
    assert told == ["voice"] and voice.failed


async def test_the_services_voice_that_fails_is_said_once_in_the_page_state(tmp_path, monkeypatch):
    import asyncio
    import subprocess
    import types

    from firmware.config import with_overrides
    from firmware.session.state import to_json
    from firmware.tasks import cancel_and_wait
    from firmware.voice import companion, speaker

    def no_program(*args, **kwargs):
        raise FileNotFoundError(2, "No such file or directory")
    # the process boundary: espeak-ng cannot start
    monkeypatch.setattr(speaker, "subprocess", types.SimpleNamespace(
        Popen=no_program, PIPE=subprocess.PIPE, DEVNULL=subprocess.DEVNULL, TimeoutExpired=subprocess.TimeoutExpired))
    table = Table(tmp_path)
    config = with_overrides(table.config, voice={"enabled": True, "language": "fr"})
    service = types.SimpleNamespace(ready=asyncio.Event(), session=table.session, config=config, voice=None)
    service.offer = lambda voice=None: setattr(service, "voice", voice)   # (the voice lent to the board)
    service.ready.set()
    heard = []
    table.session.subscribe(lambda state: heard.append(to_json(state)["failed_helpers"]))
    task = asyncio.create_task(companion.serve_voice(service))
    try:
        while service.voice is None:
            await asyncio.sleep(0.01)
        table.setup()                     # "La partie commence": espeak-ng cannot start
        table.play_all("e2e4 e7e5")       # nor again: said once
        async with asyncio.timeout(20):
            while not (heard and heard[-1]) or not service.voice.wait_idle(0):
                await asyncio.sleep(0.01)
    finally:
        await cancel_and_wait(task)
    assert [h["helper"] for h in heard[-1]] == ["voice"]
    assert heard[-1][0]["text_fr"].startswith("La voix de l'échiquier est en panne")
    assert table.session.board_state.failed_helpers == ("voice",)
