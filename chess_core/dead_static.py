"""Static proofs that a side can never checkmate: where every piece could ever stand, and why no mate fits.

The analysis over-approximates the future of a position. For every piece it computes the squares
the piece could ever occupy, by any series of legal moves, as the least fixpoint of rules that each
state a *necessary* condition of a real event:

- a piece steps (one king, knight, pawn or slider step at a time) only onto a square not held for
  ever by a piece of its own colour; stepping onto an enemy piece means capturing it, so that enemy
  piece is marked as able to leave its square;
- a pawn pushes only onto a square not held for ever by any piece, and captures only onto a square
  an enemy piece (not the king) could stand on, or en passant;
- a king never steps onto a square attacked for ever by an enemy piece that can never leave its
  square and attacks without a line that could be blocked (pawn, knight, king, or a slider's
  adjacent squares);
- a pawn that can reach its last rank may become anything and then go anywhere it could step.

A piece is *fixed* when the fixpoint never shows it leaving its square (moving or being captured).
Because every real move satisfies the rules above with the facts true before it, induction on the
moves of any game shows that what really happens is included in the fixpoint: the fixpoint is an
over-approximation, and so a proof built on it is sound.

On top of the reach sets, ``mate_impossible`` looks for a square where the loser's king could be
checkmated: the king must be able to stand there, some piece of the winner must be able to attack
it, and each neighbour the king could otherwise enter must be attacked by the winner or taken by
one of the loser's own pieces (each of those pieces on a different square). If no square
survives, the winner cannot checkmate, whatever both sides play.

``shuttle_mate_impossible`` adds a hypothesis to the fixpoint (a fence the other king never
crosses) for a king caged on two squares, checks that the hypothesis keeps the cage closed, and
shows that crossing the fence ends the game in stalemate. ``cannot_mate`` tries both.
"""
from __future__ import annotations

from typing import Callable

from .position import Position
from .squares import (BB_ALL, BB_FILE_A, BB_FILE_H, BB_FILES, BB_RANKS, BISHOP, KING, KING_ATTACKS, KNIGHT,
                      KNIGHT_ATTACKS, PAWN, PAWN_ATTACKS, QUEEN, ROOK, WHITE, BLACK)

_NOT_A = BB_ALL & ~BB_FILE_A
_NOT_H = BB_ALL & ~BB_FILE_H
_NOT_AB = _NOT_A & ~(BB_FILE_A << 1)
_NOT_GH = _NOT_H & ~(BB_FILE_H >> 1)
_LAST_RANK = (BB_RANKS[7], BB_RANKS[0])


def orth_step(b: int) -> int:
    """The squares one rook step away from any square of ``b``."""
    return ((b << 8) & BB_ALL) | (b >> 8) | ((b << 1) & _NOT_A) | ((b >> 1) & _NOT_H)


def diag_step(b: int) -> int:
    """The squares one bishop step away from any square of ``b``."""
    return ((b << 9) & _NOT_A) | ((b << 7) & _NOT_H) | ((b >> 7) & _NOT_A) | ((b >> 9) & _NOT_H)


def king_step(b: int) -> int:
    return orth_step(b) | diag_step(b)


def knight_step(b: int) -> int:
    return (((b << 17) & _NOT_A) | ((b << 15) & _NOT_H) | ((b << 10) & _NOT_AB) | ((b << 6) & _NOT_GH)
            | ((b >> 17) & _NOT_H) | ((b >> 15) & _NOT_A) | ((b >> 10) & _NOT_GH) | ((b >> 6) & _NOT_AB)) & BB_ALL


def pawn_push(b: int, color: int) -> int:
    return (b << 8) & BB_ALL if color == WHITE else b >> 8


def pawn_captures(b: int, color: int) -> int:
    if color == WHITE:
        return ((b << 9) & _NOT_A & BB_ALL) | ((b << 7) & _NOT_H & BB_ALL)
    return ((b >> 7) & _NOT_A) | ((b >> 9) & _NOT_H)


