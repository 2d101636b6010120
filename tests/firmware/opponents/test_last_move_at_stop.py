"""Issue 26 (5): a stop of the service (SIGTERM, the end of a replay) sends the move the board committed to Lichess."""
from __future__ import annotations

import asyncio
import logging
import threading

from board_driver.backends.sim import SimulatedBoard
from board_driver.backends.sim_leds import RecordingLedSink
from chess_core import WHITE, Position, parse_square
from firmware.config import loads_config
from firmware.opponents.lichess.client import LichessClient
from firmware.opponents.lichess.game import STOP_SEND_S
from firmware.opponents.lichess.opponent import LichessOpponent
from firmware.opponents.lichess.token import Token
from firmware.service import Service
from tests.fakes.hands import capture_game
from tests.firmware.test_service import FakeNotifier, HandClock

from .conftest import BOARD_TOKEN, fast_config
from .helpers import HandTimeouts
from .test_session_lichess import until


def accepted(fake, game_id: str) -> list[str]:
    return [uci for gid, uci, _, status in fake.move_posts if gid == game_id and status == 200]


async def test_the_move_committed_as_a_replay_ends_reaches_lichess(tmp_path, fake, client, caplog):
    caplog.set_level(logging.INFO, logger="firmware.opponents.lichess")
    (tmp_path / "game.cap").write_text(capture_game(["e2e4"], seed=1, amend_rate=0).text)
    config = loads_config(f'[board]\nsensors = "replay"\ncapture = "{tmp_path / "game.cap"}"\nspeed = 0\n'
                          f'[storage]\ndir = "{tmp_path / "state"}"\n')
    server = fake.start_game("Bobby", color=WHITE)
    opponent = LichessOpponent(client)
    service = Service(config, notifier=FakeNotifier(), opponent=opponent)
    joined = threading.Event()      # the capture is replayed once the board follows the game
    replay = service.source.run

    def gated(hand_over) -> None:
        if joined.wait(10):
            replay(hand_over)
    service.source.run = gated
    running = asyncio.create_task(service.run())
    try:
        await until(lambda: opponent.game is not None and opponent.game.full is not None)
    finally:
        joined.set()
    assert await asyncio.wait_for(running, 10) == 0
    assert [m.uci() for m in service.session.game.moves] == ["e2e4"]   # committed as the capture ended
    assert accepted(fake, server.id) == ["e2e4"]
    assert f"game {server.id}: e2e4 sent to Lichess before the stop" in caplog.text


async def live_service(tmp_path, opponent) -> tuple[Service, SimulatedBoard, HandClock, asyncio.Task]:
    config = loads_config(f'[board]\nsensors = "sim"\nsettle_ms = 30\n[storage]\ndir = "{tmp_path}"\n')
    clock = HandClock()
    board = SimulatedBoard(Position().occupied, clock=clock)
    service = Service(config, source=board, leds=RecordingLedSink(), notifier=FakeNotifier(), clock=clock,
                      opponent=opponent)
    running = asyncio.create_task(service.run())
    await asyncio.wait_for(service.ready.wait(), 5)
    await until(lambda: opponent.game is not None and opponent.game.full is not None)
    return service, board, clock, running


async def play_e2e4(service: Service, board: SimulatedBoard, clock: HandClock) -> None:
    for step in (lambda: None, lambda: board.lift(parse_square("e2")), lambda: board.place(parse_square("e4"))):
        step()
        clock.t += 0.1
        service.poke()
        await service.processed()


async def test_a_move_committed_just_before_sigterm_reaches_lichess(tmp_path, fake, client, caplog):
    caplog.set_level(logging.INFO, logger="firmware.opponents.lichess")
    server = fake.start_game("Bobby", color=WHITE)
    opponent = LichessOpponent(client)
    service, board, clock, running = await live_service(tmp_path, opponent)
    await play_e2e4(service, board, clock)
    assert [m.uci() for m in service.session.game.moves] == ["e2e4"]
    service.stop()                   # what SIGTERM calls, in the same turn as the commit
    assert await asyncio.wait_for(running, 10) == 0
    assert accepted(fake, server.id) == ["e2e4"]
    assert f"game {server.id}: e2e4 sent to Lichess before the stop" in caplog.text


async def test_a_stop_waits_a_bounded_time_for_a_move_lichess_does_not_answer(tmp_path, fake, caplog):
    caplog.set_level(logging.INFO, logger="firmware.opponents.lichess")
    client = LichessClient(fast_config(fake.base_url, request_timeout=600.0), Token(BOARD_TOKEN))
    fake.add_fault("POST", "/move/", status=None, delay=600.0)   # the move's answer never comes
    server = fake.start_game("Bobby", color=WHITE)
    timeouts = HandTimeouts()
    opponent = LichessOpponent(client, timeout=timeouts)
    try:
        service, board, clock, running = await live_service(tmp_path, opponent)
        await play_e2e4(service, board, clock)
        service.stop()
        assert await timeouts.asked_after(0) == STOP_SEND_S   # the stop waits this long at most ...
        assert not running.done()
        timeouts.expire()                                     # ... and it passes, the move unanswered
        assert await asyncio.wait_for(running, 10) == 0
        assert accepted(fake, server.id) == [] and timeouts.asked == [STOP_SEND_S]
        assert (f"game {server.id}: e2e4 not sent to Lichess within {STOP_SEND_S:g} s of the stop"
                in caplog.text)
    finally:
        await client.aclose()
