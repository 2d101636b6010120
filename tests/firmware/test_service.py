"""The service shell: replay to the end, a live board through the queue, capture, sd_notify, SIGTERM."""
from __future__ import annotations

import asyncio
import copy
import gc
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import chess.pgn
import pytest

from board_driver.capture import parse_capture
from board_driver.reading import Reading
from board_driver.backends.sim import SimulatedBoard
from board_driver.backends.sim_leds import RecordingLedSink
from chess_core import Position, parse_square
from firmware.config import loads_config
from firmware.service import Service, resume_events
from firmware.session.game_commands import resign
from tests.fakes.hands import capture_game
from tests.fakes.listening_opponent import ListeningOpponent


@pytest.fixture(autouse=True)
async def no_task_left_behind():
    """Fail a test that leaves a task running (aioesphomeapi's habit)."""
    yield
    current = asyncio.current_task()
    left = [t for t in asyncio.all_tasks() if t is not current and not t.done()]
    assert not left, f"tasks left behind: {left}"

MOVES = "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5c6 d7c6 e1g1 f7f6".split()
ECHIQUIER = Path(sys.executable).with_name("echiquier")


class FakeNotifier:
    watchdog_interval = None

    def __init__(self) -> None:
        self.sent: list[str] = []

    def ready(self, status: str = "") -> bool:
        self.sent.append("READY=1")
        return True

    def watchdog(self) -> bool:
        self.sent.append("WATCHDOG=1")
        return True

    def status(self, text: str) -> bool:
        self.sent.append(f"STATUS={text}")
        return True

    def stopping(self) -> bool:
        self.sent.append("STOPPING=1")
        return True

    def close(self) -> None:
        pass


def write_replay(tmp_path: Path, moves=MOVES, seed=1, time_control="300+2", extra="") -> Path:
    capture = capture_game(moves, seed=seed, amend_rate=0)
    (tmp_path / "game.cap").write_text(capture.text)
    config = tmp_path / "config.toml"
    config.write_text(f'[board]\nsensors = "replay"\ncapture = "game.cap"\nspeed = 0\n'
                      f'[game]\ntime_control = "{time_control}"\n{extra}[storage]\ndir = "state"\n')
    return config


def saved_pgn(state: Path):
    games = list((state / "games").glob("*.pgn"))
    assert len(games) == 1, games
    return chess.pgn.read_game(open(games[0], encoding="utf-8"))


async def test_a_replay_runs_to_its_end_and_the_game_is_saved(tmp_path):
    from firmware.config import load_config
    config = load_config(write_replay(tmp_path))
    notifier = FakeNotifier()
    service = Service(config, notifier=notifier)
    assert await service.run() == 0
    game = saved_pgn(tmp_path / "state")
    assert [m.uci() for m in game.mainline_moves()] == MOVES
    assert all(node.clock() is not None for node in game.mainline())
    assert notifier.sent[0] == "STATUS=waiting for the board" and "READY=1" in notifier.sent
    assert notifier.sent[-1] == "STOPPING=1"
    assert isinstance(service.leds, RecordingLedSink) and service.leds.show_count > 0


async def test_a_replay_records_the_readings_it_was_fed(tmp_path):
    from firmware.config import load_config
    config = load_config(write_replay(tmp_path))
    out = tmp_path / "again.cap"
    assert await Service(config, capture=out, notifier=FakeNotifier()).run() == 0
    original = [e for e in parse_capture((tmp_path / "game.cap").read_text()) if isinstance(e, Reading)]
    again = [e for e in parse_capture(out.read_text()) if isinstance(e, Reading)]
    assert [r.occupied for r in again] == [r.occupied for r in original]
    assert [round(r.time - original[0].time, 3) for r in again] == [round(r.time - original[0].time, 3)
                                                                      for r in original]


