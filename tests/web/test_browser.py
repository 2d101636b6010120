"""End to end in headless Chromium: `echiquier sim` in a subprocess, the page played with the mouse.

Every move goes through the simulated board's sensors, the debouncer, the inference, the clock
and the recorder, so the tests wait for the websocket's update on the page (Playwright's
auto-waiting on DOM conditions), never for a fixed time.
"""
from __future__ import annotations

import contextlib
import json

import asyncio
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from chess_core import BLACK, KING, PAWN, WHITE, Move, Position, san

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parents[2]
SCREENSHOT = ROOT / "docs" / "screenshot.png"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
WAIT_MS = 10_000

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect
if not shutil.which(CHROMIUM):
    pytest.skip("the system Chromium (Debian's chromium package) is not installed", allow_module_level=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class SimProcess:
    """`echiquier sim` running in a subprocess, stopped with SIGTERM."""

    def __init__(self, state_dir: Path, *args: str, host: str = "127.0.0.1") -> None:
        self.port = free_port()
        self.state_dir = state_dir
        cmd = [sys.executable, "-m", "firmware.cli", "sim", "--port", str(self.port), "--host", host,
               "--state-dir", str(state_dir), *args]
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env=env)
        line = self.proc.stdout.readline()
        if "http://" not in line:
            self.proc.kill()
            raise RuntimeError(f"echiquier sim did not start: {line!r} {self.proc.stderr.read()}")
        self.printed = line
        self.url = f"http://127.0.0.1:{self.port}/"

    def stop(self) -> str:
        self.proc.terminate()
        try:
            _, err = self.proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _, err = self.proc.communicate()
        return err


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield b
        b.close()


@pytest.fixture
def sim(tmp_path):
    started = []

    def start(*args: str, host: str = "127.0.0.1") -> SimProcess:
        process = SimProcess(tmp_path / f"state{len(started)}", *args, host=host)
        started.append(process)
        return process

    yield start
    for process in started:
        err = process.stop()
        assert "Traceback" not in err, err


@contextlib.contextmanager
def pages(browser):
    """Opens pages, each in a new context of ``browser``; closes them all at the end."""
    contexts = []

    def open_(server: SimProcess, width: int = 1280, height: int = 900, *, init_script: str = "",
              languages: list[str] | None = None, **options):
        """A page of ``server`` in a new context (``options``: Playwright's, a locale say), once ready;
        ``init_script`` runs before the page's own, ``languages`` is what navigator.languages says."""
        context = browser.new_context(viewport={"width": width, "height": height}, **options)
        contexts.append(context)
        if languages is not None:
            init_script += ("Object.defineProperty(Navigator.prototype, 'languages', "
                            f"{{ configurable: true, get: () => {json.dumps(languages)} }});")
        if init_script:
            context.add_init_script(init_script)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.errors = errors
        page.set_default_timeout(WAIT_MS)
        page.goto(server.url)
        expect(page.locator("body")).to_have_attribute("data-ready", "1")
        return page

    try:
        yield open_
    finally:
        for context in contexts:
            context.close()


@pytest.fixture
def open_page(browser):
    with pages(browser) as open_:
        yield open_


# -- helpers ----------------------------------------------------------------------------------------

def square(page, name: str):
    return page.locator(f'#board [data-square="{name}"]')


def click(page, *names: str) -> None:
    for name in names:
        square(page, name).click()


def move(page, frm: str, to: str, san: str | None = None) -> None:
    """Lift the piece on ``frm`` and put it on ``to`` by two clicks; wait for ``san`` in the list."""
    click(page, frm, to)
    if san:
        expect(page.locator("#moves")).to_contain_text(san)


def play(page, *moves: tuple[str, str, str]) -> None:
    for frm, to, san in moves:
        move(page, frm, to, san)


def drag(page, frm: str, to: str) -> None:
    square(page, frm).drag_to(square(page, to))


def slide(page, frm: str, to: str, steps: int = 12) -> None:
    """Drag with the mouse held low over the squares between: their sensors blink as it passes."""
    a, b = square(page, frm).bounding_box(), square(page, to).bounding_box()
    page.mouse.move(a["x"] + a["width"] / 2, a["y"] + a["height"] / 2)
    page.mouse.down()
    page.mouse.move(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2, steps=steps)
    page.mouse.up()


def page_state(page, server: SimProcess) -> dict:
    return page.request.get(server.url + "api/state").json()


def engine_move(page, server: SimProcess) -> tuple[str, str]:
    """Wait for the engine's move on the board's LEDs: (UCI, SAN); both squares are lit."""
    board = page.locator("#board")
    expect(board).to_have_attribute("data-expected", re.compile(r"^[a-h][1-8][a-h][1-8][qrbn]?$"), timeout=30_000)
    uci = board.get_attribute("data-expected")
    lit = re.compile(r"^#[0-9a-f]{6}$")
    expect(square(page, uci[:2])).to_have_attribute("data-led", lit)   # blinking: waits for a lit phase
    expect(square(page, uci[2:4])).to_have_attribute("data-led", lit)
    position = Position(page_state(page, server)["fen"])
    return uci, san(position, Move.from_uci(uci))


def carry_out(page, server: SimProcess, uci: str) -> None:
    """Make the move ``uci`` on the simulated board by clicks, as a hand does (captures, castling)."""
    position = Position(page_state(page, server)["fen"])
    mv = Move.from_uci(uci)
    frm, to = uci[:2], uci[2:4]
    piece = position.piece_at(mv.from_square)
    if piece.piece_type == KING and abs(mv.to_square - mv.from_square) == 2:
        rank = frm[1]
        rook_from, rook_to = ("h" + rank, "f" + rank) if to[0] == "g" else ("a" + rank, "d" + rank)
        click(page, frm, to, rook_from, rook_to)
    elif position.piece_at(mv.to_square) is not None:
        click(page, frm, to)                            # the piece, then the piece it takes: done
    elif piece.piece_type == PAWN and frm[0] != to[0]:
        click(page, frm, to[0] + frm[1], to)            # en passant: the pawn taken is beside
    else:
        click(page, frm, to)


