"""The engines at a stop of the service: a Ctrl-C reaches the service alone, a stop begun restarts no engine, and a service killed leaves no engine running."""
from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
import urllib.request
from pathlib import Path

import pytest

from board_driver.backends.sim import SimulatedBoard
from board_driver.backends.sim_leds import RecordingLedSink
from chess_core import BLACK, Position
from firmware.config import loads_config
from firmware.opponents.base import LinkState
from firmware.opponents.engine.levels import Level
from firmware.opponents.engine.opponent import EngineOpponent
from uci.engine import EngineLaunch, EngineState
from firmware.service import Service

from .helpers import STOCKFISH

pytestmark = pytest.mark.skipif(not os.access(STOCKFISH, os.X_OK), reason="needs /usr/games/stockfish")

ECHIQUIER = Path(sys.executable).with_name("echiquier")
READY = re.compile(r"engine \S+(?: [^()]*)? ready \(pid (\d+)\)")


def running(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie nobody reaped has ended)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return text.rpartition(")")[2].split()[0] != "Z"


def until(condition, what: str, within: float = 30.0) -> None:
    """Wait for ``condition()`` (another process's doing), failing after ``within`` s."""
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {within} s: {what}")
        time.sleep(0.02)


def page(url: str) -> dict:
    with urllib.request.urlopen(url + "/api/state", timeout=30) as answer:
        return json.loads(answer.read())


def test_ctrl_c_on_echiquier_sim_stops_its_engines_without_starting_them_again(tmp_path):
    """Issue 32, item 8: the terminal's SIGINT reached the whole group and killed Stockfish first; the
    opponent then started it again ("The engine stopped; it was started again") while the service
    stopped. The engines run in a session of their own: the Ctrl-C reaches the service alone, which
    quits them."""
    config = tmp_path / "config.toml"
    config.write_text("[coach]\nwhite = true\nmovetime_ms = 20000\n")
    log = tmp_path / "journal"
    with open(log, "w") as journal:
        proc = subprocess.Popen([str(ECHIQUIER), "sim", "--port", "0", "--state-dir", str(tmp_path / "state"),
                                 "--config", str(config), "--opponent", "engine", "--engine-side", "black",
                                 "--verbose"], stdout=subprocess.PIPE, stderr=journal, text=True,
                                start_new_session=True)    # (its own group, as a terminal's foreground job)
    try:
        found = re.search(r"http://127\.0\.0\.1:\d+", proc.stdout.readline())
        assert found, log.read_text()
        url = found.group(0)
        until(lambda: len(READY.findall(log.read_text())) == 1, "the opponent's engine ready")
        until(lambda: page(url)["hint_available"], "the game begun, White coached")
        request = urllib.request.Request(url + "/api/coach/hint", data=json.dumps({}).encode(), method="POST",
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as answer:      # the helper engine: a long search
            assert answer.status == 200
        until(lambda: len(READY.findall(log.read_text())) == 2, "the helper engine ready")
        engines = [int(pid) for pid in READY.findall(log.read_text())]
        assert all(os.getsid(pid) == pid for pid in engines), "an engine in the service's session"
        os.killpg(proc.pid, signal.SIGINT)                 # the terminal's Ctrl-C: the whole foreground group
        assert proc.wait(timeout=30) == 0, log.read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
    journal_text = log.read_text()
    assert "restarting the engine" not in journal_text and "ended unexpectedly" not in journal_text, journal_text
    assert "failed a search" not in journal_text, journal_text
    assert READY.findall(journal_text) == [str(pid) for pid in engines]     # none started again
    assert not [pid for pid in engines if running(pid)]


SERVICE = textwrap.dedent("""
    import asyncio
    from chess_core import STARTING_FEN
    from uci.helper import HelperEngine, Search
    from uci.engine import EngineLaunch, SearchLimit, UciEngine

    async def main():
        long = SearchLimit(movetime_ms=600_000)
        opponent = UciEngine(EngineLaunch({stockfish!r}))
        await opponent.start()
        helper = HelperEngine(EngineLaunch({stockfish!r}))
        searches = [asyncio.ensure_future(opponent.play(STARTING_FEN, [], long)),
                    asyncio.ensure_future(helper.search(Search(limit=long)))]
        while not (opponent._last_info and helper._engine is not None and helper._engine._last_info):
            await asyncio.sleep(0.01)          # (both searching: their first scores have come)
        print(opponent.pid, helper.pid, flush=True)
        await asyncio.gather(*searches)

    asyncio.run(main())
""")


def test_a_service_killed_with_sigkill_leaves_no_engine_running(tmp_path):
    """Issue 32, item 8: in a session of their own the engines no longer get the group's signals; a
    service killed outright (SIGKILL, the OOM killer) closes their stdin, and Stockfish ends on it,
    even in the middle of a search."""
    script = tmp_path / "service.py"
    script.write_text(SERVICE.format(stockfish=STOCKFISH))
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True,
                            cwd=Path(__file__).resolve().parents[3])
    try:
        engines = [int(pid) for pid in proc.stdout.readline().split()]
        assert len(engines) == 2 and all(running(pid) for pid in engines)
        assert all(os.getsid(pid) == pid for pid in engines), "an engine in the service's session"
    finally:
        proc.kill()                                        # SIGKILL: no handler runs, nothing is quit
        proc.wait()
        proc.stdout.close()
    until(lambda: not any(running(pid) for pid in engines), "the engines ended with their service", within=10)


def service(tmp_path) -> tuple[Service, EngineOpponent]:
    config = loads_config(f'[board]\nsensors = "sim"\nsettle_ms = 30\n[storage]\ndir = "{tmp_path}"\n')
    opponent = EngineOpponent(BLACK, level=Level(depth=3), config=EngineLaunch(STOCKFISH))
    board = SimulatedBoard(Position().occupied)
    return Service(config, source=board, leds=RecordingLedSink(), opponent=opponent, buttons=None), opponent


async def test_an_engine_that_ends_once_the_service_stops_is_not_started_again(tmp_path):
    """Issue 32, item 8: an engine that ended between the stop asked (a signal, ``Service.stop``) and
    the opponent's own stop was started again, and the page told so."""
    svc, opponent = service(tmp_path)
    links: list[LinkState] = []
    await svc.session.start_opponent()
    try:
        engine = opponent._engine
        assert engine is not None and engine.state is EngineState.READY
        real_link = opponent._listener.link
        opponent._listener.link = lambda state, detail="": (links.append(state), real_link(state, detail))
        svc.stop()                                         # a stop begins (what SIGTERM and SIGINT call)...
        os.kill(engine.pid, signal.SIGKILL)                # ...and the engine ends before the opponent is stopped
        async with asyncio.timeout(15):
            while engine.state is not EngineState.FAILED:
                await asyncio.sleep(0.01)
        assert opponent._task is None and opponent._engine is engine     # no restart under way
        assert LinkState.RECONNECTING not in links
    finally:
        await svc.session.aclose()
    assert opponent._engine is engine and not running(engine.pid)
