"""Game state and outcome: history, repetition, the draw rules and claims, the two rule profiles."""
from __future__ import annotations

import pytest

from chess_core import (WHITE, BLACK, DrawClaimError, Game, GameOverError, IllegalMoveError, Move, Outcome,
                        Position, Termination, material_can_mate)

KNIGHT_DANCE = ["g1f3", "g8f6", "f3g1", "f6g8"]  # back to the initial position after four plies
QUIET_ROOKS = "8/8/3k4/8/8/3K4/2R5/5r2 w - - {clock} 120"


def play(game: Game, *ucis: str) -> None:
    for text in ucis:
        game.push(Move.from_uci(text))


def uci(text: str) -> Move:
    return Move.from_uci(text)


# -- history ---------------------------------------------------------------------------------

def test_history_san_and_pop():
    game = Game()
    for text in ("e4", "e5", "Fc4", "Cc6"):
        game.push_text(text)
    assert [m.uci() for m in game.moves] == ["e2e4", "e7e5", "f1c4", "b8c6"]
    assert game.san_moves() == ["e4", "e5", "Bc4", "Nc6"]
    assert game.san_moves("fr") == ["e4", "e5", "Fc4", "Cc6"]
    assert game.pop() == uci("b8c6")
    assert game.turn == BLACK and len(game.moves) == 3
    assert game.fen() == "rnbqkbnr/pppp1ppp/8/4p3/2B1P3/8/PPPP1PPP/RNBQK1NR b KQkq - 1 2"
    with pytest.raises(IllegalMoveError):
        game.push(uci("e2e4"))
    with pytest.raises(IndexError):
        Game().pop()


def test_unknown_rule_profile_is_refused():
    with pytest.raises(ValueError, match="unknown rule profile 'blitz'"):
        Game(rules="blitz")


# -- repetition keys (FIDE 9.2.3) -------------------------------------------------------------

def test_same_placement_with_the_other_side_to_move_is_another_position():
    white = Position("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")
    black = Position("4k3/8/8/8/8/8/8/R3K3 b - - 0 1")
    assert white.repetition_key() != black.repetition_key()


def test_castling_rights_are_part_of_the_position():
    with_right = Position("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1")
    without = Position("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")
    assert with_right.repetition_key() != without.repetition_key()
    game = Game("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1")
    play(game, "e1d1", "e8d8", "d1e1", "d8e8")  # the king came back, the right did not
    assert game.position.repetition_key() == without.repetition_key()
    assert game.repetition_count() == 1


