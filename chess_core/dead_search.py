"""Searches of the dead-position analysis: helpmate searches that are also proofs when they run out.

Both sides cooperate (a helpmate), so a search is a walk through the graph of positions towards
any checkmate of the loser:

- ``GuidedSearch`` (after Ambrona's Chess Unwinnability Analyzer) deepens iteratively and lets
  moves that make progress towards a mating pattern cost nothing, so that long but purposeful
  lines are reached early;
- ``BestFirst`` always expands the position nearest a corner mate next;
- ``Walk`` visits every position that can follow once, depth first, most promising moves first.

When a search ends without having cut any line short (no depth limit met, no node budget spent),
it has seen every position that can follow and none is a mate: a proof that the side cannot mate.
Lines are cut, soundly, where the winner can no longer mate whatever follows (``hopeless``), and
in the walk where the static analysis of chess_core.dead_static proves it. The heuristics that
order the moves live in chess_core.dead_guide.
"""
from __future__ import annotations

import heapq
from typing import Callable, Generator, TypeVar

from .dead_guide import guided_order, mating_distance, nearest_corner_targets
from .position import Position
from .squares import (BB_ALL, BB_DARK_SQUARES, BB_LIGHT_SQUARES, BISHOP, KING, KNIGHT, KNIGHT_ATTACKS, PAWN,
                      PAWN_ATTACKS, QUEEN, ROOK, WHITE, bishop_attacks, rook_attacks)

# A static proof attempt costs about as much time as this many searched positions.
PRUNE_COST = 25
# The searches can run in steps (generators that yield after about this many positions), so that
# a caller can spread one analysis over several slices of time.
STEP_NODES = 16
T = TypeVar("T")
# A stepwise computation: it yields None between steps and returns its result.
Steps = Generator[None, None, T]


def drain(steps: Steps[T]) -> T:
    """Run a stepwise computation to its end; its result."""
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            result: T = stop.value
            return result


def hopeless(pos: Position, winner: int) -> bool:
    """Whether material alone shows that ``winner`` can never mate, whatever is played.

    - a bare king never mates;
    - a king and one knight never mate a king whose only other pieces are queens (a queen standing
      next to its king can always take the checking knight or leaves a square free) when the loser
      has no pawn that could become something else;
    - a king and bishops all on squares of one colour never mate a king whose pieces are rooks,
      queens and bishops of that same colour, without pawns: a check comes from one bishop only
      (a discovered double check by two bishops of one colour is geometrically impossible), the
      king's neighbours of the other colour cannot be attacked by the bishops and the winner's king
      covers at most one of the two next to the checking line, so a rook or queen stands there and
      can take the checker or step into its line.
    """
    bbc = pos.bb_color
    bbp = pos.bb_piece
    own = bbc[winner]
    kings = bbp[KING]
    mine = own & ~kings
    if not mine:
        return True
    theirs = bbc[winner ^ 1]
    if theirs & bbp[PAWN]:
        return False
    if mine & (bbp[PAWN] | bbp[ROOK] | bbp[QUEEN]):
        return False
    knights = mine & bbp[KNIGHT]
    if knights:
        if mine != knights or knights & (knights - 1):
            return False
        return not theirs & (bbp[KNIGHT] | bbp[BISHOP] | bbp[ROOK])
    bishops = bbp[BISHOP]
    if theirs & bbp[KNIGHT]:
        return False
    return not bishops & BB_DARK_SQUARES or not bishops & BB_LIGHT_SQUARES


def child_key(pos: Position, code: int) -> tuple[int, ...] | None:
    """The position_key after the plain move ``code`` (no promotion, castling, en passant or double
    push), computed without making it; None for the other moves."""
    if code >= 4096:
        return None
    frm = code & 63
    to = (code >> 6) & 63
    board = pos.board
    kind = board[frm] & 7
    captured = board[to] & 7
    bbc = pos.bb_color
    pieces = pos.bb_piece[:]  # by piece type; kings are not part of the key
    moved = (1 << frm) | (1 << to)
    white, black = bbc[0], bbc[1]
    pieces[kind] ^= moved
    if pos.turn == WHITE:
        white ^= moved
    else:
        black ^= moved
    if captured:
        bit = 1 << to
        pieces[captured] ^= bit
        if pos.turn == WHITE:
            black ^= bit
        else:
            white ^= bit
    castling = pos.castling
    if castling:
        keep = pos.castle_keep
        castling &= keep[frm] & keep[to]
    return (white, black, pieces[1], pieces[2], pieces[3], pieces[4], pieces[5], pos.turn ^ 1, castling, -1)