_STEP = {KNIGHT: knight_step, BISHOP: diag_step, ROOK: orth_step, QUEEN: king_step, KING: king_step}


def _amazon_step(b: int) -> int:
    return king_step(b) | knight_step(b)


def _pawn_walk(start: int, color: int, pushable: int, capturable: int) -> int:
    """The squares a pawn could walk to (its last rank included, where it promotes)."""
    walked = start
    while True:
        grown = walked | (pawn_push(walked, color) & pushable) | (pawn_captures(walked, color) & capturable)
        if grown == walked:
            return walked
        walked = grown


def _passing_forbidden(ahead: list[tuple[int, int]], released: int, reach: int, sq: int) -> int:
    """Squares of its file that a pawn cannot push to while an enemy pawn ahead blocks the way.

    A pawn never jumps over a pawn: while neither leaves the file (by a capture) and the one ahead
    is not taken, the pawn behind stays behind it, below the rank where it stands now.
    """
    file = BB_FILES[sq & 7]
    if not ahead or reach & ~file:
        return 0
    forbidden = 0
    for bit, other in ahead:
        if not released & bit:
            if other > sq:
                forbidden |= file & ~((1 << other) - 1)
            else:
                forbidden |= file & ((1 << (other + 1)) - 1)
    return forbidden


def _flood(start: int, step: Callable[[int], int], allowed: int) -> int:
    reach = start
    while True:
        grown = reach | (step(reach) & allowed)
        if grown == reach:
            return reach
        reach = grown


def attacks_of(kind: int, color: int, reach: int, promoted: int) -> int:
    """Every square a piece could ever attack, given the squares it could ever stand on.

    A slider attacks the square one step beyond any square it could stand on: the squares between
    are ones it could have stood on, so they may be empty (over-approximation).
    """
    if kind == PAWN:
        return pawn_captures(reach & ~promoted, color) | _amazon_step(promoted)
    return _STEP[kind](reach)


