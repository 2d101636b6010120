"""chess_core.dead_memory: a proof carried from one position of a game to the next is a real helpmate every time.

Each way the memory proves a position (on a remembered line, two moves taken back, one move
taken back with a tempo, the rest of the last line, after a dead position) is shown on a small
case, and every line it gives is played with python-chess (the test-only oracle) to the mate.
Then whole games: after every move, as a game asks, every "alive" answer of is_dead must come
with a helpmate the oracle plays out, and every "dead" answer must survive a cold analysis.
"""
from __future__ import annotations

import random
from pathlib import Path

import chess
import chess.pgn
import pytest

import chess_core.dead as dead
from chess_core.dead import Mateability, can_mate, forget_proofs, is_dead
from chess_core.dead_memory import Memory, memory_key, mates
from chess_core.move import Move, decode
from chess_core.piece import Piece
from chess_core.position import Position
from chess_core.squares import BLACK, KNIGHT, WHITE

DATA = Path(__file__).parent / "data"
LONG_GAMES = DATA / "stockfish-long.pgn"


def oracle_mates(pos: Position, color: int, line: tuple[int, ...]) -> bool:
    """Whether python-chess plays ``line`` (internal codes) from ``pos`` to ``color``'s checkmate."""
    board = chess.Board(pos.fen(), chess960=pos.chess960)
    for code in line:
        move = decode(code)
        oracle = chess.Move(move.from_square, move.to_square, move.promotion)
        if oracle not in board.legal_moves:
            return False
        board.push(oracle)
    return board.is_checkmate() and board.turn == (color == BLACK)


def played(fen: str, *ucis: str) -> Position:
    pos = Position(fen)
    for uci in ucis:
        pos.push(Move.from_uci(uci))
    return pos


# A king, rook and knight against a bare king: White mates in the corner (a helpmate of 5 moves).
CORNER = "7k/8/8/8/8/8/1N6/R3K3 w - - 0 1"


def corner_line() -> tuple[int, ...]:
    pos = Position(CORNER)
    verdict = can_mate(pos, WHITE)
    assert verdict.verdict is Mateability.CAN_MATE
    forget_proofs()
    return _codes(pos, verdict.line)


def _codes(pos: Position, moves: tuple[Move, ...]) -> tuple[int, ...]:
    work = pos.copy()
    codes = []
    for move in moves:
        code = work.code_of(move)
        work.make(code)
        codes.append(code)
    return tuple(codes)


@pytest.fixture(autouse=True)
def cold():
    forget_proofs()
    yield
    forget_proofs()


def test_a_position_along_a_remembered_line_is_proved_by_the_rest_of_it():
    memory = Memory()
    pos = Position(CORNER)
    line = corner_line()
    memory.remember_line(pos, WHITE, line)
    for move in line[:3]:
        pos.make(move)
    proved = memory.prove(pos, (WHITE, BLACK))
    assert proved is not None and proved[0] == WHITE
    assert proved[1].line() == line[3:]
    assert oracle_mates(pos, WHITE, proved[1].line())


def test_two_moves_later_each_side_takes_its_move_back():
    memory = Memory()
    start = Position(CORNER)
    line = corner_line()
    memory.remember_line(start, WHITE, line)
    pos = played(CORNER, "b2d3", "h8g8")  # neither on the line
    proved = memory.prove(pos, (WHITE,))
    assert proved is not None
    proof_line = proved[1].line()
    assert [decode(c).uci() for c in proof_line[:2]] == ["d3b2", "g8h8"]
    assert proof_line[2:] == line
    assert oracle_mates(pos, WHITE, proof_line)


def test_one_move_later_a_tempo_lets_the_mover_take_its_move_back():
    memory = Memory()
    line = corner_line()
    memory.remember_line(Position(CORNER), WHITE, line)
    pos = played(CORNER, "b2d3")
    proved = memory.prove(pos, (WHITE,))
    assert proved is not None
    tempo, back, tempo_back = (decode(c) for c in proved[1].line()[:3])
    assert back.uci() == "d3b2" and (tempo.to_square, tempo.from_square) == (tempo_back.from_square, tempo_back.to_square)
    assert oracle_mates(pos, WHITE, proved[1].line())


def test_chained_returns_share_their_tail_and_still_mate():
    memory = Memory()
    memory.remember_line(Position(CORNER), WHITE, corner_line())
    pos = Position(CORNER)
    for uci in ("b2d3", "h8g8", "d3f4", "g8h8", "f4d5", "h8g8", "a1a2"):
        pos.push(Move.from_uci(uci))
        proved = memory.prove(pos, (WHITE,))
        assert proved is not None, pos.fen()
        assert oracle_mates(pos, WHITE, proved[1].line())


