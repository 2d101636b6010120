"""The session on a simulated board: whole games, the clock, flags, new games and colours."""
from __future__ import annotations

import json

import chess.pgn
import pytest

from chess_core import WHITE, parse_square
from firmware.session.view import feedback_state
from firmware.referee.feedback import LedStyle

from .session_support import START_OCCUPIED, Table
from tests.said import english

STYLE = LedStyle()
SCHOLAR = "e2e4 e7e5 f1c4 b8c6 d1h5 g8f6 h5f7"


def read_pgn(table: Table):
    path = table.session.file.recorder.pgn_path(table.session.file.record)
    return chess.pgn.read_game(open(path, encoding="utf-8"))


def test_the_game_starts_when_the_pieces_stand_ready(tmp_path):
    table = Table(tmp_path)
    assert english(table.session.snapshot())["status"] == "Set up the pieces to start"
    table.board.set_occupied(START_OCCUPIED & ~(1 << parse_square("e2")))
    table.wait(0.5)
    assert not table.session.referee.started
    assert table.lit_names(STYLE.fix, blink_on=True) == {"e2"}  # the LEDs show what is missing
    table.place("e2")
    assert table.session.referee.started
    assert english(table.session.snapshot())["status"] == "White to move"
    assert table.lit == {}


def test_a_whole_game_is_recorded_to_pgn_with_its_result(tmp_path):
    table = Table(tmp_path, white="Ada", black="Bob", time_control="300+2")
    table.setup()
    table.play_all(SCHOLAR)
    snap = english(table.session.snapshot())
    assert snap["status"] == "White wins by checkmate" and snap["result"] == "1-0"
    game = read_pgn(table)
    assert [m.uci() for m in game.mainline_moves()] == SCHOLAR.split()
    assert game.headers["Result"] == "1-0" and game.headers["White"] == "Ada"
    assert game.headers["TimeControl"] == "300+2"
    assert all(node.clock() is not None for node in game.mainline())
    assert table.session.file.record.pgn_name == "2026-11-29_1930_Ada-vs-Bob.pgn"
    # the end of the game on the LEDs: the winner's king and the loser's
    assert table.lit == {parse_square("e1"): STYLE.win, parse_square("e8"): STYLE.loss}


def test_the_clock_switches_with_each_committed_move(tmp_path):
    table = Table(tmp_path, time_control="60", clock_start="at_once")
    table.setup()
    table.wait(5)
    white, black = table.session.referee.clocks(table.t).remaining
    assert white == pytest.approx(55_000, abs=600) and black == 60_000
    table.play("e2e4", think=0)
    clocks = english(table.session.snapshot())["clocks"]
    assert clocks["running"] == "black"
    used_by_white = 60_000 - clocks["white"]
    table.wait(10)
    clocks = english(table.session.snapshot())["clocks"]
    assert 60_000 - clocks["white"] == used_by_white
    assert 49_000 <= clocks["black"] <= 50_000
    assert clocks["black_text"].startswith("0:00:4")


def test_a_flag_fall_ends_the_game(tmp_path):
    table = Table(tmp_path, time_control="10")
    table.setup()
    table.play("e2e4", think=0)
    table.wait(30)
    snap = english(table.session.snapshot())
    assert snap["status"] == "White wins on time"
    assert snap["clocks"]["black"] == 0
    assert read_pgn(table).headers["Termination"] == "time forfeit"


def test_a_flag_against_a_lone_king_is_a_draw(tmp_path):
    fen = "4k3/8/8/8/8/8/8/R3K3 b - - 0 1"
    table = Table(tmp_path, time_control="5", fen=fen, clock_start="at_once")
    table.setup(fen)
    assert table.session.referee.started
    table.wait(10)  # Black's flag falls, but White has a rook: a loss for Black
    assert table.session.game.outcome.winner == WHITE
    fen = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1"
    table2 = Table(tmp_path / "2", time_control="5", fen=fen, clock_start="at_once")
    table2.setup(fen)
    table2.wait(10)  # White's flag falls; Black has a bare king: a draw (FIDE 6.9)
    assert english(table2.session.snapshot())["status"] == "Draw by timeout vs insufficient material"


def test_a_per_move_limit_ends_the_game(tmp_path):
    table = Table(tmp_path, time_control="-/m5")
    table.setup()
    table.play("e2e4", think=1)
    table.wait(6)
    assert table.session.game.outcome.winner == WHITE
    assert table.session.snapshot()["clocks"]["white"] is None


def test_the_low_time_warning_blinks_the_king(tmp_path):
    table = Table(tmp_path, time_control="15", leds="low_time_s = 10.0", clock_start="at_once")
    table.setup()
    assert parse_square("e1") not in table.lit
    table.wait(5.2)  # 9.8 s left
    state = feedback_state(table.session, table.t)
    assert state.low_time == WHITE


def test_repeating_the_start_position_inside_a_game_is_not_a_new_game(tmp_path):
    table = Table(tmp_path)
    table.setup()
    table.play_all("g1f3 g8f6 f3g1 f6g8 e2e4")
    assert [m.uci() for m in table.session.game.moves] == "g1f3 g8f6 f3g1 f6g8 e2e4".split()
    assert len(list(table.session.file.recorder.games_dir.iterdir())) == 1


