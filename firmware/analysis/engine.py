"""Stockfish's evaluation of every position of a game: one thread, a bounded hash, the lowest priority, a fresh search each position.

Contract
========

* :func:`evaluate_game` runs the service's shared helper engine
  (``uci.helper``: one process for the coach, the hints and the analyses,
  a bounded queue in front of it; one of its own when none is given) over the positions of a game, the start and after each
  move, and returns for each its :class:`PositionEval`: the score from White's side, the best
  move and the line the engine expects. Positions without a legal move are not searched: a
  checkmate is ``Score.checkmated``, a stalemate 0.
* The engine runs as its own process at the lowest priority (``nice`` 19, set as soon as it
  runs), with ``Threads`` 1 and ``Hash`` bounded (16 MB, Stockfish's default): the board's step
  and LEDs come first, even on a Pi Zero 2 W.
* Every position is searched afresh (``ucinewgame``, then ``isready``): with a fixed depth the
  evaluations are the engine's alone, the same run after run and the same as any other UCI
  client gets from the same engine, options and depth (python-chess's ``analyse`` in the tests).
  With a fixed time (``movetime``) they vary a little with the machine's load, as any timed search.
* ``progress(done, total)`` is called after each position; a cancellation stops the search under
  way (the helper's own engine, if it had to start one, is quit and reaped).
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from chess_core import STARTING_FEN, InvalidMoveError, Move, Position

from firmware.analysis.judgement import Score
from uci.helper import HASH_MB, NICE, HelperEngine, Search
from uci.engine import DEFAULT_ENGINE_PATH, EngineLaunch, EngineError, SearchLimit

log = logging.getLogger(__name__)

__all__ = ["AnalysisLimit", "PositionEval", "evaluate_game", "NICE", "HASH_MB"]


@dataclass(frozen=True)
class AnalysisLimit:
    """How long each position is searched: a fixed time (ms) or a fixed depth (deterministic)."""

    movetime_ms: int | None = None
    depth: int | None = None

    def __post_init__(self) -> None:
        if (self.movetime_ms is None) == (self.depth is None):
            raise ValueError("give a time per position or a depth, one of the two")
        if self.movetime_ms is not None and not 10 <= self.movetime_ms <= 600_000:
            raise ValueError("the time per position is 10 ms to 10 minutes")
        if self.depth is not None and not 1 <= self.depth <= 60:
            raise ValueError("the depth is 1 to 60")

    def search(self) -> SearchLimit:
        return SearchLimit(movetime_ms=self.movetime_ms, depth=self.depth)

    def text(self) -> str:
        """"depth 12" or "100 ms a move", as the PGN's Annotator tag says it."""
        return f"depth {self.depth}" if self.depth is not None else f"{self.movetime_ms} ms a move"


@dataclass(frozen=True)
class PositionEval:
    """The engine's view of one position: its score (White's side), best move and expected line."""

    score: Score
    best: Move | None = None
    pv: tuple[Move, ...] = ()
    depth: int | None = None


def _terminal(pos: Position) -> PositionEval | None:
    """The evaluation of a position without a legal move (no search), or None."""
    if pos.has_legal_move():
        return None
    return PositionEval(Score.checkmated(pos.turn) if pos.is_check() else Score(cp=0))


def _line(text: str) -> tuple[Move, ...]:
    moves = []
    for word in text.split():
        try:
            moves.append(Move.from_uci(word))
        except InvalidMoveError:
            break
    return tuple(moves)


def _position_eval(pos: Position, found_move: Move | None, info: dict[str, str]) -> PositionEval:
    score_text = info.get("score", "").split()
    if len(score_text) != 2 or score_text[0] not in ("cp", "mate"):
        raise EngineError(f"the engine gave no score for {pos.fen()}")
    score = Score.from_mover(score_text[0], int(score_text[1]), pos.turn)
    pv = _line(info.get("pv", ""))
    best = found_move or (pv[0] if pv else None)
    if best is not None and (not pv or pv[0] != best):
        pv = (best,)
    depth = info.get("depth", "")
    return PositionEval(score, best, pv, int(depth) if depth.isdigit() else None)


async def evaluate_game(moves: Sequence[Move], limit: AnalysisLimit, *, start_fen: str = STARTING_FEN,
                        chess960: bool = False, engine_path: str = DEFAULT_ENGINE_PATH, hash_mb: int = HASH_MB,
                        progress: Callable[[int, int], None] | None = None,
                        names: list[str] | None = None, plies: Sequence[int] | None = None,
                        engine: HelperEngine | None = None) -> list[PositionEval]:
    """The evaluation of the start and of the position after each of ``moves`` (see the module
    docstring); ``names`` receives the engine's name once it says it ("Stockfish 15.1");
    ``plies``: only the positions after so many moves, in this order (the coach's one or two);
    ``engine``: the service's shared helper engine (else one of its own, quit at the end)."""
    if engine is None:
        own = HelperEngine(EngineLaunch(path=engine_path), hash_mb=hash_mb)
        try:
            return await evaluate_game(moves, limit, start_fen=start_fen, chess960=chess960, progress=progress,
                                       names=names, plies=plies, engine=own)
        finally:
            await own.aclose()
    pos = Position(start_fen, chess960=chess960)
    positions = [pos.copy()]
    for move in moves:
        pos.push(move)
        positions.append(pos.copy())
    chosen = list(range(len(positions))) if plies is None else list(plies)
    found: list[PositionEval] = []
    for ply in chosen:
        position = positions[ply]
        evaluation = _terminal(position)
        if evaluation is None:
            answer = await engine.search(Search(start_fen, tuple(moves[:ply]), limit.search(), chess960))
            evaluation = _position_eval(position, answer.move, dict(answer.info))
        found.append(evaluation)
        if progress is not None:
            progress(len(found), len(chosen))
    if names is not None:
        names.append(engine.name)
    return found
