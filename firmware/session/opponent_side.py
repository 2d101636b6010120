"""The session's side of an opponent off the board (engine, Lichess): its listener methods."""
from __future__ import annotations

import asyncio
import dataclasses
import logging
from typing import Any, Callable, Optional, Protocol

from chess_core import Move, Outcome, Termination, san

from firmware.referee.match import GameOver, Match
from firmware.opponents.base import OfferKind, OpponentListener
from firmware.session.commands import SessionError
from firmware.session.online_tags import online_tags

log = logging.getLogger(__name__)

CHAT_KEPT = 30   # chat lines kept for the page


class Opponent(Protocol):
    """The side not played on the board (engine, Lichess); see firmware.opponents.base.

    The session calls ``await start(listener)`` (the listener is the session, through an
    :class:`OpponentGuard`: the opponent calls ``listener.opponent_move(move)``...), ``on_move(move)``
    for each move committed on the board (the opponent's own too, once carried out),
    ``on_reset(start_fen, moves)`` when the game changes otherwise (new game, takeback, amended
    move), ``await act(action)`` for a decision (resign, draw), and ``await stop()``.
    Only ``start``, ``on_move`` and ``stop`` are required.
    """

    async def start(self, listener: Any) -> None: ...

    def on_move(self, move: Move) -> None: ...

    async def stop(self) -> None: ...


class OpponentGuard(OpponentListener):
    """The listener an opponent is given: the session, for as long as that opponent is the
    session's. A replaced opponent still winding down (its last link state, a move found as it was
    stopped) is not heard."""

    def __init__(self, session: Any, opponent: Any) -> None:
        self._session = session
        self._opponent = opponent

    def _call(self, name: str, *args: Any) -> None:
        if self._session.opponent is self._opponent:
            handler = getattr(self._session, name, None)
            if handler is not None:
                handler(*args)

    def opponent_move(self, move):
        self._call("opponent_move", move)

    def game_sync(self, sync):
        self._call("game_sync", sync)

    def clock_sync(self, clock):
        self._call("clock_sync", clock)

    def offer(self, offer):
        self._call("offer", offer)

    def move_rejected(self, move, reason):
        self._call("move_rejected", move, reason)

    def game_over(self, end):
        self._call("game_over", end)

    def opponent_gone(self, gone):
        self._call("opponent_gone", gone)

    def chat(self, line):
        self._call("chat", line)

    def link(self, state, detail=""):
        self._call("link", state, detail)


def _kind_of(offer: Any) -> Any:
    kind = getattr(offer, "kind", None)
    return getattr(kind, "value", kind)


