"""The themes of a puzzle, by Lichess's names, from its position and solution: mates in 1 to 5, fork, pin, skewer, hanging piece, promotion.

Pure, on ``chess_core`` alone. The definitions are lichess-puzzler's tagger's
(github.com/ornicar/lichess-puzzler ``tagger/cook.py`` and ``tagger/util.py``, read, not copied:
AGPL), written again here; "solver move" is a move of the solution by the side to move in the
puzzle's position, "after" the position it leaves.

Contract:

* ``mateIn1`` .. ``mateIn4``, ``mateIn5`` (five or more) and ``mate``: the solution ends in
  checkmate, after so many solver moves.
* ``promotion``: a solver move promotes.
* ``fork``: a solver move before the last, not by the king, lands on a square where the piece is
  not in a bad spot (attacked and either undefended or attacked by a cheaper piece), and from
  there attacks two of the opponent's pieces that are not pawns, each worth more than the mover
  (the king counting 99) or undefended and not attacking the mover back.
* ``hangingPiece``: the first solver move takes an undefended piece other than a pawn (a
  defender hidden behind the attacker, an x-ray, counts as a defence); not when the position
  is check and the move takes nothing or a pawn, nor when it only takes back what the blunder
  took on that square (a piece worth as much); with a longer solution, the solver's material
  after the second solver move is at least what it was after the first.
* ``pin``: after a solver move, an opponent's piece pinned to its king either attacks, off the
  pin's line, a piece of the solver worth more than itself or undefended (the pin keeps it from
  taking), or is attacked along the pin's line by a cheaper piece, or is undefended there, can
  move off the line, and does not attack its attacker (the pin keeps it from escaping).
* ``skewer``: a solver move after the first, by a queen, rook or bishop, takes a piece across the
  square the opponent's last move left, that move's piece worth more than the one taken (the king
  99), the piece taken in a bad spot, and the move not a mate.
"""
from __future__ import annotations

from collections.abc import Sequence

from chess_core import BISHOP, KING, KNIGHT, PAWN, QUEEN, ROOK, Move, Position
from chess_core.squares import (BETWEEN, KING_ATTACKS, KNIGHT_ATTACKS, LINE, PAWN_ATTACKS, bishop_attacks,
                                queen_attacks, rook_attacks, scan_squares)

__all__ = ["themes", "attacks", "is_defended", "is_in_bad_spot", "pin_line", "THEMES"]

THEMES = ("mate", "mateIn1", "mateIn2", "mateIn3", "mateIn4", "mateIn5", "fork", "pin", "skewer",
          "hangingPiece", "promotion")
VALUES = {PAWN: 1, KNIGHT: 3, BISHOP: 3, ROOK: 5, QUEEN: 9, KING: 99}
RAY_PIECES = (BISHOP, ROOK, QUEEN)


def attacks(pos: Position, sq: int) -> int:
    """The squares the piece on ``sq`` attacks (a bitboard; 0 for an empty square)."""
    piece = pos.piece_at(sq)
    if piece is None:
        return 0
    kind, occ = piece.piece_type, pos.occupied
    if kind == PAWN:
        return PAWN_ATTACKS[piece.color][sq]
    if kind == KNIGHT:
        return KNIGHT_ATTACKS[sq]
    if kind == KING:
        return KING_ATTACKS[sq]
    if kind == BISHOP:
        return bishop_attacks(sq, occ)
    if kind == ROOK:
        return rook_attacks(sq, occ)
    return queen_attacks(sq, occ)


def is_defended(pos: Position, sq: int) -> bool:
    """Whether the piece on ``sq`` is defended by its own side, counting a defender behind one of
    the attacking sliders (an x-ray)."""
    piece = pos.piece_at(sq)
    assert piece is not None
    if pos.attackers(piece.color, sq):
        return True
    for attacker in scan_squares(pos.attackers(piece.color ^ 1, sq)):
        found = pos.piece_at(attacker)
        if found is not None and found.piece_type in RAY_PIECES:
            if pos.attackers(piece.color, sq, pos.occupied & ~(1 << attacker)):
                return True
    return False


def _takeable_by_cheaper(pos: Position, sq: int) -> bool:
    piece = pos.piece_at(sq)
    assert piece is not None
    for attacker in scan_squares(pos.attackers(piece.color ^ 1, sq)):
        found = pos.piece_at(attacker)
        if found is not None and found.piece_type != KING and VALUES[found.piece_type] < VALUES[piece.piece_type]:
            return True
    return False


def is_in_bad_spot(pos: Position, sq: int) -> bool:
    """The piece on ``sq`` is attacked, and undefended or attacked by a cheaper piece."""
    piece = pos.piece_at(sq)
    assert piece is not None
    return bool(pos.attackers(piece.color ^ 1, sq)) and (not is_defended(pos, sq) or _takeable_by_cheaper(pos, sq))


def pin_line(pos: Position, sq: int) -> int | None:
    """The line (a bitboard, king to pinner) along which the piece on ``sq`` is pinned to its
    king, or None when it is not pinned."""
    piece = pos.piece_at(sq)
    if piece is None or piece.piece_type == KING:
        return None
    ksq = pos.king[piece.color]
    if ksq < 0 or not LINE[ksq][sq]:
        return None
    them = piece.color ^ 1
    straight = (ksq & 7) == (sq & 7) or (ksq >> 3) == (sq >> 3)
    sliders = pos.pieces(QUEEN, them) | pos.pieces(ROOK if straight else BISHOP, them)
    for slider in scan_squares(sliders & LINE[ksq][sq]):
        between = BETWEEN[ksq][slider]
        if between >> sq & 1 and between & pos.occupied == 1 << sq:
            return LINE[ksq][sq]
    return None


