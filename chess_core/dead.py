"""Dead positions and the flag rule: can a side still checkmate by any series of legal moves?

FIDE 5.2.2 ends the game as a draw when neither side can checkmate by any series of legal moves
(a dead position); FIDE 6.9 turns a lost-on-time game into a draw when the opponent could not
checkmate by any series of legal moves. Both ask the same question of one side: is there a
*helpmate*, a series of legal moves, both sides cooperating, that ends with that side giving mate?

``can_mate`` answers it, after the Chess Unwinnability Analyzer (CHA) of Miguel Ambrona, in stages,
each sound on its own:

1. the position itself (already mate or stalemate) and the material (a bare king; a lone knight,
   or bishops all of one colour, against pieces that could never help them mate);
2. what was proved before (chess_core.dead_memory): a helpmate of this position or of one it can
   return to by moves played back, checked move by move; a position it follows that cannot mate;
3. a static proof (chess_core.dead_static): where every piece could ever stand, and why no mate
   fits there. It settles locked pawn chains, bishops shut out of the king's squares, kings that
   can never be boxed in, and a king caged on two squares that the other king cannot come near
   without stalemating it, with no search at all;
4. a short guided helpmate search (chess_core.dead_search), which finds the quick mates;
5. a greedy best-first search towards a corner mate, with two thirds of the budget: it leads the
   loser's king to its corner while idle pieces may wander, and exhausts small sets of positions
   (the tempo problems, where a king never moves and few pawn moves are left);
6. a walk through every position that can follow, each once, most promising moves first: it finds
   the long helpmates (through promotions, king marches), and when it ends without a mate it is
   a proof. Static proofs close its lines where material changes or pawns lock;
7. a longer guided search, with what is left of the budget.

Every search that runs out of positions without finding a mate is a proof as well.

A ``CAN_MATE`` verdict carries the helpmate it found; ``CANNOT_MATE`` is only given with a proof;
when the node ``budget`` runs out first, the verdict is ``UNDETERMINED``.

``is_dead``, asked after every move of a game, needs one helpmate of either side (or a proof for
both). Nearly every position of a game is proved from the one before (stage 2: well under a
millisecond); the others, mostly after a capture or a pawn move, get the searches for both sides
in turn, cheapest first (see _STAGES).

``is_dead`` and ``can_possibly_mate`` are the hooks for chess_core.game.Game.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass

from .dead_guide import order_moves
from .dead_memory import Line, Memory, memory_key
from .dead_search import STEP_NODES, BestFirst, GuidedSearch, Steps, Walk, drain, hopeless, run_steps, shorten_steps
from .dead_static import Reach, cannot_mate
from .move import Move, decode
from .position import Position
from .squares import QUEEN, ROOK

DEFAULT_BUDGET = 50_000  # positions searched by can_mate at most (about a second of CPU at worst here)
DEAD_POSITION_BUDGET = 4_000  # the same for is_dead, asked after every move of a game
# After an analysis that ran out of budget, the next positions that follow by plain moves are
# let through unsearched, this many times in a row (see _is_dead).
UNSETTLED_SKIPS = 5


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


def _can(pos: Position, codes: list[int]) -> Steps[tuple[MateVerdict, Line]]:
    """The verdict of a helpmate found: its detours cut out (shorten)."""
    line = yield from shorten_steps(pos, codes)
    return MateVerdict(Mateability.CAN_MATE, tuple(decode(c) for c in line)), tuple(line)


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
    return _can_mate(_copy(pos), color, budget)


def _copy(pos: Position) -> Position:
    """A copy of ``pos`` that keeps the last two moves of its undo stack (the memory plays them back)."""
    work = pos.copy()
    work._stack = pos._stack[-2:]
    return work


def _can_mate(work: Position, color: int, budget: int) -> Steps[MateVerdict]:
    codes = work.legal_codes()
    if not codes:
        if work.turn != color and work.is_check():
            return MateVerdict(Mateability.CAN_MATE)
        return _CANNOT
    if hopeless(work, color):
        return _CANNOT
    key = memory_key(work)
    if _MEMORY.knows_cannot(key, color):
        return _CANNOT
    proved = _MEMORY.prove(work, (color,))
    if proved is not None:
        return MateVerdict(Mateability.CAN_MATE, tuple(decode(c) for c in proved[1].line()))
    if _MEMORY.dead_before(work, (color,)):
        _MEMORY.remember_cannot(key, color)
        return _CANNOT
    verdict, line = yield from _search(work, color, budget)
    if verdict.verdict is Mateability.CAN_MATE:
        _MEMORY.remember_line(work, color, line)
    elif verdict.verdict is Mateability.CANNOT_MATE:
        _MEMORY.remember_cannot(key, color)
    return verdict


def _search(work: Position, color: int, budget: int) -> Steps[tuple[MateVerdict, Line]]:
    """can_mate's searches for one side, in turn: the static proof, a short guided search, the
    static proof one move deep, the best-first search, the walk, a long guided search."""
    if cannot_mate(work, color):
        return _CANNOT, ()
    yield
    quick = yield from GuidedSearch(work, color, min(budget, 600)).steps(1, 3)
    spent = quick.nodes
    if quick.line is not None:
        return (yield from _can(work, quick.line))
    if quick.exhausted or (yield from _impossible_after_any_move(work, color)):
        return _CANNOT, ()
    # The best-first search first, with two thirds of the budget: it finds the mates that need
    # the loser's king led to a corner while idle pieces could wander, where the walk would lose
    # itself, and it settles the tempo problems (a king that never moves, a few pawn moves to
    # spare) by finding the helpmate or running out of positions. With a quarter, as before, the
    # CHA vector's count was 3,444 at 50,000 and 3,563 at 500,000; with two thirds 3,463 and 3,595
    # (a half: 3,450 at 50,000; three quarters: 3,463; nine tenths: 3,453).
    best = yield from run_steps(BestFirst(work, color), max(1, (budget - spent) * 2 // 3))
    spent += best.nodes
    if best.line is not None:
        return (yield from _can(work, best.line))
    if best.exhausted:
        return _CANNOT, ()
    walk = Walk(work, color, prune=_prune, order=lambda p, codes: order_moves(p, color, codes))
    first = yield from run_steps(walk, max(1, (budget - spent) * 3 // 4))
    spent += first.nodes
    if first.line is not None:
        return (yield from _can(work, first.line))
    if first.exhausted:
        return _CANNOT, ()
    deep = yield from GuidedSearch(work, color, max(1, budget - spent)).steps(1, 1000)
    if deep.line is not None:
        return (yield from _can(work, deep.line))
    if deep.exhausted:
        return _CANNOT, ()
    return _UNDETERMINED, ()


def _impossible_after_any_move(pos: Position, color: int) -> Steps[bool]:
    """Whether every move from ``pos`` leads to a position where ``color`` cannot mate by the
    material or the static proof, or to a stalemate or ``color``'s own mate (a proof one move
    deep, after CHA: a capture or pawn move that is possible now may be what the static proof
    cannot see past). In steps, one static proof each. ``pos`` is left as it was."""
    for code in pos.legal_codes():
        pos.make(code)
        try:
            if pos.legal_codes():
                possible = not hopeless(pos, color) and not cannot_mate(pos, color)
            else:
                possible = pos.turn != color and pos.is_check()  # the game ends: mate or stalemate
        finally:
            pos.unmake()
        if possible:
            return False
        yield
    return True


def _prune(pos: Position, colors: tuple[int, ...]) -> bool:
    reach = Reach(pos)
    return all(cannot_mate(pos, c, reach) for c in colors)


# What was proved: helpmates (and the positions along them), positions that cannot mate. A
# question asked again (a takeback, Game.reopen, is_dead asking both sides) is answered at once,
# and a game's next position is mostly proved from the last (chess_core.dead_memory).
_MEMORY = Memory()


def forget_proofs() -> None:
    """Forget the verdicts proved and the helpmates found so far (for cold measurements, tests)."""
    _MEMORY.clear()


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

    Called after every move of a game: the position is proved alive by a helpmate remembered
    from the positions before (chess_core.dead_memory), or searched with ``budget`` positions for
    each side. False when not proved dead: alive, or the budget ran out first (and then, for a
    few positions after it that follow by plain moves, without a search; see _is_dead). The
    last two moves on ``pos``'s undo stack are used to reach the positions proved before.
    """
    return drain(is_dead_steps(pos, budget=budget))