def in_order(sans: list[str]) -> re.Pattern:
    """The move list's text: exactly these moves, numbered ("1. e4 Nf6 2. a3 e5")."""
    return re.compile(r"^\s*1\.\s*" + r"\s*(?:\d+\.\s*)?".join(map(re.escape, sans)) + r"\s*$")


def first_legal(page, server: SimProcess, *ucis: str) -> str:
    position = Position(page_state(page, server)["fen"])
    legal = {m.uci() for m in position.legal_moves()}
    return next(u for u in ucis if u in legal)


# -- the tests -----------------------------------------------------------------------------------------

def test_the_simulator_prints_its_address_and_listens_on_loopback(sim):
    server = sim()
    assert f"http://127.0.0.1:{server.port}/" in server.printed


def test_shepherds_mate_by_clicks_ends_the_game_and_reaches_the_library(sim, open_page):
    server = sim()
    page = open_page(server)
    expect(page.locator("#status")).to_have_text("White to move")
    expect(page.locator("#board [data-occupied='1']")).to_have_count(32)
    expect(square(page, "e2")).to_have_attribute("data-led", "")
    play(page, ("e2", "e4", "e4"), ("e7", "e5", "e5"), ("f1", "c4", "Bc4"), ("b8", "c6", "Nc6"),
         ("d1", "h5", "Qh5"), ("g8", "f6", "Nf6"))
    click(page, "h5", "f7")        # the queen, then the pawn it takes: done (a third click would lift it)
    expect(page.locator("#status")).to_have_text("White wins by checkmate")
    expect(page.locator("#moves")).to_contain_text("Qxf7#")
    expect(page.locator("#result")).to_have_text("1-0")   # how it ended is in the status: said once
    # The LEDs end the game on the kings: the winner's one lit, the loser's one too.
    expect(square(page, "e1")).not_to_have_attribute("data-led", "")
    expect(square(page, "e8")).not_to_have_attribute("data-led", "")

    page.click("[data-tab=library]")
    game = page.locator("#library li").first
    expect(game).to_contain_text("1-0")
    game.locator("button").click()
    expect(page.locator("#viewer-pgn")).to_contain_text("Qxf7#")
    expect(page.locator("#viewer-pgn")).to_contain_text('[Result "1-0"]')
    expect(page.locator("#v-ply")).to_have_text("7 / 7")
    page.click("#v-first")
    expect(page.locator("#v-ply")).to_have_text("0 / 7")
    expect(page.locator('#viewer-board [data-square="d1"]')).to_have_attribute("data-piece", "Q")
    page.click("#v-next")
    expect(page.locator('#viewer-board [data-square="e4"]')).to_have_attribute("data-piece", "P")
    expect(page.locator("#viewer-ending")).to_have_text("1-0 — White wins by checkmate")
    expect(game).to_contain_text("4 moves")
    page.click("#lang-fr")                                # the library in French too
    expect(page.locator("#viewer-ending")).to_have_text("1-0 — Les Blancs gagnent par mat")
    expect(page.locator("#library li").first).to_contain_text("4 coups")
    page.click("#lang-en")
    pgn = page.request.get(server.url + "games.pgn")
    assert pgn.ok and "Qxf7#" in pgn.text()
    assert not page.errors


def test_a_click_capture_takes_two_clicks_and_a_drop_on_a_piece_captures_it(sim, open_page):
    server = sim()
    page = open_page(server)
    play(page, ("e2", "e4", "e4"), ("d7", "d5", "d5"))
    click(page, "e4", "d5")                # the pawn, then the pawn it takes: done
    expect(page.locator("#moves")).to_contain_text("exd5")
    expect(square(page, "d5")).to_have_attribute("data-piece", "P")
    expect(page.locator("#hand .held")).to_have_count(0)
    drag(page, "d8", "d5")                 # dropped on the pawn: it is taken
    expect(page.locator("#moves")).to_contain_text("Qxd5")
    expect(square(page, "d5")).to_have_attribute("data-piece", "q")
    expect(page.locator("#problems")).to_be_hidden()
    assert not page.errors


def test_a_capture_with_two_pieces_in_hand(sim, open_page):
    server = sim()
    page = open_page(server)
    play(page, ("e2", "e4", "e4"), ("d7", "d5", "d5"))
    click(page, "d5")                      # the pawn to be taken first...
    click(page, "e4")                      # ...then the capturing pawn: two pieces in hand
    expect(page.locator("#hand .held")).to_have_count(2)
    expect(square(page, "d5")).not_to_have_attribute("data-occupied", "1")
    click(page, "d5")                      # the white pawn goes down (the side to move's piece)
    expect(page.locator("#moves")).to_contain_text("exd5")
    expect(square(page, "d5")).to_have_attribute("data-piece", "P")
    expect(page.locator("#hand .held")).to_have_count(0)   # the captured pawn is put aside
    expect(page.locator("#status")).to_have_text("Black to move")


def test_rook_first_castling_and_dragged_moves(sim, open_page):
    server = sim()
    page = open_page(server)
    drag(page, "e2", "e4")
    expect(page.locator("#moves")).to_contain_text("e4")
    passes = []
    page.on("request", lambda r: passes.append(r.post_data) if r.url.endswith("/api/sim/pass") else None)
    slide(page, "e7", "e5")                # over e6, whose sensor blinks on the way
    expect(page.locator("#moves")).to_contain_text("e5")
    assert any('"e6"' in body for body in passes)
    play(page, ("g1", "f3", "Nf3"), ("b8", "c6", "Nc6"), ("f1", "c4", "Bc4"), ("f8", "c5", "Bc5"))
    click(page, "h1", "f1")               # the rook first...
    click(page, "e1", "g1")               # ...then the king
    expect(page.locator("#moves")).to_contain_text("O-O")
    expect(page.locator("#moves")).not_to_contain_text("Rf1")
    expect(square(page, "g1")).to_have_attribute("data-piece", "K")
    expect(square(page, "f1")).to_have_attribute("data-piece", "R")
    expect(page.locator("#status")).to_have_text("Black to move")