async def test_a_restarted_replay_resumes_after_the_last_saved_move(tmp_path):
    from firmware.config import load_config
    config = load_config(write_replay(tmp_path))
    first = Service(config, notifier=FakeNotifier())
    kept = []   # the record as the session itself noted it after the fourth move: what a kill leaves

    def keep(_state) -> None:
        record = first.session.file.record
        if not kept and record is not None and len(record.moves) == 4:
            kept.append(copy.deepcopy(record))
    first.session.subscribe(keep)
    assert await first.run() == 0
    reference = saved_pgn(tmp_path / "state")
    readings = len([e for e in first.source.events if isinstance(e, Reading)])
    # Cut the saved game back to its first four moves, as a kill would have left it. (The cut is
    # taken from the session, not recomputed here: a helper that rebuilt the clocks with its own
    # Match settings missed [game] clock_start once and failed with clocks 0.8 s apart.)
    from firmware.session.recorder import Recorder
    record = kept[0]
    assert record.moves == [m.uci() for m in reference.mainline_moves()][:4] and record.outcome is None
    Recorder(tmp_path / "state").save(record)
    service = Service(config, notifier=FakeNotifier())
    assert await service.run() == 0
    assert service.source.scan_count < readings
    game = saved_pgn(tmp_path / "state")
    assert str(game.mainline_moves()) == str(reference.mainline_moves())
    assert [n.clock() for n in game.mainline()] == [n.clock() for n in reference.mainline()]


def test_resume_events_restamps_the_reading_in_effect():
    events = [Reading(0.0, 1), Reading(1.0, 3), Reading(2.5, 7), Reading(4.0, 15)]
    assert list(resume_events(events, 3.0)) == [Reading(3.0, 7), Reading(4.0, 15)]
    assert list(resume_events(events, 2.5)) == [Reading(2.5, 7), Reading(4.0, 15)]


class HandClock:
    def __init__(self) -> None:
        self.t = 50.0

    def __call__(self) -> float:
        return self.t


async def test_a_live_board_goes_through_the_queue_to_the_leds(tmp_path):
    config = loads_config(f'[board]\nsensors = "sim"\nsettle_ms = 30\n[storage]\ndir = "{tmp_path}"\n'
                          '[leds]\nbrightness = 1.0\n')
    clock = HandClock()
    board = SimulatedBoard(Position().occupied, clock=clock)
    leds = RecordingLedSink()
    notifier = FakeNotifier()
    service = Service(config, source=board, leds=leds, notifier=notifier, clock=clock)
    task = asyncio.create_task(service.run())
    await asyncio.wait_for(service.ready.wait(), 5)
    assert notifier.sent.count("READY=1") == 1
    assert gc.get_freeze_count() > 0  # start-up's objects are out of the collector's full passes

    async def after(seconds):
        clock.t += seconds
        service.poke()
        await service.processed()

    await after(0.1)
    assert service.session.referee.started
    board.lift(parse_square("g1"))
    await after(0.1)
    assert {parse_square("f3"), parse_square("h3")} <= set(leds.lit())
    board.place(parse_square("f3"))
    await after(0.1)
    assert [m.uci() for m in service.session.game.moves] == ["g1f3"]
    service.stop()
    assert await asyncio.wait_for(task, 5) == 0
    assert leds.last == (0,) * 64 and leds.closed  # the LEDs are turned off at the end
    assert service.session.file.recorder.load().moves == ["g1f3"]


async def test_a_cancelled_service_ends_even_when_an_item_lands_in_the_same_turn(tmp_path):
    """asyncio.wait_for (3.11) hands back an item that lands in the turn of the loop that brings the
    cancellation, and drops the cancellation: the service then went on waiting for readings."""
    from firmware.service import TICK
    config = loads_config(f'[board]\nsensors = "sim"\nsettle_ms = 30\n[storage]\ndir = "{tmp_path}"\n')
    clock = HandClock()
    service = Service(config, source=SimulatedBoard(Position().occupied, clock=clock), leds=RecordingLedSink(),
                      notifier=FakeNotifier(), clock=clock, opponent=None)
    task = asyncio.create_task(service.run())
    await asyncio.wait_for(service.ready.wait(), 5)
    await service.processed()            # the loop waits for its next item
    service._queue.put_nowait(TICK)      # taken in the next turn of the loop ...
    task.cancel()                        # ... the turn the cancellation reaches the service
    done, _ = await asyncio.wait({task}, timeout=5)
    if not done:                         # (not left running: the test fails, it does not hang)
        service.stop()
        await asyncio.wait_for(task, 5)
    assert task in done and task.cancelled()


