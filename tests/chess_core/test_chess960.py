"""Chess960 in chess_core: python-chess's perft files (standard, tricky and 960), castling where the king
and rook stand on or cross each other's squares, Shredder-FEN and X-FEN, start positions by number,
and a differential against python-chess (the test-only oracle, in 960 mode) over random 960 games."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from chess_core import FenError, IllegalMoveError, Move, Position, parse_san, parse_uci, perft, san
from chess_core.chess960 import STANDARD_NUMBER, back_rank, number_of, start_fen, start_position

DATA = Path(__file__).parent / "data"


def read_perft(name: str) -> list[tuple[str, str, dict[int, int]]]:
    """python-chess's perft format (``id``, ``epd``, ``perft DEPTH NODES`` lines) as (id, epd, counts)."""
    entries: list[tuple[str, str, dict[int, int]]] = []
    ident = ""
    for line in (DATA / name).read_text().splitlines():
        line = line.strip()
        if not line or line[0] in "#%":
            continue
        command, argument = line.split(None, 1)
        if command == "id":
            ident = argument
        elif command == "epd":
            entries.append((ident, argument, {}))
        elif command == "perft":
            depth, nodes = map(int, argument.split())
            entries[-1][2][depth] = nodes
    return entries


def run_perft_file(name: str, *, chess960: bool, max_nodes: int, every: int = 1,
                   depths: tuple[int, ...] = (1, 2, 3, 4, 5, 6), bulk: bool = True) -> tuple[int, int, list[str]]:
    """(positions, leaves counted, mismatches) over every ``every``-th position of a perft file, at
    ``depths`` whose published count is at most ``max_nodes``. Positions the FEN checks refuse (the
    tricky file's impossible checks) are read without them, as `echiquier perft --no-validate` does."""
    positions = leaves = 0
    wrong = []
    for ident, epd, counts in read_perft(name)[::every]:
        pos = Position.from_fen(epd, validate=False, chess960=chess960)
        before = pos.fen(shredder=True)
        positions += 1
        for depth, nodes in sorted(counts.items()):
            if depth not in depths or nodes > max_nodes:
                continue
            got = perft(pos, depth, bulk)
            leaves += got
            if got != nodes:
                wrong.append(f"{ident} ({epd}) depth {depth}: {got}, published {nodes}")
        assert pos.fen(shredder=True) == before, f"{ident}: make/unmake changed the position"
    return positions, leaves, wrong


def test_every_position_of_the_960_perft_file_to_depth_2_making_every_leaf():
    positions, leaves, wrong = run_perft_file("chess960.perft", chess960=True, max_nodes=10**9, depths=(1, 2),
                                              bulk=False)
    assert wrong == []
    assert positions == 960 and leaves == 25_943 + 691_397


@pytest.mark.slow
def test_every_position_of_the_960_perft_file_to_depth_3():
    positions, leaves, wrong = run_perft_file("chess960.perft", chess960=True, max_nodes=10**9, depths=(3,))
    assert wrong == []
    assert positions == 960 and leaves == 19_890_658


def test_the_tricky_perft_file_in_960_mode_as_python_chess_runs_it():
    """X-FEN positions with inner rooks, impossible checker alignments (read unchecked), and the
    asymmetrical rights with a king on h8; all depths up to 2.2 million leaves."""
    positions, leaves, wrong = run_perft_file("tricky.perft", chess960=True, max_nodes=2_200_000)
    assert wrong == []
    assert positions == 19 and leaves == 3_379_577


def test_the_tricky_files_standard_positions_in_standard_mode():
    standard = [(i, e, c) for i, e, c in read_perft("tricky.perft") if i.startswith(("pos-", "align", "ep-"))]
    for ident, epd, counts in standard:
        pos = Position.from_fen(epd, validate=False)
        for depth, nodes in counts.items():
            if nodes <= 100_000:
                assert perft(pos, depth) == nodes, ident


def test_the_random_perft_file_in_standard_mode_up_to_a_thousand_leaves():
    positions, leaves, wrong = run_perft_file("random.perft", chess960=False, max_nodes=1000)
    assert wrong == []
    assert positions == 6838 and leaves > 3_000_000


