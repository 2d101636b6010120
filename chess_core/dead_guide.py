"""Heuristics of the helpmate searches of chess_core.dead: where to mate, which moves make progress.

After the Chess Unwinnability Analyzer: the winner aims for a mate in a corner on the loser's side,
of the colour of its bishops; moves towards that picture are *rewarded* (searched first, or for
free), moves away from it *punished*. None of this decides a verdict: it only orders the search.
"""
from __future__ import annotations

from .move import FLAG_EN_PASSANT
from .position import Position
from .squares import (BB_DARK_SQUARES, BB_LIGHT_SQUARES, BISHOP, KING, KING_ATTACKS, KNIGHT, KNIGHT_ATTACKS,
                      PAWN, QUEEN, ROOK, WHITE)

_NORMAL, _REWARD, _PUNISH = 0, 1, 2


def _knight_distances() -> list[list[int]]:
    table = []
    for s in range(64):
        dist = [99] * 64
        dist[s] = 0
        frontier = [s]
        d = 0
        while frontier:
            d += 1
            nxt = []
            for a in frontier:
                b = KNIGHT_ATTACKS[a]
                while b:
                    low = b & -b
                    b ^= low
                    t = low.bit_length() - 1
                    if dist[t] == 99:
                        dist[t] = d
                        nxt.append(t)
            frontier = nxt
        table.append(dist)
    return table


KNIGHT_DISTANCE = _knight_distances()
KING_DISTANCE = [[max(abs((a & 7) - (b & 7)), abs((a >> 3) - (b >> 3))) for b in range(64)] for a in range(64)]


def _mating_targets(pos: Position, winner: int) -> tuple[int, int, int, int]:
    """Squares to head for, after the analyser's plan of a mate in a corner on the loser's side.

    The corner is dark if the winner has a dark bishop (or has no bishop and the loser has a light
    one, which can then block). Returns (loser's king, loser's pieces, winner's king, winner's
    pieces) targets: the loser's king in the corner, a loser's piece next to it to block, the
    winner's king two squares away and the winner's pieces aiming at the corner.
    """
    bbp, bbc = pos.bb_piece, pos.bb_color
    wb = bbp[BISHOP] & bbc[winner]
    dark = bool(wb & BB_DARK_SQUARES) or (not wb and bool(bbp[BISHOP] & bbc[winner ^ 1] & BB_LIGHT_SQUARES))
    flip = (0 if dark else 7) ^ (0 if winner == WHITE else 63)
    return 63 ^ flip, 62 ^ flip, 47 ^ flip, 63 ^ flip  # h8, g8, h6, h8 seen from White, dark corner


def nearest_corner_targets(pos: Position, winner: int) -> tuple[int, int, int, int]:
    """As ``_mating_targets``, with the corner nearest the loser's king among those the winner's
    bishops can attack (any corner without bishops, or with bishops of both colours)."""
    targets = _mating_targets(pos, winner)
    bishops = pos.bb_piece[BISHOP] & pos.bb_color[winner]
    ksq = pos.king[winner ^ 1]
    best = None
    for corner, blocker in ((63, 62), (56, 57), (7, 6), (0, 1)):
        colour = BB_DARK_SQUARES if (corner ^ (corner >> 3)) & 1 == 0 else BB_LIGHT_SQUARES
        if bishops and not bishops & colour:
            continue
        if best is None or KING_DISTANCE[ksq][corner] < KING_DISTANCE[ksq][best[0]]:
            best = (corner, blocker)
    if best is None:
        return targets
    return best[0], best[1], targets[2], targets[3]


def _need_loser_promotion(pos: Position, winner: int) -> bool:
    """Whether the winner's material can only mate once the loser has promoted a pawn to a blocker."""
    bbp, bbc = pos.bb_piece, pos.bb_color
    mine = bbc[winner] & ~bbp[KING]
    theirs = bbc[winner ^ 1]
    if mine == mine & bbp[KNIGHT] and not mine & (mine - 1):
        return not theirs & (bbp[KNIGHT] | bbp[BISHOP] | bbp[ROOK])
    if mine == mine & bbp[BISHOP]:
        bishops = bbp[BISHOP]
        one = not bishops & BB_DARK_SQUARES or not bishops & BB_LIGHT_SQUARES
        return one and not theirs & bbp[KNIGHT]
    return False


def classify(pos: Position, winner: int, codes: list[int]) -> list[tuple[int, int]]:
    """Each move with its kind: _REWARD (progress towards a mate), _PUNISH (away from it), _NORMAL.

    Progress for the winner: captures, pawn moves and pieces heading for the mating corner. For the
    loser: its king and pieces heading for the corner, and its pawns when the winner needs the loser
    to promote; its captures are punished (they take away the winner's material).
    """
    return list(zip(codes, variations(pos, winner, codes)))


