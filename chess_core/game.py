"""A game: its moves, repetitions, draw claims and the rules that end it (FIDE or casual profile)."""
from __future__ import annotations

from collections import Counter
from typing import Callable

from .move import IllegalMoveError, Move
from .notation import parse_move, san
from .outcome import Outcome, Termination
from .position import STARTING_FEN, Position
from .squares import BB_DARK_SQUARES, BB_LIGHT_SQUARES, BISHOP, KING, KNIGHT, WHITE

RULE_PROFILES = ("fide", "casual")


class GameOverError(IllegalMoveError):
    """A move or action after the game has ended."""


class DrawClaimError(ValueError):
    """A draw claim that the rules do not allow now."""


def material_can_mate(pos: Position, color: int) -> bool:
    """Whether ``color`` has, by material alone, a checkmate in some series of legal moves.

    A bare king cannot mate; a lone knight or bishops all on one colour cannot mate a bare king
    (nor, for bishops, a king with only same-coloured bishops). Everything else is assumed able.
    The dead-position analysis (chess_core.dead) answers more positions exactly.
    """
    own = pos.bb_color[color]
    other = pos.bb_color[color ^ 1]
    bbp = pos.bb_piece
    mine = own & ~bbp[KING]
    if not mine:
        return False
    theirs = other & ~bbp[KING]
    if mine & ~(bbp[KNIGHT] | bbp[BISHOP]):
        return True
    knights = mine & bbp[KNIGHT]
    bishops = mine & bbp[BISHOP]
    if knights and not bishops and not knights & (knights - 1) and not theirs:
        return False
    if bishops and not knights:
        one_colour = not bishops & BB_DARK_SQUARES or not bishops & BB_LIGHT_SQUARES
        if one_colour:
            if not theirs:
                return False
            their_bishops = theirs & bbp[BISHOP]
            if theirs == their_bishops and (not (bishops | their_bishops) & BB_DARK_SQUARES
                                            or not (bishops | their_bishops) & BB_LIGHT_SQUARES):
                return False
    return True


def _default_dead(pos: Position) -> bool:
    return pos.is_insufficient_material()


