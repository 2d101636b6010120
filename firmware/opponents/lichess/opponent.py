"""Lichess as the opponent: the event stream, joining games started anywhere, seeks and challenges."""
from __future__ import annotations

import asyncio
import logging
import random
import time
from contextlib import AbstractAsyncContextManager
from typing import Any, Awaitable, Callable, Sequence

from chess_core import Move

from firmware.opponents.base import (Action, ActionRefused, ChallengeEvent, LinkState, Opponent, OpponentKind,
                                     OpponentListener, QuietListener)
from firmware.opponents.lichess.client import LichessClient, LichessError, Seek
from firmware.opponents.lichess.game import STOP_SEND_S, LichessGame
from firmware.opponents.lichess.models import (PLAYABLE_VARIANTS, challenge_of, color_of, game_id_of, not_playable,
                                               variant_of)
from firmware.opponents.lichess.reconnect import ReconnectingStream, StreamState
from firmware.tasks import STOP_GRACE, STOP_TRIES, cancel_and_wait

log = logging.getLogger(__name__)

DECLINE_VARIANT = "variant"   # Lichess's reason for a challenge declined for its variant (POST .../decline)

_LINK = {StreamState.CONNECTING: LinkState.CONNECTING, StreamState.OPEN: LinkState.CONNECTED,
         StreamState.WAITING: LinkState.RECONNECTING, StreamState.FAILED: LinkState.FAILED}


