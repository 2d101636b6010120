"""Whole games played by apps written from the descriptions against `echiquier sim --emulate ...` over its pseudo-terminal.

The simulator runs in a subprocess on real time; its pieces move through the page's API (the
simulated hand), and the test's client reads the port as an app would. After every move the
status (ChessLink) or the dump and the field updates (DGT) equal the game's position; no report
ever shows a piece the game does not have; the app's LED commands light the squares it framed on
the board's page; the page says which app plays; the PGN names it; when the app goes the board
plays on by itself.
"""
from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from pathlib import Path

import aiohttp
import chess
import chess.pgn
import pytest

from .clients import ChessLinkClient, DgtClient, Port, dgt_field, led_frame, status_placement
from tests.said import said

ROOT = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.slow   # two simulators in subprocesses, whole games on real time (about 20 s)
APP = "Test Client"
APP_COLOUR = "#00ffff"

# A whole game with long castling and a mate (the "Mieses"-style attack), and one with en
# passant, a promotion with capture and a mate (Stockfish against a weak Stockfish).
GAME_CASTLING = ("e4 d5 exd5 Qxd5 Nc3 Qa5 d4 c6 Nf3 Bg4 Bf4 e6 h3 Bxf3 Qxf3 Bb4 Be2 Nd7 a3 O-O-O axb4 Qxa1+ "
                 "Kd2 Qxh1 Qxc6+ bxc6 Ba6#")
GAME_PROMOTION = ("e4 f5 e5 d5 exd6 Kf7 dxc7 Kg6 cxd8=Q Nf6 Qxc8 e6 Qxb7 f4 Bd3+ Kh6 Qxa8 Nbd7 Nf3 g5 Bb5 g4 "
                  "Bxd7 Nxd7 Qc6 Nf6 Qxe6 Be7 Ne5 Rg8 Qxe7 Rg6 d4 Kh5 h3 Rh6 Qxg4+ Nxg4 hxg4#")


