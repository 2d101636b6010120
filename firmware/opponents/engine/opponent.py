"""The engine as an opponent: plays its side(s) of the board's game, and takes over a player's side."""
from __future__ import annotations

import asyncio
import logging
import os
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from chess_core import BLACK, STARTING_FEN, WHITE, Game, IllegalMoveError, Move, Position

from firmware.opponents.base import (Action, ActionNotSupported, ClockTimes, LinkState, Opponent, OpponentKind,
                                     OpponentListener, QuietListener)
from uci.engine import EngineLaunch, EngineCrashed, EngineError, EngineState, UciEngine
from firmware.opponents.engine.levels import DEFAULT_LEVEL, Level
from firmware.tasks import cancel_and_wait

log = logging.getLogger(__name__)

MAX_RESTARTS = 2   # engine failures in a row (crash, hang, nonsense move) before giving up
COLOR_NAMES = ("White", "Black")


@dataclass(frozen=True)
class Takeover:
    """The engine took over ``side`` from ``player`` at move ``from_move``: how the PGN records it.

    The player tag becomes ``"Alice (Stockfish from move 23)"`` and the first engine move gets the
    comment ``"Stockfish plays White from here"``.
    """

    side: int
    player: str
    engine: str
    from_move: int

    def player_tag(self) -> str:
        name = self.player or COLOR_NAMES[self.side]
        return f"{name} ({self.engine} from move {self.from_move})"

    def comment(self) -> str:
        return f"{self.engine} plays {COLOR_NAMES[self.side]} from here"


def takeover_record(side: int, player: str, engine: str, position: Position) -> Takeover:
    """The record of ``engine`` taking ``side`` over in ``position`` (the first move it will play).

    >>> takeover_record(WHITE, "Alice", "Stockfish", Position()).player_tag()
    'Alice (Stockfish from move 1)'
    """
    number = position.fullmove_number
    if side == WHITE and position.turn == BLACK:
        number += 1
    return Takeover(side, player, engine, number)


def engine_name(path: str, said: str | None = None) -> str:
    """An engine's name: its UCI ``id name`` once it said it (``said``: "Stockfish 15.1"), else the
    executable's ("Stockfish" for a stockfish, "Engine" for another). One name for the page, the PGN
    player tag and the log; the session gives the players the engine's own when it connects."""
    if said:
        return said
    return "Stockfish" if "stockfish" in path.lower() else "Engine"


