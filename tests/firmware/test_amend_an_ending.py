"""A move that ended the game by the position it made (mate, stalemate, a dead position) is still its mover's to put right until the opponent starts: its promotion's piece chosen just after, or a capture misread corrected; the outcome is judged again (issue 26.9)."""
from __future__ import annotations

import pytest

from chess_core import KNIGHT, ROOK, Position, Termination
from firmware.referee.match import BoardChanged, GameOver, Match, MatchConfig, MoveMade, Reopened
from firmware.session.session import SessionError
from firmware.session.game_commands import choose_promotion, correct, resign

from .session_support import Table
from .test_match import Table as Hands
from tests.said import english

# g7-g8=Q stalemates the king on a1; after g8=R it has a2: the game goes on; g8=N is a dead position.
STALEMATE_FEN = "8/6P1/8/8/8/8/8/k1K5 w - - 0 1"
# b7xc8=Q mates along the eighth rank; b7xa8=Q (the knight on c8 in the way) does not.
MATE_FEN = "n1n4k/1P4pp/8/8/8/8/8/4K3 w - - 0 1"


def _stalemated(tmp_path, **game) -> Table:
    table = Table(tmp_path, fen=STALEMATE_FEN, **game)
    table.setup(STALEMATE_FEN)
    table.lift("g7")
    table.place("g8")
    table.wait(1)
    session = table.session
    assert [m.uci() for m in session.game.moves] == ["g7g8q"]
    assert session.game.outcome.termination is Termination.STALEMATE
    return table


def _mated_by_the_wrong_capture(tmp_path) -> Table:
    """The hand took the c8 knight and set the pawn there: the board reads bxc8=Q#, the player meant a8."""
    table = Table(tmp_path, fen=MATE_FEN)
    table.setup(MATE_FEN)
    table.lift("c8")
    table.lift("b7")
    table.place("c8")
    table.wait(1)
    session = table.session
    assert session.snapshot()["moves"]["san"] == ["bxc8=Q#"]
    return table


def _pgn(table: Table) -> str:
    recorder = table.session.file.recorder
    return recorder.pgn_path(recorder.load()).read_text()


def test_a_rook_chosen_just_after_the_queen_stalemated_plays_on(tmp_path):
    table = _stalemated(tmp_path, time_control="5+0")
    session = table.session
    seen = []
    session.subscribe(seen.append)
    assert session.state().promotion is not None   # the page still offers the choice
    choose_promotion(session, "r", table.t)
    snap = english(session.snapshot())
    assert snap["moves"]["uci"] == ["g7g8r"] and snap["moves"]["san"] == ["g8=R"]
    assert not snap["over"] and snap["result"] == "*" and snap["status"] == "Black to move"
    assert seen[-1].outcome is None   # the page hears of it
    assert snap["clocks"]["running"] == "black"   # the game goes on: the other side's clock runs
    record = session.file.recorder.load()
    assert record.moves == ["g7g8r"] and record.get_outcome() is None
    assert '[Result "*"]' in _pgn(table)
    table.play("a1a2")   # and Black plays on
    assert [m.uci() for m in session.game.moves] == ["g7g8r", "a1a2"]


def test_a_knight_chosen_just_after_the_stalemate_draws_by_the_dead_position(tmp_path):
    table = _stalemated(tmp_path)
    session = table.session
    choose_promotion(session, "n", table.t)
    table.wait(0.5)
    assert session.game.moves[-1].promotion == KNIGHT
    assert session.game.outcome.termination is Termination.INSUFFICIENT_MATERIAL
    record = session.file.recorder.load()
    assert record.moves == ["g7g8n"] and record.get_outcome().termination is Termination.INSUFFICIENT_MATERIAL
    pgn = _pgn(table)
    assert '[Result "1/2-1/2"]' in pgn and "stalemate" not in pgn.lower()


