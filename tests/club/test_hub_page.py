"""The hall page in headless Chromium: boards appear, move live, open large, names shown as text."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from club_wire.message import game_message
from club_wire.topics import game_topic

from .mosquitto import CLUB, free_port
from .support import SCHOLAR
from .test_pairing_and_safety import Raw

pytestmark = pytest.mark.browser
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
ROOT = Path(__file__).resolve().parents[2]
sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect
if not shutil.which(CHROMIUM):
    pytest.skip("the system Chromium (Debian's chromium package) is not installed", allow_module_level=True)


def message(board: str, moves: list[str], result: str = "*", termination=None) -> bytes:
    snap = {"game_file": "2026-12-01_1930_Ada-vs-Bo.pgn", "players": {"white": "Ada", "black": "<b>Bo</b>"},
            "event": "Club", "round": "1", "rules": "fide", "time_control": "600", "started": True,
            "moves": {"uci": moves}, "move_clocks": [], "result": result, "termination": termination,
            "clocks": {"white": 300_000, "black": 290_000, "running": None if result != "*" else "white"}}
    return game_message(board, snap, time.time())


def test_the_hall_page_follows_the_boards_live(broker, tmp_path):
    pairings = tmp_path / "pairings.csv"
    pairings.write_text("board,white,black,round\n1,Ada,<b>Bo</b>,1\n2,Cy,Di,1\n")
    port = free_port()
    hub = subprocess.Popen([sys.executable, "-m", "firmware.cli", "hub", "--broker", broker.url, "--club", CLUB,
                            "--credentials", str(broker.files.credentials("hub")), "--host", "127.0.0.1",
                            "--port", str(port), "--state-dir", str(tmp_path / "hub"), "--pairings", str(pairings)],
                           cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)), stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    board = Raw(broker, "1")
    try:
        for line in hub.stderr:
            if "hub connected to" in line:
                break
        assert board.ready.wait(10)
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            page = browser.new_page()
            page.goto(f"http://127.0.0.1:{port}/")
            cards = page.locator(".card")
            expect(cards).to_have_count(2, timeout=10_000)
            expect(page.locator('.card[data-board="2"] .last')).to_have_text("waiting for the game to start")
            expect(page.locator("#round")).to_have_text("· round 1")
            board.publish(game_topic(CLUB, "1"), message("1", SCHOLAR[:4]), retain=True)
            one = page.locator('.card[data-board="1"]')
            expect(one.locator(".last")).to_have_text("1... e5 2. Bc4 Nc6", timeout=10_000)
            expect(one.locator(".names")).to_contain_text("<b>Bo</b>")     # a name is text, never markup
            assert page.locator(".card b").count() == 0
            one.click()
            expect(page.locator("#bigtitle")).to_have_text("Board 1: Ada – <b>Bo</b>")
            expect(page.locator("#moves li")).to_have_count(2)
            board.publish(game_topic(CLUB, "1"), message("1", SCHOLAR, "1-0", "checkmate"), retain=True)
            expect(page.locator("#moves li")).to_have_count(4, timeout=10_000)
            expect(page.locator("#bigtitle")).to_contain_text("1-0")
            expect(page.locator("#ratingrows tr").first).to_contain_text("Ada1520")
            browser.close()
    finally:
        board.close()
        hub.terminate()
        hub.wait()
