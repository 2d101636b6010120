"""Boards and a hub on a real Mosquitto: every move in /round.pgn, through broker and hub restarts."""
from __future__ import annotations

import asyncio
import json

import chess.pgn
import pytest

from tests.firmware.session_support import Table

from .support import RUY, SCHOLAR, get_text, publisher_for, read_games, start_hub, stop_hub, uci_moves, until


def board_pgn(table) -> chess.pgn.Game:
    games = list((table.tmp_path / "state" / "games").glob("*.pgn"))
    assert len(games) == 1, games
    return chess.pgn.read_game(open(games[0], encoding="utf-8"))


async def test_a_game_reaches_the_hub_page_and_round_pgn_move_for_move(broker, tmp_path):
    app, task = await start_hub(broker, tmp_path / "hub")
    table = Table(tmp_path / "b1", time_control="300+2", white="Ada", black="Bo", alternate_colours=False)
    publisher = publisher_for(broker, table, "1")
    try:
        table.setup()
        table.play_all(" ".join(SCHOLAR))
        await until(app.hub, lambda: "1" in app.hub.boards and app.hub.boards["1"].result == "1-0")
        status, text = await get_text(app, "/round.pgn")
        assert status == 200
        (game,) = read_games(text)
        own = board_pgn(table)
        assert uci_moves(game) == SCHOLAR == uci_moves(own)
        assert game.headers["White"] == "Ada" and game.headers["Black"] == "Bo" and game.headers["Result"] == "1-0"
        assert game.headers["Board"] == "1"
        assert [n.clock() for n in game.mainline()] == [n.clock() for n in own.mainline()]
        assert all(n.clock() is not None for n in game.mainline())
        status, text = await get_text(app, "/board/1.pgn")
        assert status == 200 and uci_moves(read_games(text)[0]) == SCHOLAR
        assert (await get_text(app, "/board/9.pgn"))[0] == 404
        assert (await get_text(app, "/board/..%2Fx.pgn"))[0] in (400, 404)
        # the page's state: the board with its moves in SAN and the finished game rated
        view = app.hub.board_view("1")
        assert view["san"][-1] == "Qxf7#" and view["result"] == "1-0"
        status, text = await get_text(app, "/ratings.csv")
        assert text.splitlines()[0].startswith("name,rating") and text.splitlines()[1].startswith("Ada,1520,1,1,0,0")
        status, text = await get_text(app, "/api/player/Bo")
        history = json.loads(text)
        assert status == 200 and history["rating"] == 1480
        assert [(g["opponent"], g["result"], g["score"], g["k"]) for g in history["games"]] == [("Ada", "1-0", 0.0, 40)]
        status, text = await get_text(app, "/player/Bo.csv")
        assert status == 200 and text.splitlines()[1].split(",")[1:4] == ["black", "Ada", "1-0"]
        assert (await get_text(app, "/api/player/Nobody"))[0] == 404
    finally:
        await asyncio.get_running_loop().run_in_executor(None, publisher.stop)
        await stop_hub(app, task)


async def test_the_board_plays_on_without_the_broker_and_sends_what_it_missed(broker, tmp_path):
    app, task = await start_hub(broker, tmp_path / "hub")
    table = Table(tmp_path / "b2", time_control="600+5")
    publisher = publisher_for(broker, table, "2")
    loop = asyncio.get_running_loop()
    try:
        table.setup()
        table.play_all(" ".join(RUY[:4]))
        await until(app.hub, lambda: "2" in app.hub.boards and len(app.hub.boards["2"].moves) == 4)
        await loop.run_in_executor(None, broker.stop)
        table.play_all(" ".join(RUY[4:10]))
        # the board recorded every move with no broker at all
        assert uci_moves(board_pgn(table)) == RUY[:10]
        assert len(app.hub.boards["2"].moves) == 4
        await loop.run_in_executor(None, broker.start)
        await until(app.hub, lambda: len(app.hub.boards["2"].moves) == 10)
        (game,) = read_games((await get_text(app, "/round.pgn"))[1])
        assert uci_moves(game) == RUY[:10]
        assert publisher.connections >= 2

        # the hub restarts: it loses nothing, and it gets the moves made while it was away
        await stop_hub(app, task)
        table.play_all(" ".join(RUY[10:]))
        app, task = await start_hub(broker, tmp_path / "hub")
        await until(app.hub, lambda: len(app.hub.boards["2"].moves) == len(RUY))
        (game,) = read_games((await get_text(app, "/round.pgn"))[1])
        assert uci_moves(game) == RUY == uci_moves(board_pgn(table))
    finally:
        await loop.run_in_executor(None, publisher.stop)
        await stop_hub(app, task)


async def test_a_restarted_hub_serves_the_kept_games_before_the_broker_answers(broker, tmp_path):
    app, task = await start_hub(broker, tmp_path / "hub")
    table = Table(tmp_path / "b3")
    publisher = publisher_for(broker, table, "3")
    loop = asyncio.get_running_loop()
    try:
        table.setup()
        table.play_all(" ".join(SCHOLAR))
        await until(app.hub, lambda: "3" in app.hub.boards and app.hub.boards["3"].over)
    finally:
        await loop.run_in_executor(None, publisher.stop)
        await stop_hub(app, task)
    await loop.run_in_executor(None, broker.stop)
    from club_hub.app import HubApp, HubOptions
    again = HubApp(HubOptions(broker=broker.url, state_dir=tmp_path / "hub", club="testclub"))
    again.prepare()   # reads the disk only
    (game,) = read_games(again.hub.round_pgn())
    assert uci_moves(game) == SCHOLAR and game.headers["Result"] == "1-0"
    assert again.hub.ratings.players["White"].games == 1   # rated once, kept
