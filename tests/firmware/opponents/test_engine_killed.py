"""The opponent's real Stockfish killed (SIGKILL: the OOM killer, a crash) while the player thinks and while it thinks: restarted, the move answered, the page told once in both languages."""
from __future__ import annotations

import asyncio
import os
import signal

import pytest

from chess_core import BLACK, Move
from firmware.opponents.base import LinkState
from firmware.opponents.engine.levels import Level
from firmware.opponents.engine.opponent import EngineOpponent
from uci.engine import EngineLaunch, EngineState
from firmware.words import prompt
from tests.firmware.session_support import Table

from .helpers import STOCKFISH

pytestmark = pytest.mark.skipif(not os.access(STOCKFISH, os.X_OK), reason="needs /usr/games/stockfish")

CONFIG = EngineLaunch(STOCKFISH, options={"Threads": 1, "Hash": 16})
RESTARTED_EN, RESTARTED_FR = prompt("engine_restarted", "en"), prompt("engine_restarted", "fr")


async def until(condition, what: str, within: float = 15.0) -> None:
    """Let the loop run (the engine is a real process) until ``condition()``; fail after ``within`` s."""
    try:
        async with asyncio.timeout(within):
            while not condition():
                await asyncio.sleep(0.01)
    except TimeoutError:
        raise AssertionError(f"not within {within} s: {what}") from None


class Told:
    """Every notice the session tells the page, and every loop error (a task exception nobody retrieved)."""

    def __init__(self, table: Table) -> None:
        self.notices: list[tuple[str, str]] = []
        self.errors: list[dict] = []
        told: list[object] = [table.session.board_state.play.notice]

        def heard(state) -> None:   # (each notice as the session keeps it: a new one is told)
            notice = table.session.board_state.play.notice
            if notice != told[-1]:
                told.append(notice)
                if notice is not None:
                    self.notices.append((notice[0], notice[1]))
        table.session.subscribe(heard)
        asyncio.get_running_loop().set_exception_handler(lambda _loop, context: self.errors.append(context))

    def restarts(self) -> int:
        return self.notices.count((RESTARTED_EN, RESTARTED_FR))


async def engine_table(tmp_path, level: Level) -> tuple[Table, EngineOpponent, Told]:
    table = Table(tmp_path)
    opponent = EngineOpponent(BLACK, level=level, config=CONFIG)
    await table.session.start_opponent(opponent)
    table.setup()
    assert table.session.seat.link_state is LinkState.CONNECTED
    return table, opponent, Told(table)


def assert_told_once(table: Table, told: Told) -> None:
    state = table.session.state()
    assert (state.notice, state.notice_fr) == (RESTARTED_EN, RESTARTED_FR)
    assert told.restarts() == 1, told.notices


async def test_stockfish_killed_while_the_player_thinks_is_restarted_and_answers_and_the_page_is_told(tmp_path):
    table, opponent, told = await engine_table(tmp_path, Level(depth=3))
    try:
        engine = opponent._engine
        assert engine is not None and engine.state is EngineState.READY
        old_pid = engine.pid
        os.kill(old_pid, signal.SIGKILL)             # White (the player) to move: the engine waits
        await until(lambda: opponent._engine is not None and opponent._engine.pid != old_pid
                    and table.session.seat.link_state is LinkState.CONNECTED, "the engine started again")
        assert_told_once(table, told)
        table.play("e2e4")
        await until(lambda: table.session.board_state.play.expected_move is not None, "the engine's answer to 1. e4")
        reply = table.session.board_state.play.expected_move
        assert reply is not None and table.session.game.position.is_legal(reply)
        table.play(reply.uci())
        assert table.session.game.moves[-1] == reply
        assert told.restarts() == 1 and told.errors == []
        assert table.session.state().opponent.link == "connected"
    finally:
        await table.session.aclose()


async def test_stockfish_killed_while_it_thinks_is_restarted_and_answers_and_the_page_is_told(tmp_path):
    table, opponent, told = await engine_table(tmp_path, Level(movetime_ms=3000))
    try:
        table.play("e2e4")
        await until(lambda: opponent._engine is not None and opponent._engine.state is EngineState.THINKING,
                    "the engine thinking")
        old_pid = opponent._engine.pid
        opponent.set_level(Level(depth=3))           # (the search after the restart: short)
        os.kill(old_pid, signal.SIGKILL)
        await until(lambda: table.session.board_state.play.expected_move is not None, "the engine's answer after its restart")
        assert opponent._engine is not None and opponent._engine.pid != old_pid
        reply = table.session.board_state.play.expected_move
        assert reply is not None and table.session.game.position.is_legal(reply)
        assert_told_once(table, told)
        table.play(reply.uci())
        assert table.session.game.moves == [Move.from_uci("e2e4"), reply]
        assert told.errors == []
    finally:
        await table.session.aclose()
