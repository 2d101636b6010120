"""A blind game: a whole game against real Stockfish on `echiquier sim --voice-out`, the player learning the engine's moves only from what the board says.

The player plays White with the simulator's hand (the page's clicks); it never reads the
board's state for the engine's moves: it waits for a new line of the voice's index.jsonl
saying "Stockfish joue fou c4, à vous de le jouer sur l'échiquier", reads the words back into a
move on its own board (tests/firmware/voice/hearing.py, which knows only the words), and
carries it out. At the end the game the board recorded must be the one the player heard and
played, and every utterance a WAV file of speech, in order, a move's under 3 s.
"""
from __future__ import annotations

import asyncio
import json
import os
import random
import re
import shutil
import sys
import wave
from array import array
from pathlib import Path

import aiohttp
import pytest

from chess_core import WHITE, Move, Position, QUEEN
from chess_core.squares import SQUARE_NAMES
from firmware.voice.speaker import read_index

from .hearing import heard_move, heard_opponent

ECHIQUIER = Path(sys.executable).with_name("echiquier")
STOCKFISH = "/usr/games/stockfish"
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not os.access(STOCKFISH, os.X_OK), reason="needs /usr/games/stockfish"),
              pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="needs espeak-ng")]

MAX_PLIES = 240
ENDINGS = {"fr": re.compile(r"échec et mat|pat\b|nulle|gagnent"), "en": re.compile(r"checkmate|stalemate|draw|wins")}
ROOK_OF_CASTLING = {"g1": ("h1", "f1"), "c1": ("a1", "d1"), "g8": ("h8", "f8"), "c8": ("a8", "d8")}


class Hand:
    """The player's hand over the simulated board: the page's clicks, as a player makes a move."""

    def __init__(self, http: aiohttp.ClientSession, port: int) -> None:
        self.http, self.base = http, f"http://127.0.0.1:{port}"

    async def post(self, path: str, body: dict) -> dict:
        async with self.http.post(self.base + path, json=body) as answer:
            text = await answer.text()
            assert answer.status == 200, (path, body, text)
            return json.loads(text)

    async def click(self, square: str) -> None:
        await self.post("/api/sim/click", {"square": square})

    async def make(self, position: Position, move: Move) -> None:
        frm, to = SQUARE_NAMES[move.from_square], SQUARE_NAMES[move.to_square]
        if position.is_castling(move):
            await self.click(frm)
            await self.click(to)
            rook_from, rook_to = ROOK_OF_CASTLING[to]
            await self.click(rook_from)
            await self.click(rook_to)
        elif position.is_en_passant(move):
            victim = SQUARE_NAMES[move.to_square - 8 if position.turn == WHITE else move.to_square + 8]
            await self.post("/api/sim/lift", {"square": victim})
            await self.post("/api/sim/aside", {})
            await self.click(frm)
            await self.click(to)
        else:
            await self.click(frm)
            await self.click(to)   # (the hand takes a piece there first: a capture)

    async def moves_committed(self) -> int:
        async with self.http.get(self.base + "/api/state") as answer:
            return len((await answer.json())["moves"]["uci"])

    async def state(self) -> dict:
        async with self.http.get(self.base + "/api/state") as answer:
            return await answer.json()


async def until(predicate, what: str, timeout: float = 60.0):
    """Poll ``predicate`` (a coroutine function) until it returns something true."""
    async with asyncio.timeout(timeout):
        while True:
            found = await predicate()
            if found:
                return found
            await asyncio.sleep(0.02)
    raise AssertionError(what)


def choose(position: Position, rng: random.Random) -> Move:
    """A player's move: a mate or a capture when it sees one, queen promotions, else anything."""
    moves = sorted((m for m in position.legal_moves() if m.promotion in (None, QUEEN)), key=Move.uci)
    for move in moves:
        position.push(move)
        mate = position.is_checkmate()
        position.pop()
        if mate:
            return move
    captures = [m for m in moves if position.is_capture(m)]
    return rng.choice(captures if captures and rng.random() < 0.7 else moves)


def wav_facts(path: Path) -> tuple[float, int]:
    """(seconds, peak sample) of a WAV file espeak-ng wrote."""
    with wave.open(str(path)) as w:
        samples = array("h", w.readframes(w.getnframes()))
        return w.getnframes() / w.getframerate(), max((abs(s) for s in samples), default=0)


