"""Dead positions and the flag rule: chess_core.dead against hand-made cases and the CHA test vector.

Every CAN_MATE answer carries a helpmate; each one is played with chess_core and with python-chess
(the oracle) and must end in checkmate of the other side. A CANNOT_MATE answer must never meet a
side that the vector (or the case) says can mate.
"""
from __future__ import annotations

import itertools
import time
from pathlib import Path

import chess
import pytest

from chess_core.dead import (DEFAULT_BUDGET, Mateability, MateVerdict, can_mate, can_possibly_mate,
                             is_dead)
from chess_core.dead_search import hopeless
from chess_core.game import Game
from chess_core.outcome import Termination
from chess_core.position import Piece, Position
from chess_core.squares import BLACK, KING, KING_ATTACKS, KNIGHT, KNIGHT_ATTACKS, QUEEN, WHITE

CAN, CANNOT, UNDETERMINED = Mateability.CAN_MATE, Mateability.CANNOT_MATE, Mateability.UNDETERMINED

VECTOR = Path(__file__).parent / "data" / "cha-test-vector.txt"
# The vector is checked with a smaller budget than the default, to keep this file under two minutes;
# bench/dead_position.py measures the default budget.
VECTOR_BUDGET = 10_000
VECTOR_CHUNK = 100


def position(fen: str) -> Position:
    """The position of ``fen``; composed positions that FEN validation refuses (more promoted pieces
    than missing pawns, as in some of the vector's problems) are read all the same; some lines
    give only the placement and the side to move."""
    fields = fen.split()
    return Position.from_fen(" ".join(fields + ["-"] * (4 - len(fields))), validate=False)


def oracle_board(fen: str) -> chess.Board:
    fields = fen.split()
    fields += ["-"] * (4 - len(fields))
    return chess.Board(" ".join(fields[:4]) + " 0 1")


def assert_helpmate(fen: str, color: int, verdict: MateVerdict) -> None:
    """The line of a CAN_MATE verdict is legal and ends with ``color`` giving mate, in both libraries."""
    assert verdict.verdict is CAN
    pos = position(fen)
    board = oracle_board(fen)
    for move in verdict.line:
        pos.push(move)  # IllegalMoveError if chess_core refuses it
        oracle_move = chess.Move(move.from_square, move.to_square, move.promotion)
        assert oracle_move in board.legal_moves, f"{move.uci()} illegal for python-chess in {board.fen()}"
        board.push(oracle_move)
    assert pos.is_checkmate() and pos.turn == color ^ 1, f"{fen}: line does not mate for {color}"
    assert board.is_checkmate() and board.turn == (color == BLACK), f"{fen}: python-chess sees no mate"


def verdicts(fen: str, budget: int = DEFAULT_BUDGET) -> tuple[MateVerdict, MateVerdict]:
    return can_mate(position(fen), WHITE, budget=budget), can_mate(position(fen), BLACK, budget=budget)


# -- material ------------------------------------------------------------------------------------

@pytest.mark.parametrize("fen", [
    "8/8/8/4k3/8/8/8/4K3 w - - 0 1",  # K v K
    "8/8/8/4k3/8/8/8/2B1K3 w - - 0 1",  # KB v K
    "8/8/8/4k3/8/8/8/1N2K3 b - - 0 1",  # KN v K
    "8/8/3b4/4k3/8/8/8/2B1K3 w - - 0 1",  # KB v KB, bishops on dark squares
    "5b2/8/8/4k3/8/8/8/2B1K3 w - - 0 1",  # and both on dark squares, far apart
])
def test_insufficient_material_is_dead(fen):
    white, black = verdicts(fen)
    assert white.verdict is CANNOT and black.verdict is CANNOT
    assert is_dead(position(fen))


@pytest.mark.parametrize("fen, color", [
    ("8/8/8/4k3/8/8/8/1NN1K3 w - - 0 1", WHITE),  # KNN v K: no forced mate, but a helpmate
    ("8/8/2b5/4k3/8/8/8/2B1K3 w - - 0 1", WHITE),  # KB v KB on opposite colours: both can
    ("8/8/2b5/4k3/8/8/8/2B1K3 w - - 0 1", BLACK),
    ("8/8/8/4k3/8/8/4P3/4K3 w - - 0 1", WHITE),  # KP v K: after the promotion
    ("8/8/8/4k3/8/8/8/1B2KN2 b - - 0 1", WHITE),  # bishop and knight
])
def test_helpmate_exists_and_is_verified(fen, color):
    verdict = can_mate(position(fen), color)
    assert_helpmate(fen, color, verdict)
    assert not is_dead(position(fen))