async def test_the_board_plays_on_while_the_page_loads(tmp_path, monkeypatch):
    """Issue 14: `echiquier run` imported the page's modules (30 ms of CPU here, about 0.2 s on a
    Pi Zero 2 W; 0.13 s and most of a second with aiohttp) on the loop once the board was read: a
    piece lifted meanwhile lit its squares only after the import. They load on a worker thread now."""
    import threading

    from firmware.commands import run as run_command
    entered, released, returned = threading.Event(), threading.Event(), threading.Event()
    seen = {}

    async def serve_web(service):
        await asyncio.Event().wait()  # the page, until the service stops

    def slow_import():
        entered.set()
        seen["loop ran meanwhile"] = released.wait(5)  # only the loop, going on, releases it
        returned.set()
        return serve_web

    monkeypatch.setattr(run_command, "_import_web", slow_import)
    config = loads_config(f'[board]\nsensors = "sim"\nsettle_ms = 30\n[storage]\ndir = "{tmp_path}"\n')
    clock = HandClock()
    board = SimulatedBoard(Position().occupied, clock=clock)
    leds = RecordingLedSink()
    service = Service(config, source=board, leds=leds, notifier=FakeNotifier(), clock=clock,
                      companions=(run_command._web,))
    task = asyncio.create_task(service.run())
    await asyncio.wait_for(service.ready.wait(), 5)
    assert await asyncio.to_thread(entered.wait, 5)   # the page's modules are loading
    for change in (None, lambda: board.lift(parse_square("g1"))):
        if change:
            change()
        clock.t += 0.1
        service.poke()
        await service.processed()
    assert {parse_square("f3"), parse_square("h3")} <= set(leds.lit())
    released.set()
    assert await asyncio.to_thread(returned.wait, 5)
    service.stop()
    assert await asyncio.wait_for(task, 5) == 0
    assert seen["loop ran meanwhile"]


