"""Proofs remembered from one position to the next: a helpmate found once proves a game's next positions cheaply.

chess_core.dead asks after every move of a game whether a side can still mate. Consecutive
positions differ by one move, so the proof found for one position nearly always proves the next
with a few moves played on the board, never by assumption:

- a helpmate line proves every position along it (the rest of the line mates from there), so a
  game that follows the line is proved at once;
- after a move that changes neither pawns nor material nor castling rights (a *reversible*
  move), the pieces can go back: the moves played back, each one checked legal, lead to a
  position proved before, whose helpmate then follows. Two moves back, each side takes back its
  own move; one move back, the side to move first plays a move it takes back too (a tempo);
- the rest of the previous position's line, played from the new position (the move just made
  stood in for the line's first move), checked move by move to the mate;
- a position that can follow one proved unable to mate cannot mate either (whatever a series of
  moves from it reaches, the longer series from the earlier position reaches too).

Every line used is played out with legal moves only and ends in the checkmate claimed (or on a
position whose key was proved): the memory speeds proofs up, it never stands in for one.
"""
from __future__ import annotations

from collections import OrderedDict

from .move import IllegalMoveError, decode
from .position import Position
from .squares import PAWN

# A line, as the internal move codes of chess_core.move.
Line = tuple[int, ...]
# The positions of a new line that are remembered (the first ones: a game meets those).
TRAJECTORY = 24
# Positions remembered per colour.
KEPT = 1024
# Tempo moves tried for a return one move back.
TEMPI = 6
# Lines longer than this are not replayed whole after an irreversible move (too dear to check).
REPLAYED = 160

Key = tuple[object, ...]


def memory_key(pos: Position) -> Key:
    """The position as the memory knows it: placement, side to move, castling rights (with the
    rooks they belong to, in Chess960), en passant square. The move counters play no part in
    whether a mate can be reached."""
    bbc, bbp = pos.bb_color, pos.bb_piece
    if pos.castling and pos.chess960:
        return (bbc[0], bbc[1], bbp[1], bbp[2], bbp[3], bbp[4], bbp[5], pos.turn, pos.castling, pos.ep,
                pos.castle_rooks)
    return (bbc[0], bbc[1], bbp[1], bbp[2], bbp[3], bbp[4], bbp[5], pos.turn, pos.castling, pos.ep)


class Proof:
    """A helpmate: moves to play, then (when they return to a position proved before) the proof of
    that position, entered ``skip`` moves in. Returns chained move after move share their tails."""

    __slots__ = ("moves", "rest", "skip", "length")

    def __init__(self, moves: Line, rest: Proof | None = None, skip: int = 0) -> None:
        self.moves = moves
        self.rest = rest
        self.skip = skip
        self.length: int = len(moves) + (rest.length - skip if rest is not None else 0)

    def line(self, skip: int = 0) -> Line:
        """The whole line, its first ``skip`` moves left out."""
        parts: list[Line] = []
        node: Proof | None = self
        while node is not None:
            if skip < len(node.moves):
                parts.append(node.moves[skip:])
                skip = node.skip
            else:
                skip += node.skip - len(node.moves)
            node = node.rest
        return tuple(code for part in parts for code in part)


