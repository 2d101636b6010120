"""The page for a screen reader and a keyboard, in headless Chromium: axe-core finds no violation on any view in every language, every square is a named control, a game is played with the keyboard alone, and what the board announces reaches an aria-live region (and the phone's own voice, if asked).

axe-core is axe-playwright-python's copy (a pinned test dependency): its axe.min.js is added to the
page with Playwright's add_script_tag, in a browser context that lets a test script in (the page's
Content-Security-Policy allows only its own scripts).
"""
from __future__ import annotations

import importlib.util
import re
import time
from pathlib import Path

import pytest

from .test_browser import CHROMIUM, FLAGS, WAIT_MS, SimProcess, browser, page_state, pages as _pages, sim  # noqa: F401 - fixtures

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect
_AXE_SPEC = importlib.util.find_spec("axe_playwright_python")
if _AXE_SPEC is None or _AXE_SPEC.origin is None:
    pytest.skip("axe-core (the test dependency axe-playwright-python) is not installed", allow_module_level=True)
AXE = Path(_AXE_SPEC.origin).with_name("axe.min.js")

# The phone's own voice, recorded: what the page asks the Web Speech API to say.
SPEECH_RECORDER = """
window.__spoken = [];
window.__cancelled = 0;
Object.defineProperty(window, "speechSynthesis", { configurable: true, value: {
  speak: (u) => window.__spoken.push([u.text, u.lang]), cancel: () => { window.__cancelled++; } } });
Object.defineProperty(window, "SpeechSynthesisUtterance", { configurable: true,
  value: function (text) { this.text = text; this.lang = ""; } });
"""


@pytest.fixture
def open_page(browser):
    """A page in ``lang`` (as if chosen on the device) and ``scheme``, the phone's voice recorded, once live."""
    with _pages(browser) as opened:
        def open_(server: SimProcess, *, lang: str = "en", scheme: str = "light"):
            page = opened(server, init_script=f'localStorage.setItem("echiquier.lang", "{lang}");' + SPEECH_RECORDER,
                          bypass_csp=True, color_scheme=scheme)
            expect(page.locator("#link")).to_have_attribute("data-state", "up")
            return page

        yield open_


def violations(page) -> list[str]:
    """axe-core's violations of the page as it is now, one line each (rule, impact, how many, where)."""
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    return [f"{v['id']} ({v['impact']}, {len(v['nodes'])}): {v['help']} at {v['nodes'][0]['target']}"
            for v in result["violations"]]


def tab(page, name: str) -> None:
    page.click(f'[data-tab="{name}"]')
    expect(page.locator(f'[data-panel="{name}"]')).to_be_visible()


def gridcell(page, name: str):
    return page.get_by_role("gridcell", name=name, exact=True)


def press(page, *keys: str) -> None:
    for key in keys:
        page.keyboard.press(key)


