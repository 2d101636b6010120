"""A second position set up by hand after a first one (issue 35): the board must start from where the pieces stand now, not from what the first setup's guide last believed.

Found by the page's Chromium test (tests/web/test_setup_browser.py) chaining setups. These tests
held a bug of firmware/session/setup_guidance.py, since fixed:

* the guide of a setup stays in the board's state once the game has begun (done "until the next
  game"), and ``_known`` prefers it to the game's position whenever it is there, done or not;
* the guide stops following the board at the settled board on which the game begins
  (``followed`` returns at once when the phase is no longer SETTING_UP), so its belief lacks the
  last piece put down; and it never sees the game's moves.

So the next ``set_up_position`` plans from a stale belief: the square of the last piece put down
holds an unknown piece ("the piece on e5 to the box"), or the target's piece where another
stands (the game may then begin with a wrong piece there), and the moves played since are ignored.
"""
from __future__ import annotations

from chess_core import STARTING_FEN
from firmware.session.setup_guidance import set_up_position
from firmware.training.setup_plan import fewest_moves, placement

from .session_support import Table
from .test_session_setup import MIDDLEGAME, follow, steps_of

AFTER_MIDDLEGAME = "r2qk2r/pppb1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQ1RK1 w kq - 3 7"


def set_up_by_hand(table: Table, fen: str) -> None:
    set_up_position(table.session, fen, table.t)
    follow(table)
    assert table.session.snapshot()["started"] and table.session.game.fen() == fen


def test_the_guide_sees_the_last_piece_put_down_the_one_on_which_the_game_begins(tmp_path):
    table = Table(tmp_path)
    table.setup()
    set_up_by_hand(table, MIDDLEGAME)
    guide = table.session.board_state.setup
    assert dict(guide.board) == placement(MIDDLEGAME) and guide.done   # (e5 is missing: the last put down)


def test_a_second_setup_starts_from_the_first_ones_position(tmp_path):
    table = Table(tmp_path)
    table.setup()
    set_up_by_hand(table, MIDDLEGAME)
    set_up_position(table.session, STARTING_FEN, table.t)   # (e5 empty there: its piece is believed unknown)
    steps = steps_of(table)
    assert "?" not in [piece for piece, _, _ in steps], steps
    assert dict(table.session.board_state.setup.board) == placement(MIDDLEGAME)
    assert len(steps) == fewest_moves(placement(MIDDLEGAME), placement(STARTING_FEN))


def test_a_setup_after_a_game_played_from_a_set_up_position_starts_from_where_the_game_stands(tmp_path):
    table = Table(tmp_path)
    table.setup()
    set_up_by_hand(table, MIDDLEGAME)
    table.play("c1g5")
    table.play("h7h6")
    now = table.session.game.fen()
    set_up_position(table.session, AFTER_MIDDLEGAME, table.t)
    steps = steps_of(table)
    assert "?" not in [piece for piece, _, _ in steps], steps
    assert len(steps) == fewest_moves(placement(now), placement(AFTER_MIDDLEGAME))


def test_after_a_game_the_next_setup_plans_from_where_its_pieces_stood(tmp_path):
    table = Table(tmp_path)
    table.setup()
    table.play_all("e2e4 e7e5 g1f3")
    table.session.new_game(table.t)                       # (a new game: the board waits for the start position)
    set_up_position(table.session, "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2", table.t)
    assert steps_of(table) == [("N", "f3", "g1")]         # the knight the last game left on f3, not "?" to the box


def test_a_reviewed_games_lights_give_way_to_the_steps(tmp_path):
    from chess_core import Move
    from firmware.analysis.leds import review_layer
    from firmware.session.commands import show_on_board
    table = Table(tmp_path)
    table.setup()
    show_on_board(table.session, review_layer(Move.from_uci("e2e4"), Move.from_uci("d2d4"), table.session.style),
                  table.t)
    assert table.session.board_state.lights.get("review") is not None
    set_up_position(table.session, MIDDLEGAME, table.t)
    assert table.session.board_state.lights.get("review") is None
    assert table.session.board_state.lights.get("setup") is not None
