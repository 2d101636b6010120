"""Pairings from the hub to the boards, the ACL that keeps each board to its topics, hostile messages."""
from __future__ import annotations

import asyncio
import json
import logging
import threading

import paho.mqtt.client as mqtt
import pytest

from firmware.session.commands import SessionError
from firmware.session.game_commands import offer_draw, set_round
from tests.firmware.session_support import Table

from .mosquitto import CLUB
from .support import SCHOLAR, get_text, publisher_for, read_games, start_hub, stop_hub, uci_moves, until
from tests.said import english


async def test_the_hub_names_the_players_and_sets_the_round_on_the_board(broker, tmp_path):
    pairings = tmp_path / "round3.csv"
    pairings.write_text("board,white,black,round\n1,Ada Lovelace,Bobby F,3\n2,Cy,Di,3\n")
    app, task = await start_hub(broker, tmp_path / "hub", pairings=pairings,
                                rules={"time_control": "600+5", "draw_offers_from_move": 20, "event": "Club night"})
    table = Table(tmp_path / "b1")
    named = asyncio.Event()
    table.session.subscribe(lambda state: state.names[0] == "Ada Lovelace" and named.set())
    publisher = publisher_for(broker, table, "1")
    loop = asyncio.get_running_loop()
    try:
        async with asyncio.timeout(10):
            await named.wait()
        assert app.hub.round == "3"
        table.setup()
        table.play_all("e2e4 e7e5")
        with pytest.raises(SessionError, match="from move 20 on .this is move 2."):
            offer_draw(table.session, 0)
        table.play_all(" ".join(SCHOLAR[2:]))
        await until(app.hub, lambda: "1" in app.hub.boards and app.hub.boards["1"].over)
        pgn = next((table.tmp_path / "state" / "games").glob("*.pgn")).read_text()
        (own,) = read_games(pgn)
        assert (own.headers["White"], own.headers["Black"], own.headers["Round"]) == ("Ada Lovelace", "Bobby F", "3")
        assert own.headers["TimeControl"] == "600+5" and own.headers["Event"] == "Club night"
        (game,) = read_games((await get_text(app, "/round.pgn"))[1])
        assert (game.headers["White"], game.headers["Round"], game.headers["Event"]) == ("Ada Lovelace", "3", "Club night")
        assert (await get_text(app, "/round/3.pgn"))[1] == (await get_text(app, "/round.pgn"))[1]
        assert (await get_text(app, "/round/4.pgn"))[0] == 404
        assert uci_moves(game) == SCHOLAR
        # the page shows board 2 from the pairing before its board has said anything
        assert app.hub.board_view("2")["white"] == "Cy"
    finally:
        await loop.run_in_executor(None, publisher.stop)
        await stop_hub(app, task)


async def test_an_edited_pairing_file_reaches_the_boards(broker, tmp_path):
    pairings = tmp_path / "pairings.csv"
    pairings.write_text("1,Ada,Bo,1\n")
    app, task = await start_hub(broker, tmp_path / "hub", pairings=pairings, pairings_check_s=0.05)
    table = Table(tmp_path / "b1")
    names: list[tuple[str, str]] = []
    changed = asyncio.Event()

    def seen(state):
        pair = state.names
        if not names or names[-1] != pair:
            names.append(pair)
            changed.set()
    table.session.subscribe(seen)
    publisher = publisher_for(broker, table, "1")
    try:
        async with asyncio.timeout(10):
            while ("Ada", "Bo") not in names:
                changed.clear()
                await changed.wait()
            pairings.write_text("board,white,black,round\n1,Cy,Di,2\n")
            while ("Cy", "Di") not in names:
                changed.clear()
                await changed.wait()
        await until(app.hub, lambda: app.hub.board_view("1")["white"] == "Cy")   # the board's own word
        assert app.hub.round == "2"    # the file's round: /round.pgn is round 2's from now on
    finally:
        await asyncio.get_running_loop().run_in_executor(None, publisher.stop)
        await stop_hub(app, task)


