"""The judgement of moves as Lichess makes it: win% from an evaluation, inaccuracies, mistakes and blunders, accuracy per side.

Pure functions of evaluations; no engine, no I/O. Implemented from Lichess's published formulas
(lichess.org/page/accuracy, and the code they cite):

* **Winning chances** (scalachess ``core/src/main/scala/eval.scala``, ``WinPercent.winningChances``,
  the multiplier of lila PR #11148): ``2 / (1 + exp(-0.00368208 * cp)) - 1``, on ``[-1, +1]``;
  **win%** (``WinPercent.fromCentiPawns``) is ``50 + 50 * winning chances``, with the centipawns
  ceiled to ±1000 first and a mate counted as ±1000.
* **Judgement** (lila ``modules/tree/src/main/Advice.scala``, ``CpAdvice``): between two
  centipawn evaluations, the mover's loss of winning chances (uncapped centipawns) of at least
  0.3 is a blunder (``??``), 0.2 a mistake (``?``), 0.1 an inaccuracy (``?!``). These are on
  Lichess's ``[-1, +1]`` scale of winning chances: in win% points (``0..100``) they are 15, 10
  and 5 — Lichess's own judgement, which issue 24 names "10, 20, 30 points" on the winning-chances
  scale times 100. ``MateAdvice``: a move that lets the opponent force mate ("Checkmate is now
  unavoidable") is a blunder, a mistake from below -7 pawns, an inaccuracy from below -9.99; one
  that loses a forced mate ("Lost forced checkmate sequence") likewise by the evaluation after it.
* **Move accuracy** (lila ``modules/analyse/src/main/AccuracyPercent.scala``, ``fromWinPercents``):
  100 when the mover's win% did not drop, else ``103.1668100711649 * exp(-0.04354415386753951 *
  drop) - 3.166924740191411 + 1`` (the "uncertainty bonus"), within ``[0, 100]``.
* **Game accuracy** per side (``AccuracyPercent.gameAccuracy``): the win% of every position,
  the start counted as +0.15 pawns (``Cp.initial``; ``firmware.analysis.review`` gives another
  start's own evaluation), a checkmated position left out (lila's fishnet ``AnalysisBuilder``);
  a window of ``plies / 10`` positions (2 to
  8) slides over them, and each move's weight is the standard deviation of its window's win%
  (the population's, within ``[0.5, 12]``): volatile stretches weigh more. A side's accuracy is
  the mean of the weighted mean of its moves' accuracies and their harmonic mean (each at least
  1 in it; scalalib ``Maths.harmonicMean``).
"""
from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass

WHITE, BLACK = 0, 1
MULTIPLIER = -0.00368208       # scalachess WinPercent.winningChances (lila PR #11148)
CEILING = 1000                 # Eval.Cp.CEILING: centipawns beyond count as this
INITIAL_CP = 15                # Eval.Cp.initial: the start position, for accuracy and the first move's judgement

__all__ = ["Score", "Judgement", "Advice", "winning_chances", "win_percent", "advise", "move_accuracy",
           "game_accuracy", "CEILING", "INITIAL_CP"]


@dataclass(frozen=True)
class Score:
    """An evaluation from White's side: ``cp`` centipawns, or ``mate`` in so many moves (positive:
    White mates; negative: Black mates). A position whose side to move is checkmated is
    ``mate=0`` with ``mated`` that side."""

    cp: int | None = None
    mate: int | None = None
    mated: int | None = None

    def __post_init__(self) -> None:
        if (self.cp is None) == (self.mate is None):
            raise ValueError("a score is centipawns or a mate, one of the two")
        if (self.mate == 0) != (self.mated is not None):
            raise ValueError("mate 0 (checkmated) says who is mated, and only it")

    @classmethod
    def checkmated(cls, side: int) -> "Score":
        return cls(mate=0, mated=side)

    @classmethod
    def from_mover(cls, kind: str, value: int, turn: int) -> "Score":
        """The engine's ``score cp 31`` / ``score mate -2`` (from the side to move, ``turn``),
        from White's side."""
        sign = 1 if turn == WHITE else -1
        if kind == "cp":
            return cls(cp=sign * value)
        if kind == "mate":
            return cls.checkmated(turn) if value == 0 else cls(mate=sign * value)
        raise ValueError(f"not a UCI score: {kind} {value}")

    @property
    def white_wins(self) -> bool:
        """A mate for White (mate > 0, or Black checkmated)."""
        return self.mate is not None and (self.mate > 0 or self.mated == BLACK)

    def forced_cp(self) -> int:
        """Centipawns, a mate counted as ±``CEILING`` (lila ``Eval.forceAsCp``, then ceiled)."""
        if self.cp is not None:
            return max(-CEILING, min(CEILING, self.cp))
        return CEILING if self.white_wins else -CEILING

    def pgn(self) -> str | None:
        """The ``[%eval]`` value: ``0.34``, ``-1.5``, ``#3``, ``#-2`` (None for a checkmate)."""
        if self.cp is not None:
            return str(self.cp / 100)
        return None if self.mate == 0 else f"#{self.mate}"

    def words(self) -> str | None:
        """As Lichess writes an evaluation in its advice: ``0.34`` (two decimals), ``Mate in 3``."""
        if self.cp is not None:
            return f"{self.cp / 100:.2f}"
        return None if self.mate == 0 else f"Mate in {abs(self.mate or 0)}"