async def play_blind(tmp_path: Path, lang: str, seed: int) -> None:
    config = tmp_path / "board.toml"
    config.write_text("[engine]\nmove_time = 0.1\nlevel = 3\n")
    out = tmp_path / "voice"
    sim = await asyncio.create_subprocess_exec(
        str(ECHIQUIER), "sim", "--port", "0", "--state-dir", str(tmp_path / "state"), "--config", str(config),
        "--opponent", "engine", "--engine-side", "black", "--voice", lang, "--voice-out", str(out),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    try:
        line = await asyncio.wait_for(sim.stdout.readline(), 60)
        found = re.search(rb"http://127\.0\.0\.1:(\d+)/", line)
        assert found, line + await sim.stderr.read(4000)
        async with aiohttp.ClientSession() as http:
            hand = Hand(http, int(found.group(1)))
            played = await game(hand, out, lang, random.Random(seed))
            state = await hand.state()
        sim.terminate()
        assert await asyncio.wait_for(sim.wait(), 30) == 0
    finally:
        if sim.returncode is None:
            sim.kill()
            await sim.wait()
    assert state["over"] and state["moves"]["uci"] == [m.uci() for m in played]
    check_the_recording(out, lang, state)


async def game(hand: Hand, out: Path, lang: str, rng: random.Random) -> list[Move]:
    """Plays White until the game is over; returns the moves as the player knows them."""
    position = Position()
    played: list[Move] = []
    heard = 0   # index lines read so far
    await until(lambda: _started(hand), "the game begun (the start position held)")   # as a player waits for the board
    while len(played) < MAX_PLIES:
        move = choose(position, rng)
        await hand.make(position, move)
        position.push(move)
        played.append(move)
        if not position.legal_moves():
            break   # the player's own move ended it (mate or stalemate)

        async def the_engines_move():
            entries = read_index(out)[heard:]
            for i, entry in enumerate(entries):
                said = heard_opponent(entry["text"], lang)
                if said is not None or "ending" in entry["kinds"] or ENDINGS[lang].search(entry["text"]):
                    return heard + i + 1, said   # (the engine's move, or the end the player's move brought)
            return None
        heard, said = await until(the_engines_move, f"the engine's move after {move.uci()}")
        if said is None:
            break
        who, words = said
        assert who.startswith("Stockfish")
        reply, _ = heard_move(position, words, lang)
        await hand.make(position, reply)
        position.push(reply)
        played.append(reply)
        await until(lambda: _committed(hand, len(played)), f"{reply.uci()} carried out")
        if not position.legal_moves() or ENDINGS[lang].search(read_index(out)[-1]["text"]):
            break
    return played


async def _started(hand: Hand) -> bool:
    return bool((await hand.state())["started"])


async def _committed(hand: Hand, count: int) -> bool:
    return await hand.moves_committed() >= count


def check_the_recording(out: Path, lang: str, state: dict) -> None:
    index = read_index(out)
    files = sorted(p.name for p in out.glob("*.wav"))
    assert [e["file"] for e in index] == files == [f"{n:04d}.wav" for n in range(1, len(index) + 1)]
    assert [e["n"] for e in index] == list(range(1, len(index) + 1))
    engine_moves = [e for e in index if "opponent" in e["kinds"]]
    assert len(engine_moves) == len(state["moves"]["uci"]) // 2   # each said once
    moves_said = [e for e in index if e["kinds"] == ["move"]]
    assert len(moves_said) >= len(state["moves"]["uci"]) // 2 - 1   # the player's own, said back
    for entry in index:
        seconds, peak = wav_facts(out / entry["file"])
        assert peak > 3000, entry    # speech, never silence
        if entry["kinds"] == ["move"]:
            assert seconds < 3, entry
    assert ENDINGS[lang].search(index[-1]["text"]), index[-1]


async def test_a_blind_game_in_french_against_stockfish(tmp_path):
    await play_blind(tmp_path, "fr", seed=1)


async def test_a_blind_game_in_english_against_stockfish(tmp_path):
    await play_blind(tmp_path, "en", seed=2)
