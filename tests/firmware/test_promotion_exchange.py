"""The usual way of promoting: the pawn set on the last rank, then exchanged on that square for the new piece (FIDE 3.7.5.3)."""
from __future__ import annotations

import chess
import pytest

from chess_core import KNIGHT, QUEEN, ROOK
from firmware.commands.replay import game_json, replay
from firmware.referee.feedback import LedStyle
from firmware.referee.match import MatchConfig
from firmware.session.game_commands import button, choose_promotion
from tests.fakes.hands import stepped_lines
from tests.firmware.session_support import Table

STYLE = LedStyle()
ISSUE_FEN = "8/4P3/8/8/8/8/k7/4K3 w - - 0 1"
# White's d7 pawn may also take the rook on e8 (a capture on the promotion square).
CAPTURE_FEN = "4r3/3P4/8/8/8/8/k7/4K3 w - - 0 1"


def sq(name: str) -> int:
    return 1 << chess.parse_square(name)


def exchange_capture(fen: str, steps: list[tuple[float, list[str], list[str]]]) -> list[str]:
    """A capture from ``fen``: at each (seconds after the previous step, lifted, placed) step the
    squares named go empty or full (occupancy only), then 3 s of stillness."""
    start = int(chess.Board(fen).occupied)
    lines, t, occ = stepped_lines(start, 0, steps, unit_ms=1000)
    return [f"0 {start:016x}", *lines, f"{int(round(t + 3000))} {occ:016x}"]


def test_the_issue_capture_records_a_queen():
    # e7 lifted, e8 set 0.3 s later, e8 lifted 1.5 s later, e8 set 1.2 s later, then Black's Kb2
    lines = exchange_capture(ISSUE_FEN, [(1.0, ["e7"], []), (0.3, [], ["e8"]), (1.5, ["e8"], []),
                                         (1.2, [], ["e8"]), (2.0, ["a2"], []), (0.4, [], ["b2"])])
    data = game_json(replay(lines, MatchConfig(fen=ISSUE_FEN)))
    assert data["moves"] == ["e7e8q", "a2b2"]
    assert data["san"] == ["e8=Q", "Kb2"]
    assert data["gestures"] == [] and data["problems"] == []


@pytest.mark.parametrize("before", [0.2, 1.0, 10.0])     # the pawn stands on e8 this long
@pytest.mark.parametrize("in_hand", [0.4, 1.2, 10.0])    # the square stays empty this long
@pytest.mark.parametrize("timed", [False, True])         # the opponent's clock running or not
def test_the_exchange_after_any_pause_keeps_the_queen(before, in_hand, timed):
    lines = exchange_capture(ISSUE_FEN, [(1.0, ["e7"], []), (0.3, [], ["e8"]), (before, ["e8"], []),
                                         (in_hand, [], ["e8"]), (2.0, ["a2"], []), (0.4, [], ["b2"])])
    config = MatchConfig(fen=ISSUE_FEN, time_control="300+3" if timed else "-")
    data = game_json(replay(lines, config))
    assert data["moves"] == ["e7e8q", "a2b2"] and data["gestures"] == []


@pytest.mark.parametrize("victim_first", [True, False])
def test_the_exchange_after_a_capture_on_the_promotion_square_keeps_the_queen(victim_first):
    capture = [(1.0, ["e8"], []), (0.5, ["d7"], [])] if victim_first else [(1.0, ["d7"], []), (0.5, ["e8"], [])]
    lines = exchange_capture(CAPTURE_FEN, capture + [(0.6, [], ["e8"]), (1.0, ["e8"], []), (2.0, [], ["e8"]),
                                                     (2.0, ["a2"], []), (0.4, [], ["b2"])])
    data = game_json(replay(lines, MatchConfig(fen=CAPTURE_FEN)))
    assert data["moves"] == ["d7e8q", "a2b2"] and data["san"] == ["dxe8=Q", "Kb2"]
    assert data["gestures"] == [] and data["problems"] == []


def test_the_new_piece_adjusted_after_the_exchange_stays_a_queen():
    # the exchange, then the queen straightened on its square twice (j'adoube), before Black moves
    lines = exchange_capture(ISSUE_FEN, [(1.0, ["e7"], []), (0.3, [], ["e8"]), (0.8, ["e8"], []),
                                         (0.5, [], ["e8"]), (0.6, ["e8"], []), (0.2, [], ["e8"]),
                                         (0.3, ["e8"], []), (0.2, [], ["e8"]),
                                         (2.0, ["a2"], []), (0.4, [], ["b2"])])
    data = game_json(replay(lines, MatchConfig(fen=ISSUE_FEN)))
    assert data["moves"] == ["e7e8q", "a2b2"] and data["gestures"] == []


def test_a_promote_line_still_under_promotes_and_the_exchange_keeps_its_piece():
    fen = "8/4P3/8/7p/8/8/k7/4K3 w - - 0 1"   # (with a knight and no pawn the game would be dead)
    lines = exchange_capture(fen, [(1.0, ["e7"], []), (0.3, [], ["e8"]), (1.0, ["e8"], []),
                                         (1.0, [], ["e8"]), (2.0, ["a2"], []), (0.4, [], ["b2"])])
    lines.insert(2, f"{int(1.1 * 1000)} promote n")   # chosen on the page while the pawn is in hand
    data = game_json(replay(lines, MatchConfig(fen=fen)))
    assert data["moves"] == ["e7e8n", "a2b2"] and data["san"] == ["e8=N", "Kb2"]