def position_key(pos: Position) -> tuple[int, ...]:
    bbc, bbp = pos.bb_color, pos.bb_piece
    return (bbc[0], bbc[1], bbp[1], bbp[2], bbp[3], bbp[4], bbp[5], pos.turn, pos.castling, pos.ep)


class SearchResult:
    __slots__ = ("line", "exhausted", "nodes")

    def __init__(self, line: list[int] | None, exhausted: bool, nodes: int) -> None:
        self.line = line  # codes of a helpmate, or None
        self.exhausted = exhausted  # True: every line was followed to its end (a proof)
        self.nodes = nodes


class GuidedSearch:
    """Iterative deepening helpmate search with rewarded (free) and punished (dear) moves."""

    def __init__(self, pos: Position, winner: int, budget: int,
                 prune: Callable[[Position], bool] | None = None) -> None:
        self.pos = pos
        self.winner = winner
        self.budget = budget
        self.nodes = 0
        self.prune = prune
        self.line: list[int] = []
        self.found: list[int] | None = None
        self.interrupted = False
        self.tt: dict[tuple[int, ...], int] = {}
        self.max_depth = 0
        self.limit = budget

    def run(self, first_depth: int = 1, last_depth: int = 1000, local: int = 0) -> SearchResult:
        """Deepen from ``first_depth`` to ``last_depth``; each iteration stops after ``local`` nodes
        (0: no limit but the budget), so that deep iterations are probes rather than sweeps."""
        return drain(self.steps(first_depth, last_depth, local))

    def steps(self, first_depth: int = 1, last_depth: int = 1000, local: int = 0) -> Steps[SearchResult]:
        """``run`` in steps: yields after every STEP_NODES positions, returns the SearchResult."""
        total = self.budget
        for depth in range(first_depth, last_depth + 1):
            self.interrupted = False
            self.tt.clear()
            self.max_depth = depth
            self.limit = min(total, self.nodes + local) if local else total
            if (yield from self._search(depth, False)):
                return SearchResult(self.found, False, self.nodes)
            if not self.interrupted:
                return SearchResult(None, True, self.nodes)
            if self.nodes >= total:
                break
        return SearchResult(None, False, self.nodes)

    def _search(self, depth: int, past_progress: bool) -> Steps[bool]:
        """One iteration, ``depth`` deep: True when a mate was found (``found``). A walk with a stack
        of its own (not nested generators): pausing costs the same at any depth."""
        pos = self.pos
        winner = self.winner
        tt = self.tt
        line = self.line
        make, unmake, legal = pos.make, pos.unmake, pos.legal_codes
        board = pos.board
        # One frame per position entered: its moves, the next one to try, the depth left there,
        # and its _check_squares once asked.
        frames: list[_Frame] = []
        remaining = depth
        progress = past_progress
        entering = True
        found = False
        while True:
            if entering:
                entering = False
                # -- a position is entered (the root, or a move just made) --------------------
                moves: list[int] | None = None
                if self.nodes >= self.limit:  # the budget is spent: no move generated on this line
                    self.interrupted = True
                    break
                if not hopeless(pos, winner):
                    self.nodes += 1
                    if not self.nodes % STEP_NODES:
                        yield
                    if remaining <= 0:
                        # A leaf: only the loser's mate is looked for (in check, and no move),
                        # without generating every leaf's moves; the line is cut (no proof) otherwise.
                        if pos.turn != winner and pos.is_check() and not legal():
                            found = True
                            break
                        self.interrupted = True
                    else:
                        key = position_key(pos)
                        seen = tt.get(key)
                        if seen is None or seen < remaining:
                            codes = legal()
                            if not codes:
                                if pos.turn != winner and pos.is_check():
                                    found = True
                                    break
                            else:
                                tt[key] = remaining
                                if self.prune is None or not self.prune(pos):
                                    moves = guided_order(pos, winner, codes)
                if moves is None:
                    if not frames and not line:
                        break  # the root itself is settled
                    unmake()
                    line.pop()
                    if self.nodes >= self.limit:
                        self.interrupted = True
                        break
                    continue
                frames.append(_Frame(moves, remaining, progress))
                continue
            # -- the next move of the deepest frame ---------------------------------------------
            if not frames:
                break
            frame = frames[-1]
            remaining = frame.remaining
            if frame.index >= len(frame.moves):
                frames.pop()
                if not frames:
                    break
                unmake()
                line.pop()
                if self.nodes >= self.limit:  # the siblings would each cost a move generation for nothing
                    self.interrupted = True
                    break
                continue
            packed = frame.moves[frame.index]
            frame.index += 1
            code = (packed >> 1) & 0x7FFFF
            progress = packed < 1 << 20  # rewarded: free, and the next move is cheaper too
            cost = 0 if progress else 3 if packed & 1 else 0 if frame.progress else 1
            if cost >= remaining and code < 4096 and not board[(code >> 6) & 63] and (
                    pos.turn != winner or not _may_check(frame.checks(pos, winner), board, code)):
                # A leaf that takes nothing and promotes nothing ends the line in the loser's mate
                # only if the winner plays it with check: the others are counted and cut unmade.
                self.nodes += 1
                if not self.nodes % STEP_NODES:
                    yield
                self.interrupted = True
                if self.nodes >= self.limit:
                    break
                continue
            make(code)
            line.append(code)
            remaining -= cost
            entering = True
        if found:
            self.found = list(line)
        for _ in line:
            unmake()
        line.clear()
        return found

