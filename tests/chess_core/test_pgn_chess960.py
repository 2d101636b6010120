"""Chess960 games in PGN: Variant "Chess960" with SetUp/FEN written and read, castling as O-O/O-O-O, and
python-chess (the test-only oracle) reading what we write and we reading what it writes."""
from __future__ import annotations

import io
import random

import pytest

from chess_core import Game, Move, read_game, write_pgn
from chess_core.chess960 import start_fen

chess = pytest.importorskip("chess")
import chess.pgn  # noqa: E402


def _random_960_game(seed: int, plies: int = 60) -> Game:
    rng = random.Random(seed)
    game = Game(start_fen(rng.randrange(960)), chess960=True)
    for _ in range(plies):
        moves = game.position.legal_moves()
        if not moves or game.is_over:
            break
        castles = [m for m in moves if game.position.is_castling(m)]
        game.push(rng.choice(castles) if castles and rng.random() < 0.7 else rng.choice(moves))
    return game


def test_a_960_game_writes_its_variant_and_start_position():
    game = Game(start_fen(518), chess960=True)  # even the usual start position is named
    for uci in ("e2e4", "e7e5", "g1f3", "g8f6", "f1c4", "f8c5", "e1h1"):
        game.push(Move.from_uci(uci))
    text = write_pgn(game)
    assert '[Variant "Chess960"]' in text and '[SetUp "1"]' in text
    assert '[FEN "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"]' in text
    assert "4. O-O *" in text
    again = read_game(text).game
    assert again.chess960 and [m.uci() for m in again.moves][-1] == "e1h1"


def test_a_standard_game_names_no_variant():
    game = Game()
    game.push(Move.from_uci("e2e4"))
    assert "Variant" not in write_pgn(game) and not read_game(write_pgn(game)).game.chess960


def test_random_960_games_round_trip_through_python_chess():
    castled = 0
    for seed in range(40):
        game = _random_960_game(seed)
        castled += write_pgn(game).count("O-O")
        text = write_pgn(game)
        theirs = chess.pgn.read_game(io.StringIO(text))
        assert theirs.board().chess960 and not theirs.errors
        assert [m.uci() for m in theirs.mainline_moves()] == [m.uci() for m in game.moves]
        # And back: python-chess's export read by us.
        exported = str(theirs)
        ours = read_game(exported)
        assert ours.game.chess960 and ours.game.moves == game.moves
        assert ours.game.fen() == theirs.end().board().fen()
    assert castled >= 40


def test_lichess_style_960_export_is_read():
    text = """[Event "Casual Chess960 game"]
[Site "https://lichess.org/abcdefgh"]
[White "a"]
[Black "b"]
[Result "*"]
[Variant "Chess960"]
[FEN "bbqrnkrn/pppppppp/8/8/8/8/PPPPPPPP/BBQRNKRN w KQkq - 0 1"]
[SetUp "1"]

1. Ng3 Ng6 2. Nf3 Nf6 3. O-O O-O *
"""
    pg = read_game(text)
    assert pg.game.chess960
    assert [m.uci() for m in pg.game.moves][-2:] == ["f1g1", "f8g8"]
    board = chess.Board("bbqrnkrn/pppppppp/8/8/8/8/PPPPPPPP/BBQRNKRN w KQkq - 0 1", chess960=True)
    for san in ("Ng3", "Ng6", "Nf3", "Nf6", "O-O", "O-O"):
        board.push_san(san)
    assert board.fen() == pg.game.fen()


def test_a_960_position_without_the_variant_tag_loses_its_rights_with_a_warning_naming_chess960():
    """As python-chess reads it (standard rules); the warning says what was probably meant."""
    text = '[FEN "bbqrnkrn/pppppppp/8/8/8/8/PPPPPPPP/BBQRNKRN w KQkq - 0 1"]\n[SetUp "1"]\n\n1. e4 *\n'
    pg = read_game(text)
    assert not pg.game.chess960 and pg.game.start_fen.split()[2] == "-"
    assert pg.warnings and all("choose the chess960 variant" in w for w in pg.warnings)
