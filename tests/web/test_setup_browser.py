"""A position set up by hand from the page, in headless Chromium (issue 35): the board's steps listed and lit, carried out by the simulator's hand with clicks on the page only (the squares, the box beside the board, "Put aside"), until the game starts from that position; the library sets up a recorded game's position at the move shown.

`echiquier sim` in a subprocess, as in test_browser.py: every piece the hand moves goes through the
simulated board's sensors, the debouncer and the board's guide, which re-plans at each settled
board; the test waits for the page to show each change, never for a fixed time.
"""
from __future__ import annotations

import random
import re
import time

import pytest

from chess_core import Position

from .test_browser import browser, click, open_page, page_state, play, sim, square  # noqa: F401 - fixtures

pytestmark = pytest.mark.browser

chess = pytest.importorskip("chess")
sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

LIT = re.compile(r"^#[0-9a-f]{6}$")
# The steps as the page lists them: (piece, from, to, words) each, from or to "" for the box.
STEPS_JS = ("() => document.querySelector('#setup-guide').hidden ? null : [...document.querySelectorAll("
            "'#setup-steps li')].map((li) => [li.dataset.piece, li.dataset.from, li.dataset.to, li.textContent])")
CHANGED_JS = f"(before) => JSON.stringify(({STEPS_JS})()) !== before"


def random_middlegame(seed: int, extra: str = "") -> str:
    """A position some 20 moves into a random game (python-chess, seeded), not over; with the
    pieces ``extra`` (FEN letters) added on empty squares, as if promoted: they come from the box."""
    rng = random.Random(seed)
    while True:
        board = chess.Board()
        for _ in range(rng.randint(36, 48)):
            board.push(rng.choice(list(board.legal_moves)))
            if board.is_game_over():
                break
        for letter in extra:
            empty = [sq for sq in chess.SQUARES if board.piece_at(sq) is None and chess.square_rank(sq) not in (0, 7)]
            board.set_piece_at(rng.choice(empty), chess.Piece.from_symbol(letter))
        if board.is_valid() and not board.is_game_over() and board_can_set_up(board.fen()):
            return board.fen()


def board_can_set_up(fen: str) -> bool:
    """Whether the board takes ``fen`` (chess_core's checks: material a game can reach...)."""
    try:
        Position(fen)
    except ValueError:
        return False
    return True


def steps(page) -> list[list[str]] | None:
    """The steps the page lists (None: no position being set up)."""
    return page.evaluate(STEPS_JS)


def held(page) -> list[str]:
    """The pieces the page shows in the simulator's hand."""
    return page.locator("#hand button.held").evaluate_all("(bs) => bs.map((b) => b.dataset.piece)")


def lit_squares(page) -> set[str]:
    return set(page.locator("#board [data-square]").evaluate_all(
        "(els) => els.filter((e) => /^#[0-9a-f]{6}$/.test(e.dataset.led)).map((e) => e.dataset.square)"))


def physical(page, name: str) -> str:
    """The piece the page draws on ``name`` of the simulated board ("" for none; not the ghost of
    a piece the game expects there)."""
    return square(page, name).evaluate("(el) => el.querySelector('.piece.ghost') ? '' : el.dataset.piece")


def hold_count(page, n: int) -> None:
    expect(page.locator("#hand button.held")).to_have_count(n)


def choose(page, piece: str) -> None:
    """Choose the held ``piece`` to go down next (a button of the hand), when the hand holds two."""
    pieces = held(page)
    if len(pieces) > 1:
        button = page.locator(f'#hand button.held[data-piece="{piece}"]').last
        if button.get_attribute("aria-pressed") != "true":
            button.click()
        expect(button).to_have_attribute("aria-pressed", "true")


def carry_out_next(page) -> int:
    """Do what the page shows as the next step, with clicks on the page; the pieces moved (put
    down on a square or in the box): 0 or 1. Waits until the page shows the step's effect."""
    listed = steps(page)
    piece, frm, to, said = listed[0]
    before = page.evaluate(f"() => JSON.stringify(({STEPS_JS})())")
    # The step is lit on the board, alone: where the piece is taken, where it goes.
    for name in filter(None, (frm, to)):
        expect(square(page, name)).to_have_attribute("data-led", LIT)
    assert lit_squares(page) == set(filter(None, (frm, to))), (listed[0], lit_squares(page))
    hand = held(page)

    if frm:                                               # a piece on the board: lift it
        assert physical(page, frm) == piece, (listed[0], physical(page, frm))
        click(page, frm)
        hold_count(page, len(hand) + 1)
        if not to:                                        # ...into the box
            choose(page, piece)
            page.click("#aside")
            hold_count(page, len(hand))
            page.wait_for_function(CHANGED_JS, arg=before)
            return 1
        page.wait_for_function(CHANGED_JS, arg=before)    # (the board saw it go: the guide re-planned)
        return 0
    if piece not in hand:                                 # from the box
        page.locator(f'#box button[data-piece="{piece}"]').click()
        hold_count(page, len(hand) + 1)
    if physical(page, to):                                # a piece in the way: lifted first
        click(page, to)
        hold_count(page, len(hand) + 1 + (piece not in hand))
        page.wait_for_function(CHANGED_JS, arg=before)
        return 0
    choose(page, piece)
    click(page, to)
    page.wait_for_function(CHANGED_JS, arg=before)
    expect(square(page, to)).to_have_attribute("data-piece", piece)
    return 1