def test_an_illegal_move_lights_the_squares_to_put_right(sim, open_page):
    server = sim()
    page = open_page(server)
    move(page, "e2", "e5")                 # a pawn cannot go three squares
    # What is wrong and what to do, said once: in the status, not again below it.
    expect(page.locator("#status")).to_have_text("Not a legal move (White to move): put the pawn on e5 back on e2")
    lit = re.compile(r"^#[0-9a-f]{6}$")
    expect(square(page, "e2")).to_have_attribute("data-led", lit)   # steady, not blinking
    expect(square(page, "e5")).to_have_attribute("data-led", lit)
    expect(page.locator("#problems")).to_be_hidden()
    assert not page.locator("#moves").inner_text().strip()
    move(page, "e5", "e2")                 # put back: the LEDs go out and play goes on
    expect(page.locator("#status")).to_have_text("White to move")
    expect(square(page, "e5")).to_have_attribute("data-led", "")
    move(page, "e2", "e4", "e4")


def test_clocks_count_down_for_the_side_to_move_with_tenths_under_twenty_seconds(sim, open_page):
    server = sim()
    page = open_page(server)
    page.click("[data-tab=new]")
    page.fill("#new-game [name=white]", "Anna")
    page.fill("#new-game [name=black]", "Ben")
    page.select_option("#new-game [name=tc-preset]", "custom")
    page.fill("#new-game [name=tc-custom]", "15")
    page.click("#new-game button[type=submit]")
    expect(page.locator("#name-white")).to_have_text("Anna")
    expect(page.locator("#name-black")).to_have_text("Ben")
    white, black = page.locator("#clock-white"), page.locator("#clock-black")
    tenths = re.compile(r"^0:1[0-4]\.\d$")
    # [game] clock_start = "first_move" (the default): no clock runs until White's first move
    expect(white).to_have_text("0:15.0")
    expect(white).to_have_attribute("data-running", "0")
    expect(page.locator("#player-white")).to_have_class(re.compile("to-move"))
    move(page, "e2", "e4", "e4")
    expect(black).to_have_attribute("data-running", "1")
    expect(black).to_have_text(tenths)                  # counting: below 15 s, in tenths
    first = black.inner_text()
    expect(black).not_to_have_text(first)               # still counting
    expect(white).to_have_attribute("data-running", "0")
    assert white.inner_text() == "0:15.0"               # the first move was free
    move(page, "e7", "e5", "e5")
    expect(white).to_have_attribute("data-running", "1")
    expect(white).to_have_text(tenths)
    move(page, "g1", "f3", "Nf3")
    expect(black).to_have_attribute("data-running", "1")
    page.click("#pause")
    expect(page.locator("#status")).to_have_text("Clock paused")
    paused = black.inner_text()
    expect(page.locator("#pause")).to_have_text("Resume clock")
    assert black.inner_text() == paused


def test_a_simple_delay_runs_before_the_main_time(sim, open_page):
    server = sim("--time-control", "60d3")
    page = open_page(server)
    move(page, "e2", "e4", "e4")                                      # the clocks start with it
    black, delay = page.locator("#clock-black"), page.locator("#delay-black")
    expect(black).to_have_attribute("data-running", "1")
    expect(delay).to_have_text(re.compile(r"^\+[0-3]\.\d$"))       # the delay counts down beside the clock...
    expect(black).to_have_text("0:01:00")                             # ...and the main time waits
    expect(delay).to_be_hidden(timeout=WAIT_MS)                       # used up: now the main time runs
    expect(black).to_have_text(re.compile(r"^0:00:5\d$"))
    move(page, "e7", "e5", "e5")
    expect(page.locator("#delay-white")).to_be_visible()              # a fresh delay for White
    expect(page.locator("#clock-white")).to_have_text("0:01:00")
    expect(delay).to_be_hidden()


