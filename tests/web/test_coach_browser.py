"""The coach chosen on the page, in headless Chromium against the real Stockfish (issue 34): the new-game dialog's "the coach helps me", a hint asked with the Hint button, lit on the board and said; the settings show the coach and turn its hints off.

`echiquier sim` in a subprocess, as in test_browser.py: every move goes through the simulated
board's sensors, the engine's replies are lit and carried out by clicks.
"""
from __future__ import annotations

import re

import pytest

from chess_core import Position
from chess_core.notation import parse_san
from firmware.config import loads_config
from firmware.referee.feedback import LedStyle

from .test_browser import browser, carry_out, open_page, page_state, sim, square  # noqa: F401 - fixtures

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

STYLE = LedStyle.from_config(loads_config('[board]\nsensors = "sim"').leds)   # the simulator's LEDs
HINT = f"#{STYLE.dim(STYLE.hint):06x}"
COACH = ("coach_white", "coach_black", "coach_hints")


def coach_settings(page, server) -> dict:
    settings = page_state(page, server)["settings"]
    return {key: settings[key] for key in COACH}


def engine_reply(page) -> str:
    """Stockfish's move (UCI), once the board expects it. (Its squares may light only after the
    coach's judgement of the move before, which holds the LEDs for a moment: not waited for.)"""
    board = page.locator("#board")
    expect(board).to_have_attribute("data-expected", re.compile(r"^[a-h][1-8][a-h][1-8][qrbn]?$"), timeout=30_000)
    return board.get_attribute("data-expected")


def ask_hint(page, server) -> str:
    """Press Hint; wait for the hint said on the page and lit on the board; its move in UCI."""
    fen = page_state(page, server)["fen"]
    page.click("#hint")
    expect(page.locator(f'#board [data-led="{HINT}"]')).to_have_count(2, timeout=30_000)   # (only a hint's, now)
    notice = page.locator("#online-notice")
    expect(notice).to_contain_text("Hint: ")
    said = notice.text_content().strip().rstrip(".")                # "Hint: Nf3."
    move = parse_san(Position(fen), said.removeprefix("Hint: "), "en")
    expect(page.locator("#said")).to_have_text(said)               # announced (screen readers, voices)
    name = move.uci()
    expect(square(page, name[:2])).to_have_attribute("data-led", HINT)
    expect(square(page, name[2:4])).to_have_attribute("data-led", HINT)
    assert sum(colour == HINT for colour in page_state(page, server)["leds"]) == 2
    return name


def test_the_coach_chosen_in_the_new_game_dialog_gives_hints_against_stockfish(sim, open_page):
    server = sim()
    page = open_page(server)
    expect(page.locator("#hint")).to_be_hidden()                   # nobody coached yet
    page.click("[data-tab=new]")
    page.check("#new-game [name=opponent][value=engine]")
    expect(page.locator("#ng-coach-sides")).to_be_hidden()         # against Stockfish: the player or nobody
    page.select_option("#new-game [name=engine_side]", "black")
    page.fill("#new-game [name=engine_level]", "1")
    expect(page.locator("#ng-hints")).to_be_hidden()               # no coach, no hints to choose
    page.check("#new-game [name=coach_me]")
    expect(page.locator("#ng-hints")).to_be_visible()
    expect(page.locator("#new-game [name=hints]")).to_be_checked()
    page.click("#new-game button[type=submit]")
    expect(page.locator("#opponent-link")).to_have_attribute("data-state", "connected", timeout=20_000)
    assert coach_settings(page, server) == {"coach_white": True, "coach_black": False, "coach_hints": True}
    for _ in range(2):                                             # White (coached) asks, plays the hint
        expect(page.locator("#hint")).to_be_visible()
        carry_out(page, server, ask_hint(page, server))
        expect(page.locator("#hint")).to_be_hidden()               # Stockfish's turn: no hint for it
        carry_out(page, server, engine_reply(page))
        expect(page.locator("#board")).to_have_attribute("data-expected", "")
    assert len(page_state(page, server)["moves"]["san"]) == 4
    # The settings say who is coached, and turn the hints off (the moves still judged).
    page.click("[data-tab=settings]")
    expect(page.locator("#settings [name=coach_white]")).to_be_checked()
    expect(page.locator("#settings [name=coach_black]")).not_to_be_checked()
    page.locator("#settings [name=coach_hints]").uncheck()
    page.click("[data-tab=game]")
    expect(page.locator("#hint")).to_be_hidden()
    assert coach_settings(page, server) == {"coach_white": True, "coach_black": False, "coach_hints": False}
    assert not page.errors


def test_two_players_choose_the_sides_the_coach_helps(sim, open_page):
    server = sim()
    page = open_page(server)
    page.click("[data-tab=new]")
    expect(page.locator("#ng-coach-me")).to_be_hidden()
    page.select_option("#new-game [name=coach]", "black")
    page.locator("#new-game [name=hints]").uncheck()
    page.click("#new-game button[type=submit]")
    expect(page.locator('[data-panel="game"]')).to_be_visible()
    expect(page.locator("#status")).to_have_text("White to move")
    assert coach_settings(page, server) == {"coach_white": False, "coach_black": True, "coach_hints": False}
    page.click("[data-tab=new]")                                   # the dialog opens on the coach as it is
    expect(page.locator("#new-game [name=coach]")).to_have_value("black")
    expect(page.locator("#new-game [name=hints]")).not_to_be_checked()
    page.check("#new-game [name=opponent][value=lichess]")
    expect(page.locator("#ng-coach")).to_be_hidden()               # online: no assistance
    assert not page.errors
