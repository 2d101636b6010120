"""The fewest piece moves that turn the pieces on the board into a target position, spare pieces taken from and put back in the box beside it.

Pure: placements in, steps out. A placement maps a square (0 = a1 .. 63 = h8) to a piece's FEN
letter ("N" a white knight, "p" a black pawn). A piece already on a square the target gives it
stays; pieces of one kind are interchangeable, so for each kind the pieces on squares where the
target wants none go to the squares of that kind still empty, the nearest first, and what is
left over goes to the box or comes from it. Each step moves one piece once, so no plan is
shorter: for each kind, every wrong square of it needs a step and every missing one too, and one
step serves at most one of each (:func:`fewest_moves`). The steps come in an order the hand can
follow: a square is emptied before a piece goes onto it, but where pieces must trade squares no
order can keep every square free, and the piece on the square a step fills waits in the hand
until its own step. The board re-plans from whatever the sensors show, so the player may follow
any order.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Mapping

from chess_core.squares import SQUARE_NAMES

__all__ = ["Step", "plan", "fewest_moves", "placement"]


@dataclass(frozen=True)
class Step:
    """``piece`` (its FEN letter) from the square ``source`` to the square ``target``; None: the box."""

    piece: str
    source: int | None
    target: int | None

    def to_json(self) -> dict[str, str | None]:
        """As the state carries it: ``{"piece": "N", "from": "g1" | None, "to": "f3" | None}`` (None: the box)."""
        return {"piece": self.piece, "from": None if self.source is None else SQUARE_NAMES[self.source],
                "to": None if self.target is None else SQUARE_NAMES[self.target]}


def placement(fen: str) -> dict[int, str]:
    """The pieces of a FEN's first field (or a whole FEN), by square."""
    squares: dict[int, str] = {}
    for rank_index, row in enumerate(fen.split()[0].split("/")):
        file = 0
        for char in row:
            if char.isdigit():
                file += int(char)
            else:
                squares[(7 - rank_index) * 8 + file] = char
                file += 1
    return squares


def _wrong(board: Mapping[int, str], target: Mapping[int, str]) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
    """By kind: the squares its pieces stand on but must leave, and the squares that want one."""
    leaving: dict[str, list[int]] = defaultdict(list)
    wanting: dict[str, list[int]] = defaultdict(list)
    for square, piece in board.items():
        if target.get(square) != piece:
            leaving[piece].append(square)
    for square, piece in target.items():
        if board.get(square) != piece:
            wanting[piece].append(square)
    return leaving, wanting


def fewest_moves(board: Mapping[int, str], target: Mapping[int, str]) -> int:
    """How many steps the shortest plan has: for each kind, its wrong squares or its missing ones, whichever are more."""
    leaving, wanting = _wrong(board, target)
    return sum(max(len(leaving[kind]), len(wanting[kind])) for kind in set(leaving) | set(wanting))


def _distance(a: int, b: int) -> int:
    return max(abs(a % 8 - b % 8), abs(a // 8 - b // 8))


def plan(board: Mapping[int, str], target: Mapping[int, str]) -> tuple[Step, ...]:
    """The steps from ``board`` to ``target`` (see the module docstring): ``fewest_moves`` of them."""
    leaving, wanting = _wrong(board, target)
    steps: list[Step] = []
    for kind in sorted(set(leaving) | set(wanting)):
        sources, targets = list(leaving[kind]), list(wanting[kind])
        pairs = sorted((_distance(s, t), s, t) for s in sources for t in targets)   # the nearest first
        for _, source, to in pairs:
            if source in sources and to in targets:
                sources.remove(source)
                targets.remove(to)
                steps.append(Step(kind, source, to))
        steps += [Step(kind, source, None) for source in sources]      # spare: to the box
        steps += [Step(kind, None, to) for to in targets]              # missing: from the box
    return _in_order(steps)


def _in_order(steps: list[Step]) -> tuple[Step, ...]:
    """The steps so that each goes onto a square already emptied (a square's leaving step before its
    arriving one), but in a trade of squares, where one piece waits in the hand."""
    leaving_from = {step.source: step for step in steps if step.source is not None}
    done: set[Step] = set()
    ordered: list[Step] = []

    def take(step: Step, path: set[Step]) -> None:
        if step in done or step in path:
            return    # (done, or a trade of squares: its first piece waits in the hand)
        blocker = leaving_from.get(step.target) if step.target is not None else None
        if blocker is not None and blocker is not step:
            take(blocker, path | {step})
        if step not in done:
            done.add(step)
            ordered.append(step)

    for step in sorted(steps, key=lambda s: (s.target is not None, s.source is None)):   # to the box first
        take(step, set())
    return tuple(ordered)