def test_lone_king_and_pawn_side_cannot_be_mated_by_the_bare_king():
    fen = "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1"
    assert can_mate(position(fen), BLACK).verdict is CANNOT


def test_a_lone_knight_never_mates_a_king_whose_only_helpers_are_queens():
    """The material rule behind ``hopeless`` for K+N v K+Q(s), checked on every mating pattern.

    Put the loser's king anywhere, the knight giving check, the winner's king anywhere not next to
    it, and a queen of the loser on every neighbour that neither attacks (the fewest blockers that
    could hold the king in): the loser always has a legal move.
    """
    pos0 = position("8/8/8/8/8/8/8/8 w - - 0 1")
    for k, w in itertools.permutations(range(64), 2):
        if KING_ATTACKS[k] >> w & 1:
            continue
        knights = KNIGHT_ATTACKS[k] & ~(1 << w)
        while knights:
            n = (knights & -knights).bit_length() - 1
            knights &= knights - 1
            covered = KING_ATTACKS[w] | KNIGHT_ATTACKS[n] | 1 << w | 1 << n
            pos = pos0.copy()
            pos.set_piece(k, Piece(KING, BLACK))
            pos.set_piece(w, Piece(KING, WHITE))
            pos.set_piece(n, Piece(KNIGHT, WHITE))
            open_squares = KING_ATTACKS[k] & ~covered
            while open_squares:
                q = (open_squares & -open_squares).bit_length() - 1
                open_squares &= open_squares - 1
                pos.set_piece(q, Piece(QUEEN, BLACK))
            pos.turn = BLACK
            assert not pos.is_checkmate(), pos.fen()
            assert hopeless(pos, WHITE)


# -- blocked positions ---------------------------------------------------------------------------

def test_fully_locked_pawn_chain_with_kings_only_is_dead():
    fen = "4k3/8/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 w - - 0 1"
    assert verdicts(fen)[0].verdict is CANNOT
    assert verdicts(fen)[1].verdict is CANNOT
    assert is_dead(position(fen))


def test_bishops_locked_out_of_the_kings_squares_cannot_mate():
    # Each bishop runs on the squares its own pawns hold: neither can ever cross the chain.
    fen = "2b1k3/8/8/1p1p1p1p/1P1P1P1P/8/8/2B1K3 w - - 0 1"
    assert verdicts(fen)[0].verdict is CANNOT and verdicts(fen)[1].verdict is CANNOT
    assert is_dead(position(fen))


def test_only_one_sides_bishops_are_locked_out():
    # Black's dark bishops never reach White's king; White's bishop and knight can mate Black's.
    fen = "7b/1k5B/7b/8/1p1p1p1p/1PpP1P1P/2P3K1/N7 b - - 0 1"
    white, black = verdicts(fen)
    assert_helpmate(fen, WHITE, white)
    assert black.verdict is CANNOT
    assert not is_dead(position(fen))


def test_rook_that_can_never_pass_its_own_king():
    # White's king and rook share h3-h5 (pawns on the g-file and h2, h6 guarded by g7): the rook
    # never gets past the king, and nothing else of White's moves. Static reach alone would let
    # the rook out; the walk through every position that can follow proves it.
    fen = "2k5/6p1/6P1/6PK/6P1/6PR/7P/8 b - - 0 1"
    white, black = verdicts(fen)
    assert white.verdict is CANNOT and black.verdict is CANNOT
    assert is_dead(position(fen))


def test_a_static_proof_one_move_deep():
    # A position of the CHA vector the static proof cannot settle as it stands but settles after
    # each legal move, for both sides (CHA's analysis one move deep); before, the whole budget went
    # to searches that could not end.
    fen = "8/2b5/kp1p1p2/1PpP1Pp1/K1P3P1/3B4/8/8 b - - 0 1"
    white, black = verdicts(fen, budget=2_000)
    assert white.verdict is CANNOT and black.verdict is CANNOT


@pytest.mark.parametrize("fen", [
    # White's king shuttles h3-h4 behind locked pawns; Black's bishops are all dark. Black's king
    # could walk round to take g2 and free Black's pawns, but only by stalemating White first.
    "8/b1b5/k6p/2b2p1P/1b3p2/5PpK/6P1/8 w - - 0 1",
    "8/8/3b3p/5p1P/3b1p1K/5Pp1/6P1/5kb1 b - - 0 1",
    # Black's king shuttles a5-a6; White's four dark bishops never cover a6, and White's king
    # cannot come next to a6 without leaving Black no move.
    "8/1p2B1B1/1PpB1B2/k1P5/p1P5/P7/5K2/8 w - - 0 1",
])
def test_a_king_caged_on_two_squares_is_proved_dead(fen):
    # From the CHA vector ("--"): before, the plain fixpoint let the free king break the cage, and
    # no search of any budget could go through the bishops' positions.
    white, black = verdicts(fen, budget=2_000)
    assert white.verdict is CANNOT and black.verdict is CANNOT
    assert is_dead(position(fen))