def is_dead_steps(pos: Position, *, budget: int = DEAD_POSITION_BUDGET) -> Steps[bool]:
    """``is_dead`` in steps (see can_mate_steps); ``pos`` is copied first."""
    return _is_dead(_copy(pos), budget)


def _is_dead(pos: Position, budget: int) -> Steps[bool]:
    # The side that has just moved first: its helpmate is usually the one remembered.
    colors = tuple(c for c in (pos.turn ^ 1, pos.turn) if not hopeless(pos, c))
    if not colors:
        return True
    key = memory_key(pos)
    colors = tuple(c for c in colors if not _MEMORY.knows_cannot(key, c))
    if not colors:
        return True
    if _MEMORY.prove(pos, colors) is not None:
        return False
    if _MEMORY.dead_before(pos, colors):
        for color in colors:
            _MEMORY.remember_cannot(key, color)
        return True
    skipped = _MEMORY.unsettled_before(pos)
    if 0 <= skipped < UNSETTLED_SKIPS:
        # The analysis of the position one plain move back ran out of budget: this one is as
        # hard. Not searched again at once (not dead is the answer without a proof, as after any
        # search that runs out of budget); every few moves it is.
        _MEMORY.remember_unsettled(key, skipped + 1)
        return False
    yield
    if _MEMORY.last_color in colors:  # the side that mated last time first
        colors = (_MEMORY.last_color,) + tuple(c for c in colors if c != _MEMORY.last_color)
    sides = [_Side(pos, color, budget) for color in colors]
    heavy = pos.bb_piece[ROOK] | pos.bb_piece[QUEEN]
    for stage in _STAGES_HEAVY if heavy else _STAGES:
        for side in sides:
            if side.decided:
                continue
            partner = next((other for other in sides if other is not side), None)
            found = yield from side.run(stage, partner)
            if found is not None:
                _MEMORY.remember_line(pos, *found)
                return False
            if side.decided and side.watched is not None:  # a walk that watched both sides ended
                for other in sides:
                    other.decided = True
        if all(side.decided for side in sides):
            for side in sides:
                _MEMORY.remember_cannot(key, side.color)
            return True
    for side in sides:
        side.leave()
    _MEMORY.remember_unsettled(key)
    return False


