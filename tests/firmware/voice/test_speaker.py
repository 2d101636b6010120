"""espeak-ng's process: its command line, a newer announcement cutting a stale one, WAV files whole and in order with their index, a hung one ended, no sound card said."""
from __future__ import annotations

import logging
import os
import shutil
import signal
import subprocess
import threading
import time
import wave
from array import array
from pathlib import Path

import pytest

from firmware.voice.announcer import Utterance
from firmware.voice.speaker import Speaker, SpeechSettings, alsa_error, command, read_index, time_limit
from firmware.words.spoken import SPOKEN

ESPEAK = shutil.which("espeak-ng")
needs_espeak = pytest.mark.skipif(ESPEAK is None, reason="needs espeak-ng (scripts/install-system-deps.sh)")


class FakeProcess:
    """A speech process that runs until the test ends it (``end``) or the speaker cuts it."""

    def __init__(self, argv: list[str]) -> None:
        self.argv = argv
        self.code: int | None = None
        self.terminated = False
        self.stderr = None

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


def test_each_language_is_said_in_the_espeak_ng_voice_its_spoken_catalogue_names():
    assert command(SpeechSettings(), utterance("Springer f3", lang="de"))[:3] == ["espeak-ng", "-v", "de"]
    assert command(SpeechSettings(), utterance("Remis durch Patt", lang="de"))[-1] == "[[r@m'i:]] durch Patt"
    assert command(SpeechSettings(voice="mb-de1"), utterance("Springer f3", lang="de"))[2] == "mb-de1"
    assert command(SpeechSettings(), utterance("Knight f3", lang="xx"))[2] == "en"   # (a language it does not know)


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


@needs_espeak
@pytest.mark.parametrize("lang", sorted(SPOKEN))
def test_espeak_ng_has_the_voice_of_every_language(lang):
    listed = subprocess.run([ESPEAK, f"--voices={SPOKEN[lang].espeak}"], capture_output=True, text=True, check=True)
    assert len(listed.stdout.splitlines()) > 1, listed.stdout   # (a header, then the voices of that language)


def _ipa(voice: str, text: str) -> str:
    """The phonemes espeak-ng makes of ``text`` in ``voice`` (what a WAV of it says)."""
    return subprocess.run([ESPEAK, "-v", voice, "-q", "--ipa", "--", text], capture_output=True, text=True,
                          check=True, env={**os.environ, "LC_ALL": "C.UTF-8"}).stdout


@needs_espeak
def test_german_is_written_to_wav_files_by_espeak_ngs_german_voice(tmp_path):
    """The real espeak-ng, through the speaker: each German utterance is a WAV file of speech made
    with the German voice (its command line's), whose phonemes are German ("Springer" with the
    German [ʃp], "Remis" as [rəˈmiː]); the same text in the English voice is another sound."""
    argvs: list[list[str]] = []

    def spawn(argv: list[str]) -> subprocess.Popen:
        argvs.append(argv)
        return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    speaker = Speaker(SpeechSettings(), out_dir=tmp_path, spawn=spawn)
    said = [utterance("Springer f3", lang="de"), utterance("Dame h4, Schachmatt, Schwarz gewinnt", "ending", lang="de"),
            utterance("Remis durch Patt", "ending", lang="de")]
    for u in said:
        speaker.say(u)
    speaker.close()
    index = read_index(tmp_path)
    assert [(e["text"], e["lang"]) for e in index] == [(u.text, "de") for u in said]
    for entry in index:
        seconds, peak = wav_seconds_and_peak(tmp_path / entry["file"])
        assert peak > 3000 and seconds > 0.4, entry   # speech, not silence
    assert [argv[1:3] for argv in argvs] == [["-v", "de"]] * 3
    assert "ʃp" in _ipa("de", argvs[0][-1]) and "ʃp" not in _ipa("en", argvs[0][-1])   # Springer, the German way
    assert "ʃˈax" in _ipa("de", argvs[1][-1])                                         # Schach(matt)
    assert "rəmˈiː" in _ipa("de", argvs[2][-1])                                        # Remis: [rəˈmiː]
    english = tmp_path / "english"
    english.mkdir()
    other = Speaker(SpeechSettings(voice="en"), out_dir=english)
    other.say(utterance("Springer f3", lang="de"))
    other.close()
    assert (english / "0001.wav").read_bytes() != (tmp_path / "0001.wav").read_bytes()