class Reach:
    """The fixpoint of where every piece of a position could ever go.

    ``pieces``: list of (square, kind, colour) of the position's pieces; ``reach[i]`` the squares
    piece ``i`` could ever stand on, ``attacks[i]`` the squares it could ever attack, ``mobile``
    the starting squares whose piece could ever leave (move away or be captured).
    """

    __slots__ = ("pieces", "reach", "attacks", "mobile", "promoted", "king_index")

    def __init__(self, pos: Position, fence: tuple[int, int] = (0, 0), loose: int = 0) -> None:
        """``fence``: squares each colour's king is supposed never to enter (a hypothesis whose
        consequences ``shuttle_mate_impossible`` checks; no fence for a plain over-approximation).
        ``loose``: squares whose pieces count as able to leave from the start, whatever the
        fixpoint says (so that no fact rests on their staying)."""
        board, bb_color, ep = pos.board, pos.bb_color, pos.ep
        pieces = []
        for color in (0, 1):
            b = bb_color[color]
            while b:
                low = b & -b
                b ^= low
                sq = low.bit_length() - 1
                pieces.append((sq, board[sq] & 7, color))
        self.pieces = pieces
        self.king_index = [0, 0]
        for i, (sq, kind, color) in enumerate(pieces):
            if kind == KING:
                self.king_index[color] = i
        n = len(pieces)
        mobile = loose
        # capturable[c]: squares where a piece of the other colour (not its king) could ever stand,
        # the only squares onto which a pawn of colour c could ever capture.
        capturable = [0, 0]
        for sq, kind, color in pieces:
            if kind != KING:
                capturable[color ^ 1] |= 1 << sq
        # Pawns still on their starting rank, with the square they would skip and the one they land on.
        double_pushers = [(i, 1 << (sq - 8 if color else sq + 8), 1 << (sq - 16 if color else sq + 16), color)
                          for i, (sq, kind, color) in enumerate(pieces)
                          if kind == PAWN and sq >> 3 == (6 if color else 1)]
        ep_victim = 0
        if ep >= 0:
            taker = WHITE if ep >> 3 == 5 else BLACK
            capturable[taker] |= 1 << ep
            if PAWN_ATTACKS[taker ^ 1][ep] & bb_color[taker] & pos.bb_piece[PAWN]:
                ep_victim = 1 << (ep - 8 if taker == WHITE else ep + 8)
        reach = [1 << sq for sq, _, _ in pieces]
        promoted = [0] * n
        # Pawns (bit i for piece i) that could leave their file or be taken: until then, two pawns
        # facing each other on one file can never pass each other.
        released = 0
        pawns = [i for i, (_, kind, _) in enumerate(pieces) if kind == PAWN]
        # ahead[i]: (bit of j, square) of the enemy pawns ahead of pawn i on its file.
        ahead = {}
        for i in pawns:
            sq, _, color = pieces[i]
            ahead[i] = [(1 << j, other) for j in pawns
                        for other, _, other_color in (pieces[j],)
                        if other_color != color and not (other ^ sq) & 7
                        and (other > sq if color == WHITE else other < sq)]
        prom_reach = [0, 0]
        kings = pos.bb_piece[KING]
        while True:
            fixed = [bb_color[0] & ~mobile, bb_color[1] & ~mobile]
            fixed_all = fixed[0] | fixed[1]
            forbidden = [fence[0], fence[1]]  # squares the king of that colour can never step on
            for sq, kind, color in pieces:
                bit = 1 << sq
                if bit & mobile:
                    continue
                if kind == PAWN:
                    forbidden[color ^ 1] |= PAWN_ATTACKS[color][sq]
                elif kind == KNIGHT:
                    forbidden[color ^ 1] |= KNIGHT_ATTACKS[sq]
                elif kind == KING:
                    forbidden[color ^ 1] |= KING_ATTACKS[sq]
                else:
                    forbidden[color ^ 1] |= _STEP[kind](bit)
            new_capturable = [capturable[0], capturable[1]]
            captured_on = [0, 0]  # squares where colour c could capture something
            # No piece ever stands on the square of an enemy king that never moves.
            kings_fixed = fixed_all & kings
            allowed = [BB_ALL & ~fixed[0] & ~kings_fixed, BB_ALL & ~fixed[1] & ~kings_fixed]
            # Pawns walk first; those that can reach their last rank share one promoted reach per
            # colour (the union over all of them: an over-approximation, computed once).
            last = [0, 0]
            for i in pawns:
                sq, _, color = pieces[i]
                pushable = BB_ALL & ~fixed_all & ~_passing_forbidden(ahead[i], released, reach[i], sq)
                walked = _pawn_walk(reach[i] & ~promoted[i] | 1 << sq, color, pushable, capturable[color])
                reach[i] = walked
                last[color] |= walked & _LAST_RANK[color]
            for color in (0, 1):
                if last[color]:
                    prom_reach[color] = _flood(prom_reach[color] | last[color], _amazon_step, allowed[color])
            for i in pawns:
                sq, _, color = pieces[i]
                walked = reach[i]
                if walked & _LAST_RANK[color]:
                    walked &= ~_LAST_RANK[color]
                    promoted[i] = prom_reach[color]
                r = walked | promoted[i]
                reach[i] = r
                captured_on[color] |= (pawn_captures(walked, color) & capturable[color]) | promoted[i]
                new_capturable[color ^ 1] |= r
            for i, (sq, kind, color) in enumerate(pieces):
                if kind == PAWN:
                    continue
                # Every set only grows from one round to the next: each flood starts from the last.
                if kind == KING:
                    r = _flood(reach[i], king_step, allowed[color] & ~forbidden[color])
                else:
                    r = _flood(reach[i], _STEP[kind], allowed[color])
                    new_capturable[color ^ 1] |= r
                captured_on[color] |= r
                reach[i] = r
            for i, skipped, landing, color in double_pushers:
                if reach[i] & landing:
                    new_capturable[color ^ 1] |= skipped
            new_released = released
            for i, (sq, kind, color) in enumerate(pieces):
                if kind == PAWN and not new_released >> i & 1:
                    if reach[i] & ~BB_FILES[sq & 7] or reach[i] & captured_on[color ^ 1]:
                        new_released |= 1 << i
            new_mobile = mobile | ep_victim
            for i, (sq, kind, color) in enumerate(pieces):
                bit = 1 << sq
                if reach[i] != bit or (kind != KING and captured_on[color ^ 1] & bit):
                    new_mobile |= bit
            if new_mobile == mobile and new_capturable == capturable and new_released == released:
                break
            released = new_released
            mobile = new_mobile
            capturable = new_capturable
        self.reach = reach
        self.promoted = promoted
        self.mobile = mobile
        self.attacks = [attacks_of(kind, color, reach[i], promoted[i])
                        for i, (sq, kind, color) in enumerate(pieces)]

    def state_estimate(self) -> int:
        """A rough count of the positions that could follow: the product of every piece's squares."""
        total = 2
        for r in self.reach:
            total *= r.bit_count()
        return total

    def king_region(self, color: int) -> int:
        return self.reach[self.king_index[color]]


