"""The UCI client against the real Stockfish, and against fake engines that hang or lie."""
from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import pytest

from chess_core import STARTING_FEN, Move, Position
from firmware.opponents.base import ClockTimes
from uci.engine import (EngineLaunch, EngineCrashed, EngineError, EngineHung, EngineOption,
                                       EngineState, SearchLimit, UciEngine, position_command)

from .helpers import STOCKFISH, fake_engine

pytestmark = pytest.mark.skipif(not os.access(STOCKFISH, os.X_OK), reason="needs /usr/games/stockfish "
                                "(scripts/install-system-deps.sh)")

MATED = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"   # fool's mate: white is mated


def gone_or_reaped(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state != "Z"


@pytest.fixture
async def engine():
    e = UciEngine(EngineLaunch(STOCKFISH, options={"Threads": 1, "Hash": 16}))
    await e.start()
    yield e
    await e.close()


async def test_handshake_reads_the_engine_name_and_its_options(engine):
    assert engine.state is EngineState.READY
    assert engine.name.startswith("Stockfish")
    assert engine.options["Skill Level"] == EngineOption("Skill Level", "spin", "20", 0, 20)
    assert engine.options["UCI_LimitStrength"].type == "check"


async def test_start_is_idempotent(engine):
    pid = engine.pid
    await engine.start()
    assert engine.pid == pid


async def test_a_spin_option_is_clamped_to_what_the_engine_allows(engine, caplog):
    await engine.set_option("UCI_Elo", 800)   # Stockfish 15 takes 1350..2850
    assert "below its minimum 1350" in caplog.text
    await engine.ping()


async def test_an_unknown_option_is_refused_clearly(engine):
    with pytest.raises(EngineError, match="no option 'Contempt Factor'"):
        await engine.set_option("Contempt Factor", 3)


async def test_play_with_a_move_time_returns_a_legal_move_in_time(engine):
    moves = [Move.from_uci("e2e4"), Move.from_uci("e7e5")]
    began = time.monotonic()
    best = await engine.play(STARTING_FEN, moves, SearchLimit(movetime_ms=100))
    assert time.monotonic() - began < 2.0
    position = Position()
    for move in moves:
        position.push(move)
    assert position.is_legal(best.move)
    assert "score" in best.info


async def test_go_with_the_clock_times_moves_quickly_when_little_time_is_left(engine):
    limit = SearchLimit(times=ClockTimes(wtime=900, btime=60_000, winc=0, binc=0))
    assert limit.command() == "go wtime 900 btime 60000 winc 0 binc 0"
    began = time.monotonic()
    best = await engine.play(STARTING_FEN, [], limit)
    assert time.monotonic() - began < 1.0
    assert Position().is_legal(best.move)


async def test_go_from_a_fen_position(engine):
    fen = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"     # Ra8 mates
    assert position_command(fen, []) == f"position fen {fen}"
    best = await engine.play(fen, [], SearchLimit(depth=5))
    assert best.move == Move.from_uci("a1a8")
    assert best.info["score"] == "mate 1"


async def test_no_legal_move_is_bestmove_none(engine):
    best = await engine.play(MATED, [], SearchLimit(depth=1))
    assert best.move is None


async def test_stop_ends_a_long_search_at_once(engine):
    search = asyncio.ensure_future(engine.play(STARTING_FEN, [], SearchLimit(movetime_ms=30_000)))
    await asyncio.sleep(0.2)
    assert engine.state is EngineState.THINKING
    began = time.monotonic()
    engine.stop_search()
    best = await search
    assert time.monotonic() - began < 1.0
    assert Position().is_legal(best.move)
    assert engine.state is EngineState.READY


async def test_a_killed_engine_is_detected_reported_and_reaped(engine):
    pid = engine.pid
    search = asyncio.ensure_future(engine.play(STARTING_FEN, [], SearchLimit(movetime_ms=30_000)))
    await asyncio.sleep(0.2)
    os.kill(pid, signal.SIGKILL)
    with pytest.raises(EngineCrashed, match="exit code -9"):
        await asyncio.wait_for(search, 5)
    assert engine.state is EngineState.FAILED
    assert engine.returncode == -signal.SIGKILL
    assert gone_or_reaped(pid)
    with pytest.raises(EngineError, match="failed"):
        await engine.play(STARTING_FEN, [], SearchLimit(movetime_ms=10))


async def test_an_engine_that_never_moves_is_detected_as_hung_and_killed(tmp_path):
    path, args = fake_engine(tmp_path, "no-bestmove")
    engine = UciEngine(EngineLaunch(path, args, go_grace=0.2, stop_grace=0.2, quit_grace=0.2))
    await engine.start()
    assert engine.name == "FakeEngine 1"
    pid = engine.pid
    began = time.monotonic()
    with pytest.raises(EngineHung, match="no move within"):
        await engine.play(STARTING_FEN, [], SearchLimit(movetime_ms=100))
    assert time.monotonic() - began < 2.0    # 0.1 s + 0.2 s grace + 0.2 s after stop, and the kill
    assert engine.state is EngineState.FAILED
    assert gone_or_reaped(pid)
    await engine.close()


async def test_an_engine_that_never_answers_the_handshake_is_hung(tmp_path):
    path, args = fake_engine(tmp_path, "silent")
    engine = UciEngine(EngineLaunch(path, args, handshake_timeout=0.3, quit_grace=0.2))
    with pytest.raises(EngineHung, match="did not answer 'uci'"):
        await engine.start()
    assert engine.state is EngineState.FAILED
    assert gone_or_reaped(engine.pid)
    await engine.close()


async def test_a_missing_engine_is_a_clear_error():
    engine = UciEngine(EngineLaunch("/nonexistent/stockfish"))
    with pytest.raises(EngineError, match="cannot run the engine '/nonexistent/stockfish'"):
        await engine.start()


async def test_close_quits_reaps_and_is_idempotent():
    engine = UciEngine(EngineLaunch(STOCKFISH))
    await engine.start()
    pid = engine.pid
    await engine.close()
    await engine.close()
    assert engine.state is EngineState.CLOSED
    assert engine.returncode == 0
    assert gone_or_reaped(pid)


async def test_close_kills_an_engine_that_ignores_quit(tmp_path):
    path, args = fake_engine(tmp_path, "silent")
    engine = UciEngine(EngineLaunch(path, args, handshake_timeout=5, quit_grace=0.1))
    engine._proc = await asyncio.create_subprocess_exec(path, *args, stdin=asyncio.subprocess.PIPE,
                                                        stdout=asyncio.subprocess.PIPE)
    engine.state = EngineState.READY
    pid = engine.pid
    await engine.close()
    assert engine.returncode == -signal.SIGTERM
    assert gone_or_reaped(pid)


async def test_the_engine_as_a_context_manager_is_closed_after_use():
    async with UciEngine(EngineLaunch(STOCKFISH)) as engine:
        best = await engine.play(STARTING_FEN, [], SearchLimit(depth=3))
        assert best.move is not None
    assert engine.state is EngineState.CLOSED


def test_option_lines_with_spaces_and_vars_are_read():
    option = EngineOption.parse("option name Analysis Contempt type combo default Both var Off var White "
                                "var Black var Both")
    assert option == EngineOption("Analysis Contempt", "combo", "Both", None, None, ("Off", "White", "Black", "Both"))
    assert EngineOption.parse("option name Clear Hash type button") == EngineOption("Clear Hash", "button")


def test_search_limits_spell_go_and_bound_the_wait():
    limit = SearchLimit(times=ClockTimes(60_000, 30_000, 2_000, 2_000, movestogo=10), movetime_ms=500, depth=8)
    assert limit.command() == "go wtime 60000 btime 30000 winc 2000 binc 2000 movestogo 10 movetime 500 depth 8"
    assert limit.budget(side=1) == 0.5
    assert SearchLimit(times=ClockTimes(60_000, 30_000, 0, 2_000)).budget(side=1) == 32.0
