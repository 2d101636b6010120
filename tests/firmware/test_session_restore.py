"""A restart in the middle of a game: the saved game continues, the LEDs guide the pieces back."""
from __future__ import annotations

import json

import pytest

from chess_core import BLACK, WHITE, parse_square
from firmware.session.view import feedback_state
from firmware.referee.feedback import LedStyle
from firmware.session.session import SessionError
from firmware.session.game_commands import resign, set_round, takeback

from .session_support import START_OCCUPIED, Table
from tests.said import english

STYLE = LedStyle()


def restart(table: Table):
    """A new session on the same state dir and board, as after a power cut."""
    table.board.stop()
    session = table.new_session()
    table.session = session
    assert session.restore(table.t)
    table.board.start(table.feed)
    table.wait(0.5)
    return session


def test_the_game_continues_after_a_restart_when_the_board_matches(tmp_path):
    table = Table(tmp_path, time_control="300+5", white="Ada", black="Bob")
    table.setup()
    table.play_all("e2e4 e7e5 g1f3")
    before = table.session.file.recorder.load().remaining  # both clocks after the last move
    pgn_name = table.session.file.record.pgn_name
    table.wait(7)  # Black thinks, then the power goes
    session = restart(table)
    snap = english(session.snapshot())
    assert snap["status"] == "Black to move" and snap["moves"]["uci"] == ["e2e4", "e7e5", "g1f3"]
    assert snap["players"] == {"white": "Ada", "black": "Bob"}
    white, black = session.referee.clocks(table.t).remaining
    # the clocks come back as they were after the last move (Black's 7 s before the cut are lost)
    assert white == before[WHITE]
    assert before[BLACK] - 600 <= black <= before[BLACK]
    table.play("b8c6")
    table.play("f1b5")
    assert session.file.record.pgn_name == pgn_name
    saved = session.file.recorder.load()
    assert saved.moves == "e2e4 e7e5 g1f3 b8c6 f1b5".split() and len(saved.clocks) == 5
    assert len(list(session.file.recorder.games_dir.iterdir())) == 1


def test_the_leds_guide_the_pieces_back_when_the_board_differs(tmp_path):
    table = Table(tmp_path)
    table.setup()
    table.play_all("e2e4 e7e5")
    table.board.stop()
    table.board.lift(parse_square("g1"))  # knocked over while the power was off
    table.board.lift(parse_square("e4"))
    table.board.place(parse_square("e2"))
    session = restart(table)
    snap = english(session.snapshot())
    assert set(snap["wrong"]) == {"g1", "e4", "e2"}
    # The board leads the hand back step by step, as it leads any position set up (test_session_setup.py).
    steps = [(s["piece"], s["from"], s["to"]) for s in snap["setup"]["steps"]]
    assert sorted(steps) == [("?", "e2", None), ("N", None, "g1"), ("P", None, "e4")]
    assert snap["status"] == f"Set up the position, 3 to go: {snap['setup']['steps'][0]['said']}"
    first = steps[0]
    assert table.lit_names() == {name for name in first[1:] if name is not None}
    table.lift("e2")
    table.place("e4")
    table.place("g1")
    assert english(session.snapshot())["status"] == "White to move"
    table.play("g1f3")
    assert session.file.recorder.load().moves == ["e2e4", "e7e5", "g1f3"]


def test_moves_made_before_the_restart_are_final(tmp_path):
    table = Table(tmp_path, takebacks=True)
    table.setup()
    table.play_all("e2e4 e7e5")
    session = restart(table)
    with pytest.raises(SessionError, match="before a restart"):
        takeback(session)
    table.play("d2d4")
    takeback(session)
    table.lift("d4")
    table.place("d2")
    assert [m.uci() for m in session.game.moves] == ["e2e4", "e7e5"]


def test_a_finished_game_shows_its_result_until_the_next_one(tmp_path):
    table = Table(tmp_path, white="Ada", black="Bob")
    table.setup()
    table.play_all("e2e4 e7e5")
    resign(table.session, BLACK)
    session = restart(table)
    assert english(session.snapshot())["status"] == "White wins by resignation"
    assert feedback_state(session, table.t).outcome is not None
    table.board.set_occupied(0)
    table.wait(1)
    table.setup()
    snap = english(session.snapshot())
    assert snap["started"] and not snap["over"]
    assert snap["players"] == {"white": "Bob", "black": "Ada"}


