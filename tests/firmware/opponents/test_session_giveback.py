"""A player who left and comes back: the computer's take-over undone (page and board button), and kept over a restart."""
from __future__ import annotations

import os

import pytest

from chess_core import BLACK, WHITE, Move
from firmware.session.session import SessionError
from firmware.session.game_commands import button

from .helpers import STOCKFISH
from .test_session_engine import FAST, closing, configured_table, engine_reply, pgn_of, said_name  # noqa: F401
from tests.said import english

pytestmark = pytest.mark.skipif(not os.access(STOCKFISH, os.X_OK), reason="needs /usr/games/stockfish")


async def test_the_player_takes_their_side_back_and_plays_on(tmp_path, closing):  # noqa: F811
    table = configured_table(tmp_path, FAST, white="Alice", black="Bob")
    session = table.session
    closing.append(session)
    table.setup()
    table.play("e2e4")
    session.seat.takeovers.take_over("black")
    reply = await engine_reply(table)       # the computer's move for Bob, shown on the LEDs...
    assert session.snapshot()["players"]["black"] == f"Bob ({said_name()} from move 1)"   # the engine's own name
    session.seat.takeovers.give_back("black")              # ...but Bob is back before it is carried out
    snap = english(session.snapshot())
    assert snap["players"]["black"] == "Bob" and snap["opponent"]["takeover"] is None
    assert snap["expected_move"] is None and snap["opponent"]["sides"] == []
    own = "c7c5" if reply.uci() != "c7c5" else "e7e5"
    table.play(own)                         # Bob's own move, not the computer's
    assert session.game.moves[-1] == Move.from_uci(own)
    with pytest.raises(SessionError, match="not playing Black"):
        session.seat.takeovers.give_back("black")
    session.seat.takeovers.take_over("black")
    table.play("g1f3")
    reply = await engine_reply(table)
    table.play(reply.uci())
    table.play("f1c4")
    button(session, "return")                # the board's button: the side taken over comes back
    assert session.snapshot()["players"]["black"] == "Bob" and session.opponent.sides == frozenset()
    text = pgn_of(table).replace("\n", " ")
    assert "Bob plays Black again from here" in text and f"{said_name()} plays Black from here" in text


async def test_a_take_over_survives_a_restart(tmp_path, closing):  # noqa: F811
    table = configured_table(tmp_path, FAST, white="Alice", black="Bob")
    session = table.session
    table.setup()
    table.play("d2d4")
    session.seat.takeovers.take_over("black")
    reply = await engine_reply(table)
    table.play(reply.uci())
    await session.aclose()
    restarted = table.new_session()         # a power cut: same storage, a new session, no engine yet
    closing.append(restarted)
    assert restarted.restore(table.t)
    table.session = restarted
    await restarted.start_opponent()
    snap = english(restarted.snapshot())
    assert snap["players"]["black"] == f"Bob ({said_name()} from move 1)"
    assert snap["opponent"]["takeover"]["black"]["player"] == "Bob" and snap["opponent"]["sides"] == ["black"]
    table.play("c2c4")
    move = await engine_reply(table)        # the computer plays on for Bob
    assert restarted.game.position.is_legal(move) and restarted.game.turn == BLACK
    restarted.seat.takeovers.give_back("black")
    assert restarted.snapshot()["players"]["black"] == "Bob"
    assert restarted.file.recorder.load().takeovers == {}
    assert WHITE not in restarted.opponent.sides
