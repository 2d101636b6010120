"""The engines' budget with the real Stockfish: the opponent's process and one helper shared by the coach, the hints and the analyses; 200 hints for many positions filling the queue, a hint asked twice, judged moves, a hung helper, a full queue."""
from __future__ import annotations

import asyncio
import json
import logging

import pytest

from chess_core import SQUARE_NAMES, Move, Position
from firmware.config import with_overrides
from uci.helper import HelperEngine
from uci.engine import EngineLaunch
from firmware.words import refusal
from firmware.session.game_commands import button
from tests.firmware.opponents.helpers import fake_engine, fill_the_queue, lines, logged_stockfish, stockfish_processes

from .test_library import SHEPHERD, record
from .test_session_backend import Table, needs_stockfish
from tests.said import both, error_in

pytestmark = needs_stockfish
JSON = {"Content-Type": "application/json"}
HINTS = 200
ROUNDS = 20     # positions at most: the queue (8 searches of 0.6 s) is full well before
FINISHED = "2025-03-01_1000_Anna-vs-Ben"


def coached(tmp_path, engine: dict | None = None, **coach: object) -> Table:
    table = Table(tmp_path, engine=engine)
    table.session.config = with_overrides(table.session.config, coach={"depth": 8, "white": True, **coach})
    table.setup()
    return table


async def post(client, path: str) -> tuple[int, dict]:
    answer = await client.post(path, data=json.dumps({}), headers=JSON)
    return answer.status, await answer.json()


async def hint_said(table: Table) -> str | None:
    await table.session.coach.settled()
    table.settle(0.1)
    return table.state()["online"]["notice"]


WHITE_MOVES = ("e2e4", "d2d4", "g1f3", "b1c3", "c1e3", "f1e2", "d1d2", "a2a3", "h2h3", "b2b3", "g2g3")


def quiet_white_move(position: Position) -> Move:
    """A developing move of White that takes nothing if it can (the game goes on for a few rounds)."""
    legal = position.legal_moves()
    quiet = [m for m in legal if position.piece_at(m.to_square) is None
             and not position.is_castling(m) and not position.is_en_passant(m) and m.promotion is None]
    for uci in WHITE_MOVES:
        if Move.from_uci(uci) in quiet:
            return Move.from_uci(uci)
    return (quiet or legal)[0]      # (in check, a capture may be the only answer: made by hand all the same)


def made_by_hand(table: Table, move: Move) -> None:
    """``move`` made on the simulated board: a victim taken off first, a castling rook after its king."""
    pos = table.session.game.position
    name = SQUARE_NAMES.__getitem__
    if pos.is_castling(move):
        king_from, king_to, rook_from, rook_to = pos.castling_squares(move)
        table.move(name(king_from), name(king_to), name(rook_from), name(rook_to))
        return
    if pos.is_en_passant(move):
        table.hand.take(move.to_square - 8 if pos.turn == 0 else move.to_square + 8)
    elif pos.piece_at(move.to_square) is not None:
        table.hand.take(move.to_square)
    table.move(name(move.from_square), name(move.to_square))


