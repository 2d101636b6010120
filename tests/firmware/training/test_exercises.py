"""The player's mistakes as exercises, from analyses the project's own Stockfish analysis writes."""
from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from chess_core import Position, parse_uci
from firmware.analysis.engine import AnalysisLimit, evaluate_game
from firmware.analysis.judgement import BLACK, WHITE, Score
from firmware.library.analyses import Analyses
from firmware.library.games import first_game
from firmware.training.exercises import (ACCEPT_LOSS, MAX_TRIES, SHOWN, SOLVED, TRY_AGAIN, Attempt, Exercise,
                                         Verdict, after_try, exercises_of, give_up, judge, needs_eval)
from uci.engine import EngineLaunch
from uci.helper import HelperEngine

STOCKFISH = "/usr/games/stockfish"
LIMIT = AnalysisLimit(depth=10)
# 3...Nf6?? lets mate in one; 4.Qxh7?? misses it and gives the queen away.
BOTH = '[Event "both"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxh7 Rxh7 5. Bxf7+ Kxf7 0-1\n'
SCHOLAR = '[Event "scholar"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\n'
FROM_FEN = ('[Event "fen"]\n[SetUp "1"]\n[FEN "r5k1/5ppp/8/8/8/8/5PPP/3R2K1 b - - 0 1"]\n\n'
            '1... Ra7 2. Rd8# 1-0\n')


def analysed(directory: Path, game_id: str, text: str) -> dict:
    """The analysis of ``text`` as the library keeps it: Stockfish through firmware.analysis, the
    file written by the library's own writer, read back."""
    async def run() -> None:
        game = first_game(text)
        engine = HelperEngine(EngineLaunch(path=STOCKFISH))
        try:
            evals = await evaluate_game(game.moves, LIMIT, start_fen=game.game.start_fen, engine=engine)
        finally:
            await engine.aclose()
        Analyses(library=None, directory=directory, engine=engine, limit=LIMIT)._keep(game_id, game, evals, "Stockfish")
    asyncio.run(run())
    return json.loads((directory / f"{game_id}.json").read_text())


@pytest.fixture(scope="module")
def analyses(tmp_path_factory) -> dict[str, dict]:
    if not shutil.which(STOCKFISH):
        pytest.skip("Stockfish is not installed")
    directory = tmp_path_factory.mktemp("analysis")
    return {name: analysed(directory, name, text) for name, text in
            (("both", BOTH), ("scholar", SCHOLAR), ("fen", FROM_FEN))}


def test_the_blunder_that_let_mate_in_one_is_an_exercise_of_blacks(analyses):
    found = exercises_of(analyses["scholar"], "black", game_id="scholar")
    blunder = next(e for e in found if e.ply == 6)
    assert (blunder.played, blunder.judgement, blunder.side) == ("g8f6", "blunder", BLACK)
    assert blunder.fen == "r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 3 3"
    assert blunder.played_score == Score(mate=1)
    assert blunder.best != "g8f6" and blunder.line[0] == blunder.best
    assert blunder.key == ("scholar", 6)
    assert all(e.side == BLACK for e in found)


def test_the_line_is_in_uci_and_replays_from_the_position(analyses):
    for exercise in exercises_of(analyses["both"], (WHITE, BLACK), game_id="both"):
        pos = Position(exercise.fen)
        assert pos.turn == exercise.side
        for uci in exercise.line:
            pos.push(parse_uci(pos, uci))
        assert exercise.to_json()["line"] == list(exercise.line)


def test_the_best_score_is_the_evaluation_of_the_position_before_the_fault(analyses):
    review = analyses["both"]["review"]
    found = {e.ply: e for e in exercises_of(analyses["both"], "white", game_id="both")}
    missed = found[7]                       # 4.Qxh7?? where 4.Qxf7# mates
    assert (missed.played, missed.best, missed.line) == ("h5h7", "h5f7", ("h5f7",))
    assert missed.best_score == Score(mate=review["moves"][5]["mate"]) == Score(mate=1)
    assert missed.played_score == Score(cp=review["moves"][6]["cp"])
    evaluations = [review["start"], *review["moves"]]
    for exercise in exercises_of(analyses["both"], (WHITE, BLACK), game_id="both"):
        before, after = evaluations[exercise.ply - 1], evaluations[exercise.ply]
        assert (exercise.best_score.cp, exercise.best_score.mate) == (before["cp"], before["mate"])
        assert (exercise.played_score.cp, exercise.played_score.mate) == (after["cp"], after["mate"])


def test_a_player_of_both_sides_gets_the_faults_of_both_in_the_games_order(analyses):
    both = exercises_of(analyses["both"], ["white", "black"], game_id="both")
    white = exercises_of(analyses["both"], WHITE, game_id="both")
    black = exercises_of(analyses["both"], BLACK, game_id="both")
    assert {e.side for e in both} == {WHITE, BLACK}
    assert [e.ply for e in both] == sorted(e.ply for e in white + black)
    judged = [m["ply"] for m in analyses["both"]["review"]["moves"] if m["judgement"]]
    assert [e.ply for e in both] == judged


def test_least_leaves_out_the_smaller_faults(analyses):
    blunders = exercises_of(analyses["both"], (WHITE, BLACK), game_id="both", least="blunder")
    assert [e.ply for e in blunders] == [6, 7]
    assert all(e.judgement == "blunder" for e in blunders)
    with pytest.raises(ValueError):
        exercises_of(analyses["both"], WHITE, game_id="both", least="dubious")