def test_a_caged_king_with_a_move_to_spare_is_no_proof():
    # The same cage, but White's c-pawn can still push: White keeps a tempo move, so Black's king
    # may come next to the cage and a bishop check on h4 mates. The cage argument must not apply.
    from chess_core.dead_static import shuttle_mate_impossible

    fen = "8/b1b5/k6p/2b2p1P/1b3p2/5PpK/2P3P1/8 w - - 0 1"
    assert not shuttle_mate_impossible(position(fen), BLACK)
    assert_helpmate(fen, BLACK, can_mate(position(fen), BLACK))


def test_a_cage_kept_shut_by_the_free_king_itself_is_no_proof():
    # Found by review: Black's king on f4, boxed in by its own pawns and White's, guards g3 and
    # blocks f3; Black's only move, Kg5, opens White's cage, and White mates after promotions.
    # The free king must count as able to move from the start, or the proof rests on its staying.
    from chess_core.dead_static import shuttle_mate_impossible

    fen = "8/8/7p/3p1p1P/3P1k2/4pPpK/4P1P1/8 b - - 0 1"
    assert not shuttle_mate_impossible(position(fen), WHITE)
    assert_helpmate(fen, WHITE, can_mate(position(fen), WHITE))


def _perturbed(fen: str, rng) -> str | None:  # type: ignore[no-untyped-def]
    """``fen`` with one to three random changes: a piece moved, added or taken off; None when
    the result is no legal position."""
    start = position(fen)
    board = {sq: piece for sq in range(64) if (piece := start.piece_at(sq)) is not None}
    for _ in range(rng.randint(1, 3)):
        empty = [sq for sq in range(64) if sq not in board]
        roll = rng.random()
        if roll < 0.5:
            board[rng.choice(empty)] = board.pop(rng.choice(sorted(board)))
        elif roll < 0.8:
            board[rng.choice(empty)] = Piece(rng.choice((1, 2, 3, 4, 5)), rng.choice((WHITE, BLACK)))
        else:
            board.pop(rng.choice([sq for sq in sorted(board) if board[sq].piece_type != KING]))
    pos = Position.empty()
    for sq, piece in board.items():
        pos.set_piece(sq, piece)
    placement = pos.fen().split()[0]
    try:
        return Position.from_fen(f"{placement} {rng.choice('wb')} - - 0 1").fen()
    except ValueError:
        return None


def test_the_cage_proof_never_meets_a_position_with_a_helpmate():
    # The cage positions above, changed at random (seeded): wherever the cage proof says a side
    # cannot mate, a plain helpmate search (no static proof) finds no mate.
    import random

    from chess_core.dead_search import GuidedSearch
    from chess_core.dead_static import shuttle_mate_impossible

    rng = random.Random(25)
    seeds = ["8/b1b5/k6p/2b2p1P/1b3p2/5PpK/6P1/8 w - - 0 1", "8/1p2B1B1/1PpB1B2/k1P5/p1P5/P7/5K2/8 w - - 0 1",
             "8/8/7p/2b2p1P/1bkb1p1K/2b2Pp1/6P1/8 b - - 0 1", "8/8/7p/3p1p1P/3P1k2/4pPpK/4P1P1/8 b - - 0 1"]
    proved = 0
    for _ in range(400):
        fen = _perturbed(rng.choice(seeds), rng)
        if fen is None or not position(fen).legal_codes():
            continue
        for color in (WHITE, BLACK):
            if shuttle_mate_impossible(position(fen), color):
                proved += 1
                assert GuidedSearch(position(fen), color, 20_000).run(1, 1000).line is None, (fen, color)
    assert proved >= 30


@pytest.mark.parametrize("fen, color, can", [
    # The vector's tempo problems: a king that can never move, a few pawn moves to spare, and a
    # helpmate (or none) that turns on counting them. The best-first search settles them within
    # CHA's command-line limit (500,000 nodes), given two thirds of it (a quarter was too little).
    ("8/3p1p1p/8/1p6/1P6/KP6/PP1P1P1P/k7 w - -", BLACK, False),
    ("8/1p1p1p1p/1P6/KP6/PP6/8/3P1P1P/k7 w - -", BLACK, True),
    ("5k2/p1p1p3/8/8/8/6p1/P1P1P1Pp/7K w - -", WHITE, True),
    ("1k6/1P5p/BP1p1p2/1P6/8/8/3P1PKP/8 w - -", BLACK, False),
])
def test_tempo_problems_are_decided_within_chas_command_line_limit(fen, color, can):
    verdict = can_mate(position(fen), color, budget=500_000)
    if can:
        assert_helpmate(fen, color, verdict)
    else:
        assert verdict.verdict is CANNOT