def test_hush_stops_what_is_said_and_what_waits():
    spawn = Spawner()
    speaker = Speaker(SpeechSettings(), spawn=spawn)
    speaker.say(utterance("Stockfish joue fou c4, à vous de le jouer sur l'échiquier", "opponent"))
    speaker.say(utterance("30 secondes", "clock"))
    speaker.hush()
    assert spawn.started[0].terminated and not speaker.speaking and not speaker.waiting
    assert speaker.tick() is None and len(spawn.started) == 1


# -- a hung espeak-ng, a killed run, no sound card (issue 32, item 7) ------------------------------

# espeak-ng's stand-in at the process boundary: deaf to SIGTERM, it sleeps on any text with "hang"
# in it (on every text if HANG_ALL is set) and hands the others to the real espeak-ng.
HANG_SCRIPT = """#!/bin/sh
trap '' TERM
for last; do :; done
case "$HANG_ALL$last" in *hang*) exec sleep 600;; esac
exec espeak-ng "$@"
"""


def hanging_espeak(tmp_path: Path, always: bool = False) -> str:
    script = tmp_path / ("hang-all" if always else "hang")
    script.write_text(HANG_SCRIPT.replace("$HANG_ALL", "hang" if always else ""))
    script.chmod(0o755)
    return str(script)


class Spawned:
    """The real processes started (to end them as a kill would)."""

    def __init__(self, wanted: str = "") -> None:
        self.started: list[subprocess.Popen] = []
        self.wanted = wanted
        self.heard = threading.Event()   # a text with ``wanted`` in it was handed to a process

    def __call__(self, argv: list[str]) -> subprocess.Popen:
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE)
        self.started.append(process)
        if self.wanted and self.wanted in argv[-1]:
            self.heard.set()
        return process

    def end_all(self) -> None:
        for process in self.started:
            if process.poll() is None:
                process.kill()
                process.wait()


def finishes_within(seconds: float, work) -> float:
    """Run ``work`` on a thread; it must end within ``seconds`` (the test fails, not hangs)."""
    start = time.monotonic()
    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still waiting after {seconds} s"
    return time.monotonic() - start


def test_an_utterances_time_limit_grows_with_its_text_and_a_slower_rate():
    short, long = time_limit("e4"), time_limit("Stockfish joue fou c4, à vous de le jouer sur l'échiquier")
    assert 5 <= short < long < 20
    assert time_limit("e4", rate=80) > short and time_limit("e4", floor_s=0.5) < 1


def test_a_clock_warning_waiting_for_a_hung_utterance_is_said_at_its_time_limit():
    now = [100.0]
    spawn = Spawner()
    speaker = Speaker(SpeechSettings(), spawn=spawn, clock=lambda: now[0])
    speaker.say(utterance("Stockfish joue fou c4, à vous de le jouer sur l'échiquier", "opponent"))
    assert speaker.say(utterance("30 secondes", "clock")) is None
    deadline = speaker.deadline()
    assert deadline is not None and deadline > now[0]
    now[0] = deadline - 0.01
    assert speaker.tick() is None and speaker.waiting      # (still within its time)
    now[0] = deadline
    assert speaker.tick() == deadline                     # the hung one ended, the warning said
    assert spawn.started[0].terminated and spawn.texts()[1:] == ["30 secondes"] and speaker.hung == 1
    assert speaker.troubles == 1


