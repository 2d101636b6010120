"""Commands of the web companion: new game, resign, draws, pause, takeback, touch-move, settings."""
from __future__ import annotations

import pytest

from chess_core import BLACK, WHITE
from firmware.session.view import feedback_state
from firmware.referee.feedback import LedStyle
from firmware.session.session import SessionError
from firmware.session.game_commands import accept_draw, claim_draw, correct, decline_draw, offer_draw, pause, resign, resume, takeback, update_settings

from .session_support import Table

STYLE = LedStyle()


def test_resign_from_the_companion(tmp_path):
    table = Table(tmp_path)
    table.setup()
    table.play("e2e4")
    resign(table.session, "black")
    assert table.session.snapshot()["status"] == "White wins by resignation"
    with pytest.raises(SessionError, match="over"):
        resign(table.session, WHITE)


def test_commands_before_the_game_are_refused(tmp_path):
    table = Table(tmp_path)
    with pytest.raises(SessionError, match="set up the pieces"):
        resign(table.session, WHITE)
    with pytest.raises(SessionError, match="colour"):
        table.setup()
        resign(table.session, "green")


def test_a_draw_offered_and_accepted(tmp_path):
    table = Table(tmp_path)
    table.setup()
    table.play("e2e4")
    offer_draw(table.session, "white")
    assert table.session.snapshot()["draw_offer"] == "white"
    with pytest.raises(SessionError, match="no draw offer"):
        accept_draw(table.session, "white")
    accept_draw(table.session, "black")
    assert table.session.snapshot()["status"] == "Draw by agreement"


def test_a_draw_offered_and_declined(tmp_path):
    table = Table(tmp_path)
    table.setup()
    offer_draw(table.session, WHITE)
    decline_draw(table.session, BLACK)
    assert table.session.snapshot()["draw_offer"] is None


def test_offers_from_both_sides_make_an_agreement(tmp_path):
    table = Table(tmp_path)
    table.setup()
    offer_draw(table.session, BLACK)
    offer_draw(table.session, WHITE)
    assert table.session.game.outcome.termination.value == "agreement"


def test_a_draw_claim_must_be_valid(tmp_path):
    table = Table(tmp_path)
    table.setup()
    with pytest.raises(SessionError, match="no draw can be claimed"):
        claim_draw(table.session)
    table.play_all("g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1", think=0.2)
    claim_draw(table.session, move="Ng8")  # the move that repeats the position a third time
    snap = table.session.snapshot()
    assert snap["status"] == "Draw by threefold repetition" and snap["moves"]["san"][-1] == "Ng8"


def test_pausing_stops_both_clocks(tmp_path):
    table = Table(tmp_path, time_control="60")
    table.setup()
    table.play("e2e4", think=0)
    pause(table.session)
    snap = table.session.snapshot()
    assert snap["clocks"]["paused"] and snap["clocks"]["running"] is None
    assert snap["status"] == "Clock paused"
    paused_black = snap["clocks"]["black"]
    table.wait(20)
    assert table.session.snapshot()["clocks"]["black"] == paused_black
    resume(table.session)
    table.wait(2)
    snap = table.session.snapshot()
    assert snap["clocks"]["running"] == "black" and not snap["clocks"]["paused"]
    assert snap["clocks"]["black"] == paused_black - 2000


def test_a_move_made_while_the_clock_is_paused_is_held_and_earns_no_increment(tmp_path):
    """Issue 26.8: a paused clock is a stopped game, as on a DGT clock: the move is not recorded,
    its squares are lit to be put back, and it is made again once the clock runs (with its increment then)."""
    table = Table(tmp_path, time_control="60+5")
    table.setup()
    table.play("e2e4", think=0)
    pause(table.session)
    paused = table.session.snapshot()["clocks"]
    table.play("e7e5", think=0)
    table.wait(10)
    snap = table.session.snapshot()
    assert [m.uci() for m in table.session.game.moves] == ["e2e4"]
    assert snap["clocks"]["black"] == paused["black"] and snap["clocks"]["white"] == paused["white"]
    assert snap["move_clocks"] == [65_000]   # the increment of e4 only
    assert set(snap["wrong"]) == {"e5", "e7"} and table.lit_names(STYLE.fix) == {"e5", "e7"}
    assert snap["status"] == "Clock paused: put the pawn on e5 back on e7, then resume the clock to play on"
    assert snap["status_fr"] == ("Pendule arrêtée : remettez le pion de e5 en e7, puis relancez la pendule "
                                 "pour continuer")
    assert snap["problems"] == []   # a held move is no misread
    resume(table.session)
    table.wait(1)
    snap = table.session.snapshot()
    assert [m.uci() for m in table.session.game.moves] == ["e2e4"]   # still to be put back first
    assert set(snap["wrong"]) == {"e5", "e7"} and snap["status"] == "Put the pawn on e5 back on e7"
    table.lift("e5")
    table.place("e7")
    assert table.session.snapshot()["status"] == "Black to move"
    table.play("e7e5", think=2)
    snap = table.session.snapshot()
    assert [m.uci() for m in table.session.game.moves] == ["e2e4", "e7e5"]
    assert snap["move_clocks"][-1] < paused["black"] + 5000 and snap["clocks"]["running"] == "white"