class Memory:
    """Helpmate lines by position and colour, and the positions proved unable to mate."""

    def __init__(self, kept: int = KEPT) -> None:
        self.kept = kept
        self.lines: list[OrderedDict[Key, tuple[Proof, int]]] = [OrderedDict(), OrderedDict()]
        self.cannot: list[OrderedDict[Key, bool]] = [OrderedDict(), OrderedDict()]
        self.last_color = -1  # the colour of the last helpmate remembered (which to try first)
        # Positions whose analysis ran out of budget, with how many positions after them, one
        # plain move each, were let through unsearched since the last attempt.
        self.unsettled: OrderedDict[Key, int] = OrderedDict()

    def clear(self) -> None:
        for lines in self.lines:
            lines.clear()
        for cannot in self.cannot:
            cannot.clear()
        self.unsettled.clear()

    # -- what is known ---------------------------------------------------------------------------

    def proof(self, key: Key, color: int) -> tuple[Proof, int] | None:
        """The helpmate known from the position of ``key`` for ``color``: (proof, moves of it
        already played), or None."""
        hit = self.lines[color].get(key)
        if hit is not None:
            self.lines[color].move_to_end(key)
        return hit

    def line(self, key: Key, color: int) -> Line | None:
        """The helpmate known from the position of ``key`` for ``color``, or None."""
        hit = self.proof(key, color)
        return None if hit is None else hit[0].line(hit[1])

    def knows_cannot(self, key: Key, color: int) -> bool:
        return key in self.cannot[color]

    def remember_cannot(self, key: Key, color: int) -> None:
        table = self.cannot[color]
        table[key] = True
        table.move_to_end(key)
        while len(table) > self.kept:
            table.popitem(last=False)

    def remember_line(self, pos: Position, color: int, line: Line) -> Proof:
        """Remember ``line`` (a helpmate for ``color`` from ``pos``) for ``pos`` and the first
        positions along it; its proof. ``pos`` is left as it was."""
        proof = Proof(line)
        self._remember(pos, color, proof, line[:TRAJECTORY])
        return proof

    def _remember(self, pos: Position, color: int, proof: Proof, along: Line) -> None:
        """``proof`` for ``pos``, and for each position after the moves of ``along`` (its first moves)."""
        table = self.lines[color]
        table[memory_key(pos)] = (proof, 0)
        self.last_color = color
        length = proof.length
        made = 0
        try:
            for index, code in enumerate(along, 1):
                pos.make(code)
                made += 1
                at = memory_key(pos)
                known = table.get(at)
                if known is None or known[0].length - known[1] > length - index:
                    table[at] = (proof, index)
        finally:
            for _ in range(made):
                pos.unmake()
        while len(table) > self.kept:
            table.popitem(last=False)

    # -- proofs from what is known -----------------------------------------------------------------

    def prove(self, pos: Position, colors: tuple[int, ...]) -> tuple[int, Proof] | None:
        """A helpmate for one of ``colors`` from ``pos`` built from what is remembered: (colour,
        proof), or None. ``pos`` carries the game's last moves on its undo stack (at most two are
        used) and is left as it was."""
        key = memory_key(pos)
        for color in colors:
            hit = self.proof(key, color)
            if hit is not None:
                proof, skip = hit
                if skip:
                    proof = Proof((), proof, skip)
                return color, proof
        back = _looking_back(pos)
        if len(back) == 2 and back[0][2] and back[1][2]:
            # Each side takes its own move back, the side to move first (the older move).
            for color in colors:
                hit = self.proof(back[1][1], color)
                if hit is not None:
                    taken_back = (_reverse(back[1][0]), _reverse(back[0][0]))
                    if _leads_to(pos, taken_back, back[1][1]):
                        return color, self._chained(pos, color, taken_back, hit)
        if back:
            code, before, reversible = back[0]
            for color in colors:
                hit = self.proof(before, color)
                if hit is None:
                    continue
                if reversible:
                    for tempo in _tempi(pos, code):
                        prefix = (tempo, _reverse(code), _reverse(tempo))
                        if _leads_to(pos, prefix, before):
                            return color, self._chained(pos, color, prefix, hit)
                proof, skip = hit
                if 1 < proof.length - skip <= REPLAYED:
                    rest = proof.line(skip + 1)
                    if mates(pos, color, rest):
                        return color, self.remember_line(pos, color, rest)
        return None

    def remember_unsettled(self, key: Key, skipped: int = 0) -> None:
        self.unsettled[key] = skipped
        self.unsettled.move_to_end(key)
        while len(self.unsettled) > self.kept:
            self.unsettled.popitem(last=False)

    def unsettled_before(self, pos: Position) -> int:
        """How many positions were let through unsearched since the analysis of a position like
        ``pos`` last ran out of budget: the position one move back, when that move (on ``pos``'s
        undo stack) changed neither pawns nor material nor castling rights; -1 when it is not so.
        Both can reach each other, so they can mate alike: searching again mostly fails again."""
        back = _looking_back(pos, 1)
        if not back or not back[0][2]:
            return -1
        return self.unsettled.get(back[0][1], -1)

    def dead_before(self, pos: Position, colors: tuple[int, ...]) -> bool:
        """Whether the position one move back (on ``pos``'s undo stack) was proved unable to mate for
        every one of ``colors``: then so is ``pos``, which follows it by that move. The stack is
        trusted for nothing: the move must be legal there and lead to ``pos`` again."""
        if not pos._stack or pos._stack[-1][0] == 0:
            return False
        before = pos.copy(stack=True)
        code = before.unmake()
        if not all(memory_key(before) in self.cannot[c] for c in colors) or code not in before.legal_codes():
            return False
        before.make(code)
        return memory_key(before) == memory_key(pos)

    def _chained(self, pos: Position, color: int, prefix: Line, hit: tuple[Proof, int]) -> Proof:
        proof = Proof(prefix, *hit)
        self._remember(pos, color, proof, ())
        return proof