def test_a_pairing_mid_game_renames_the_players_and_keeps_the_moves(tmp_path):
    table = Table(tmp_path, time_control="300")
    table.setup()
    table.play_all("e2e4 e7e5")
    set_round(table.session, "Ada", "Bo", time_control="600+5", round="2")
    snap = english(table.session.snapshot())
    assert snap["players"] == {"white": "Ada", "black": "Bo"} and snap["moves"]["uci"] == ["e2e4", "e7e5"]
    assert snap["time_control"] == "300"        # the game in progress keeps its clock
    assert table.session.config.game.time_control == "600+5"   # the next game has the round's
    with pytest.raises(SessionError, match="time control"):
        set_round(table.session, "Ada", "Bo", time_control="five minutes")


def test_draw_offers_from_move_n_is_also_a_board_setting_and_the_gesture_says_why(tmp_path):
    table = Table(tmp_path, draw_offers_from_move=3)
    table.setup()
    table.play_all("e2e4 e7e5")
    with pytest.raises(SessionError, match="allowed from move 3 on"):
        offer_draw(table.session, 0)
    table.play_all("g1f3 b8c6")
    offer_draw(table.session, 0)     # move 3: allowed
    assert table.session.snapshot()["draw_offer"] == "white"


# -- the broker's ACL --------------------------------------------------------------------------------

class Raw:
    """A plain paho client logged in as ``user``; ``got`` collects (topic, payload)."""

    def __init__(self, broker, user, password=None):
        self.got: list[tuple[str, bytes]] = []
        self.arrived = threading.Condition()
        self.refused = threading.Event()
        self.ready = threading.Event()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"raw-{user}-{id(self)}")
        if user is not None:
            self.client.username_pw_set(user, password if password is not None else broker.files.users[user])

        def on_connect(client, userdata, flags, reason_code, properties):
            (self.refused if reason_code.is_failure else self.ready).set()

        def on_message(client, userdata, message):
            with self.arrived:
                self.got.append((message.topic, bytes(message.payload)))
                self.arrived.notify_all()
        self.client.on_connect, self.client.on_message = on_connect, on_message
        self.client.connect("127.0.0.1", broker.port)
        self.client.loop_start()

    def wait_for(self, predicate, timeout=10.0) -> bool:
        with self.arrived:
            return self.arrived.wait_for(lambda: predicate(self.got), timeout)

    def subscribe(self, topic):
        done = threading.Event()
        self.client.on_subscribe = lambda *a: done.set()
        self.client.subscribe(topic, qos=1)
        assert done.wait(10)

    def publish(self, topic, payload, retain=False):
        self.client.publish(topic, payload, qos=1, retain=retain).wait_for_publish(10)

    def close(self):
        self.client.disconnect()
        self.client.loop_stop()


def topic(board, leaf):
    return f"echiquier/{CLUB}/board/{board}/{leaf}"