def test_the_language_menu_offers_every_language_the_board_has(sim, open_page):
    """GET /api/words' languages are the menu's: German comes with its words (its page's labels,
    the LED legend, the state's messages, the title in its own language); the choice is remembered."""
    server = sim()
    page = open_page(server)
    german = page.locator("#lang-de")
    expect(german).to_have_text("DE")
    expect(german).to_have_attribute("title", "Deutsch")
    german.click()
    expect(german).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#lang-en")).to_have_attribute("aria-pressed", "false")
    expect(page.locator("[data-tab=new]")).to_have_text("Neue Partie")
    expect(page.locator("#link")).to_have_text("live")
    expect(page.locator("#setup")).to_have_text("Figuren aufstellen")
    expect(page.locator("html")).to_have_attribute("lang", "de")
    expect(page.locator("#status")).to_have_text("Weiß am Zug")     # the state's message, in German
    page.reload()                                        # the choice is remembered
    expect(page.locator("#lang-de")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#aside")).to_have_text("Beiseitelegen")
    page.click("#lang-en")
    expect(page.locator("#aside")).to_have_text("Put aside")
    assert not page.errors


def test_the_french_toggle_writes_the_moves_with_french_letters(sim, open_page):
    server = sim()
    page = open_page(server)
    play(page, ("e2", "e4", "e4"), ("e7", "e5", "e5"), ("g1", "f3", "Nf3"), ("b8", "c6", "Nc6"),
         ("f1", "b5", "Bb5"))
    page.click("#lang-fr")
    moves = page.locator("#moves")
    expect(moves).to_contain_text("Cf3")
    expect(moves).to_contain_text("Cc6")
    expect(moves).to_contain_text("Fb5")
    expect(moves).not_to_contain_text("Nf3")
    # The rest of the page in French too: the link, the simulator's hand and its legend.
    expect(page.locator("#link")).to_have_text("en direct")
    expect(page.locator("#sim")).to_contain_text("Main :")
    expect(page.locator("#hand")).to_have_text("vide")
    expect(page.locator("#aside")).to_have_text("Poser à côté")
    expect(page.locator("#setup")).to_have_text("Placer les pièces")
    expect(page.locator("#sim .hint")).to_contain_text("Cliquez sur une pièce pour la soulever")
    expect(page.locator(".play .legend")).to_contain_text("le capteur lit une pièce")
    page.click("[data-tab=new]")
    page.select_option("#new-game [name=variant]", "chess960-number")
    expect(page.locator("#ng-number-label")).to_contain_text("Position de départ (0 à 959")
    page.click("[data-tab=settings]")
    expect(page.locator("#lichess-form label")).to_contain_text("Jeton d'API")
    page.click("[data-tab=game]")
    page.reload()                                        # the choice is remembered
    expect(page.locator("#moves")).to_contain_text("Fb5")
    expect(page.locator("#link")).to_have_text("en direct")
    page.click("#lang-en")
    expect(page.locator("#moves")).to_contain_text("Bb5")
    expect(page.locator("#link")).to_have_text("live")
    expect(page.locator("#hand")).to_have_text("empty")
    expect(page.locator("#setup")).to_have_text("Set up pieces")
    assert not page.errors


def test_on_the_lan_a_change_without_the_pairing_code_is_refused(sim, open_page):
    server = sim("--pairing-code", "135246", host="0.0.0.0")
    assert "Pairing code: 135246" in server.proc.stdout.readline()
    page = open_page(server)
    expect(page.locator("#pair-open")).to_be_visible()
    refused = page.request.post(server.url + "api/game/resign", data={"color": "white"})
    assert refused.status == 403 and "pairing code" in refused.json()["error"]
    page.click("#resign-white")
    page.click("#resign-white")                          # the second click confirms
    expect(page.locator("#message")).to_contain_text("pairing code")
    expect(page.locator("#pairing")).to_be_visible()
    expect(page.locator("#status")).to_have_text("White to move")
    click(page, "e2")                                    # the simulated hand is a change too
    expect(page.locator("#message")).to_contain_text("pairing code")
    page.fill("#pair-code", "111111")
    page.click("#pair-form button[type=submit]")
    expect(page.locator("#message")).to_contain_text("wrong pairing code")
    page.fill("#pair-code", "135246")
    page.click("#pair-form button[type=submit]")
    expect(page.locator("#pair-open")).to_be_hidden()
    move(page, "e2", "e4", "e4")
    page.click("#resign-black")
    page.click("#resign-black")
    expect(page.locator("#status")).to_have_text("White wins by resignation")


def test_the_page_fits_a_phone(sim, open_page):
    server = sim("--time-control", "300+3")
    page = open_page(server, width=390, height=844)
    board = page.locator("#board").bounding_box()
    assert board["width"] <= 390 and board["width"] >= 300
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    for frm, to, san in (("e2", "e4", "e4"), ("e7", "e5", "e5"), ("g1", "f3", "Nf3"), ("b8", "c6", "Nc6"),
                         ("f1", "b5", "Bb5"), ("a7", "a6", "a6"), ("b5", "a4", "Ba4"), ("g8", "f6", "Nf6")):
        move(page, frm, to, san)
        # after each move: no scrolling, the board, both clocks and the status in view
        assert page.evaluate("window.scrollY") == 0
        for selector in ("#board", "#clock-white", "#clock-black", "#status"):
            box = page.locator(selector).bounding_box()
            assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 844, selector


def test_the_pieces_are_drawn_as_svg_and_white_ones_are_light(sim, open_page):
    server = sim()
    page = open_page(server, width=390, height=844)
    for name, symbol in (("a1", "R"), ("b1", "N"), ("d1", "Q"), ("e1", "K"), ("e8", "k")):
        svg = square(page, name).locator("svg.piece-svg")
        expect(svg).to_have_attribute("data-piece", symbol)
        fill = svg.locator("path").get_attribute("fill")
        assert (fill == "#fafafa") == symbol.isupper(), (name, fill)


def test_french_turns_the_page_and_the_prompts_into_french_and_the_legend_shows(sim, open_page):
    server = sim()
    page = open_page(server)
    move(page, "e2", "e5")                 # not a legal move
    expect(page.locator("#status")).to_have_text("Not a legal move (White to move): put the pawn on e5 back on e2")
    expect(page.locator("#led-legend-list li")).to_have_count(1)    # the roles lit now: the squares to put right
    expect(page.locator('#led-legend-list li[data-role="fix"]')).to_contain_text("a square to put right")
    page.click("#lang-fr")
    expect(page.locator("#status")).to_have_text("Coup illégal (trait aux Blancs) : remettez le pion de e5 en e2")
    expect(page.locator("#problems")).to_be_hidden()
    expect(page.locator('[data-tab="game"]')).to_have_text("Partie")
    expect(page.locator("#resign-white")).to_have_text("Les Blancs abandonnent")
    expect(page.locator('#led-legend-list li[data-role="fix"]')).to_contain_text("une case à corriger")
    page.click('[data-tab="new"]')
    expect(page.locator("#new-game")).to_contain_text("Deux joueurs à l'échiquier")
    expect(page.locator("#new-game")).to_contain_text("Cadence")
    expect(page.locator("#new-game [name=opponent]")).to_have_count(3)   # the inputs beside the words stay
    page.click('[data-tab="settings"]')
    expect(page.locator("#settings")).to_contain_text("Pièce touchée, pièce jouée")
    page.click('[data-tab="game"]')
    move(page, "e5", "e2")
    expect(page.locator("#status")).to_have_text("Trait aux Blancs")
    page.click("#lang-en")
    expect(page.locator("#status")).to_have_text("White to move")


def test_the_default_names_follow_the_pages_language(sim, open_page):
    """Issue 26.10: players nobody named are "White" and "Black" in the record, and read "Blancs"
    and "Noirs" on a French page: above the board, in the new-game dialog and in the library."""
    server = sim()
    page = open_page(server)
    expect(page.locator("#name-white")).to_have_text("White")
    page.click("#lang-fr")
    expect(page.locator("#name-white")).to_have_text("Blancs")
    expect(page.locator("#name-black")).to_have_text("Noirs")
    page.click('[data-tab="new"]')
    expect(page.locator("#new-game [name=white]")).to_have_value("Blancs")
    page.fill("#new-game [name=black]", "Anna")
    page.click("#new-game button[type=submit]")
    expect(page.locator("#name-black")).to_have_text("Anna")
    expect(page.locator("#name-white")).to_have_text("Blancs")
    assert page_state(page, server)["players"] == {"white": "White", "black": "Anna"}
    page.click('[data-tab="library"]')
    expect(page.locator("#library li").first).to_contain_text("Blancs – Anna")
    page.click("#lang-en")
    expect(page.locator("#library li").first).to_contain_text("White – Anna")
    page.click('[data-tab="new"]')
    expect(page.locator("#new-game [name=white]")).to_have_value("White")
    assert not page.errors


def test_no_clock_boxes_without_a_clock_and_new_game_asks_before_abandoning(sim, open_page):
    server = sim()
    page = open_page(server)
    expect(page.locator("#clock-white")).to_be_hidden()
    expect(page.locator("#clock-black")).to_be_hidden()
    move(page, "e2", "e4", "e4")
    page.click('[data-tab="new"]')
    submit = page.locator("#new-game [type=submit]")
    submit.click()
    expect(submit).to_contain_text("Confirm: abandon the game in progress")
    expect(page.locator("#moves")).to_contain_text("e4")          # nothing abandoned yet
    submit.click()
    expect(page.locator("#moves")).not_to_contain_text("e4")
    page.click('[data-tab="library"]')
    expect(page.locator("#library")).to_contain_text("unfinished (abandoned)")


def test_screenshot_for_the_readme(sim, open_page, tmp_path):
    """The README's picture: a game under way, a piece lifted with its legal squares lit."""
    server = sim("--time-control", "300+3")
    page = open_page(server, width=1200, height=820)
    play(page, ("e2", "e4", "e4"), ("e7", "e5", "e5"), ("g1", "f3", "Nf3"), ("b8", "c6", "Nc6"),
         ("f1", "c4", "Bc4"), ("g8", "f6", "Nf6"))
    click(page, "f3")                                    # lift the knight: its squares light up
    expect(square(page, "g5")).not_to_have_attribute("data-led", "")
    expect(square(page, "e5")).not_to_have_attribute("data-led", "")
    target = SCREENSHOT if not SCREENSHOT.exists() or os.environ.get("ECHIQUIER_SCREENSHOT") else \
        tmp_path / "screenshot.png"
    target.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(target))
    assert target.stat().st_size > 10_000


