"""The simulator as a whole: the service on a simulated board, its page, and a game kept across restarts.

Time is a manual clock: the service is poked and waited for (``Service.poke``/``processed``),
never slept on.
"""
from __future__ import annotations

import asyncio
import dataclasses
import json

import aiohttp
import pytest

from chess_core import parse_square
from firmware.config import parse_config
from firmware.web.companion import build_companion, page_address, pairing_for, serve_web, start_web
from firmware.web.simulator import Simulator, saved_position, simulator_config

from .conftest import ManualClock


async def advance(sim: Simulator, clock: ManualClock, seconds: float = 1.0) -> None:
    await sim.service.processed()
    clock.advance(seconds)
    sim.service.poke()
    await sim.service.processed()


async def hand(sim: Simulator, clock: ManualClock, *squares: str) -> None:
    for name in squares:
        turn = "white" if sim.session.game.turn == 0 else "black"
        sim.hand.click(parse_square(name), turn)
        await advance(sim, clock, 0.1)
    await advance(sim, clock, 2.0)


@pytest.fixture
async def running(tmp_path):
    started = []

    async def start(clock: ManualClock, **options) -> Simulator:
        sim = Simulator(simulator_config(None, tmp_path / "state", **options), port=0, clock=clock)
        task = asyncio.create_task(sim.run())
        started.append((sim, task))
        await sim.started()
        await advance(sim, clock)
        return sim

    async def stop(sim: Simulator) -> None:
        for s, task in started:
            if s is sim:
                s.stop()
                await task

    start.stop = stop
    yield start
    for sim, task in started:
        if not task.done():
            sim.stop()
            await task


async def test_the_simulator_serves_the_page_and_plays_through_the_service(running):
    clock = ManualClock()
    sim = await running(clock, time_control="300+3")
    assert sim.url.startswith("http://127.0.0.1:")
    await hand(sim, clock, "e2", "e4")
    async with aiohttp.ClientSession() as http:
        async with http.get(sim.url + "api/state") as response:
            state = await response.json()
        async with http.post(sim.url + "api/sim/click", data=json.dumps({"square": "e7"}),
                             headers={"Content-Type": "application/json"}) as response:
            assert response.status == 200
    assert state["moves"]["en"] == ["e4"] and state["status"] == "Black to move"
    assert state["clock"]["running"] == "black" and state["sim"]["pieces"]["e4"] == "P"
    assert sim.leds.last is not None  # the LEDs went to the recording sink


async def test_a_game_in_progress_is_there_again_after_a_restart(running):
    clock = ManualClock()
    sim = await running(clock)
    await hand(sim, clock, "e2", "e4", "e7", "e5")
    await running.stop(sim)
    assert saved_position(sim.config).fen().startswith("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w")
    again = await running(ManualClock(5000.0))
    assert again.hand.state()["pieces"]["e5"] == "p" and again.board.occupied == again.session.game.position.occupied
    state = again.backend.state(again.clock())
    assert state["moves"]["en"] == ["e4", "e5"] and state["status"] == "White to move"


async def test_listening_beyond_this_machine_needs_the_code(tmp_path):
    config = simulator_config(None, tmp_path, host="0.0.0.0", pairing_code="246135")
    pairing = pairing_for(config)
    assert pairing.required and pairing.code == "246135"
    drawn = pairing_for(simulator_config(None, tmp_path / "other", host="0.0.0.0"))
    assert drawn.required and len(drawn.code) == 6 and (tmp_path / "other" / "pairing-code").exists()
    assert not pairing_for(simulator_config(None, tmp_path)).required


def test_page_addresses():
    assert page_address("0.0.0.0", 8080) == "http://127.0.0.1:8080/"
    assert page_address("::1", 80) == "http://[::1]:80/"


async def test_a_service_without_the_web_page_serves_nothing(tmp_path):
    class Service:
        config = parse_config({"board": {"sensors": "sim"}, "web": {"enabled": False},
                               "storage": {"dir": str(tmp_path)}})
    await serve_web(Service())  # returns at once


async def test_the_service_companion_serves_the_session(tmp_path):
    from firmware.session import Session
    config = parse_config({"board": {"sensors": "sim"}, "storage": {"dir": str(tmp_path)},
                           "web": {"host": "127.0.0.1", "port": 8080}})
    session = Session(config)
    companion = build_companion(session, config)
    assert not companion.pairing.required and companion.library.games_dir == tmp_path / "games"
    port = await companion.start("127.0.0.1", 0)
    try:
        async with aiohttp.ClientSession() as http:
            async with http.get(f"http://127.0.0.1:{port}/api/state") as response:
                assert (await response.json())["status"] == "Set up the pieces to start"
            async with http.post(f"http://127.0.0.1:{port}/api/sim/click", data="{}",
                                 headers={"Content-Type": "application/json"}) as response:
                assert response.status == 404  # no simulated hand on a real board
    finally:
        await companion.stop()


async def test_on_the_lan_the_code_is_journalled_and_shown_on_the_leds_then_the_game_comes_back(tmp_path, caplog):
    from board_driver.sim_leds import RecordingLedSink
    from firmware.session import Session
    from firmware.web.pairing import led_pattern

    config = parse_config({"board": {"sensors": "sim"}, "storage": {"dir": str(tmp_path)},
                           "web": {"host": "0.0.0.0", "port": 8080, "pairing_code": "123456"}})

    class Service:
        pass
    service = Service()
    service.config = config
    service.leds = RecordingLedSink()
    service.session = Session(config, leds=service.leds)
    service.session.poll(service.session.clock())     # the session shows its own frame first
    before = service.session.leds_frame
    service.config = dataclasses.replace(config, web=dataclasses.replace(config.web, port=0))  # any free port
    companion = await start_web(service, pattern_s=0)
    try:
        assert companion.pairing.required and "pairing code of this board: 123456" in caplog.text
        assert service.leds.frames[-1] == led_pattern("123456")
        for _ in range(3):
            await asyncio.sleep(0)                     # the give-back timer (0 s) runs
        assert service.leds.last == before
    finally:
        await companion.stop()
