"""Helpers of the club night tests: a hub in the test's loop, boards publishing a hand-driven session."""
from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Callable

import aiohttp
import chess.pgn
import io

from firmware.club.publisher import BoardPublisher
from firmware.session.game_commands import set_round
from club_wire.topics import Broker
from club_hub.app import HubApp, HubOptions
from club_hub.core import Hub

from .mosquitto import CLUB, Mosquitto

SCHOLAR = "e2e4 e7e5 f1c4 b8c6 d1h5 g8f6 h5f7".split()
RUY = "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6 e1g1 f8e7 f1e1 b7b5 a4b3 d7d6".split()


async def until(hub: Hub, predicate: Callable[[], bool], timeout: float = 15.0) -> None:
    """Wait (on the hub's change events, not a clock) until ``predicate()`` holds."""
    event = asyncio.Event()

    def listener(board: str) -> None:
        event.set()
    hub.listeners.append(listener)
    try:
        async with asyncio.timeout(timeout):
            while not predicate():
                event.clear()
                await event.wait()
    finally:
        hub.listeners.remove(listener)


async def start_hub(broker: Mosquitto, state: Path, **options) -> tuple[HubApp, asyncio.Task]:
    app = HubApp(HubOptions(broker=broker.url, state_dir=state, club=CLUB, host="127.0.0.1", port=0,
                            credentials=broker.files.credentials("hub"), **options))
    app.prepare()
    task = asyncio.create_task(app.run())
    await app.ready.wait()
    return app, task


async def stop_hub(app: HubApp, task: asyncio.Task) -> None:
    app.stop()
    await task


def publisher_for(broker: Mosquitto, table, board: str) -> BoardPublisher:
    """A publisher of ``table``'s session as board ``board``; pairings are applied on the loop."""
    loop = asyncio.get_running_loop()

    def apply(white, black, game) -> None:
        loop.call_soon_threadsafe(lambda: set_round(table.session, white, black, **game))
    publisher = BoardPublisher(Broker.parse(broker.url), CLUB, board, credentials=broker.credentials(board),
                               on_pairing=apply)
    table.session.subscribe(publisher.on_state)
    publisher.on_state(table.session.state())
    publisher.start()
    return publisher


async def get_text(app: HubApp, path: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as http:
        async with http.get(f"http://127.0.0.1:{app.port}{path}") as answer:
            return answer.status, await answer.text()


def read_games(text: str) -> list[chess.pgn.Game]:
    stream, games = io.StringIO(text), []
    while (game := chess.pgn.read_game(stream)) is not None:
        assert not game.errors, game.errors
        games.append(game)
    return games


def uci_moves(game: chess.pgn.Game) -> list[str]:
    return [m.uci() for m in game.mainline_moves()]