class OpponentSide:
    """The listener methods of :class:`firmware.session.session.Session` (firmware.opponents.base's
    ``OpponentListener``), and how the session talks to its opponent."""

    def opponent_move(self, move: Move) -> None:
        """The opponent played ``move``: show it and wait for the board to carry it out."""
        now = self.clock()
        if not self.live:
            # Before the pieces stand ready: the game starting tells the opponent again (on_reset).
            log.info("opponent move %s set aside: no game in progress on the board", move.uci())
            return
        try:
            self.match.expect(move)
        except ValueError as exc:
            log.error("opponent move refused (%s): the opponent reads the game again", exc)
            self._reset_opponent()
            return
        self.expected_move = move
        self._changed = True
        self._after(now)

    def offer(self, offer: Any) -> None:
        """The other side offers (or withdraws) a draw or a takeback; the end of the board's own
        draw offer without the game ending is the other side's answer: declined."""
        kind = _kind_of(offer)
        if kind == OfferKind.DRAW.value:
            local = getattr(self.online_sync, "local_colors", None) or ()
            if not offer.active and offer.by in local and self.draw_offer == offer.by:
                self._notify(f"{self._other_name(offer.by)} declined your draw offer")
            self.draw_offer = offer.by if offer.active else None
        elif kind == OfferKind.TAKEBACK.value:
            self.takeback_offer = offer.by if offer.active else None
        else:
            return
        self._changed = True
        self._after(self.clock())

    def game_over(self, end: Any) -> None:
        """The game ended at the other end (mate, resignation, flag, abort...). When the
        opponent's last move is still to be carried out on the board, the end waits for it, so
        that the move is in the game (a mate then ends it on the board by itself)."""
        outcome: Optional[Outcome] = getattr(end, "outcome", None)
        if not self.live:
            return
        if outcome is None:   # aborted over there: void; the board's game is no longer an online one
            self.online_sync = None
            self._add_problem(self.clock(), f"the game was {getattr(end, 'status', 'ended')} at the other end")
            self._after(self.clock())
            return
        if self.expected_move is not None:
            self.pending_end = outcome
            return
        self._end_from_other_side(outcome, self.clock())

    def _end_from_other_side(self, outcome: Outcome, now: float) -> None:
        self.pending_end = None
        if not self.live:
            return
        if outcome.termination is Termination.RESIGNATION and outcome.winner is not None:
            self._handle(self.match.resign(outcome.winner ^ 1, now), now)
        elif outcome.termination is Termination.AGREEMENT:
            self._handle(self.match.agree_draw(now), now)
        else:  # a flag, an abort, a claim over there: the other end's word is final
            self._handle(self.match.pause(now), now)
            self.game.outcome = outcome
            self._on_game_over(GameOver(outcome, now), now)
        self._after(now)

    def game_sync(self, sync: Any) -> None:
        """The whole game as the other end knows it (joining a game, also one in progress; a
        takeback; a refused move): the session's game becomes it, and the LEDs guide the pieces
        into its position. The same game continued keeps its PGN file.

        The server's clocks are the game's (``clock_sync``): the board's clock does not run and no
        flag falls here. Board-only takebacks are off.
        """
        now = self.clock()
        moves = list(sync.moves)
        current = list(self.game.moves)
        previous = self.online_sync
        game_id = getattr(sync, "game_id", None)
        same_start = self.match.started and self.game.start_fen == sync.start_fen
        self.online_sync = sync
        names = tuple(getattr(player, "name", None) or default
                      for player, default in ((sync.white, self.names[0]), (sync.black, self.names[1])))
        if previous is not None and same_start and current == moves and not self.game.is_over and self.record:
            self.names = self.record.white, self.record.black = names   # (the board's game is the server's)
            if self.expected_move is not None:   # the opponent's move, not carried out yet, was taken back
                self.match.expect(None)
                self.expected_move = self.pending_end = None
                self._handle(self.match.reread(now), now)   # the board as it stands, without it
            self._changed = True
            self._after(now)
            return
        record = self.record
        if record is not None and game_id is not None:
            continued = record.online_id == game_id   # (also the game saved before a restart)
        else:
            continued = (record is not None and previous is not None and same_start
                         and (moves[:len(current)] == current or current[:len(moves)] == moves))
        if not continued:
            if record is not None and not record.moves and not record.is_over:
                self.recorder.discard(record)   # the board was only set up: no game to keep
            site = self._online_site(game_id) or self.config.game.site
            record = self.recorder.new_record(self.wall(), names[0], names[1], replay=self.replay,
                                              event=self.config.game.event, site=site, online_id=game_id)
        record.white, record.black = names
        record.tags = online_tags(sync)
        record.start_fen, record.rules = sync.start_fen, self.game.rules
        record.time_control = getattr(sync, "time_control", None) or "-"
        record.moves, record.clocks = [m.uci() for m in moves], [None] * len(moves)
        record.outcome, record.remaining, record.event_time = None, None, now
        record.comments = {ply: text for ply, text in record.comments.items() if int(ply) <= len(moves)}
        board = self.match.debouncer
        config = dataclasses.replace(self._match_config(), fen=sync.start_fen, time_control="-", takebacks=False)
        self.match = Match.restore(config, moves, now, guide_back=True)
        self.match.debouncer = board
        self.record, self.names = record, names
        self.restored_plies = len(moves)   # the other end's moves: final on the board
        self.restoring = True
        self.new_online_game = not continued
        if not continued:
            self.chat_lines, self.notice = [], None
        self.expected_move = self.draw_offer = self.takeback_offer = self.takeback_move = self.pending_end = None
        self.verdict = None
        self.gestures.reset()
        self._dirty = self._changed = True
        self._handle(self.match.reread(now), now)   # the board as it stands, against the new position
        self._after(now)

    def _online_site(self, game_id: Optional[str]) -> Optional[str]:
        """The PGN Site of an online game: its address on the server."""
        game_url = getattr(self.opponent, "game_url", None)
        return game_url(game_id) if game_id is not None and game_url is not None else None

    def clock_sync(self, clock: Any) -> None:
        """The other end's clocks, which are the game's: shown, and counted down here between
        events. Re-stamped with the session's own time (the opponent may read another clock)."""
        now = self.clock()
        if dataclasses.is_dataclass(clock) and hasattr(clock, "at"):
            clock = dataclasses.replace(clock, at=now)
        self.server_clock = clock
        self._changed = True
        self._after(now)

    def move_rejected(self, move: Move, reason: str) -> None:
        """The other end refused a move of the board: it is taken back like an illegal move, the
        LEDs showing the squares to put right (the other end's game follows with ``game_sync``)."""
        now = self.clock()
        game = self.game
        last = game.moves[-1] if game.moves else None
        who = "Lichess" if getattr(self.opponent, "kind", None) == "lichess" else "the other end"
        if self.live and last == move and len(game.moves) > self.restored_plies:
            position = game.position.copy(stack=True)
            position.pop()
            text = san(position, move)
            self._handle(self.match.undo(now), now)
            self.takeback_move = move
        else:
            text = move.uci()
        log.warning("%s refused %s: %s", who, move.uci(), reason)
        self._add_problem(now, f"{who} refused {text} ({reason}): put the pieces back as shown")
        self._changed = True
        self._after(now)

    def link(self, state: Any, detail: str = "") -> None:
        """The health of the link to the opponent (connecting, connected, failed...)."""
        self.link_state = str(getattr(state, "value", state))
        self.link_detail = detail or ""
        self.link_text = f"{self.link_state}{': ' + detail if detail else ''}"
        self._changed = True
        self._after(self.clock())

    def opponent_gone(self, gone: Any) -> None:
        """The other player left (or came back); ``claim_win_in_seconds`` says when victory may be claimed."""
        self.opponent_away = gone if getattr(gone, "gone", False) else None
        self._changed = True
        self._after(self.clock())

    def chat(self, line: Any) -> None:
        """A chat line of the game (the other player's, or the board's own as the server echoes it)."""
        self.chat_lines = (self.chat_lines + [(str(getattr(line, "username", "?")),
                                               str(getattr(line, "text", "")))])[-CHAT_KEPT:]
        self._changed = True
        self._after(self.clock())

    def claim_when_gone(self, what: str, now: Optional[float] = None) -> None:
        """The other player left the game: claim the win (``what`` "victory") or a draw ("draw")."""
        now = self._now(now)
        self._require_live()
        if what not in ("victory", "draw"):
            raise ValueError(f"claim 'victory' or 'draw', not {what!r}")
        away = self.opponent_away
        if away is None:
            raise SessionError("the other player has not left the game: nothing to claim")
        wait = getattr(away, "claim_win_in_seconds", None)
        if wait:
            raise SessionError(f"the other player may still come back: claim in {wait} s")
        self._tell_opponent("CLAIM_VICTORY" if what == "victory" else "CLAIM_DRAW")
        self._after(now)

    def online_view(self, now: float) -> dict[str, Any]:
        """The snapshot's online extras: ``chat`` lines, a ``notice`` about the other side (until
        the next move), ``first_move_ms`` (before both first moves: the time left before the
        server aborts the game)."""
        notice = self.notice
        shown = notice[0] if notice is not None and notice[1] == len(self.game.moves) and not self.game.is_over else None
        first = None
        server = self.server_clock
        if server is not None and getattr(server, "first_move_ms", None) is not None and self.live:
            first = max(0, server.first_move_ms - round((now - server.at) * 1000))
        return {"chat": [{"user": user, "text": text} for user, text in self.chat_lines],
                "notice": shown, "first_move_ms": first}

    def _notify(self, text: str) -> None:
        """A line for the page about the other side (an answer...), shown until the next move."""
        self.notice = (text, len(self.game.moves))
        self._changed = True

    def _other_name(self, side: int) -> str:
        return self.names[side ^ 1] if self.names else "The other side"

    def _reset_opponent(self) -> None:
        reset = getattr(self.opponent, "on_reset", None)
        if reset is not None:
            reset(self.game.start_fen, list(self.game.moves))

    def _tell_opponent(self, action: str) -> None:
        """Carry a decision to the opponent (Lichess), in the background; ignored if unsupported."""
        act = getattr(self.opponent, "act", None)
        between_games = getattr(self.opponent, "assistance_allowed", True) is False and self.online_sync is None
        if act is None or between_games:   # (an online opponent between its games: the board decides alone)
            return
        try:
            from firmware.opponents.base import Action
            loop = asyncio.get_running_loop()
        except (ImportError, RuntimeError):  # no opponent package, or no loop (sync tests)
            return
        self._keep(loop.create_task(self._act(act, Action[action])))

    def _keep(self, task: asyncio.Task) -> None:
        """Hold a reference to a background task until it is done (``aclose`` waits for them)."""
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _act(self, act: Callable, action: Any) -> None:
        try:
            await act(action)
        except Exception as exc:  # ActionNotSupported: decided here alone; others are said
            if type(exc).__name__ != "ActionNotSupported":
                log.warning("the opponent could not take %s: %s", action, exc)
                self._add_problem(self.clock(), f"{action.value} did not go through: {exc}")
                self._after(self.clock())