def test_the_misread_mating_capture_is_corrected_and_the_game_goes_on(tmp_path):
    table = _mated_by_the_wrong_capture(tmp_path)
    session = table.session
    assert [(m.uci(), en) for m, en in session.state().corrections] == [("b7a8q", "bxa8=Q")]
    correct(session, "b7a8q", table.t)
    snap = english(session.snapshot())
    assert snap["moves"]["san"] == ["bxa8=Q"] and not snap["over"] and snap["status"] == "Black to move"
    record = session.file.recorder.load()
    assert record.moves == ["b7a8q"] and record.get_outcome() is None and '[Result "*"]' in _pgn(table)
    assert [(m.uci(), en) for m, en in session.state().corrections] == [("b7c8q", "bxc8=Q#")]
    correct(session, "b7c8q", table.t)   # and back: mate again
    snap = english(session.snapshot())
    assert snap["over"] and snap["result"] == "1-0" and snap["status"] == "White wins by checkmate"
    assert session.file.recorder.load().get_outcome().termination is Termination.CHECKMATE


def test_once_the_opponent_has_started_the_ending_stands(tmp_path):
    table = _stalemated(tmp_path)
    session = table.session
    table.lift("a1")   # Black takes its king: the game is over for them
    assert session.state().promotion is None
    with pytest.raises(SessionError, match="g8=Q stands"):
        choose_promotion(session, "r", table.t)
    assert [m.uci() for m in session.game.moves] == ["g7g8q"]
    assert session.game.outcome.termination is Termination.STALEMATE

    mated = _mated_by_the_wrong_capture(tmp_path / "mate")
    mated.lift("h7")
    assert mated.session.state().corrections == ()
    with pytest.raises(SessionError, match="over"):
        correct(mated.session, "b7a8q", mated.t)
    assert [m.uci() for m in mated.session.game.moves] == ["b7c8q"]


def test_a_result_decided_off_the_board_is_not_reopened_by_a_promotion(tmp_path):
    table = Table(tmp_path, fen="4k3/P7/8/8/8/8/8/4K3 w - - 0 1")
    table.setup("4k3/P7/8/8/8/8/8/4K3 w - - 0 1")
    table.lift("a7")
    table.place("a8")
    table.wait(1)
    session = table.session
    resign(session, "black", table.t)
    with pytest.raises(SessionError, match="over"):
        choose_promotion(session, "r", table.t)
    assert [m.uci() for m in session.game.moves] == ["a7a8q"]
    assert session.game.outcome.termination is Termination.RESIGNATION


def test_the_match_reopens_the_game_its_amended_move_no_longer_ends():
    match = Match(MatchConfig(fen=STALEMATE_FEN, time_control="5+0", exact_dead_positions=False))
    hands = Hands(match, occupied=0)
    hands.show(Position(STALEMATE_FEN).occupied, dt=0.0)
    hands.wait(0.1)
    hands.move("g7", "g8")
    assert match.game.outcome.termination is Termination.STALEMATE and match.timing.clock.paused
    white_left = match.remaining(hands.t)[0]
    events = match.change_promotion(ROOK, hands.t + 30)   # half a minute later: the clock stood still
    assert [type(e) for e in events if not isinstance(e, BoardChanged)] == [Reopened, MoveMade]
    assert match.game.outcome is None and not match.timing.clock.paused and match.timing.clock.running_side == 1
    assert match.remaining(hands.t + 30)[0] == white_left   # nobody's time while the game stood over
    assert not [e for e in events if isinstance(e, GameOver)]


async def test_an_online_game_the_board_stalemated_stays_ended(tmp_path):
    """Online the move went to the server, whose game is over: the board's record stands too."""
    from firmware.opponents.base import GameSync, Player
    from .test_session_opponent import ScriptedOpponent
    table = Table(tmp_path)
    opponent = ScriptedOpponent({})
    session = table.session
    await session.start_opponent(opponent)
    opponent.listener.game_sync(GameSync(STALEMATE_FEN, (), frozenset({0}), white=Player("me"), black=Player("them"),
                                         game_id="abcd1234"))
    table.setup(STALEMATE_FEN)
    table.lift("g7")
    table.place("g8")
    table.wait(1)
    assert session.game.outcome.termination is Termination.STALEMATE
    assert session.state().promotion is None and session.referee.amendable() is False
    with pytest.raises(SessionError, match="over"):
        choose_promotion(session, "r", table.t)
    assert [m.uci() for m in session.game.moves] == ["g7g8q"]
    await session.aclose()
