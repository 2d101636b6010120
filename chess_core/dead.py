"""Dead positions and the flag rule: can a side still checkmate by any series of legal moves?

FIDE 5.2.2 ends the game as a draw when neither side can checkmate by any series of legal moves
(a dead position); FIDE 6.9 turns a lost-on-time game into a draw when the opponent could not
checkmate by any series of legal moves. Both ask the same question of one side: is there a
*helpmate*, a series of legal moves, both sides cooperating, that ends with that side giving mate?

``can_mate`` answers it, after the Chess Unwinnability Analyzer (CHA) of Miguel Ambrona, in stages,
each sound on its own:

1. the position itself (already mate or stalemate) and the material (a bare king; a lone knight,
   or bishops all of one colour, against pieces that could never help them mate);
2. a static proof (chess_core.dead_static): where every piece could ever stand, and why no mate
   fits there. It settles locked pawn chains, bishops shut out of the king's squares, kings that
   can never be boxed in, with no search at all;
3. a short guided helpmate search (chess_core.dead_search), which finds the quick mates;
4. a greedy best-first search towards a corner mate, briefly: it leads the loser's king to its
   corner while idle pieces may wander (and exhausts small sets of positions);
5. a walk through every position that can follow, each once, most promising moves first: it finds
   the long helpmates (through promotions, king marches), and when it ends without a mate it is
   a proof. Static proofs close its lines where material changes or pawns lock;
6. a longer guided search, with what is left of the budget.

Every search that runs out of positions without finding a mate is a proof as well.

A ``CAN_MATE`` verdict carries the helpmate it found; ``CANNOT_MATE`` is only given with a proof;
when the node ``budget`` runs out first, the verdict is ``UNDETERMINED``. Proved verdicts are
remembered for the last few hundred positions asked.

``is_dead`` and ``can_possibly_mate`` are the hooks for chess_core.game.Game.
"""
from __future__ import annotations

import enum
from collections import OrderedDict
from dataclasses import dataclass

from .dead_guide import order_moves
from .dead_search import (BestFirst, GuidedSearch, Steps, Walk, drain, hopeless, position_key, run_steps,
                          shorten_steps)
from .dead_static import Reach, mate_impossible
from .move import Move, decode
from .position import Position
from .squares import BLACK, PAWN, QUEEN, ROOK, WHITE

DEFAULT_BUDGET = 50_000  # positions searched by can_mate at most (about a second of CPU at worst here)
DEAD_POSITION_BUDGET = 4_000  # the same for is_dead, asked after every move of a game
_FREEDOM = 10  # legal moves each side needs for is_dead's fast path


class Mateability(enum.Enum):
    CAN_MATE = "can mate"  # a helpmate exists (see MateVerdict.line)
    CANNOT_MATE = "cannot mate"  # proved: no series of legal moves ends in this side's mate
    UNDETERMINED = "undetermined"  # the budget ran out before either was shown


@dataclass(frozen=True)
class MateVerdict:
    """The answer for one side; for CAN_MATE, ``line`` is a helpmate from the position."""

    verdict: Mateability
    line: tuple[Move, ...] = ()


_CANNOT = MateVerdict(Mateability.CANNOT_MATE)
_UNDETERMINED = MateVerdict(Mateability.UNDETERMINED)


def _can(pos: Position, codes: list[int]) -> Steps[MateVerdict]:
    line = yield from shorten_steps(pos, codes)
    return MateVerdict(Mateability.CAN_MATE, tuple(decode(c) for c in line))


def can_mate(pos: Position, color: int, *, budget: int = DEFAULT_BUDGET) -> MateVerdict:
    """Whether ``color`` can checkmate from ``pos`` by some series of legal moves (a helpmate).

    ``budget`` bounds the number of positions searched, and so the time taken. ``pos`` is left as
    it was.

    >>> can_mate(Position("8/8/8/8/8/8/8/K1k5 w - - 0 1"), 0).verdict
    <Mateability.CANNOT_MATE: 'cannot mate'>
    """
    return drain(can_mate_steps(pos, color, budget=budget))


