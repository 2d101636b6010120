"""Setting up the start position mid-game (held 2 s) leaves the game unfinished and begins the next one."""
from __future__ import annotations

from firmware.referee.restart_watch import RestartWatch, at_start
from firmware.session.state import Phase
from firmware.library.games import GameLibrary
from tests.firmware.session_support import Table


def back_to_start(table: Table, moves: list[str]) -> None:
    """The players put the pieces back on their start squares (the first move first: the last
    move's piece put back first would be that move taken back, which the board allows)."""
    for uci in moves:
        table.lift(uci[2:4])
        table.place(uci[:2])


def test_the_watch_needs_the_start_position_held_without_a_break():
    watch = RestartWatch(hold_s=2.0)
    watch.observe(10.0, True)
    assert watch.deadline() == 12.0 and not watch.due(11.9)
    watch.observe(11.0, False)     # a piece lifted again: on its way, not there
    assert watch.deadline() is None and not watch.due(20.0)
    watch.observe(13.0, True)
    assert watch.due(15.0)


def test_the_start_position_is_not_a_restart_while_the_game_stands_there():
    start = (0xFFFF00000000FFFF, 0xFFFF, 0xFFFF << 48)
    assert not at_start(start[0], None, None, *start, game_occupied=start[0])
    assert at_start(start[0], None, None, *start, game_occupied=start[0] ^ (1 << 12) ^ (1 << 28))
    assert not at_start(start[0], start[2], start[1], *start, game_occupied=0)   # colours swapped


def test_setting_up_the_start_position_ends_the_game_unfinished_and_starts_the_next(tmp_path):
    table = Table(tmp_path, white="Anna", black="Ben", alternate_colours=True)
    table.setup()
    moves = ["e2e4", "e7e5", "g1f3"]
    table.play_all(" ".join(moves))
    session = table.session
    first = session.file.record.pgn_name
    back_to_start(table, moves)
    assert session.game.moves and session.file.record.pgn_name == first   # not yet: a position on its way
    table.wait(2.0)
    assert session.board_state.phase is Phase.PLAYING and session.game.moves == []
    assert session.board_state.names == ("Ben", "Anna")                            # colours alternate
    assert session.file.record is not None and session.file.record.pgn_name != first
    pgn = (tmp_path / "state" / "games" / first).read_text()
    assert '[Result "*"]' in pgn and '[Termination "abandoned"]' in pgn and "1. e4 e5 2. Nf3 *" in pgn
    listed = {g["id"] + ".pgn": g for g in GameLibrary(tmp_path / "state" / "games").games()}
    assert listed[first]["abandoned"] and not listed[first]["in_progress"]
    table.play("d2d4")
    assert [m.uci() for m in session.game.moves] == ["d2d4"]


def test_a_start_position_passed_through_is_not_taken_for_a_new_game(tmp_path):
    table = Table(tmp_path)
    table.setup()
    table.play_all("e2e4 e7e5")
    back_to_start(table, ["e2e4", "e7e5"])
    table.lift("d2", wait=0.1)     # a moment at the start, then a piece moves on
    table.wait(3.0)
    assert [m.uci() for m in table.session.game.moves] == ["e2e4", "e7e5"]


def test_new_game_marks_the_game_in_progress_abandoned(tmp_path):
    table = Table(tmp_path)
    table.setup()
    table.play_all("e2e4 e7e5")
    first = table.session.file.record.pgn_name
    table.session.new_game(table.t)
    pgn = (tmp_path / "state" / "games" / first).read_text()
    assert '[Termination "abandoned"]' in pgn and "1. e4 e5 *" in pgn
    assert table.session.file.recorder.load() is None or table.session.file.recorder.load().pgn_name != first