def test_the_review_alone_is_read_as_the_whole_file(analyses):
    assert exercises_of(analyses["both"]["review"], WHITE, game_id="both") == \
        exercises_of(analyses["both"], WHITE, game_id="both")


def test_no_analysis_and_no_fault_give_no_exercise(analyses):
    assert exercises_of(None, WHITE, game_id="none") == ()
    assert exercises_of(analyses["scholar"], "white", game_id="scholar", least="blunder") == ()


def test_a_game_from_a_position_is_replayed_from_its_fen_and_a_checkmate_is_the_movers(analyses):
    fen = "r5k1/5ppp/8/8/8/8/5PPP/3R2K1 b - - 0 1"
    found = exercises_of(analyses["fen"], BLACK, game_id="fen", start_fen=fen)
    assert [(e.ply, e.played, e.fen) for e in found] == [(1, "a8a7", fen)]
    with pytest.raises(ValueError):
        exercises_of(analyses["fen"], BLACK, game_id="fen")     # (not from the usual start)
    last = analyses["scholar"]["review"]["moves"][-1]
    assert last["mate"] == 0 and last["judgement"] is None


def test_an_analysis_that_does_not_replay_is_a_value_error(analyses):
    broken = json.loads(json.dumps(analyses["both"]))
    broken["review"]["moves"][2]["uci"] = "e1e8"
    with pytest.raises(ValueError):
        exercises_of(broken, WHITE, game_id="both")
    other = dict(analyses["both"], moves=["d2d4"])
    with pytest.raises(ValueError):
        exercises_of(other, WHITE, game_id="both")
    with pytest.raises(ValueError):
        exercises_of({"review": {"moves": "e2e4"}}, WHITE, game_id="x")
    with pytest.raises(ValueError):
        exercises_of(analyses["both"], 2, game_id="both")


def exercise(side: int = WHITE, best_score: Score = Score(cp=50)) -> Exercise:
    return Exercise("g", 5, "fen", side, played="d1h5", judgement="mistake", best="g1f3", line=("g1f3",),
                    best_score=best_score, played_score=Score(cp=-100))


def test_the_best_move_is_right_and_the_move_played_wrong_without_an_engine():
    ex = exercise()
    assert not needs_eval(ex, "g1f3") and not needs_eval(ex, "D1H5 ")
    assert judge(ex, "g1f3", None) == Verdict("g1f3", True)
    assert judge(ex, "d1h5", None) == Verdict("d1h5", False)
    assert needs_eval(ex, "b1c3")
    with pytest.raises(ValueError):
        judge(ex, "b1c3", None)


def test_another_move_is_right_while_it_loses_less_than_an_inaccuracy():
    ex = exercise()
    assert judge(ex, "b1c3", Score(cp=40)).right
    assert judge(ex, "b1c3", Score(cp=200)).right                  # better than the engine's: a loss below 0
    close = judge(ex, "b1c3", Score(cp=0))                           # 0.092 lost
    assert close.right and 0 < close.loss < ACCEPT_LOSS
    far = judge(ex, "b1c3", Score(cp=-10))                           # 0.110 lost
    assert not far.right and far.loss > ACCEPT_LOSS


def test_the_loss_is_the_movers_so_black_wants_the_score_down():
    ex = exercise(BLACK, Score(cp=-50))
    assert judge(ex, "a7a6", Score(cp=-40)).right
    assert not judge(ex, "a7a6", Score(cp=100)).right


def test_mates_are_a_thousand_centipawns():
    ex = exercise(WHITE, Score(mate=2))
    assert judge(ex, "a2a3", Score(mate=5)).right                    # a slower mate still mates
    assert judge(ex, "a2a3", Score.checkmated(BLACK)).right
    assert not judge(ex, "a2a3", Score(cp=300)).right
    assert not judge(exercise(BLACK, Score(mate=-1)), "a7a6", Score(cp=-200)).right


def test_a_right_move_solves():
    attempt = after_try(Attempt(), Verdict("g1f3", True))
    assert (attempt.last, attempt.tries, attempt.moves, attempt.done) == (SOLVED, 0, ("g1f3",), True)


def test_two_wrong_tries_show_the_best_move():
    first = after_try(Attempt(), Verdict("a2a3", False, 0.4))
    assert (first.last, first.tries, first.done) == (TRY_AGAIN, 1, False)
    second = after_try(first, Verdict("h2h3", False, 0.3))
    assert (second.last, second.tries, second.done, MAX_TRIES) == (SHOWN, 2, True, 2)
    assert after_try(second, Verdict("g1f3", True)) == second     # over: nothing changes it


def test_a_wrong_then_a_right_try_solves():
    attempt = after_try(after_try(Attempt(), Verdict("a2a3", False)), Verdict("g1f3", True))
    assert (attempt.last, attempt.tries, attempt.moves) == (SOLVED, 1, ("a2a3", "g1f3"))


def test_giving_up_shows_the_best_move_once():
    shown = give_up(after_try(Attempt(), Verdict("a2a3", False)))
    assert (shown.last, shown.tries) == (SHOWN, 1)
    solved = after_try(Attempt(), Verdict("g1f3", True))
    assert give_up(solved) == solved
