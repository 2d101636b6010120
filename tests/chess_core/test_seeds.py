"""The examples of the rules-core issue, one named test each."""
from __future__ import annotations

import pytest

from chess_core import (BLACK, PAWN, WHITE, AmbiguousMoveError, FenError, Game, Move, Outcome, Position,
                        Termination, detect_language, parse_san, san)


def uci(text: str) -> Move:
    return Move.from_uci(text)


def test_shepherds_mate_read_in_french_letters_ends_in_mate():
    text = "1. e4 e5 2. Fc4 Cc6 3. Dh5 Cf6 4. Dxf7#"
    tokens = [t for t in text.split() if not t.endswith(".")]
    assert detect_language(tokens) == "fr"
    game = Game()
    for token in tokens:
        game.push_text(token, "fr")
    assert game.outcome == Outcome(Termination.CHECKMATE, WHITE)
    assert game.outcome.result() == "1-0"
    assert game.san_moves("fr") == tokens
    assert game.san_moves() == ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"]


def test_en_passant_example_e2e4_beside_d4_black_takes_on_e3():
    pos = Position("4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1")
    pos.push(uci("e2e4"))
    assert pos.fen() == "4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1"
    move = parse_san(pos, "dxe3")
    assert move == uci("d4e3") and pos.is_en_passant(move)
    pos.push(move)
    assert pos.piece_at(28) is None  # e4 empties
    assert pos.piece_at(20).piece_type == PAWN and pos.piece_at(20).color == BLACK
    assert pos.fen() == "4k3/8/8/8/8/4p3/8/4K3 w - - 0 2"


def test_castling_through_an_attacked_square_is_refused():
    pos = Position("r3kr2/8/8/8/8/8/8/R3K2R w KQq - 0 1")  # the f8 rook sees f1
    assert not pos.is_legal(uci("e1g1"))
    with pytest.raises(ValueError):
        parse_san(pos, "O-O")


def test_queenside_castling_with_b1_attacked_is_allowed():
    pos = Position("1r2k3/8/8/8/8/8/8/R3K2R w KQ - 0 1")
    assert pos.is_attacked_by(BLACK, 1)
    assert parse_san(pos, "O-O-O") == uci("e1c1")


def test_queenside_castling_with_the_a1_rook_attacked_is_allowed():
    pos = Position("4k3/r7/8/8/8/8/8/R3K2R w KQ - 0 1")
    assert pos.is_attacked_by(BLACK, 0)
    assert parse_san(pos, "O-O-O") == uci("e1c1")


def test_en_passant_refused_when_the_pawn_is_pinned():
    pos = Position("4k2b/8/8/3pP3/8/8/8/K7 w - d6 0 2")  # the h8 bishop pins e5 to a1
    assert not pos.is_legal(uci("e5d6"))
    assert pos.fen().split()[3] == "-"


def test_en_passant_refused_when_it_would_uncover_a_rank_check():
    pos = Position("8/8/8/8/k2pP2Q/8/8/K7 b - e3 0 1")
    assert not pos.is_legal(uci("d4e3"))


@pytest.mark.parametrize("fen, words", [
    ("4k3/8/8/8/8/8/8/3KK3 w - - 0 1", "white must have exactly one king, found 2"),
    ("4k3/8/8/8/8/8/8/P3K3 w - - 0 1", "a pawn stands on the first or last rank (a1)"),
    ("4k3/8/8/8/8/8/8/4K3 w K - 0 1", "castling right 'K' needs the king on e1 and a rook on h1"),
    ("4k3/8/8/8/4p3/8/8/4K3 b - d3 0 1", "en passant square d3 cannot be"),
    ("4k3/8/8/8/8/8/8/4RK2 w - - 0 1", "the side not to move (black) is in check"),
], ids=["two white kings", "pawn on the first rank", "impossible castling right",
        "impossible en passant square", "side not to move in check"])
def test_fen_validation_names_the_problem(fen, words):
    with pytest.raises(FenError, match=words.replace("(", r"\(").replace(")", r"\)")):
        Position(fen)


def test_ambiguous_san_with_two_knights_raises():
    with pytest.raises(AmbiguousMoveError):
        parse_san(Position("4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1"), "Nd2")


@pytest.mark.parametrize("fen, text, move", [
    ("3r4/4P3/8/8/7k/8/8/4K3 w - - 0 1", "e8Q", "e7e8q"),
    ("3r4/4P3/8/8/7k/8/8/4K3 w - - 0 1", "e8=Q", "e7e8q"),
    ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "0-0", "e1g1"),
    ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "0-0-0", "e1c1"),
    ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2", "exd6 e.p.", "e5d6"),
])
def test_san_input_as_players_write_it(fen, text, move):
    assert parse_san(Position(fen), text) == uci(move)


def test_san_output_english_and_french():
    pos = Position("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4")
    assert san(pos, uci("h5f7")) == "Qxf7#"
    assert san(pos, uci("h5f7"), "fr") == "Dxf7#"


KNIGHT_DANCE = ["g1f3", "g8f6", "f3g1", "f6g8"]


def test_threefold_claim_with_the_move():
    game = Game()
    for text in KNIGHT_DANCE + KNIGHT_DANCE[:3]:  # the start position has stood twice
        game.push(uci(text))
    assert game.claimable_draws() == []
    assert game.claimable_draws(uci("f6g8")) == [Termination.THREEFOLD_REPETITION]
    assert game.claim_draw(uci("f6g8")) == Outcome(Termination.THREEFOLD_REPETITION)


def test_fifty_move_claim():
    game = Game("8/8/3k4/8/8/3K4/2R5/5r2 w - - 99 120")
    assert game.claimable_draws() == []
    assert game.claimable_draws(uci("c2c3")) == [Termination.FIFTY_MOVES]
    game.push(uci("c2c3"))
    assert not game.is_over
    assert game.claim_draw() == Outcome(Termination.FIFTY_MOVES)


def test_fivefold_repetition_is_automatic_in_fide():
    game = Game(rules="fide")
    for text in KNIGHT_DANCE * 4:
        assert not game.is_over
        game.push(uci(text))
    assert game.outcome == Outcome(Termination.FIVEFOLD_REPETITION)


def test_seventy_five_move_rule_is_automatic_in_fide():
    game = Game("8/8/3k4/8/8/3K4/2R5/5r2 w - - 149 120", rules="fide")
    game.push(uci("c2c3"))
    assert game.outcome == Outcome(Termination.SEVENTYFIVE_MOVES)


def test_threefold_repetition_is_automatic_in_casual():
    game = Game(rules="casual")
    for text in KNIGHT_DANCE * 2:
        game.push(uci(text))
    assert game.outcome == Outcome(Termination.THREEFOLD_REPETITION)


def test_fifty_move_rule_is_automatic_in_casual():
    game = Game("8/8/3k4/8/8/3K4/2R5/5r2 w - - 99 120", rules="casual")
    game.push(uci("c2c3"))
    assert game.outcome == Outcome(Termination.FIFTY_MOVES)


@pytest.mark.parametrize("rules, clock", [("casual", 99), ("fide", 149)])
def test_mate_on_the_hundredth_half_move_beats_the_fifty_and_seventy_five_move_rules(rules, clock):
    game = Game(f"6k1/5ppp/8/8/8/8/8/R5K1 w - - {clock} 80", rules=rules)
    game.push(uci("a1a8"))
    assert game.position.halfmove_clock == clock + 1
    assert game.outcome == Outcome(Termination.CHECKMATE, WHITE)