async def test_200_hints_for_many_positions_with_an_engine_opponent_and_an_analysis_fill_the_helpers_queue_to_its_bound(
        serve, tmp_path):
    """Issue 32, item 9: 200 hints for one position were one search (the coach's ``_hinting``), so
    the queue's bound and the 429 were never reached. Here the hints are asked for a new position
    after each move, while the moves are judged and a library game analysed: the queue fills, holds
    ``max_waiting`` searches and no more, a hint then gets a 429 in both languages, a busy helper is
    said as no failure, and no more than two Stockfish run (the opponent's, the helper's)."""
    record(tmp_path / "games", FINISHED, SHEPHERD)
    table = coached(tmp_path, engine={"move_time": 0.05}, movetime_ms=600, depth=0)
    client, companion, _ = await serve(backend=table.backend)
    helper = table.session.coach.engine
    seen: list[int] = []
    asked: list[int] = []
    sampling = True
    before = stockfish_processes()                       # (another test's, ending)

    async def sample() -> None:
        while sampling:
            seen.append(len(stockfish_processes() - before))
            asked.append(helper.asked)
            await asyncio.sleep(0.005)
    sampler = asyncio.ensure_future(sample())
    answers: list[tuple[int, dict]] = []
    positions = 0
    try:
        def begin() -> None:
            table.backend.new_game(white="Anna", black="Stockfish", time_control="-", rules="fide",
                                   colours="as-entered", opponent="engine", engine_side="black", engine_level=4,
                                   player="Anna", now=table.clock.now)
            table.setup()
        begin()
        assert companion.analyses is not None and companion.analyses.engine is helper
        await companion.analyses.request(FINISHED)       # a library game analysed meanwhile
        connections = asyncio.Semaphore(8)               # (a page's client: the server takes 16 a client)

        async def hint() -> tuple[int, dict]:
            async with connections:
                return await post(client, "/api/coach/hint")

        async def hints(n: int) -> list[tuple[int, dict]]:
            return list(await asyncio.gather(*(hint() for _ in range(n))))

        async def white_and_reply() -> None:
            made_by_hand(table, quiet_white_move(table.session.game.position))   # judged: the queue again
            if not table.session.game.is_over:
                made_by_hand(table, Move.from_uci(await table.engine_move()))
            if table.session.game.is_over:
                begin()                                  # (a game over: another, new positions all the same)
        for _ in range(ROUNDS):                          # a batch of hints for each new position
            answers += await hints(HINTS // ROUNDS)
            positions += 1
            if any(status == 429 for status, _ in answers):
                break
            await white_and_reply()
        judged_while_full = helper.busy
        await white_and_reply()                          # a move judged while the queue is full
        answers += await hints(HINTS - len(answers))     # the rest at once, for the last position
        full_refusals = [body for status, body in answers if status == 429]
        async with asyncio.timeout(120):
            await table.session.coach.settled()
            await companion.analyses.settled()
        assert companion.analyses.status(FINISHED) is None          # analysed, not failed
        table.settle(0.1)
        failed = table.state()["failed_helpers"]
        status, _ = await post(client, "/api/coach/hint")           # the queue has room again
        assert status == 200
        notice = await hint_said(table)
    finally:
        sampling = False
        await sampler
        await table.session.aclose()
    assert len(answers) == HINTS and {status for status, _ in answers} <= {200, 429}
    assert positions >= 2, "the hints were all for one position"
    assert full_refusals, "no hint found the helper's queue full"
    assert all(both(body) == (refusal("engine_busy", "en"), refusal("engine_busy", "fr"))
               for body in full_refusals)
    assert max(asked) == helper.max_waiting, f"the queue held at most {max(asked)} searches"
    assert judged_while_full and failed == []            # busy is no failure: the page says nothing
    assert max(seen) <= 2, f"{max(seen)} Stockfish processes at once"
    assert notice is not None and notice.startswith("Hint: ")
    assert stockfish_processes() - before == set()


async def test_two_hints_for_one_position_asked_while_it_is_looked_for_are_one_search(tmp_path, caplog):
    path, starts, commands = logged_stockfish(tmp_path)
    table = coached(tmp_path, engine={"path": path}, movetime_ms=500, depth=0)
    try:
        button(table.session, "hint", table.clock.now)
        await asyncio.sleep(0.05)                        # (the search is under way)
        button(table.session, "hint", table.clock.now)
        notice = await hint_said(table)
    finally:
        await table.session.aclose()
    assert notice is not None and notice.startswith("Hint: ")
    assert len(lines(commands, "go ")) == 1 and len(lines(starts)) == 1


async def test_the_coachs_judged_moves_and_hints_reuse_the_shared_engine(tmp_path):
    path, starts, commands = logged_stockfish(tmp_path)
    table = coached(tmp_path, engine={"path": path}, black=True)
    try:
        for a, b in (("e2", "e4"), ("e7", "e5"), ("g1", "f3"), ("b8", "c6")):
            table.move(a, b)
            await table.session.coach.settled()
        button(table.session, "hint", table.clock.now)
        notice = await hint_said(table)
    finally:
        await table.session.aclose()
    assert notice is not None and notice.startswith("Hint: ")
    assert len(lines(commands, "go ")) >= 5               # four moves judged, a hint
    assert len(lines(starts)) == 1                        # by one process


async def test_a_hung_helper_search_times_out_and_the_game_goes_on(tmp_path, caplog):
    path, args = fake_engine(tmp_path, "no-bestmove")
    table = coached(tmp_path, movetime_ms=50, depth=0)
    table.session.coach._engine = HelperEngine(EngineLaunch(path, args, go_grace=0.1, stop_grace=0.1,
                                                            quit_grace=0.1))
    try:
        with caplog.at_level(logging.WARNING):
            button(table.session, "hint", table.clock.now)
            async with asyncio.timeout(5):
                notice = await hint_said(table)
        assert notice is None
        assert any("did not" in r.getMessage() or "no move" in r.getMessage() for r in caplog.records)
        table.move("e2", "e4")                            # the game goes on
        table.move("e7", "e5")
        assert [m.uci() for m in table.session.game.moves] == ["e2e4", "e7e5"]
        async with asyncio.timeout(5):
            await table.session.coach.settled()           # (the judged e4: given up too, in time)
    finally:
        await table.session.aclose()


async def test_a_hint_asked_while_the_helpers_queue_is_full_is_a_429_in_both_languages(serve, tmp_path):
    table = coached(tmp_path)
    client, _, _ = await serve(backend=table.backend)
    helper = table.session.coach.engine
    others = fill_the_queue(helper)
    try:
        await asyncio.sleep(0)
        assert helper.busy
        status, body = await post(client, "/api/coach/hint")
        assert status == 429
        assert both(body) == (refusal("engine_busy", "en"), refusal("engine_busy", "fr"))
    finally:
        for task in others:
            task.cancel()
        await asyncio.gather(*others, return_exceptions=True)
        await table.session.aclose()