class LichessOpponent(Opponent):
    """The board as the physical front-end of Lichess games; see ``base`` for the protocol.

    The event stream runs from ``start`` to ``stop``. A game that starts anywhere (a seek or a
    challenge from the board, or the website / app) arrives as ``gameStart`` and is joined at once,
    also when already in progress; the session gets the whole game with ``game_sync``. Games that
    start while one is being played are joined in turn. Engine help, hints and board takebacks are
    off (``assistance_allowed``). A challenge to the account in a variant the board cannot play is
    declined with Lichess's reason ``variant``; a stop first sends the board's last move (``STOP_SEND_S``).
    """

    kind = OpponentKind.LICHESS
    assistance_allowed = False

    def __init__(self, client: LichessClient, *, game_id: str | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
                 draw: Callable[[], float] = random.random, close_client: bool = False,
                 timeout: Callable[[float], AbstractAsyncContextManager[Any]] = asyncio.timeout) -> None:
        self.client = client
        self._close_client = close_client   # the client was made for this opponent: close it with it
        self.account_id: str | None = None
        self.game: LichessGame | None = None
        self.games_played: list[str] = []
        self._first_game = game_id
        self._clock, self._sleep, self._draw = clock, sleep, draw
        self._timeout = timeout   # the limit on the stop's wait for the board's last move
        self._listener: OpponentListener = QuietListener()
        self._pending: dict[str, int | None] = {}   # games announced meanwhile -> our colour
        self._declined: set[str] = set()             # challenges declined (in a variant the board cannot play)
        self._seek: Seek | None = None
        self._tasks: set[asyncio.Task] = set()
        self._started = False
        self._stopped = False
        self.events = ReconnectingStream(
            "events", client.event_stream,
            {"gameStart": self._on_game_start, "gameFinish": self._on_game_finish,
             "challenge": self._on_challenge, "challengeCanceled": self._on_challenge,
             "challengeDeclined": self._on_challenge},
            backoff=client.config.backoff, sleep=sleep, draw=draw, on_state=self._link)

    @property
    def name(self) -> str:
        game = self.game
        if game is not None and game.full is not None and game.opponent_color is not None:
            player = game.full.get("white" if game.opponent_color == 0 else "black") or {}
            name = player.get("name") or player.get("username")
            if player.get("aiLevel"):
                name = f"Stockfish level {player['aiLevel']}"
            if name:
                return str(name)
        return "Lichess"

    @property
    def sides(self) -> frozenset[int]:
        """The colour the other end plays in the game followed (none before a game)."""
        game = self.game
        if game is None or game.opponent_color is None:
            return frozenset()
        return frozenset({game.opponent_color})

    def game_url(self, game_id: str) -> str:
        """The game's address on the server (the PGN Site)."""
        return f"{self.client.config.base_url.rstrip('/')}/{game_id}"

    # -- the Opponent protocol -----------------------------------------------------------------

    async def start(self, listener: OpponentListener) -> None:
        if self._started:
            return
        self._started = True
        self._listener = listener
        listener.link(LinkState.CONNECTING, self.client.config.base_url)
        try:
            account = await self.client.account()
            self.account_id = account.get("id") or account.get("username")
        except LichessError as exc:   # not fatal: gameStart says which side we play
            log.warning("could not read the Lichess account (%s); carrying on", exc)
        self.events.start()
        if self._first_game:
            self._follow(self._first_game, None)

    def resume(self, game_id: str) -> None:
        """Follow ``game_id`` again, a game the board was playing before a restart: the server
        says where it stands (still going, or how it ended meanwhile)."""
        if not self._started:
            self._first_game = self._first_game or game_id
        elif self.game is None or (self.game.ended and self.game.id != game_id):
            self._follow(game_id, None)

    def on_move(self, move: Move) -> None:
        if self.game is None:
            log.warning("move %s committed with no Lichess game in progress; ignored", move)
            return
        self.game.on_move(move)

    def on_reset(self, start_fen: str, moves: Sequence[Move]) -> None:
        if self.game is not None:
            self.game.resync()

    async def act(self, action: Action) -> None:
        if self.game is None or self.game.ended:
            raise ActionRefused("no Lichess game in progress")
        await self.game.act(action)

    async def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        if self.game is not None:   # the move the board committed goes out first (a few seconds at most)
            await self.game.send_before_stop(STOP_SEND_S, self._timeout)
        await self.cancel_seek()
        if self.game is not None:
            await self.game.stop()
        await self.events.stop()
        if self._tasks:   # earlier games' stops, bounded themselves: let them finish, then make sure
            await asyncio.wait(list(self._tasks), timeout=STOP_GRACE * STOP_TRIES)
        for task in list(self._tasks):
            await cancel_and_wait(task)
        if self._started:
            self._listener.link(LinkState.CLOSED, "")
        if self._close_client:
            await self.client.aclose()

    # -- lobby: what the page offers before a game ---------------------------------------------

    async def seek(self, **kwargs: Any) -> Seek:
        """Seek a game (see ``LichessClient.seek``); the game arrives through the event stream."""
        await self.cancel_seek()
        self._seek = await self.client.seek(**kwargs)
        return self._seek

    async def cancel_seek(self) -> None:
        seek, self._seek = self._seek, None
        if seek is not None:
            await seek.cancel()

    async def challenge(self, username: str, **kwargs: Any) -> ChallengeEvent:
        data = await self.client.challenge(username, **kwargs)
        return challenge_of({"type": "challenge", "challenge": data})

    async def accept_challenge(self, challenge_id: str) -> None:
        await self.client.accept_challenge(challenge_id)

    async def decline_challenge(self, challenge_id: str, reason: str = "generic") -> None:
        await self.client.decline_challenge(challenge_id, reason)

    async def say(self, text: str) -> None:
        if self.game is None:
            raise ActionRefused("no Lichess game in progress")
        await self.client.chat(self.game.id, text)

    # -- the event stream ----------------------------------------------------------------------

    def _on_game_start(self, event: dict) -> None:
        game = event.get("game") or {}
        game_id = game_id_of(game)
        if not game_id:
            return
        compat = game.get("compat")
        if isinstance(compat, dict) and compat.get("board") is False:
            log.warning("game %s cannot be played with the Board API (too fast?); not joined", game_id)
            return
        key, name = variant_of(game)
        if key not in PLAYABLE_VARIANTS:
            log.warning("game %s is %s, which the board cannot play; not joined", game_id, name)
            self._listener.link(LinkState.CONNECTED, not_playable(game_id, name))
            return
        color = color_of(game.get("color"))
        if self.game is not None and self.game.id == game_id:
            return                                   # announced again after a reconnect
        if self.game is not None and not self.game.ended:
            self._pending.setdefault(game_id, color)  # joined once the current one ends
            return
        self._follow(game_id, color)

    def _on_game_finish(self, event: dict) -> None:
        game_id = game_id_of(event.get("game") or {})
        if game_id:
            self._pending.pop(game_id, None)

    def _on_challenge(self, event: dict) -> None:
        self._listener.challenge(challenge_of(event))
        if event.get("type") == "challenge":
            self._decline_if_unplayable(event.get("challenge") or {})

    def _decline_if_unplayable(self, data: dict) -> None:
        """A challenge to this account in a variant the board cannot play is declined, with the
        reason Lichess has for it (its games would never be joined); once, and never the account's own."""
        key, name = variant_of(data)
        challenge_id = str(data.get("id") or "")
        dest = data.get("destUser") or {}
        if (key in PLAYABLE_VARIANTS or not challenge_id or challenge_id in self._declined
                or data.get("status", "created") != "created" or not self.account_id
                or str(dest.get("id") or "").lower() != self.account_id.lower()):
            return
        self._declined.add(challenge_id)
        challenger = str((data.get("challenger") or {}).get("name") or "?")
        self._background(self._decline_unplayable(challenge_id, challenger, name))

    async def _decline_unplayable(self, challenge_id: str, challenger: str, variant: str) -> None:
        try:
            await self.client.decline_challenge(challenge_id, DECLINE_VARIANT)
        except LichessError as exc:
            self._declined.discard(challenge_id)   # announced again: tried again
            log.warning("challenge %s from %s in %s not declined (%s)", challenge_id, challenger, variant, exc)
            return
        log.info("challenge %s from %s in %s declined: the board cannot play it", challenge_id, challenger, variant)

    # -- games ---------------------------------------------------------------------------------

    def _follow(self, game_id: str, color: int | None) -> None:
        if self._stopped:
            return
        log.info("joining Lichess game %s", game_id)
        self._pending.pop(game_id, None)
        previous = self.game
        if previous is not None:
            self._background(previous.stop())
        self.games_played.append(game_id)
        self.game = LichessGame(self.client, game_id, color, self._listener, account_id=self.account_id,
                                clock=self._clock, sleep=self._sleep, draw=self._draw,
                                on_end=self._game_ended, on_link=self._link)
        self.game.start()

    def _game_ended(self, game: LichessGame) -> None:
        if self._pending:
            game_id, color = next(iter(self._pending.items()))
            self._follow(game_id, color)

    def _background(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _link(self, state: StreamState, detail: str) -> None:
        link = _LINK.get(state)
        if link is not None and not self._stopped:
            self._listener.link(link, detail)


__all__ = ["LichessOpponent"]
