"""An opponent off the board (engine, Lichess), played by a scripted fake: its moves on the LEDs."""
from __future__ import annotations

import asyncio

import pytest

from chess_core import BLACK, WHITE, Move, Outcome, Termination, parse_square
from firmware.opponents.base import GameEnd, GameSync, Offer, OfferKind, Opponent, Player, ServerClock
from firmware.referee.feedback import LedStyle
from firmware.session.game_commands import accept_draw, resign

from .session_support import Table
from tests.said import english, french


@pytest.fixture(autouse=True)
async def no_task_left_behind():
    """Fail a test that leaves a task running (aioesphomeapi's habit)."""
    yield
    current = asyncio.current_task()
    left = [t for t in asyncio.all_tasks() if t is not current and not t.done()]
    assert not left, f"tasks left behind: {left}"

STYLE = LedStyle()


class ScriptedOpponent(Opponent):
    """Plays Black from a script: after each local move it has the reply ready; ``reply()`` sends it."""

    name = "Script"
    assistance_allowed = True

    def __init__(self, replies: dict[str, str]) -> None:
        self.replies = replies
        self.listener = None
        self.received: list[str] = []
        self.resets: list[tuple[str, list[str]]] = []
        self.actions: list[str] = []
        self.ready: list[str] = []
        self.stopped = False

    async def start(self, listener) -> None:
        self.listener = listener

    def on_move(self, move: Move) -> None:
        self.received.append(move.uci())
        if move.uci() in self.replies:
            self.ready.append(self.replies[move.uci()])

    def on_reset(self, start_fen: str, moves) -> None:
        self.resets.append((start_fen, [m.uci() for m in moves]))

    async def act(self, action) -> None:
        self.actions.append(action.name)

    async def stop(self) -> None:
        self.stopped = True

    def reply(self) -> None:
        self.listener.opponent_move(Move.from_uci(self.ready.pop(0)))




async def _table(tmp_path, replies):
    table = Table(tmp_path)
    opponent = ScriptedOpponent(replies)
    await table.session.start_opponent(opponent)
    table.setup()
    return table, opponent


async def test_the_opponents_move_is_shown_and_waited_for(tmp_path):
    table, opponent = await _table(tmp_path, {"e2e4": "e7e5", "g1f3": "b8c6"})
    table.play("e2e4")
    assert opponent.received == ["e2e4"]
    opponent.reply()
    snap = english(table.session.snapshot())
    assert snap["expected_move"] == "e7e5"
    assert snap["status"] == "Black to move: Black plays e5, make it on the board"
    assert french(table.session.snapshot())["status"] == "Trait aux Noirs : Black joue e5, jouez-le sur l'échiquier"
    assert table.lit_names(STYLE.opponent, blink_on=True) == {"e7", "e5"}
    table.play("e7e5")
    assert [m.uci() for m in table.session.game.moves] == ["e2e4", "e7e5"]
    assert opponent.received == ["e2e4", "e7e5"]  # its own move too, once carried out
    assert table.session.snapshot()["expected_move"] is None
    table.play("g1f3")
    opponent.reply()
    table.play("b8c6")
    assert table.session.snapshot()["moves"]["san"] == ["e4", "e5", "Nf3", "Nc6"]
    await table.session.aclose()
    assert opponent.stopped


async def test_a_wrong_execution_of_the_opponents_move_is_pointed_out(tmp_path):
    table, opponent = await _table(tmp_path, {"e2e4": "e7e5"})
    table.play("e2e4")
    opponent.reply()
    table.lift("e7")
    table.place("f6")
    snap = english(table.session.snapshot())
    assert snap["wrong"] and snap["moves"]["uci"] == ["e2e4"]
    table.lift("f6")
    table.place("e5")
    assert [m.uci() for m in table.session.game.moves] == ["e2e4", "e7e5"]
    await table.session.aclose()


