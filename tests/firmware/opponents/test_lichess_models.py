"""Lichess events read into our values: states, endings, clocks counted down locally, castling, challenges."""
from __future__ import annotations

import pytest

from chess_core import BLACK, STARTING_FEN, WHITE, Move, Position, Termination
from firmware.opponents.base import ServerClock
from firmware.opponents.lichess.models import (BoardState, MovesReader, challenge_of, game_id_of, game_sync_of,
                                               normalize_castling, parse_moves, time_control_of)

# The examples of Lichess's API documentation.
GAME_FULL = {
    "id": "xcoxhDvh", "variant": {"key": "standard", "name": "Standard", "short": "Std"}, "speed": "blitz",
    "perf": {"name": "Blitz"}, "rated": False, "createdAt": 1789845859939,
    "white": {"id": "kenneth", "name": "Kenneth", "title": None, "rating": 804},
    "black": {"id": "salma", "name": "Salma", "title": None, "rating": 714},
    "initialFen": "startpos", "clock": {"initial": 300000, "increment": 0}, "type": "gameFull",
    "state": {"type": "gameState", "moves": "", "wtime": 300000, "btime": 300000, "winc": 0, "binc": 0,
              "status": "started"},
}
RESIGNED = {"type": "gameState", "moves": "e2e4 c7c5 f2f4 d7d6 g1f3 b8c6 f1c4 g8f6 d2d3 g7g6 e1g1 f8g7 b1c3",
            "wtime": 7598040, "btime": 8395220, "winc": 10000, "binc": 10000, "status": "resign", "winner": "black"}
CHALLENGE = {"type": "challenge", "challenge": {
    "id": "7pGLxJ4F", "url": "https://lichess.org/VU0nyvsW", "status": "created",
    "challenger": {"id": "lovlas", "name": "Lovlas", "title": "IM", "rating": 2506},
    "destUser": {"id": "thibot", "name": "thibot", "rating": 1500}, "variant": {"key": "standard"},
    "rated": True, "timeControl": {"type": "clock", "limit": 300, "increment": 25, "show": "5+25"},
    "color": "random", "finalColor": "white", "speed": "rapid", "perf": {"icon": "#", "name": "Rapid"}}}


def test_a_game_full_becomes_the_whole_game_for_the_session():
    sync = game_sync_of(GAME_FULL, BLACK, ())
    assert (sync.start_fen, sync.moves, sync.local_colors) == (STARTING_FEN, (), frozenset({BLACK}))
    assert (sync.white.name, sync.white.rating, sync.black.name) == ("Kenneth", 804, "Salma")
    assert (sync.game_id, sync.time_control, sync.speed, sync.rated) == ("xcoxhDvh", "300+0", "blitz", False)


def test_a_resigned_state_is_read_with_its_winner():
    state = BoardState.from_event(RESIGNED)
    assert state.over and state.plies() == 13 and state.winner == BLACK
    end = state.end()
    assert end.outcome.termination is Termination.RESIGNATION and end.outcome.result() == "0-1"


@pytest.mark.parametrize("status, winner, termination, result", [
    ("mate", "white", Termination.CHECKMATE, "1-0"),
    ("outoftime", "black", Termination.TIME_FORFEIT, "0-1"),
    ("outoftime", None, Termination.TIME_VS_INSUFFICIENT, "1/2-1/2"),
    ("stalemate", None, Termination.STALEMATE, "1/2-1/2"),
    ("draw", None, Termination.AGREEMENT, "1/2-1/2"),
    ("timeout", "white", Termination.ABANDONED, "1-0"),
    ("insufficientMaterialClaim", None, Termination.INSUFFICIENT_MATERIAL, "1/2-1/2"),
])
def test_every_lichess_ending_has_our_termination(status, winner, termination, result):
    event = {"moves": "e2e4", "status": status, **({"winner": winner} if winner else {})}
    end = BoardState.from_event(event).end()
    assert end.outcome.termination is termination and end.outcome.result() == result