def test_the_random_perft_file_in_960_mode_at_depth_1():
    positions, leaves, wrong = run_perft_file("random.perft", chess960=True, max_nodes=10**9, depths=(1,))
    assert wrong == []
    assert positions == 6838 and leaves == 178_742


@pytest.mark.slow
def test_the_random_perft_file_in_standard_mode_to_depth_2_and_every_tenth_to_depth_3():
    assert run_perft_file("random.perft", chess960=False, max_nodes=10**9, depths=(2,))[1:] == (4_689_446, [])
    positions, leaves, wrong = run_perft_file("random.perft", chess960=False, max_nodes=10**9, every=10,
                                              depths=(3,))
    assert wrong == [] and positions == 684


# -- start positions ---------------------------------------------------------------------------

def test_start_positions_by_number():
    assert back_rank(STANDARD_NUMBER) == "RNBQKBNR"
    assert back_rank(0) == "BBQNNRKR" and back_rank(959) == "RKRNNQBB"
    assert start_fen(518) == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    ranks = {back_rank(n) for n in range(960)}
    assert len(ranks) == 960
    for rank in ranks:
        assert sorted(rank) == sorted("RNBQKBNR")
        light, dark = [f for f, c in enumerate(rank) if c == "B"]
        assert (light + dark) % 2 == 1, "bishops on squares of both colours"
        rooks = [f for f, c in enumerate(rank) if c == "R"]
        assert rooks[0] < rank.index("K") < rooks[1], "the king between its rooks"


def test_start_positions_match_python_chess_numbering():
    chess = pytest.importorskip("chess")
    for number in range(960):
        assert start_fen(number) == chess.Board.from_chess960_pos(number).fen()
        assert number_of(start_position(number)) == number


@pytest.mark.parametrize("bad", [-1, 960, "5", 1.0, True])
def test_a_start_position_number_out_of_range_is_refused(bad):
    with pytest.raises(ValueError, match="0 to 959"):
        back_rank(bad)


def test_number_of_other_positions_is_none():
    pos = start_position(100)
    pos.push(Move.from_uci("b2b3"))
    assert number_of(pos) is None
    assert number_of(Position()) == 518


# -- FEN ---------------------------------------------------------------------------------------

def test_shredder_and_x_fen_in_and_out():
    pos = Position("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", chess960=True)
    assert pos.fen() == "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9"
    assert pos.fen(shredder=True).split()[2] == "HFhf"
    assert Position(pos.fen(), chess960=True).fen(shredder=True) == pos.fen(shredder=True)
    # An inner rook with another further out on the same side: X-FEN names its file.
    inner = Position("r1k1r2q/p1ppp1pp/8/8/8/8/P1PPP1PP/R1K1R2Q w KQkq - 0 1", chess960=True)
    assert inner.castle_rooks == (4, 0, 60, 56)
    two = Position("rk2r3/8/8/8/8/8/8/RK2R2R w Ea - 0 1", chess960=True)
    assert two.fen().split()[2] == "Eq" and two.fen(shredder=True).split()[2] == "Ea"


def test_fen_output_matches_python_chess_on_the_960_perft_positions():
    chess = pytest.importorskip("chess")
    for _ident, epd, _counts in read_perft("chess960.perft"):
        board = chess.Board(epd + " 0 1", chess960=True)
        pos = Position(epd + " 0 1", chess960=True)
        assert pos.fen() == board.fen()
        assert pos.fen(shredder=True) == board.fen(shredder=True)


def test_standard_mode_reads_shredder_letters_of_the_corner_rooks():
    assert Position("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1").fen() == \
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