# is_dead's searches, in turn for each side not yet decided: the static proof, a guided search (it
# finds most helpmates of a game's position at once), a walk (the first side's watches the other:
# the first mate of either ends it, and its end without one proves both), the best-first search
# (the mates that need the loser's king led to a corner), then the rest of each side's budget to
# the walk and to a long guided search; after the guided search, the static proof one move deep.
# Positions for each stage, or fractions of the budget.
# With a rook or queen on the board a static proof is rare: the guided search comes first.
_STAGES: tuple[tuple[str, float], ...] = (("static", 0), ("guided", 600), ("static1", 0), ("walk", 600),
                                          ("best", 1500), ("walk", 0.75), ("deep", 1.0))
_STAGES_HEAVY = (_STAGES[1], _STAGES[0]) + _STAGES[2:]


class _Side:
    """One side's searches for is_dead, kept from stage to stage (the walk and the best-first
    search go on where they stopped)."""

    def __init__(self, pos: Position, color: int, budget: int) -> None:
        self.pos = pos
        self.color = color
        self.budget = budget
        self.spent = 0
        self.decided = False  # proved unable to mate
        self.watched: int | None = None  # the other side, watched by this side's walk
        self.walk: Walk | None = None
        self.best: BestFirst | None = None

    def run(self, stage: tuple[str, float], partner: _Side | None = None) -> Steps[tuple[int, Line] | None]:
        """One stage; a helpmate found (colour, line), or None (``decided`` tells a proof).
        ``partner``: the other side's searches, when it is searched too (never kept: the sides
        would hold each other in a cycle, and their searches' sets and lists with them, until
        the collector's next full pass)."""
        kind, amount = stage
        pos, color = self.pos, self.color
        nodes = int(amount) if amount >= 1 else int(amount * self.budget) - self.spent
        if not kind.startswith("static") and nodes <= 0:
            return None
        if kind == "static":
            self.decided = cannot_mate(pos, color)
        elif kind == "static1":
            self.decided = yield from _impossible_after_any_move(pos, color)
        elif kind in ("guided", "deep"):
            result = yield from GuidedSearch(pos, color, nodes).steps(1, 1000)
            self.spent += result.nodes
            if result.line is not None:
                return color, tuple(result.line)
            self.decided = result.exhausted
        elif kind == "best":
            if self.best is None:
                self.best = BestFirst(pos, color)
            result = yield from run_steps(self.best, self.best.spent + nodes)
            self.spent += nodes
            if result.line is not None:
                return color, tuple(result.line)
            self.decided = result.exhausted
        else:
            return (yield from self._walk(nodes, partner))
        return None

    def _walk(self, nodes: int, partner: _Side | None) -> Steps[tuple[int, Line] | None]:
        pos, color = self.pos, self.color
        if self.walk is None:
            self.watched = partner.color if partner is not None and not partner.decided else None
            # With a rook or queen about, static proofs rarely close a line and each costs as much as
            # dozens of positions walked: the walk goes without them.
            heavy = pos.bb_piece[ROOK] | pos.bb_piece[QUEEN]
            self.walk = Walk(pos, color, prune=None if heavy else _prune,
                             order=lambda p, codes: order_moves(p, color, codes), other=self.watched)
        walk = self.walk
        start = walk.nodes
        while True:
            result = walk.run(start + nodes - walk.nodes, pause_after=STEP_NODES)
            if result.line is not None:
                self.spent += walk.nodes - start
                return color, tuple(result.line)
            if walk.other_line is not None and self.watched is not None:
                walk.leave()
                self.spent += walk.nodes - start
                return self.watched, tuple(walk.other_line)
            if result.exhausted or walk.nodes >= start + nodes:
                break
            yield
        walk.leave()
        self.spent += walk.nodes - start
        self.decided = result.exhausted
        if not self.decided:
            self.watched = None  # not a proof for the other side
        return None

    def leave(self) -> None:
        """The position as it was (a paused walk holds its line made on it)."""
        if self.walk is not None:
            self.walk.leave()


__all__ = ["Mateability", "MateVerdict", "can_mate", "can_possibly_mate", "is_dead", "DEFAULT_BUDGET",
           "DEAD_POSITION_BUDGET", "can_mate_steps", "can_possibly_mate_steps", "is_dead_steps", "drain",
           "forget_proofs"]