def can_mate_steps(pos: Position, color: int, *, budget: int = DEFAULT_BUDGET) -> Steps[MateVerdict]:
    """``can_mate`` in steps: a generator that yields after every few dozen positions searched
    (chess_core.dead_search.STEP_NODES) and returns the MateVerdict, so that a caller can spread
    the analysis over slices of time. ``pos`` is copied first: it may change meanwhile."""
    return _can_mate(pos.copy(), color, budget, settle_other=False)


def _can_mate(pos: Position, color: int, budget: int, settle_other: bool) -> Steps[MateVerdict]:
    work = pos.copy()
    codes = work.legal_codes()
    if not codes:
        if work.turn != color and work.is_check():
            return MateVerdict(Mateability.CAN_MATE)
        return _CANNOT
    if hopeless(work, color):
        return _CANNOT
    key = position_key(work)
    known = _PROOFS.get((key, color))
    if known is not None:
        if known.line:
            _LINES[color] = known.line
        return known
    verdict = _reuse_line(work, color)
    if verdict is None:
        verdict = yield from _search(work, key, color, budget, settle_other)
    if verdict.verdict is not Mateability.UNDETERMINED:
        _remember(key, color, verdict)
    return verdict


# The last helpmate found for each colour. Asked again a move or two later (the game's next
# position), its tail usually still mates: replaying it is a proof, without a search.
_LINES: dict[int, tuple[Move, ...]] = {}


def _reuse_line(pos: Position, color: int) -> MateVerdict | None:
    line = _LINES.get(color)
    if not line:
        return None
    for skip in (1, 2, 0):  # the position one move after the line's start, two, the same
        tail = line[skip:]
        if tail and _mates(pos, color, tail):
            return MateVerdict(Mateability.CAN_MATE, tail)
    return None


def _mates(pos: Position, color: int, line: tuple[Move, ...]) -> bool:
    """Whether playing ``line`` from ``pos`` (every move legal) ends in ``color``'s checkmate."""
    made = 0
    try:
        for move in line:
            if not pos.is_legal(move):
                return False
            pos.push(move)
            made += 1
        return pos.turn != color and pos.is_check() and not pos.legal_codes()
    finally:
        for _ in range(made):
            pos.pop()


