"""The session's one state shape against docs/state.schema.json: the schema itself, the snapshots of
many session states, and the live state `echiquier sim` serves on GET /api/state and the websocket."""
from __future__ import annotations

import dataclasses
import json
import os
import selectors
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from chess_core import BLACK, WHITE
from firmware.config import OpponentKind
from firmware.referee.gestures import GestureProgress
from firmware.session.state import SCHEMA_VERSION, OpponentState, Takeover, to_json
from firmware.session.game_commands import resign
from tests.firmware.opponents.conftest import client, fake  # noqa: F401 - fixtures: the fake Lichess
from tests.firmware.opponents.test_session_lichess import until
from tests.firmware.session_support import Table
from tests.firmware.test_session_opponent import ScriptedOpponent
from firmware.words.message import English, Message
from tests.said import english

jsonschema = pytest.importorskip("jsonschema")
Draft202012Validator = jsonschema.Draft202012Validator

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "docs" / "state.schema.json").read_text(encoding="utf-8"))
VALIDATOR = Draft202012Validator(SCHEMA, format_checker=Draft202012Validator.FORMAT_CHECKER)
PROMOTING = "8/4P3/8/8/8/8/k7/4K3 w - - 0 1"   # white promotes on e8


def problems(state: dict[str, Any]) -> list[str]:
    """Every way ``state`` breaks the schema, each with where (empty: it conforms)."""
    return [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}"
            for e in sorted(VALIDATOR.iter_errors(state), key=lambda e: list(map(str, e.absolute_path)))]


def served(snapshot: dict[str, Any]) -> dict[str, Any]:
    """A snapshot as the page's server sends it: with its ``seq``, ``sim`` (none on a real board) and
    ``said`` (none before the first announcement)."""
    return {**snapshot, "seq": 1, "sim": None, "said": None}


def assert_conforms(snapshot: dict[str, Any]) -> None:
    found = problems(served(json.loads(json.dumps(snapshot))))
    assert not found, "\n".join(found)


# -- the schema ------------------------------------------------------------------------------------

def test_the_schema_is_a_valid_2020_12_schema_of_version_2():
    Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert SCHEMA["properties"]["schema"] == {**SCHEMA["properties"]["schema"], "const": SCHEMA_VERSION}


def test_the_schema_requires_every_key_it_names_and_refuses_others(tmp_path):
    table = Table(tmp_path)
    table.setup()
    state = served(table.session.snapshot())
    assert not problems(state)
    assert set(SCHEMA["required"]) == set(SCHEMA["properties"]) == set(state)
    renamed = {("claims" if k == "claimable_draws" else k): v for k, v in state.items()}
    assert any("'claimable_draws' is a required property" in p for p in problems(renamed))
    assert any("'claims' was unexpected" in p for p in problems(renamed))
    clocks = {**state, "clocks": {k: v for k, v in state["clocks"].items() if k != "running"}}
    assert any(p.startswith("clocks:") and "'running'" in p for p in problems(clocks))
    assert problems({**state, "turn": "White"}) and problems({**state, "schema": 1})
    assert problems({**state, "opponent": {**state["opponent"], "link_detail": None}})
    assert problems({**state, "leds": state["leds"][:63]}) and problems({**state, "last_move": ["e2", "e4"]})


# -- the snapshots of the session's states ------------------------------------------------------------

def test_a_board_being_set_up_conforms(tmp_path):
    table = Table(tmp_path)
    table.wait(0.5)                     # an empty board: waiting for the pieces
    snap = table.session.snapshot()
    assert not snap["started"] and snap["schema"] == SCHEMA_VERSION
    assert_conforms(snap)


def test_a_position_set_up_by_hand_and_a_training_conform(tmp_path):
    from firmware.training.drill import of_puzzle
    from tests.firmware.test_session_setup import follow
    table = Table(tmp_path)
    table.setup()
    table.session.trainer.start((of_puzzle("m1", "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", ("a1a8",), rating=900,
                                           themes=("mateIn1",)),), "Ada", {}, table.t)
    snap = table.session.snapshot()
    assert snap["setup"]["steps"] and snap["training"]["verdict"] is None
    assert_conforms(snap)
    follow(table)
    table.play("h2h3")
    assert_conforms(table.session.snapshot())
    table.lift("h3")
    table.place("h2")
    table.play("a1a8")
    snap = table.session.snapshot()
    assert snap["training"]["over"] and snap["setup"]["done"] and snap["training"]["rating"] is not None
    assert_conforms(snap)


