"""A small async Lichess Board API client on httpx: one request at a time, a pause after 429, ndjson streams."""
from __future__ import annotations

import asyncio
import collections.abc
import contextlib
import json
import logging
import time
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Awaitable, Callable

import httpx

from firmware.opponents.lichess.reconnect import Backoff, PermanentError, TransientError
from firmware.opponents.lichess.token import DEFAULT_TOKEN_FILE, Token, read_token
from firmware.tasks import cancel_and_wait

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://lichess.org"
CONNECT_TIMEOUT = 10.0          # s to open a connection
REQUEST_TIMEOUT = 15.0          # s for a whole non-streamed request
STREAM_SILENCE_TIMEOUT = 12.0   # keep-alive lines come every 6-7 s: a longer silence is a dead stream
RATE_LIMIT_PAUSE = 60.0         # Lichess asks for a full minute after a 429
RATE_LIMIT_RETRIES = 2          # a request is tried again this often after a 429 before failing
USER_AGENT = "echiquier/0.1 (+sensor chessboard; Board API)"

# Lichess sorts a clock by its estimated duration, limit + 40 * increment seconds (upper bounds).
SPEEDS = ((29, "ultraBullet"), (179, "bullet"), (479, "blitz"), (1499, "rapid"))
SEEK_SPEEDS = ("rapid", "classical", "correspondence")     # what the Board API lets a board seek
CHALLENGE_SPEEDS = ("blitz",) + SEEK_SPEEDS                # blitz only by direct challenge
CORRESPONDENCE_DAYS = (1, 2, 3, 5, 7, 10, 14)
COLORS = ("random", "white", "black")


class LichessError(Exception):
    """A Lichess request failed."""


