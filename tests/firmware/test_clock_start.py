"""When the clocks start ([game] clock_start), and whose time carrying out the opponent's move is."""
from __future__ import annotations

import pytest

from chess_core import BLACK, Move
from firmware.session.session import SessionError
from tests.firmware.session_support import Table


def test_by_default_the_clocks_start_when_white_completes_the_first_move(tmp_path):
    table = Table(tmp_path, time_control="60")
    table.setup()
    table.wait(20)                       # nobody sat down yet
    assert table.session.referee.clocks(table.t).remaining == (60_000, 60_000)
    assert table.session.snapshot()["clocks"]["running"] is None
    table.play("e2e4", think=3)          # White's first move is free
    moved = table.t
    assert table.session.referee.clocks(table.t).remaining[0] == 60_000
    assert table.session.snapshot()["clocks"]["running"] == "black"
    table.wait(4)
    white, black = table.session.referee.clocks(table.t).remaining
    assert white == 60_000 and black < 60_000 - 3_900 - int((table.t - moved - 4) * 1000)


def test_at_once_starts_whites_clock_as_the_pieces_stand_ready(tmp_path):
    table = Table(tmp_path, time_control="60", clock_start="at_once")
    table.setup()
    table.wait(5)
    assert table.session.referee.clocks(table.t).remaining[0] < 55_100
    assert table.session.snapshot()["clocks"]["running"] == "white"


def test_the_config_refuses_another_clock_start(tmp_path):
    with pytest.raises(Exception, match="first_move"):
        Table(tmp_path, clock_start="later")


def test_the_time_carrying_out_the_opponents_move_is_the_players(tmp_path):
    table = Table(tmp_path, time_control="60", clock_start="at_once")
    table.setup()
    table.play("e2e4", think=1)
    table.wait(2)                       # the engine thinks 2 s
    table.session.other_side.opponent_moved(Move.from_uci("e7e5"))   # (an opponent's move announced, as the seat does)
    announced = table.t
    table.wait(5)                       # the hand is slow to carry it out
    table.lift("e7")
    table.place("e5")
    table.wait(0.5)
    assert table.session.game.moves[-1] == Move.from_uci("e7e5")
    white, black = table.session.referee.clocks(table.t).remaining
    black_used = 60_000 - black
    assert 1_900 <= black_used <= 3_000, black_used          # its thinking, not the hand's 5.6 s
    assert 60_000 - white >= 1_000 + 5_000 + (table.t - announced - 5.6) * 1000


def test_an_empty_custom_time_control_is_refused_with_a_message(tmp_path):
    table = Table(tmp_path)
    with pytest.raises(SessionError, match="time control"):
        table.session.new_game(table.t, time_control="")


def test_the_opponent_never_loses_on_time_while_the_hand_carries_out_its_move(tmp_path):
    """A tester's game: Stockfish at 15 s, its move announced, the player slow to carry it out:
    the engine's clock stands still from the announcement, the player's runs (and is shown running)."""
    table = Table(tmp_path, time_control="15", clock_start="at_once")
    table.setup()
    table.play("e2e4", think=1)
    table.wait(2)
    table.session.other_side.opponent_moved(Move.from_uci("e7e5"))   # announced with about 13 s left on Black's clock
    announced = table.t
    white_then, black_then = table.session.referee.clocks(table.t).remaining
    table.wait(8)
    white, black = table.session.referee.clocks(table.t).remaining
    assert black == black_then and white < white_then - 7_900          # the player's time runs, not the engine's
    assert table.session.snapshot()["clocks"]["running"] == "white"
    table.wait(8)                                                       # longer than Black had left
    assert not table.session.game.is_over or table.session.game.outcome.winner == BLACK
    table.lift("e7")
    table.place("e5")
    table.wait(0.5)
    outcome = table.session.game.outcome
    assert outcome is None or outcome.winner == BLACK, outcome           # never "White wins on time"
    assert table.t - announced > black_then / 1000
