"""In headless Chromium, with `echiquier sim`: stepping through an analysed game lights the move played and the computer's choice on the board."""
from __future__ import annotations

import re

import pytest

from tests.web.test_analysis_browser import GAME_ID, open_analysed, step_to
from tests.web.test_browser import browser, expect, open_page, sim  # noqa: F401 - fixtures

pytestmark = pytest.mark.browser


def led(page, name: str) -> str:
    square = page.locator(f'#board [data-square="{name}"]')
    expect(square).to_have_attribute("data-led", re.compile(r"^#[0-9a-f]{6}$"))
    return square.get_attribute("data-led")


def dark(page, name: str) -> None:
    expect(page.locator(f'#board [data-square="{name}"]')).to_have_attribute("data-led", "")


def test_stepping_through_an_analysed_game_lights_the_move_and_the_better_one(sim, open_page, tmp_path):
    server, page = open_analysed(sim, open_page, tmp_path)
    step_to(page, 6)                                          # 3... Nf6??
    best = page.request.get(server.url + f"api/games/{GAME_ID}").json()["analysis"]["moves"][5]["best"]
    played, better = led(page, "g8"), led(page, best[:2])
    assert led(page, "f6") == played and led(page, best[2:4]) == better and played != better
    page.click("#v-next")                                     # 4. Qxf7#, the engine's own move: green alone
    assert led(page, "h5") == led(page, "f7") == better
    dark(page, "g8")
    page.click("#v-first")                                    # the start: nothing to show
    dark(page, "h5")
    step_to(page, 1)
    page.click('[data-tab="game"]')                           # leaving the library: the board's own LEDs
    dark(page, "e2")