def _material(pos: Position, side: int) -> int:
    return sum(VALUES[kind] * (bin(pos.pieces(kind, side)).count("1") - bin(pos.pieces(kind, side ^ 1)).count("1"))
               for kind in (PAWN, KNIGHT, BISHOP, ROOK, QUEEN))


def _kind(pos: Position, sq: int) -> int:
    piece = pos.piece_at(sq)
    assert piece is not None
    return piece.piece_type


def _fork(before: Position, after: Position, move: Move, pov: int) -> bool:
    mover = _kind(after, move.to_square)
    if mover == KING or is_in_bad_spot(after, move.to_square):
        return False
    count = 0
    for sq in scan_squares(attacks(after, move.to_square) & after.occupied_by(pov ^ 1)):
        kind = _kind(after, sq)
        if kind == PAWN:
            continue
        if VALUES[kind] > VALUES[mover] or (not is_defended(after, sq)
                                             and not after.attackers(pov ^ 1, move.to_square) >> sq & 1):
            count += 1
    return count > 1


def _pin(after: Position, pov: int) -> bool:
    for sq in scan_squares(after.occupied_by(pov ^ 1)):
        line = pin_line(after, sq)
        if line is None:
            continue
        kind = _kind(after, sq)
        for target in scan_squares(attacks(after, sq) & after.occupied_by(pov) & ~line):
            if VALUES[_kind(after, target)] > VALUES[kind] or not is_defended(after, target):
                return True      # the pin keeps it from taking
        for attacker in scan_squares(after.attackers(pov, sq) & line):
            if VALUES[kind] > VALUES[_kind(after, attacker)]:
                return True      # the pin keeps it from escaping a cheaper attacker
            if (not is_defended(after, sq) and not after.attackers(pov ^ 1, attacker) >> sq & 1
                    and _moves_off(after, sq, line)):
                return True      # ... or from escaping at all
    return False


def _moves_off(pos: Position, sq: int, line: int) -> bool:
    """Whether the piece on ``sq`` has a move (legal or not for the pin) off ``line``."""
    piece = pos.piece_at(sq)
    assert piece is not None
    if piece.piece_type != PAWN:
        return bool(attacks(pos, sq) & ~pos.occupied_by(piece.color) & ~line)
    step = 8 if piece.color == 0 else -8
    ahead = sq + step
    pushes = 1 << ahead if 0 <= ahead < 64 and not pos.occupied >> ahead & 1 else 0
    takes = PAWN_ATTACKS[piece.color][sq] & pos.occupied_by(piece.color ^ 1)
    return bool((pushes | takes) & ~line)


def _skewer(prev: Position, after: Position, move: Move, reply: Move, replied: int) -> bool:
    taken = prev.piece_at(move.to_square)
    if taken is None or _kind(prev, move.from_square) not in RAY_PIECES or after.is_checkmate():
        return False
    if reply.to_square == move.to_square or not BETWEEN[move.from_square][move.to_square] >> reply.from_square & 1:
        return False
    return VALUES[replied] > VALUES[taken.piece_type] and is_in_bad_spot(prev, move.to_square)


def _hanging(start: Position, boards: Sequence[Position], solution: Sequence[Move], pov: int,
             before: str, blunder: str) -> bool:
    first = solution[0]
    taken = start.piece_at(first.to_square)
    if start.is_check() and (taken is None or taken.piece_type == PAWN):
        return False
    if taken is None or taken.piece_type == PAWN or is_defended(start, first.to_square):
        return False
    if before and blunder:
        last = Move.from_uci(blunder)
        took = Position(before).piece_at(last.to_square)
        if took is not None and last.to_square == first.to_square and VALUES[took.piece_type] >= VALUES[taken.piece_type]:
            return False
    if len(solution) < 3:
        return True
    return _material(boards[3], pov) >= _material(boards[1], pov)


def themes(fen: str, solution: Sequence[str], before: str = "", blunder: str = "") -> tuple[str, ...]:
    """The themes of the puzzle at ``fen`` with ``solution`` (UCI, the solver's move first), in
    ``THEMES``'s order; ``before`` and ``blunder`` (the opponent's last move, played from
    ``before``) tell a hanging piece from a recapture."""
    start = Position(fen)
    pov = start.turn
    moves = [Move.from_uci(text) for text in solution]
    boards = [start]
    kinds = []       # the kind of piece each move moves
    for move in moves:
        kinds.append(_kind(boards[-1], move.from_square))
        board = boards[-1].copy()
        board.push(move)
        boards.append(board)
    found: set[str] = set()
    if moves and boards[-1].is_checkmate():
        found.add("mate")
        found.add(f"mateIn{min(5, (len(moves) + 1) // 2)}")
    solver = range(0, len(moves), 2)
    if any(moves[i].promotion for i in solver):
        found.add("promotion")
    if any(_fork(boards[i], boards[i + 1], moves[i], pov) for i in solver if i + 1 < len(moves)):
        found.add("fork")
    if moves and _hanging(start, boards, moves, pov, before, blunder):
        found.add("hangingPiece")
    if any(_pin(boards[i + 1], pov) for i in solver):
        found.add("pin")
    if any(_skewer(boards[i], boards[i + 1], moves[i], moves[i - 1], kinds[i - 1]) for i in solver if i >= 2):
        found.add("skewer")
    return tuple(name for name in THEMES if name in found)