def _looking_back(pos: Position, count: int = 2) -> list[tuple[int, Key, bool]]:
    """The last moves on ``pos``'s undo stack (at most ``count``), the latest first: each move, the
    key of the position before it, and whether it was a plain move that changed neither pawns nor
    material nor castling rights (taken back by the opposite plain move). Worked out on a copy:
    ``pos`` is not touched."""
    back: list[tuple[int, Key, bool]] = []
    if not pos._stack:
        return back
    work = pos.copy(stack=True)
    while work._stack and len(back) < count:
        code, captured = work._stack[-1][0], work._stack[-1][1]
        if code == 0:  # a null move: nothing to play back
            break
        castling = work.castling
        work.unmake()
        plain = code < 4096 and not captured and work.board[code & 63] & 7 != PAWN and work.castling == castling
        back.append((code, memory_key(work), plain))
    return back


def _reverse(code: int) -> int:
    """The plain move that takes the plain move ``code`` back."""
    return ((code >> 6) & 63) | (code & 63) << 6


def _tempi(pos: Position, last: int) -> list[int]:
    """Moves the side to move could play and take back, two moves later (plain moves of pieces
    other than pawns that take nothing and keep every castling right); those that cross the
    squares of ``last`` come last."""
    board = pos.board
    keep = pos.castle_keep
    castling = pos.castling
    near = (1 << (last & 63)) | (1 << ((last >> 6) & 63))
    first: list[int] = []
    later: list[int] = []
    for code in pos.legal_codes():
        if code >= 4096 or board[(code >> 6) & 63] or board[code & 63] & 7 == PAWN:
            continue
        frm, to = code & 63, (code >> 6) & 63
        if castling & ~(keep[frm] & keep[to]):
            continue
        (later if near >> frm & 1 or near >> to & 1 else first).append(code)
        if len(first) >= TEMPI:
            break
    return (first + later)[:TEMPI]


def _play(pos: Position, code: int) -> bool:
    """Make ``code`` if it is legal here; whether it was."""
    try:
        pos._make_legal(decode(code))
    except IllegalMoveError:
        return False
    return True


def _leads_to(pos: Position, prefix: tuple[int, ...], key: Key) -> bool:
    """Whether ``prefix`` is legal from ``pos`` and ends on the position of ``key``."""
    made = 0
    try:
        for code in prefix:
            if not _play(pos, code):
                return False
            made += 1
        return memory_key(pos) == key
    finally:
        for _ in range(made):
            pos.unmake()


def mates(pos: Position, color: int, line: Line) -> bool:
    """Whether ``line`` is legal from ``pos`` and ends with ``color`` giving checkmate."""
    made = 0
    try:
        for code in line:
            if not _play(pos, code):
                return False
            made += 1
        return pos.turn != color and pos.is_check() and not pos.legal_codes()
    finally:
        for _ in range(made):
            pos.unmake()


__all__ = ["Memory", "Line", "Proof", "Key", "memory_key", "mates"]