def test_a_game_against_stockfish_from_the_page(sim, open_page):
    """New game against Stockfish (Black) from the dialog; its moves are lit, carried out by clicks."""
    server = sim()
    page = open_page(server)
    page.click("[data-tab=new]")
    page.check("#new-game [name=opponent][value=engine]")
    expect(page.locator("#ng-local")).to_be_hidden()
    page.fill("#new-game [name=player]", "Anna")
    page.select_option("#new-game [name=engine_side]", "black")
    page.fill("#new-game [name=engine_level]", "1")
    page.click("#new-game button[type=submit]")
    expect(page.locator("#name-white")).to_have_text("Anna")
    expect(page.locator("#opponent")).to_contain_text("plays Black")
    expect(page.locator("#opponent-link")).to_have_attribute("data-state", "connected", timeout=20_000)
    expect(page.locator("#resign-black")).to_be_hidden()           # Stockfish decides for Black
    expect(page.locator("#takeover-white")).to_be_visible()
    expect(page.locator("#takeover-black")).to_be_hidden()
    played = ["e4"]
    move(page, "e2", "e4", "e4")
    for mine in (("a2a3", "h2h3", "d2d3"), ("b2b3", "g2g3", "c2c3")):
        uci, text = engine_move(page, server)
        carry_out(page, server, uci)
        expect(page.locator("#board")).to_have_attribute("data-expected", "")
        played.append(text)
        expect(page.locator("#moves")).to_have_text(in_order(played))
        expect(page.locator("#status")).to_have_text(re.compile("^White to move"))
        nxt = first_legal(page, server, *mine)
        position = Position(page_state(page, server)["fen"])
        played.append(san(position, Move.from_uci(nxt)))
        carry_out(page, server, nxt)
        expect(page.locator("#moves")).to_contain_text(played[-1])
    uci, text = engine_move(page, server)
    carry_out(page, server, uci)
    played.append(text)
    expect(page.locator("#moves")).to_have_text(in_order(played))
    assert page_state(page, server)["moves"]["san"] == played
    assert not page.errors