def test_after_a_pawn_move_the_rest_of_the_last_line_is_tried_and_checked():
    # The line starts with a king move the game does not play; a pawn move far away stands in.
    fen = "7k/8/8/8/8/P7/1N6/R3K3 w - - 0 1"
    memory = Memory()
    pos = Position(fen)
    line = _codes(pos, can_mate(pos, WHITE).line)
    memory.remember_line(pos, WHITE, line)
    after = played(fen, "a3a4")
    proved = memory.prove(after, (WHITE,))
    if proved is not None:  # whatever it found, it mates
        assert oracle_mates(after, WHITE, proved[1].line())
    # A line that no longer mates is never given: a rook taken off the board leaves no proof.
    broken = played(fen, "a3a4")
    broken.set_piece(0, None)
    broken._stack = after._stack[:]
    assert memory.prove(broken, (WHITE,)) is None or oracle_mates(broken, WHITE, memory.prove(broken, (WHITE,))[1].line())


def test_a_position_after_one_that_cannot_mate_cannot_mate_either():
    memory = Memory()
    locked = "4k3/8/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 w - - 0 1"
    before = Position(locked)
    for color in (WHITE, BLACK):
        memory.remember_cannot(memory_key(before), color)
    after = played(locked, "e1d2")
    assert memory.dead_before(after, (WHITE, BLACK))


def test_a_move_that_was_not_legal_one_move_back_proves_nothing():
    """dead_before trusts the undo stack only when its last move was legal from the position before
    (a board edited after the move would otherwise borrow the verdict of a position it never came from)."""
    memory = Memory()
    fen = "4k3/8/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/R3K3 w - - 0 1"
    after = played(fen, "a1c1")
    after.set_piece(1, Piece(KNIGHT, WHITE))  # on b1: the rook could not have passed
    before = after.copy(stack=True)
    before.unmake()
    assert not before.is_legal(Move.from_uci("a1c1"))
    for color in (WHITE, BLACK):
        memory.remember_cannot(memory_key(before), color)
    assert not memory.dead_before(after, (WHITE, BLACK))
    # The same without the edit: the verdict carries.
    plain = played(fen, "a1c1")
    before = Position(fen)
    for color in (WHITE, BLACK):
        memory.remember_cannot(memory_key(before), color)
    assert memory.dead_before(plain, (WHITE, BLACK))


def test_an_undo_stack_that_does_not_lead_back_to_the_position_lends_it_nothing():
    """A position whose rights were edited after its last move: the move from the position before
    gives other rights, so that position's verdict is not this one's (and the position is left as
    it was)."""
    memory = Memory()
    fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
    for color in (WHITE, BLACK):
        memory.remember_cannot(memory_key(Position(fen)), color)
    consistent = played(fen, "e1e2")
    assert memory.dead_before(consistent, (WHITE, BLACK))
    edited = played(fen, "e1e2")
    edited.castling |= 1  # White's king-side right back, as no move could give it
    before = (edited.fen(), memory_key(edited))
    assert not memory.dead_before(edited, (WHITE, BLACK))
    assert memory.prove(edited, (WHITE, BLACK)) is None
    assert (edited.fen(), memory_key(edited)) == before


def test_chess960_castling_rights_of_other_rooks_are_other_positions():
    a = Position("1r2k1r1/8/8/8/8/8/8/1R2K1R1 w GBgb - 0 1", chess960=True)
    b = a.copy()
    b.castle_rooks = (6, 1, 62, 57)
    c = a.copy()
    c.castle_rooks = (7, 1, 62, 57)  # the same placement, the rights held by other (absent) rooks
    assert memory_key(a) == memory_key(b)
    assert memory_key(a) != memory_key(c)


def test_mates_checks_every_move_and_the_mate():
    pos = Position(CORNER)
    line = corner_line()
    assert mates(pos, WHITE, line)
    assert not mates(pos, WHITE, line[:-1])
    assert not mates(pos, BLACK, line)
    assert pos.fen() == Position(CORNER).fen()


# -- whole games ---------------------------------------------------------------------------------

def _stockfish_games() -> list[list[str]]:
    games = []
    with LONG_GAMES.open() as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            games.append([m.uci() for m in game.mainline_moves()])
    return games


def _random_game(seed: int, chess960: bool = False, plies: int = 160) -> tuple[str, list[str]]:
    rng = random.Random(seed)
    board = chess.Board.from_chess960_pos(rng.randrange(960)) if chess960 else chess.Board()
    start = board.fen()
    moves = []
    while len(moves) < plies and not board.is_game_over():
        legal = list(board.legal_moves)
        # Captures first more often than not: the games reach endgames, where proofs are hard.
        captures = [m for m in legal if board.is_capture(m)]
        move = rng.choice(captures if captures and rng.random() < 0.7 else legal)
        moves.append(move.uci())
        board.push(move)
    return start, moves


