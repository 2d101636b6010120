"""espeak-ng in a process of its own for each utterance, within a time limit: a newer announcement cuts a stale one; or one WAV file per utterance and an index of the texts.

The :class:`Speaker` is driven by one thread (the voice's, firmware.voice.companion), never the
board's loop. Through the sound card (``[voice] device``, ALSA or PipeWire's name; "" the
default one), an utterance that comes while another is said cuts it: the news is the newer one.
Only a clock's warning waits for what is being said (a move, a prompt) to end. With ``out_dir``
(``--voice-out DIR``) nothing is cut: each utterance is written whole, in order, to
``0001.wav``, ``0002.wav``... (the voice's thread waits for each) and, once its file is written, a line of ``index.jsonl`` says its
text, its language and what it is about, for tests and for machines without sound; a later run
goes on numbering after the last file or line.

Every utterance has a time limit (:func:`time_limit`: a floor and an allowance for each
character, slower speech more): a process still running then is hung, and is ended (the next
utterance comes after it). espeak-ng exits 0 when ALSA cannot open the sound card; what it
writes on its error output tells, and the journal says it once. ``troubles`` counts what went
wrong (a process that cannot start, a hung one, no sound card), which the page says once.
"""
from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Callable, Protocol

from firmware.voice.announcer import Utterance
from firmware.voice.phrases import speakable
from firmware.words.spoken import spoken

log = logging.getLogger(__name__)

PROGRAM = "espeak-ng"
INDEX = "index.jsonl"
REAP_S = 1.0            # how long a cut process is given to end before it is killed, and then to be reaped
LIMIT_FLOOR_S = 5.0     # an utterance's time limit: this (the process's start on a Pi Zero, with room)...
LIMIT_PER_CHAR_S = 0.15  # ... and this per character at 160 words a minute (speech takes 0.06)
RATE = 160
STDERR_BUDGET = 16384   # bytes of espeak-ng's error output read after it ends
_WAV = re.compile(r"^(\d{4,})\.wav$")
_ALSA = re.compile(r"^ALSA lib .*?\)\s*(.*?)\s*$", re.MULTILINE)


@dataclass(frozen=True)
class SpeechSettings:
    """How espeak-ng speaks (``[voice]`` of the configuration)."""

    voice: str = ""          # espeak-ng's voice ("mb-fr1", "en-gb"...); "": the utterance's language's own
    rate: int = RATE         # words a minute
    volume: int = 100        # espeak-ng's amplitude, 0 to 200
    device: str = ""         # the audio device; "": the system's default
    program: str = PROGRAM


def command(settings: SpeechSettings, utterance: Utterance, wav: Path | None = None) -> list[str]:
    """espeak-ng's command line for ``utterance``: through the device, or into ``wav``; in the
    voice the settings name, else the one of the utterance's language (its spoken catalogue's)."""
    argv = [settings.program, "-v", settings.voice or spoken(utterance.lang).espeak, "-s", str(settings.rate),
            "-a", str(settings.volume)]
    if wav is not None:
        argv += ["-w", str(wav)]
    elif settings.device:
        argv += ["-d", settings.device]
    return argv + ["--", speakable(utterance.text, utterance.lang)]


def time_limit(text: str, rate: int = RATE, floor_s: float = LIMIT_FLOOR_S) -> float:
    """The seconds an utterance of ``text`` at ``rate`` words a minute may take before its
    process is taken for hung."""
    return floor_s + LIMIT_PER_CHAR_S * len(text) * RATE / max(rate, 1)


def alsa_error(stderr: str) -> str | None:
    """What ALSA said it could not do, from espeak-ng's error output (its last ``ALSA lib``
    line, e.g. "Unknown PCM default"); None when ALSA said nothing."""
    found = _ALSA.findall(stderr)
    return found[-1] if found else None


def next_number(out_dir: Path) -> int:
    """The number of the next WAV file in ``out_dir``: after the last file and the last index line."""
    last = max((int(m.group(1)) for name in os.listdir(out_dir) if (m := _WAV.match(name))), default=0)
    for entry in read_index(out_dir):
        if isinstance(entry.get("n"), int):
            last = max(last, entry["n"])
    return last + 1


class Process(Protocol):
    """What the speaker needs of a started process (subprocess.Popen's)."""

    stderr: IO[bytes] | None

    def poll(self) -> int | None: ...

    def terminate(self) -> None: ...

    def kill(self) -> None: ...

    def wait(self, timeout: float | None = None) -> int: ...