def test_a_piece_lifted_while_the_clock_is_paused_and_put_back_is_no_touch_move(tmp_path):
    table = Table(tmp_path, time_control="60", touch_move=True)
    table.setup()
    pause(table.session)
    table.lift("g1")
    assert set(table.session.snapshot()["wrong"]) == {"g1"}
    table.place("g1")
    resume(table.session)
    snap = table.session.snapshot()
    assert snap["wrong"] == [] and snap["touched"] is None and snap["status"] == "White to move"
    table.play("e2e4")
    assert [m.uci() for m in table.session.game.moves] == ["e2e4"]


def test_a_takeback_from_the_companion_shows_the_pieces_to_put_back(tmp_path):
    table = Table(tmp_path, takebacks=True)
    table.setup()
    table.play_all("e2e4 e7e5")
    takeback(table.session)
    snap = table.session.snapshot()
    assert snap["status"] == "Take back e5: put the pawn back on e7"
    assert snap["status_fr"] == "Reprenez e5 : remettez le pion en e7"
    assert set(snap["wrong"]) == {"e5", "e7"} and snap["takeback_move"] == "e7e5"
    table.lift("e5")
    table.place("e7")
    snap = table.session.snapshot()
    assert snap["wrong"] == [] and snap["status"] == "Black to move"
    assert table.session.file.recorder.load().moves == ["e2e4"]


def test_takebacks_can_be_refused(tmp_path):
    table = Table(tmp_path)
    table.setup()
    table.play("e2e4")
    with pytest.raises(SessionError, match="takebacks are not allowed"):
        takeback(table.session)


def test_a_takeback_on_the_board(tmp_path):
    table = Table(tmp_path, takebacks=True)
    table.setup()
    table.play_all("e2e4 e7e5")
    table.wait(2)
    table.lift("e5")
    table.place("e7")
    table.wait(1)
    assert [m.uci() for m in table.session.game.moves] == ["e2e4"]


def test_touch_move_holds_the_player_to_the_touched_piece(tmp_path):
    table = Table(tmp_path, touch_move=True)
    table.setup()
    table.lift("g1")
    table.place("g1")
    snap = table.session.snapshot()
    assert snap["touched"] == "g1"
    assert table.lit_names(STYLE.legal) == {"f3", "h3"}
    table.lift("e2")
    table.place("e4")
    assert table.session.snapshot()["wrong"]  # another piece may not move
    table.lift("e4")
    table.place("e2")
    table.play("g1f3")
    assert [m.uci() for m in table.session.game.moves] == ["g1f3"]


def test_a_new_game_from_the_companion_with_its_own_settings(tmp_path):
    table = Table(tmp_path, white="Ada", black="Bob")
    table.setup()
    table.play_all("e2e4 e7e5")
    first = table.session.file.record
    table.session.new_game(time_control="180+2", white="Cleo", black="Dan")
    snap = table.session.snapshot()
    assert snap["players"] == {"white": "Cleo", "black": "Dan"}
    assert snap["moves"]["uci"] == [] and snap["time_control"] == "180+2"
    assert snap["status"] == "Set up the pieces to start; take the pieces off e4 and e5, then put the pieces on e2 and e7"
    assert snap["status_fr"] == ("Placez les pièces pour commencer ; retirez les pièces de e4 et e5, "
                                 "puis posez les pièces sur e2 et e7")
    old = (tmp_path / "state" / "games" / first.pgn_name).read_text()
    assert '[Result "*"]' in old and "1. e4 e5 *" in old  # the unfinished game stays as it was
    assert table.session.file.recorder.load() is None  # and is not restored after a restart
    table.setup()
    assert table.session.referee.started and 179_000 < table.session.snapshot()["clocks"]["white"] <= 180_000


def test_a_new_game_with_a_bad_time_control_is_refused(tmp_path):
    table = Table(tmp_path)
    with pytest.raises(SessionError, match="game.time_control"):
        table.session.new_game(time_control="soon")


def test_settings_change_at_once(tmp_path):
    table = Table(tmp_path)
    table.setup()
    update_settings(table.session, show_legal_squares=False, white="Ada")
    table.lift("g1")
    assert table.lit_names() == {"g1"}
    assert table.session.snapshot()["players"]["white"] == "Ada"
    assert table.session.file.recorder.load().white == "Ada"
    with pytest.raises(SessionError, match="port"):
        update_settings(table.session, port=80)
    with pytest.raises(SessionError, match="game.touch_move"):
        update_settings(table.session, touch_move="yes")


