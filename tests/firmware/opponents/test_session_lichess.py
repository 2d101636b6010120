"""Lichess through the real Session: a game against the fake server, played on the simulated board."""
from __future__ import annotations

import asyncio
import random

from chess_core import WHITE
from firmware.opponents.lichess_opponent import LichessOpponent
from tests.firmware.session_support import Table

from .test_session_engine import random_move


async def until(condition, timeout: float = 10.0) -> None:
    async def poll() -> None:
        while not condition():
            await asyncio.sleep(0.005)
    await asyncio.wait_for(poll(), timeout)


async def play_on_the_board(tmp_path, fake, client, seed: int, greedy: bool = True) -> tuple[Table, list[str]]:
    """Board White, moves made by hand; the fake's moves carried out as the LEDs show them."""
    table = Table(tmp_path)
    opponent = LichessOpponent(client)
    await table.session.start_opponent(opponent)
    table.setup()
    server = fake.start_game("Bobby", color=WHITE)
    await until(lambda: opponent.game is not None and opponent.game.full is not None)
    rng = random.Random(seed)
    try:
        game = table.session.game
        while not game.is_over and len(game.moves) < 200:
            if game.turn == WHITE:
                move = random_move(table, rng, greedy=greedy)
            else:
                await until(lambda: table.session.expected_move is not None or table.session.game.is_over)
                if table.session.game.is_over:
                    break
                move = table.session.expected_move
            table.play(move.uci())
            game = table.session.game
            assert game.moves[-1] == move
        if game.is_over:
            await until(lambda: fake.games[server.id].status != "started")
    finally:
        await table.session.aclose()
    return table, fake.games[server.id].moves


async def test_a_lichess_game_played_on_the_board_through_the_session(tmp_path, fake, client):
    table, server_moves = await play_on_the_board(tmp_path, fake, client, seed=3)
    board_moves = [m.uci() for m in table.session.game.moves]
    assert table.session.game.is_over
    assert server_moves[:len(board_moves)] == board_moves and len(server_moves) - len(board_moves) <= 1
    accepted = [ply for _, _, ply, status in fake.move_posts if status == 200]
    assert accepted == list(range(0, len(server_moves), 2)), "each board move sent once"


async def test_the_opponents_mating_move_is_in_the_sessions_game(tmp_path, fake, client):
    table, server_moves = await play_on_the_board(tmp_path, fake, client, seed=2, greedy=False)
    assert fake.games[next(iter(fake.games))].status == "mate" and len(server_moves) % 2 == 0
    assert [m.uci() for m in table.session.game.moves] == server_moves