def _spawn(argv: list[str]) -> Process:
    return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            close_fds=True)


NEWS = frozenset({"move", "opponent", "ending", "prompt", "offer", "notice", "repeat", "describe", "setup"})


@dataclass
class _Current:
    """The utterance being said: its process, when its time is up, its file and index line."""

    process: Process
    utterance: Utterance
    deadline: float
    wav: Path | None = None
    n: int = 0


class Speaker:
    """Says utterances one at a time; see the module docstring. ``spawn`` starts a process from a
    command line (tests pass their own); ``clock`` stamps when each started and times its limit;
    ``floor_s`` is the limit's floor (:func:`time_limit`)."""

    def __init__(self, settings: SpeechSettings, *, out_dir: Path | None = None,
                 spawn: Callable[[list[str]], Process] = _spawn, clock: Callable[[], float] = time.monotonic,
                 floor_s: float = LIMIT_FLOOR_S) -> None:
        self.settings = settings
        self.out_dir = out_dir
        self.spawn = spawn
        self.clock = clock
        self.floor_s = floor_s
        self.said = 0                       # utterances started
        self.cut = 0                        # cut before their end
        self.hung = 0                       # ended at their time limit
        self.troubles = 0                   # could not start, hung, or heard by no sound card
        self.failed: str | None = None      # why the last one could not start
        self.no_sound: str | None = None    # what ALSA said, the first time it could not play
        self._current: _Current | None = None
        self._waiting: Utterance | None = None
        self._index: IO[str] | None = None
        self._next = 1
        if out_dir is not None:
            out_dir.mkdir(parents=True, exist_ok=True)
            self._next = next_number(out_dir)   # (an earlier run's go on)
            index = out_dir / INDEX
            ends_line = not index.exists() or index.stat().st_size == 0 or index.read_bytes()[-1:] == b"\n"
            self._index = open(index, "a", encoding="utf-8")
            if not ends_line:   # (a run killed while it wrote: its part line stays apart)
                self._index.write("\n")

    @property
    def speaking(self) -> bool:
        current = self._current
        return current is not None and current.process.poll() is None

    @property
    def waiting(self) -> bool:
        """An utterance waits for the one being said to end (``tick`` starts it)."""
        return self._waiting is not None

    def deadline(self) -> float | None:
        """When the utterance being said is taken for hung (``tick`` then ends it); None: none is."""
        current = self._current
        return current.deadline if current is not None and current.process.poll() is None else None

    def say(self, utterance: Utterance) -> float | None:
        """Say ``utterance`` now (cutting a stale one), or after the current one if it is a clock's
        warning over news; returns when its process started (None: it waits, or could not start)."""
        if self.out_dir is None and self.speaking:
            current = self._current
            assert current is not None
            if set(utterance.kinds) <= {"clock"} and NEWS & set(current.utterance.kinds) \
                    and self.clock() < current.deadline:
                self._waiting = utterance
                return None
            self._stop_current()
            self.cut += 1
        self._waiting = None
        return self._start(utterance)

    def hush(self) -> None:
        """Stop what is being said and what waits (a file being written is finished whole)."""
        self._waiting = None
        if self.out_dir is not None:
            self._finish_current()
        else:
            self._stop_current()

    def tick(self) -> float | None:
        """End an utterance past its time limit; start the one that waited once the one being
        said has ended."""
        current = self._current
        if current is not None and current.process.poll() is None and self.clock() >= current.deadline:
            self._stop_current()
        if self._waiting is not None and not self.speaking:
            waiting, self._waiting = self._waiting, None
            return self._start(waiting)
        return None

    def interrupt(self) -> None:
        """Kill the process being waited for (a stop, from another thread than the voice's: the
        wait then ends at once; its file is not kept)."""
        current = self._current
        if current is not None:
            try:
                current.process.kill()
            except OSError:
                pass

    def _start(self, utterance: Utterance) -> float | None:
        wav = None
        if self.out_dir is not None:
            self._finish_current()   # (files: in order, each whole)
            wav = self.out_dir / f"{self._next:04d}.wav"
        else:
            self._end_current()
        try:
            process = self.spawn(command(self.settings, utterance, wav))
        except OSError as exc:
            if self.failed is None:
                log.error("the voice cannot speak: %s cannot start (%s)", self.settings.program, exc.strerror or exc)
                self.troubles += 1
            self.failed = str(exc.strerror or exc)
            self._current = None
            return None
        started = self.clock()
        self.failed = None
        self.said += 1
        self._current = _Current(process, utterance, started + time_limit(utterance.text, self.settings.rate,
                                                                          self.floor_s), wav, self._next)
        if wav is not None:
            self._finish_current()   # (the file written, its line follows at once: a reader waits for it)
        return started

    def _stop_current(self) -> None:
        """Cut the utterance being said: asked to end, then killed; reaped within a bound."""
        current = self._current
        if current is None:
            return
        process = current.process
        if process.poll() is None:
            if self.clock() >= current.deadline:
                self._hung(current)
            process.terminate()
            try:
                process.wait(REAP_S)
            except subprocess.TimeoutExpired:
                process.kill()
                try:
                    process.wait(REAP_S)
                except subprocess.TimeoutExpired:
                    log.error("the voice: %s (pid %s) outlived a kill", self.settings.program,
                              getattr(process, "pid", "?"))
        self._end_current()

    def _finish_current(self, within: float | None = None) -> None:
        """Let the utterance being said end (at the latest at its limit, or ``within`` seconds), then cut it."""
        current = self._current
        if current is None:
            return
        end = current.deadline if within is None else min(self.clock() + within, current.deadline)
        try:
            current.process.wait(max(0.0, end - self.clock()))
        except subprocess.TimeoutExpired:
            self._stop_current()
            return
        self._end_current()

    def _end_current(self) -> None:
        """The utterance being said has ended (or is cut): its index line if its file was written
        whole, its file removed if not; ALSA's complaint heard."""
        current, self._current = self._current, None
        if current is None:
            return
        code = current.process.poll()
        stderr = current.process.stderr
        if stderr is not None:
            if code == 0:
                self._heard(_read_ended(stderr))
            stderr.close()
        if current.wav is None:
            return
        if code == 0 and current.wav.exists() and self._index is not None:
            u = current.utterance
            self._index.write(json.dumps({"n": current.n, "file": current.wav.name, "lang": u.lang,
                                          "kinds": list(u.kinds), "text": u.text}, ensure_ascii=False) + "\n")
            self._index.flush()
            self._next += 1   # (a file not kept leaves no gap)
        elif code != 0:
            current.wav.unlink(missing_ok=True)

    def _hung(self, current: _Current) -> None:
        self.hung += 1
        self.troubles += 1
        log.warning("the voice: %s hung on %r, ended at its time limit (%.1f s)", self.settings.program,
                    current.utterance.text, time_limit(current.utterance.text, self.settings.rate, self.floor_s))

    def _heard(self, stderr: str) -> None:
        said = alsa_error(stderr)
        if said is None or self.no_sound is not None:
            return
        self.no_sound = said
        self.troubles += 1
        device = self.settings.device or "the default device"
        log.warning("the voice cannot be heard: ALSA cannot play on %s, no sound card? (%s); "
                    "echiquier hwtest --doctor checks the audio", device, said)

    def close(self, *, finish: bool = False, within: float | None = None) -> None:
        """Stop speaking (``finish``: let the utterance being said end, at the latest at its time
        limit or in ``within`` seconds; files always end whole, or are not kept)."""
        if finish or self.out_dir is not None:
            self._finish_current(within)
        else:
            self._stop_current()
        self._waiting = None
        if self._index is not None:
            self._index.close()
            self._index = None


def _read_ended(stream: IO[bytes]) -> str:
    """What an ended process left in its pipe, within the budget, never waiting (a child of
    its may hold the pipe open)."""
    try:
        fd = stream.fileno()
        os.set_blocking(fd, False)
        return os.read(fd, STDERR_BUDGET).decode("utf-8", "replace")
    except (OSError, ValueError):
        return ""


def read_index(out_dir: Path) -> list[dict[str, Any]]:
    """The utterances written to ``out_dir`` so far, in order (``index.jsonl``; a line cut short
    by a kill is skipped)."""
    path = out_dir / INDEX
    if not path.exists():
        return []
    entries = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            entry = json.loads(line) if line.strip() else None
        except json.JSONDecodeError:
            continue
        if isinstance(entry, dict):
            entries.append(entry)
    return entries


__all__ = ["Speaker", "SpeechSettings", "Process", "command", "read_index", "time_limit", "alsa_error",
           "next_number", "PROGRAM", "INDEX"]