class LichessUnavailable(LichessError, TransientError):
    """No answer, a dropped connection or a 5xx: the request may or may not have been carried out."""

    def __init__(self, message: str, status: int | None = None, timed_out: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.timed_out = timed_out   # no answer at all: the request may still be under way over there


class StreamSilent(LichessUnavailable):
    """A stream sent nothing, not even a keep-alive line, for longer than the silence limit."""


class RateLimited(LichessError, TransientError):
    """429 Too Many Requests (for a request: still after waiting). ``pause``: the wait asked for."""

    def __init__(self, message: str, pause: float = RATE_LIMIT_PAUSE) -> None:
        super().__init__(message)
        self.pause = pause


class LichessRefused(LichessError):
    """A 4xx answer: Lichess refused the request, with its reason (``error``)."""

    def __init__(self, status: int, error: str, what: str) -> None:
        super().__init__(f"{what}: {error} (HTTP {status})")
        self.status = status
        self.error = error


TOKEN_REFUSED = "Lichess refused the token: log in again"


class LichessAuthError(LichessRefused, PermanentError):
    """401/403: the token is wrong, revoked or lacks the board:play scope. Its message starts
    with :data:`TOKEN_REFUSED`, the words the page and the journal show (never the token)."""

    def __init__(self, status: int, error: str, what: str) -> None:
        super().__init__(status, error, what)
        self.args = (f"{TOKEN_REFUSED} ({what}: {error}, HTTP {status})",)

    def __str__(self) -> str:
        return self.args[0]


class LichessNotFound(LichessRefused, PermanentError):
    """404: no such game or challenge (for this account)."""


class SeekNotAllowed(ValueError):
    """A seek or challenge that Lichess would refuse from a board; the message says why."""


def speed_of(limit_s: float, increment_s: int) -> str:
    """Lichess's speed name for a clock.

    >>> speed_of(300, 3), speed_of(600, 0), speed_of(180, 2), speed_of(1800, 20)
    ('blitz', 'rapid', 'blitz', 'classical')
    """
    estimate = limit_s + 40 * increment_s
    for bound, name in SPEEDS:
        if estimate <= bound:
            return name
    return "classical"


def check_seek(minutes: float | None, increment: int = 0, days: int | None = None) -> str:
    """The speed of a Board API seek, or SeekNotAllowed with the reason (before any request)."""
    if days is not None:
        if minutes is not None:
            raise SeekNotAllowed("a seek is either real time (minutes + increment) or correspondence (days)")
        if days not in CORRESPONDENCE_DAYS:
            raise SeekNotAllowed(f"correspondence seeks take {', '.join(map(str, CORRESPONDENCE_DAYS))} days "
                                 f"per move, not {days}")
        return "correspondence"
    if minutes is None:
        raise SeekNotAllowed("a real-time seek needs minutes (and an increment)")
    if not 0 <= minutes <= 180 or not 0 <= increment <= 180:
        raise SeekNotAllowed("a seek's clock is 0..180 minutes plus 0..180 s increment")
    speed = speed_of(minutes * 60, increment)
    if speed not in SEEK_SPEEDS:
        raise SeekNotAllowed(
            f"Lichess takes only rapid, classical or correspondence seeks from a board; "
            f"{_clock_text(minutes, increment)} is {speed}. Choose at least 8 minutes of estimated "
            f"game time (minutes + 40 x increment seconds, e.g. 10+0 or 5+5), or challenge a "
            f"friend directly: blitz is allowed in direct challenges.")
    return speed


def check_challenge(limit_s: int | None, increment: int = 0, days: int | None = None) -> str:
    """The speed of a direct challenge from a board, or SeekNotAllowed (bullet is refused)."""
    if days is not None:
        if days not in CORRESPONDENCE_DAYS:
            raise SeekNotAllowed(f"correspondence takes {', '.join(map(str, CORRESPONDENCE_DAYS))} days per "
                                 f"move, not {days}")
        return "correspondence"
    if limit_s is None:
        raise SeekNotAllowed("a challenge needs a clock (limit + increment) or days per move")
    speed = speed_of(limit_s, increment)
    if speed not in CHALLENGE_SPEEDS:
        raise SeekNotAllowed(f"Lichess does not let a board play {speed}: "
                             f"{_clock_text(limit_s / 60, increment)} is too fast; blitz (3+0 and up) is "
                             f"the fastest a board may play, and only in a direct challenge")
    return speed


def _clock_text(minutes: float, increment: int) -> str:
    return f"{minutes:g}+{increment}"


@dataclass(frozen=True)
class LichessConfig:
    """Where and how to reach Lichess; ``[lichess] token_file`` and ``base_url`` in the config."""

    base_url: str = DEFAULT_BASE_URL
    token_file: str = DEFAULT_TOKEN_FILE
    connect_timeout: float = CONNECT_TIMEOUT
    request_timeout: float = REQUEST_TIMEOUT
    silence_timeout: float = STREAM_SILENCE_TIMEOUT
    rate_limit_pause: float = RATE_LIMIT_PAUSE
    backoff: Backoff = field(default_factory=Backoff)


class LichessClient:
    """The Board API endpoints a board needs. One request at a time; streams run beside them.

    After a 429 no request (and no stream) goes out for ``rate_limit_pause`` seconds. The token is
    read from ``config.token_file`` unless given, and only ever sent in the Authorization header.
    ``sleep``, ``clock`` and ``timeout`` (``asyncio.timeout``: every limit on a wait, the silence of
    a stream among them) are injectable, for tests that pass the time by hand.
    """

    def __init__(self, config: LichessConfig = LichessConfig(), token: Token | None = None, *,
                 sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
                 clock: Callable[[], float] = time.monotonic,
                 timeout: Callable[[float], contextlib.AbstractAsyncContextManager[Any]] = asyncio.timeout,
                 transport: httpx.AsyncBaseTransport | None = None) -> None:
        self.config = config
        token = token if token is not None else read_token(config.token_file)
        self._sleep = sleep
        self._clock = clock
        self._timeout = timeout
        self._lock = asyncio.Lock()
        self._resume_at = float("-inf")
        self.rate_limit_pauses: list[float] = []
        self._http = httpx.AsyncClient(
            base_url=config.base_url, transport=transport,
            headers={"Authorization": f"Bearer {token.reveal()}", "User-Agent": USER_AGENT,
                     "Accept": "application/json, application/x-ndjson"},
            timeout=httpx.Timeout(config.request_timeout, connect=config.connect_timeout))

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> "LichessClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # -- endpoints -----------------------------------------------------------------------------

    async def account(self) -> dict:
        return await self._request("GET", "/api/account", what="account")

    async def move(self, game_id: str, uci: str, offering_draw: bool | None = None) -> None:
        params = None if offering_draw is None else {"offeringDraw": "true" if offering_draw else "false"}
        await self._request("POST", f"/api/board/game/{game_id}/move/{uci}", params=params, what=f"move {uci}")

    async def resign(self, game_id: str) -> None:
        await self._request("POST", f"/api/board/game/{game_id}/resign", what="resign")

    async def abort(self, game_id: str) -> None:
        await self._request("POST", f"/api/board/game/{game_id}/abort", what="abort")

    async def draw(self, game_id: str, accept: bool) -> None:
        """Offer or accept a draw (``True``), or decline one (``False``)."""
        await self._request("POST", f"/api/board/game/{game_id}/draw/{'yes' if accept else 'no'}", what="draw")

    async def takeback(self, game_id: str, accept: bool) -> None:
        """Propose or accept a takeback (``True``), or decline one (``False``)."""
        await self._request("POST", f"/api/board/game/{game_id}/takeback/{'yes' if accept else 'no'}",
                            what="takeback")

    async def claim_victory(self, game_id: str) -> None:
        await self._request("POST", f"/api/board/game/{game_id}/claim-victory", what="claim victory")

    async def claim_draw(self, game_id: str) -> None:
        """End the game as a draw when the opponent has left it for a while (as claim-victory)."""
        await self._request("POST", f"/api/board/game/{game_id}/claim-draw", what="claim draw")

    async def chat(self, game_id: str, text: str, room: str = "player") -> None:
        await self._request("POST", f"/api/board/game/{game_id}/chat", data={"room": room, "text": text},
                            what="chat")

    async def challenge(self, username: str, *, limit_s: int | None = None, increment: int = 0,
                        days: int | None = None, rated: bool = False, color: str = "random") -> dict:
        """Challenge ``username``; returns the challenge (its ``id`` can be cancelled)."""
        check_challenge(limit_s, increment, days)
        if color not in COLORS:
            raise SeekNotAllowed(f"color is one of {', '.join(COLORS)}, not {color!r}")
        data = {"rated": _flag(rated), "color": color, "variant": "standard"}
        if days is not None:
            data["days"] = str(days)
        else:
            data.update({"clock.limit": str(limit_s), "clock.increment": str(increment)})
        answer = await self._request("POST", f"/api/challenge/{username}", data=data, what="challenge")
        return answer.get("challenge", answer) if isinstance(answer, dict) else {}

    async def accept_challenge(self, challenge_id: str) -> None:
        await self._request("POST", f"/api/challenge/{challenge_id}/accept", what="accept challenge")

    async def decline_challenge(self, challenge_id: str, reason: str = "generic") -> None:
        await self._request("POST", f"/api/challenge/{challenge_id}/decline", data={"reason": reason},
                            what="decline challenge")

    async def cancel_challenge(self, challenge_id: str) -> None:
        await self._request("POST", f"/api/challenge/{challenge_id}/cancel", what="cancel challenge")

    async def seek(self, *, minutes: float | None = None, increment: int = 0, days: int | None = None,
                   rated: bool = False, color: str = "random", rating_range: str = "") -> "Seek":
        """Seek an opponent. A real-time seek lasts as long as its connection: ``Seek.cancel()``."""
        check_seek(minutes, increment, days)
        if color not in COLORS:
            raise SeekNotAllowed(f"color is one of {', '.join(COLORS)}, not {color!r}")
        data = {"rated": _flag(rated), "variant": "standard", "color": color}
        if rating_range:
            data["ratingRange"] = rating_range
        if days is not None:
            data["days"] = str(days)
            answer = await self._request("POST", "/api/board/seek", data=data, what="seek")
            return Seek(answer.get("id") if isinstance(answer, dict) else None, None)
        data.update({"time": f"{minutes:g}", "increment": str(increment)})
        opened = asyncio.get_running_loop().create_future()
        task = asyncio.get_running_loop().create_task(self._hold_seek(data, opened), name="lichess-seek")
        try:
            await asyncio.shield(opened)
        except BaseException:
            await cancel_and_wait(task)
            raise
        return Seek(None, task)

    # -- streams -------------------------------------------------------------------------------

    def event_stream(self) -> contextlib.AbstractAsyncContextManager[AsyncIterator[dict]]:
        return self.stream("/api/stream/event")

    def game_stream(self, game_id: str) -> contextlib.AbstractAsyncContextManager[AsyncIterator[dict]]:
        return self.stream(f"/api/board/game/stream/{game_id}")

    @contextlib.asynccontextmanager
    async def stream(self, path: str, method: str = "GET",
                     data: dict | None = None) -> AsyncIterator[AsyncIterator[dict]]:
        """Open an ndjson stream; iterate the events it yields (keep-alive lines are skipped).

        Raises StreamSilent when no line at all (not even a keep-alive) comes for
        ``silence_timeout`` seconds, LichessUnavailable on a drop, RateLimited on a 429.
        """
        await self._respect_rate_limit()
        timeout = httpx.Timeout(self.config.silence_timeout + 5.0, connect=self.config.connect_timeout)
        request = self._http.build_request(method, path, data=data, timeout=timeout)
        try:   # asyncio.timeout, not wait_for: a stop in the turn the answer lands must not be lost
            async with self._timeout(self.config.connect_timeout + self.config.silence_timeout):
                response = await self._http.send(request, stream=True)
        except (httpx.TimeoutException, asyncio.TimeoutError):
            raise LichessUnavailable(f"{path}: no answer") from None
        except httpx.TransportError as exc:
            raise LichessUnavailable(f"{path}: {type(exc).__name__}") from None
        try:
            if response.status_code != 200:
                await response.aread()
                self._raise_for(response, path)
            yield self._ndjson(response, path)
        finally:
            await response.aclose()

    async def _ndjson(self, response: httpx.Response, path: str) -> AsyncIterator[dict]:
        chunks = response.aiter_bytes()
        pending = b""
        try:
            while True:
                try:
                    # Read here, under asyncio.timeout: asyncio.wait_for (3.11) returns a line that lands
                    # in the same turn of the loop as a cancellation and drops the cancellation, and
                    # the stream then reads on for ever (keep-alives keep it alive): a stop that hangs.
                    async with self._timeout(self.config.silence_timeout):
                        chunk = await chunks.__anext__()
                except StopAsyncIteration:
                    chunk, pending = pending + b"\n", b""   # the last line may lack its newline
                    if chunk.strip():
                        for event in _events(chunk, path):
                            yield event
                    return
                except asyncio.TimeoutError:
                    raise StreamSilent(f"{path}: silent for {self.config.silence_timeout:g} s") from None
                except (httpx.TransportError, httpx.StreamError) as exc:
                    raise LichessUnavailable(f"{path}: {type(exc).__name__}") from None
                pending += chunk
                cut = pending.rfind(b"\n") + 1
                if cut:
                    for event in _events(pending[:cut], path):
                        yield event
                    pending = pending[cut:]
        finally:
            if isinstance(chunks, collections.abc.AsyncGenerator):   # httpx's is one; typed as an iterator
                with contextlib.suppress(Exception):
                    await chunks.aclose()

    # -- plumbing ------------------------------------------------------------------------------

    async def _request(self, method: str, path: str, *, what: str, data: dict | None = None,
                       params: dict | None = None) -> Any:
        async with self._lock:   # Lichess: one request at a time
            for _ in range(RATE_LIMIT_RETRIES + 1):
                await self._respect_rate_limit()
                try:   # httpx bounds each read, not the whole: an answer that trickles in for ever
                    async with self._timeout(self.config.connect_timeout + self.config.request_timeout):
                        response = await self._http.request(method, path, data=data, params=params)
                except (httpx.TimeoutException, asyncio.TimeoutError):
                    raise LichessUnavailable(f"{what}: no answer within {self.config.request_timeout:g} s",
                                             timed_out=True) from None
                except httpx.TransportError as exc:
                    raise LichessUnavailable(f"{what}: {type(exc).__name__}") from None
                if response.status_code == 429:
                    self._rate_limited(what)
                    continue
                if response.status_code >= 400:
                    self._raise_for(response, what)
                try:
                    return response.json() if response.content else {}
                except ValueError:
                    return {}
            raise RateLimited(f"{what}: still rate-limited after {RATE_LIMIT_RETRIES} pauses",
                              self.config.rate_limit_pause)

    def _raise_for(self, response: httpx.Response, what: str) -> None:
        status = response.status_code
        if status == 429:
            self._rate_limited(what)
            raise RateLimited(f"{what}: too many requests", self.config.rate_limit_pause)
        if status >= 500:
            raise LichessUnavailable(f"{what}: Lichess answered HTTP {status}", status)
        error = _error_text(response)
        cls = {401: LichessAuthError, 403: LichessAuthError, 404: LichessNotFound}.get(status, LichessRefused)
        raise cls(status, error, what)

    def _rate_limited(self, what: str) -> None:
        pause = self.config.rate_limit_pause
        self._resume_at = max(self._resume_at, self._clock() + pause)
        log.warning("%s: Lichess says too many requests (429); pausing every request for %g s", what, pause)

    async def _respect_rate_limit(self) -> None:
        wait = self._resume_at - self._clock()
        if wait > 0:
            self.rate_limit_pauses.append(wait)
            await self._sleep(wait)

    async def _hold_seek(self, data: dict, opened: asyncio.Future) -> None:
        try:
            async with self.stream("/api/board/seek", method="POST", data=data) as lines:
                opened.set_result(None)
                async for _ in lines:
                    pass
        except BaseException as exc:
            if not opened.done():
                opened.set_exception(exc)
            elif not isinstance(exc, (asyncio.CancelledError, LichessError)):
                raise


class Seek:
    """A seek in progress. Real-time seeks live as long as their connection; ``cancel`` ends them."""

    def __init__(self, seek_id: str | None, task: asyncio.Task | None) -> None:
        self.id = seek_id
        self._task = task

    @property
    def active(self) -> bool:
        return self._task is not None and not self._task.done()

    async def wait(self) -> None:
        """Until the server closes the seek (someone accepted it, or it expired)."""
        if self._task is not None:
            with contextlib.suppress(LichessError):
                await asyncio.shield(self._task)

    async def cancel(self) -> None:
        """Withdraw the seek; idempotent."""
        task, self._task = self._task, None
        if task is not None:
            await cancel_and_wait(task)


def _events(data: bytes, path: str) -> list[dict]:
    """The JSON objects of complete ndjson lines; empty lines are keep-alives."""
    events = []
    for line in data.split(b"\n"):
        line = line.strip()
        if not line:
            continue
        try:
            event = json.loads(line)
        except ValueError:
            log.warning("%s: skipped a line that is not JSON (%d bytes)", path, len(line))
            continue
        if isinstance(event, dict):
            events.append(event)
    return events


def _flag(value: bool) -> str:
    return "true" if value else "false"


def _error_text(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text.strip()[:200] or response.reason_phrase
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict):   # form errors: {"error": {"field": ["message"]}}
            return "; ".join(f"{k}: {' '.join(map(str, v)) if isinstance(v, list) else v}"
                             for k, v in error.items())
        if error:
            return str(error)
    return str(body)[:200]


__all__ = ["DEFAULT_BASE_URL", "LichessAuthError", "LichessClient", "LichessConfig", "LichessError",
           "LichessNotFound", "LichessRefused", "LichessUnavailable", "RATE_LIMIT_PAUSE", "RateLimited",
           "STREAM_SILENCE_TIMEOUT", "Seek", "SeekNotAllowed", "StreamSilent", "check_challenge", "check_seek",
           "speed_of"]
