"""Training at the board from the page, in headless Chromium (issue 35): a game of the library analysed by the real Stockfish, "Learn from my mistakes", the board leading the hand to the blunder's position, a wrong move taken back as the LEDs show, the right one solved, the progress counted.

`echiquier sim` in a subprocess, as in test_setup_browser.py: the hand's every piece goes through
the simulated board's sensors; the test reads the page alone to carry out the setup and to put a
wrong move back, and waits for the page to show each change, never for a fixed time.
"""
from __future__ import annotations

import re
import time

import pytest

from .test_analysis_browser import GAME_ID, open_analysed
from .test_browser import browser, carry_out, click, open_page, page_state, sim  # noqa: F401 - fixtures
from .test_setup_browser import CHANGED_JS, STEPS_JS, carry_out_next, held, hold_count, lit_squares, physical, steps

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

BLUNDER_FEN = "r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 3 3"   # before 3... Nf6??


def set_up_next(page) -> None:
    """The next step of a setup, as the page shows it; a piece the board cannot name ("?": after a
    training stopped, the board believes the start position and sees only where pieces stand) is
    put in the box."""
    piece, frm, to, _ = steps(page)[0]
    if piece != "?":
        carry_out_next(page)
        return
    assert frm and not to, steps(page)[0]
    before = page.evaluate(f"() => JSON.stringify(({STEPS_JS})())")
    hand = held(page)
    click(page, frm)
    hold_count(page, len(hand) + 1)
    page.click("#aside")
    hold_count(page, len(hand))
    page.wait_for_function(CHANGED_JS, arg=before)


def put_back(page) -> None:
    """A wrong move taken back: the piece goes where the LEDs show, read on the page (the lit square
    with a piece on it, to the lit one without)."""
    expect(page.locator('#board [data-led^="#"]')).to_have_count(2)
    lit = sorted(lit_squares(page))
    frm = next(name for name in lit if physical(page, name))
    to = next(name for name in lit if name != frm)
    click(page, frm, to)


def test_a_blunder_of_an_analysed_game_is_trained_at_the_board_from_the_page(sim, open_page, tmp_path):
    started = time.monotonic()
    server, page = open_analysed(sim, open_page, tmp_path)             # (the page's Analyse button, real Stockfish)
    analysed = time.monotonic()
    review = page.request.get(server.url + f"api/games/{GAME_ID}").json()["analysis"]
    assert review["moves"][5]["judgement"] == "blunder"
    best = review["moves"][5]["best"]                                   # what 3... Nf6?? should have been

    expect(page.locator("#viewer-train")).to_be_visible()
    if not any(m["judgement"] for m in review["moves"][0::2]):          # (a loaded machine's short search may
        page.select_option("#train-side", "white")                      # judge a White move: then it is trained)
        page.click("#train-mistakes")                                   # White made no mistake: refused in words
        expect(page.locator("#message")).to_contain_text("nothing to train on")
        expect(page.locator("#message")).to_have_attribute("data-kind", "error")
        expect(page.locator("#training")).to_be_hidden()
    page.select_option("#train-side", "black")
    page.click("#train-mistakes")                                       # POST /api/training/start
    panel = page.locator("#training")
    expect(panel).to_be_visible()
    expect(page.locator('[data-panel="game"]')).to_be_visible()
    expect(page.locator("#training-what")).to_have_text("A blunder from your game")
    expect(page.locator("#training-side")).to_have_text("Find the best move for Black")
    expect(page.locator("#training-left")).to_have_text("The last exercise")
    expect(page.locator("#training-next")).to_be_hidden()
    state = page_state(page, server)
    assert state["training"]["player"] == "Ben" and state["setup"]["target"] == BLUNDER_FEN

    expect(page.locator("#setup-guide")).to_be_visible()
    actions = 0
    while steps(page) is not None:                                      # the board leads the hand there
        carry_out_next(page)
        actions += 1
        assert actions <= 20, "the steps do not end"
    assert page_state(page, server)["fen"] == BLUNDER_FEN

    click(page, "g8", "f6")                                             # the blunder again: wrong at once
    expect(page.locator("#training-said")).to_have_text("Try again: put the piece back")
    assert page_state(page, server)["training"]["tries"] == 1
    put_back(page)
    expect(square_piece(page, "g8")).to_have_attribute("data-piece", "n")
    expect(page.locator('#board [data-led^="#"]')).to_have_count(0)
    assert page_state(page, server)["fen"] == BLUNDER_FEN

    carry_out(page, server, best)                                       # the analysis' better move
    expect(page.locator("#training-said")).to_have_text("Solved!")
    expect(panel).to_have_attribute("data-over", "1")
    line = page.locator("#training-line")
    expect(line).to_be_visible()
    expect(line).to_have_text(re.compile(r"^The line: 3\.\.\. \S+"))
    training = page_state(page, server)["training"]
    assert training["verdict"] == "solved" and training["line"][0] in line.text_content()
    expect(page.locator("#training-next")).to_be_hidden()               # (the only exercise)

    progress = progress_of(page, server, "Ben")                         # counted for Black's player
    assert [(a["kind"], a["id"]) for a in progress["attempts"]] == [("mistake", f"{GAME_ID}:6")], progress
    # Found after a wrong try: solved, as the page says (tests/firmware/test_session_training.py too).
    assert progress["attempts"][0]["verdict"] == "solved" and progress["solved_mistakes"] == [[GAME_ID, 6]], progress

    page.click("#training-stop")
    expect(panel).to_be_hidden()
    assert page_state(page, server)["training"] is None

    # Again from the library, found at the first try this time: the mistake is counted solved.
    page.click('[data-tab="library"]')
    expect(page.locator("#viewer-train")).to_be_visible()
    page.click("#train-mistakes")                                       # (the side chosen stays Black)
    expect(page.locator("#setup-guide")).to_be_visible()
    while steps(page) is not None:
        set_up_next(page)
        actions += 1
        assert actions <= 40, "the steps do not end"
    expect(page.locator("#training-said")).to_have_text("")
    carry_out(page, server, best)
    expect(page.locator("#training-said")).to_have_text("Solved!")
    progress = progress_of(page, server, "Ben", attempts=2)
    assert [a["verdict"] for a in progress["attempts"]][-1] == "solved", progress
    assert progress["solved_mistakes"] == [[GAME_ID, 6]], progress
    assert not page.errors
    print(f"\nanalysed in {analysed - started:.1f} s, trained twice in {time.monotonic() - analysed:.1f} s "
          f"({actions} setup actions), best {best}")