@needs_espeak
def test_a_hung_espeak_is_ended_at_its_time_limit_and_the_next_file_still_comes(tmp_path, caplog):
    speaker = Speaker(SpeechSettings(program=hanging_espeak(tmp_path)), out_dir=tmp_path / "wav", floor_s=0.5)

    def speak() -> None:
        for text in ("e4", "hang", "e5"):
            speaker.say(utterance(text))
        speaker.close()
    with caplog.at_level(logging.WARNING):
        finishes_within(30, speak)
    assert [(e["n"], e["file"], e["text"]) for e in read_index(tmp_path / "wav")] == [
        (1, "0001.wav", "e4"), (2, "0002.wav", "e5")]      # the hung one's file is not kept
    assert sorted(os.listdir(tmp_path / "wav")) == ["0001.wav", "0002.wav", "index.jsonl"]
    assert speaker.hung == 1 and any("hung on 'hang'" in r.message for r in caplog.records)


@needs_espeak
def test_a_killed_run_lists_no_missing_file_and_the_next_run_numbers_after_the_last(tmp_path):
    spawned = Spawned()
    out = tmp_path / "wav"
    first = Speaker(SpeechSettings(program=hanging_espeak(tmp_path)), out_dir=out, spawn=spawned)
    try:
        finishes_within(30, lambda: (first.say(utterance("e4")), first.say(utterance("hang e5"))))
    finally:
        for process in spawned.started:   # the service killed (SIGKILL) while "hang e5" is said
            process.send_signal(signal.SIGKILL) if process.poll() is None else None
        spawned.end_all()
    assert [e["file"] for e in read_index(out)] == ["0001.wav"]
    second = Speaker(SpeechSettings(), out_dir=out)
    finishes_within(30, lambda: (second.say(utterance("Cavalier f3")), second.close()))
    index = read_index(out)
    assert [(e["n"], e["file"], e["text"]) for e in index] == [(1, "0001.wav", "e4"), (2, "0002.wav", "Cavalier f3")]
    assert all((out / e["file"]).exists() for e in index)


ALSA_NO_CARD = """ALSA lib confmisc.c:855:(parse_card) cannot find card '0'
ALSA lib conf.c:5180:(_snd_config_evaluate) function snd_func_card_inum returned error: No such file or directory
ALSA lib conf.c:5703:(snd_config_expand) Evaluate error: No such file or directory
ALSA lib pcm.c:2666:(snd_pcm_open_noupdate) Unknown PCM default
error: No such file or directory
"""   # espeak-ng 1.51 on a machine without a sound card; it exits 0


def test_alsas_complaint_is_recognised_in_espeaks_error_output():
    assert alsa_error(ALSA_NO_CARD) == "Unknown PCM default"
    assert alsa_error("ALSA lib confmisc.c:165:(snd_config_get_card) Cannot get card index for 3\n") == \
        "Cannot get card index for 3"
    assert alsa_error("") is None and alsa_error("espeak-ng: voice not found\n") is None


def _sound_cards() -> bool:
    try:
        return any(line.strip()[:1].isdigit() for line in Path("/proc/asound/cards").read_text().splitlines())
    except OSError:
        return False


@needs_espeak
@pytest.mark.skipif(_sound_cards(), reason="this machine has a sound card: espeak-ng speaks")
def test_no_sound_card_is_said_once_in_the_journal(caplog):
    spawned = Spawned()
    speaker = Speaker(SpeechSettings(), spawn=spawned)
    with caplog.at_level(logging.WARNING):
        for text in ("e4", "e5", "Cavalier f3"):
            speaker.say(utterance(text))
            spawned.started[-1].wait(20)
        speaker.close(finish=True)
    said = [r.message for r in caplog.records]
    assert len(said) == 1 and "no sound card" in said[0] and "Unknown PCM default" in said[0], said
    assert speaker.troubles == 1 and speaker.no_sound == "Unknown PCM default"