def test_the_computer_takes_over_a_side_that_has_to_leave(sim, open_page):
    server = sim()
    page = open_page(server)
    play(page, ("e2", "e4", "e4"), ("e7", "e5", "e5"))
    expect(page.locator("#opponent")).to_be_hidden()
    button = page.locator("#takeover-black")
    button.click()
    expect(button).to_contain_text("Confirm")                      # two clicks: nobody leaves by mistake
    assert page_state(page, server)["opponent"]["sides"] == []
    button.click()
    expect(page.locator("#opponent")).to_contain_text("plays Black")
    expect(page.locator("#takeover-black")).to_be_hidden()
    expect(page.locator("#takeover-white")).to_be_visible()
    expect(page.locator("#opponent-link")).to_have_attribute("data-state", "connected", timeout=20_000)
    name = page_state(page, server)["opponent"]["name"]            # the engine's own: "Stockfish 15.1"
    assert re.fullmatch(r"Stockfish \d[\w.]*", name), name
    expect(page.locator("#name-black")).to_have_text(f"Black ({name} from move 2)")   # the PGN's player tag
    expect(page.locator("#opponent")).to_contain_text(f"{name} plays Black")         # one name on the page
    page.click("#lang-fr")
    expect(page.locator("#opponent-text")).to_have_text(f"{name} joue les Noirs.")
    expect(page.locator("#opponent-link")).to_have_text("connecté")
    page.click("#lang-en")
    expect(page.locator("#opponent-link")).to_have_text("connected")
    move(page, "g1", "f3", "Nf3")
    uci, text = engine_move(page, server)
    carry_out(page, server, uci)
    expect(page.locator("#moves")).to_contain_text(text)
    expect(page.locator("#status")).to_have_text(re.compile("^White to move"))
    assert page_state(page, server)["moves"]["san"][:3] == ["e4", "e5", "Nf3"]
    expect(page.locator("#giveback-black")).to_be_visible()         # Black's player is back
    expect(page.locator("#giveback-white")).to_be_hidden()
    page.click("#giveback-black")
    expect(page.locator("#name-black")).to_have_text("Black")
    expect(page.locator("#giveback")).to_be_hidden()
    expect(page.locator("#takeover-black")).to_be_visible()
    move(page, "d2", "d4", "d4")
    expect(page.locator("#status")).to_have_text("Black to move")    # no engine move shown: Black plays
    assert page_state(page, server)["expected_move"] is None
    assert not page.errors


TOKEN = "lip_N0tEch0edAnywh3re"


class ThreadedLichess:
    """The fake Lichess server (tests/fakes) on its own thread and loop, for a simulator in a subprocess."""

    def __init__(self, **options) -> None:
        from tests.fakes.fake_lichess import FakeLichess
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="fake-lichess", daemon=True)
        self.thread.start()
        self.fake = FakeLichess({TOKEN: "Bobby"}, keepalive=0.5, **options)
        self.base_url = self.run(self.fake.start())

    def run(self, coro):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(30)

    def call(self, fn, *args, **kwargs):
        """``fn(*args)`` on the fake's loop (its methods touch the loop's queues)."""
        async def call():
            return fn(*args, **kwargs)
        return self.run(call())

    def requested(self, method: str, pattern: str, timeout: float = 10.0) -> bool:
        """Whether the fake gets a ``method`` request whose path matches ``pattern`` within ``timeout``."""
        async def wait() -> bool:
            end = self.loop.time() + timeout
            while not any(m == method and re.search(pattern, path) for m, path, _ in self.fake.requests):
                if self.loop.time() > end:
                    return False
                await asyncio.sleep(0.01)
            return True
        return self.run(wait())

    def stop(self) -> None:
        self.run(self.fake.stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


@pytest.fixture
def lichess(tmp_path):
    """``(fake, config)``: the fake Lichess, and a configuration file that points the simulator at it."""
    fake = ThreadedLichess()
    config = tmp_path / "online.toml"
    config.write_text(f'[board]\nsensors = "sim"\n[lichess]\nbase_url = "{fake.base_url}"\n')
    yield fake, config
    fake.stop()


def connect_lichess(page) -> None:
    page.click("[data-tab=settings]")
    field = page.locator("#lichess-token")
    expect(field).to_have_attribute("type", "password")
    field.fill(TOKEN)
    page.click("#lichess-form button[type=submit]")
    expect(field).to_have_value("")                                # wiped at once, whatever the answer


def test_the_lichess_token_is_never_echoed(sim, open_page, lichess):
    fake, config = lichess
    server = sim("--config", str(config))
    page = open_page(server)
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(str(payload))))
    answers: list[str] = []
    page.on("response", lambda r: answers.append(r.text()) if "/api/" in r.url else None)
    page.reload()
    expect(page.locator("body")).to_have_attribute("data-ready", "1")
    connect_lichess(page)
    expect(page.locator("#lichess-state")).to_contain_text("Account bobby")
    expect(page.locator("#lichess-state")).to_contain_text("connected")
    expect(page.locator("#lichess legend")).to_have_text("Lichess account")   # its own words, no {account}
    expect(page.locator("#lichess-logout")).to_be_visible()
    expect(page.locator("#lichess-form")).to_be_hidden()
    assert TOKEN not in page.content() and TOKEN not in page.inner_text("body")
    assert TOKEN not in page.request.get(server.url + "api/state").text()
    assert frames and not any(TOKEN in frame for frame in frames)
    assert answers and not any(TOKEN in answer for answer in answers)
    kept = server.state_dir / "lichess.token"
    assert kept.read_text().strip() == TOKEN and kept.stat().st_mode & 0o777 == 0o600
    # A token Lichess refuses: said so, and not quoted either.
    page.click("#lichess-logout")
    expect(page.locator("#lichess-form")).to_be_visible()
    assert not kept.exists()
    page.fill("#lichess-token", "lip_Wr0ngT0ken")
    page.click("#lichess-form button[type=submit]")
    expect(page.locator("#lichess-state")).to_contain_text("not connected", timeout=20_000)
    expect(page.locator("#lichess-state")).to_contain_text("Paste a new token")
    page.click("#lang-fr")                                          # and in French
    expect(page.locator("#lichess-state")).to_contain_text("Lichess n'est pas connecté")
    expect(page.locator("#lichess-state")).to_contain_text("Collez un nouveau jeton pour réessayer")
    expect(page.locator("#lichess legend")).to_have_text("Compte Lichess")
    page.click("#lang-en")
    expect(page.locator("#lichess-form")).to_be_visible()           # a new token may be entered at once
    assert "lip_Wr0ngT0ken" not in page.content() and "lip_Wr0ngT0ken" not in "".join(frames + answers)
    assert not page.errors