def square_piece(page, name: str):
    return page.locator(f'#board [data-square="{name}"]')


def progress_of(page, server, player: str, attempts: int = 1, polls: int = 50) -> dict:
    """The player's progress once it counts ``attempts`` (the board saves it in a worker thread)."""
    for _ in range(polls):
        found = page.request.get(server.url + f"api/training/progress?player={player}").json()
        if len(found["attempts"]) >= attempts:
            return found
        page.wait_for_timeout(100)
    return found


def test_solve_a_puzzle_asks_the_board_and_a_refusal_is_said_in_words(sim, open_page):
    """The new game's "Solve a puzzle" during a game: refused in words (a game is being played, in
    the page's language), and no panel shown."""
    server = sim()
    page = open_page(server)
    click(page, "e2", "e4")
    expect(page.locator("#moves")).to_contain_text("e4")
    page.click("[data-tab=new]")
    page.fill("#puzzle-form [name=player]", "Ada")
    page.click("#puzzle-form [type=submit]")
    message = page.locator("#message")
    expect(message).to_have_attribute("data-kind", "error")
    expect(message).to_have_text(re.compile("^a game is being played: .*$"))
    page.click("#lang-fr")
    page.click("#puzzle-form [type=submit]")
    expect(message).to_have_text(re.compile("^une partie est en cours.*$"))
    assert page_state(page, server)["training"] is None and not page.errors


def test_a_puzzle_from_the_page_hides_its_themes_until_it_is_solved(sim, open_page):
    """The new game's "Solve a puzzle": the board leads the hand to the puzzle, the solver's moves
    and the replies are carried out as lit, and the themes ("mate in 2" would give it away) are
    shown once it is over, as Lichess shows them (a tester's find)."""
    from firmware.training.puzzles import load
    shipped = {p.id: p for p in load()}
    server = sim()
    page = open_page(server)
    for _ in range(40):        # one with themes, and no promotion (its piece is asked on the page)
        page.click("[data-tab=new]")
        page.fill("#puzzle-form [name=player]", "Ada")
        page.click("#puzzle-form [type=submit]")
        expect(page.locator("#training")).to_be_visible()
        puzzle = shipped[page_state(page, server)["training"]["id"]]
        if puzzle.themes and not any(len(uci) == 5 for uci in puzzle.solution):
            break
        page.click("#training-stop")
        expect(page.locator("#training")).to_be_hidden()
    actions = 0
    while steps(page) is not None:
        set_up_next(page)
        actions += 1
        assert actions <= 64, "the steps do not end"
    what = page.locator("#training-what")
    expect(what).to_contain_text("A puzzle rated")
    assert "Themes" not in what.text_content()
    for uci in puzzle.solution:                          # the solver's moves and the replies, as lit
        carry_out(page, server, uci)
    expect(page.locator("#training-said")).to_have_text("Solved!")
    expect(what).to_contain_text("Themes")
    assert not page.errors
