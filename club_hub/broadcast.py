"""The round pushed to a Lichess broadcast: POST /api/broadcast/round/{id}/push, one at a time.

Lichess's API asks for one request at a time and, after a 429, a full minute of silence. The
pusher holds at most one request in flight; changes that come meanwhile are coalesced into the
next push, which sends the round's PGN as it is then (never an older one). A PGN equal to the
last one accepted is not sent again. Other failures wait ``retry_s`` and try again. The token
(scope ``study:write``) is read from a 0600 file and never logged.
"""
from __future__ import annotations

import asyncio
import logging
from typing import Awaitable, Callable

import httpx

log = logging.getLogger(__name__)

RATE_LIMIT_WAIT_S = 60.0
RETRY_S = 10.0


class BroadcastPusher:
    """Pushes ``pgn()`` to round ``round_id`` after :meth:`changed`, until :meth:`close`."""

    def __init__(self, round_id: str, token: str, pgn: Callable[[], str], *,
                 base_url: str = "https://lichess.org", client: httpx.AsyncClient | None = None,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep, retry_s: float = RETRY_S) -> None:
        if not round_id.isalnum() or len(round_id) > 16:
            raise ValueError(f"a Lichess broadcast round id is 8 letters and digits, not {round_id!r}")
        self.url = f"{base_url.rstrip('/')}/api/broadcast/round/{round_id}/push"
        self.pgn = pgn
        self.sleep = sleep
        self.retry_s = retry_s
        self._headers = {"Authorization": f"Bearer {token}", "Content-Type": "text/plain; charset=utf-8"}
        self._client = client or httpx.AsyncClient(timeout=30)
        self._own_client = client is None
        self._changed = asyncio.Event()
        self._task: asyncio.Task | None = None
        self.pushed = 0           # requests answered 200
        self.last_sent: str | None = None
        self.last_answer: dict | None = None
        self.idle = asyncio.Event()   # set when nothing is waiting (tests await it)

    def changed(self, *_: object) -> None:
        """A game changed: push the round again (coalesced with the changes that follow)."""
        self.idle.clear()
        self._changed.set()

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="lichess-broadcast")

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        if self._own_client:
            await self._client.aclose()

    async def _run(self) -> None:
        while True:
            if not self._changed.is_set():
                self.idle.set()
            await self._changed.wait()
            self._changed.clear()
            body = self.pgn()
            if not body.strip() or body == self.last_sent:
                continue
            wait = await self._push(body)
            if wait:
                self._changed.set()   # the round still needs pushing, after the wait
                await self.sleep(wait)

    async def _push(self, body: str) -> float:
        """One request; the seconds to wait before the next (0: none)."""
        try:
            answer = await self._client.post(self.url, content=body.encode("utf-8"), headers=self._headers)
        except httpx.HTTPError as exc:
            log.warning("Lichess broadcast: push failed (%s); again in %g s", exc.__class__.__name__, self.retry_s)
            return self.retry_s
        if answer.status_code == 429:
            log.warning("Lichess broadcast: too many requests; waiting %g s as Lichess asks", RATE_LIMIT_WAIT_S)
            return RATE_LIMIT_WAIT_S
        if answer.status_code != 200:
            log.error("Lichess broadcast: push refused (%d): %s; again in %g s", answer.status_code,
                      answer.text[:200], self.retry_s)
            return self.retry_s
        self.pushed += 1
        self.last_sent = body
        try:
            self.last_answer = answer.json()
        except ValueError:
            self.last_answer = None
        for game in (self.last_answer or {}).get("games", []):
            if isinstance(game, dict) and game.get("error"):
                log.warning("Lichess broadcast: a game was refused: %s", game["error"])
        return 0.0