SWAPPED = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RBNQKBNR w KQkq - 0 1"   # b1 and c1 change places: two in the hand


@pytest.mark.parametrize("target", [random_middlegame(35), random_middlegame(5, "Qn"), SWAPPED],
                         ids=["middlegame", "with-pieces-from-the-box", "two-pieces-swapped"])
def test_the_page_alone_leads_the_hand_to_the_position_in_the_fewest_moves(sim, open_page, target):
    server = sim()
    page = open_page(server)
    expect(page.locator("#status")).to_have_text("White to move")
    page.click("[data-tab=new]")
    page.fill("#setup-form [name=fen]", target)
    page.click("#setup-form [type=submit]")              # POST /api/position/setup
    expect(page.locator("#setup-guide")).to_be_visible()
    expect(page.locator('[data-panel="game"]')).to_be_visible()
    first = steps(page)
    expect(page.locator("#setup-left")).to_have_text(f"{len(first)} steps left")
    expect(page.locator("#setup-steps li.next")).to_have_attribute("aria-current", "step")
    expect(page.locator("#status")).to_contain_text(f"Set up the position, {len(first)} to go: ")
    assert first and not page_state(page, server)["setup"]["done"]

    started, moved, actions = time.monotonic(), 0, 0
    while steps(page) is not None:
        moved += carry_out_next(page)
        actions += 1
        assert actions <= 4 * len(first), "the steps do not end"
    seconds = time.monotonic() - started

    expect(page.locator("#setup-guide")).to_be_hidden()
    state = page_state(page, server)
    assert state["setup"]["done"] and state["setup"]["target"] == target
    assert state["fen"] == target and state["started"] and held(page) == []
    assert moved == len(first), (moved, len(first))
    print(f"\nset up {target}: {len(first)} steps, {moved} piece moves by {actions} page actions, {seconds:.1f} s")
    assert not page.errors


def test_the_box_buttons_are_named_in_the_pages_language_and_fill_the_hand(sim, open_page):
    server = sim()
    page = open_page(server)
    expect(page.locator(".box-row")).to_be_hidden()        # (only while a position is set up by hand)
    page.request.post(server.url + "api/position/setup",
                      data={"fen": "4k3/8/8/8/8/8/8/4K1N1 w - - 0 1"})
    page.get_by_role("button", name="Take a white knight from the box").click()
    expect(page.locator("#hand button.held")).to_have_attribute("title", re.compile("from the box"))
    assert page_state(page, server)["sim"]["hand"] == [{"piece": "N", "from": None}]
    page.click("#aside")
    expect(page.locator("#hand button.held")).to_have_count(0)
    page.click("#lang-fr")
    expect(page.get_by_role("button", name="Prendre une dame noire dans la boîte")).to_be_visible()
    page.click("#lang-de")
    expect(page.get_by_role("button", name="Einen schwarzen Bauern aus der Kiste nehmen")).to_be_visible()
    assert not page.errors


def test_the_library_sets_up_a_recorded_games_position_at_the_move_shown(sim, open_page):
    server = sim()
    page = open_page(server)
    play(page, ("e2", "e4", "e4"), ("e7", "e5", "e5"), ("g1", "f3", "Nf3"))
    page.click("[data-tab=library]")
    page.locator("#library button.game").first.click()
    expect(page.locator("#v-ply")).to_have_text("3 / 3")
    page.click("#v-prev")
    expect(page.locator("#v-ply")).to_have_text("2 / 3")
    button = page.locator("#viewer-setup")
    button.click()                                        # a game in progress: asks first
    expect(button).to_have_text(re.compile("abandon"))
    assert page_state(page, server)["setup"] is None
    button.click()
    expect(page.locator("#setup-guide")).to_be_visible()
    after_e5 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    state = page_state(page, server)
    assert state["setup"]["target"].split()[:3] == after_e5.split()[:3]
    assert [(s["piece"], s["from"], s["to"]) for s in state["setup"]["steps"]] == [("N", "f3", "g1")]
    expect(page.locator("#setup-steps li")).to_have_text(["white knight f3 → g1"])
    expect(page.locator("#setup-left")).to_have_text("1 step left")
    click(page, "f3", "g1")
    expect(page.locator("#setup-guide")).to_be_hidden()
    expect(page.locator("#status")).to_have_text("White to move")
    assert page_state(page, server)["setup"]["done"]
    assert not page.errors