class Game:
    """Moves from a start position under a rule profile; ``outcome`` is set when the rules end it.

    ``fide``: threefold repetition and fifty moves are claims, fivefold and seventy-five moves end
    the game by themselves. ``casual``: threefold and fifty moves end it by themselves. In both,
    checkmate, stalemate and dead positions end it at once (mate takes precedence).
    """

    def __init__(self, fen: str | None = None, rules: str = "fide",
                 dead_position: Callable[[Position], bool] | None = None,
                 can_mate: Callable[[Position, int], bool] | None = None, *, chess960: bool = False) -> None:
        if rules not in RULE_PROFILES:
            raise ValueError(f"unknown rule profile {rules!r}: expected one of {', '.join(RULE_PROFILES)}")
        self.rules = rules
        self.start_fen = fen or STARTING_FEN
        self.chess960 = chess960  # Chess960 castling (see Position); the start FEN says where
        self.position = Position(self.start_fen, chess960=chess960)
        self.moves: list[Move] = []
        self._keys: list[tuple[int, ...]] = [self.position.repetition_key()]
        self._counts: Counter[tuple[int, ...]] = Counter(self._keys)
        self._dead = dead_position or _default_dead
        self._can_mate = can_mate or material_can_mate
        self.outcome: Outcome | None = None
        self.outcome = self._automatic_outcome()

    # -- state -------------------------------------------------------------------------------

    @property
    def turn(self) -> int:
        return self.position.turn

    @property
    def is_over(self) -> bool:
        return self.outcome is not None

    def start_position(self) -> Position:
        return Position(self.start_fen, chess960=self.chess960)

    def fen(self) -> str:
        return self.position.fen()

    def repetition_count(self) -> int:
        """How many times the current position has stood on the board, counting now."""
        return self._counts[self._keys[-1]]

    def ply_mark(self, ply: int) -> object:
        """A mark of the game's first ``ply`` moves: the very same object (``is``) while they stay
        as they are, a new one once they are taken back or the game replaced (for caches)."""
        return self._keys[ply]

    def san_moves(self, lang: str = "en") -> list[str]:
        pos = self.start_position()
        out = []
        for move in self.moves:
            out.append(san(pos, move, lang))
            pos.push(move)
        return out

    # -- moves -------------------------------------------------------------------------------

    def push(self, move: Move) -> Outcome | None:
        if self.outcome is not None:
            raise GameOverError(f"the game is over ({self.outcome.describe()}); {move.uci()} not played")
        self.position.push(move)
        self.moves.append(move)
        key = self.position.repetition_key()
        self._keys.append(key)
        self._counts[key] += 1
        self.outcome = self._automatic_outcome()
        return self.outcome

    def push_text(self, text: str, lang: str = "auto") -> Move:
        """Play a move written in SAN (English or French letters) or UCI."""
        move = parse_move(self.position, text, lang)
        self.push(move)
        return move

    def pop(self) -> Move:
        """Take back the last move; the game is no longer over if it was ended by the board."""
        if not self.moves:
            raise IndexError("no move to take back")
        key = self._keys.pop()
        self._counts[key] -= 1
        move = self.moves.pop()
        self.position.pop()
        self.outcome = self._automatic_outcome()
        return move

    def _automatic_outcome(self) -> Outcome | None:
        pos = self.position
        if not pos.legal_codes():
            if pos.is_check():
                return Outcome(Termination.CHECKMATE, pos.turn ^ 1)
            return Outcome(Termination.STALEMATE)
        if self._dead(pos):
            return Outcome(Termination.INSUFFICIENT_MATERIAL)
        count = self.repetition_count()
        if pos.halfmove_clock >= 150:
            return Outcome(Termination.SEVENTYFIVE_MOVES)
        if count >= 5:
            return Outcome(Termination.FIVEFOLD_REPETITION)
        if self.rules == "casual":
            if count >= 3:
                return Outcome(Termination.THREEFOLD_REPETITION)
            if pos.halfmove_clock >= 100:
                return Outcome(Termination.FIFTY_MOVES)
        return None

    # -- claims and decisions ----------------------------------------------------------------

    def claimable_draws(self, move: Move | None = None) -> list[Termination]:
        """The draws that may be claimed now (FIDE 9.2, 9.3), or by announcing ``move`` first."""
        if self.outcome is not None:
            return []
        found = []
        if move is None:
            if self.repetition_count() >= 3:
                found.append(Termination.THREEFOLD_REPETITION)
            if self.position.halfmove_clock >= 100:
                found.append(Termination.FIFTY_MOVES)
            return found
        pos = self.position
        pos.push(move)
        try:
            mate = pos.is_checkmate()
            key = pos.repetition_key()
            if not mate and self._counts[key] + 1 >= 3:
                found.append(Termination.THREEFOLD_REPETITION)
            if not mate and pos.halfmove_clock >= 100:
                found.append(Termination.FIFTY_MOVES)
        finally:
            pos.pop()
        return found

    def claim_draw(self, move: Move | None = None) -> Outcome:
        """Claim a draw, with the move that brings it about if given; DrawClaimError if not valid."""
        claims = self.claimable_draws(move)
        if not claims:
            what = f" with {move.uci()}" if move else ""
            raise DrawClaimError(f"no draw can be claimed{what}: the position has stood "
                                 f"{self.repetition_count()} time(s), {self.position.halfmove_clock} "
                                 f"half-moves without a capture or pawn move")
        if move is not None:
            self.position.push(move)
            self.moves.append(move)
            key = self.position.repetition_key()
            self._keys.append(key)
            self._counts[key] += 1
        self.outcome = self._automatic_outcome() or Outcome(claims[0])
        return self.outcome

    def resign(self, color: int) -> Outcome:
        return self._end(Outcome(Termination.RESIGNATION, color ^ 1))

    def agree_draw(self) -> Outcome:
        return self._end(Outcome(Termination.AGREEMENT))

    def abandon(self, winner: int | None) -> Outcome:
        return self._end(Outcome(Termination.ABANDONED, winner))

    def flag(self, color: int) -> Outcome:
        """``color``'s flag fell: a loss, or a draw when the opponent cannot mate at all (FIDE 6.9)."""
        if self._can_mate(self.position, color ^ 1):
            return self._end(Outcome(Termination.TIME_FORFEIT, color ^ 1))
        return self._end(Outcome(Termination.TIME_VS_INSUFFICIENT))

    def end(self, outcome: Outcome) -> Outcome:
        """End the game by a decision taken off the board (arbiter, adjudication, a PGN tag)."""
        return self._end(outcome)

    def decide(self, outcome: Outcome | None) -> None:
        """Set the outcome decided elsewhere (a saved record, the other end of an online game, a
        PGN's result), replacing what the rules found; None reopens a game that went on."""
        self.outcome = outcome

    def _end(self, outcome: Outcome) -> Outcome:
        if self.outcome is not None:
            raise GameOverError(f"the game is already over ({self.outcome.describe()})")
        self.outcome = outcome
        return outcome

    def reopen(self) -> None:
        """Forget a decision (resignation, agreement, flag) taken by mistake; board outcomes stay."""
        self.outcome = self._automatic_outcome()


__all__ = ["Game", "GameOverError", "DrawClaimError", "RULE_PROFILES", "material_can_mate", "WHITE"]
