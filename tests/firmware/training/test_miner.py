"""The puzzle miner: lichess-puzzler's rules as pure functions, and the miner with Stockfish on known positions (a mate in 2 found, two winning moves refused)."""
from __future__ import annotations

import os
import random

import pytest

from chess_core import BLACK, WHITE, Move, Position
from firmware.analysis.judgement import Score
from firmware.training.miner import (Candidate, GameSettings, MineLimits, Miner, candidate_kind, castling_hidden,
                                     estimate_rating, is_only_move, is_quiet, material_diff, play_game, refined,
                                     settle_depth, win_chances)
from uci.engine import DEFAULT_ENGINE_PATH, EngineLaunch, UciEngine

needs_stockfish = pytest.mark.skipif(not os.access(DEFAULT_ENGINE_PATH, os.X_OK), reason="no Stockfish")
QUICK = MineLimits(scan_nodes=2_000, pair_nodes=150_000, reply_nodes=50_000, scout_pair_nodes=20_000,
                   scout_reply_nodes=10_000)


def test_a_mate_is_a_certain_win_for_the_side_that_mates():
    assert win_chances(Score(mate=3), WHITE) == 1.0
    assert win_chances(Score(mate=3), BLACK) == -1.0
    assert win_chances(Score.checkmated(BLACK), WHITE) == 1.0
    assert win_chances(Score(cp=-300), BLACK) == pytest.approx(0.5023, abs=1e-3)


@pytest.mark.parametrize("best, second, only", [
    (Score(cp=500), None, True),                       # no second move at all
    (Score(cp=500), Score(cp=-50), True),              # 0.72 against -0.09: more than 0.7 apart
    (Score(cp=500), Score(cp=100), False),             # 0.72 against 0.18: both win something
    (Score(mate=2), Score(cp=150), True),              # a mate, the rest barely better
    (Score(mate=2), Score(mate=3), False),             # two ways to mate
    (Score(mate=1), Score(cp=250), True),              # mate in one: the second at most 0.6 (0.43)
    (Score(mate=1), Score(cp=400), False),             # ... not 0.63
    (Score(mate=1), Score(mate=1), False),             # two mates in one: not one answer
])
def test_the_only_move_is_lichess_puzzlers_valid_attack(best, second, only):
    assert is_only_move(best, second, WHITE) is only


def test_the_same_rule_holds_from_blacks_side():
    assert is_only_move(Score(cp=-500), Score(cp=50), BLACK)
    assert not is_only_move(Score(cp=-500), Score(cp=-100), BLACK)


