"""The training's refusals said in the page's language: a game without a mistake for the side asked
names that side in the player's words (found building the page's training panel)."""
from __future__ import annotations

import pytest

from tests.said import error_in

from .test_training_pages import GAME, page  # noqa: F401 - fixture


@pytest.mark.xfail(strict=True, reason="training_pages.py refuses no_mistakes with side='white' (the request's "
                                       "token), said as it is: 'pour white', 'für both'; a side's words are needed")
async def test_no_mistake_for_a_side_names_the_side_in_the_players_words(page):
    client, companion, _ = page
    await companion.analyses.request(GAME)
    await companion.analyses.settled()
    async with client.post("/api/training/start", json={"game": GAME, "side": "white"}) as r:
        assert r.status == 409
        answer = await r.json()
    assert "white" not in error_in(answer, "fr") and "Blancs" in error_in(answer, "fr")
    assert "white" not in error_in(answer, "de") and "Weiß" in error_in(answer, "de")
