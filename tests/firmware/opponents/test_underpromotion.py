"""The opponent's under-promotion (Stockfish's, Lichess's) carried out on the board is recorded with its own piece."""
from __future__ import annotations

import asyncio
import os

import pytest

from chess_core import BLACK, WHITE, Move
from firmware.opponents.engine.levels import Level
from firmware.opponents.engine.opponent import EngineOpponent
from uci.engine import EngineLaunch
from firmware.opponents.lichess.opponent import LichessOpponent
from tests.firmware.session_support import Table

from .helpers import STOCKFISH

# Black to move: f1=N+ forks the king on g3 and the queen on d2; f1=Q loses to Qh2 mate.
FORK = "8/8/8/8/8/6K1/3Q1p2/7k b - - 0 1"


async def until(condition, timeout: float = 15.0) -> None:
    async def poll() -> None:
        while not condition():
            await asyncio.sleep(0.005)
    await asyncio.wait_for(poll(), timeout)


def carry_out(table: Table, uci: str) -> None:
    """The hand carries the move out the usual way: the pawn set on the last rank, then exchanged
    there for the new piece (the board reads no piece: the exchange keeps the opponent's choice).
    The page offers no choice of piece meanwhile: the opponent chose it."""
    table.lift(uci[:2])
    assert table.session.state().promotion is None
    table.place(uci[2:4], wait=1.5)
    assert table.session.state().promotion is None and table.session.state().promotion_square is None
    table.lift(uci[2:4], wait=2.0)
    table.place(uci[2:4])
    table.wait(1.0)


@pytest.mark.skipif(not os.access(STOCKFISH, os.X_OK), reason="needs /usr/games/stockfish")
async def test_stockfish_under_promotion_is_recorded_as_a_knight(tmp_path):
    table = Table(tmp_path, fen=FORK)
    opponent = EngineOpponent(BLACK, level=Level(depth=12),
                              config=EngineLaunch(STOCKFISH, options={"Threads": 1, "Hash": 16}))
    await table.session.start_opponent(opponent)
    table.setup(FORK)
    try:
        await until(lambda: table.session.board_state.play.expected_move is not None)
        move = table.session.board_state.play.expected_move
        assert move == Move.from_uci("f2f1n")
        carry_out(table, "f2f1n")
        assert table.session.game.moves == [Move.from_uci("f2f1n")]
        assert table.session.snapshot()["moves"]["san"] == ["f1=N+"]
        # the engine's copy of the game took it: it plays on from the knight (White answers, the engine replies)
        table.play("g3f3")
        await until(lambda: table.session.board_state.play.expected_move is not None)
        assert table.session.game.position.is_legal(table.session.board_state.play.expected_move)
    finally:
        await table.session.aclose()


async def test_lichess_under_promotion_is_recorded_as_a_knight(tmp_path, fake, client):
    before = "8/8/8/8/7K/8/3Q1p2/7k w - - 0 1"   # White plays Kg3, then the fork
    table = Table(tmp_path)
    opponent = LichessOpponent(client)
    await table.session.start_opponent(opponent)
    try:
        fake.start_game("Bobby", color=WHITE, initial_fen=before, script=("f2f1n",))
        await until(lambda: table.session.seat.online_sync is not None)
        table.setup(before)
        table.play("h4g3")
        await until(lambda: table.session.board_state.play.expected_move is not None)
        assert table.session.board_state.play.expected_move == Move.from_uci("f2f1n")
        carry_out(table, "f2f1n")
        assert [m.uci() for m in table.session.game.moves] == ["h4g3", "f2f1n"]
        assert table.session.snapshot()["moves"]["san"] == ["Kg3", "f1=N+"]
        assert not table.session.snapshot()["problems"]
    finally:
        await table.session.aclose()