class SimProcess:
    """`echiquier sim --emulate PROTOCOL --link PATH` in a subprocess, driven through its page's API."""

    def __init__(self, proc: asyncio.subprocess.Process, url: str, link: str, state_dir: Path) -> None:
        self.proc, self.url, self.link, self.state_dir = proc, url, link, state_dir
        self.http = aiohttp.ClientSession()

    @classmethod
    async def start(cls, tmp_path: Path, protocol: str) -> "SimProcess":
        link = tmp_path / f"{protocol}-port"
        state_dir = tmp_path / "state"
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "firmware.cli", "sim", "--port", "0", "--state-dir", str(state_dir),
            "--emulate", protocol, "--link", str(link), "--app", APP, cwd=ROOT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"}, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE)
        url = port_line = None
        async with asyncio.timeout(30):
            while url is None or port_line is None:
                line = (await proc.stdout.readline()).decode()
                assert line, f"echiquier sim stopped: {(await proc.stderr.read()).decode()}"
                if found := re.search(r"(http://\S+)", line):
                    url = found.group(1)
                if "answers as a" in line:
                    port_line = line
        assert str(link) in port_line
        return cls(proc, url, str(link), state_dir)

    async def post(self, path: str, body: dict | None = None) -> dict:
        async with self.http.post(self.url + path, data=json.dumps(body or {}),
                                  headers={"Content-Type": "application/json"}) as response:
            assert response.status == 200, await response.text()
            return await response.json()

    async def state(self) -> dict:
        async with self.http.get(self.url + "api/state") as response:
            return await response.json()

    async def until(self, condition, what: str, timeout: float = 10.0) -> dict:
        """The page's state once ``condition(state)`` holds (real time: asked again until then)."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            state = await self.state()
            if condition(state):
                return state
            assert loop.time() < end, f"timed out waiting for {what}: {state['status']}"
            await asyncio.sleep(0.02)

    async def play(self, board: chess.Board, move: chess.Move) -> None:
        """The hand makes ``move`` on the simulated board (captures: the page's API takes the victim)."""
        squares = [move.from_square, move.to_square]
        if board.is_castling(move):
            rank = chess.square_rank(move.from_square)
            kingside = chess.square_file(move.to_square) > chess.square_file(move.from_square)
            squares += [chess.square(7 if kingside else 0, rank), chess.square(5 if kingside else 3, rank)]
        elif board.is_en_passant(move):
            squares.append(chess.square(chess.square_file(move.to_square), chess.square_rank(move.from_square)))
        for sq in squares:
            await self.post("api/sim/click", {"square": chess.square_name(sq)})
        if board.is_en_passant(move):
            await self.post("api/sim/aside")      # the pawn taken, put beside the board

    async def stop(self) -> str:
        await self.http.close()
        if self.proc.returncode is None:
            self.proc.terminate()
        async with asyncio.timeout(15):
            _, err = await self.proc.communicate()
        return err.decode()


@pytest.fixture
async def sims(tmp_path):
    started: list[SimProcess] = []

    async def start(protocol: str) -> SimProcess:
        sim = await SimProcess.start(tmp_path, protocol)
        started.append(sim)
        return sim

    yield start
    for sim in started:
        err = await sim.stop()
        assert "Traceback" not in err, err


def consistent(shown: str, before: chess.Board, after: chess.Board) -> bool:
    """Every piece a report shows is the game's on that square, before or after the move."""
    board = chess.Board(shown + " w - - 0 1")
    return all(board.piece_at(sq) in (before.piece_at(sq), after.piece_at(sq)) for sq in board.piece_map())


def lit_on_page(state: dict) -> set[str]:
    return {chess.SQUARE_NAMES[i] for i, colour in enumerate(state["leds"]) if colour == APP_COLOUR}


def pgn_of(sim: SimProcess, name: str) -> chess.pgn.Game:
    with open(sim.state_dir / "games" / name, encoding="utf-8") as f:
        return chess.pgn.read_game(f)


async def test_an_app_speaking_chesslink_plays_a_whole_game_on_the_simulator(sims):
    sim = await sims("chesslink")
    port = Port(sim.link)
    client = ChessLinkClient(port)
    try:
        client.send("V")
        assert await client.reply("v") == "v010374"
        client.send("W0203")                                 # a report on every change
        assert await client.reply("w") == "w020376"
        client.send("S")
        await client.reply("s")
        board = chess.Board()
        assert client.statuses[-1] == board.board_fen()     # read from h1: the start position, White below
        state = await sim.until(lambda s: s["app"] is not None, "the page to name the app")
        assert said(state["app"]["text"], "en") == f"Playing in {APP} over ChessLink"
        assert said(state["app"]["text"], "fr") == f"Partie jouée dans {APP} via ChessLink"

        for san in GAME_CASTLING.split():
            before = board.copy()
            move = board.parse_san(san)
            board.push(move)
            seen = len(client.statuses)
            await sim.play(before, move)
            await client.status_becomes(board.board_fen())
            assert all(consistent(s, before, board) for s in client.statuses[seen:]), client.statuses[seen:]
            client.send("S")
            assert status_placement((await client.reply("s"))[1:65]) == board.board_fen()
            if len(board.move_stack) == 8:                    # the app shows a move with its LEDs
                client.send(led_frame([chess.E2, chess.E4]))
                await client.reply("l")
                await sim.until(lambda s: lit_on_page(s) == {"e2", "e4"}, "the app's lights on the page")
                client.send("X")
                await client.reply("x")
                await sim.until(lambda s: not lit_on_page(s) and not any(s["leds"]), "the app's lights out")

        state = await sim.until(lambda s: s["over"], "the game to end")
        assert state["termination"] == "checkmate" and state["moves"]["san"] == GAME_CASTLING.split()
        game = pgn_of(sim, state["game_file"])
        assert game.headers["App"] == APP and game.headers["AppProtocol"] == "ChessLink"
    finally:
        port.close()
    # The app goes: the page says nothing more of it, and the board plays on by itself.
    await sim.until(lambda s: s["app"] is None, "the app to be gone from the page")
    await sim.post("api/game/new")
    await sim.until(lambda s: s["started"] and not s["over"] and not s["moves"]["uci"], "a new game")
    board = chess.Board()
    await sim.play(board, chess.Move.from_uci("e2e4"))
    state = await sim.until(lambda s: s["moves"]["uci"] == ["e2e4"], "the board's own move")
    assert "App" not in pgn_of(sim, state["game_file"]).headers


async def test_an_app_speaking_dgt_plays_a_whole_game_on_the_simulator(sims):
    sim = await sims("dgt")
    port = Port(sim.link)
    client = DgtClient(port)
    try:
        client.send(0x40)                                    # reset, as the description's apps begin
        client.send(0x4D)
        await client.reply(0x93)
        assert client.version is not None
        client.send(0x42)
        await client.reply(0x86)
        board = chess.Board()
        assert client.placement == board.board_fen()
        client.send(0x44)                                    # field updates from now on
        state = await sim.until(lambda s: s["app"] is not None, "the page to name the app")
        assert said(state["app"]["text"], "en") == f"Playing in {APP} over DGT"

        for number, san in enumerate(GAME_PROMOTION.split()):
            before = board.copy()
            move = board.parse_san(san)
            board.push(move)
            updates = client.updates
            await sim.play(before, move)
            await client.board_becomes(board.board_fen())   # from the field updates alone
            assert client.updates > updates
            client.send(0x42)
            await client.reply(0x86)
            assert client.placement == board.board_fen()
            if number == 10:                                  # the Revelation II's LEDs show a move
                client.send(0x60, 4, 1, dgt_field(chess.G1), dgt_field(chess.F3), 0)
                await sim.until(lambda s: lit_on_page(s) == {"g1", "f3"}, "the app's lights on the page")
                client.send(0x60, 4, 0, 0x40, 0x40, 0)
                await sim.until(lambda s: not any(s["leds"]), "the app's lights out")

        state = await sim.until(lambda s: s["over"], "the game to end")
        assert state["termination"] == "checkmate" and state["moves"]["san"] == GAME_PROMOTION.split()
        assert pgn_of(sim, state["game_file"]).headers["AppProtocol"] == "DGT"
        # The next game begins while the app is attached: its PGN names the app from the start.
        await sim.post("api/game/new")
        state = await sim.until(lambda s: s["started"] and not s["over"] and s["game_file"] != state["game_file"],
                                "the next game")
        board = chess.Board()
        await sim.play(board, chess.Move.from_uci("d2d4"))
        board.push_uci("d2d4")
        await client.board_becomes(board.board_fen())
        state = await sim.until(lambda s: s["moves"]["uci"] == ["d2d4"], "the move recorded")
        assert pgn_of(sim, state["game_file"]).headers["App"] == APP
    finally:
        port.close()
    await sim.until(lambda s: s["app"] is None, "the app to be gone from the page")