def test_candidates_follow_analyze_position():
    even = Position("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    assert candidate_kind(Score(cp=20), Score(cp=500), WHITE, even) == "advantage"
    assert candidate_kind(Score(cp=20), Score(cp=250), WHITE, even) is None      # not clearly winning, not down
    assert candidate_kind(Score(cp=350), Score(cp=900), WHITE, even) is None     # already winning before
    assert candidate_kind(Score(cp=350), Score(mate=3), WHITE, even) == "mate"   # ... but a mate is a puzzle
    assert candidate_kind(Score(cp=20), Score(mate=20), WHITE, even) == "advantage"   # a mate too far: a win
    assert candidate_kind(Score(cp=100), Score(cp=480), WHITE, even) is None     # the jump too small (0.58)
    up = Position("r1bqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 0 3")   # a knight up
    assert material_diff(up, WHITE) == 3
    assert candidate_kind(Score(cp=20), Score(mate=3), WHITE, up) is None


def test_a_short_scans_score_is_raised_to_what_the_game_then_played():
    # White to move at +30 after Black's first move, but White's next move shows +400: White had it;
    # Black to move at +400, and Black's move shows +380: Black had that
    scores = [Score(cp=-10), Score(cp=30), Score(cp=400), Score(cp=380)]
    assert refined(scores, WHITE) == [Score(cp=-10), Score(cp=400), Score(cp=380), Score(cp=380)]


def test_a_king_and_rook_at_home_without_the_right_hide_the_castling():
    assert castling_hidden(Position("r3k2r/8/8/8/8/8/8/R3K2R w Kkq - 0 1"))
    assert not castling_hidden(Position("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"))
    assert not castling_hidden(Position("r3k2r/8/8/8/8/8/8/R4K1R w kq - 0 1"))


def test_the_settle_depth_is_where_the_engine_stops_changing_its_mind():
    reports = [(1, "a2a3"), (2, "e2e4"), (3, "a2a3"), (4, "e2e4"), (5, "e2e4")]
    assert settle_depth(reports, "e2e4") == 4
    assert settle_depth(reports, "g1f3") == 6
    assert settle_depth([(1, "e2e4")], "e2e4") == 1


def test_the_rating_grows_with_the_depths_and_the_moves():
    assert estimate_rating([1]) == 600                  # a mate in one seen at once
    assert estimate_rating([1, 1]) == 925
    assert estimate_rating([1, 1], quiet=True) == 1125   # a quiet first move is harder to look for
    assert estimate_rating([6, 1]) == 1675
    assert estimate_rating([3]) < estimate_rating([3, 3]) < estimate_rating([3, 3, 3])
    assert estimate_rating([40, 40, 40]) == 2600


def test_a_quiet_move_neither_takes_nor_checks():
    fen = "r5k1/5ppp/8/8/7q/8/4RPPP/4R1K1 w - - 1 2"
    assert is_quiet(fen, "g2g3")
    assert not is_quiet(fen, "e2e8")                     # check
    assert not is_quiet("4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1", "d2d5")   # takes


def _candidate(before: str, blunder: str, kind: str) -> Candidate:
    pos = Position(before)
    keys = [pos.repetition_key()]
    pos.push(Move.from_uci(blunder))
    return Candidate(before, blunder, kind, "test", tuple(keys + [pos.repetition_key()]))


@needs_stockfish
async def test_the_miner_finds_a_mate_in_two():
    # Black's queen leaves the back rank: 1. Re8+ Rxe8 2. Rxe8#, and nothing else wins
    candidate = _candidate("r2q2k1/5ppp/8/8/8/8/4RPPP/4R1K1 b - - 0 1", "d8h4", "mate")
    async with UciEngine(EngineLaunch(options={"Threads": 1, "Hash": 16})) as engine:
        puzzle = await Miner(engine, QUICK).probe(candidate)
    assert puzzle is not None
    assert puzzle.fen == "r5k1/5ppp/8/8/7q/8/4RPPP/4R1K1 w - - 1 2"
    assert puzzle.solution == ("e2e8", "a8e8", "e1e8")
    assert puzzle.themes == ("mate", "mateIn2")
    assert puzzle.blunder == "d8h4" and puzzle.before == candidate.before
    assert len(puzzle.depths) == 2 and 600 <= puzzle.rating <= 2600


@needs_stockfish
async def test_the_miner_finds_a_mate_in_one():
    candidate = _candidate("r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 3 3", "g8f6", "mate")
    async with UciEngine(EngineLaunch(options={"Threads": 1, "Hash": 16})) as engine:
        puzzle = await Miner(engine, QUICK).probe(candidate)
    assert puzzle is not None and puzzle.solution == ("h5f7",)
    assert puzzle.themes == ("mate", "mateIn1")


@needs_stockfish
async def test_a_position_with_two_winning_moves_is_refused():
    # the queen lands where both the rook and the knight take it
    candidate = _candidate("4k3/8/3q4/8/8/2N5/3R4/4K3 b - - 0 1", "d6d5", "advantage")
    async with UciEngine(EngineLaunch(options={"Threads": 1, "Hash": 16})) as engine:
        miner = Miner(engine, QUICK)
        assert await miner.probe(candidate) is None
    assert miner.stats.puzzles == 0 and sum(miner.stats.refused.values()) == 1


@needs_stockfish
async def test_a_game_of_stockfish_against_itself_ends_and_its_puzzles_are_found():
    settings = GameSettings.draw(random.Random(4), 200)
    async with UciEngine(EngineLaunch(options={"Threads": 1, "Hash": 16})) as engine:
        game = await play_game(engine, settings)
        assert game.is_over or len(game.moves) == settings.max_plies
        miner = Miner(engine, QUICK)
        puzzles = await miner.mine(game.start_fen, game.moves, "test")
    assert miner.stats.games == 1 and miner.stats.positions > 0
    for puzzle in puzzles:
        assert len(puzzle.solution) % 2 == 1