def test_a_game_in_the_start_position_after_a_finished_one_starts_at_once(tmp_path):
    table = Table(tmp_path)
    table.setup()
    resign(table.session, WHITE)
    table.board.set_occupied(0)
    table.wait(1)
    table.board.stop()  # the pieces are set up while the power is off
    table.board.set_occupied(START_OCCUPIED)
    session = restart(table)
    assert session.snapshot()["started"] and not session.snapshot()["over"]


def test_nothing_to_restore(tmp_path):
    table = Table(tmp_path)
    assert not table.session.restore(table.t)


# -- issue 32, item 2: a new game chosen but not yet set up ----------------------------------------

def reboot(table: Table):
    """A new session on the same state dir and board, as after a power cut (whatever it restores)."""
    table.board.stop()
    session = table.new_session()
    table.session = session
    session.restore(table.t)
    table.board.start(table.feed)
    table.wait(0.5)
    return session


def saved_json(table: Table) -> dict:
    return json.loads(table.session.file.recorder.current_path.read_text())


@pytest.mark.parametrize("old_game", ["finished", "in progress"])
def test_a_new_game_chosen_but_not_set_up_waits_for_its_pieces_after_a_restart(tmp_path, old_game):
    """Issue 32: the page showed the old, finished game again; the names and time control chosen were gone."""
    table = Table(tmp_path, time_control="300+5", white="Ada", black="Bob")
    table.setup()
    table.play_all("e2e4 e7e5")
    if old_game == "finished":
        resign(table.session, BLACK)
    table.session.new_game(white="Carla", black="Dan", time_control="600+10", rules="casual")
    session = reboot(table)
    snap = english(session.snapshot())
    assert not snap["started"] and not snap["over"] and snap["moves"]["uci"] == []
    assert snap["players"] == {"white": "Carla", "black": "Dan"}
    assert (snap["time_control"], snap["rules"]) == ("600+10", "casual")
    table.board.set_occupied(0)          # the pieces of the old game cleared, then set up
    table.wait(1)
    table.setup()
    snap = english(session.snapshot())
    assert snap["started"] and snap["players"] == {"white": "Carla", "black": "Dan"}
    assert session.referee.clocks(table.t).remaining == (600_000, 600_000)
    table.play("d2d4")
    saved = session.file.recorder.load()
    assert (saved.white, saved.black, saved.time_control, saved.moves) == ("Carla", "Dan", "600+10", ["d2d4"])


def test_the_latest_choice_of_a_new_game_is_the_one_kept(tmp_path):
    table = Table(tmp_path, white="Ada", black="Bob")
    table.setup()
    table.play_all("e2e4 e7e5")
    resign(table.session, WHITE)
    table.session.new_game(white="Carla", black="Dan", time_control="600+10")
    table.session.new_game(white="Eve", black="Finn", time_control="900")
    session = reboot(table)
    snap = english(session.snapshot())
    assert snap["players"] == {"white": "Eve", "black": "Finn"} and snap["time_control"] == "900"
    assert not snap["started"] and not snap["over"]
    session.new_game(white="Gus", black="Hal", time_control="60+1")   # chosen again after the restart
    session = reboot(table)
    assert session.snapshot()["players"] == {"white": "Gus", "black": "Hal"}
    assert session.snapshot()["time_control"] == "60+1"


def test_a_club_pairing_waiting_for_its_pieces_survives_a_restart(tmp_path):
    table = Table(tmp_path, white="Ada", black="Bob")
    table.setup()
    table.play("e2e4")
    resign(table.session, BLACK)
    set_round(table.session, "Ivy", "Jon", round="3", event="Club night", time_control="900+5")
    session = reboot(table)
    snap = english(session.snapshot())
    assert snap["players"] == {"white": "Ivy", "black": "Jon"} and not snap["over"]
    assert (snap["round"], snap["event"], snap["time_control"]) == ("3", "Club night", "900+5")


def test_a_chosen_chess960_game_keeps_its_start_position_across_a_restart(tmp_path):
    table = Table(tmp_path)
    table.setup()
    table.play("e2e4")
    resign(table.session, WHITE)
    table.session.new_game(variant="chess960")
    chosen = table.session.game.start_fen
    session = reboot(table)
    assert session.game.start_fen == chosen and session.game.chess960