class Judgement(enum.Enum):
    """A move's fault: its name, its NAG and the NAG's symbol."""

    INACCURACY = ("Inaccuracy", 6, "?!")
    MISTAKE = ("Mistake", 2, "?")
    BLUNDER = ("Blunder", 4, "??")

    def __init__(self, word: str, nag: int, symbol: str) -> None:
        self.word = word
        self.nag = nag
        self.symbol = symbol


@dataclass(frozen=True)
class Advice:
    """A judged move: its fault and what Lichess says of it ("Mistake", "Checkmate is now unavoidable")."""

    judgement: Judgement
    text: str


# (at least this much winning chances lost, the judgement), the worst first (CpAdvice).
_THRESHOLDS = ((0.3, Judgement.BLUNDER), (0.2, Judgement.MISTAKE), (0.1, Judgement.INACCURACY))
MATE_CREATED = "Checkmate is now unavoidable"
MATE_LOST = "Lost forced checkmate sequence"


def winning_chances(cp: float) -> float:
    """``2 / (1 + exp(-0.00368208 * cp)) - 1`` within ``[-1, +1]``, from the side of ``cp``."""
    x = MULTIPLIER * cp
    if x > 700:          # (exp would overflow: the chances are -1 to the last decimal)
        return -1.0
    return max(-1.0, min(1.0, 2 / (1 + math.exp(x)) - 1))


def win_percent(score: Score) -> float:
    """White's win% of ``score``: ``50 + 50 * winning chances`` of its centipawns ceiled to
    ±1000 (a mate: ±1000)."""
    return 50 + 50 * winning_chances(score.forced_cp())


def advise(before: Score, after: Score, mover: int) -> Advice | None:
    """The fault of a move by ``mover`` that took the evaluation from ``before`` to ``after``
    (both from White's side), as Lichess judges it, or None (CpAdvice, then MateAdvice)."""
    if before.cp is not None and after.cp is not None:
        delta = winning_chances(after.cp) - winning_chances(before.cp)
        lost = -delta if mover == WHITE else delta
        for threshold, judgement in _THRESHOLDS:
            if lost >= threshold:
                return Advice(judgement, judgement.word)
        return None
    sign = 1 if mover == WHITE else -1      # the mover's side
    prev_mate = None if before.mate is None else before.mate * sign    # (a checkmate, 0, is neither side's
    next_mate = None if after.mate is None else after.mate * sign      # sequence: as Lichess's Mate(0))
    prev_cp = before.cp * sign if before.cp is not None else 0
    next_cp = after.cp * sign if after.cp is not None else 0
    if prev_mate is None and next_mate is not None and next_mate < 0:
        judgement = (Judgement.INACCURACY if prev_cp < -999 else Judgement.MISTAKE if prev_cp < -700
                     else Judgement.BLUNDER)
        return Advice(judgement, MATE_CREATED)
    if prev_mate is not None and prev_mate > 0 and (next_mate is None or next_mate < 0):
        judgement = (Judgement.INACCURACY if next_cp > 999 else Judgement.MISTAKE if next_cp > 700
                     else Judgement.BLUNDER)
        return Advice(judgement, MATE_LOST)
    return None


def move_accuracy(before: float, after: float) -> float:
    """The accuracy of a move that took its mover's win% from ``before`` to ``after``."""
    if after >= before:
        return 100.0
    raw = 103.1668100711649 * math.exp(-0.04354415386753951 * (before - after)) + -3.166924740191411
    return max(0.0, min(100.0, raw + 1))


def _std(values: Sequence[float]) -> float:
    mean = sum(values) / len(values)
    return math.sqrt(sum((x - mean) ** 2 for x in values) / len(values))


def game_accuracy(start: int, cps: Sequence[int], initial: int = INITIAL_CP) -> tuple[float, float] | None:
    """(White's, Black's) accuracy of a game whose first mover is ``start``, from the
    evaluation (centipawns from White's side, mates as ±1000) after each of its moves, or None
    while a side has not moved (Lichess's ``gameAccuracy``); ``initial``: the start's
    evaluation (Lichess's +0.15 by default)."""
    wins = [50 + 50 * winning_chances(max(-CEILING, min(CEILING, cp))) for cp in [initial, *cps]]
    size = max(2, min(8, len(cps) // 10))
    windows = [wins[:size]] * (min(size, len(wins)) - 2) + [wins[i:i + size] for i in range(len(wins) - size + 1)]
    weights = [max(0.5, min(12.0, _std(window))) for window in windows]
    moves: tuple[list[tuple[float, float]], list[tuple[float, float]]] = ([], [])
    for i, weight in enumerate(weights[:len(wins) - 1]):
        prev, nxt = wins[i], wins[i + 1]
        side = start if i % 2 == 0 else 1 - start
        accuracy = move_accuracy(prev, nxt) if side == WHITE else move_accuracy(100 - prev, 100 - nxt)
        moves[side].append((accuracy, weight))
    if not moves[WHITE] or not moves[BLACK]:
        return None

    def side_accuracy(found: list[tuple[float, float]]) -> float:
        weighted = sum(a * w for a, w in found) / sum(w for _, w in found)
        harmonic = len(found) / sum(1 / max(1.0, a) for a, _ in found)
        return (weighted + harmonic) / 2

    return side_accuracy(moves[WHITE]), side_accuracy(moves[BLACK])
