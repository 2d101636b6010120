"""espeak-ng in a process of its own for each utterance: a newer announcement cuts a stale one; or one WAV file per utterance and an index of the texts.

The :class:`Speaker` is driven by one thread (the voice's, firmware.voice.companion), never the
board's loop. Through the sound card (``[voice] device``, ALSA or PipeWire's name; "" the
default one), an utterance that comes while another is said cuts it: the news is the newer one.
Only a clock's warning waits for what is being said (a move, a prompt) to end. With ``out_dir``
(``--voice-out DIR``) nothing is cut: each utterance is written whole, in order, to
``0001.wav``, ``0002.wav``... and a line of ``index.jsonl`` says its text, its language and
what it is about, for tests and for machines without sound.
"""
from __future__ import annotations

import json
import logging
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Callable, Protocol

from firmware.voice.announcer import Utterance
from firmware.voice.phrases import speakable

log = logging.getLogger(__name__)

PROGRAM = "espeak-ng"
INDEX = "index.jsonl"
REAP_S = 1.0     # how long a cut process is given to end before it is killed


@dataclass(frozen=True)
class SpeechSettings:
    """How espeak-ng speaks (``[voice]`` of the configuration)."""

    voice: str = ""          # espeak-ng's voice ("mb-fr1", "en-gb"...); "": the utterance's language
    rate: int = 160          # words a minute
    volume: int = 100        # espeak-ng's amplitude, 0 to 200
    device: str = ""         # the audio device; "": the system's default
    program: str = PROGRAM


def command(settings: SpeechSettings, utterance: Utterance, wav: Path | None = None) -> list[str]:
    """espeak-ng's command line for ``utterance``: through the device, or into ``wav``."""
    argv = [settings.program, "-v", settings.voice or utterance.lang, "-s", str(settings.rate),
            "-a", str(settings.volume)]
    if wav is not None:
        argv += ["-w", str(wav)]
    elif settings.device:
        argv += ["-d", settings.device]
    return argv + ["--", speakable(utterance.text, utterance.lang)]


class Process(Protocol):
    """What the speaker needs of a started process (subprocess.Popen's)."""

    def poll(self) -> int | None: ...

    def terminate(self) -> None: ...

    def kill(self) -> None: ...

    def wait(self, timeout: float | None = None) -> int: ...


def _spawn(argv: list[str]) -> Process:
    return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            close_fds=True)


NEWS = frozenset({"move", "opponent", "ending", "prompt", "offer", "notice", "repeat", "describe", "setup"})


class Speaker:
    """Says utterances one at a time; see the module docstring. ``spawn`` starts a process from a
    command line (tests pass their own); ``clock`` stamps when each started."""

    def __init__(self, settings: SpeechSettings, *, out_dir: Path | None = None,
                 spawn: Callable[[list[str]], Process] = _spawn, clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self.out_dir = out_dir
        self.spawn = spawn
        self.clock = clock
        self.said = 0                       # utterances started
        self.cut = 0                        # cut before their end
        self.failed: str | None = None      # why the last one could not start
        self._current: Process | None = None
        self._current_kinds: tuple[str, ...] = ()
        self._waiting: Utterance | None = None
        self._index: IO[str] | None = None
        if out_dir is not None:
            out_dir.mkdir(parents=True, exist_ok=True)
            self.said = sum(1 for _ in out_dir.glob("[0-9][0-9][0-9][0-9].wav"))   # (an earlier run's go on)
            self._index = open(out_dir / INDEX, "a", encoding="utf-8")

    @property
    def speaking(self) -> bool:
        return self._current is not None and self._current.poll() is None

    @property
    def waiting(self) -> bool:
        """An utterance waits for the one being said to end (``tick`` starts it)."""
        return self._waiting is not None

    def say(self, utterance: Utterance) -> float | None:
        """Say ``utterance`` now (cutting a stale one), or after the current one if it is a clock's
        warning over news; returns when its process started (None: it waits, or could not start)."""
        if self.out_dir is None and self.speaking:
            if set(utterance.kinds) <= {"clock"} and NEWS & set(self._current_kinds):
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
        """Start the utterance that waited, once the one being said has ended."""
        if self._waiting is not None and not self.speaking:
            waiting, self._waiting = self._waiting, None
            return self._start(waiting)
        return None

    def _start(self, utterance: Utterance) -> float | None:
        wav = None
        if self.out_dir is not None:
            self._finish_current()   # (files: in order, each whole)
            wav = self.out_dir / f"{self.said + 1:04d}.wav"
        try:
            self._current = self.spawn(command(self.settings, utterance, wav))
        except OSError as exc:
            if self.failed is None:
                log.error("the voice cannot speak: %s cannot start (%s)", self.settings.program, exc.strerror or exc)
            self.failed = str(exc.strerror or exc)
            self._current = None
            return None
        started = self.clock()
        self.failed = None
        self.said += 1
        self._current_kinds = utterance.kinds
        if self._index is not None and wav is not None:
            self._index.write(json.dumps({"n": self.said, "file": wav.name, "lang": utterance.lang,
                                          "kinds": list(utterance.kinds), "text": utterance.text},
                                         ensure_ascii=False) + "\n")
            self._index.flush()
        return started

    def _stop_current(self) -> None:
        process, self._current = self._current, None
        if process is None:
            return
        process.terminate()
        try:
            process.wait(REAP_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def _finish_current(self) -> None:
        process, self._current = self._current, None
        if process is not None:
            process.wait()

    def close(self, *, finish: bool = False) -> None:
        """Stop speaking (``finish``: let the utterance being said end; files always end whole)."""
        if finish or self.out_dir is not None:
            self._finish_current()
        else:
            self._stop_current()
        self._waiting = None
        if self._index is not None:
            self._index.close()
            self._index = None


def read_index(out_dir: Path) -> list[dict[str, Any]]:
    """The utterances written to ``out_dir`` so far, in order (``index.jsonl``)."""
    path = out_dir / INDEX
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


__all__ = ["Speaker", "SpeechSettings", "Process", "command", "read_index", "PROGRAM", "INDEX"]