def test_sigterm_stops_the_service_cleanly_and_systemd_hears_it(tmp_path):
    path = str(tmp_path / "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(10)
    config = tmp_path / "config.toml"
    config.write_text(f'[board]\nsensors = "sim"\n[storage]\ndir = "{tmp_path / "state"}"\n[web]\nenabled = false\n')
    env = dict(os.environ, NOTIFY_SOCKET=path, WATCHDOG_USEC="200000")
    started = time.monotonic()
    proc = subprocess.Popen([str(ECHIQUIER), "run", "--config", str(config)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        messages = []
        while not any("READY=1" in m for m in messages):
            messages.append(sock.recv(4096).decode())
        ready_after = time.monotonic() - started
        while not any("WATCHDOG=1" in m for m in messages):
            messages.append(sock.recv(4096).decode())
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0, proc.stderr.read()
        while not any("STOPPING=1" in m for m in messages):
            messages.append(sock.recv(4096).decode())
    finally:
        proc.kill()
        proc.wait()
        sock.close()
    assert ready_after < 5


def test_a_bad_configuration_stops_the_start_with_the_key_named(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[game]\ntouch_move = "sometimes"\n')
    result = subprocess.run([str(ECHIQUIER), "run", "--config", str(config)], capture_output=True,
                            text=True, timeout=30)
    assert result.returncode == 2
    assert f"{config}: game.touch_move: expected true or false" in result.stderr


@pytest.mark.parametrize("sensors", ["gpio"])
def test_a_board_that_cannot_be_opened_is_reported(tmp_path, sensors):
    config = tmp_path / "config.toml"
    config.write_text(f'[board]\nsensors = "{sensors}"\npinmap = "absent.toml"\n[storage]\ndir = "{tmp_path}"\n')
    result = subprocess.run([str(ECHIQUIER), "run", "--config", str(config)], capture_output=True,
                            text=True, timeout=30)
    assert result.returncode == 1 and "absent.toml" in result.stderr


def test_the_sources_and_sinks_follow_the_configuration(tmp_path):
    from board_driver.backends.replay import ReplaySource
    from firmware.service import build_leds, build_source
    (tmp_path / "g.cap").write_text("0 ffff00000000ffff\n")
    replay = loads_config(f'[board]\nsensors = "replay"\ncapture = "{tmp_path / "g.cap"}"\nspeed = 0\n')
    source = build_source(replay)
    assert isinstance(source, ReplaySource) and source.speed is None
    assert build_source(loads_config(f'[board]\nsensors = "replay"\ncapture = "{tmp_path / "g.cap"}"\n'
                                     'speed = 4\n')).speed == 4.0
    assert isinstance(build_source(loads_config('[board]\nsensors = "sim"')), SimulatedBoard)
    assert isinstance(build_leds(replay), RecordingLedSink)
    assert build_leds(loads_config('[board]\nsensors = "sim"\n[leds]\nsink = "none"')) is None

    class CoProcessor:
        def led_sink(self, **options):
            return options

    serial = loads_config(f'[board]\nsensors = "serial"\npinmap = "{tmp_path / "none.toml"}"\n[leds]\nsink = "serial"')
    assert build_leds(serial, CoProcessor())["layout"].pixel_count == 64


async def live_service(tmp_path, opponent=None):
    """A service on a simulated board, running, its game begun: (service, its task, its clock)."""
    config = loads_config(f'[board]\nsensors = "sim"\nsettle_ms = 30\n[storage]\ndir = "{tmp_path}"\n')
    clock = HandClock()
    service = Service(config, source=SimulatedBoard(Position().occupied, clock=clock), leds=RecordingLedSink(),
                      notifier=FakeNotifier(), clock=clock, opponent=opponent)
    task = asyncio.create_task(service.run())
    await asyncio.wait_for(service.ready.wait(), 5)
    clock.t += 0.1
    service.poke()
    await service.processed()
    return service, task, clock


async def test_an_opponents_move_wakes_the_sleeping_loop_so_that_it_blinks(tmp_path):
    """The engine's move comes from its own task, through the loop's queue (the session's door):
    the loop, asleep with nothing to wait for, wakes and waits for the blinking instead."""
    from chess_core import Move

    opponent = ListeningOpponent()
    service, task, clock = await live_service(tmp_path, opponent=opponent)
    assert service.session.referee.started and service.next_wake is None   # nothing to wait for
    opponent.listener.opponent_move(Move.from_uci("e2e4"))
    await service.processed()
    assert service.next_wake is not None and service.next_wake == service.session.next_deadline(clock.t)
    service.stop()
    assert await asyncio.wait_for(task, 5) == 0


async def test_every_change_of_the_session_comes_through_its_door(tmp_path):
    """A command from another task (the page's, say) is a message in the loop's queue, carried out
    by the loop with its answer or refusal sent back; a call into the session from that task
    itself is refused before it changes anything."""
    from firmware.session import SessionError
    from firmware.session.door import Command

    service, task, _ = await live_service(tmp_path)
    session = service.session
    assert session.live
    with pytest.raises(RuntimeError, match="door"):
        resign(session, "white")
    assert session.game.outcome is None
    with pytest.raises(SessionError):   # (no draw offered: refused, and said so to the sender)
        await session.door.send(Command("accept_draw", ("white",)))
    await session.door.send(Command("resign", ("white",)))
    assert session.game.outcome is not None and session.game.outcome.winner == 1
    service.stop()
    assert await asyncio.wait_for(task, 5) == 0


async def test_a_new_capture_after_a_restart_continues_the_saved_game(tmp_path):
    """Issue 12: after a power cut a real board gives a new stream of readings from the position on
    the board; a replay of a new capture did not restore the saved game at all."""
    import dataclasses

    from firmware.config import load_config
    board = chess.Board()
    for uci in MOVES[:4]:
        board.push_uci(uci)
    config = load_config(write_replay(tmp_path, moves=MOVES[:4]))
    assert await Service(config, notifier=FakeNotifier()).run() == 0
    second = tmp_path / "after-the-cut.cap"
    second.write_text(capture_game(MOVES[4:], fen=board.fen(), seed=3, amend_rate=0).text)
    config = dataclasses.replace(config, board=dataclasses.replace(config.board, capture=str(second)))
    assert await Service(config, notifier=FakeNotifier()).run() == 0
    game = saved_pgn(tmp_path / "state")          # one PGN: the same game
    assert [m.uci() for m in game.mainline_moves()] == list(MOVES)
    # killed now and started again on the same second capture: nothing is made twice
    assert await Service(config, notifier=FakeNotifier()).run() == 0
    assert [m.uci() for m in saved_pgn(tmp_path / "state").mainline_moves()] == list(MOVES)


def test_the_configured_opponent_is_honoured_in_a_replay(tmp_path):
    from firmware.config import load_config
    from firmware.config import OpponentKind
    config = load_config(write_replay(tmp_path, extra='opponent = "engine"\n'))
    service = Service(config, notifier=FakeNotifier())
    assert service.session.opponent is not None and service.session.opponent.kind is OpponentKind.ENGINE


async def test_a_capture_that_cannot_be_written_never_stops_the_game(tmp_path, caplog):
    """Recording the readings (`--capture`) on a full disk (/dev/full) stops the recording, not the game."""
    from firmware.config import load_config
    config = load_config(write_replay(tmp_path))
    assert await Service(config, capture=Path("/dev/full"), notifier=FakeNotifier()).run() == 0
    assert [m.uci() for m in saved_pgn(tmp_path / "state").mainline_moves()] == list(MOVES)
    assert "cannot write the capture /dev/full" in caplog.text