# -- results decided off the board are not undone by a takeback (review of the restructure) ---------

def test_a_takeback_never_undoes_a_flag_a_resignation_or_a_draw(tmp_path):
    import pytest
    from firmware.session import SessionError
    table = Table(tmp_path, takebacks=True, time_control="5")
    table.setup()
    table.play_all("e2e4 e7e5")
    table.wait(10)                                    # White's flag falls
    assert table.session.snapshot()["status"] == "Black wins on time"
    with pytest.raises(SessionError, match="over"):
        takeback(table.session)
    assert table.session.snapshot()["status"] == "Black wins on time"
    assert [m.uci() for m in table.session.game.moves] == ["e2e4", "e7e5"]


def test_a_mate_taken_back_is_no_longer_over_in_the_saved_game(tmp_path):
    table = Table(tmp_path, takebacks=True)
    table.setup()
    table.play_all("f2f3 e7e5 g2g4 d8h4")
    assert table.session.game.is_over
    takeback(table.session)
    assert not table.session.game.is_over and table.session.live
    restarted = table.new_session()
    assert restarted.restore(table.t)
    assert not restarted.game.is_over and [m.uci() for m in restarted.game.moves] == ["f2f3", "e7e5", "g2g4"]


def test_pausing_as_a_flag_falls_leaves_the_game_over_not_paused(tmp_path):
    fen = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1"                 # Black has a lone king: a flag is judged at once
    table = Table(tmp_path, time_control="5", fen=fen, clock_start="at_once")
    table.setup(fen)
    table.t += 10                                      # White's flag fell while nobody polled
    pause(table.session, table.t)
    assert table.session.game.is_over and table.session.board_state.phase.over


def test_an_online_game_restored_after_a_restart_stays_online_before_the_server_speaks(tmp_path):
    import pytest
    from firmware.session import SessionError
    table = Table(tmp_path, takebacks=True)
    table.setup()
    table.play_all("e2e4 e7e5")
    table.session.file.record.online_id = "abcd1234"      # (an online game: its record keeps the server's id)
    update_settings(table.session, white="Ann")        # saved with it
    restarted = table.new_session()
    assert restarted.restore(table.t)
    assert not restarted.seat.assisted
    with pytest.raises(SessionError, match="server"):
        pause(restarted, table.t)
    assert not feedback_state(restarted, table.t).show_legal


def test_a_move_recorded_wrong_is_put_right_from_the_page(tmp_path):
    """Issue 11.6: the queen on c2 could take on c8 or g6; the readings fit both, the board recorded
    one, and the player picks the other from the moves that explain the board."""
    import pytest
    from firmware.session import SessionError
    fen = "2r4k/8/6p1/8/8/8/2Q5/K7 w - - 0 1"
    table = Table(tmp_path, fen=fen)
    table.setup(fen)
    table.lift("c2")
    table.lift("g6")
    table.place("g6")
    table.wait(3)
    session = table.session
    assert [m.uci() for m in session.game.moves] == ["c2g6"]
    state = session.state()
    assert [(m.uci(), en, fr) for m, en, fr in state.corrections] == [("c2c8", "Qxc8+", "Dxc8+")]
    with pytest.raises(SessionError, match="c2c8"):
        correct(session, "c2h7")
    correct(session, "c2c8")
    assert [m.uci() for m in session.game.moves] == ["c2c8"]
    assert [m.uci() for m, _, _ in session.state().corrections] == ["c2g6"]   # (and back, if that was wrong)
    assert session.file.recorder.load().moves == ["c2c8"]


def test_the_state_carries_the_led_and_engine_settings_as_configured(tmp_path):
    table = Table(tmp_path)
    update_settings(table.session, leds={"brightness": 0.25}, engine={"level": 3, "elo": 1500, "move_time": 2.5})
    settings = table.session.snapshot()["settings"]
    assert (settings["brightness"], settings["engine_level"], settings["engine_elo"], settings["engine_move_time"]) \
        == (0.25, 3, 1500, 2.5)


def test_a_draw_offer_heard_before_the_pieces_stand_does_not_carry_into_the_game(tmp_path):
    from firmware.opponents.base import Offer, OfferKind
    table = Table(tmp_path)
    table.session.other_side.offered(Offer(OfferKind.DRAW, BLACK))   # the opponent's, while setting up
    table.setup()
    assert table.session.live and table.session.snapshot()["draw_offer"] is None
    table.session.other_side.offered(Offer(OfferKind.DRAW, BLACK))   # during the game: heard
    assert table.session.snapshot()["draw_offer"] == "black"
