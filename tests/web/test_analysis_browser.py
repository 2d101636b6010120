"""In headless Chromium, with `echiquier sim`: the opening's name live on the page, and a game's computer analysis in the library (graph, marks, accuracy, the board's LEDs)."""
from __future__ import annotations

import re

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


SCHOLAR = ('[Event "Club"]\n[Site "?"]\n[Date "2025.03.01"]\n[Round "-"]\n[White "Anna"]\n[Black "Ben"]\n'
           '[Result "1-0"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\n')
GAME_ID = "2025-03-01_1000_Anna-vs-Ben"


def square(page, name: str):
    return page.locator(f'#board [data-square="{name}"]')


def led(page, name: str) -> str:
    expect(square(page, name)).to_have_attribute("data-led", re.compile(r"^#[0-9a-f]{6}$"))
    return square(page, name).get_attribute("data-led")


def open_analysed(sim, open_page, tmp_path):
    """The sim with SCHOLAR in its library, the game opened in the library and analysed."""
    games = tmp_path / "state0" / "games"          # the first sim's state directory
    games.mkdir(parents=True)
    (games / f"{GAME_ID}.pgn").write_text(SCHOLAR, encoding="utf-8")
    server = sim()
    page = open_page(server)
    page.elsewhere = []
    page.on("request", lambda r: page.elsewhere.append(r.url) if not r.url.startswith(server.url) else None)
    page.click('[data-tab="library"]')
    page.click(f'#library li[data-id="{GAME_ID}"] button.game')
    graph = page.locator("#eval-graph")
    expect(graph).to_be_hidden()
    page.click("#analyse")
    expect(page.locator("#analysis-status")).to_contain_text("Analys")       # queued or running, in words
    expect(graph).to_be_visible(timeout=60_000)
    return server, page


def step_to(page, ply: int) -> None:
    page.click("#v-first")
    expect(page.locator("#v-ply")).to_have_text("0 / 7")
    for _ in range(ply):
        page.click("#v-next")
    expect(page.locator("#v-ply")).to_have_text(f"{ply} / 7")


def test_a_game_analysed_from_the_library_shows_its_graph_marks_and_accuracy(sim, open_page, tmp_path):
    server, page = open_analysed(sim, open_page, tmp_path)
    graph = page.locator("#eval-graph")
    expect(graph).to_have_attribute("data-plies", "7")
    expect(page.locator("#analyse")).to_be_hidden()
    expect(page.locator("#viewer-pgn")).to_contain_text("[%eval")       # the game's text, analysed
    # 3... Nf6?? lets White mate: marked in the list, on the graph, in the accuracy table
    expect(page.locator("#viewer-moves .q-blunder")).to_have_text("Nf6??")
    expect(graph.locator('circle[data-judgement="blunder"][data-ply="6"]')).to_have_count(1)
    expect(page.locator('#accuracy tr[data-side="black"] td[data-cell="blunder"]')).to_have_text("1")
    expect(page.locator('#accuracy tr[data-side="white"] td[data-cell="accuracy"]')).to_have_text(
        re.compile(r"^\d{1,3}\.\d %$"))
    # stepping to 3... Nf6: the graph's marker follows, the note says what was best
    step_to(page, 6)
    expect(graph.locator("line.now")).to_have_attribute("data-ply", "6")
    review = page.request.get(server.url + f"api/games/{GAME_ID}").json()["analysis"]
    expect(page.locator("#move-note")).to_contain_text(f"Blunder: {review['moves'][5]['best_san']} was best")
    # a click on the graph's left edge goes back to the start; the page in French says it in French
    box = graph.bounding_box()
    page.mouse.click(box["x"] + 1, box["y"] + box["height"] / 2)
    expect(page.locator("#v-ply")).to_have_text("0 / 7")
    page.click("#lang-fr")
    page.click("#v-next")
    expect(page.locator('#accuracy th').first).to_have_text("Précision")           # (the corner is a td)
    for _ in range(5):
        page.click("#v-next")
    expect(page.locator("#move-note")).to_contain_text("Gaffe : ")
    assert page.elsewhere == [] and page.errors == []     # the graph is the page's own: nothing fetched elsewhere


def test_the_idle_analysis_setting_is_kept(sim, open_page):
    server = sim()
    page = open_page(server)
    page.click('[data-tab="library"]')
    box = page.locator("#analyse-when-idle")
    expect(box).not_to_be_checked()
    box.check()
    page.reload()
    expect(page.locator("body")).to_have_attribute("data-ready", "1")
    page.click('[data-tab="library"]')
    expect(page.locator("#analyse-when-idle")).to_be_checked()
    assert page.request.get(server.url + "api/games").json()["analysis"] == {"when_idle": True}


def test_a_damaged_file_is_listed_by_its_name_and_why(sim, open_page, tmp_path):
    """A tester found damaged files listed as identical rows "? – ? · damaged · 0 moves" with the
    reason in a tooltip only (a phone shows none): each row names its file and says why."""
    games = tmp_path / "state0" / "games"
    games.mkdir(parents=True)
    (games / "empty-import.pgn").write_text("", encoding="utf-8")
    (games / "noise.pgn").write_bytes(bytes(range(256)) * 8)
    server = sim()
    page = open_page(server)
    page.click("[data-tab=library]")
    rows = page.locator("#library li")
    expect(rows.filter(has_text="empty-import.pgn")).to_contain_text("empty")
    expect(rows.filter(has_text="noise.pgn")).to_have_count(1)
    assert "? – ?" not in page.locator("#library").inner_text()