@pytest.mark.parametrize("lang", ["en", "fr", "de"])
def test_axe_finds_no_violation_on_any_view(sim, open_page, lang):
    server = sim()
    page = open_page(server, lang=lang)
    found = {}
    found["game"] = violations(page)
    page.locator('#board [data-square="g1"]').click()        # a knight in the hand, put down where it cannot go
    page.locator('#board [data-square="g4"]').click()
    expect(page.locator('#board [data-square="g4"]')).to_have_class(re.compile(r"\bwrong\b"))
    found["game, a wrong board"] = violations(page)
    page.locator('#board [data-square="g4"]').click()
    page.locator('#board [data-square="g1"]').click()
    for frm, to in (("e2", "e4"), ("e7", "e5")):
        page.locator(f'#board [data-square="{frm}"]').click()
        page.locator(f'#board [data-square="{to}"]').click()
    expect(page.locator("#moves")).to_contain_text("e5")
    page.click("#offer-white")
    expect(page.locator("#draw-offer")).to_be_visible()
    found["game, a draw offered"] = violations(page)
    page.click("#draw-decline")
    page.click("#resign-black")
    page.click("#resign-black")                               # the second click confirms
    expect(page.locator("#result")).to_have_text("1-0")
    found["game, over"] = violations(page)
    for name in ("new", "settings", "library"):
        tab(page, name)
        found[name] = violations(page)
    page.locator("#library button.game").first.click()
    expect(page.locator("#viewer")).to_be_visible()
    found["library, a game open"] = violations(page)
    tab(page, "new")
    page.check("#new-game [name=opponent][value=engine]")
    page.check("#new-game [name=coach_me]")                  # the coach and its hints against Stockfish
    found["new, against Stockfish, coached"] = violations(page)
    page.fill("#setup-form [name=fen]", "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    page.click("#setup-form [type=submit]")                 # a position set up by hand: the steps listed
    expect(page.locator("#setup-guide")).to_be_visible()
    page.locator("#box button").first.click()               # a piece from the box in the hand
    expect(page.locator("#hand button.held")).to_have_count(1)
    found["game, a position set up by hand"] = violations(page)
    assert page.errors == []
    assert {view: v for view, v in found.items() if v} == {}


@pytest.mark.parametrize("lang", ["en", "fr", "de"])
def test_axe_finds_no_violation_with_the_training_panel_showing(sim, open_page, lang, tmp_path):
    """Issue 35: the library's "Learn from my mistakes" on a game analysed by the real Stockfish, the
    training panel while the board leads the setup, then with a verdict; the new game's puzzle form."""
    from .test_analysis_browser import open_analysed

    server, page = open_analysed(sim, lambda s: open_page(s, lang=lang), tmp_path)
    found = {"library, an analysed game": violations(page)}
    page.select_option("#train-side", "black")
    page.click("#train-mistakes")
    expect(page.locator("#training")).to_be_visible()
    expect(page.locator("#setup-guide")).to_be_visible()
    found["game, a training set up"] = violations(page)
    page.click("#setup")                                      # the simulator sets the pieces where they go
    expect(page.locator("#setup-guide")).to_be_hidden()
    for name in ("g8", "f6"):                                 # the blunder again: wrong
        page.locator(f'#board [data-square="{name}"]').click()
    expect(page.locator("#training")).to_have_attribute("data-verdict", "try again")
    found["game, a training's wrong move"] = violations(page)
    tab(page, "new")
    expect(page.locator("#puzzle-form")).to_be_visible()
    found["new, the puzzle's form"] = violations(page)
    assert page.errors == []
    assert {view: v for view, v in found.items() if v} == {}


def test_axe_finds_no_violation_in_the_dark_nor_on_a_page_waiting_for_its_pairing_code(sim, open_page):
    page = open_page(sim(), scheme="dark")
    dark = violations(page)
    tab(page, "settings")
    dark += violations(page)
    server = sim("--pairing-code", "135246", host="0.0.0.0")
    page = open_page(server, lang="fr")
    page.click("#pair-open")
    expect(page.locator("#pairing")).to_be_visible()
    assert dark == [] and violations(page) == []


@pytest.mark.parametrize("lang, names", [
    ("en", {"e2": "e2, white pawn", "e4": "e4, empty", "d8": "d8, black queen", "g1": "g1, white knight"}),
    ("fr", {"e2": "e2, pion blanc", "e4": "e4, vide", "d8": "d8, dame noire", "a8": "a8, tour noire"})])
def test_every_square_is_a_control_named_with_its_piece(sim, open_page, lang, names):
    page = open_page(sim(), lang=lang)
    board = page.get_by_role("grid")
    expect(board).to_have_attribute("aria-label", "Board" if lang == "en" else "Échiquier")
    expect(page.get_by_role("row")).to_have_count(8)
    expect(page.get_by_role("gridcell")).to_have_count(64)
    for square, name in names.items():
        expect(gridcell(page, name)).to_have_attribute("data-square", square)
    focusable = page.locator('#board [tabindex="0"]')
    expect(focusable).to_have_count(1)                      # one stop on the Tab key: the arrows do the rest
    expect(focusable).to_have_attribute("data-square", "e2")
    page.locator('#board [data-square="e2"]').click()
    page.locator('#board [data-square="e4"]').click()
    expect(gridcell(page, "e4, white pawn" if lang == "en" else "e4, pion blanc")).to_be_visible()
    page.locator('#board [data-square="d7"]').click()       # in the hand: the game still has it there
    expect(gridcell(page, "d7, empty, expected: black pawn" if lang == "en"
                    else "d7, vide, attendu : pion noir")).to_be_visible()


def focused(page) -> str | None:
    return page.evaluate("document.activeElement.dataset ? document.activeElement.dataset.square || null : null")


def go(page, target: str) -> None:
    """Arrow keys from the focused square to ``target`` (the board seen from White's side)."""
    here = focused(page)
    files = "abcdefgh".index(target[0]) - "abcdefgh".index(here[0])
    ranks = int(target[1]) - int(here[1])
    press(page, *(["ArrowRight"] * files if files > 0 else ["ArrowLeft"] * -files))
    press(page, *(["ArrowUp"] * ranks if ranks > 0 else ["ArrowDown"] * -ranks))
    assert focused(page) == target


def keyboard_move(page, uci: str, san: str) -> None:
    go(page, uci[:2])
    press(page, "Enter")        # lift
    go(page, uci[2:])
    press(page, "Enter")        # put down (on a piece of the other side: takes it)
    expect(page.locator("#moves")).to_contain_text(san)


def test_a_game_played_with_the_keyboard_alone(sim, open_page):
    server = sim()
    page = open_page(server)
    for _ in range(60):                                     # Tab from the top of the page to the board
        press(page, "Tab")
        if focused(page):
            break
    assert focused(page) == "e2"                            # the board is one stop on the Tab key
    press(page, "ArrowLeft", "ArrowLeft", "ArrowLeft", "ArrowLeft", "ArrowLeft", "ArrowDown", "ArrowDown")
    assert focused(page) == "a1"                            # the arrows stop at the board's edge
    press(page, "End")
    assert focused(page) == "h1"
    for uci, san in (("e2e4", "e4"), ("d7d5", "d5"), ("e4d5", "exd5"), ("d8d5", "Qxd5"), ("b1c3", "Nc3"),
                     ("d5a5", "Qa5")):
        keyboard_move(page, uci, san)
    assert page_state(page, server)["moves"]["uci"] == ["e2e4", "d7d5", "e4d5", "d8d5", "b1c3", "d5a5"]
    press(page, "Shift+Tab")
    assert focused(page) is None                            # Tab leaves the board as it came
    press(page, "Tab")
    assert focused(page) == "a5"                            # and comes back to the square it left
    assert page.errors == []


def test_the_board_announces_moves_and_prompts_in_a_live_region_and_on_the_phones_voice(sim, open_page):
    server = sim()
    page = open_page(server, lang="fr")
    live = page.locator("#said")
    expect(live).to_have_attribute("aria-live", "polite")
    expect(live).to_have_text("")                            # the start is no news
    page.locator('#board [data-square="g1"]').click()
    page.locator('#board [data-square="f3"]').click()
    expect(live).to_have_text("Cavalier f3")
    page.locator('#board [data-square="e7"]').click()
    page.locator('#board [data-square="e4"]').click()       # a pawn cannot go there
    expect(live).to_have_text(re.compile(r"^Coup illégal \(trait aux Noirs\) : remettez le pion de e4 en e7"))
    assert page.evaluate("window.__spoken") == []            # the phone's voice only when asked
    tab(page, "settings")
    page.check("#speak-here")
    tab(page, "game")
    page.locator('#board [data-square="e4"]').click()
    page.locator('#board [data-square="e7"]').click()
    expect(live).to_have_text("Trait aux Noirs")
    assert page.evaluate("window.__spoken")[-1] == ["Trait aux Noirs", "fr-FR"]
    page.click("#voice-describe")
    expect(live).to_have_text(re.compile(r"^Blancs : roi e1, dame d1, tours a1 et h1, fous c1 et f1, cavaliers b1 et f3"))
    assert page.evaluate("window.__spoken")[-1][0].startswith("Blancs : roi e1")
    assert page.evaluate("window.__cancelled") >= 2          # each newer announcement cuts the one before
    page.click("#voice-repeat")
    expect(live).to_have_text("Dernier coup : cavalier f3")
    assert page.errors == []


def test_a_german_page_asks_the_board_for_german_words_and_says_them_in_a_german_voice(sim, open_page):
    """The page's language is any of the board's: what it asks for comes in German, said by the
    phone's German voice (the words' speech_lang), and so do the board's announcements (the page
    state's ``said`` in every language)."""
    server = sim()
    page = open_page(server, lang="de")
    live = page.locator("#said")
    tab(page, "settings")
    page.check("#speak-here")
    tab(page, "game")
    page.click("#voice-describe")
    expect(live).to_have_text(re.compile(r"^Weiß: König e1, Dame d1, Türme a1 und h1"))
    assert page.evaluate("window.__spoken")[-1][1] == "de-DE"
    page.locator('#board [data-square="g1"]').click()
    page.locator('#board [data-square="f3"]').click()
    expect(live).to_have_text("Springer f3")
    assert page.evaluate("window.__spoken")[-1] == ["Springer f3", "de-DE"]
    assert page.errors == []


def test_the_boards_voice_is_switched_off_and_on_from_the_page(sim, open_page, tmp_path):
    from firmware.voice.speaker import read_index

    out = tmp_path / "voice"
    server = sim("--voice", "fr", "--voice-out", str(out))
    page = open_page(server, lang="fr")
    tab(page, "settings")
    switch = page.locator("#board-voice")
    expect(switch).to_be_visible()                           # this board has a voice: the switch is shown
    expect(switch).to_be_checked()
    voices = page.get_by_role("group", name="Voix").get_by_role("checkbox")
    expect(voices).to_have_count(2)                          # beside the phone's own voice, in the settings
    expect(voices.nth(1)).to_have_accessible_name(re.compile(r"^L'échiquier parle"))
    tab(page, "game")
    for frm, to in (("e2", "e4"),):
        page.locator(f'#board [data-square="{frm}"]').click()
        page.locator(f'#board [data-square="{to}"]').click()
    expect(page.locator("#said")).to_have_text("e4")
    # The board's espeak-ng (a real process) writes its file a moment after the page says it:
    # its index line is waited for, 10 s at most.
    deadline = time.monotonic() + 10
    while "e4" not in (said_on := [e["text"] for e in read_index(out)]) and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    assert said_on[-1] == "e4"
    tab(page, "settings")
    switch.uncheck()
    tab(page, "game")
    page.locator('#board [data-square="e7"]').click()
    page.locator('#board [data-square="e5"]').click()
    expect(page.locator("#said")).to_have_text("e5")          # the page still says it
    page.reload()
    expect(page.locator("body")).to_have_attribute("data-ready", "1")
    tab(page, "settings")
    expect(page.locator("#board-voice")).not_to_be_checked()   # the board says it is off
    page.locator("#board-voice").check()
    tab(page, "game")
    page.locator('#board [data-square="g1"]').click()
    page.locator('#board [data-square="f3"]').click()
    expect(page.locator("#said")).to_have_text("Cavalier f3")
    page.click("#voice-describe")
    expect(page.locator("#said")).to_have_text(re.compile(r"^Blancs : roi e1"))
    server.stop()
    said = [e["text"] for e in read_index(out)]
    assert "e5" not in said and said[len(said_on):][:1] == ["Cavalier f3"]
    assert said[-1].startswith("Blancs : roi e1")            # the board described it too


def test_a_board_without_a_voice_shows_no_switch(sim, open_page):
    page = open_page(sim())
    tab(page, "settings")
    expect(page.locator("#speak-here")).to_be_visible()
    expect(page.locator("#board-voice-label")).to_be_hidden()
    expect(page.get_by_role("group", name="Voice").get_by_role("checkbox")).to_have_count(1)   # the phone's