# -- through the whole session ------------------------------------------------------------------

def _promoted(tmp_path) -> Table:
    fen = "8/4P3/8/7p/8/8/k7/4K3 w - - 0 1"
    table = Table(tmp_path, fen=fen)
    table.setup(fen)
    table.play("e7e8")
    assert table.session.game.moves[-1].promotion == QUEEN
    return table


def test_the_session_keeps_the_queen_through_the_exchange_and_still_blinks_the_choice(tmp_path):
    table = _promoted(tmp_path)
    table.lift("e8", wait=1.5)     # the pawn taken off
    table.place("e8", wait=1.0)    # the queen set down
    assert table.session.game.moves[-1].promotion == QUEEN
    assert table.session.state().promotion_square == chess.E8   # still open for the page and the button
    assert table.lit_names(STYLE.promotion, blink_on=True) == {"e8"}
    table.play("a2b2")
    assert [m.uci() for m in table.session.game.moves] == ["e7e8q", "a2b2"]
    assert table.session.file.recorder.load().moves == ["e7e8q", "a2b2"]


def test_the_page_under_promotes_after_the_exchange(tmp_path):
    table = _promoted(tmp_path)
    table.lift("e8", wait=1.5)
    table.place("e8", wait=1.0)
    choose_promotion(table.session, "n")
    assert table.session.snapshot()["moves"]["san"] == ["e8=N"]
    table.lift("e8", wait=0.5)     # straightening the knight changes nothing
    table.place("e8", wait=1.0)
    assert table.session.game.moves[-1].promotion == KNIGHT


def test_the_promote_button_cycles_and_the_exchange_does_not(tmp_path):
    table = _promoted(tmp_path)
    button(table.session, "promote")
    assert table.session.game.moves[-1].promotion == ROOK
    table.lift("e8", wait=1.0)
    table.place("e8", wait=1.0)
    assert table.session.game.moves[-1].promotion == ROOK


# -- beside a piece the pawn could have taken ------------------------------------------------------

BESIDE_FEN = "4n2k/5P2/8/8/8/8/8/K7 w - - 0 1"   # f7-f8 promotes; f7xe8 would take the knight


@pytest.mark.parametrize("piece", ["q", "r"])
def test_the_exchange_beside_a_piece_the_pawn_could_take_is_no_swept_capture(piece):
    # f8 emptied for 3 s while the new piece is fetched: on occupancy that is also f7xe8 with the
    # knight swept off e8; it must not become the move, nor undo the rook chosen on the page
    steps = [(1.0, ["f7"], []), (0.3, [], ["f8"]), (1.0, ["f8"], []), (3.0, [], ["f8"]),
             (2.0, ["h8"], []), (0.4, [], ["h7"])]
    lines = exchange_capture(BESIDE_FEN, steps)
    if piece != "q":
        lines.insert(2, f"{int(1.1 * 1000)} promote {piece}")
    data = game_json(replay(lines, MatchConfig(fen=BESIDE_FEN)))
    assert data["moves"] == [f"f7f8{piece}", "h8h7"] and data["problems"] == []


def test_the_inference_reads_no_amend_into_the_exchange():
    from firmware.referee.inference import VerdictKind
    from tests.fakes.hands import Hand
    hand = Hand(BESIDE_FEN)
    hand.inference.choose_promotion(ROOK)
    hand.move("f7", "f8")
    hand.settle()
    assert hand.moves() == ["f7f8r"]
    hand.lift("f8")                  # the pawn taken off...
    hand.wait(10.0)                  # ...a rook fetched from the box
    hand.place("f8", colour=0)
    hand.wait(5.0)
    assert VerdictKind.AMEND not in hand.kinds() and hand.moves() == ["f7f8r"]
    hand.move("h8", "h7")
    assert hand.moves() == ["f7f8r", "h8h7"]


def test_a_choice_for_a_pawn_put_back_promotes_no_later_pawn_nor_the_other_sides():
    # the tester's finding: N chosen with e7 in hand, the pawn put back, Kd2 played; Black's h2-h1
    # then landed as h1=N with Black choosing nothing
    fen = "8/4P3/8/8/8/8/k6p/4K3 w - - 0 1"
    steps = [(1.0, ["e7"], []), (1.0, [], ["e7"]), (1.0, ["e1"], []), (0.4, [], ["d2"]),
             (1.5, ["h2"], []), (0.4, [], ["h1"]), (2.0, ["e7"], []), (0.4, [], ["e8"])]
    lines = exchange_capture(fen, steps)
    lines.insert(2, f"{int(1.5 * 1000)} promote n")   # chosen on the page while e7 is in hand
    data = game_json(replay(lines, MatchConfig(fen=fen)))
    assert data["moves"] == ["e1d2", "h2h1q", "e7e8q"] and data["problems"] == []


def test_the_page_is_told_when_the_choice_came_too_late(tmp_path):
    from firmware.session.session import SessionError
    table = _promoted(tmp_path)
    table.lift("a2", wait=0.5)          # Black has begun: the promotion stands
    with pytest.raises(SessionError, match="e8=Q stands"):
        choose_promotion(table.session, "r")
    choose_promotion(table.session, "q")   # the piece it is: nothing to change, no error
    assert table.session.game.moves[-1].promotion == QUEEN
