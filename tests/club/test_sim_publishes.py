"""Issue 26 (13b): `echiquier sim` publishes to a club broker as `echiquier run` does (a club rehearses a night without boards)."""
from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path

import aiohttp

from firmware.cli import main

from .mosquitto import CLUB
from .support import get_text, read_games, start_hub, stop_hub, uci_moves, until

ECHIQUIER = Path(sys.executable).with_name("echiquier")


async def click(port: int, square: str) -> None:
    async with aiohttp.ClientSession() as http:
        async with http.post(f"http://127.0.0.1:{port}/api/sim/click", json={"square": square}) as answer:
            assert answer.status == 200, await answer.text()


async def test_a_simulated_board_publishes_its_game_to_the_clubs_hub(broker, tmp_path):
    app, task = await start_hub(broker, tmp_path / "hub")
    config = tmp_path / "board.toml"    # the club's settings as a board has them; broker and number given here
    config.write_text(f'[game]\nwhite = "Ada"\nblack = "Bo"\n'
                      f'[club]\nclub = "{CLUB}"\ncredentials_file = "{broker.files.credentials("3")}"\n')
    sim = await asyncio.create_subprocess_exec(
        str(ECHIQUIER), "sim", "--port", "0", "--state-dir", str(tmp_path / "state"), "--config", str(config),
        "--club-broker", broker.url, "--club-board", "3", stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE)
    try:
        line = await asyncio.wait_for(sim.stdout.readline(), 60)
        found = re.search(rb"http://127\.0\.0\.1:(\d+)/", line)
        assert found, line + await sim.stderr.read(4000)
        port = int(found.group(1))
        await until(app.hub, lambda: app.hub.online.get("3") is True and "3" in app.hub.boards)
        played: tuple[str, ...] = ()
        for move in ("e2e4", "e7e5"):        # each move made, then seen at the hub
            await click(port, move[:2])
            await click(port, move[2:])
            played += (move,)
            await until(app.hub, lambda: app.hub.boards["3"].moves == played)
        assert app.hub.boards["3"].white == "Ada" and app.hub.boards["3"].black == "Bo"
        (game,) = read_games((await get_text(app, "/round.pgn"))[1])
        assert uci_moves(game) == ["e2e4", "e7e5"] and game.headers["Board"] == "3"
        sim.terminate()                     # stopped: the board says so
        assert await asyncio.wait_for(sim.wait(), 30) == 0
        await until(app.hub, lambda: app.hub.online.get("3") is False)
    finally:
        if sim.returncode is None:
            sim.kill()
            await sim.wait()
        await stop_hub(app, task)


def test_a_club_broker_needs_a_board_number_as_under_run(tmp_path, capsys):
    code = main(["sim", "--port", "0", "--state-dir", str(tmp_path), "--club-broker", "mqtt://127.0.0.1:1883"])
    assert code == 2
    assert "club.board" in capsys.readouterr().err