def test_an_online_game_offers_no_assistance_and_answers_the_other_sides_offers(sim, open_page, lichess):
    fake, config = lichess
    server = sim("--config", str(config))
    page = open_page(server)
    connect_lichess(page)
    expect(page.locator("#lichess-state")).to_contain_text("connected")
    game = fake.call(fake.fake.start_game, "Bobby", color=WHITE)
    page.click("[data-tab=game]")
    expect(page.locator("#opponent")).to_contain_text("Lichess")
    expect(page.locator("#opponent")).to_contain_text("plays Black")
    expect(page.locator("#name-black")).to_have_text("Mary")
    for hidden in ("#takeback", "#takeover", "#resign-black", "#offer-black"):
        expect(page.locator(hidden)).to_be_hidden()
    expect(page.locator("#resign-white")).to_be_visible()
    move(page, "e2", "e4", "e4")
    uci, text = engine_move(page, server)                           # the other end's move, lit
    carry_out(page, server, uci)
    expect(page.locator("#moves")).to_contain_text(text)
    expect(page.locator("#status")).to_have_text(re.compile("^White to move"))

    fake.call(fake.fake.opponent_proposes_takeback, game.id)
    offer = page.locator("#takeback-offer")
    expect(offer).to_be_visible()
    expect(offer).to_contain_text("Black asks to take back")
    page.click("#takeback-decline")
    expect(offer).to_be_hidden()
    assert fake.requested("POST", rf"/takeback/(no|false)$")

    fake.call(fake.fake.opponent_offers_draw, game.id)
    draw = page.locator("#draw-offer")
    expect(draw).to_be_visible()
    expect(page.locator("#draw-accept")).to_be_visible()
    page.click("#draw-decline")
    expect(draw).to_be_hidden()
    assert fake.requested("POST", rf"/draw/(no|false)$")
    page.click("[data-tab=settings]")
    expect(page.locator("#assist-note")).to_be_visible()
    expect(page.locator("#settings [name=show_legal]")).to_be_disabled()
    assert not page.errors


def test_playing_black_online_the_board_turns_round_and_the_other_sides_doings_show(sim, open_page, lichess):
    fake, config = lichess
    server = sim("--config", str(config))
    page = open_page(server)
    connect_lichess(page)
    expect(page.locator("#lichess-state")).to_contain_text("connected")
    game = fake.call(fake.fake.start_game, "Bobby", color=BLACK)
    page.click("[data-tab=game]")
    expect(page.locator("#opponent")).to_contain_text("plays White")
    expect(page.locator("#board .sq").first).to_have_attribute("data-square", "h1")   # seen from Black
    fake.call(fake.fake.chat, game.id, "good luck!")
    expect(page.locator("#chat")).to_contain_text("Mary: good luck!")
    fake.call(fake.fake.opponent_gone, game.id, True, 0)
    away = page.locator("#away")
    expect(away).to_contain_text("Mary left the game")
    page.click("#claim-gone-draw")
    assert fake.requested("POST", r"/claim-draw$")
    expect(page.locator("#status")).to_have_text("Draw by abandoned")
    expect(away).to_be_hidden()
    assert not page.errors


def test_a_chess960_game_from_the_new_game_dialog(sim, open_page):
    server = sim()
    page = open_page(server)
    page.click("[data-tab=new]")
    page.select_option("#new-game [name=variant]", "chess960-number")
    page.fill("#new-game [name=start_position]", "323")
    page.click("#new-game button[type=submit]")
    # The simulated hand sets the pieces of position 323 (bnrqkrnb); the squares whose piece changed
    # from the usual arrangement are lit until each has been lifted and set down again.
    expect(page.locator("#status")).to_contain_text("Set up Chess960 position 323 to start: first rank BNRQKRNB")
    expect(square(page, "a1")).to_have_attribute("data-piece", "B")
    expect(square(page, "c1")).to_have_attribute("data-piece", "R")
    lit = re.compile(r"^#[0-9a-f]{6}$")
    for name in ("a1", "c1", "f1", "h1", "a8", "c8", "f8", "h8"):
        expect(square(page, name)).to_have_attribute("data-led", lit)
        click(page, name, name)            # lifted, and set down again
    expect(page.locator("#status")).to_have_text("White to move")
    play(page, ("g2", "g3", "g3"), ("g7", "g6", "g6"), ("g1", "f3", "Nf3"), ("d7", "d6", "d6"))
    click(page, "e1", "g1")                # castling: the king over its rook, which stays on f1
    expect(page.locator("#moves")).to_contain_text("O-O")
    expect(square(page, "g1")).to_have_attribute("data-piece", "K")
    expect(page.locator("#status")).to_have_text("Black to move")


class LateStates:
    """The page's websocket with the board's states held back while ``closed`` (a loaded machine, a
    slow network: the page acts on a copy one update behind), then delivered in order."""

    def __init__(self, page) -> None:
        self.closed = False
        self.held: list = []
        self.route = None
        page.route_web_socket(re.compile(r".*/ws$"), self._connect)

    def _connect(self, route) -> None:
        self.route = route
        route.connect_to_server().on_message(self._from_board)

    def _from_board(self, message) -> None:
        if self.closed:
            self.held.append(message)
        else:
            self.route.send(message)

    def open(self) -> None:
        self.closed = False
        for message in self.held:
            self.route.send(message)
        self.held.clear()


