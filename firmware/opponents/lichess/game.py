"""One Lichess game followed from the board: its stream, the board's moves sent once, the server's game as truth."""
from __future__ import annotations

import asyncio
import enum
import logging
import random
import time
from dataclasses import dataclass
from contextlib import AbstractAsyncContextManager
from typing import Any, Awaitable, Callable

from chess_core import Move, Position

from firmware.opponents.base import (Action, ActionRefused, ChatLine, LinkState, Offer, OfferKind, OpponentGone,
                   OpponentListener)
from firmware.opponents.lichess.client import (TOKEN_REFUSED, LichessAuthError, LichessClient, LichessError,
                                               LichessRefused, LichessUnavailable)
from firmware.opponents.lichess.models import (PLAYABLE_VARIANTS, BoardState, MovesReader, game_sync_of,
                                               not_playable, start_fen_of, variant_of)
from firmware.opponents.lichess.reconnect import ReconnectingStream, StreamState
from firmware.tasks import cancel_and_wait

log = logging.getLogger(__name__)

SETTLE_AFTER_TIMEOUT = 2.0   # x the request timeout: let a hung move request land before re-reading the game
STOP_SEND_S = 3.0            # s a stop (SIGTERM, the end of a replay) waits for the board's last move to reach Lichess


class SendState(enum.Enum):
    QUEUED = "queued"          # committed on the board, not sent yet
    IN_FLIGHT = "in flight"    # the POST is under way
    ACKED = "acked"            # Lichess answered 200; its gameState will show the move
    UNCERTAIN = "uncertain"    # no answer, a drop or a 5xx: re-read the game before deciding


@dataclass
class Outgoing:
    """The board's move on its way to Lichess: the ply it must land on, and how far it got."""

    ply: int
    move: Move
    state: SendState = SendState.QUEUED
    failed_on_connection: int = 0   # the stream's connection count when the send went wrong
    acked_on_connection: int = 0    # ... when Lichess answered 200