def test_an_aborted_game_has_no_outcome():
    end = BoardState.from_event({"moves": "", "status": "aborted"}).end()
    assert end.status == "aborted" and end.outcome is None


def test_offers_are_read_from_the_flags_that_are_present():
    state = BoardState.from_event({"moves": "e2e4 e7e5", "status": "started", "bdraw": True, "wtakeback": True})
    assert state.draw_offers == {BLACK} and state.takeback_offers == {WHITE}
    assert BoardState.from_event({"moves": "", "status": "started"}).draw_offers == frozenset()


def test_the_clock_runs_only_once_both_sides_have_moved():
    one = BoardState.from_event({"moves": "e2e4", "wtime": 300000, "btime": 300000, "status": "started"})
    two = BoardState.from_event({"moves": "e2e4 e7e5", "wtime": 298000, "btime": 297000, "status": "started"})
    assert one.clock(WHITE, at=5.0).running is None
    assert two.clock(WHITE, at=5.0).running == WHITE
    assert BoardState.from_event(RESIGNED).clock(WHITE, at=1.0).running is None


def test_the_server_clock_is_counted_down_locally_between_events():
    clock = ServerClock(white_ms=61_000, black_ms=30_000, running=BLACK, at=100.0)
    assert clock.remaining(BLACK, now=100.0) == 30_000
    assert clock.remaining(BLACK, now=112.25) == 17_750
    assert clock.remaining(WHITE, now=112.25) == 61_000, "the waiting side's clock stands"
    assert clock.remaining(BLACK, now=200.0) == 0, "never below zero"
    assert clock.remaining(BLACK, now=99.0) == 30_000, "a time before the event counts as the event's"


def test_moves_are_checked_and_castling_written_king_to_rook_is_understood():
    position = Position("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    assert normalize_castling(position, Move.from_uci("e1h1")) == Move.from_uci("e1g1")
    assert normalize_castling(position, Move.from_uci("e1a1")) == Move.from_uci("e1c1")
    assert normalize_castling(position, Move.from_uci("e1f1")) == Move.from_uci("e1f1")
    with pytest.raises(ValueError, match="e2e5, which is illegal after e2e4"):
        parse_moves(STARTING_FEN, "e2e4 e2e5")


def test_the_moves_reader_reuses_its_work_and_follows_a_takeback():
    reader = MovesReader(STARTING_FEN)
    assert [m.uci() for m in reader.read("e2e4 e7e5 g1f3")] == ["e2e4", "e7e5", "g1f3"]
    assert [m.uci() for m in reader.read("e2e4 e7e5")] == ["e2e4", "e7e5"]
    assert [m.uci() for m in reader.read("e2e4 e7e5 f1c4 g8f6")] == ["e2e4", "e7e5", "f1c4", "g8f6"]
    assert [m.uci() for m in reader.read("d2d4")] == ["d2d4"]
    assert reader.read("") == ()


def test_a_from_position_game_keeps_its_fen_and_a_correspondence_game_its_days():
    fen = "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1"
    full = dict(GAME_FULL, initialFen=fen, clock=None, daysPerTurn=3)
    sync = game_sync_of(full, WHITE, ())
    assert sync.start_fen == fen and sync.time_control == "1/259200"
    assert time_control_of({"clock": None}) == "-"


def test_a_challenge_event_is_read():
    event = challenge_of(CHALLENGE)
    assert (event.kind, event.id, event.challenger.name, event.challenger.title) == ("challenge", "7pGLxJ4F",
                                                                                     "Lovlas", "IM")
    assert (event.time_control, event.speed, event.rated, event.color) == ("300+25", "rapid", True, "white")


def test_a_game_event_gives_its_id_under_either_name():
    assert game_id_of({"gameId": "abc", "id": "abc"}) == "abc"
    assert game_id_of({"id": "xyz"}) == "xyz"
    assert game_id_of({}) is None