def test_the_acl_keeps_each_board_to_its_own_topics_and_the_hub_to_the_pairings(broker):
    anonymous = Raw(broker, None)
    wrong = Raw(broker, "3", "not the password")
    hub = Raw(broker, "hub")
    board3 = Raw(broker, "3")
    board4 = Raw(broker, "4")
    clients = (anonymous, wrong, hub, board3, board4)
    try:
        assert anonymous.refused.wait(10) and wrong.refused.wait(10)
        for c in (hub, board3, board4):
            assert c.ready.wait(10)
        hub.subscribe(f"echiquier/{CLUB}/board/+/#")
        board3.subscribe(f"echiquier/{CLUB}/board/#")   # granted, but it reads only its pairing
        board4.subscribe(topic(4, "pairing"))
        board3.publish(topic(4, "game"), b'{"forged": 1}')           # another board's game: denied
        board3.publish(topic(3, "pairing"), b'{"white": "me"}')      # its own pairing: denied
        board3.publish(topic(3, "status"), b"online")                 # its own topics: allowed
        board3.publish(topic(3, "game"), b'{"mine": 1}')
        hub.publish(topic(1, "game"), b'{"hub": 1}')                   # the hub writes no game
        hub.publish(topic(3, "pairing"), b'{"white": "Ada"}')          # but the pairings
        hub.publish(topic(4, "pairing"), b'{"white": "Bo"}')
        assert hub.wait_for(lambda got: (topic(3, "game"), b'{"mine": 1}') in got)
        assert board3.wait_for(lambda got: (topic(3, "pairing"), b'{"white": "Ada"}') in got)
        assert board4.wait_for(lambda got: (topic(4, "pairing"), b'{"white": "Bo"}') in got)
        # fence: one more message from each writer, then nothing forged may have arrived
        board3.publish(topic(3, "game"), b'{"fence": 1}')
        assert hub.wait_for(lambda got: (topic(3, "game"), b'{"fence": 1}') in got)
        assert [t for t, _ in hub.got if t in (topic(4, "game"), topic(1, "game"))] == []
        assert all(t == topic(3, "pairing") for t, _ in board3.got)
        assert [p for t, p in board3.got] == [b'{"white": "Ada"}']
        assert [p for t, p in board4.got] == [b'{"white": "Bo"}']
    finally:
        for c in clients:
            c.close()


async def test_hostile_messages_are_dropped_with_a_log_line_and_the_round_stays_whole(broker, tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="hub")
    app, task = await start_hub(broker, tmp_path / "hub")
    loop = asyncio.get_running_loop()
    board = await loop.run_in_executor(None, Raw, broker, "1")
    good = {"v": 1, "board": "1", "game": "2026-12-01_1900_A-vs-B.pgn", "sent": 1.0, "white": "A", "black": "B",
            "moves": SCHOLAR[:4], "clocks": [], "result": "*", "round": "-"}
    hostile = [
        b"\xff\xfe not json",
        b"[1, 2, 3]",
        json.dumps({**good, "v": 99}).encode(),
        json.dumps({**good, "board": "2"}).encode(),                         # another board's name
        json.dumps({**good, "moves": SCHOLAR[:4] + ["e1e8"]}).encode(),      # an illegal move
        json.dumps({**good, "white": 'A"]\n[Result "0-1'}).encode(),         # a tag break-out
        json.dumps({**good, "result": "0-1", "termination": "checkmate"}).encode(),   # not a mate
        json.dumps({**good, "moves": ["e2e4"] * 5000}).encode(),             # far too big
        json.dumps({**good, "game": "../../etc/passwd"}).encode(),
        json.dumps({**good, "clocks": [-5]}).encode(),
        json.dumps({**good, "sent": 2.0, "time_control": "$(rm -rf)"}).encode(),
    ]
    try:
        assert board.ready.wait(10), ("refused" if board.refused.is_set() else "no answer")
        board.publish(topic(1, "game"), json.dumps(good).encode(), retain=True)   # as boards do: the hub
        await until(app.hub, lambda: "1" in app.hub.boards)                     # may not have subscribed yet
        for payload in hostile:
            await loop.run_in_executor(None, board.publish, topic(1, "game"), payload)
        fence = {**good, "moves": SCHOLAR, "sent": 3.0, "result": "1-0", "termination": "checkmate"}
        board.publish(topic(1, "game"), json.dumps(fence).encode())
        await until(app.hub, lambda: app.hub.boards["1"].over)
        assert app.hub.dropped == len(hostile)
        dropped = [r.getMessage() for r in caplog.records if "message dropped" in r.getMessage()]
        assert len(dropped) == len(hostile) and all(m.startswith("board 1: message dropped: ") for m in dropped)
        (game,) = read_games((await get_text(app, "/round.pgn"))[1])
        assert uci_moves(game) == SCHOLAR and game.headers["White"] == "A" and game.headers["Result"] == "1-0"
        assert app.hub.store.flush(10)
        assert sorted(p.name for p in (tmp_path / "hub" / "games").rglob("*.json")) == [good["game"] + ".json"]
    finally:
        await loop.run_in_executor(None, board.close)
        await stop_hub(app, task)