def test_a_game_being_played_with_a_clock_a_lifted_piece_and_an_illegal_board_conforms(tmp_path):
    table = Table(tmp_path, time_control="300+3")
    table.setup()
    table.play_all("e2e4 e7e5 g1f3")
    snap = table.session.snapshot()
    assert snap["clocks"]["running"] == "black" and snap["last_move"] == "g1f3"
    assert_conforms(snap)
    table.lift("b8")
    snap = table.session.snapshot()
    assert snap["lifted"] == ["b8"]
    assert_conforms(snap)
    table.place("b5")                   # not a knight's move
    snap = table.session.snapshot()
    assert snap["wrong"] and snap["problems"] and english(snap)["status"].startswith("Not a legal move")
    assert_conforms(snap)


def test_a_promotion_open_to_a_choice_and_a_game_over_conform(tmp_path):
    table = Table(tmp_path, fen=PROMOTING)
    table.setup(PROMOTING)
    table.lift("e7")
    assert table.session.snapshot()["promotion"] == {"square": None, "piece": "q", "color": "white"}
    assert_conforms(table.session.snapshot())
    table.place("e8")
    table.wait(0.5)
    snap = table.session.snapshot()
    assert snap["promotion"] == {"square": "e8", "piece": "q", "color": "white"}
    assert_conforms(snap)
    resign(table.session, "black", table.t)
    snap = table.session.snapshot()
    assert snap["over"] and snap["result"] == "1-0" and snap["termination"] == "resignation"
    assert english(snap)["ending"] == "White wins by resignation" and snap["winner"] == "white"
    assert_conforms(snap)


async def test_a_game_against_an_opponent_off_the_board_conforms(tmp_path):
    table = Table(tmp_path)
    opponent = ScriptedOpponent({"e2e4": "e7e5"})
    await table.session.start_opponent(opponent)
    table.setup()
    try:
        table.play("e2e4")
        opponent.reply()
        snap = table.session.snapshot()
        assert snap["expected_move"] == "e7e5" and snap["opponent"]["kind"] == "engine"
        assert snap["opponent"]["name"] == "Script" and english(snap)["opponent"]["text"].startswith("Script")
        assert_conforms(snap)
    finally:
        await table.session.aclose()


async def test_an_online_game_conforms(tmp_path, fake, client):  # noqa: F811 - the fixtures imported above
    from firmware.opponents.lichess.opponent import LichessOpponent
    table = Table(tmp_path)
    opponent = LichessOpponent(client)
    await table.session.start_opponent(opponent)
    table.setup()
    try:
        game_id = fake.start_game("Bobby", color=BLACK).id
        await until(lambda: table.session.seat.online_sync is not None and len(table.session.game.moves) == 1)
        fake.chat(game_id, "good luck!")
        await until(lambda: table.session.snapshot()["online"]["chat"] != [])
        snap = table.session.snapshot()
        assert snap["opponent"]["kind"] == "lichess" and snap["opponent"]["link"]["state"] == "connected"
        assert snap["online"]["orientation"] == "black" and snap["lichess"]["game"] == game_id
        assert snap["online"]["chat"] == [{"user": "Mary", "text": "good luck!"}]
        assert_conforms(snap)
        assert_conforms(to_json(table.session.state()))
    finally:
        await table.session.aclose()


def test_the_rarer_parts_conform_a_take_over_a_player_gone_a_gesture(tmp_path):
    """The opponent's and the gesture's other shapes, set on a state (no engine or server needed)."""
    table = Table(tmp_path)
    table.setup()
    table.play("e2e4")
    state = table.session.state()
    opponent = OpponentState(kind=OpponentKind.LICHESS, name="Mary", sides=frozenset({WHITE}), link="reconnecting",
                             link_detail="HTTP 502", assistance_allowed=False,
                             takeovers=(Takeover(BLACK, "Bob", "Stockfish 16", 4, "Bob (Stockfish 16 from move 4)"),),
                             away=True, claim_win_in_seconds=12, lichess_token=True, account="bobby",
                             online_game="abcd1234")
    rare = dataclasses.replace(state, opponent=opponent, gesture=GestureProgress("draw", "1/2-1/2", 0, False, 1.5, 3.0),
                               draw_offer=WHITE, takeback_offer=BLACK, touched=12,
                               chat=(("Mary", "hi"),), notice=Message.of("offer_declined", who="Mary"), first_move_ms=25_000,
                               leds_problem=Message.of("leds_off", detail=English("no LED library")),
                               save_problem=Message.of("cannot_save", error=English("the disk is full")))
    snap = to_json(rare)
    assert snap["opponent"]["takeover"]["black"]["tag"] == "Bob (Stockfish 16 from move 4)"
    assert snap["opponent"]["away"] == {"claim_win_in_seconds": 12} and snap["opponent"]["link"]["state"] == "reconnecting"
    assert snap["gesture"]["kind"] == "draw" and snap["online"]["orientation"] == "black"
    assert_conforms(snap)