class LichessGame:
    """Follows one game; used once (a new game gets a new object).

    The server's ``moves`` string is the truth. The board's moves (``board``) are what the session
    committed. Every new state is compared with the board: one new move of the opponent is
    delivered (``opponent_move``) once; the board's own unconfirmed move is waited for; anything
    else (a takeback, moves made on the website, a refused move) makes the board rebuild from the
    server's game (``game_sync``). A board move is sent only while the server's game has exactly the
    moves before it, and after an unclear failure only once a fresh ``gameFull`` shows it missing.
    """

    def __init__(self, client: LichessClient, game_id: str, color: int | None, listener: OpponentListener, *,
                 account_id: str | None = None, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep, draw: Callable[[], float] = random.random,
                 on_end: Callable[["LichessGame"], None] | None = None,
                 on_link: Callable[[StreamState, str], None] | None = None) -> None:
        self.client = client
        self.id = game_id
        self.color = color
        self.account_id = account_id
        self.listener = listener
        self.start_fen = start_fen_of(None)
        self.chess960 = False   # a Chess960 game (castling king-takes-rook, both ways)
        self._first_turn = Position(self.start_fen).turn
        self.board: list[Move] = []
        self.server: tuple[Move, ...] = ()
        self.state: BoardState | None = None
        self.full: dict | None = None
        self.delivered: Move | None = None
        self.outbox: Outgoing | None = None
        self.ended = False
        self.sync_count = 0
        self._clock = clock
        self._on_end = on_end
        self._on_link = on_link
        self._offers: set[tuple[OfferKind, int]] = set()
        self._claimed_draw = False
        self._sender: asyncio.Task | None = None
        self._settle: asyncio.Task | None = None
        self._changed = asyncio.Event()   # a state read, a send ended, the game rebuilt or ended
        self._sleep = sleep
        self.stream = ReconnectingStream(
            f"game-{game_id}", lambda: client.game_stream(game_id),
            {"gameFull": self._on_full, "gameState": self._on_state, "chatLine": self._on_chat,
             "opponentGone": self._on_gone},
            backoff=client.config.backoff, sleep=sleep, draw=draw, on_state=self._stream_state,
            keep_going=lambda: not self.ended)

    @property
    def opponent_color(self) -> int | None:
        return None if self.color is None else self.color ^ 1

    def start(self) -> None:
        self.stream.start()

    @property
    def unsent(self) -> Outgoing | None:
        """The board's move not yet accepted by Lichess (None: nothing waits to be sent)."""
        out = self.outbox
        return None if out is None or out.state is SendState.ACKED or self.ended else out

    async def send_before_stop(self, limit: float = STOP_SEND_S,
                               timeout: Callable[[float], AbstractAsyncContextManager[Any]] = asyncio.timeout
                               ) -> bool | None:
        """Before a stop: give the board's unsent move ``limit`` seconds to reach Lichess, its
        stream still open (a failed send re-reads the game and sends again). Said in the journal;
        True if sent, False if not, None if no move was waiting."""
        out = self.unsent
        if out is None:
            return None
        try:
            async with timeout(limit):
                while self.unsent is out:
                    self._changed.clear()
                    self._kick_sender()
                    await self._changed.wait()
        except TimeoutError:
            log.warning("game %s: %s not sent to Lichess within %g s of the stop", self.id, out.move, limit)
            return False
        if out.state is SendState.ACKED or (len(self.server) > out.ply and self.server[out.ply] == out.move):
            log.info("game %s: %s sent to Lichess before the stop", self.id, out.move)
            return True
        log.warning("game %s: %s not sent to Lichess before the stop (the game on Lichess stands)",
                    self.id, out.move)
        return False

    async def stop(self) -> None:
        """Stop the move under way, the timer and the stream; never waits forever (cancel_and_wait)."""
        for name in ("_sender", "_settle"):
            task = getattr(self, name)
            setattr(self, name, None)
            if task is not None:
                await cancel_and_wait(task)
        await self.stream.stop()

    # -- from the session ----------------------------------------------------------------------

    def on_move(self, move: Move) -> None:
        """A move committed on the board (the player's, or the opponent's once carried out)."""
        if self.ended or self.full is None:
            log.warning("game %s: move %s committed while no game is being played; ignored", self.id, move)
            return
        ply = len(self.board)
        if self._side(ply) != self.color and self.delivered is not None and move != self.delivered:
            # The session did not say that the opponent's move was carried out; the board's move,
            # played after it, says so.
            self.board.append(self.delivered)
            self.delivered = None
            ply += 1
        if self._side(ply) != self.color:
            if move == self.delivered:
                self.board.append(move)
                self.delivered = None
                self._reconcile()
            else:
                self._sync(f"the board committed {move} for the opponent, who played {self.delivered}")
            return
        self.board.append(move)
        self.outbox = Outgoing(ply, move)
        self._reconcile()
        self._kick_sender()

    def resync(self) -> None:
        """The session changed its game on its own: put the server's game back on the board."""
        if self.full is not None and not self.ended:
            self._sync("the server's game stands (a board takeback is not possible online)")

    async def act(self, action: Action) -> None:
        calls = {
            Action.RESIGN: lambda: self.client.resign(self.id),
            Action.ABORT: lambda: self.client.abort(self.id),
            Action.OFFER_DRAW: lambda: self.client.draw(self.id, True),
            Action.ACCEPT_DRAW: lambda: self.client.draw(self.id, True),
            Action.DECLINE_DRAW: lambda: self.client.draw(self.id, False),
            Action.PROPOSE_TAKEBACK: lambda: self.client.takeback(self.id, True),
            Action.ACCEPT_TAKEBACK: lambda: self.client.takeback(self.id, True),
            Action.DECLINE_TAKEBACK: lambda: self.client.takeback(self.id, False),
            Action.CLAIM_VICTORY: lambda: self.client.claim_victory(self.id),
            Action.CLAIM_DRAW: lambda: self.client.claim_draw(self.id),
        }
        if self.ended:
            raise ActionRefused(f"the game {self.id} is over")
        claiming = action is Action.CLAIM_DRAW
        self._claimed_draw |= claiming    # before the answer: the final state may come first
        try:
            await calls[action]()
        except LichessAuthError as exc:
            self._token_refused(exc)
            raise ActionRefused(TOKEN_REFUSED) from None
        except LichessRefused as exc:
            self._claimed_draw &= not claiming
            raise ActionRefused(exc.error) from None
        except LichessError as exc:
            self._claimed_draw &= not claiming
            raise ActionRefused(f"Lichess did not take it ({exc}); try again") from None

    # -- from the stream -----------------------------------------------------------------------

    def _on_full(self, event: dict) -> None:
        try:
            self._read_full(event)
        finally:
            self._changed.set()

    def _read_full(self, event: dict) -> None:
        first = self.full is None
        key, name = variant_of(event)
        if key not in PLAYABLE_VARIANTS:
            # Never joined and left hanging: said once, in words, and left alone.
            self.listener.link(LinkState.CONNECTED, not_playable(self.id, name))
            self.ended = True
            return
        self.full = event
        chess960 = key == "chess960"
        if start_fen_of(event.get("initialFen")) != self.start_fen or first or chess960 != self.chess960:
            self.start_fen = start_fen_of(event.get("initialFen"))
            self.chess960 = chess960
            self._first_turn = Position(self.start_fen, chess960=chess960).turn
            self._reader = MovesReader(self.start_fen, chess960)
        if self.color is None:
            self.color = self._color_from_players(event)
            if self.color is None:
                self.listener.link(LinkState.FAILED, f"cannot tell which side this account plays in {self.id}")
                self.ended = True
                return
        state = BoardState.from_event(event.get("state") or {})
        if first:
            try:
                self.server = self._reader.read(state.moves_text)
            except ValueError as exc:
                log.error("game %s: %s", self.id, exc)
                return
            self.board = list(self.server)
            self._announce()
        self._apply(state, fresh=True)

    def _on_state(self, event: dict) -> None:
        if self.full is not None:
            self._apply(BoardState.from_event(event), fresh=False)
            self._changed.set()

    def _on_chat(self, event: dict) -> None:
        self.listener.chat(ChatLine(str(event.get("room") or "player"), str(event.get("username") or "?"),
                                    str(event.get("text") or "")))

    def _on_gone(self, event: dict) -> None:
        seconds = event.get("claimWinInSeconds")
        self.listener.opponent_gone(OpponentGone(bool(event.get("gone")),
                                                 int(seconds) if isinstance(seconds, int) else None))

    def _token_refused(self, exc: LichessAuthError) -> None:
        """A 401/403 at any point: the link ends, saying so on the page and in the journal."""
        if self.ended:
            return
        log.error("game %s: %s", self.id, exc)
        self.ended = True
        self.listener.link(LinkState.FAILED, TOKEN_REFUSED)
        if self._on_end is not None:
            self._on_end(self)
        loop = asyncio.get_running_loop()
        loop.create_task(self.stream.stop(), name=f"lichess-stop-{self.id}")

    def _stream_state(self, state: StreamState, detail: str) -> None:
        if self._on_link is not None:
            self._on_link(state, detail)
        if state is StreamState.FAILED and not self.ended:
            self.ended = True            # the game cannot be followed (not found, token refused)
            self._changed.set()
            if self._on_end is not None:
                self._on_end(self)

    # -- the heart: the server's game against the board's --------------------------------------

    def _apply(self, state: BoardState, fresh: bool) -> None:
        try:
            moves = self._reader.read(state.moves_text)
        except ValueError as exc:
            log.error("game %s: %s; state ignored", self.id, exc)
            return
        self.server = moves
        self.state = state
        if self.full is None or isinstance(self.full.get("clock"), dict):
            self.listener.clock_sync(state.clock(self._first_turn, self._clock()))
        # (a correspondence game has no clock: Lichess's 2147483647 ms are not one to show)
        out = self.outbox
        if fresh and out is not None and len(moves) == out.ply:
            if out.state is SendState.UNCERTAIN and self.stream.connections > out.failed_on_connection:
                out.state = SendState.QUEUED    # a fresh read shows it never arrived: send it again
            elif out.state is SendState.ACKED and self.stream.connections > out.acked_on_connection:
                self.outbox = None              # accepted, then gone (taken back): the server wins
        self._reconcile()
        self._offers_changed(state)
        if state.over and not self.ended:
            if out is not None and self.outbox is out and len(moves) <= out.ply:
                # Over without the board's move: it came too late (a flag, a resignation...) and
                # never counts, whenever the refusal arrives (or if it never does).
                self._sync(f"the game ended on Lichess before {out.move} reached it")
            self.ended = True
            self.listener.game_over(state.end(self.start_fen, moves, self._claimed_draw, self.chess960))
            if self._on_end is not None:
                self._on_end(self)
            return
        self._kick_sender()

    def _reconcile(self) -> None:
        server, board = self.server, self.board
        out = self.outbox
        if out is not None and len(server) > out.ply and server[out.ply] == out.move:
            self.outbox = None                  # Lichess has it: sent exactly once
            out = None
        n = len(board)
        if server[:n] == tuple(board):
            extra = server[n:]
            if not extra:
                if self.delivered is not None:
                    self._sync("the opponent's last move was taken back")
                return
            if len(extra) == 1 and self._side(n) == self.opponent_color:
                if self.delivered is None:
                    self.delivered = extra[0]
                    self.listener.opponent_move(extra[0])
                elif self.delivered != extra[0]:
                    self._sync("the opponent's move changed")
                return
            self._sync(f"{len(extra)} move(s) were played elsewhere")
            return
        if tuple(board[:len(server)]) == server:
            ahead = board[len(server):]
            if len(ahead) == 1 and out is not None and out.ply == len(server) and out.move == ahead[0]:
                return                          # our move is on its way
            self._sync("moves were taken back")
            return
        self._sync("the board and Lichess disagree")

    def _sync(self, reason: str) -> None:
        log.info("game %s: the board rebuilds from Lichess's game (%s)", self.id, reason)
        self.board = list(self.server)
        self.delivered = None
        self.outbox = None
        self._announce()

    def _announce(self) -> None:
        assert self.full is not None and self.color is not None
        self.sync_count += 1
        self.listener.game_sync(game_sync_of(self.full, self.color, tuple(self.board)))

    def _offers_changed(self, state: BoardState) -> None:
        now = {(OfferKind.DRAW, c) for c in state.draw_offers} | {(OfferKind.TAKEBACK, c)
                                                                   for c in state.takeback_offers}
        for kind, color in sorted(now ^ self._offers, key=lambda kc: (kc[0].value, kc[1])):
            self.listener.offer(Offer(kind, color, active=(kind, color) in now))
        self._offers = now

    # -- sending the board's move --------------------------------------------------------------

    def _kick_sender(self) -> None:
        out = self.outbox
        if (out is None or out.state is not SendState.QUEUED or self.ended
                or (self._sender is not None and not self._sender.done())):
            return
        self._sender = asyncio.get_running_loop().create_task(self._send(out), name=f"lichess-move-{self.id}")

    async def _send(self, out: Outgoing) -> None:
        try:
            await self._send_once(out)
        finally:
            if self._sender is asyncio.current_task():
                self._sender = None
            self._changed.set()
        self._kick_sender()   # a newer move may have been queued while this one was under way

    async def _send_once(self, out: Outgoing) -> None:
        if len(self.server) != out.ply:
            return   # not the server's turn for it yet (or already there): a state will decide
        out.state = SendState.IN_FLIGHT
        try:
            await self.client.move(self.id, out.move.uci())
        except LichessAuthError as exc:
            # Not a refused move: the token is revoked. Re-sending or rebuilding will not help.
            self._token_refused(exc)
            return
        except LichessRefused as exc:
            if self.outbox is out:
                log.warning("game %s: Lichess refused %s: %s", self.id, out.move, exc.error)
                self.listener.move_rejected(out.move, exc.error)
                self._sync(f"Lichess refused {out.move}: {exc.error}")
            return
        except LichessError as exc:
            if self.outbox is out:
                log.warning("game %s: sending %s failed (%s): re-reading the game", self.id, out.move, exc)
                out.state = SendState.UNCERTAIN
                out.failed_on_connection = self.stream.connections
                if isinstance(exc, LichessUnavailable) and exc.timed_out:
                    # The request may still be under way over there: give it time to land (or not),
                    # so that the game we re-read tells the truth and the move is not played twice.
                    settle = SETTLE_AFTER_TIMEOUT * self.client.config.request_timeout
                    self._settle = asyncio.get_running_loop().create_task(self._reread_after(settle))
                else:
                    self.stream.reconnect()
            return
        if self.outbox is out:
            out.state = SendState.ACKED
            out.acked_on_connection = self.stream.connections

    async def _reread_after(self, delay: float) -> None:
        await self._sleep(delay)
        self.stream.reconnect()

    # -- helpers -------------------------------------------------------------------------------

    def _side(self, ply: int) -> int:
        return self._first_turn ^ (ply & 1)

    def _color_from_players(self, full: dict) -> int | None:
        if not self.account_id:
            return None
        for color, key in ((0, "white"), (1, "black")):
            player = full.get(key) or {}
            if str(player.get("id", "")).lower() == self.account_id.lower():
                return color
        return None


__all__ = ["LichessGame", "Outgoing", "SendState"]