class _Frame:
    """A position of GuidedSearch's line: its moves (dead_guide.guided_order), the next to try, the
    depth left, and whether the move that led there made progress (the next normal move is free)."""

    __slots__ = ("moves", "index", "remaining", "progress", "_checks")

    def __init__(self, moves: list[int], remaining: int, progress: bool) -> None:
        self.moves = moves
        self.index = 0
        self.remaining = remaining
        self.progress = progress
        self._checks: tuple[list[int], int] | None = None

    def checks(self, pos: Position, winner: int) -> tuple[list[int], int]:
        """_check_squares of this position (``pos`` stands on it), computed once."""
        if self._checks is None:
            self._checks = _check_squares(pos, winner)
        return self._checks


def _check_squares(pos: Position, winner: int) -> tuple[list[int], int]:
    """Where the winner's pieces would attack the loser's king from, by piece type (pawn, knight,
    bishop, rook, queen as ``position``'s piece codes), and the winner's pieces that stand alone
    between it and a slider of theirs (moving off the line uncovers an attack). Checks from a
    plain move (no promotion, castling or en passant) come from one or the other."""
    loser = winner ^ 1
    king = pos.king[loser]
    if king < 0:
        return [BB_ALL] * 7, BB_ALL
    bbc, bbp = pos.bb_color, pos.bb_piece
    occupied = bbc[0] | bbc[1]
    diagonal = bishop_attacks(king, occupied)
    straight = rook_attacks(king, occupied)
    own = bbc[winner]
    diagonal_sliders = (bbp[BISHOP] | bbp[QUEEN]) & own
    straight_sliders = (bbp[ROOK] | bbp[QUEEN]) & own
    uncovering = 0
    candidates = (diagonal | straight) & own
    while candidates:
        bit = candidates & -candidates
        candidates ^= bit
        rest = occupied ^ bit
        if (bit & diagonal and bishop_attacks(king, rest) & diagonal_sliders
                or bit & straight and rook_attacks(king, rest) & straight_sliders):
            uncovering |= bit
    return [0, PAWN_ATTACKS[loser][king], KNIGHT_ATTACKS[king], diagonal, straight, diagonal | straight, 0], uncovering


def _may_check(checks: tuple[list[int], int], board: list[int], code: int) -> bool:
    """Whether the plain move ``code`` may give check (see _check_squares)."""
    squares, uncovering = checks
    return bool(squares[board[code & 63] & 7] >> ((code >> 6) & 63) & 1 or uncovering >> (code & 63) & 1)


def run_steps(search: Walk | BestFirst, budget: int) -> Steps[SearchResult]:
    """A fresh ``search.run(budget)`` in pauses after about STEP_NODES positions looked at (both
    searches resume where they paused: the result is the same); returns the SearchResult."""
    spent = 0
    while True:
        result = search.run(budget - spent, pause_after=STEP_NODES)
        spent = result.nodes
        if result.line is not None or result.exhausted or spent >= budget:
            return result
        yield