# -- the game hooks ------------------------------------------------------------------------------

def test_flag_fall_against_a_side_that_cannot_mate_is_a_draw():
    fen = "4k3/8/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 w - - 0 1"
    game = Game(fen, can_mate=can_possibly_mate)
    outcome = game.flag(WHITE)
    assert outcome.termination is Termination.TIME_VS_INSUFFICIENT
    assert outcome.winner is None


def test_flag_fall_against_a_side_that_can_helpmate_loses():
    # The lone king's flag falls; two knights cannot force mate but can helpmate: a loss.
    game = Game("8/8/8/4k3/8/8/8/1NN1K3 b - - 0 1", can_mate=can_possibly_mate)
    outcome = game.flag(BLACK)
    assert outcome.termination is Termination.TIME_FORFEIT
    assert outcome.winner == WHITE


def test_flag_fall_of_the_side_with_the_knights_is_a_draw():
    game = Game("8/8/8/4k3/8/8/8/1NN1K3 w - - 0 1", can_mate=can_possibly_mate)
    assert game.flag(WHITE).termination is Termination.TIME_VS_INSUFFICIENT


def test_dead_position_ends_the_game_at_once():
    game = Game("4k3/8/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 b - - 0 1", dead_position=is_dead)
    assert game.outcome is not None and game.outcome.termination is Termination.INSUFFICIENT_MATERIAL


def test_move_into_a_dead_position_ends_the_game():
    # Bishop against knight: each side could still help the other mate. Taking the knight leaves
    # a lone bishop: dead.
    game = Game("8/8/8/4k3/8/8/3n4/4KB2 w - - 0 1", dead_position=is_dead)
    assert game.outcome is None
    game.push_text("Kxd2")
    assert game.outcome is not None and game.outcome.termination is Termination.INSUFFICIENT_MATERIAL


# -- contract ------------------------------------------------------------------------------------

def test_can_mate_leaves_the_position_as_it_was():
    pos = position("8/1p4p1/1Pp3p1/k1P3p1/1pP3Pb/1P4p1/6P1/7K w - - 0 1")
    pos.push(pos.legal_moves()[0])
    before = (pos.fen(), pos.move_stack())
    can_mate(pos, WHITE, budget=2_000)
    can_mate(pos, BLACK, budget=2_000)
    assert (pos.fen(), pos.move_stack()) == before


def test_tiny_budget_answers_undetermined_never_wrong():
    fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    verdict = can_mate(position(fen), WHITE, budget=1)
    assert verdict.verdict in (CAN, UNDETERMINED)
    if verdict.verdict is CAN:
        assert_helpmate(fen, WHITE, verdict)
    assert can_possibly_mate(position(fen), WHITE, budget=1)


def test_budget_bounds_the_time():
    # A position the analysis cannot settle: the search stops with its budget.
    fen = "1k6/1P1p1p1p/BP6/1P5p/8/8/3P1PKP/8 w - - 0 1"
    start = time.perf_counter()
    verdict = can_mate(position(fen), BLACK, budget=2_000)
    assert time.perf_counter() - start < 2.0
    assert verdict.verdict in (CAN, UNDETERMINED)


def test_a_games_next_positions_are_proved_without_a_search(monkeypatch):
    """is_dead searches a position once; the positions that follow by moves that change neither
    pawns nor material are proved from its helpmate (moves played back), with no search."""
    import chess_core.dead as dead
    from chess_core.dead import forget_proofs

    forget_proofs()
    pos = position("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8")
    assert not dead.is_dead(pos)

    def no_search(*args, **kwargs):
        raise AssertionError("is_dead searched a position it could prove from the last")

    monkeypatch.setattr(dead, "_Side", no_search)
    for uci in ("f1d3", "c6b4", "d3b1", "b4c6", "d1c2", "c8d7", "f3g5", "d8e8"):
        pos.push(chess_core_move(uci))
        assert not dead.is_dead(pos)


def chess_core_move(uci: str):  # type: ignore[no-untyped-def]
    from chess_core.move import Move
    return Move.from_uci(uci)


