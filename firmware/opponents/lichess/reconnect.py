"""Keeping a stream alive: capped exponential backoff with jitter, and a reader that reconnects and dispatches."""
from __future__ import annotations

import asyncio
import enum
import logging
import random
from typing import Any, AsyncContextManager, AsyncIterator, Awaitable, Callable, Mapping

from board_driver.retry import Backoff
from firmware.tasks import STOP_GRACE, cancel_and_wait

log = logging.getLogger(__name__)

# Lichess's streams: 1 s, 2 s, 4 s ... at most 60 s, each drawn from the upper half (Backoff's defaults).
BACKOFF_FIRST, BACKOFF_FACTOR, BACKOFF_CAP, BACKOFF_JITTER = Backoff.first, Backoff.factor, Backoff.cap, Backoff.jitter


class TransientError(Exception):
    """Might work if tried again later. ``pause``: a wait the server imposed (429), in seconds."""

    pause: float | None = None


class PermanentError(Exception):
    """Trying again will not help (token refused, game unknown): a person has to act."""


class StreamState(enum.Enum):
    IDLE = "idle"                # not started
    CONNECTING = "connecting"    # a connection is being opened
    OPEN = "open"                # events are flowing
    WAITING = "waiting"          # a drop, a 5xx, silence or a 429: backing off before the next try
    ENDED = "ended"              # the server ended it and nothing more will come (the game is over)
    FAILED = "failed"            # a permanent error: not retried
    STOPPED = "stopped"          # stopped on purpose


Handler = Callable[[dict], Any]


class _Kick(Exception):
    """Internal: the current connection was dropped on purpose, to reconnect at once."""


class ReconnectingStream:
    """Reads an ndjson stream forever: every event goes to ``handlers[event["type"]]``.

    ``open_stream()`` returns an async context manager giving an async iterator of events (dicts);
    it raises ``TransientError`` (retried after a backoff, and at least its ``pause``) or
    ``PermanentError`` (the stream fails); any other exception is logged and retried like a
    ``TransientError``. When the server ends the stream cleanly, the stream
    reconnects if ``keep_going()`` is true (a cut), else it has ENDED (a finished game).
    ``reconnect()`` drops the current connection and opens a new one at once, to re-read the
    whole state. ``sleep`` and ``draw`` (the jitter's random source) are injectable for tests.
    """

    def __init__(self, name: str, open_stream: Callable[[], AsyncContextManager[AsyncIterator[dict]]],
                 handlers: Mapping[str, Handler], *, backoff: Backoff = Backoff(),
                 sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
                 draw: Callable[[], float] = random.random,
                 on_state: Callable[[StreamState, str], None] | None = None,
                 keep_going: Callable[[], bool] = lambda: True, stop_grace: float = STOP_GRACE) -> None:
        self.name = name
        self.backoff = backoff
        self.connections = 0      # connections opened so far
        self.failures = 0         # failures in a row (reset by the first event of a connection)
        self.waits: list[float] = []   # every backoff wait, for the page and the tests
        self._open = open_stream
        self._handlers = dict(handlers)
        self._sleep = sleep
        self._draw = draw
        self._on_state = on_state
        self._keep_going = keep_going
        self._stop_grace = stop_grace
        self._state = StreamState.IDLE
        self._task: asyncio.Task | None = None
        self._conn: asyncio.Task | None = None
        self._kicked = False
        self._stopping = False

    @property
    def state(self) -> StreamState:
        return self._state

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        """Begin reading; idempotent."""
        if self._task is None and not self._stopping:
            self._task = asyncio.get_running_loop().create_task(self._run(), name=f"stream-{self.name}")

    async def stop(self) -> None:
        """Close the stream and wait for its task, never forever (a cancellation the connection
        swallowed is repeated after ``stop_grace`` s: ``cancel_and_wait``); idempotent."""
        self._stopping = True
        task = self._task   # kept until it has ended: a second stop() waits for it too
        if task is not None:
            await cancel_and_wait(task, grace=self._stop_grace)
        if self._state not in (StreamState.ENDED, StreamState.FAILED):
            self._set(StreamState.STOPPED, "")

    def reconnect(self) -> None:
        """Drop the current connection and open a new one now (no backoff)."""
        if self._conn is not None and not self._conn.done():
            self._kicked = True
            self._conn.cancel()

    async def wait(self) -> None:
        """Until the stream has ended, failed or been stopped."""
        if self._task is not None and not self._task.done():
            await asyncio.shield(self._task)

    # -- inside --------------------------------------------------------------------------------

    def _set(self, state: StreamState, detail: str) -> None:
        self._state = state
        if self._on_state is not None:
            self._on_state(state, detail)

    async def _run(self) -> None:
        while True:
            pause: float | None = None
            self._set(StreamState.CONNECTING, "")
            self._conn = asyncio.get_running_loop().create_task(self._connection(),
                                                                 name=f"stream-{self.name}-conn")
            try:
                await self._conn
                if not self._keep_going():
                    self._set(StreamState.ENDED, "")
                    return
                reason = "the server closed the stream"
            except asyncio.CancelledError:
                task = asyncio.current_task()   # this coroutine's, never None here
                if (task is not None and task.cancelling()) or not self._kicked:
                    raise
                self._kicked = False
                log.info("stream %s: reconnecting at once to re-read the state", self.name)
                continue
            except PermanentError as exc:
                log.error("stream %s failed: %s", self.name, exc)
                self._set(StreamState.FAILED, str(exc))
                return
            except TransientError as exc:
                reason = str(exc) or type(exc).__name__
                pause = exc.pause
            except Exception as exc:   # anything else (a library's surprise) is retried, never the end
                log.exception("stream %s: unexpected %s", self.name, type(exc).__name__)
                reason = f"{type(exc).__name__}: {exc}"
            finally:
                self._conn = None
            if self._stopping:   # a stop that reached the connection as another error: not a failure
                return
            if not self._keep_going():
                self._set(StreamState.ENDED, "")
                return
            delay = self.backoff.delay(self.failures, self._draw())
            if pause is not None:
                delay = max(delay, pause)
            self.failures += 1
            self.waits.append(delay)
            log.warning("stream %s: %s; trying again in %.1f s", self.name, reason, delay)
            self._set(StreamState.WAITING, f"{reason}; trying again in {delay:.0f} s")
            await self._sleep(delay)

    async def _connection(self) -> None:
        async with self._open() as events:
            self.connections += 1
            self._set(StreamState.OPEN, "")
            first = True
            async for event in events:
                if first:
                    self.failures = 0
                    first = False
                self._dispatch(event)

    def _dispatch(self, event: dict) -> None:
        kind = event.get("type")
        handler = self._handlers.get(kind) if isinstance(kind, str) else None
        if handler is None:
            log.debug("stream %s: no handler for an event of type %r", self.name, kind)
            return
        try:
            handler(event)
        except Exception:   # a bug in one handler must not stop the stream
            log.exception("stream %s: the %r handler failed", self.name, kind)


__all__ = ["BACKOFF_CAP", "BACKOFF_FACTOR", "BACKOFF_FIRST", "BACKOFF_JITTER", "Backoff", "PermanentError",
           "ReconnectingStream", "StreamState", "TransientError"]
