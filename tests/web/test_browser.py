"""End to end in headless Chromium: `echiquier sim` in a subprocess, the page played with the mouse.

Every move goes through the simulated board's sensors, the debouncer, the inference, the clock
and the recorder, so the tests wait for the websocket's update on the page (Playwright's
auto-waiting on DOM conditions), never for a fixed time.
"""
from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

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


@pytest.fixture
def open_page(browser):
    contexts = []

    def open_(server: SimProcess, width: int = 1280, height: int = 900):
        context = browser.new_context(viewport={"width": width, "height": height})
        contexts.append(context)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.errors = errors
        page.set_default_timeout(WAIT_MS)
        page.goto(server.url)
        expect(page.locator("body")).to_have_attribute("data-ready", "1")
        return page

    yield open_
    for context in contexts:
        context.close()


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
    click(page, "h5", "f7", "f7")  # the queen, then the pawn it takes, then the queen put down
    expect(page.locator("#status")).to_have_text("White wins by checkmate")
    expect(page.locator("#moves")).to_contain_text("Qxf7#")
    expect(page.locator("#result")).to_contain_text("1-0")
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
    pgn = page.request.get(server.url + "games.pgn")
    assert pgn.ok and "Qxf7#" in pgn.text()
    assert not page.errors


def test_a_capture_with_two_pieces_in_hand(sim, open_page):
    server = sim()
    page = open_page(server)
    play(page, ("e2", "e4", "e4"), ("d7", "d5", "d5"))
    click(page, "e4")                      # the capturing pawn...
    click(page, "d5")                      # ...and the pawn it takes: two pieces in hand
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
    expect(page.locator("#status")).to_have_text("Put the pieces right")
    lit = re.compile(r"^#[0-9a-f]{6}$")
    expect(square(page, "e2")).to_have_attribute("data-led", lit)   # blinking: waits for a lit phase
    expect(square(page, "e5")).to_have_attribute("data-led", lit)
    expect(page.locator("#problems")).to_contain_text("no legal move explains the board")
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
    expect(white).to_have_text(tenths)                  # counting: below 15 s, in tenths
    expect(white).to_have_attribute("data-running", "1")
    expect(black).to_have_text("0:15.0")
    expect(page.locator("#player-white")).to_have_class(re.compile("to-move"))
    first = white.inner_text()
    expect(white).not_to_have_text(first)               # still counting
    move(page, "e2", "e4", "e4")
    expect(black).to_have_attribute("data-running", "1")
    expect(black).to_have_text(tenths)
    expect(white).to_have_attribute("data-running", "0")
    stopped = white.inner_text()
    expect(black).not_to_have_text("0:15.0")
    assert white.inner_text() == stopped
    page.click("#pause")
    expect(page.locator("#status")).to_have_text("Clock paused")
    paused = black.inner_text()
    expect(page.locator("#pause")).to_have_text("Resume clock")
    assert black.inner_text() == paused


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
    page.reload()                                        # the choice is remembered
    expect(page.locator("#moves")).to_contain_text("Fb5")
    page.click("#lang-en")
    expect(page.locator("#moves")).to_contain_text("Bb5")


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
    server = sim()
    page = open_page(server, width=390, height=844)
    board = page.locator("#board").bounding_box()
    assert board["width"] <= 390 and board["width"] >= 300
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    move(page, "e2", "e4", "e4")


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
