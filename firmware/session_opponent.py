"""The session's side of an opponent off the board (engine, Lichess): its listener methods."""
from __future__ import annotations

import asyncio
import logging
from typing import Any, Callable, Optional, Protocol

from board_driver.reading import Reading
from chess_core import Move, Outcome, Termination

from .match import GameOver
from .session_match import restore_match

log = logging.getLogger(__name__)


class Opponent(Protocol):
    """The side not played on the board (engine, Lichess); see firmware.opponents.base.

    The session calls ``await start(session)`` (the session is the listener: the opponent
    calls ``session.opponent_move(move)``...), ``on_move(move)`` for each move made on the
    board, ``on_reset(start_fen, moves)`` when the game changes otherwise (new game, takeback,
    amended move), ``await act(action)`` for a decision (resign, draw), and ``await stop()``.
    Only ``start``, ``on_move`` and ``stop`` are required.
    """

    async def start(self, listener: Any) -> None: ...

    def on_move(self, move: Move) -> None: ...

    async def stop(self) -> None: ...


class OpponentSide:
    """The listener methods of :class:`firmware.session.Session` (firmware.opponents.base's
    ``OpponentListener``), and how the session talks to its opponent."""

    async def start_opponent(self, opponent: Optional[Opponent] = None) -> None:
        if opponent is not None:
            self.opponent = opponent
        if self.opponent is not None:
            await self.opponent.start(self)

    def opponent_move(self, move: Move) -> None:
        """The opponent played ``move``: show it and wait for the board to carry it out."""
        now = self.clock()
        if not self.live:
            log.warning("opponent move %s ignored: no game in progress", move.uci())
            return
        try:
            self.match.expect(move)
        except ValueError as exc:
            log.error("opponent move refused: %s", exc)
            return
        self.expected_move = move
        self._changed = True
        self._after(now)

    def offer(self, offer: Any) -> None:
        """The opponent offers (or withdraws) a draw."""
        if getattr(getattr(offer, "kind", None), "value", None) == "draw":
            self.draw_offer = offer.by if offer.active else None
            self._changed = True
            self._after(self.clock())

    def game_over(self, end: Any) -> None:
        """The game ended at the other end (mate, resignation, flag, abort...). When the
        opponent's last move is still to be carried out on the board, the end waits for it, so
        that the move is in the game (a mate then ends it on the board by itself)."""
        outcome: Optional[Outcome] = getattr(end, "outcome", None)
        if not self.live or outcome is None:
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
        """The whole game as the other end knows it: the session's game becomes it, and the LEDs
        guide the pieces into its position. The same game continued keeps its PGN file."""
        now = self.clock()
        moves = [m.uci() for m in sync.moves]
        same_start = self.match.started and self.game.start_fen == sync.start_fen
        current = [m.uci() for m in self.game.moves]
        if same_start and current == moves and not self.game.is_over:
            return
        names = tuple(getattr(player, "name", None) or default
                      for player, default in ((sync.white, self.names[0]), (sync.black, self.names[1])))
        record = self.record
        if record is None or not same_start or moves[:len(current)] != current:
            record = self.recorder.new_record(self.wall(), names[0], names[1], replay=self.replay,
                                              event=self.config.game.event, site=self.config.game.site)
        record.white, record.black = names
        record.start_fen, record.rules, record.time_control = sync.start_fen, self.game.rules, "-"
        record.moves, record.clocks, record.outcome, record.remaining = moves, [None] * len(moves), None, None
        record.event_time = now
        board = self.match.debouncer.settled
        self.match = restore_match(self._match_config(), record, now, guide_back=True)
        self.record, self.names = record, names
        self.restored_plies = len(moves)   # the other end's moves: final on the board
        self.restoring = True
        self.expected_move = self.draw_offer = self.takeback_move = self.pending_end = None
        self.verdict = None
        self.gestures.reset()
        self._dirty = self._changed = True
        if board is not None:  # the board as it stands, read again against the new position
            self._handle(self.match.feed(Reading(now, board.occupied, board.white, board.black)), now)
        self._after(now)

    def clock_sync(self, clock: Any) -> None:
        """The other end's clocks, which are the game's (the board's clock is not run)."""
        self.server_clock = clock
        self._changed = True

    def move_rejected(self, move: Move, reason: str) -> None:
        log.error("the opponent's side refused %s: %s", move.uci(), reason)

    def link(self, state: Any, detail: str = "") -> None:
        """The health of the link to the opponent (connecting, connected, failed...)."""
        self.link_text = f"{getattr(state, 'value', state)}{': ' + detail if detail else ''}"
        self._changed = True

    def _reset_opponent(self) -> None:
        reset = getattr(self.opponent, "on_reset", None)
        if reset is not None:
            reset(self.game.start_fen, list(self.game.moves))

    def _tell_opponent(self, action: str) -> None:
        """Carry a decision to the opponent (Lichess), in the background; ignored if unsupported."""
        act = getattr(self.opponent, "act", None)
        if act is None:
            return
        try:
            from .opponents.base import Action
            loop = asyncio.get_running_loop()
        except (ImportError, RuntimeError):  # no opponent package, or no loop (sync tests)
            return
        task = loop.create_task(self._act(act, Action[action]))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    @staticmethod
    async def _act(act: Callable, action: Any) -> None:
        try:
            await act(action)
        except Exception as exc:  # ActionNotSupported: decided here alone; others are logged
            if type(exc).__name__ != "ActionNotSupported":
                log.warning("the opponent could not take %s: %s", action, exc)
