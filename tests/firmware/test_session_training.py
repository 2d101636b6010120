"""Training at the board: a drill's position set up by the board's guidance, the solver's moves judged, a wrong one taken back, the right move shown after two, a puzzle's replies carried out, a mistake's other move judged by the real Stockfish, the progress kept."""
from __future__ import annotations

import json

import pytest

from chess_core import Move, STARTING_FEN
from firmware.analysis.judgement import Score
from firmware.session.commands import SessionError
from firmware.training import progress as kept
from firmware.training.drill import of_exercise, of_puzzle
from firmware.training.exercises import Exercise

from .session_support import OPEN, Table, closed_after  # noqa: F401 - closed_after: the fixture
from .test_session_setup import follow
from tests.said import english

# White mates in one (Ra8#) on a board set up from the start position by the board's guidance.
MATE_IN_ONE = of_puzzle("m1", "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", ("a1a8",), rating=900, themes=("mateIn1",))
# A two-move combination: Rd8+ Rxd8, Rxd8# (the reply carried out as the engine's moves are).
MATE_IN_TWO = of_puzzle("m2", "1r4k1/5ppp/8/8/8/8/3R1PPP/3R2K1 w - - 0 1", ("d2d8", "b8d8", "d1d8"), rating=1300,
                        themes=("mateIn2",))


def trained(tmp_path, *drills) -> Table:
    table = Table(tmp_path)
    OPEN.append(table)
    table.setup()
    table.session.trainer.start(tuple(drills), "Ada", {}, table.t)
    assert table.session.snapshot()["setup"]["steps"]
    follow(table)                                  # the hand follows the board to the drill's position
    assert table.session.snapshot()["started"]
    return table


def training(table: Table) -> dict:
    return english(table.session.snapshot())["training"]


def move(table: Table, uci: str) -> None:
    """A move made on the board, as a hand makes it (the victim first)."""
    table.play(uci, think=0.5)


def back(table: Table, uci: str) -> None:
    """The LEDs guide the piece back: the hand puts it back."""
    m = Move.from_uci(uci)
    table.lift(chess_name(m.to_square))
    table.place(chess_name(m.from_square))