class Walk:
    """Every position that can follow, each visited once (depth first); a mate ends the walk.

    The walk can be paused when its budget is spent and resumed with more (``run``); between
    runs the position is left as it was. ``prune(pos, colours)`` is asked after each capture or
    pawn move (the only moves that change what the static analysis sees); True closes that
    position: none of those colours can mate from it.

    ``other``: a second colour to settle on the same walk. Lines are then closed only where
    neither colour can mate; a mate by ``other`` is recorded (``other_line``) and the walk goes
    on for ``winner``. When the walk is exhausted, ``other_line`` tells the other colour's answer
    as well (None: it cannot mate).
    """

    def __init__(self, pos: Position, winner: int,
                 prune: Callable[[Position, tuple[int, ...]], bool] | None = None,
                 order: Callable[[Position, list[int]], list[int]] | None = None,
                 other: int | None = None) -> None:
        self.pos = pos
        self.winner = winner
        self.prune = prune
        self.order = order
        self.watch: tuple[int, ...] = (winner,) if other is None else (winner, other)
        self.other_line: list[int] | None = None
        self.nodes = 0
        self.seen = {position_key(pos)}
        self.line: list[int] = []
        self.stack: list[list[int]] = []
        self.done: SearchResult | None = None
        self.paused = False  # the line is made on the position (see run)
        if all(hopeless(pos, c) for c in self.watch):
            self.done = SearchResult(None, True, 0)
            return
        codes = pos.legal_codes()
        if not codes:
            mate = pos.turn != winner and pos.is_check()
            if pos.is_check() and pos.turn ^ 1 == other:
                self.other_line = []
            self.done = SearchResult([] if mate else None, not mate, 0)
            return
        self.stack.append(order(pos, codes) if order is not None else codes)

    def leave(self) -> None:
        """Unmake the line a paused walk holds on the position (a later run makes it again)."""
        if self.paused:
            for _ in self.line:
                self.pos.unmake()
            self.paused = False

    def run(self, budget: int, pause_after: int = 0) -> SearchResult:
        """Go on for ``budget`` more nodes; ``pause_after`` > 0 pauses after that many moves
        looked at (counted or not), to be resumed by the next run: the position is then left with
        the current line made (a resumed run does not replay it; it is unmade when the walk ends
        or stops for its budget)."""
        if self.done is not None:
            return self.done
        pos = self.pos
        winner = self.winner
        board = pos.board
        seen = self.seen
        line = self.line
        stack = self.stack
        prune = self.prune
        order = self.order
        watch = self.watch
        make, unmake, legal = pos.make, pos.unmake, pos.legal_codes
        if not self.paused:
            for code in line:
                make(code)
        self.paused = False
        limit = self.nodes + budget
        nodes = self.nodes
        result = None
        pause = pause_after
        while stack:
            top = stack[-1]
            if not top:
                stack.pop()
                if line:
                    line.pop()
                    unmake()
                continue
            if nodes >= limit:
                break
            if pause_after and pause <= 0:
                self.paused = True
                break
            pause -= 1
            code = top.pop()
            to = (code >> 6) & 63
            irreversible = board[to] or board[code & 63] & 7 == PAWN
            # A static proof is tried where material changes or a pawn runs into a pawn (when the
            # structure can lock), not after every pawn step.
            worth_proof = board[to] or code >= 4096 or (
                irreversible and board[to + 8 if pos.turn == WHITE else to - 8] & 7 == PAWN)
            key = child_key(pos, code)
            if key is not None and key in seen:
                continue
            make(code)
            if key is None:
                key = position_key(pos)
                if key in seen:
                    unmake()
                    continue
            seen.add(key)
            nodes += 1
            if irreversible and all(hopeless(pos, c) for c in watch):
                unmake()
                continue
            codes = legal()
            if not codes:
                if pos.is_check():
                    if pos.turn != winner:
                        result = SearchResult(line + [code], False, nodes)
                    elif len(watch) > 1:
                        self.other_line = line + [code]
                        watch = self.watch = (winner,)
                unmake()
                if result is not None:
                    break
                continue
            if worth_proof and prune is not None:
                nodes += PRUNE_COST
                pause -= PRUNE_COST // 3  # a static proof takes as long as many moves looked at
                if prune(pos, watch):
                    unmake()
                    continue
            line.append(code)
            stack.append(order(pos, codes) if order is not None else codes)
        self.nodes = nodes
        if self.paused:
            return SearchResult(None, False, nodes)
        for _ in line:
            unmake()
        if result is not None:
            self.done = result
            return result
        if not stack:
            self.done = SearchResult(None, True, nodes)
            return self.done
        return SearchResult(None, False, nodes)


