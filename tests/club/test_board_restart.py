"""A real board process (`echiquier run` replaying a capture) killed mid-game and started again."""
from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.hands import capture_game, random_game

from .mosquitto import CLUB
from .support import get_text, read_games, start_hub, stop_hub, uci_moves, until

ROOT = Path(__file__).resolve().parents[2]


def board_config(tmp_path: Path, broker, board: str, moves: list[str], speed: float) -> Path:
    directory = tmp_path / f"board{board}"
    directory.mkdir()
    (directory / "game.cap").write_text(capture_game(moves, seed=7, amend_rate=0).text)
    config = directory / "config.toml"
    config.write_text(f'[board]\nsensors = "replay"\ncapture = "game.cap"\nspeed = {speed}\n'
                      f'[game]\ntime_control = "900+10"\nwhite = "W{board}"\nblack = "B{board}"\n'
                      f'[storage]\ndir = "state"\n[web]\nenabled = false\n'
                      f'[club]\nbroker = "{broker.url}"\nboard = "{board}"\nclub = "{CLUB}"\n'
                      f'credentials_file = "{broker.files.credentials(board)}"\n')
    return config


def start_board(config: Path) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "firmware.cli", "run", "--config", str(config)], cwd=ROOT,
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


@pytest.mark.slow
async def test_a_board_killed_mid_game_and_restarted_republishes_the_whole_game(broker, tmp_path):
    moves = random_game(11, max_plies=40)
    app, task = await start_hub(broker, tmp_path / "hub")
    config = board_config(tmp_path, broker, "2", moves, speed=8)
    loop = asyncio.get_running_loop()
    board = start_board(config)
    try:
        await until(app.hub, lambda: "2" in app.hub.boards and len(app.hub.boards["2"].moves) >= 6, timeout=60)
        board.send_signal(signal.SIGKILL)     # a power cut: no goodbye, the broker sends its will
        await loop.run_in_executor(None, board.wait)
        await until(app.hub, lambda: app.hub.online.get("2") is False, timeout=60)
        seen = len(app.hub.boards["2"].moves)
        assert 6 <= seen < len(moves)
        board = start_board(config)           # the replay resumes where the saved game stopped
        assert await loop.run_in_executor(None, board.wait) == 0, board.stderr.read()
        await until(app.hub, lambda: len(app.hub.boards["2"].moves) == len(moves), timeout=60)
        (game,) = read_games((await get_text(app, "/round.pgn"))[1])
        assert uci_moves(game) == moves
        (own,) = read_games(next((config.parent / "state" / "games").glob("*.pgn")).read_text())
        assert uci_moves(own) == moves
        assert [n.clock() for n in game.mainline()] == [n.clock() for n in own.mainline()]
        assert len(list((tmp_path / "hub" / "games" / "2").glob("*.json"))) == 1   # one game, not two
    finally:
        board.kill()
        board.wait()
        await stop_hub(app, task)