class EngineOpponent(Opponent):
    """Plays ``sides`` (WHITE, BLACK or both) with a UCI engine; see ``base`` for the protocol.

    ``times`` returns the clock's ``ClockTimes`` when the engine is to move (None: no clock, the
    level's move time is used); the session sets it when it starts the engine, if it is None. After a crash or a hang the engine is restarted, up to
    ``max_restarts`` failures in a row; then the link is reported FAILED and the engine stays quiet.
    """

    kind = OpponentKind.ENGINE
    sides: frozenset[int] = frozenset()   # set by __init__, set_sides, take_over and give_back

    def __init__(self, sides: int | Iterable[int] = BLACK, *, level: Level = DEFAULT_LEVEL,
                 config: EngineLaunch = EngineLaunch(),
                 times: Callable[[], ClockTimes | None] | None = None,
                 start_fen: str = STARTING_FEN, moves: Sequence[Move] = (),
                 max_restarts: int = MAX_RESTARTS, chess960: bool = False) -> None:
        self.sides = self._checked_sides(sides)
        self.level = level
        self.config = config
        self._said_name: str | None = None    # the engine's UCI id name, once it said it
        self.max_restarts = max_restarts
        self.failures = 0
        self.times = times
        # Chess960: the engine gets UCI_Chess960 and castling goes both ways king-takes-rook (e1h1).
        self.chess960 = chess960
        self._game = self._new_game(start_fen, moves, chess960)
        self._listener: OpponentListener = QuietListener()
        self._engine: UciEngine | None = None
        self._task: asyncio.Task | None = None
        self._generation = 0        # bumped whenever the game changes under a running search
        self._delivered: tuple[int, Move] | None = None   # our move the board has yet to carry out
        self._level_dirty = False
        self._started = False
        self._stopped = False
        self._closing = False       # a stop has begun: no restart, no new turn
        self._failed = False

    @property
    def name(self) -> str:
        return engine_name(self.config.path, self._said_name)

    # -- the Opponent protocol -----------------------------------------------------------------

    async def start(self, listener: OpponentListener) -> None:
        if self._started:
            return
        self._started = True
        self._listener = listener
        listener.link(LinkState.CONNECTING, f"starting {self.config.path}")
        try:
            self._engine = await self._spawn()
        except EngineError as exc:
            self._failed = True
            listener.link(LinkState.FAILED, str(exc))
            raise
        listener.link(LinkState.CONNECTED, self.name)
        self._schedule()

    def on_move(self, move: Move) -> None:
        """A move committed on the board: the local player's, or ours once carried out."""
        ply = len(self._game.moves)
        delivered = self._delivered
        if delivered is not None and delivered[0] == ply and move != delivered[1]:
            # The session did not say that our move was carried out; this move, played after it,
            # says so.
            self._push(delivered[1])
        self._delivered = None
        self._push(move)
        self._game_changed()

    def _push(self, move: Move) -> None:
        try:
            self._game.push(move)
        except IllegalMoveError as exc:
            log.error("the session committed %s, which the engine's copy of the game refuses (%s)", move, exc)

    def on_reset(self, start_fen: str, moves: Sequence[Move]) -> None:
        self._game = self._new_game(start_fen, moves, self.chess960)
        self._delivered = None
        self._game_changed()

    async def act(self, action: Action) -> None:
        raise ActionNotSupported(f"the engine has no say in {action.value!r}: the board decides")

    def closing(self) -> None:
        """A stop has begun: an engine that ends from now on is not started again."""
        self._closing = True

    async def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = self._closing = True
        task, self._task = self._task, None
        if task is not None:
            await cancel_and_wait(task)   # bounded, and never swallows our own cancellation
        if self._engine is not None:
            await self._engine.close()
        if self._started:
            self._listener.link(LinkState.CLOSED, "")

    # -- the page's actions --------------------------------------------------------------------

    def take_over(self, side: int, player: str = "") -> Takeover:
        """Play ``side`` too from now on (a player had to leave); returns the PGN record."""
        record = takeover_record(side, player, self.name, self._game.position)
        self.sides = self.sides | {side}
        self._schedule()
        return record

    def give_back(self, side: int) -> None:
        """Stop playing ``side`` (its player is back); a search for it is dropped."""
        self.sides = frozenset(self.sides - {side})
        self._game_changed()

    def set_sides(self, sides: int | Iterable[int]) -> None:
        """Play ``sides`` from now on (a new game with the colours changed); a search for a side
        it no longer plays is dropped."""
        self.sides = self._checked_sides(sides)
        self._game_changed()

    def use_clock(self, times: Callable[[], ClockTimes | None]) -> None:
        """Read the clock from ``times`` when it thinks, unless it was given one already."""
        if self.times is None:
            self.times = times

    def set_level(self, level: Level) -> None:
        """Play at ``level`` from the next move on."""
        self.level = level
        self._level_dirty = True

    @property
    def thinking(self) -> bool:
        return self._task is not None

    # -- inside --------------------------------------------------------------------------------

    @staticmethod
    def _checked_sides(sides: int | Iterable[int]) -> frozenset[int]:
        found = frozenset([sides] if isinstance(sides, int) else sides)
        if not found or not found <= {WHITE, BLACK}:
            raise ValueError(f"the engine plays WHITE and/or BLACK, not {sides!r}")
        return found

    @staticmethod
    def _new_game(start_fen: str, moves: Sequence[Move], chess960: bool = False) -> Game:
        game = Game(start_fen, chess960=chess960)
        for move in moves:
            game.push(move)
        return game

    def _game_changed(self) -> None:
        if self._task is not None:
            # The search in progress is about a position that is gone: end it; its move is dropped.
            self._generation += 1
            if self._engine is not None:
                self._engine.stop_search()
        self._schedule()

    def _wants_to_move(self) -> bool:
        # (No engine yet while start() spawns it: start() schedules the turn once it is up.)
        return (self._engine is not None and not self._closing and not self._failed and self._delivered is None
                and not self._game.is_over and self._game.turn in self.sides)

    def _schedule(self) -> None:
        if self._task is None and self._wants_to_move():
            self._task = asyncio.get_running_loop().create_task(self._turn(), name="engine-turn")

    def _ended(self, engine: UciEngine) -> None:
        """``engine`` ended by itself: a turn under way hears it from its search; else one starts
        now that restarts it (and then answers, if it is the engine's move)."""
        if engine is not self._engine or self._closing or self._failed or self._task is not None:
            return
        crash = EngineCrashed(f"the engine {engine.name} ended (exit code {engine.returncode})")
        self._task = asyncio.get_running_loop().create_task(self._turn(crash), name="engine-turn")

    async def _spawn(self) -> UciEngine:
        engine = UciEngine(self.config)
        engine.on_exit = lambda: self._ended(engine)
        try:
            await engine.start()
            if self.chess960:
                await engine.set_option("UCI_Chess960", True)   # EngineError if it cannot play 960
            for option, value in self.level.options(engine.options).items():
                await engine.set_option(option, value)
            await engine.new_game()
        except BaseException:
            await engine.close()
            raise
        if engine.name != os.path.basename(self.config.path):   # it said its id name
            self._said_name = engine.name
        self._level_dirty = False
        return engine

    async def _turn(self, crash: EngineError | None = None) -> None:
        """The engine's moves while it is to move; first a restart after ``crash``."""
        try:
            if crash is not None:
                await self._failed_once(crash)
            while self._wants_to_move():
                generation = self._generation
                game = self._game
                fen, moves = game.start_fen, list(game.moves)
                move = await self._search(fen, moves)   # None: it failed (restarted, or given up)
                if generation != self._generation or move is None:
                    continue
                try:
                    if not game.position.is_legal(move):
                        raise IllegalMoveError(move.uci())
                except IllegalMoveError:
                    await self._failed_once(EngineError(f"the engine played {move.uci()}, which is illegal "
                                                        f"in {game.fen()}"))
                    continue
                self.failures = 0
                self._delivered = (len(moves), move)
                self._listener.opponent_move(move)
        except Exception as exc:     # (a bug: said on the page, never an exception nobody retrieves)
            log.exception("the engine's turn failed")
            self._failed = True
            self._listener.link(LinkState.FAILED, f"the engine stopped playing: {exc}")
        finally:
            if self._task is asyncio.current_task():
                self._task = None
                engine = self._engine
                if engine is not None and engine.state is EngineState.FAILED:
                    self._ended(engine)     # (it ended as this turn finished: restarted now)

    async def _search(self, fen: str, moves: list[Move]) -> Move | None:
        engine = self._engine
        assert engine is not None
        try:
            if self._level_dirty:
                self._level_dirty = False
                for option, value in self.level.options(engine.options).items():
                    await engine.set_option(option, value)
            times = self.times() if self.times is not None else None
            best = await engine.play(fen, moves, self.level.limit(times))
        except EngineError as exc:     # crashed (now or while the player thought), hung, refused an option
            await self._failed_once(exc)
            return None
        if best.move is None:   # the game is not over here, so this is the engine's fault
            await self._failed_once(EngineError(f"the engine found no move in {self._game.fen()}"))
        return best.move

    async def _failed_once(self, exc: Exception) -> None:
        if self._closing:      # (stopping: the engine's end is the stop's, nothing to restart or say)
            log.info("the engine ended while the opponent stops: %s", exc)
            return
        self.failures += 1
        log.error("engine failure %d/%d: %s", self.failures, self.max_restarts, exc)
        if self.failures > self.max_restarts:
            self._failed = True
            self._listener.link(LinkState.FAILED, f"{exc}; gave up after {self.max_restarts} restarts")
            return
        self._listener.link(LinkState.RECONNECTING, f"{exc}; restarting the engine")
        old, self._engine = self._engine, None
        if old is not None:
            await old.close()
        try:
            self._engine = await self._spawn()
        except EngineError as again:
            self._failed = True
            self._listener.link(LinkState.FAILED, f"the engine could not be restarted: {again}")
            return
        self._listener.link(LinkState.CONNECTED, self.name)


__all__ = ["EngineOpponent", "MAX_RESTARTS", "Takeover", "takeover_record", "engine_name"]
