"""espeak-ng's process: its command line, a newer announcement cutting a stale one, WAV files whole and in order with their index."""
from __future__ import annotations

import logging
import os
import shutil
import wave
from array import array
from pathlib import Path

import pytest

from firmware.voice.announcer import Utterance
from firmware.voice.speaker import Speaker, SpeechSettings, command, read_index

ESPEAK = shutil.which("espeak-ng")
needs_espeak = pytest.mark.skipif(ESPEAK is None, reason="needs espeak-ng (scripts/install-system-deps.sh)")


class FakeProcess:
    """A speech process that runs until the test ends it (``end``) or the speaker cuts it."""

    def __init__(self, argv: list[str]) -> None:
        self.argv = argv
        self.code: int | None = None
        self.terminated = False

    def poll(self) -> int | None:
        return self.code

    def terminate(self) -> None:
        self.terminated = True
        self.code = -15

    def kill(self) -> None:
        self.code = -9

    def wait(self, timeout: float | None = None) -> int:
        assert self.code is not None, "waited for a process that never ends"
        return self.code

    def end(self) -> None:
        self.code = 0


class Spawner:
    def __init__(self) -> None:
        self.started: list[FakeProcess] = []

    def __call__(self, argv: list[str]) -> FakeProcess:
        process = FakeProcess(argv)
        self.started.append(process)
        return process

    def texts(self) -> list[str]:
        return [p.argv[-1] for p in self.started]


def utterance(text: str, *kinds: str, lang: str = "fr") -> Utterance:
    return Utterance(text, lang, kinds or ("move",))


def test_the_command_line_says_the_voice_rate_volume_and_device():
    settings = SpeechSettings(voice="", rate=150, volume=120, device="plughw:1,0")
    assert command(settings, utterance("Cavalier f3")) == [
        "espeak-ng", "-v", "fr", "-s", "150", "-a", "120", "-d", "plughw:1,0", "--", "Cavalier f3"]
    assert command(SpeechSettings(voice="mb-fr1"), utterance("Tour a d1"), Path("/tmp/x/0001.wav")) == [
        "espeak-ng", "-v", "mb-fr1", "-s", "160", "-a", "100", "-w", "/tmp/x/0001.wav", "--", "Tour a d1"]
    assert command(SpeechSettings(), utterance("Rook a d1", lang="en"))[-1] == "Rook A d1"   # the letter A


def test_a_newer_announcement_cuts_a_stale_one():
    spawn = Spawner()
    speaker = Speaker(SpeechSettings(), spawn=spawn, clock=lambda: 5.0)
    assert speaker.say(utterance("e4")) == 5.0
    assert speaker.speaking
    assert speaker.say(utterance("Stockfish joue e5, à vous de le jouer sur l'échiquier", "opponent")) == 5.0
    first, second = spawn.started
    assert first.terminated and not second.terminated and speaker.cut == 1
    second.end()
    assert not speaker.speaking
    assert speaker.say(utterance("Cavalier f3")) == 5.0 and speaker.cut == 1   # nothing to cut


def test_a_clock_warning_waits_for_the_news_being_said_and_another_warning_replaces_it():
    spawn = Spawner()
    speaker = Speaker(SpeechSettings(), spawn=spawn)
    speaker.say(utterance("Stockfish joue fou c4, à vous de le jouer sur l'échiquier", "opponent"))
    assert speaker.say(utterance("30 secondes", "clock")) is None
    assert speaker.say(utterance("10 secondes", "clock")) is None
    assert speaker.waiting and len(spawn.started) == 1 and speaker.tick() is None   # still speaking
    spawn.started[0].end()
    assert speaker.tick() is not None
    assert spawn.texts()[1:] == ["10 secondes"] and not spawn.started[0].terminated
    assert speaker.say(utterance("Cavalier f3")) is not None   # news cuts a warning
    assert spawn.started[1].terminated


def test_a_voice_that_cannot_start_is_said_once_in_the_journal_and_the_board_goes_on(caplog):
    speaker = Speaker(SpeechSettings(program="/nonexistent/espeak-ng"))
    with caplog.at_level(logging.ERROR):
        assert speaker.say(utterance("e4")) is None
        assert speaker.say(utterance("e5")) is None
    assert speaker.failed and [r.message for r in caplog.records] == [
        "the voice cannot speak: /nonexistent/espeak-ng cannot start (No such file or directory)"]


def wav_seconds_and_peak(path: Path) -> tuple[float, int]:
    with wave.open(str(path)) as w:
        assert (w.getnchannels(), w.getsampwidth()) == (1, 2)
        samples = array("h", w.readframes(w.getnframes()))
        return w.getnframes() / w.getframerate(), max((abs(s) for s in samples), default=0)


@needs_espeak
def test_wav_files_one_per_utterance_whole_in_order_with_their_index(tmp_path):
    speaker = Speaker(SpeechSettings(), out_dir=tmp_path)
    said = [utterance("Cavalier f3"), utterance("Stockfish joue fou c4, à vous de le jouer sur l'échiquier",
                                                "opponent"), utterance("Knight f3", lang="en")]
    for u in said:
        speaker.say(u)
    speaker.close()
    assert speaker.cut == 0
    index = read_index(tmp_path)
    assert [(e["n"], e["file"], e["text"], e["lang"], e["kinds"]) for e in index] == [
        (1, "0001.wav", "Cavalier f3", "fr", ["move"]),
        (2, "0002.wav", "Stockfish joue fou c4, à vous de le jouer sur l'échiquier", "fr", ["opponent"]),
        (3, "0003.wav", "Knight f3", "en", ["move"])]
    lengths = []
    for entry in index:
        seconds, peak = wav_seconds_and_peak(tmp_path / entry["file"])
        assert peak > 3000, entry   # speech, not silence
        lengths.append(seconds)
    assert 0.4 < lengths[0] < 3 and lengths[1] > 2 * lengths[0]
    assert sorted(os.listdir(tmp_path)) == ["0001.wav", "0002.wav", "0003.wav", "index.jsonl"]


@needs_espeak
def test_a_second_run_writing_to_the_same_directory_goes_on_after_the_first(tmp_path):
    first = Speaker(SpeechSettings(), out_dir=tmp_path)
    first.say(utterance("e4"))
    first.close()
    second = Speaker(SpeechSettings(), out_dir=tmp_path)
    second.say(utterance("e5"))
    second.close()
    assert [(e["n"], e["file"], e["text"]) for e in read_index(tmp_path)] == [(1, "0001.wav", "e4"),
                                                                           (2, "0002.wav", "e5")]


def test_hush_stops_what_is_said_and_what_waits():
    spawn = Spawner()
    speaker = Speaker(SpeechSettings(), spawn=spawn)
    speaker.say(utterance("Stockfish joue fou c4, à vous de le jouer sur l'échiquier", "opponent"))
    speaker.say(utterance("30 secondes", "clock"))
    speaker.hush()
    assert spawn.started[0].terminated and not speaker.speaking and not speaker.waiting
    assert speaker.tick() is None and len(spawn.started) == 1