class BestFirst:
    """A greedy best-first helpmate search: the position nearest a corner mate is expanded next.

    Where the walk goes deep along one line and can lose itself in moves of pieces that do not
    matter, this search always comes back to the most advanced position, so idle pieces cost
    little. Positions are seen once; if every position that can follow has been expanded without a
    mate, that is a proof too. ``run`` can be called again to go on with more budget.
    """

    # A generated child (made, measured, unmade) costs about a third of an expanded position.
    CHILD_COST = 3

    def __init__(self, pos: Position, winner: int) -> None:
        self.winner = winner
        self.targets = nearest_corner_targets(pos, winner)
        self.like = pos.copy()  # what every position of the search shares (Chess960 castling)
        # (parent, move, the position once expanded, kept flat: a tuple of ints and bytes is
        # not traced by the collector, hundreds of Position objects with their lists would be)
        self.nodes: list[tuple[int, int, _Flat | None]] = [(-1, 0, _flat(pos))]
        self.heap: list[tuple[int, int, int]] = [(0, 0, 0)]
        self.seen = {position_key(pos)}
        self.spent = 0
        self.generated = 0

    def run(self, budget: int, pause_after: int = 0) -> SearchResult:
        """Go on for ``budget`` more; ``pause_after`` > 0 pauses after about that many positions
        looked at (expanded or generated), to be resumed by the next run."""
        winner = self.winner
        targets = self.targets
        nodes, heap, seen = self.nodes, self.heap, self.seen
        limit = self.spent + budget
        pop, push = heapq.heappop, heapq.heappush
        looked = 0
        while heap:
            if self.spent >= limit or (pause_after and looked >= pause_after):
                return SearchResult(None, False, self.spent)
            _, _, index = pop(heap)
            parent, code, flat = nodes[index]
            if flat is None:
                base = nodes[parent][2]
                assert base is not None  # a parent was expanded, so its position is kept
                pos = _unflat(base, self.like)
                pos.make(code)
                nodes[index] = (parent, code, _flat(pos))
            else:
                pos = _unflat(flat, self.like)
            self.spent += 1
            codes = pos.legal_codes()
            looked += 1 + len(codes)
            if not codes:
                if pos.turn != winner and pos.is_check():
                    line = []
                    while nodes[index][0] >= 0:
                        line.append(nodes[index][1])
                        index = nodes[index][0]
                    line.reverse()
                    return SearchResult(line, False, self.spent)
                continue
            if hopeless(pos, winner):
                continue
            for child in codes:
                key = child_key(pos, child)
                if key is None:
                    pos.make(child)
                    key = position_key(pos)
                    pos.unmake()
                if key in seen:
                    continue
                seen.add(key)
                pos.make(child)
                distance = mating_distance(pos, winner, targets)
                pos.unmake()
                self.generated += 1
                nodes.append((index, child, None))
                push(heap, (distance, -self.generated, len(nodes) - 1))
            self.spent += len(codes) // self.CHILD_COST
        return SearchResult(None, True, self.spent)


# A position as BestFirst keeps it: board, colours, pieces, kings, turn, castling, en passant.
_Flat = tuple[bytes, tuple[int, ...], tuple[int, ...], tuple[int, ...], int, int, int]


def _flat(pos: Position) -> _Flat:
    return bytes(pos.board), tuple(pos.bb_color), tuple(pos.bb_piece), tuple(pos.king), pos.turn, pos.castling, pos.ep


def _unflat(flat: _Flat, like: Position) -> Position:
    """The position of ``flat``, with ``like``'s rules (Chess960 castling) and an empty undo stack."""
    pos = like.copy()
    board, colors, pieces, kings, pos.turn, pos.castling, pos.ep = flat
    pos.board = list(board)
    pos.bb_color = list(colors)
    pos.bb_piece = list(pieces)
    pos.king = list(kings)
    return pos


def shorten(pos: Position, codes: list[int]) -> list[int]:
    """A line to the same final position, with detours cut out.

    The positions along the line are numbered; from each one, a move that lands directly on a
    later position of the line replaces the moves in between. ``pos`` is left as it was.
    """
    return drain(shorten_steps(pos, codes))


def shorten_steps(pos: Position, codes: list[int]) -> Steps[list[int]]:
    """``shorten`` in steps (a long line takes a while); ``pos`` is left as it was at the end."""
    if len(codes) < 3:
        return codes
    index = {position_key(pos): 0}
    for i, code in enumerate(codes, 1):
        pos.make(code)
        index[position_key(pos)] = i
        if not i % (8 * STEP_NODES):
            yield
    for _ in codes:
        pos.unmake()
    out: list[int] = []
    at = 0
    last = len(codes)
    while at < last:
        best, best_code = at + 1, codes[at]
        for code in pos.legal_codes():
            pos.make(code)
            j = index.get(position_key(pos), -1)
            pos.unmake()
            if j > best:
                best, best_code = j, code
        pos.make(best_code)
        out.append(best_code)
        at = best
        if not len(out) % (STEP_NODES // 4):
            yield
    for _ in out:
        pos.unmake()
    return out
