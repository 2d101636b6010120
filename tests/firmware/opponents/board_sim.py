"""A stand-in for the session in Lichess tests: carries out the opponent's moves, plays the board's own."""
from __future__ import annotations

import asyncio
import inspect
import random
from typing import Any, Callable, Optional

from chess_core import Game, Move

from firmware.opponents.base import GameEnd, GameSync

from .helpers import Recorder

VALUES = {1: 1, 2: 3, 3: 3, 4: 5, 5: 9, 6: 0}   # pawn..king, by chess_core piece type


def greedy(game: Game, rng: random.Random) -> Move:
    """Mate if possible, else the biggest capture, else any move: games end in a sensible time."""
    position = game.position
    moves = sorted(position.legal_moves(), key=Move.uci)
    best, best_value = [], -1
    for move in moves:
        position.push(move)
        mate = position.is_checkmate()
        position.pop()
        if mate:
            return move
        target = position.piece_at(move.to_square)
        value = VALUES[target.piece_type] if target is not None else 0
        if value > best_value:
            best, best_value = [move], value
        elif value == best_value:
            best.append(move)
    return rng.choice(best)


class BoardSim(Recorder):
    """Rebuilds its game on ``game_sync``, carries out each ``opponent_move`` at once, and plays the
    board's side with ``greedy``. ``hooks[ply]`` run once when the game first reaches ``ply``."""

    def __init__(self, seed: int = 1, max_plies: int = 400, confirm: bool = True) -> None:
        super().__init__()
        self.confirm = confirm    # tell the opponent when its own move was carried out (or not, as Session)
        self.rng = random.Random(seed)
        self.max_plies = max_plies
        self.game: Optional[Game] = None
        self.local: Optional[int] = None
        self.received: list[Move] = []
        self.syncs: list[GameSync] = []
        self.end: Optional[GameEnd] = None
        self.hooks: dict[int, Callable[[], Any]] = {}
        self.auto_play = True
        self._to_carry_out: list[Move] = []
        self._poke = asyncio.Event()
        self._done = asyncio.Event()

    # -- what the opponent tells the session ---------------------------------------------------

    def game_sync(self, sync: GameSync) -> None:
        super().game_sync(sync)
        self.syncs.append(sync)
        self.game = Game(sync.start_fen, rules="casual")
        for move in sync.moves:
            self.game.push(move)
        (self.local,) = sync.local_colors
        self._to_carry_out.clear()
        self._poke.set()

    def opponent_move(self, move: Move) -> None:
        super().opponent_move(move)
        self.received.append(move)
        self._to_carry_out.append(move)
        self._poke.set()

    def game_over(self, end: GameEnd) -> None:
        super().game_over(end)
        self.end = end
        self._done.set()
        self._poke.set()

    # -- the session's side --------------------------------------------------------------------

    async def drive(self, opponent: Any, timeout: float = 30.0) -> None:
        """Play until the game is over (or ``max_plies``)."""
        async def loop() -> None:
            while not self._done.is_set():
                await self._poke.wait()
                self._poke.clear()
                await self._step(opponent)
        await asyncio.wait_for(loop(), timeout)

    async def _step(self, opponent: Any) -> None:
        game = self.game
        if game is None or self._done.is_set():
            return
        ply = len(game.moves)
        for at in sorted(self.hooks):
            if at <= ply:
                hook = self.hooks.pop(at)
                result = hook()
                if inspect.isawaitable(result):
                    await result
                self._poke.set()
                return
        if self._to_carry_out:
            move = self._to_carry_out.pop(0)
            assert game.position.is_legal(move), f"{move} is not legal in {game.fen()}"
            game.push(move)
            if self.confirm:
                opponent.on_move(move)
            self._poke.set()
        elif (self.auto_play and game.turn == self.local and not game.is_over and ply < self.max_plies):
            move = greedy(game, self.rng)
            game.push(move)
            opponent.on_move(move)
            self._poke.set()
        elif ply >= self.max_plies:
            self._done.set()

    def ucis(self) -> list[str]:
        return [m.uci() for m in self.game.moves] if self.game else []