def variations(pos: Position, winner: int, codes: list[int]) -> list[int]:
    """The kind of each move of ``codes`` (see classify), in the same order."""
    board = pos.board
    winners_turn = pos.turn == winner
    lking, lpiece, wking, wpiece = _mating_targets(pos, winner)
    if winners_turn:
        king_target, piece_target = wking, wpiece
        need_promo = False
    else:
        king_target, piece_target = lking, lpiece
        need_promo = _need_loser_promotion(pos, winner)
    # Distances to the targets, one row each (both tables are symmetric).
    king_row = KING_DISTANCE[king_target]
    piece_row = KING_DISTANCE[piece_target]
    knight_row = KNIGHT_DISTANCE[piece_target]
    out: list[int] = []
    append = out.append
    for code in codes:
        frm = code & 63
        to = (code >> 6) & 63
        kind = board[frm] & 7
        if kind == KING:
            closer = king_row[to] < king_row[frm]
        elif kind == KNIGHT:
            closer = knight_row[to] < knight_row[frm]
        elif kind != PAWN:
            closer = piece_row[to] < piece_row[frm]
        else:
            closer = False
        if winners_turn:
            append(_REWARD if kind == PAWN or closer or board[to] or code >> 15 == FLAG_EN_PASSANT else _NORMAL)
            continue
        variation = _NORMAL
        if need_promo:
            variation = _REWARD if kind == PAWN and (code >> 12) & 7 not in (QUEEN, ROOK) else _PUNISH
        if closer:
            variation = _REWARD
        elif board[to] or code >> 15 == FLAG_EN_PASSANT:
            variation = _PUNISH
        append(variation)
    return out


def guided_order(pos: Position, winner: int, codes: list[int]) -> list[int]:
    """The moves in the guided search's order, one int each (no tuple per move, which keeps the
    collector quiet): ``not rewarded << 20 | code << 1 | punished``, so that a plain sort puts the
    rewarded moves first, each kind by code."""
    kinds = variations(pos, winner, codes)
    out = [(kind != _REWARD) << 20 | code << 1 | (kind == _PUNISH) for code, kind in zip(codes, kinds)]
    out.sort()
    return out


_RANKS = (2, 4, 0)  # by kind: _NORMAL, _REWARD, _PUNISH


def order_moves(pos: Position, winner: int, codes: list[int]) -> list[int]:
    """The moves, most promising last (a walk takes moves from the end of the list).

    Within each kind, moves to a square next to the loser's king come later (tried first): the
    winner's pieces closing in, the loser's pieces taking the squares its king would flee to.
    """
    ksq = pos.king[winner ^ 1]
    near = KING_ATTACKS[ksq] if ksq >= 0 else 0
    board = pos.board
    ranks = _RANKS
    scored: list[int] = []  # rank << 20 | code: one int per move, sorted by rank then code
    append = scored.append
    for code, variation in zip(codes, variations(pos, winner, codes)):
        rank = ranks[variation]
        if near >> ((code >> 6) & 63) & 1 and board[code & 63] & 7 != KING:
            rank += 1
        append(rank << 20 | code)
    scored.sort()
    return [packed & 0xFFFFF for packed in scored]


_SAME_DIAGONAL = [[abs((a & 7) - (b & 7)) == abs((a >> 3) - (b >> 3)) for b in range(64)] for a in range(64)]


def mating_distance(pos: Position, winner: int, targets: tuple[int, int, int, int]) -> int:
    """A rough count of the moves left before the corner mate of ``_mating_targets`` can be given.

    The loser's king to its corner (weighed most: it is the slowest and the one that decides), the
    winner's king two squares from it, the winner's best piece aiming at the corner (a promotion
    first for a pawn), and the loser's nearest piece next to the corner as a blocker.
    """
    lking, blocker = targets[0], targets[1]
    loser = winner ^ 1
    bbc, bbp = pos.bb_color, pos.bb_piece
    board = pos.board
    score = 3 * KING_DISTANCE[pos.king[loser]][lking] + abs(KING_DISTANCE[pos.king[winner]][lking] - 2)
    best = 8
    pieces = bbc[winner] & ~bbp[KING]
    light = ((lking & 7) + (lking >> 3)) & 1
    while pieces:
        low = pieces & -pieces
        pieces ^= low
        sq = low.bit_length() - 1
        kind = board[sq] & 7
        lines = (sq & 7) == (lking & 7) or (sq >> 3) == (lking >> 3)
        if kind == QUEEN:
            cost = 0 if lines or _SAME_DIAGONAL[sq][lking] else 1
        elif kind == ROOK:
            cost = 0 if lines else 1
        elif kind == BISHOP:
            if ((sq & 7) + (sq >> 3)) & 1 != light:
                cost = 8
            else:
                cost = 0 if _SAME_DIAGONAL[sq][lking] else 1
        elif kind == KNIGHT:
            cost = max(0, KNIGHT_DISTANCE[sq][lking] - 1)
        else:
            cost = 2 + (7 - (sq >> 3) if winner == WHITE else sq >> 3)
        if cost < best:
            best = cost
    score += 2 * best
    blockers = bbc[loser] & ~bbp[KING]
    nearest = 8
    while blockers:
        low = blockers & -blockers
        blockers ^= low
        d = KING_DISTANCE[low.bit_length() - 1][blocker]
        if d < nearest:
            nearest = d
    return score + (nearest if nearest < 8 else 0)