# -- the live state of `echiquier sim` --------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class WebSocket:
    """A small websocket client over wsproto: connects to ``/ws``, reads the JSON messages."""

    def __init__(self, port: int) -> None:
        from wsproto import ConnectionType, WSConnection
        from wsproto.events import Request
        self.events = __import__("wsproto.events", fromlist=["events"])
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.ws = WSConnection(ConnectionType.CLIENT)
        self.sock.sendall(self.ws.send(Request(host=f"127.0.0.1:{port}", target="/ws")))
        self.text = ""

    def message(self) -> dict[str, Any]:
        """The next whole text message, as JSON."""
        ev = self.events
        while True:
            for event in self.ws.events():
                if isinstance(event, ev.TextMessage):
                    self.text += event.data
                    if event.message_finished:
                        text, self.text = self.text, ""
                        return json.loads(text)
                elif isinstance(event, ev.Ping):
                    self.sock.sendall(self.ws.send(event.response()))
                elif isinstance(event, (ev.CloseConnection, ev.RejectConnection)):
                    raise AssertionError(f"the websocket closed: {event}")
            data = self.sock.recv(65536)
            if not data:
                raise AssertionError("the websocket's connection ended")
            self.ws.receive_data(data)

    def state_where(self, condition, timeout: float = 10.0) -> dict[str, Any]:
        """The first state message whose state meets ``condition``."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            message = self.message()
            if message.get("type") == "state" and condition(message["state"]):
                return message["state"]
        raise AssertionError("no such state within the time")

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def sim(tmp_path):
    pytest.importorskip("wsproto")
    port = free_port()
    cmd = [sys.executable, "-m", "firmware.cli", "sim", "--port", str(port), "--state-dir", str(tmp_path / "state")]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        with selectors.DefaultSelector() as waiting:
            waiting.register(proc.stdout, selectors.EVENT_READ)
            line = proc.stdout.readline() if waiting.select(timeout=60) else ""
        if "http://" not in line:
            proc.kill()
            _, err = proc.communicate(timeout=10)
            raise AssertionError(f"echiquier sim did not start: {line!r} {err}")
        yield f"http://127.0.0.1:{port}", port
    finally:
        proc.terminate()
        try:
            proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()


def get_state(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url + "/api/state", timeout=10) as response:
        return json.loads(response.read())


def post(url: str, path: str, body: dict[str, Any]) -> None:
    request = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        assert json.loads(response.read())["ok"]


def test_the_live_state_of_echiquier_sim_conforms_before_and_after_a_move(sim):
    url, port = sim
    before = get_state(url)
    assert not problems(before), "\n".join(problems(before))
    assert before["schema"] == SCHEMA_VERSION and before["sim"] is not None and before["moves"]["uci"] == []
    ws = WebSocket(port)
    try:
        hello = ws.message()
        assert hello["type"] == "hello"
        pushed = ws.state_where(lambda s: s["started"])   # (the pieces stand: the game has begun)
        assert not problems(pushed), "\n".join(problems(pushed))
        post(url, "/api/sim/lift", {"square": "e2"})
        post(url, "/api/sim/place", {"square": "e4"})
        after = ws.state_where(lambda s: s["moves"]["uci"] == ["e2e4"] and not s["lifted"])
        assert not problems(after), "\n".join(problems(after))
        assert after["last_move"] == "e2e4" and after["turn"] == "black" and after["moves"]["san"] == ["e4"]
    finally:
        ws.close()
    got = get_state(url)
    assert not problems(got), "\n".join(problems(got))
    assert got["moves"]["uci"] == ["e2e4"] and got["seq"] >= after["seq"]


def test_no_key_of_the_state_is_a_language_of_its_own():
    """Issue 34: the state carries messages, not sentences by language: no key ends in _fr (or
    names another language), and a third language changes no key."""
    def keys(node: Any) -> set[str]:
        if isinstance(node, dict):
            return set(node.get("properties", {})) | {k for value in node.values() for k in keys(value)}
        if isinstance(node, list):
            return {k for value in node for k in keys(value)}
        return set()
    from firmware.words import LANGS
    assert not [key for key in keys(SCHEMA) if any(key.endswith(f"_{lang}") for lang in LANGS)]
