"""The board's publisher never stands between a move and the LEDs or the PGN."""
from __future__ import annotations

import threading

import chess.pgn

from firmware.club.publisher import BoardPublisher
from club_wire.topics import Broker
from tests.firmware.session_support import Table

from .support import RUY


def test_a_hung_network_never_holds_up_a_move_and_the_move_is_shown_and_saved_first(tmp_path):
    table = Table(tmp_path)
    publisher = BoardPublisher(Broker.parse("mqtt://127.0.0.1:1"), "c", "1")
    release = threading.Event()
    handed: list[int] = []

    def hung_publish(*args, **kwargs):   # the network: stuck until released
        handed.append(1)
        release.wait(30)
        raise OSError("gave up")
    publisher.client.publish = hung_publish
    publisher._connected.set()           # as if connected: the thread will try, and hang
    publisher._thread = threading.Thread(target=publisher._run, daemon=True)
    publisher._thread.start()
    seen_at_call: list[tuple[int, int, bool]] = []

    def watched(state):
        pgn = next((tmp_path / "state" / "games").glob("*.pgn"), None)
        saved = len(list(chess.pgn.read_game(open(pgn)).mainline_moves())) if pgn else 0
        shown = table.leds.last == table.session.leds_frame
        seen_at_call.append((saved, len(state.moves), shown))
        publisher.on_state(state)
    table.session.subscribe(watched)
    try:
        table.setup()
        table.play_all(" ".join(RUY))
        assert handed, "the publisher's thread did try the network"
        game = chess.pgn.read_game(open(next((tmp_path / "state" / "games").glob("*.pgn"))))
        assert [m.uci() for m in game.mainline_moves()] == RUY
        # every snapshot handed over came after the LEDs showed it and the PGN had the move
        assert all(saved == made and shown for saved, made, shown in seen_at_call if made)
        assert max(made for _, made, _ in seen_at_call) == len(RUY)
        assert [m.uci() for m in publisher._latest[0].moves] == RUY    # the latest state waits for the network
    finally:
        release.set()
        publisher._stopping = True
        publisher._wake.set()
        publisher._thread.join(10)


def test_a_board_without_its_broker_says_so_once_and_plays_on(tmp_path, caplog):
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]          # nothing listens there
    table = Table(tmp_path)
    publisher = BoardPublisher(Broker.parse(f"mqtt://127.0.0.1:{port}"), "c", "1")
    table.session.subscribe(publisher.on_state)
    failed = threading.Event()
    publisher.client.on_connect_fail = lambda *a: (BoardPublisher._on_connect_fail(publisher, *a), failed.set())
    publisher.start()
    try:
        assert failed.wait(10)
        table.setup()
        table.play_all(" ".join(RUY[:6]))
        game = chess.pgn.read_game(open(next((tmp_path / "state" / "games").glob("*.pgn"))))
        assert [m.uci() for m in game.mainline_moves()] == RUY[:6]
        warned = [r.getMessage() for r in caplog.records if "cannot reach the broker" in r.getMessage()]
        assert warned == [f"board 1 cannot reach the broker mqtt://127.0.0.1:{port}: playing on, trying again"]
    finally:
        publisher.stop()