def test_setting_up_after_a_game_starts_the_next_with_colours_swapped(tmp_path):
    table = Table(tmp_path, white="Ada", black="Bob")
    table.setup()
    table.play_all(SCHOLAR)
    first = table.session.file.record.pgn_name
    assert table.session.game.is_over
    table.board.set_occupied(0)  # the pieces are gathered...
    table.wait(1)
    assert table.session.game.is_over  # ...the result stays until the next game
    table.wall = table.wall.replace(minute=45)
    table.setup()  # ...and set up again
    snap = english(table.session.snapshot())
    assert snap["started"] and not snap["over"] and snap["moves"]["uci"] == []
    assert snap["players"] == {"white": "Bob", "black": "Ada"}
    assert table.session.file.record.pgn_name == "2026-11-29_1945_Bob-vs-Ada.pgn" != first
    table.play("d2d4")
    games = sorted(p.name for p in table.session.file.recorder.games_dir.iterdir())
    assert games == ["2026-11-29_1930_Ada-vs-Bob.pgn", "2026-11-29_1945_Bob-vs-Ada.pgn"]


def test_colours_stay_when_alternation_is_off(tmp_path):
    table = Table(tmp_path, white="Ada", black="Bob", alternate_colours=False)
    table.setup()
    table.play_all(SCHOLAR)
    table.board.set_occupied(0)
    table.wait(1)
    table.setup()
    assert table.session.snapshot()["players"] == {"white": "Ada", "black": "Bob"}


def test_an_illegal_move_is_shown_on_the_leds_and_not_recorded(tmp_path):
    table = Table(tmp_path)
    table.setup()
    table.lift("e2")
    table.place("e5")  # e2-e5 is not a move
    snap = english(table.session.snapshot())
    assert snap["status"] == "Not a legal move (White to move): put the pawn on e5 back on e2"
    assert set(snap["wrong"]) == {"e2", "e5"}
    assert table.lit_names(STYLE.fix, blink_on=True) == {"e2", "e5"}
    assert snap["moves"]["uci"] == [] and snap["problems"]
    table.lift("e5")
    table.place("e4")
    assert table.session.snapshot()["moves"]["uci"] == ["e2e4"]


def test_a_lifted_piece_shows_its_destinations(tmp_path):
    table = Table(tmp_path)
    table.setup()
    table.lift("g1")
    assert table.lit_names(STYLE.legal) == {"f3", "h3"}
    assert table.session.snapshot()["lifted"] == ["g1"]


def test_legal_squares_can_be_switched_off(tmp_path):
    table = Table(tmp_path, show_legal_squares=False)
    table.setup()
    table.lift("g1")
    assert table.lit_names() == {"g1"}


def test_the_last_move_and_check_are_shown(tmp_path):
    table = Table(tmp_path)
    table.setup()
    table.play_all("e2e4 d7d6 f1b5")
    assert table.lit_names(STYLE.last_move) == {"f1", "b5"}
    assert table.lit_names(STYLE.check) == {"e8"}
    assert english(table.session.snapshot())["status"] == "Black to move (check)"


def test_the_snapshot_is_plain_json_with_moves_in_english_letters(tmp_path):
    table = Table(tmp_path, time_control="180+2")
    table.setup()
    table.play_all("g1f3 d7d5")
    snap = table.session.snapshot()
    assert json.loads(json.dumps(snap)) == snap
    assert snap["moves"]["san"] == ["Nf3", "d5"]   # (the page says them in its language's letters)
    assert snap["fen"].startswith("rnbqkbnr/ppp1pppp/8/3p4/8/5N2/PPPPPPPP/RNBQKB1R w")
    assert snap["turn"] == "white" and len(snap["leds"]) == 64
    assert all(c == "" or len(c) == 7 and c.startswith("#") for c in snap["leds"]) and any(snap["leds"])
    assert snap["schema"] == 2 and snap["last_move"] == "d7d5"
    for key in ("occupied", "lifted", "wrong", "claimable_draws", "clocks", "result", "problems",
                "players", "expected_move", "promotion", "draw_offer"):
        assert key in snap


def test_subscribers_get_snapshots_until_they_unsubscribe(tmp_path):
    table = Table(tmp_path)
    seen: list = []
    unsubscribe = table.session.subscribe(seen.append)
    table.setup()
    table.play("e2e4")
    assert seen and [m.uci() for m in seen[-1].moves] == ["e2e4"]
    count = len(seen)
    unsubscribe()
    table.play("e7e5")
    assert len(seen) == count


def test_a_failing_subscriber_does_not_stop_the_board(tmp_path):
    table = Table(tmp_path)

    def broken(snapshot):
        raise RuntimeError("page gone")

    table.session.subscribe(broken)
    table.setup()
    table.play("e2e4")
    assert table.session.game.moves


def test_each_move_is_saved_before_the_next_reading(tmp_path):
    table = Table(tmp_path)
    table.setup()
    for n, uci in enumerate("e2e4 c7c5 g1f3".split(), 1):
        table.play(uci)
        saved = json.loads((tmp_path / "state" / "current.json").read_text())
        assert saved["moves"] == "e2e4 c7c5 g1f3".split()[:n]