def test_en_passant_counts_only_when_the_capture_is_possible():
    possible = Position("4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1")
    assert possible.repetition_key() != Position("4k3/8/8/8/3pP3/8/8/4K3 b - - 0 1").repetition_key()
    # No black pawn beside e4: the double push changes nothing.
    after_push = Position()
    after_push.push(uci("e2e4"))
    same = Position("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
    assert after_push.repetition_key() == same.repetition_key()
    # The d4 pawn is pinned along the rank: the capture is impossible, so not counted.
    pinned = Position("8/8/8/8/k2pP2Q/8/8/K7 b - e3 0 1")
    assert pinned.repetition_key() == Position("8/8/8/8/k2pP2Q/8/8/K7 b - - 0 1").repetition_key()


def test_repetition_counts_across_the_game():
    game = Game()
    assert game.repetition_count() == 1
    play(game, *KNIGHT_DANCE)
    assert game.repetition_count() == 2
    play(game, "g1f3")
    assert game.repetition_count() == 2  # the position after 1. Nf3 stands for the second time


# -- threefold repetition and the fifty-move rule: claims in fide ----------------------------

def test_threefold_repetition_is_a_claim_in_fide():
    game = Game()
    play(game, *KNIGHT_DANCE, *KNIGHT_DANCE)
    assert game.repetition_count() == 3
    assert not game.is_over
    assert game.claimable_draws() == [Termination.THREEFOLD_REPETITION]
    outcome = game.claim_draw()
    assert outcome == Outcome(Termination.THREEFOLD_REPETITION) and outcome.result() == "1/2-1/2"
    assert game.outcome == outcome


def test_threefold_claim_with_the_move_that_repeats():
    game = Game()
    play(game, *KNIGHT_DANCE, *KNIGHT_DANCE[:3])
    assert game.claimable_draws() == []
    assert game.claimable_draws(uci("f6g8")) == [Termination.THREEFOLD_REPETITION]
    assert game.claimable_draws(uci("f6h5")) == []
    fen_before = game.fen()
    with pytest.raises(DrawClaimError, match="no draw can be claimed with f6h5"):
        game.claim_draw(uci("f6h5"))
    assert game.fen() == fen_before and not game.is_over
    outcome = game.claim_draw(uci("f6g8"))
    assert outcome.termination == Termination.THREEFOLD_REPETITION
    assert game.moves[-1] == uci("f6g8") and game.repetition_count() == 3


def test_claim_with_an_illegal_move_is_refused():
    with pytest.raises(IllegalMoveError):
        Game().claimable_draws(uci("e2e5"))


def test_fifty_move_claim_now_and_with_the_fiftieth_move():
    game = Game(QUIET_ROOKS.format(clock=99))
    assert game.claimable_draws() == []
    assert game.claimable_draws(uci("c2c3")) == [Termination.FIFTY_MOVES]
    with pytest.raises(DrawClaimError, match="99 half-moves"):
        game.claim_draw()
    play(game, "c2c3")
    assert not game.is_over  # fide: a claim, not automatic
    assert game.claimable_draws() == [Termination.FIFTY_MOVES]
    assert game.claim_draw().termination == Termination.FIFTY_MOVES


def test_fifty_move_claim_with_a_capture_is_refused():
    game = Game("8/8/3k4/8/8/3K4/2R5/2r5 w - - 99 120")
    assert game.claimable_draws(uci("c2c1")) == []
    assert game.claimable_draws(uci("c2c3")) == [Termination.FIFTY_MOVES]


def test_mate_with_the_fiftieth_move_is_not_a_draw_claim():
    mate_in_one = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 99 80"
    game = Game(mate_in_one)
    assert game.claimable_draws(uci("a1a8")) == []
    assert game.claimable_draws(uci("a1a2")) == [Termination.FIFTY_MOVES]
    play(game, "a1a8")
    assert game.outcome == Outcome(Termination.CHECKMATE, WHITE)
    assert game.claimable_draws() == []


# -- automatic endings -----------------------------------------------------------------------

def test_fivefold_repetition_ends_a_fide_game():
    game = Game()
    for _ in range(3):
        play(game, *KNIGHT_DANCE)
    assert not game.is_over and game.repetition_count() == 4
    play(game, *KNIGHT_DANCE[:3])
    assert not game.is_over
    play(game, KNIGHT_DANCE[3])
    assert game.outcome == Outcome(Termination.FIVEFOLD_REPETITION)
    with pytest.raises(GameOverError):
        play(game, "e2e4")
    game.pop()
    assert not game.is_over


def test_seventy_five_moves_end_a_fide_game():
    game = Game(QUIET_ROOKS.format(clock=149))
    play(game, "c2c3")
    assert game.outcome == Outcome(Termination.SEVENTYFIVE_MOVES)
    assert game.outcome.describe() == "Draw by seventy-five-move rule"


def test_seventy_five_moves_reached_by_a_capture_or_pawn_move_do_not_count():
    game = Game("8/8/3k4/8/8/3K4/2R5/2r5 w - - 149 120")
    play(game, "c2c1")
    assert not game.is_over and game.position.halfmove_clock == 0


def test_casual_ends_the_game_at_threefold_and_fifty():
    game = Game(rules="casual")
    play(game, *KNIGHT_DANCE, *KNIGHT_DANCE[:3])
    assert not game.is_over
    play(game, KNIGHT_DANCE[3])
    assert game.outcome == Outcome(Termination.THREEFOLD_REPETITION)
    game = Game(QUIET_ROOKS.format(clock=99), rules="casual")
    play(game, "c2c3")
    assert game.outcome == Outcome(Termination.FIFTY_MOVES)


def test_fide_game_goes_on_past_threefold_and_fifty():
    game = Game(QUIET_ROOKS.format(clock=99))
    play(game, "c2c3", "f1f2", "c3c2", "f2f1", "c2c3")
    assert not game.is_over
    assert game.claimable_draws() == [Termination.FIFTY_MOVES]


@pytest.mark.parametrize("rules, clock", [("casual", 99), ("fide", 99), ("fide", 149)])
def test_mate_on_the_last_half_move_beats_the_fifty_and_seventy_five_move_rules(rules, clock):
    game = Game(f"6k1/5ppp/8/8/8/8/8/R5K1 w - - {clock} 80", rules=rules)
    play(game, "a1a8")
    assert game.position.halfmove_clock == clock + 1
    assert game.outcome == Outcome(Termination.CHECKMATE, WHITE)
    assert game.outcome.result() == "1-0"


def test_stalemate_ends_the_game():
    game = Game("7k/8/8/5Q2/8/8/8/K7 w - - 0 60")
    play(game, "f5g6")
    assert game.outcome == Outcome(Termination.STALEMATE)


def test_checkmate_in_the_start_position_is_over_at_once():
    game = Game("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1")
    assert game.outcome == Outcome(Termination.CHECKMATE, WHITE)


# -- insufficient material -------------------------------------------------------------------

@pytest.mark.parametrize("fen", [
    "8/8/4k3/8/8/3K4/8/8 w - - 0 1",  # K v K
    "8/8/4k3/8/8/3KB3/8/8 w - - 0 1",  # K+B v K
    "8/8/4k3/8/8/3KN3/8/8 w - - 0 1",  # K+N v K
    "8/8/3bk3/8/8/3KB3/8/8 w - - 0 1",  # K+B v K+B, both on dark squares
    "1b6/2b5/4k3/8/8/3KB3/8/2B5 w - - 0 1",  # four bishops, all on dark squares
])
def test_insufficient_material_ends_the_game(fen):
    pos = Position(fen)
    assert pos.is_insufficient_material()
    assert Game(fen).outcome == Outcome(Termination.INSUFFICIENT_MATERIAL)


@pytest.mark.parametrize("fen", [
    "8/8/2b1k3/8/8/3KB3/8/8 w - - 0 1",  # K+B v K+B on opposite colours
    "8/8/4k3/8/8/3KBB2/8/8 w - - 0 1",  # two bishops on both colours
    "8/8/4k3/8/8/3KNN2/8/8 w - - 0 1",  # two knights
    "8/8/3nk3/8/8/3KN3/8/8 w - - 0 1",  # K+N v K+N
    "8/8/3nk3/8/8/3KB3/8/8 w - - 0 1",  # K+B v K+N
    "8/8/4k3/8/8/3KP3/8/8 w - - 0 1",
    "8/8/4k3/8/8/3K4/8/7R w - - 0 1",
])
def test_sufficient_material_goes_on(fen):
    assert not Position(fen).is_insufficient_material()
    assert not Game(fen).is_over


def test_capturing_the_last_piece_ends_the_game():
    game = Game("8/8/4k3/4r3/8/3K4/8/4R3 w - - 0 1")
    play(game, "e1e5")
    assert not game.is_over
    play(game, "e6e5")
    assert game.outcome == Outcome(Termination.INSUFFICIENT_MATERIAL)


# -- decisions -------------------------------------------------------------------------------

def test_resignation_and_agreement():
    game = Game()
    assert game.resign(WHITE) == Outcome(Termination.RESIGNATION, BLACK)
    assert game.outcome.result() == "0-1" and game.outcome.describe() == "Black wins by resignation"
    with pytest.raises(GameOverError):
        game.agree_draw()
    with pytest.raises(GameOverError):
        play(game, "e2e4")
    game.reopen()
    assert not game.is_over
    assert game.agree_draw() == Outcome(Termination.AGREEMENT)
    assert game.outcome.describe() == "Draw by agreement"


def test_flag_fall_loses_unless_the_opponent_cannot_mate():
    assert Game().flag(WHITE) == Outcome(Termination.TIME_FORFEIT, BLACK)
    bare_king = Game("8/8/4k3/8/8/3K4/3Q4/8 b - - 0 1")
    assert bare_king.flag(WHITE) == Outcome(Termination.TIME_VS_INSUFFICIENT)
    assert bare_king.outcome.result() == "1/2-1/2"
    # Against a queen, a knight can mate (the queen may block its own king): the flag loses.
    knight_v_queen = Game("6n1/8/4k3/8/8/3K4/3Q4/8 b - - 0 1")
    assert knight_v_queen.flag(WHITE) == Outcome(Termination.TIME_FORFEIT, BLACK)


@pytest.mark.parametrize("fen, color, can", [
    ("8/8/4k3/8/8/3K4/8/8 w - - 0 1", WHITE, False),
    ("8/8/4k3/8/8/3KN3/8/8 w - - 0 1", WHITE, False),
    ("8/8/4k3/3p4/8/3KN3/8/8 w - - 0 1", WHITE, True),  # the pawn can block its own king
    ("8/8/4k3/8/8/3KB3/8/8 w - - 0 1", WHITE, False),
    ("8/8/2b1k3/8/8/3KB3/8/8 w - - 0 1", WHITE, True),  # opposite bishops: a helpmate exists
    ("8/8/3bk3/8/8/3KB3/8/8 w - - 0 1", WHITE, False),
    ("8/8/4k3/8/8/3KNN2/8/8 w - - 0 1", WHITE, True),
    ("8/8/4k3/8/8/3K4/8/7q w - - 0 1", BLACK, True),
])
def test_material_can_mate(fen, color, can):
    assert material_can_mate(Position(fen), color) is can