def test_a_quick_second_click_is_read_on_the_hand_as_it_is(sim, browser):
    """Issue 26.12 (the Chess960 dialog's test stuck at "put a piece on h8"): a piece lifted and set
    down again by two quick clicks, the board's update of the first not yet on the page: the second
    click puts it down (it lifted it again, a 409, and the piece stayed in the hand)."""
    server = sim()
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.set_default_timeout(WAIT_MS)
    states = LateStates(page)
    page.goto(server.url)
    expect(page.locator("body")).to_have_attribute("data-ready", "1")
    states.closed = True
    answers = []
    for _ in range(2):
        with page.expect_response(lambda r: "/api/sim/" in r.url) as answer:
            click(page, "g1")
        answers.append(answer.value.status)
    assert answers == [200, 200]
    state = page_state(page, server)
    assert state["sim"]["hand"] == [] and "g1" in state["occupied"]
    states.open()
    expect(square(page, "g1")).to_have_attribute("data-piece", "N")
    expect(page.locator("#hand .held")).to_have_count(0)
    assert not errors
    context.close()


def test_a_move_recorded_wrong_is_put_right_with_one_click(sim, open_page):
    """Issue 11.6: the queen on c2 could take on c8 or g6; lifting the queen, then the g6 pawn and
    putting the pawn back reads as Qxg6 (the c8 rook swept off unseen) as well as Qxc8 about to
    land: the page offers the other explanation, and one click makes it the game's move."""
    server = sim("--fen", "2r4k/8/6p1/8/8/8/2Q5/K7 w - - 0 1")
    page = open_page(server)
    for path, body in (("lift", {"square": "c2"}), ("lift", {"square": "g6"}), ("place", {"square": "g6", "index": 1})):
        page.evaluate("([p, b]) => fetch('/api/sim/' + p, {method: 'POST', headers: {'Content-Type': "
                      "'application/json'}, body: JSON.stringify(b)})", [path, body])
        page.wait_for_timeout(300)
    expect(page.locator("#moves")).to_contain_text("Qxg6")
    button = page.locator("#corrections button")
    expect(button).to_have_text("Qxc8+")
    button.click()
    expect(page.locator("#moves")).to_contain_text("Qxc8+")
    assert not page.errors


def test_the_promotion_chosen_on_the_page_just_after_a_stalemate_plays_on(sim, open_page):
    """Issue 26.9: g8=Q stalemates; the page still offers the piece, a rook is chosen, and the
    ending it showed gives way to the game going on."""
    server = sim("--fen", "8/6P1/8/8/8/8/8/k1K5 w - - 0 1")
    page = open_page(server)
    move(page, "g7", "g8", "g8=Q")
    expect(page.locator("#status")).to_contain_text("stalemate")
    expect(page.locator("#result")).to_have_text("1/2-1/2")
    expect(page.locator("#promotion")).to_be_visible()
    page.locator('#promotion button[data-piece="r"]').click()
    expect(page.locator("#moves")).to_have_text(in_order(["g8=R"]))
    expect(page.locator("#status")).to_have_text("Black to move")
    expect(page.locator("#result")).to_be_hidden()
    state = page_state(page, server)
    assert state["moves"]["uci"] == ["g7g8r"] and state["result"] == "*"
    assert not page.errors


def test_the_simulators_hand_exchanges_the_promoted_pawn_and_the_queen_stays(sim, open_page):
    """Issue 27: the pawn set on e8, then lifted off and the new piece set down there (the usual
    exchange) keeps the queen; the page still under-promotes until the opponent moves."""
    server = sim("--fen", "8/4P3/8/7p/8/8/k7/4K3 w - - 0 1")
    page = open_page(server)
    move(page, "e7", "e8", "e8=Q")
    expect(page.locator("#promotion")).to_be_visible()
    page.wait_for_timeout(1000)
    click(page, "e8")                       # the pawn taken off...
    page.wait_for_timeout(1200)
    click(page, "e8")                       # ...and the queen set down
    page.wait_for_timeout(800)
    assert page_state(page, server)["moves"]["san"] == ["e8=Q"]
    expect(page.locator('#promotion button[data-piece="q"]')).to_have_attribute("aria-pressed", "true")
    page.locator('#promotion button[data-piece="r"]').click()   # a rook after all, chosen on the page
    expect(page.locator("#moves")).to_contain_text("e8=R")
    move(page, "a2", "b2", "Kb2")
    expect(page.locator("#moves")).to_have_text(in_order(["e8=R", "Kb2"]))
    assert page_state(page, server)["moves"]["san"] == ["e8=R", "Kb2"]
    assert not page.errors


def test_the_hint_button_shows_for_a_coached_side_and_lights_the_computers_move(sim, open_page, tmp_path):
    """Issue 24's coach from the page: the Hint button is there while the coached side is to move,
    and its hint is said on the page and lit on the board."""
    config = tmp_path / "coach.toml"
    config.write_text("[coach]\nwhite = true\ndepth = 6\n")
    server = sim("--config", str(config))
    page = open_page(server)
    expect(page.locator("#hint")).to_be_visible()
    page.locator("#hint").click()
    expect(page.locator("#online-notice")).to_contain_text("Hint: ")
    state = page_state(page, server)
    assert state["hint_available"] and sum(1 for colour in state["leds"] if colour) >= 2
    move(page, "e2", "e4", "e4")
    expect(page.locator("#hint")).to_be_hidden()          # Black is not coached


def test_a_coach_whose_engine_fails_is_said_once_on_the_page(sim, open_page, tmp_path):
    """Issue 32, item 7: the coach's engine that cannot start is said in the page's message once,
    not again at every state that follows."""
    config = tmp_path / "coach.toml"
    config.write_text(f'[coach]\nwhite = true\ndepth = 6\n[engine]\npath = "{tmp_path / "no-stockfish"}"\n')
    server = sim("--config", str(config))
    page = open_page(server)
    page.locator("#hint").click()
    expect(page.locator("#message")).to_contain_text("The coach's engine failed")
    page.evaluate("document.querySelector('#message').hidden = true")   # (read: its time is up)
    move(page, "e2", "e4", "e4")
    move(page, "e7", "e5", "e5")
    assert page_state(page, server)["failed_helpers"][0]["helper"] == "coach"
    expect(page.locator("#message")).to_be_hidden()
