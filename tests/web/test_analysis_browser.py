"""In headless Chromium, with `echiquier sim`: the opening's name live on the page while a game is played."""
from __future__ import annotations

import pytest

from tests.web.test_browser import browser, expect, open_page, play, sim  # noqa: F401 - fixtures

pytestmark = pytest.mark.browser


def test_the_opening_is_named_on_the_page_as_the_game_goes(sim, open_page):
    server = sim()
    page = open_page(server)
    opening = page.locator("#opening")
    expect(opening).to_be_hidden()
    play(page, ("e2", "e4", "e4"), ("c7", "c5", "c5"))
    expect(opening).to_have_text("B20 Sicilian Defense")
    play(page, ("b1", "c3", "Nc3"), ("b8", "c6", "Nc6"))
    expect(opening).to_have_text("B23 Sicilian Defense: Closed, Traditional")