@pytest.mark.parametrize("fen, chess960, words", [
    ("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", False,
     "'F' in 'HFhf' names a rook off the corner: Chess960 castling (choose the chess960 variant)"),
    ("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9", False,
     "needs the king on e1 and a rook on h1 (a Chess960 position? choose the chess960 variant)"),
    ("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HEhf - 2 9", True,
     "castling right 'E' needs a white rook on e1"),
    ("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1PKPP/BQ1BNR1R w HFhf - 2 9", True,
     "castling right 'H' needs the white king on its first rank"),
    ("rk2r3/8/8/8/8/8/8/RK2R2R w HE - 0 1", True, "two castling rights on the same side of the white king"),
    ("rk2r3/8/8/8/8/8/8/RK2R2R w HH - 0 1", True, "castling letter 'H' repeated"),
    ("rk2r3/8/8/8/8/8/8/RK2R2R w X - 0 1", True, "unexpected castling letter 'X'"),
])
def test_bad_castling_rights_are_named(fen, chess960, words):
    with pytest.raises(FenError) as info:
        Position(fen, chess960=chess960)
    assert words in str(info.value)


def test_unchecked_reading_drops_rights_as_python_chess_does():
    pos = Position.from_fen("rk2r3/8/8/8/8/8/8/RK2R2R w HEa - 0 1", validate=False, chess960=True)
    assert pos.fen(shredder=True).split()[2] == "Ha"


# -- castling ----------------------------------------------------------------------------------

def _after(fen: str, uci: str) -> str:
    pos = Position(fen, chess960=True)
    move = parse_uci(pos, uci)
    assert pos.is_castling(move) and not pos.is_capture(move)
    text = san(pos, move)
    assert parse_san(pos, text) == move
    pos.push(move)
    after = pos.fen(shredder=True)
    assert pos.pop() == move and pos.fen(shredder=True) == Position(fen, chess960=True).fen(shredder=True)
    return f"{text} {after}"


@pytest.mark.parametrize("fen, uci, expected", [
    # King and rook swap squares.
    ("4k3/8/8/8/8/8/8/5KR1 w G - 0 1", "f1g1", "O-O 4k3/8/8/8/8/8/8/5RK1 b - - 1 1"),
    # The king stays, the rook moves.
    ("4k3/8/8/8/8/8/8/6KR w H - 0 1", "g1h1", "O-O 4k3/8/8/8/8/8/8/5RK1 b - - 1 1"),
    ("4k3/8/8/8/8/8/8/1RK5 w B - 0 1", "c1b1", "O-O-O 4k3/8/8/8/8/8/8/2KR4 b - - 1 1"),
    # The rook stays, the king crosses it.
    ("4k3/8/8/8/8/8/8/4KR2 w F - 0 1", "e1f1", "O-O 4k3/8/8/8/8/8/8/5RK1 b - - 1 1"),
    ("4k3/8/8/8/8/8/8/R2K4 w A - 0 1", "d1a1", "O-O-O 4k3/8/8/8/8/8/8/2KR4 b - - 1 1"),
    # The king crosses the rook's square and the rook the king's.
    ("4k3/8/8/8/8/8/8/RK6 w A - 0 1", "b1a1", "O-O-O 4k3/8/8/8/8/8/8/2KR4 b - - 1 1"),
    ("1r2k3/8/8/8/8/8/8/4K3 b b - 0 1", "e8b8", "O-O-O 2kr4/8/8/8/8/8/8/4K3 w - - 1 2"),
    # The usual start, king takes rook.
    ("r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1", "e1h1", "O-O r3k2r/8/8/8/8/8/8/R4RK1 b ha - 1 1"),
])
def test_castling_where_king_and_rook_meet(fen, uci, expected):
    assert _after(fen, uci) == expected