def _judge_game(start: str, moves: list[str], chess960: bool = False) -> dict[str, int]:
    """is_dead after every move, as a game asks it; every answer checked; counts by kind."""
    counts = {"alive": 0, "dead": 0, "searched": 0, "undetermined": 0}
    searches = []
    original = dead._Side.__init__

    def counting(self, *args):  # type: ignore[no-untyped-def]
        searches.append(1)
        original(self, *args)

    dead._Side.__init__ = counting
    try:
        pos = Position(start, chess960=chess960)
        for uci in moves:
            pos.push(Move.from_uci(uci))
            if pos.is_checkmate() or pos.is_stalemate():
                break
            before = len(searches)
            verdict = is_dead(pos)
            counts["searched"] += len(searches) > before
            if verdict:
                counts["dead"] += 1
                check = pos.copy()
                forget_proofs()
                for color in (WHITE, BLACK):
                    assert can_mate(check, color, budget=20_000).verdict is not Mateability.CAN_MATE, pos.fen()
                break
            key = memory_key(pos)
            known = [(c, dead._MEMORY.line(key, c)) for c in (WHITE, BLACK)]
            known = [(c, line) for c, line in known if line is not None]
            if not known:
                # Not dead, not proved alive: the budget ran out. A longer cold analysis must not
                # prove it dead (is_dead would have missed a dead position).
                counts["undetermined"] += 1
                check = pos.copy()
                forget_proofs()
                verdicts = [can_mate(check, color, budget=50_000).verdict for color in (WHITE, BLACK)]
                assert verdicts != [Mateability.CANNOT_MATE] * 2, pos.fen()
                continue
            counts["alive"] += 1
            color, line = known[0]
            assert oracle_mates(pos, color, line), pos.fen()
    finally:
        dead._Side.__init__ = original
    return counts


def test_every_answer_after_every_move_of_long_stockfish_games_is_proved():
    total = {"alive": 0, "dead": 0, "searched": 0, "undetermined": 0}
    for moves in _stockfish_games():
        forget_proofs()
        for key, value in _judge_game(chess.STARTING_FEN, moves).items():
            total[key] += value
    assert total["alive"] > 900 and total["dead"] == 2  # the first game ends in stalemate
    # Proofs carry from move to move: only the moves that change pawns or material need a search,
    # and not even all of those (there are 177 such moves in these games).
    assert total["searched"] <= 200 and total["undetermined"] == 0, total


@pytest.mark.parametrize("seed", range(6))
def test_every_answer_after_every_move_of_random_games_is_proved(seed):
    forget_proofs()
    start, moves = _random_game(seed)
    counts = _judge_game(start, moves)
    assert counts["alive"] + counts["dead"] > 0 and counts["undetermined"] <= 4, counts


@pytest.mark.parametrize("seed", range(4))
def test_every_answer_after_every_move_of_chess960_games_is_proved(seed):
    forget_proofs()
    start, moves = _random_game(100 + seed, chess960=True)
    counts = _judge_game(start, moves, chess960=True)
    assert counts["alive"] + counts["dead"] > 0 and counts["undetermined"] <= 4, counts


def test_the_chess960_perft_positions_are_alive_and_each_helpmate_mates():
    """The 960 positions of the Chess960 perft suite (castling rights with the rooks they belong
    to, all of them): none is dead, and the helpmate behind each answer mates in python-chess."""
    epds = [line.split(None, 1)[1] for line in (DATA / "chess960.perft").read_text().splitlines()
            if line.startswith("epd ")]
    assert len(epds) == 960
    for epd in epds:
        forget_proofs()
        pos = Position(epd + " 0 1", chess960=True)
        assert not is_dead(pos), epd
        key = memory_key(pos)
        known = [(c, dead._MEMORY.line(key, c)) for c in (WHITE, BLACK)]
        color, line = next((c, line) for c, line in known if line is not None)
        assert oracle_mates(pos, color, line), epd


def test_is_dead_leaves_nothing_for_the_collector():
    """A judgement's searches are freed as soon as it ends: no reference cycle keeps their sets
    and lists (thousands of objects) for the collector's next full pass, a pause of several ms
    here (the two sides' searches used to hold each other)."""
    import gc

    fens = ["bb1qnrkr/pp1p1pp1/1np1p3/4N2p/8/1P4P1/P1PPPP1P/BBNQ1RKR w HFhf - 0 1",
            "8/8/1nK5/8/3b2k1/8/8/8 w - - 0 106", "2b1k3/8/8/1p1p1p1p/1P1P1P1P/8/8/2B1K3 w - - 0 1"]
    gc.collect()
    gc.disable()
    try:
        for fen in fens:
            is_dead(Position(fen, chess960="HF" in fen))
        assert gc.collect() == 0
    finally:
        gc.enable()