def test_once_the_chosen_game_begins_nothing_of_the_old_game_or_the_choice_comes_back(tmp_path):
    table = Table(tmp_path, white="Ada", black="Bob")
    table.setup()
    table.play_all("e2e4 e7e5")
    resign(table.session, BLACK)
    old_pgn = table.session.file.record.pgn_name
    table.session.new_game(white="Carla", black="Dan")
    table.board.set_occupied(0)
    table.wait(1)
    table.setup()                        # the chosen game begins: its own record, no choice left
    assert table.session.snapshot()["started"]
    saved = saved_json(table)
    assert "next_game" not in saved and saved["white"] == "Carla" and saved["pgn_name"] != old_pgn
    assert saved["moves"] == [] and saved["outcome"] is None
    session = reboot(table)              # a cut before its first move: that game, not the old one
    snap = english(session.snapshot())
    assert snap["players"] == {"white": "Carla", "black": "Dan"} and not snap["over"]
    table.play("c2c4")
    session = reboot(table)
    snap = english(session.snapshot())
    assert snap["moves"]["uci"] == ["c2c4"] and snap["players"] == {"white": "Carla", "black": "Dan"}
    games = sorted(p.name for p in session.file.recorder.games_dir.iterdir())
    assert len(games) == 2 and old_pgn in games


async def test_the_opponent_chosen_for_a_new_game_plays_it_after_a_restart(tmp_path):
    table = Table(tmp_path, white="Ada", black="Bob")
    table.setup()
    table.play("e2e4")
    resign(table.session, WHITE)
    table.session.new_game(opponent="engine", engine_side="white", engine_level=3, black="Carla")
    try:
        await table.session.wait_idle()
        assert english(table.session.snapshot())["opponent"]["sides"] == ["white"]
    finally:
        await table.session.aclose()
    session = reboot(table)
    try:
        await session.start_opponent()
        await session.wait_idle()
        snap = english(session.snapshot())
        assert snap["opponent"]["kind"] == "engine" and snap["opponent"]["sides"] == ["white"]
        assert snap["players"]["black"] == "Carla" and snap["players"]["white"].startswith("Stockfish")
        assert session.config.engine.level == 3 and session.config.game.opponent == "engine"
    finally:
        await session.aclose()


async def test_two_players_chosen_after_a_game_against_the_engine_play_without_it_after_a_restart(tmp_path):
    from firmware.opponents.factory import build_opponent
    table = Table(tmp_path, white="Ada", black="Bob", opponent="engine")
    table.setup()
    table.play("e2e4")
    resign(table.session, WHITE)
    table.session.new_game(opponent="none", white="Carla", black="Dan")
    table.board.stop()
    session = table.session = table.new_session(opponent=build_opponent(table.config))   # as the service builds it
    try:
        assert session.restore(table.t) and session.opponent is None   # the engine built for [game] is dropped
        await session.start_opponent()
        await session.wait_idle()
        snap = english(session.snapshot())
        assert snap["opponent"]["kind"] == "none" and snap["players"] == {"white": "Carla", "black": "Dan"}
    finally:
        await session.aclose()


def test_a_chosen_game_that_cannot_be_set_up_is_set_aside_and_changes_nothing(tmp_path):
    """Issue 32, item 7: its [game] settings were applied before its opponent failed to be set up,
    so the board started with the time control and opponent of a choice it had set aside."""
    from firmware.opponents.base import OpponentKind
    table = Table(tmp_path, white="Ada", black="Bob", time_control="300+5")
    table.setup()
    table.play("e2e4")
    resign(table.session, BLACK)
    table.session.new_game(white="Carla", black="Dan", time_control="600+10", rules="casual")
    saved = saved_json(table)
    saved["next_game"]["game"]["opponent"] = "engine"     # an engine that plays no side: cannot be set up
    saved["next_game"]["engine_sides"] = []
    current = table.session.file.recorder.current_path
    current.write_text(json.dumps(saved))
    table.board.stop()
    session = table.session = table.new_session()
    assert not session.restore(table.t)
    assert current.with_suffix(".json.damaged").exists() and not current.exists()
    assert session.config == table.config                 # the configuration as it was, whole
    assert (session.config.game.time_control, session.config.game.rules) == ("300+5", "fide")
    assert session.seat.choice is OpponentKind.NONE and session.opponent is None
    table.board.start(table.feed)
    table.setup()
    assert session.snapshot()["time_control"] == "300+5"
