"""The board's voice beside its session: each state heard on the board's loop in O(1), the announcing and espeak-ng on a thread of their own.

The session calls :meth:`Voice.on_state` after every change, once the LEDs show it and the game
is saved: the LED frame always comes first. It only queues the state and wakes the voice's
thread, which turns the states, in order, into words (firmware.voice.announcer) and has the speaker say them
(firmware.voice.speaker); the thread also wakes at the announcer's deadlines (a prompt that
stood, a clock running short) and for requests (``repeat``, ``describe``, ``clocks``: the page,
GPIO buttons), and at the time limit of what is being said. A stop lets what was handed over be
said for ``STOP_S`` at most, then cuts it (a hung espeak-ng never holds the service's stop).
``on_failure`` is told, once, the first time the voice fails (a speech process that cannot start,
hangs or finds no sound card, an announcement that raises), from the voice's thread. ``latencies`` keeps, for each utterance a state brought, the seconds from the
session's handing over of that state to its speech process started (bench/voice.py).
"""
from __future__ import annotations

import asyncio
import collections
import logging
import threading
import time
from pathlib import Path
from typing import Any, Callable

import firmware.words as words
from firmware.companion import ServiceContext
from firmware.session.door import Command
from firmware.session.state import SessionState
from firmware.voice.announcer import Announcer, Utterance
from firmware.voice.speaker import Speaker, SpeechSettings

log = logging.getLogger(__name__)

REQUESTS = ("repeat", "describe", "clocks")
WAITING_POLL_S = 0.05   # while a clock's warning waits for an utterance to end
STATES_KEPT = 256       # states waiting for the thread, at most (the oldest go first)
STOP_S = 3.0            # a stop lets the last words be said this long at most
JOIN_S = 2.0            # then the thread, its speech process killed, has this long to end