def _search(work: Position, key: tuple[int, ...], color: int, budget: int,
            settle_other: bool) -> Steps[MateVerdict]:
    reach = Reach(work)
    if mate_impossible(reach, color):
        return _CANNOT
    yield
    quick = yield from GuidedSearch(work, color, min(budget, 600)).steps(1, 3)
    spent = quick.nodes
    if quick.line is not None:
        return (yield from _can(work, quick.line))
    if quick.exhausted:
        return _CANNOT
    # The best-first search first, briefly: it finds the mates that need the loser's king led to
    # a corner while idle pieces could wander, where the walk would lose itself.
    best = yield from run_steps(BestFirst(work, color), max(1, (budget - spent) // 4))
    spent += best.nodes
    if best.line is not None:
        return (yield from _can(work, best.line))
    if best.exhausted:
        return _CANNOT
    # For is_dead, which asks both sides, the walk settles the other colour too when it needs a
    # walk as well: lines are then closed only where neither can mate. (Not for a single question:
    # the walk would spend its budget on lines that only the other colour cares about.)
    other = color ^ 1
    watch_other = settle_other and not hopeless(work, other) and not mate_impossible(reach, other)
    walk = Walk(work, color, prune=_prune, order=lambda p, codes: order_moves(p, color, codes),
                other=other if watch_other else None)
    first = yield from run_steps(walk, max(1, (budget - spent) * 3 // 4))
    spent += first.nodes
    if first.line is not None:
        return (yield from _can(work, first.line))
    if first.exhausted:
        if watch_other:
            other_verdict = _CANNOT if walk.other_line is None else (yield from _can(work, walk.other_line))
            _remember(key, other, other_verdict)
        return _CANNOT
    deep = yield from GuidedSearch(work, color, max(1, budget - spent)).steps(1, 1000)
    if deep.line is not None:
        return (yield from _can(work, deep.line))
    if deep.exhausted:
        return _CANNOT
    return _UNDETERMINED


def _prune(pos: Position, colors: tuple[int, ...]) -> bool:
    reach = Reach(pos)
    return all(mate_impossible(reach, c) for c in colors)


# Verdicts proved by a search, by position and colour (and those proved on the way for the other
# colour, by a walk that settles both): a question asked again (a takeback, Game.reopen, is_dead
# asking both sides) is answered at once. A proof holds whatever the budget.
_PROOFS: OrderedDict[tuple[tuple[int, ...], int], MateVerdict] = OrderedDict()
_PROOFS_KEPT = 256


def forget_proofs() -> None:
    """Forget the verdicts proved and the helpmates found so far (for cold measurements, tests)."""
    _PROOFS.clear()
    _LINES.clear()


def _remember(key: tuple[int, ...], color: int, verdict: MateVerdict) -> None:
    _PROOFS[(key, color)] = verdict
    if verdict.line:
        _LINES[color] = verdict.line
    while len(_PROOFS) > _PROOFS_KEPT:
        _PROOFS.popitem(last=False)


def can_possibly_mate(pos: Position, color: int, *, budget: int = DEFAULT_BUDGET) -> bool:
    """False only when ``color`` provably cannot mate (FIDE 6.9: a flag fall is then a draw).

    An undetermined answer counts as "can mate": no player is given a draw without a proof.
    """
    return can_mate(pos, color, budget=budget).verdict is not Mateability.CANNOT_MATE


def can_possibly_mate_steps(pos: Position, color: int, *, budget: int = DEFAULT_BUDGET) -> Steps[bool]:
    """``can_possibly_mate`` in steps (see can_mate_steps)."""
    verdict = yield from can_mate_steps(pos, color, budget=budget)
    return verdict.verdict is not Mateability.CANNOT_MATE


def is_dead(pos: Position, *, budget: int = DEAD_POSITION_BUDGET) -> bool:
    """True only when neither side can mate by any series of legal moves (FIDE 5.2.2).

    Called after every move of a game, so ordinary positions are let through at once: when both
    sides have freedom (ten legal moves or more each) and either a rook or queen is on the board,
    or there are pawns and none is blocked by an enemy pawn. Those tests cost two move generations;
    no position of the analyser's test vector that is dead passes them. Other positions get the
    full analysis with a smaller ``budget``.
    """
    return drain(is_dead_steps(pos, budget=budget))


def is_dead_steps(pos: Position, *, budget: int = DEAD_POSITION_BUDGET) -> Steps[bool]:
    """``is_dead`` in steps (see can_mate_steps); ``pos`` is copied first."""
    return _is_dead(pos.copy(), budget)


def _is_dead(pos: Position, budget: int) -> Steps[bool]:
    if hopeless(pos, WHITE) and hopeless(pos, BLACK):
        return True
    if _obviously_alive(pos):
        return False
    yield
    for color in (pos.turn ^ 1, pos.turn):
        verdict = yield from _can_mate(pos, color, budget, settle_other=True)
        if verdict.verdict is not Mateability.CANNOT_MATE:
            return False
    return True


def _obviously_alive(pos: Position) -> bool:
    bbp, bbc = pos.bb_piece, pos.bb_color
    heavy = bbp[ROOK] | bbp[QUEEN]
    pawns = bbp[PAWN]
    rams = ((pawns & bbc[WHITE]) << 8) & pawns & bbc[BLACK]
    if not heavy and (not pawns or rams):
        return False
    if len(pos.legal_codes()) < _FREEDOM:
        return False
    if pos.checkers():
        return False
    # The other side's freedom, as if it were to move (it is not in check); the en passant square
    # belongs to the side to move, so it is set aside meanwhile.
    ep, pos.ep = pos.ep, -1
    pos.turn ^= 1
    try:
        return len(pos.legal_codes()) >= _FREEDOM
    finally:
        pos.turn ^= 1
        pos.ep = ep


__all__ = ["Mateability", "MateVerdict", "can_mate", "can_possibly_mate", "is_dead", "DEFAULT_BUDGET",
           "DEAD_POSITION_BUDGET", "can_mate_steps", "can_possibly_mate_steps", "is_dead_steps", "drain",
           "forget_proofs"]