def _match(need: list[int], blockers: list[int]) -> bool:
    """Whether every square of ``need`` (bits) can get its own blocker; blockers are reach bitboards."""
    owner: dict[int, int] = {}

    def augment(bit: int, seen: set[int]) -> bool:
        for j, r in enumerate(blockers):
            if r & bit and j not in seen:
                seen.add(j)
                if j not in owner or augment(owner[j], seen):
                    owner[j] = bit
                    return True
        return False

    return all(augment(bit, set()) for bit in need)


def mate_impossible(reach: Reach, winner: int) -> bool:
    """Whether the over-approximation leaves no square where ``winner`` could checkmate."""
    loser = winner ^ 1
    pieces = reach.pieces
    region = reach.king_region(loser)
    wking = reach.king_region(winner)
    w_attack = 0
    blockers = []
    for i, (sq, kind, color) in enumerate(pieces):
        if kind == KING:
            continue
        if color == winner:
            w_attack |= reach.attacks[i]
        else:
            blockers.append(reach.reach[i])
    checkable = region & w_attack
    while checkable:
        low = checkable & -checkable
        checkable ^= low
        k = low.bit_length() - 1
        near = KING_ATTACKS[k]
        open_bb = near & region & ~w_attack
        if not open_bb:
            return False
        # The winner's king stands on one square, not next to the loser's king, and covers the
        # open neighbours next to it; the loser's pieces must take the others, one each.
        if not wking & ~near & ~low & king_step(open_bb):
            kings = [0]
        else:
            kings = [1 << s for s in _squares(wking & ~near & ~low & king_step(open_bb))]
        for w in kings:
            need_bb = open_bb & ~king_step(w)
            if not need_bb:
                return False
            need = []
            while need_bb:
                b = need_bb & -need_bb
                need_bb ^= b
                need.append(b)
            if len(need) <= len(blockers) and _match(need, blockers):
                return False
    return True


def cannot_mate(pos: Position, winner: int, reach: Reach | None = None) -> bool:
    """The static proofs in turn: ``mate_impossible`` on the position's fixpoint (``reach`` when
    already computed), then ``shuttle_mate_impossible``."""
    return mate_impossible(reach or Reach(pos), winner) or shuttle_mate_impossible(pos, winner)


def _squares(bb: int) -> list[int]:
    out = []
    while bb:
        low = bb & -bb
        bb ^= low
        out.append(low.bit_length() - 1)
    return out