class Voice:
    """The announcer and the speaker on their own thread; see the module docstring. ``clock``
    is the session's (the states' times); ``stamp`` measures the latencies."""

    def __init__(self, announcer: Announcer, speaker: Speaker, *, clock: Callable[[], float] = time.monotonic,
                 stamp: Callable[[], float] = time.perf_counter) -> None:
        self.announcer = announcer
        self.speaker = speaker
        self.clock = clock
        self.stamp = stamp
        self.latencies: list[float] = []
        self.follows_page = False        # [voice] language = "page": the page's requests say which
        self.muted = False               # the page's switch: the board says nothing (it still listens)
        self._hush = False
        self.spoken: list[Utterance] = []
        # every state in order (the announcer tells changes apart), bounded should the thread fall behind
        self._states: collections.deque[tuple[SessionState, float]] = collections.deque(maxlen=STATES_KEPT)
        self._requests: collections.deque[str] = collections.deque()
        self._handed = 0                 # states and requests handed over so far
        self._done = 0                   # ... and announced
        self._done_changed = threading.Condition()
        self._wake = threading.Event()
        self._stopping = False
        self._thread: threading.Thread | None = None
        self.on_failure: Callable[[], None] | None = None
        self.failed = False              # the voice failed once (on_failure was told)

    # -- the board's side: called on the session's loop ------------------------------------------

    def on_state(self, state: SessionState) -> None:
        """The session's subscriber: keep the latest state, wake the thread. O(1) on the board's loop."""
        self._states.append((state, self.stamp()))
        self._handed += 1
        self._wake.set()

    def request(self, what: str) -> None:
        """Say on request: "repeat" (the opponent's move to carry out or the last move, what to put
        right, the clocks), "describe" (the position) or "clocks"."""
        if what not in REQUESTS:
            raise ValueError(f"a voice request is one of {', '.join(REQUESTS)}, not {what!r}")
        self._requests.append(what)
        self._handed += 1
        self._wake.set()

    def poke(self) -> None:
        """Wake the thread to look at the time (tests that move the session's clock by hand)."""
        self._handed += 1
        self._wake.set()

    def mute(self, muted: bool) -> None:
        """The page's switch: ``muted``, the board stops speaking at once and says nothing until
        unmuted (the announcer goes on hearing the game, so that it speaks of news only after)."""
        self.muted = muted
        self._hush = muted
        self._handed += 1
        self._wake.set()

    def use_language(self, lang: str) -> None:
        """The page's language, which the voice speaks if ``[voice] language`` is "page"."""
        if self.follows_page and lang in words.LANGS:
            self.announcer.lang = lang

    # -- lifecycle ------------------------------------------------------------------------------

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="voice", daemon=True)
        self._thread.start()

    def stop(self, *, finish: bool = False, within: float = STOP_S) -> None:
        """Stop the thread (``finish``: once everything handed over so far is said, or ``within``
        seconds have passed: then what is being said is cut; files end whole or are not kept)."""
        until = time.monotonic() + within
        if finish and self._thread is not None:
            self.wait_idle(within)
        self._stopping = True
        self._wake.set()
        if self._thread is not None:
            self._thread.join(max(0.0, until - time.monotonic()))
            if self._thread.is_alive():   # (waiting for a process: killed, the wait ends)
                self.speaker.interrupt()
                self._thread.join(JOIN_S)
            if self._thread.is_alive():
                log.error("the voice's thread did not end within %.0f s of the stop", within + JOIN_S)
                return
        self.speaker.close(finish=finish, within=max(0.0, until - time.monotonic()))

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until every state and request handed over so far has been announced (tests, stop)."""
        target = self._handed
        with self._done_changed:
            return self._done_changed.wait_for(lambda: self._done >= target or self._stopping, timeout)

    # -- the voice's thread ---------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stopping:
            deadline = self.announcer.next_deadline()
            timeout = None if deadline is None else max(0.0, deadline - self.clock())
            if self.speaker.waiting:
                timeout = WAITING_POLL_S if timeout is None else min(timeout, WAITING_POLL_S)
            limit = self.speaker.deadline()   # (a hung process is ended at its time limit)
            if limit is not None:
                left = max(0.0, limit - self.speaker.clock())
                timeout = left if timeout is None else min(timeout, left)
            self._wake.wait(timeout)
            self._wake.clear()
            if self._stopping:
                break
            handed = self._handed   # (read before the state: what comes after wakes the thread again)
            try:
                self._turn()
            except Exception:   # noqa: BLE001 - the voice never stops the board; said in the journal
                log.exception("the voice failed to announce")
                self._failed()
            if self.speaker.troubles:
                self._failed()
            with self._done_changed:
                self._done = handed
                self._done_changed.notify_all()
        with self._done_changed:
            self._done_changed.notify_all()

    def _turn(self) -> None:
        while self._states:
            state, heard_at = self._states.popleft()
            deadline = self.announcer.next_deadline()
            if deadline is not None and deadline <= state.time:   # (due before this change came)
                self._say(self.announcer.due(state.time), None)
            self._say(self.announcer.hear(state), heard_at)
        now = self.clock()
        deadline = self.announcer.next_deadline()
        if deadline is not None and deadline <= now:
            self._say(self.announcer.due(now), None)
        while self._requests:
            what = self._requests.popleft()
            said = (self.announcer.repeat(now) if what == "repeat" else self.announcer.describe()
                    if what == "describe" else self.announcer.clocks(now))
            self._say(said, None)
        if self._hush:
            self._hush = False
            self.speaker.hush()
        self.speaker.tick()

    def _failed(self) -> None:
        if self.failed:
            return
        self.failed = True
        if self.on_failure is not None:
            try:
                self.on_failure()
            except Exception:   # noqa: BLE001 - the voice never stops the board
                log.exception("the voice's failure could not be told")

    def _say(self, utterance: Utterance | None, heard_at: float | None) -> None:
        if utterance is None or self.muted:
            return
        self.spoken.append(utterance)
        started = self.speaker.say(utterance)
        if started is not None and heard_at is not None:
            self.latencies.append(started - heard_at)


def build_voice(config: Any, *, clock: Callable[[], float] = time.monotonic, lang: str | None = None,
                spawn: Any = None) -> Voice:
    """The voice ``[voice]`` describes: its language (one of firmware.words' ``LANGS``; "page":
    English until the page says otherwise), its espeak-ng settings, WAV files in ``wav_dir`` if set."""
    voice = config.voice
    settings = SpeechSettings(voice=voice.voice, rate=voice.rate, volume=voice.volume, device=voice.device)
    out_dir = Path(voice.wav_dir) if voice.wav_dir else None
    speaker = Speaker(settings, out_dir=out_dir, **({"spawn": spawn} if spawn is not None else {}))
    chosen = lang or (voice.language if voice.language in words.LANGS else words.FALLBACK)
    built = Voice(Announcer(chosen, voice.moves), speaker, clock=clock)
    built.follows_page = voice.language == "page" and lang is None
    return built


async def serve_voice(service: ServiceContext) -> None:
    """The service's companion: the board speaks (``[voice]``) until cancelled, from the moment
    the board is read (before, it knows nothing to say of the pieces); a voice that fails is
    said once on the page (the session's ``failed_helpers``)."""
    await service.ready.wait()
    session = service.session
    voice = build_voice(service.config, clock=session.clock)
    service.offer(voice=voice)
    # (from the voice's thread, once: the page says it)
    voice.on_failure = lambda: session.door.post_threadsafe(Command("helper_failed", ("voice",)))
    unsubscribe = session.subscribe(voice.on_state)
    voice.on_state(session.state())
    voice.start()
    try:
        await asyncio.Event().wait()
    finally:
        unsubscribe()
        service.offer(voice=None)
        await asyncio.shield(asyncio.get_running_loop().run_in_executor(None, lambda: voice.stop(finish=True)))


__all__ = ["Voice", "build_voice", "serve_voice", "REQUESTS"]
