"""The engine opponent through the real Session: its moves shown and carried out on the simulated board."""
from __future__ import annotations

import asyncio
import os
import random

import pytest

from chess_core import BLACK, QUEEN, WHITE, Move, Termination, parse_square, square_name
from firmware.opponents.engine import EngineConfig
from firmware.opponents.engine_opponent import EngineOpponent, takeover_record
from firmware.opponents.levels import Level
from tests.firmware.session_support import Table

from .helpers import STOCKFISH

pytestmark = pytest.mark.skipif(not os.access(STOCKFISH, os.X_OK), reason="needs /usr/games/stockfish")

CONFIG = EngineConfig(STOCKFISH, options={"Threads": 1, "Hash": 16})
LEVEL = Level(depth=3)


async def engine_reply(table: Table, timeout: float = 10.0) -> Move:
    """Let the engine think (the loop runs) until the session shows its move."""
    async def wait() -> Move:
        while table.session.expected_move is None:
            await asyncio.sleep(0.005)
        return table.session.expected_move
    return await asyncio.wait_for(wait(), timeout)


# A rook leaving its corner while its king is at home reads as the start of rook-first castling on
# a sensor board: the session waits to see whether the king follows. The random player leaves those
# moves out (the session's own tests cover that ambiguity).
CORNERS = {"a1": "e1", "h1": "e1", "a8": "e8", "h8": "e8"}


def random_move(table: Table, rng: random.Random, greedy: bool = False) -> Move:
    """A random legal move that a hand makes unambiguously (queen promotions, no rook-first castling);
    ``greedy``: a mate if there is one, else one of the biggest captures."""
    position = table.session.game.position
    kings = {position.king[WHITE], position.king[BLACK]}
    moves = sorted((m for m in position.legal_moves() if m.promotion in (None, QUEEN)
                    and not (square_name(m.from_square) in CORNERS
                             and parse_square(CORNERS[square_name(m.from_square)]) in kings)), key=Move.uci)
    if greedy:
        scored = []
        for move in moves:
            target = position.piece_at(move.to_square)
            position.push(move)
            mate = position.is_checkmate()
            position.pop()
            scored.append((100 if mate else target.piece_type if target else 0, move))
        best = max(score for score, _ in scored)
        moves = [move for score, move in scored if score == best]
    return rng.choice(moves)


async def play_out(table: Table, engine_sides: set, rng: random.Random, max_plies: int = 300) -> None:
    game = table.session.game
    while not game.is_over and len(game.moves) < max_plies:
        if game.turn in engine_sides:
            move = await engine_reply(table)
        else:
            move = random_move(table, rng)
        table.play(move.uci())
        game = table.session.game
        assert game.moves[-1] == move, f"the board committed {game.moves[-1]} for {move}"


async def test_a_full_game_against_stockfish_through_the_session(tmp_path):
    table = Table(tmp_path)
    opponent = EngineOpponent(BLACK, level=LEVEL, config=CONFIG)
    await table.session.start_opponent(opponent)
    table.setup()
    try:
        await play_out(table, {BLACK}, random.Random(5))
    finally:
        await table.session.aclose()
    game = table.session.game
    assert game.outcome is not None and game.outcome.termination is Termination.CHECKMATE
    assert game.outcome.winner == BLACK
    saved = table.session.recorder.load()
    assert saved.is_over and saved.moves == [m.uci() for m in game.moves]


async def test_the_engine_playing_white_moves_first_on_the_board(tmp_path):
    table = Table(tmp_path)
    opponent = EngineOpponent(WHITE, level=LEVEL, config=CONFIG)
    await table.session.start_opponent(opponent)
    table.setup()
    try:
        first = await engine_reply(table)
        snap = table.session.snapshot()
        assert snap["expected_move"] == first.uci()
        table.play(first.uci())
        assert table.session.game.moves == [first]
    finally:
        await table.session.aclose()


async def test_a_wrongly_executed_engine_move_is_pointed_out_like_an_illegal_move(tmp_path):
    table = Table(tmp_path)
    opponent = EngineOpponent(BLACK, level=LEVEL, config=CONFIG)
    await table.session.start_opponent(opponent)
    table.setup()
    try:
        table.play("e2e4")
        move = await engine_reply(table)
        position = table.session.game.position
        wrong = next(sq for sq in range(40, 48) if position.piece_at(sq) is None and sq != move.to_square)
        table.lift(square_name(move.from_square))
        table.place(square_name(wrong))
        assert table.session.snapshot()["wrong"], "the wrong square is pointed out"
        assert len(table.session.game.moves) == 1
        table.lift(square_name(wrong))
        table.place(square_name(move.to_square))
        assert table.session.game.moves[-1] == move
    finally:
        await table.session.aclose()


async def test_the_engine_takes_over_a_side_of_an_over_the_board_game(tmp_path):
    table = Table(tmp_path)
    table.setup()
    rng = random.Random(8)
    for _ in range(6):
        table.play(random_move(table, rng).uci())
    game = table.session.game
    record = takeover_record(BLACK, "Bob", "Stockfish", game.position)
    opponent = EngineOpponent(BLACK, level=LEVEL, config=CONFIG, start_fen=game.start_fen, moves=game.moves)
    await table.session.start_opponent(opponent)
    try:
        await play_out(table, {BLACK}, rng, max_plies=40)
    finally:
        await table.session.aclose()
    assert record.player_tag() == "Bob (Stockfish from move 4)"
    assert len(table.session.game.moves) == 40 or table.session.game.is_over
