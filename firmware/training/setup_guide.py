"""The board leading a hand that sets up a position: what it believes stands where, followed from the sensors' occupancy, and the steps left.

Contract
========

A board that senses occupancy only knows which piece stands on a square from what it saw
happen: :class:`SetupGuide` is that belief, a value. It starts from the pieces known to stand on
the board (the last game's position, the start position...), restricted to the squares occupied
(:meth:`SetupGuide.start`: an occupied square of no known piece holds an unknown one, ``"?"``,
that goes to the box: the board never assumes a piece it did not see). Each settled occupancy (:meth:`SetupGuide.seen`)
moves the pieces of the squares emptied into the hand, then puts pieces on the squares filled:

* the piece of the step the LEDs show, if it brings one from off the board to that square (the
  hand followed the lights);
* the target's piece of that square if the hand holds one, or if the steps bring it from the
  box: a hand that put another kind there instead (the piece it held for another square) is not
  seen, the sensors cannot tell; the page's list of steps and the pieces drawn let the player
  see it (occupancy alone cannot);
* else the hand's latest piece the position still needs, or its latest (the hand carried it
  there, wrongly: the board then asks for it to be moved on, and the game waits for it);
* else an unknown one, on a square the target leaves empty.

The pieces in the hand count as in the box for the plan (:func:`firmware.training.setup_plan.plan`):
:attr:`steps` are the fewest from the belief to the target, in an order a hand can follow, and
:meth:`from_hand` says whether a step's piece from the box is the one in the hand. ``done``: the
belief is the target. :meth:`wrong` gives the occupied squares whose piece is not the target's:
the game may not begin while one of them holds a piece (its occupancy could match the target's
with the wrong pieces). Pure: occupancies in, values out.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from chess_core.squares import scan_squares

from firmware.training.setup_plan import Step, placement, plan

__all__ = ["SetupGuide", "UNKNOWN", "HAND_MAX"]

UNKNOWN = "?"      # a piece the board never saw placed: it goes to the box
HAND_MAX = 32      # pieces remembered in the hand (the rest went to the box long ago)


@dataclass(frozen=True)
class SetupGuide:
    """The target (a FEN), the pieces believed to stand on the board, the hand; see the module docstring."""

    target: str
    board: tuple[tuple[int, str], ...]   # (square, FEN letter), by square
    occupied: int                        # the occupancy the belief is of
    hand: tuple[tuple[str, int | None], ...] = ()   # the pieces lifted and not put down again, oldest
    #                                                   first, each with the square its step meant it for

    @classmethod
    def start(cls, target: str, known: dict[int, str], occupied: int) -> SetupGuide:
        """A guide to ``target`` (a FEN) with the pieces ``known`` to stand on their squares, on the
        squares ``occupied`` (a bitboard)."""
        board = {sq: known.get(sq) or UNKNOWN for sq in scan_squares(occupied)}
        return cls(target, tuple(sorted(board.items())), occupied)

    @cached_property
    def wanted(self) -> dict[int, str]:
        """The target's pieces, by square."""
        return placement(self.target)

    @cached_property
    def steps(self) -> tuple[Step, ...]:
        """The fewest steps from the belief to the target, in an order the hand can follow: first
        those that put a piece the hand holds where it was lifted for (if that square is empty)."""
        steps, board = list(plan(dict(self.board), self.wanted)), dict(self.board)
        first: list[Step] = []
        for piece, meant in reversed(self.hand):
            placed = next((s for s in steps if s.source is None and s.piece == piece and s not in first), None)
            if placed is None or meant is None or meant in board:
                continue
            if placed.target != meant:   # the plan serves that square otherwise: trade the two targets
                other = next((s for s in steps if s.piece == piece and s.target == meant), None)
                if other is None:
                    continue
                steps[steps.index(other)] = Step(piece, other.source, placed.target)
                steps[steps.index(placed)] = placed = Step(piece, None, meant)
            first.append(placed)
        return tuple(first) + tuple(step for step in steps if step not in first)

    @property
    def done(self) -> bool:
        return dict(self.board) == self.wanted

    def wrong(self) -> int:
        """The occupied squares whose piece is not the target's (an unknown one included), as a bitboard."""
        wanted = self.wanted
        return sum(1 << sq for sq, piece in self.board if wanted.get(sq) != piece)

    def from_hand(self, step: Step) -> bool:
        """Whether ``step`` brings a piece from off the board that the hand holds (not from the box)."""
        return step.source is None and any(piece == step.piece for piece, _ in self.hand)

    def seen(self, occupied: int) -> SetupGuide:
        """The belief after the sensors settled on ``occupied``; see the module docstring."""
        if occupied == self.occupied:
            return self
        board, hand = dict(self.board), list(self.hand)
        meant = {step.source: step.target for step in self.steps if step.source is not None}
        lit = self.steps[0] if self.steps else None   # the step the LEDs show
        shown = lit.target if lit is not None and lit.source is None else None
        for sq in scan_squares(self.occupied & ~occupied):
            hand.append((board.pop(sq), meant.get(sq)))
        steps = plan(board, self.wanted)
        needed = {step.piece for step in steps if step.source is None}
        boxed = {step.target for step in steps if step.source is None}
        for sq in scan_squares(occupied & ~self.occupied):
            pieces = [piece for piece, _ in hand]
            board[sq] = piece = lit.piece if sq == shown and lit is not None else self._placed(sq, hand, needed,
                                                                                               sq in boxed)
            if piece in pieces:
                del hand[len(pieces) - 1 - pieces[::-1].index(piece)]   # (the latest of that kind)
        return SetupGuide(self.target, tuple(sorted(board.items())), occupied, tuple(hand[-HAND_MAX:]))

    def _placed(self, square: int, hand: list[tuple[str, int | None]], needed: set[str], from_box: bool) -> str:
        wanted = self.wanted.get(square)
        pieces = [piece for piece, _ in hand]
        if wanted is not None and (wanted in pieces or from_box):
            return wanted
        carried = [piece for piece in pieces if piece in needed] or pieces
        if carried:
            return carried[-1]
        return wanted or UNKNOWN