def chess_name(square: int) -> str:
    return "abcdefgh"[square % 8] + str(square // 8 + 1)


def saved(table: Table) -> dict:
    return json.loads((table.tmp_path / "state" / kept.FILE).read_text())


def test_a_puzzle_solved_at_the_first_try_raises_the_rating_and_is_kept(tmp_path):
    table = trained(tmp_path, MATE_IN_ONE)
    assert table.session.game.fen() == MATE_IN_ONE.fen
    t = training(table)
    assert t["kind"] == "puzzle" and t["verdict"] is None and t["side"] == "white" and t["left"] == 0
    move(table, "a1a8")
    snap = english(table.session.snapshot())
    t = snap["training"]
    assert t["verdict"] == "solved" and t["over"] and t["line"] == ["Ra8#"]
    assert t["said"] == "Solved!"
    assert t["rating"]["rating"] > 1500
    progress = kept.player(kept.load(table.tmp_path / "state"), "Ada")
    assert progress.solved_puzzles == ("m1",) and progress.theme_counts()["mateIn1"] == (1, 0)
    table.wait(1)
    record = table.session.file.recorder.load()
    assert record.event == "Training" and record.moves == ["a1a8"]   # (the library tells it from a game)


def test_a_wrong_move_is_taken_back_then_after_two_the_right_one_is_shown_to_carry_out(tmp_path):
    table = trained(tmp_path, MATE_IN_ONE)
    move(table, "h2h3")
    t = training(table)
    assert t["verdict"] == "try again" and t["tries"] == 1 and not t["over"]
    assert "Try again: put the piece back" in json.dumps(english(table.session.snapshot()))
    assert table.session.game.moves == []          # taken back: the board guides the pawn back
    # in the status line too, as a takeback (not "Not a legal move": a tester's find)
    assert english(table.session.snapshot())["status"] == "Take back h3: put the pawn back on h2"
    back(table, "h2h3")
    move(table, "g1f1")
    t = training(table)
    assert t["verdict"] == "shown" and not t["over"]
    back(table, "g1f1")
    snap = table.session.snapshot()
    assert snap["expected_move"] == "a1a8"         # the right move, lit to carry out
    move(table, "a1a8")
    t = training(table)
    assert t["over"] and t["verdict"] == "shown" and t["rating"]["rating"] < 1500
    assert t["said"] == "The move was Ra8#"            # (made: no more "play it on the board")
    progress = kept.player(kept.load(table.tmp_path / "state"), "Ada")
    assert progress.solved_puzzles == () and progress.theme_counts()["mateIn1"] == (0, 1)


def test_a_puzzles_reply_is_carried_out_on_the_board_then_the_solver_goes_on(tmp_path):
    table = trained(tmp_path, MATE_IN_TWO, MATE_IN_ONE)
    move(table, "d2d8")
    t = training(table)
    assert t["said"] == "Right: go on" and not t["over"]
    assert table.session.snapshot()["expected_move"] == "b8d8"
    move(table, "b8d8")
    move(table, "d1d8")
    t = training(table)
    assert t["verdict"] == "solved" and t["over"] and t["left"] == 1 and t["line"] == ["Rd8+", "Rxd8", "Rxd8#"]
    table.session.trainer.next(table.t)
    follow(table)
    assert training(table)["id"] == "m1" and table.session.game.fen() == MATE_IN_ONE.fen
    with pytest.raises(SessionError):
        table.session.trainer.next(table.t)
    table.session.trainer.stop(table.t)
    snap = table.session.snapshot()
    assert snap["training"] is None and not snap["started"]      # the board waits for the next game
    table.session.trainer.start((MATE_IN_ONE,), "Ada", {}, table.t)   # (a new training may begin at once)
    assert training(table)["id"] == "m1"


def _scholar() -> Exercise:
    # 1. e4 e5 2. Bc4 Nc6 3. Qh5 and Black played Nf6?? (a blunder): Black to find g6 (or Qe7).
    fen = "r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 3 3"
    return Exercise("g1", 6, fen, 1, "g8f6", "blunder", "g7g6", ("g7g6", "h5f3", "g8f6"), Score(cp=-30),
                    Score(mate=1))


async def test_a_mistakes_other_move_is_judged_by_stockfish(tmp_path, fixed_depth):
    table = trained(tmp_path, of_exercise(_scholar()))
    assert table.session.game.turn == 1
    move(table, "d8e7")                            # not the analysis's move: Stockfish judges it
    assert training(table)["judging"]
    await table.session.trainer.settled()
    t = training(table)
    assert t["verdict"] == "solved" and t["over"] and t["line"][0] == "g6" and t["judgement"] == "blunder"
    progress = kept.player(kept.load(table.tmp_path / "state"), "Ada")
    assert progress.solved_mistakes == (("g1", 6),)


async def test_a_mistakes_losing_move_is_taken_back(tmp_path):
    table = trained(tmp_path, of_exercise(_scholar()))
    move(table, "a7a6")                            # Qxf7 mates
    await table.session.trainer.settled()
    t = training(table)
    assert t["verdict"] == "try again" and table.session.game.moves == []


def test_a_training_is_refused_during_a_game_with_moves(tmp_path):
    table = Table(tmp_path)
    table.setup()
    table.play_all("e2e4")
    with pytest.raises(SessionError) as refused:
        table.session.trainer.start((MATE_IN_ONE,), "Ada", {}, table.t)
    assert refused.value.key == "training_during_game"
    assert table.session.game.start_fen == STARTING_FEN


# Found by the page's Chromium test (tests/web/test_training_browser.py): the page says "Solved!" and the
# progress keeps the exercise solved too (as Lichess's "learn from your mistakes" counts a win after a try).
def test_a_mistake_found_after_a_wrong_try_is_kept_solved_as_the_page_says(tmp_path):
    table = trained(tmp_path, of_exercise(_scholar()))
    move(table, "g8f6")                            # the blunder again: wrong at once, no engine
    assert training(table)["verdict"] == "try again"
    back(table, "g8f6")
    move(table, "g7g6")                            # the analysis's move
    t = training(table)
    assert t["verdict"] == "solved" and t["said"] == "Solved!" and t["over"]
    progress = kept.player(kept.load(table.tmp_path / "state"), "Ada")
    assert [a.verdict for a in progress.attempts] == ["solved"]
    assert progress.solved_mistakes == (("g1", 6),)


# -- a reviewer's findings -------------------------------------------------------------------------

def test_a_new_game_ends_the_training_and_its_moves_are_not_judged(tmp_path):
    table = trained(tmp_path, MATE_IN_ONE)
    table.session.new_game(table.t)
    assert table.session.snapshot()["training"] is None
    table.setup()
    move(table, "e2e4")
    assert table.session.game.moves[-1].uci() == "e2e4"   # (not judged, not taken back)


def test_a_training_refused_leaves_nothing_behind(tmp_path):
    table = Table(tmp_path)
    OPEN.append(table)
    table.setup()
    bad = of_puzzle("x", "8/8/8/8/8/8/8/8 w - - 0 1", ("a1a2",), rating=900)
    with pytest.raises(SessionError):
        table.session.trainer.start((bad,), "Ada", {}, table.t)
    assert table.session.snapshot()["training"] is None


async def test_an_opponent_is_told_nothing_during_a_training_and_its_moves_are_set_aside(tmp_path):
    from tests.firmware.voice.test_announcer import Scripted
    table = Table(tmp_path)
    OPEN.append(table)
    await table.session.start_opponent(Scripted({"a1a8": "g8h8", "h2h3": "g8h8"}))   # it would answer at once
    table.setup()
    table.session.trainer.start((MATE_IN_ONE,), "Ada", {}, table.t)
    follow(table)
    move(table, "h2h3")                            # wrong: taken back, and nobody answers it
    assert training(table)["verdict"] == "try again" and table.session.snapshot()["expected_move"] is None
    table.session.other_side.opponent_moved(Move.from_uci("g8h8"))   # (a move it sent anyway: set aside)
    assert table.session.snapshot()["expected_move"] is None


def test_a_drill_counts_once_in_the_progress_whatever_follows(tmp_path):
    table = trained(tmp_path, MATE_IN_TWO)
    move(table, "d2d8")
    move(table, "b8d8")
    move(table, "d1d8")
    assert training(table)["over"]
    table.lift("d8")                               # the hand plays on after the solution
    table.place("d7")
    table.wait(1)
    progress = kept.player(kept.load(table.tmp_path / "state"), "Ada")
    assert len(progress.attempts) == 1 and progress.theme_counts()["mateIn2"] == (1, 0)


# -- a power cut in the middle of a training ------------------------------------------------------

def power_cut(table: Table) -> None:
    """The power goes and comes back: the pieces stay where they stood, the service starts again
    from its state folder."""
    table.power_cut()
    OPEN.append(table)                             # (its new session closed after the test too)


def test_a_puzzle_under_way_goes_on_after_a_power_cut_with_its_wrong_try_counted(tmp_path):
    table = trained(tmp_path, MATE_IN_TWO, MATE_IN_ONE)
    move(table, "d2d7")                            # wrong: taken back
    back(table, "d2d7")
    move(table, "d2d8")
    move(table, "b8d8")                            # the reply carried out
    before = training(table)
    power_cut(table)
    t = training(table)
    assert (t["id"], t["tries"], t["left"], t["over"]) == ("m2", 1, 1, False) and t["player"] == "Ada"
    assert table.session.game.moves == [Move.from_uci("d2d8"), Move.from_uci("b8d8")]
    assert {k: t[k] for k in ("rating", "side", "kind")} == {k: before[k] for k in ("rating", "side", "kind")}
    move(table, "d1d8")
    t = training(table)
    assert t["verdict"] == "solved" and t["over"] and t["rating"]["rating"] < 1500   # failed once: counted failed
    assert t["said"] == "Solved, after a wrong try: the puzzle counts as failed"   # (said so: a tester's find)
    progress = kept.player(kept.load(table.tmp_path / "state"), "Ada")
    assert progress.solved_puzzles == () and len(progress.attempts) == 1             # counted once
    table.session.trainer.next(table.t)                                               # the queue went on too
    assert training(table)["id"] == "m1"


def test_a_training_whose_position_was_being_set_up_is_led_on_after_a_power_cut(tmp_path):
    table = Table(tmp_path)
    OPEN.append(table)
    table.setup()
    table.session.trainer.start((MATE_IN_ONE,), "Ada", {}, table.t)
    assert table.session.snapshot()["setup"]["steps"]
    power_cut(table)
    snap = english(table.session.snapshot())
    assert snap["training"]["id"] == "m1" and snap["setup"]["target"] == MATE_IN_ONE.fen
    assert snap["status"].startswith("Set up the position") and snap["setup"]["steps"]   # (from what it can know)
    follow(table)
    assert table.session.game.fen() == MATE_IN_ONE.fen and table.session.snapshot()["started"]
    move(table, "a1a8")
    assert training(table)["verdict"] == "solved"


@pytest.fixture
def fixed_depth(monkeypatch):
    """Stockfish judges at a fixed depth: the same verdict on any machine, however loaded."""
    from firmware.analysis.engine import AnalysisLimit
    monkeypatch.setattr("firmware.session.trainer.JUDGE_LIMIT", AnalysisLimit(depth=12))


async def test_a_mistakes_move_awaiting_stockfish_at_the_cut_is_judged_again(tmp_path, fixed_depth):
    table = trained(tmp_path, of_exercise(_scholar()))
    move(table, "d8e7")
    assert training(table)["judging"]
    power_cut(table)                               # (before Stockfish answered)
    assert table.session.game.moves == [Move.from_uci("d8e7")] and training(table)["judging"]
    await table.session.trainer.settled()
    t = training(table)
    assert t["verdict"] == "solved" and t["over"]
    progress = kept.player(kept.load(table.tmp_path / "state"), "Ada")
    assert progress.solved_mistakes == (("g1", 6),)


def test_a_damaged_training_in_the_saved_game_leaves_the_game_restored_without_it(tmp_path):
    table = trained(tmp_path, MATE_IN_TWO)
    move(table, "d2d8")
    table.wait(1)
    path = table.tmp_path / "state" / "current.json"
    saved = json.loads(path.read_text())
    saved["training"]["drills"][0]["solution"] = "d2d8"            # not a list: not what the board wrote
    path.write_text(json.dumps(saved))
    table.board.stop()
    table.session = table.new_session()
    OPEN.append(table)
    assert table.session.restore(table.t)
    assert table.session.snapshot()["training"] is None and table.session.game.moves == [Move.from_uci("d2d8")]


def test_a_reply_awaited_at_the_cut_is_lit_again_then_the_solver_goes_on(tmp_path):
    table = trained(tmp_path, MATE_IN_TWO)
    move(table, "d2d8")
    assert table.session.snapshot()["expected_move"] == "b8d8"
    power_cut(table)
    assert table.session.snapshot()["expected_move"] == "b8d8" and table.lit     # the reply to carry out
    move(table, "b8d8")
    move(table, "d1d8")
    t = training(table)
    assert t["verdict"] == "solved" and t["over"] and t["rating"]["rating"] > 1500


def test_a_right_move_shown_at_the_cut_is_shown_again(tmp_path):
    table = trained(tmp_path, MATE_IN_ONE)
    for wrong in ("h2h3", "g1f1"):
        move(table, wrong)
        back(table, wrong)
    assert table.session.snapshot()["expected_move"] == "a1a8"
    power_cut(table)
    snap = english(table.session.snapshot())
    assert snap["expected_move"] == "a1a8" and snap["training"]["said"].startswith("The move was Ra8#")
    move(table, "a1a8")
    t = training(table)
    assert t["over"] and t["verdict"] == "shown" and t["rating"]["rating"] < 1500


def test_a_training_ended_is_not_saved_with_the_next_game_nor_restored_onto_it(tmp_path):
    opening = of_exercise(Exercise("g0", 1, STARTING_FEN, 0, "f2f3", "mistake", "e2e4", ("e2e4",), Score(cp=30),
                                   Score(cp=-60)))       # (a drill from the start position itself)
    table = Table(tmp_path)
    OPEN.append(table)
    table.setup()
    table.session.trainer.start((opening,), "Ada", {}, table.t)     # (the board stands there: it begins)
    assert table.session.snapshot()["started"] and training(table)["id"] == "g0:1"
    table.wait(1)
    assert json.loads((table.tmp_path / "state" / "current.json").read_text())["training"] is not None
    table.session.trainer.stop(table.t)
    table.wait(0.5)
    assert table.session.snapshot()["started"]                       # (the pieces stand ready: a new game)
    table.play_all("d2d4 d7d5")
    table.wait(1)
    saved = json.loads((table.tmp_path / "state" / "current.json").read_text())
    assert saved["training"] is None and saved["moves"] == ["d2d4", "d7d5"]
    power_cut(table)
    assert table.session.snapshot()["training"] is None and len(table.session.game.moves) == 2


async def test_a_move_its_mover_amends_while_stockfish_judges_it_is_judged_afresh(tmp_path, fixed_depth):
    table = trained(tmp_path, of_exercise(_scholar()))
    move(table, "d8e7")                            # (judged by Stockfish: under way)
    assert training(table)["judging"]
    table.lift("e7")
    table.place("g5")                              # moved on along the diagonal: Qg5?? lets Qxf7 mate
    table.wait(1)
    assert [m.uci() for m in table.session.game.moves] == ["d8g5"]
    await table.session.trainer.settled()
    t = training(table)
    assert t["verdict"] == "try again" and t["tries"] == 1 and table.session.game.moves == []


def test_a_training_finished_after_a_restart_keeps_every_players_progress(tmp_path):
    """A tester's find: the restored board had no progress in memory, and the drill's count wrote
    over the file from nothing: the other players' and the earlier attempts were gone."""
    state = tmp_path / "state"
    state.mkdir()
    before = kept.put(kept.put({}, "Ben", kept.after_puzzle(kept.player({}, "Ben"), "p1", 1500, ("fork",), True, 1.0)),
                      "Ada", kept.after_puzzle(kept.player({}, "Ada"), "p2", 1500, ("pin",), True, 2.0))
    kept.save(state, before)
    table = trained(tmp_path, MATE_IN_TWO)
    move(table, "d2d8")
    move(table, "b8d8")
    power_cut(table)
    assert training(table)["rating"]["rating"] == round(before["Ada"].rating.rating)     # (shown again at once)
    move(table, "d1d8")
    assert training(table)["verdict"] == "solved"
    after = kept.load(state)
    assert after["Ben"] == before["Ben"]
    assert [a.id for a in after["Ada"].attempts] == ["p2", "m2"] and after["Ada"].rated == 2
