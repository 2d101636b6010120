"""A game's review from its positions' evaluations: each move's evaluation, fault and better move, and each side's accuracy.

Contract
========

* :func:`review` takes a game's moves and the evaluation of its start and of the position after
  each move (``firmware.analysis.engine.PositionEval``) and judges every move as Lichess does
  (``firmware.analysis.judgement``): the move is compared with the evaluation before it, and
  judged only when it is not the engine's own choice there. The better move and the line after
  it are kept in SAN (at most 12 plies, as Lichess keeps them).
* The first move is judged from the start's evaluation, and each side's accuracy counted from
  it: in a game from the usual start that is Lichess's +0.15 (``INITIAL_CP``, lila ``Info.start``);
  in a game from another position (a FEN, a Chess960 start) it is the engine's evaluation of that
  position. Lichess takes +0.15 whatever the position; the board does not follow it there: a
  start where a side is lost would make its first move a blunder and its accuracy a few percent,
  however well it played.
* :attr:`GameReview.accuracy` is each side's accuracy (None until both sides have moved). As in
  Lichess, a checkmated position is left out of it (lila's fishnet ``AnalysisBuilder`` drops the
  evaluation of a checkmate before it makes the analysis): the mating move has no accuracy of its
  own, and the evaluations counted are one fewer. A stalemate counts (it is 0.00).
* :meth:`GameReview.to_json` is what the library's page draws: per ply the evaluation (White's
  win% for the graph, the score as text), the move's fault and the better move in UCI and SAN.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from chess_core import STARTING_FEN, IllegalMoveError, Move, Position, san

from firmware.analysis.engine import PositionEval
from firmware.analysis.judgement import INITIAL_CP, Advice, Score, advise, game_accuracy, win_percent

__all__ = ["MoveReview", "GameReview", "review", "LINE_PLIES"]

LINE_PLIES = 12     # the better line's length, as Lichess keeps it (Info.LineMaxPlies)


@dataclass(frozen=True)
class MoveReview:
    """One move: its SAN, the evaluation after it, its fault (None: not judged), the engine's
    choice in its place (``best``, the move itself when it agreed) and, when it is another move,
    that move and the line that follows it in SAN."""

    ply: int
    move: Move
    san: str
    score: Score
    before: Score             # the evaluation it was judged from (the first move of the usual start: +0.15)
    advice: Advice | None = None
    best: Move | None = None
    best_san: str | None = None
    line: tuple[str, ...] = ()


@dataclass(frozen=True)
class GameReview:
    """A game's moves judged, its evaluations and each side's accuracy (see the module docstring)."""

    start_fen: str
    start_score: Score
    moves: tuple[MoveReview, ...]
    accuracy: tuple[float, float] | None
    engine: str = "Stockfish"
    limit: str = ""

    def to_json(self) -> dict[str, Any]:
        def score(value: Score) -> dict[str, Any]:
            return {"cp": value.cp, "mate": value.mate, "text": value.pgn() or "#", "win": round(win_percent(value), 2)}

        return {
            "engine": self.engine, "limit": self.limit,
            "start": score(self.start_score),
            "accuracy": None if self.accuracy is None else {
                "white": round(self.accuracy[0], 1), "black": round(self.accuracy[1], 1)},
            "moves": [{"ply": m.ply, "uci": m.move.uci(), "san": m.san, **score(m.score),
                       "judgement": m.advice.judgement.name.lower() if m.advice else None,
                       "nag": m.advice.judgement.nag if m.advice else None,
                       "best": m.best.uci() if m.best else None, "best_san": m.best_san,
                       "line": list(m.line)} for m in self.moves],
        }


def _line_san(pos: Position, line: Sequence[Move]) -> tuple[str, ...]:
    """``line`` in SAN from ``pos`` (left unchanged), as far as its moves are legal, at most LINE_PLIES."""
    board = pos.copy()
    found = []
    for move in line[:LINE_PLIES]:
        try:
            text = san(board, move)
        except IllegalMoveError:
            break
        found.append(text)
        board.push(move)
    return tuple(found)


def review(moves: Sequence[Move], evals: Sequence[PositionEval], *, start_fen: str = STARTING_FEN,
           chess960: bool = False, engine: str = "Stockfish", limit: str = "") -> GameReview:
    """The review of a game of ``moves`` from ``start_fen``, ``evals`` being the evaluation of its
    start and of the position after each move (one more than the moves)."""
    if len(evals) != len(moves) + 1:
        raise ValueError(f"{len(evals)} evaluations for a game of {len(moves)} moves: one more is needed")
    pos = Position(start_fen, chess960=chess960)
    first_mover = pos.turn
    initial = Score(cp=INITIAL_CP) if start_fen == STARTING_FEN else evals[0].score
    reviewed = []
    for ply, move in enumerate(moves, start=1):
        before, after = evals[ply - 1], evals[ply]
        mover = pos.turn
        played = san(pos, move)
        advice = best_san = None
        line: tuple[str, ...] = ()
        prev = initial if ply == 1 else before.score
        if before.best is not None and before.best != move:
            advice = advise(prev, after.score, mover)
            line = _line_san(pos, before.pv or (before.best,))
            best_san = line[0] if line else None
        reviewed.append(MoveReview(ply, move, played, after.score, prev, advice, before.best, best_san, line))
        pos.push(move)
    counted = [e.score.forced_cp() for e in evals[1:] if e.score.mate != 0]   # (no checkmate: see above)
    accuracy = game_accuracy(first_mover, counted, initial.forced_cp())
    return GameReview(start_fen, evals[0].score, tuple(reviewed), accuracy, engine, limit)
