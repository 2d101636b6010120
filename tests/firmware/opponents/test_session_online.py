"""Online play as the player sees it: the Session against the fake Lichess (restarts, takebacks, the PGN, the page's words)."""
from __future__ import annotations

import pytest

from chess_core import BLACK, WHITE, Move, read_game
from firmware.opponents.lichess.opponent import LichessOpponent

from .test_session_lichess import carry_out, online, tables, until  # noqa: F401 - tables is a fixture


async def test_an_online_game_cut_by_a_restart_takes_the_end_it_had_meanwhile(tables, tmp_path, fake, client):
    table, opponent, game_id = await online(tables, tmp_path, fake, client, color=WHITE)
    session = table.session
    table.play("e2e4")
    await until(lambda: session.expected_move is not None)
    table.play(session.expected_move.uci())
    await session.aclose()            # the power goes
    fake.opponent_resigns(game_id)    # ... and the game ends over there meanwhile
    restarted = table.new_session()
    table.session = restarted
    tables.append(table)
    assert restarted.restore(table.t) and not restarted.record.is_over
    await restarted.start_opponent(LichessOpponent(client))
    await until(lambda: restarted.record.is_over)
    assert restarted.game.outcome.describe() == "White wins by resignation"
    pgn = read_game(restarted.recorder.pgn_path(restarted.record).read_text(encoding="utf-8"))
    assert pgn.result == "1-0" and len(pgn.moves) == 2


async def test_the_pgn_of_an_online_game_has_what_lichess_exports(tables, tmp_path, fake, client):
    table, opponent, game_id = await online(tables, tmp_path, fake, client, color=BLACK, limit_ms=900_000,
                                            increment_ms=10_000)
    session = table.session
    await until(lambda: len(session.game.moves) == 1)   # White's first move, made before the board joined
    carry_out(table, session.game.moves[0].uci())
    table.play("g8f6" if session.game.position.is_legal(Move.from_uci("g8f6")) else "b8c6")
    await until(lambda: len(fake.games[game_id].moves) >= 2)
    await session.aclose()
    headers = read_game(session.recorder.pgn_path(session.record).read_text(encoding="utf-8")).headers
    assert headers["Event"] == "casual rapid game" and headers["GameId"] == game_id
    assert headers["Site"] == f"{fake.base_url}/{game_id}" and headers["Variant"] == "Standard"
    assert (headers["WhiteElo"], headers["BlackElo"]) == ("1500", "1500")
    assert (headers["UTCDate"], headers["UTCTime"]) == ("2023.11.14", "22:13:20")   # the fake's createdAt
    assert (headers["White"], headers["Black"], headers["TimeControl"]) == ("Mary", "Bobby", "900+10")
