"""The simulator as a whole: the service on a simulated board, its page, and a game kept across restarts.

Time is a manual clock: the service is poked and waited for (``Service.poke``/``processed``),
never slept on.
"""
from __future__ import annotations

import asyncio
import dataclasses
import json
import os

import aiohttp
import pytest

from chess_core import parse_square
from firmware.config import parse_config
from firmware.web.companion import build_companion, page_address, pairing_for, serve_web, start_web
from firmware.sim.simulator import Simulator, saved_position, simulator_config

from .conftest import ManualClock
from tests.said import english


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
        async with http.get(sim.url + "api/state?lang=en") as response:   # (each message with its English)
            state = await response.json()
        async with http.post(sim.url + "api/sim/click", data=json.dumps({"square": "e7"}),
                             headers={"Content-Type": "application/json"}) as response:
            assert response.status == 200
    assert state["moves"]["san"] == ["e4"] and state["status"]["text"] == "Black to move"
    assert state["clocks"]["running"] == "black" and state["sim"]["pieces"]["e4"] == "P"
    assert sim.leds.last is not None  # the LEDs went to the recording sink


async def test_a_game_in_progress_is_there_again_after_a_restart(running):
    clock = ManualClock()
    sim = await running(clock)
    await hand(sim, clock, "e2", "e4", "e7", "e5")
    await running.stop(sim)
    assert saved_position(sim.config).fen().startswith("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w")
    again = await running(ManualClock(5000.0))
    assert again.hand.state()["pieces"]["e5"] == "p" and again.board.occupied == again.session.game.position.occupied
    state = english(again.backend.state(again.clock()))
    assert state["moves"]["san"] == ["e4", "e5"] and state["status"] == "White to move"


async def test_listening_beyond_this_machine_needs_the_code(tmp_path):
    config = simulator_config(None, tmp_path, host="0.0.0.0", pairing_code="246135")
    pairing = pairing_for(config)
    assert pairing.required and pairing.code == "246135"
    drawn = pairing_for(simulator_config(None, tmp_path / "other", host="0.0.0.0"))
    assert drawn.required and len(drawn.code) == 8 and (tmp_path / "other" / "pairing-code").exists()
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
    from firmware.session.session import Session
    config = parse_config({"board": {"sensors": "sim"}, "storage": {"dir": str(tmp_path)},
                           "web": {"host": "127.0.0.1", "port": 8080}})
    session = Session(config)
    companion = build_companion(session, config)
    assert not companion.pairing.required and companion.library.games_dir == tmp_path / "games"
    port = await companion.start("127.0.0.1", 0)
    try:
        async with aiohttp.ClientSession() as http:
            async with http.get(f"http://127.0.0.1:{port}/api/state?lang=fr") as response:
                assert (await response.json())["status"] == {"key": "setup", "values": {},
                                                             "text": "Placez les pièces pour commencer"}
            async with http.get(f"http://127.0.0.1:{port}/api/state?lang=xx") as response:
                assert response.status == 400 and (await response.json())["error"].startswith("lang: one of en")
            async with http.post(f"http://127.0.0.1:{port}/api/sim/click", data="{}",
                                 headers={"Content-Type": "application/json"}) as response:
                assert response.status == 404  # no simulated hand on a real board
    finally:
        await companion.stop()


async def test_on_the_lan_the_code_is_journalled_and_shown_on_the_leds_then_the_game_comes_back(tmp_path, caplog):
    from board_driver.backends.sim_leds import RecordingLedSink
    from firmware.session.session import Session
    from firmware.web.pairing import led_pattern

    config = parse_config({"board": {"sensors": "sim"}, "storage": {"dir": str(tmp_path)},
                           "web": {"host": "0.0.0.0", "port": 8080, "pairing_code": "123456"}})

    class Service:
        def offer(self, **parts) -> None:   # (what a companion lends the board: not looked at here)
            pass
    now = [1000.0]
    service = Service()
    service.config = config
    service.leds = RecordingLedSink()
    service.session = Session(config, leds=service.leds, clock=lambda: now[0])
    service.session.poll(now[0])                       # the session shows its own frame first
    before = service.session.leds_frame
    service.config = dataclasses.replace(config, web=dataclasses.replace(config.web, port=0))  # any free port
    companion = await start_web(service, pattern_s=15)
    try:
        assert companion.pairing.required and "pairing code of this board: 123456" in caplog.text
        assert service.leds.frames[-1] == led_pattern("123456")
        assert service.session.next_deadline(now[0]) == 1015.0   # the loop wakes at its end...
        now[0] = 1015.0
        service.session.poll(now[0])
        assert service.leds.last == before                        # ... and the game's LEDs come back
    finally:
        await companion.stop()


