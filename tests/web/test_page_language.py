"""The page in its reader's language, in headless Chromium (issue 34): the language chosen on the device, else the board's ``[web] language``, else the browser's, else English; ``<html lang>`` follows, and the language buttons are the board's languages.

The browser's language is the context's locale (Playwright's ``locale``: ``navigator.languages``
and ``Accept-Language``), or a list of languages given to ``navigator.languages`` before the
page's script runs.
"""
from __future__ import annotations

import pytest

from chess_core import Position
import firmware.words as words

from .test_browser import SimProcess, browser, open_page, sim  # noqa: F401 - fixtures

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

GAME_TAB = {lang: words.PAGE[lang]["tab_game"] for lang in words.LANGS}


def board_language(sim, tmp_path, lang: str) -> SimProcess:
    config = tmp_path / f"web-{lang}.toml"
    config.write_text(f'[web]\nlanguage = "{lang}"\n')
    return sim("--config", str(config))


def shown_in(page, lang: str) -> None:
    """The page is in ``lang``: ``<html lang>``, its words, its language button pressed."""
    expect(page.locator("html")).to_have_attribute("lang", lang)
    expect(page.locator('[data-tab="game"]')).to_have_text(GAME_TAB[lang])
    expect(page.locator(f"#lang-{lang}")).to_have_attribute("aria-pressed", "true")
    for other in words.LANGS:
        if other != lang:
            expect(page.locator(f"#lang-{other}")).to_have_attribute("aria-pressed", "false")


@pytest.mark.parametrize("locale, lang", [("fr-FR", "fr"), ("de-DE", "de"), ("de-AT", "de")])
def test_a_french_or_german_browser_opens_the_page_in_its_language(sim, open_page, locale, lang):
    page = open_page(sim(), locale=locale)
    shown_in(page, lang)
    # the state's words too: the status line is the board's message said in that language
    said = page.request.get(page.url + f"api/state?lang={lang}").json()["status"]["text"]
    expect(page.locator("#status")).to_have_text(said)
    assert said == words.render(words.side_to_move(0), lang) or said == words.render(words.setup_text(Position(), 0, 0), lang)
    assert page.evaluate("localStorage.getItem('echiquier.lang')") is None   # shown, not chosen
    assert not page.errors


def test_an_english_browser_gets_english(sim, open_page):
    page = open_page(sim(), locale="en-GB")
    shown_in(page, "en")
    assert not page.errors


def test_the_browsers_first_language_the_board_has_by_its_primary_subtag_else_english(sim, open_page):
    server = sim()
    shown_in(open_page(server, languages=["es-ES", "fr-CA", "en-US"]), "fr")   # no Spanish: fr of fr-CA
    shown_in(open_page(server, locale="es-ES", languages=["es-ES", "pt-BR"]), "en")   # none the board has


def test_the_boards_language_wins_over_an_english_browser(sim, open_page, tmp_path):
    server = board_language(sim, tmp_path, "fr")
    page = open_page(server, locale="en-US")
    shown_in(page, "fr")
    assert page.request.get(server.url + "api/words").json()["language"] == "fr"
    assert not page.errors


def test_a_language_chosen_on_the_page_is_remembered_over_the_boards_and_the_browsers(sim, open_page, tmp_path):
    server = board_language(sim, tmp_path, "fr")
    page = open_page(server, locale="fr-FR")
    shown_in(page, "fr")
    page.click("#lang-en")
    shown_in(page, "en")                                   # <html lang> follows at once
    page.reload()
    expect(page.locator("body")).to_have_attribute("data-ready", "1")
    shown_in(page, "en")                                   # over [web] language = "fr" and a French browser
    page.click("#lang-fr")
    page.reload()
    expect(page.locator("body")).to_have_attribute("data-ready", "1")
    shown_in(page, "fr")
    assert not page.errors


def test_the_language_buttons_are_the_languages_the_board_offers(sim, open_page):
    server = sim()
    page = open_page(server)
    offered = list(page.request.get(server.url + "api/words").json()["page"])
    assert offered == list(words.LANGS)
    buttons = page.locator("#langs button")
    expect(buttons).to_have_count(len(offered))
    assert [buttons.nth(i).get_attribute("lang") for i in range(len(offered))] == offered
    assert [buttons.nth(i).text_content() for i in range(len(offered))] == [lang.upper() for lang in offered]
    expect(page.locator("#lang-fr")).to_have_attribute("title", "français")     # named in its own language
    expect(page.locator("#langs")).to_have_attribute("aria-label", words.PAGE["en"]["language"])
    page.click("#lang-fr")
    expect(page.locator("#langs")).to_have_attribute("aria-label", words.PAGE["fr"]["language"])
    assert not page.errors
