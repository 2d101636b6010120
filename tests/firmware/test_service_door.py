"""The session's door at its edges: a stop with messages queued, refusals and failures said, stale news left out, changes from elsewhere refused before they are made."""
from __future__ import annotations

import asyncio
import logging

import pytest

from firmware.session import SessionError
from firmware.session.door import Command, News
from tests.firmware.test_service import live_service


async def test_a_command_queued_when_the_service_stops_is_refused_not_left_waiting(tmp_path):
    """Two page commands queued, then a stop: the first is carried out, the second refused."""
    service, task, _ = await live_service(tmp_path)
    door = service.session.door
    first = door.send(Command("pause", ()))
    second = door.send(Command("resume", ()))
    service.stop()
    assert await asyncio.wait_for(task, 5) == 0
    assert first.done() and first.exception() is None
    assert second.done()
    with pytest.raises(SessionError, match="stopping"):
        second.result()


async def test_a_command_sent_during_the_shutdown_is_refused_at_once(tmp_path):
    """A send while the service shuts down (its loop gone, the opponent still stopping)."""
    from tests.fakes.listening_opponent import ListeningOpponent

    class SlowToStop(ListeningOpponent):
        async def stop(self) -> None:
            await asyncio.sleep(0.2)

    service, task, _ = await live_service(tmp_path, opponent=SlowToStop())
    service.stop()
    await asyncio.sleep(0.05)     # the loop has stopped; the shutdown waits for the opponent
    with pytest.raises(SessionError, match="stopping"):
        service.session.door.send(Command("pause", ()))
    assert await asyncio.wait_for(task, 5) == 0


async def test_a_posted_news_that_is_refused_is_said_in_the_journal(tmp_path, caplog):
    service, task, _ = await live_service(tmp_path)

    def fails() -> None:
        raise SessionError("no_game")

    caplog.set_level(logging.DEBUG)
    service.session.door.post(News(fails))
    await service.processed()
    service.stop()
    assert await asyncio.wait_for(task, 5) == 0
    assert "no_game" in caplog.text or "fails" in caplog.text, "swallowed without a word"


async def test_a_pairing_that_fails_otherwise_than_refused_is_said_in_the_journal(tmp_path, caplog, monkeypatch):
    """serve_club: a pairing whose set_round fails with an OSError (the record could not be
    discarded) is not applied, and the journal says why."""
    import firmware.club.publisher as publisher

    heard = {}

    class FakePublisher:
        def __init__(self, *args, on_pairing, **kw):
            heard["on_pairing"] = on_pairing

        def on_state(self, state):
            pass

        def start(self):
            pass

        def stop(self):
            pass

    monkeypatch.setattr(publisher, "BoardPublisher", FakePublisher)
    monkeypatch.setattr(publisher.Broker, "parse", staticmethod(lambda url: None))
    service, task, _ = await live_service(tmp_path)
    session = service.session
    assert session.live and not session.game.moves and session.file.record is not None

    def broken(record):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(session.file.recorder, "discard", broken)
    club = asyncio.create_task(publisher.serve_club(service))
    await asyncio.sleep(0)
    caplog.set_level(logging.DEBUG)
    heard["on_pairing"]("Ada", "Bo", {})
    for _ in range(5):
        await asyncio.sleep(0.01)
        await service.processed()
    club.cancel()
    await asyncio.gather(club, return_exceptions=True)
    service.stop()
    assert await asyncio.wait_for(task, 5) == 0
    assert "Input/output error" in caplog.text, caplog.text


async def test_a_change_from_another_task_is_refused_before_it_is_made(tmp_path):
    """Past the door, from another task: a pairing, a frame shown, a value kept are refused
    before they change the configuration, the game's Play or the phase."""
    from firmware.leds.compose import Priority, of_frame
    from firmware.session.commands import show_on_board
    from firmware.session.effects import Keep
    from firmware.session.game_commands import set_round
    from firmware.session.state import Phase

    service, task, _ = await live_service(tmp_path)
    session = service.session
    try:
        with pytest.raises(RuntimeError, match="door"):
            set_round(session, "Ada", "Bo")
        changed = [session.config.game.white == "Ada"]
        with pytest.raises(RuntimeError, match="door"):
            show_on_board(session, of_frame("review", Priority.REVIEW, "review_move", (1,) * 64), 0.0)
        changed.append(session.board_state.lights.get("review") is not None)
        with pytest.raises(RuntimeError, match="door"):
            session.carry_out([Keep(phase=Phase.OVER)], 0.0)
        changed.append(session.board_state.phase is Phase.OVER)
    finally:
        service.stop()
        await asyncio.wait_for(task, 5)
    assert changed == [False, False, False], changed


async def test_an_engine_move_posted_before_a_reset_is_not_carried_into_the_game_after_it(tmp_path):
    """A move the engine announced just before a command that changes the game (here a new game;
    a correction, a takeback, the start position held alike) waits in the queue behind it: by
    the time it is carried out the engine has read the game again, and the move is left out."""
    from chess_core import WHITE, Move
    from tests.fakes.listening_opponent import ListeningOpponent

    class White(ListeningOpponent):
        resets = 0

        @property
        def sides(self):
            return frozenset({WHITE})

        def on_reset(self, start_fen, moves):
            self.resets += 1

    opponent = White()
    service, task, clock = await live_service(tmp_path, opponent=opponent)
    session = service.session
    try:
        assert session.live and session.game.turn == WHITE and not session.game.moves
        reset_before = opponent.resets
        answer = session.door.send(Command("new_game", ()))    # the page's New game, queued
        opponent.listener.opponent_move(Move.from_uci("d2d4"))  # the old game's search, posted just after
        assert opponent.resets == reset_before                  # (announced before the engine heard of the reset)
        await answer
        await service.processed()
        told_of_reset = opponent.resets > reset_before
        expected = session.board_state.play.expected_move
    finally:
        service.stop()
        await asyncio.wait_for(task, 5)
    assert told_of_reset
    assert expected is None, f"{expected} searched before the reset is awaited in the new game"


async def test_the_page_hears_a_refusal_and_an_error_from_the_loop(tmp_path):
    """A refusal comes back as the page's CommandRefused (a 409), another error as itself (a 500)."""
    from firmware.web.backend import CommandRefused
    from firmware.web.session_backend import SessionBackend

    service, task, _ = await live_service(tmp_path)
    backend = SessionBackend(service.session)
    try:
        with pytest.raises(CommandRefused):
            await backend.draw("accept", "white", service.session.clock())
        with pytest.raises(ValueError, match="claim"):      # (not a SessionError: the server's 500)
            await backend.claim_when_gone("nonsense", service.session.clock())
    finally:
        service.stop()
        await asyncio.wait_for(task, 5)