async def test_decisions_are_carried_to_the_opponent(tmp_path):
    table, opponent = await _table(tmp_path, {})
    table.play("e2e4")
    resign(table.session, WHITE)
    await table.session.aclose()
    assert opponent.actions == ["RESIGN"]


async def test_a_draw_offered_by_the_opponent_is_accepted_on_the_companion(tmp_path):
    table, opponent = await _table(tmp_path, {})
    table.play("e2e4")
    opponent.listener.offer(Offer(OfferKind.DRAW, BLACK))
    assert table.session.snapshot()["draw_offer"] == "black"
    assert table.lit_names(STYLE.draw) == {"e1", "e8"}
    accept_draw(table.session, WHITE)
    await table.session.aclose()
    assert english(table.session.snapshot())["status"] == "Draw by agreement"
    assert opponent.actions == ["ACCEPT_DRAW"]


async def test_the_game_ended_at_the_other_end(tmp_path):
    table, opponent = await _table(tmp_path, {})
    table.play("e2e4")
    opponent.listener.game_over(GameEnd("resign", Outcome(Termination.RESIGNATION, WHITE)))
    assert english(table.session.snapshot())["status"] == "White wins by resignation"
    assert table.session.file.recorder.load().is_over
    await table.session.aclose()


async def test_a_new_game_tells_the_opponent(tmp_path):
    table, opponent = await _table(tmp_path, {})
    table.play("e2e4")
    table.session.new_game()
    table.setup()
    assert opponent.resets[-1] == (table.session.game.start_fen, [])
    assert parse_square("e2") not in table.lit
    await table.session.aclose()




async def test_the_other_ends_game_replaces_the_boards_and_the_leds_guide_the_pieces(tmp_path):
    from chess_core import STARTING_FEN
    table, opponent = await _table(tmp_path, {})
    sync = GameSync(STARTING_FEN, tuple(Move.from_uci(u) for u in ("e2e4", "c7c5")), white=Player("me"), black=Player("them"))
    opponent.listener.game_sync(sync)
    table.wait(0.1)
    snap = english(table.session.snapshot())
    assert snap["moves"]["uci"] == ["e2e4", "c7c5"] and snap["players"] == {"white": "me", "black": "them"}
    assert set(snap["wrong"]) == {"e2", "e4", "c7", "c5"}
    assert snap["status"] == "Set up the game in progress as shown (2 moves played)"   # new to the board
    table.lift("e2")
    table.place("e4")
    table.lift("c7")
    table.place("c5")
    assert english(table.session.snapshot())["status"] == "White to move"
    first = table.session.file.record.pgn_name
    opponent.listener.game_sync(GameSync(STARTING_FEN, sync.moves + (Move.from_uci("g1f3"),), white=Player("me"), black=Player("them")))
    assert table.session.file.record.pgn_name == first  # the same game, continued
    opponent.listener.clock_sync(ServerClock(60_000, 55_000, BLACK, table.t))
    table.wait(2)
    clocks = english(table.session.snapshot())["clocks"]
    assert clocks["white"] == 60_000 and clocks["black"] == 53_000 and clocks["running"] == "black"
    await table.session.aclose()


async def test_the_opponents_mating_move_is_carried_out_before_the_game_ends(tmp_path):
    table, opponent = await _table(tmp_path, {"f2f3": "e7e5", "g2g4": "d8h4"})
    table.play("f2f3")
    opponent.reply()
    table.play("e7e5")
    table.play("g2g4")
    opponent.reply()
    opponent.listener.game_over(GameEnd("mate", Outcome(Termination.CHECKMATE, BLACK)))
    assert not table.session.game.is_over  # the mate is not on the board yet
    table.play("d8h4")
    snap = english(table.session.snapshot())
    assert snap["status"] == "Black wins by checkmate" and snap["moves"]["uci"][-1] == "d8h4"
    assert table.session.file.recorder.load().moves[-1] == "d8h4"
    await table.session.aclose()