@pytest.mark.parametrize("fen, uci, why", [
    ("4k3/8/8/8/8/8/8/5KRr w G - 0 1", "f1g1", "h1: the rook's destination f1 is free but g1 is attacked"),
    ("4k3/8/8/8/8/8/8/1rRK4 w C - 0 1", "d1c1", "b1: the king would stand attacked on c1"),
    ("4k3/8/8/8/8/8/8/RN1K4 w A - 0 1", "d1a1", "a knight on b1 between the rook and its square"),
    ("4k3/8/8/8/8/8/8/R2KB3 w A - 0 1", "d1a1", "not blocked: legal"),
    ("3rk3/8/8/8/8/8/8/R1K5 w A - 0 1", "c1a1", "d1, the rook's destination, is attacked: legal"),
    ("4k3/8/8/8/8/8/8/RK1r4 w A - 0 1", "b1a1", "a black rook on d1, the rook's destination"),
    ("4k3/8/8/8/5b2/8/8/RK6 w A - 0 1", "b1a1", "c1 attacked by the bishop"),
    ("4k3/8/8/8/8/8/8/rRK5 w B - 0 1", "c1b1", "the rook on b1 shields c1 from a1 until it moves to d1"),
])
def test_castling_legality_against_python_chess(fen, uci, why):
    chess = pytest.importorskip("chess")
    board = chess.Board(fen, chess960=True)
    pos = Position(fen, chess960=True)
    assert pos.is_legal(Move.from_uci(uci)) == board.is_legal(chess.Move.from_uci(uci)), why
    assert sorted(m.uci() for m in pos.legal_moves()) == sorted(m.uci() for m in board.legal_moves)


def test_in_960_mode_the_king_two_squares_is_not_castling():
    pos = Position("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", chess960=True)
    with pytest.raises(IllegalMoveError):
        pos.push(Move.from_uci("e1g1"))
    assert "e1h1" in [m.uci() for m in pos.legal_moves()]
    with pytest.raises(IllegalMoveError):
        parse_san(pos, "Kh1")  # castling is written O-O
    assert parse_san(pos, "O-O") == Move.from_uci("e1h1")


def test_a_rook_move_or_capture_drops_that_right_only():
    pos = Position("1r2k1r1/8/8/8/8/8/8/1R2K1R1 w GBgb - 0 1", chess960=True)
    pos.push(Move.from_uci("g1g8"))
    assert pos.fen(shredder=True).split()[2] == "Bb"
    pos.push(Move.from_uci("e8d7"))
    assert pos.fen(shredder=True).split()[2] == "B"


# -- differential ------------------------------------------------------------------------------

def play_random_960_games(games: int, seed: int) -> dict[str, int]:
    """Random 960 games from random start positions (castling chosen often when legal), each ply
    compared with python-chess: legal moves in UCI, X-FEN and Shredder-FEN, SAN both ways, check."""
    chess = pytest.importorskip("chess")
    rng = random.Random(seed)
    seen = {"games": 0, "plies": 0, "castling": 0, "castling, king on rook's square": 0}
    for _ in range(games):
        number = rng.randrange(960)
        board = chess.Board.from_chess960_pos(number)
        pos = start_position(number)
        for _ply in range(rng.randrange(20, 160)):
            ours = sorted(m.uci() for m in pos.legal_moves())
            theirs = sorted(m.uci() for m in board.legal_moves)
            assert ours == theirs, board.fen()
            assert pos.fen() == board.fen() and pos.fen(shredder=True) == board.fen(shredder=True)
            assert pos.is_check() == board.is_check()
            if not theirs:
                break
            castles = [m for m in board.legal_moves if board.is_castling(m)]
            move = rng.choice(castles) if castles and rng.random() < 0.6 else rng.choice(list(board.legal_moves))
            ours_move = Move.from_uci(move.uci())
            text = san(pos, ours_move)
            assert text == board.san(move), board.fen()
            assert parse_san(pos, text) == ours_move
            if board.is_castling(move):
                seen["castling"] += 1
                kto = (6 if board.is_kingside_castling(move) else 2) + (move.from_square & 56)
                seen["castling, king on rook's square"] += kto == move.to_square
            pos.push(ours_move)
            board.push(move)
            seen["plies"] += 1
        seen["games"] += 1
    return seen


def test_differential_over_random_960_games_quick():
    seen = play_random_960_games(60, seed=960)
    assert seen["games"] == 60 and seen["castling"] > 30


@pytest.mark.slow
def test_differential_over_2000_random_960_games():
    seen = play_random_960_games(2000, seed=20260601)
    assert seen["games"] == 2000 and seen["castling"] > 1000 and seen["castling, king on rook's square"] > 10