def test_checkmate_and_stalemate_on_the_board():
    mate = "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"
    assert can_mate(position(mate), WHITE) == MateVerdict(CAN)
    assert can_mate(position(mate), BLACK).verdict is CANNOT
    stalemate = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"
    assert verdicts(stalemate)[0].verdict is CANNOT and verdicts(stalemate)[1].verdict is CANNOT
    assert is_dead(position(stalemate))


# -- the CHA test vector -------------------------------------------------------------------------

def _vector() -> list[tuple[str, str]]:
    rows = []
    for line in VECTOR.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        rows.append((line[:2], line[3:].strip()))
    return rows


VECTOR_ROWS = _vector()
DECIDED: dict[int, int] = {}


def test_is_dead_proves_no_dead_position_of_the_vector_alive():
    """Every "not dead" answer of is_dead rests on a helpmate it remembers (or on a budget spent):
    for the vector's dead positions it never holds one."""
    import chess_core.dead as dead
    from chess_core.dead import forget_proofs
    from chess_core.dead_memory import memory_key

    for tag, fen in VECTOR_ROWS[::7]:
        if tag == "--":
            forget_proofs()
            pos = position(fen)
            dead.is_dead(pos, budget=500)
            key = memory_key(pos)
            assert dead._MEMORY.line(key, WHITE) is None and dead._MEMORY.line(key, BLACK) is None, fen


@pytest.mark.slow
@pytest.mark.parametrize("start", range(0, len(VECTOR_ROWS), VECTOR_CHUNK))
def test_vector_no_wrong_verdict_and_every_line_mates(start):
    wrong = []
    decided = 0
    for tag, fen in VECTOR_ROWS[start:start + VECTOR_CHUNK]:
        for color in (WHITE, BLACK):
            expected_can = tag[color] != "-"
            verdict = can_mate(position(fen), color, budget=VECTOR_BUDGET)
            if verdict.verdict is CAN:
                if not expected_can:
                    wrong.append((fen, color, "CAN_MATE"))
                else:
                    assert_helpmate(fen, color, verdict)
                decided += 1
            elif verdict.verdict is CANNOT:
                if expected_can:
                    wrong.append((fen, color, "CANNOT_MATE"))
                decided += 1
    DECIDED[start] = decided
    assert not wrong


@pytest.mark.slow
def test_vector_decided_count():
    if len(DECIDED) * VECTOR_CHUNK < len(VECTOR_ROWS):
        pytest.skip("run with the vector chunks to count decided questions")
    total = sum(DECIDED.values())
    print(f"\nCHA vector: {total} of {2 * len(VECTOR_ROWS)} side-questions decided "
          f"with a budget of {VECTOR_BUDGET} positions")
    # 3,227 when written; deterministic (the budget counts positions, not time), but the order of
    # the moves chess_core generates steers the searches, hence the margin.
    assert total >= 3_150


def test_the_last_helpmate_found_proves_the_next_position_without_a_search():
    # Can the king and two knights still mate? A long search the first time; a move later the
    # rest of the helpmate it found is replayed instead (0 steps), and it is a real mate.
    from chess_core.dead import can_mate_steps, forget_proofs
    forget_proofs()
    fen = "8/8/3nkn2/8/8/8/8/R2QK3 w - - 0 1"
    first = can_mate(Position(fen), BLACK)
    assert first.verdict is Mateability.CAN_MATE and len(first.line) >= 2
    after = Position(fen)
    after.push(first.line[0])
    steps = can_mate_steps(after, BLACK)
    with pytest.raises(StopIteration) as done:
        next(steps)
    verdict = done.value.value
    assert verdict.verdict is Mateability.CAN_MATE and verdict.line == first.line[1:]
    for move in verdict.line:
        after.push(move)
    assert after.is_checkmate() and after.turn == WHITE


def test_every_plain_move_that_gives_check_is_one_the_guided_search_makes_at_its_leaves():
    """The guided search cuts a leaf's plain moves unmade unless _may_check says they may give
    check (only a check can end the line in mate): every plain move that does give check, in
    positions of random games, must be flagged (a superset is fine, a miss would hide a mate)."""
    import random

    from chess_core.dead_search import _check_squares, _may_check

    rng = random.Random(25)
    checked = 0
    for _ in range(60):
        pos = Position()
        for _ply in range(rng.randint(10, 120)):
            codes = pos.legal_codes()
            if not codes:
                break
            winner = pos.turn
            checks = _check_squares(pos, winner)
            for code in codes:
                if code >= 4096:
                    continue
                pos.make(code)
                gives_check = pos.is_check()
                pos.unmake()
                if gives_check:
                    checked += 1
                    assert _may_check(checks, pos.board, code), (pos.fen(), code)
            pos.make(rng.choice(codes))
    assert checked > 300