def shuttle_mate_impossible(pos: Position, winner: int) -> bool:
    """Whether ``winner`` can never mate because one king is caged on two squares: a static proof
    for the positions where the plain over-approximation lets that cage be broken by a move that
    would in fact end the game in stalemate.

    The argument, for a side S whose other pieces are all pawns, its king on ``a``, and a
    neighbouring square ``b``. Suppose the other king never enters the squares N next to ``a`` or
    ``b`` (hypothesis H). If the fixpoint computed under H (a fence on N) shows every pawn of S
    fixed and S's king never leaving {a, b}, then, by induction on the moves, as long as the other
    king keeps out of N, S's only moves are its king's steps between ``a`` and ``b``. The first time
    the other king enters N it stands next to the square S's king would have to step to (it
    cannot stand next to the square S's king is on), and S, to move, has no move at all: the game
    ends there (a capture in N gives S's pawns no move either: the king takes the captured pawn's
    place; and the fixpoint counts the other king as mobile from the start, so that nothing it
    concluded rests on where that king stood before this move). So every game either stays
    within the fenced fixpoint, where ``mate_impossible`` applies, or ends at that king move; and
    that move mates only if it uncovers a check (a king gives none itself), which
    ``_uncovers_check`` rules out when no line from S's king through a square the king could
    leave is free of pieces that never move.

    Positions with castling rights are left to the searches.
    """
    if pos.castling:
        return False
    bb_color, bb_piece = pos.bb_color, pos.bb_piece
    kings = bb_piece[KING]
    for caged in (WHITE, BLACK):
        if bb_color[caged] & ~kings & ~bb_piece[PAWN]:
            continue  # pieces other than pawns: never shown fixed this way
        other = caged ^ 1
        pawns = bb_color[caged] & bb_piece[PAWN]
        occupied = bb_color[0] | bb_color[1]
        if (pawns << 8 if caged == WHITE else pawns >> 8) & ~occupied:
            continue  # a pawn can push now
        a = pos.king[caged]
        other_king = pos.king[other]
        if a < 0 or other_king < 0:
            continue
        enemy_pawns = bb_color[other] & bb_piece[PAWN]
        for b in _squares(KING_ATTACKS[a] & ~bb_color[caged]):
            if pawn_captures(enemy_pawns, other) >> b & 1:
                continue  # attacked by a pawn now (an over-approximation would say so too)
            cage = 1 << a | 1 << b
            near = (KING_ATTACKS[a] | KING_ATTACKS[b]) & ~cage
            if near >> other_king & 1:
                continue
            fence = (near, 0) if other == WHITE else (0, near)
            # The free king counts as able to move from the start: its crossing of the fence must
            # not undo a fact of the fixpoint (a pawn it blocked, a square it guarded).
            reach = Reach(pos, fence, loose=1 << other_king)
            if reach.king_region(caged) & ~cage or bb_color[caged] & ~kings & reach.mobile:
                continue  # H does not keep the cage closed
            if not mate_impossible(reach, winner):
                return False
            if winner == other and _uncovers_check(reach, pos, caged, a, b, near):
                return False
            return True
    return False


def _uncovers_check(reach: Reach, pos: Position, caged: int, a: int, b: int, near: int) -> bool:
    """Whether the free king could step into ``near`` next to one cage square while uncovering a
    line onto the other, where the caged king stands (an over-approximation: any line of a kind
    the free side's pieces could ever move along, from a square its king could stand on that no
    piece that never moves separates from the caged king)."""
    other = caged ^ 1
    free_king = reach.king_region(other)
    fixed = (pos.bb_color[0] | pos.bb_color[1]) & ~reach.mobile
    diagonal = straight = False
    for i, (sq, kind, color) in enumerate(reach.pieces):
        if color != other:
            continue
        if kind in (BISHOP, QUEEN) or reach.promoted[i]:
            diagonal = True
        if kind in (ROOK, QUEEN) or reach.promoted[i]:
            straight = True
    for x, y in ((a, b), (b, a)):
        targets = near & KING_ATTACKS[y] & ~KING_ATTACKS[x]
        for df, dr in ((1, 1), (1, -1), (-1, 1), (-1, -1), (1, 0), (-1, 0), (0, 1), (0, -1)):
            if not (diagonal if df and dr else straight):
                continue
            f, r = (x & 7) + df, (x >> 3) + dr
            while 0 <= f < 8 and 0 <= r < 8:
                s = r * 8 + f
                if fixed >> s & 1:
                    break
                if free_king >> s & 1 and KING_ATTACKS[s] & targets:
                    return True
                f, r = f + df, r + dr
    return False
