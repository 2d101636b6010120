"""How a game ended: the termination, the winner and the PGN result."""
from __future__ import annotations

import enum
from dataclasses import dataclass

from .squares import BLACK, WHITE


class Termination(enum.Enum):
    CHECKMATE = "checkmate"
    STALEMATE = "stalemate"
    INSUFFICIENT_MATERIAL = "insufficient material"  # a dead position: neither side can mate
    SEVENTYFIVE_MOVES = "seventy-five-move rule"
    FIVEFOLD_REPETITION = "fivefold repetition"
    FIFTY_MOVES = "fifty-move rule"
    THREEFOLD_REPETITION = "threefold repetition"
    TIME_FORFEIT = "time forfeit"  # flag fell (or the per-move limit was exceeded)
    TIME_VS_INSUFFICIENT = "timeout vs insufficient material"  # flag fell, opponent cannot mate: draw
    RESIGNATION = "resignation"
    AGREEMENT = "agreement"
    ABANDONED = "abandoned"


DRAWS = {Termination.STALEMATE, Termination.INSUFFICIENT_MATERIAL, Termination.SEVENTYFIVE_MOVES,
         Termination.FIVEFOLD_REPETITION, Termination.FIFTY_MOVES, Termination.THREEFOLD_REPETITION,
         Termination.TIME_VS_INSUFFICIENT, Termination.AGREEMENT}


@dataclass(frozen=True)
class Outcome:
    """The end of a game. ``winner`` is WHITE, BLACK or None for a draw."""

    termination: Termination
    winner: int | None = None

    def result(self) -> str:
        if self.winner == WHITE:
            return "1-0"
        if self.winner == BLACK:
            return "0-1"
        return "1/2-1/2"

    def describe(self) -> str:
        """In words, e.g. 'Black wins by checkmate', 'Draw by stalemate'."""
        if self.winner is None:
            return f"Draw by {self.termination.value}"
        side = "White" if self.winner == WHITE else "Black"
        if self.termination == Termination.TIME_FORFEIT:
            return f"{side} wins on time"
        return f"{side} wins by {self.termination.value}"

    @classmethod
    def from_result(cls, result: str, termination: Termination) -> "Outcome":
        winner = {"1-0": WHITE, "0-1": BLACK, "1/2-1/2": None}[result]
        return cls(termination, winner)