def test_the_simulator_plays_the_configured_opponent(tmp_path):
    config = simulator_config(None, tmp_path, opponent="engine", engine_side="white", engine_level=3)
    assert (config.game.opponent, config.engine.side, config.engine.level) == ("engine", "white", 3)
    assert simulator_config(None, tmp_path, opponent="none").game.opponent == "none"
    assert config.lichess_token_path == tmp_path / "lichess.token"   # never the board's /etc


STOCKFISH = "/usr/games/stockfish"


async def until(condition, timeout: float = 20.0, what="") -> None:
    """Wait for ``condition()`` (the simulator runs on real time here), failing after ``timeout``;
    ``what`` (text, or a function giving it) says what was awaited."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not condition():
        assert loop.time() < end, f"timed out waiting for {what() if callable(what) else what or condition}"
        await asyncio.sleep(0.01)


@pytest.mark.skipif(not os.access(STOCKFISH, os.X_OK), reason="needs /usr/games/stockfish")
async def test_the_engines_move_blinks_on_the_simulated_board_until_it_is_carried_out(tmp_path):
    """On real time: the service shows the engine's move by itself (no reading wakes it): the
    from square blinks, the to square stays lit, until the hand carries the move out."""
    from firmware.opponents.factory import build_opponent

    config = simulator_config(None, tmp_path / "state", opponent="engine", engine_side="black", engine_level=1)
    config = dataclasses.replace(config, engine=dataclasses.replace(config.engine, move_time=0.05))
    sim = Simulator(config, port=0, opponent=build_opponent(config))
    task = asyncio.create_task(sim.run())
    try:
        await sim.started()
        await until(lambda: sim.session.referee.started, what="the game to start")
        for name in ("e2", "e4"):
            sim.hand.click(parse_square(name), "white")
        await until(lambda: sim.session.board_state.play.expected_move is not None, what="the engine's move")
        move = sim.session.board_state.play.expected_move
        seen = set()

        def blinked() -> bool:
            frame = sim.leds.last
            seen.add((bool(frame[move.from_square]), bool(frame[move.to_square])))
            return {(True, True), (False, True)} <= seen
        await until(blinked, timeout=3.0, what=lambda: f"{move.uci()} blinking on the LEDs (seen {seen}): the opponent's move reaches "
                      "the session outside the service's loop, which sleeps on the deadline it had "
                      "before (none) instead of waking for the blink")
        sim.hand.click(move.from_square, "black")
        sim.hand.click(move.to_square, "black")
        await until(lambda: len(sim.session.game.moves) == 2, what="the engine's move carried out")
        assert sim.session.game.moves[-1] == move and sim.session.board_state.play.expected_move is None
    finally:
        sim.stop()
        await task


@pytest.mark.parametrize("args, words", [
    (["--engine-level", "25"], "engine.level: expected a number from 0 to 20, got 25"),
    (["--opponent", "stockfish"], "invalid choice: 'stockfish'"),
    (["--start-position", "960"], "--start-position must be 0 to 959, not 960"),
    (["--variant", "atomic"], "invalid choice: 'atomic'"),
    (["--fen", "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"], "add --variant chess960"),
])
def test_the_simulators_opponent_options_are_checked(tmp_path, capsys, args, words):
    from firmware.cli import main
    try:
        code = main(["sim", "--port", "0", "--state-dir", str(tmp_path), *args])
    except SystemExit as exc:        # argparse refuses a choice itself
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err
    assert words in err and err.count("echiquier sim:") <= 1



def test_the_simulated_board_starts_in_the_chosen_960_position(tmp_path):
    from chess_core.chess960 import start_fen
    config = simulator_config(None, tmp_path, variant="chess960", start_position=700)
    assert config.game.chess960 and saved_position(config).fen() == start_fen(700)
    assert saved_position(config).chess960


def test_a_port_already_taken_says_what_to_do(tmp_path, capsys):
    """`make sim` a second time: the port is held by the first; say so, and how to choose another."""
    import socket
    from firmware.cli import main
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        code = main(["sim", "--port", str(port), "--state-dir", str(tmp_path)])
    assert code == 2
    err = capsys.readouterr().err
    assert f"echiquier sim: cannot listen on 127.0.0.1:{port}: " in err
    assert "the port is in use by another program" in err and "choose another port with --port N" in err
