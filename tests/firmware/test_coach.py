"""The coach for beginners with the real Stockfish at a fixed depth: the hint is python-chess's best move, a coached move's quality on the LEDs for a moment and on the page, hints and takebacks in the PGN."""
from __future__ import annotations

import io
import shutil

import chess
import chess.engine
import chess.pgn
import pytest

from chess_core import parse_square
from firmware.config import with_overrides
from firmware.referee.feedback import LedStyle
from firmware.session.commands import SessionError
from firmware.words import Message
from firmware.session.game_commands import button, takeback
from tests.firmware.opponents.helpers import fill_the_queue
from tests.firmware.session_support import OPEN, Table, closed_after  # noqa: F401 - closed_after: the fixture

STOCKFISH = "/usr/games/stockfish"
DEPTH = 8
STYLE = LedStyle()
pytestmark = pytest.mark.skipif(not shutil.which(STOCKFISH), reason="Stockfish is not installed")


def oracle_best(moves: list[str]) -> chess.Move:
    """python-chess's engine module: the same Stockfish, one thread, 16 MB, the same depth, a new game."""
    board = chess.Board()
    for uci in moves:
        board.push_uci(uci)
    with chess.engine.SimpleEngine.popen_uci(STOCKFISH) as engine:
        engine.configure({"Threads": 1, "Hash": 16})
        info = engine.analyse(board, chess.engine.Limit(depth=DEPTH), game=object())
    return info["pv"][0]




def coached_table(tmp_path, **coach: object) -> Table:
    table = Table(tmp_path, takebacks=True)
    OPEN.append(table)
    table.session.config = with_overrides(table.session.config, coach={"depth": DEPTH, **coach})
    table.setup()
    return table


def lit(table: Table) -> dict[str, int]:
    frame = table.session.leds_frame or ()
    return {chess.square_name(sq): colour for sq, colour in enumerate(frame) if colour}


async def pgn_game(table: Table) -> chess.pgn.Game:
    await table.session.coach.settled()
    table.wait(0.1)
    record = table.session.file.record
    text = table.session.file.recorder.pgn_path(record).read_text(encoding="utf-8")
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None
    return game


async def test_a_hint_lights_python_chess_best_move_says_it_and_marks_the_pgn(tmp_path):
    table = coached_table(tmp_path, white=True)
    table.play_all("e2e4 e7e5")
    await table.session.coach.settled()                 # (1. e4 judged)
    expected = oracle_best(["e2e4", "e7e5"])
    board = chess.Board()
    board.push_uci("e2e4")
    board.push_uci("e7e5")
    san_en = board.san(expected)
    button(table.session, "hint")
    await table.session.coach.settled()
    assert lit(table) == {chess.square_name(expected.from_square): STYLE.hint,
                          chess.square_name(expected.to_square): STYLE.hint}
    state = table.session.state()
    assert state.notice is not None and state.notice.text("en") == f"Hint: {san_en}"
    assert state.notice.text("fr").startswith("Conseil : ")
    table.play(expected.uci())                          # the move made: the game's LEDs again
    assert STYLE.hint not in lit(table).values() or table.session.board_state.lights.get("coach") is None
    game = await pgn_game(table)
    assert list(game.mainline())[1].comment == f"Hint: {san_en}"     # after 1... e5: the hinted move follows


async def test_a_side_not_coached_gets_no_hint(tmp_path):
    table = coached_table(tmp_path, white=True)
    table.play("e2e4")
    with pytest.raises(SessionError) as refused:
        button(table.session, "hint")
    assert refused.value.key == "not_coached"
    await table.session.coach.settled()


async def test_a_blunder_shows_for_a_moment_says_the_better_move_and_invites_a_takeback(tmp_path):
    table = coached_table(tmp_path, white=True, moment_s=2.0)
    table.play_all("f2f3 e7e5")
    best = oracle_best(["f2f3", "e7e5"])
    board = chess.Board()
    board.push_uci("f2f3")
    board.push_uci("e7e5")
    best_san = board.san(best)
    table.play("g2g4")                                   # 2. g4?? Qh4#
    await table.session.coach.settled()
    shown = lit(table)
    assert shown[chess.square_name(parse_square("g2"))] == STYLE.blunder and shown["g4"] == STYLE.blunder
    assert shown[chess.square_name(best.from_square)] == STYLE.hint
    assert shown[chess.square_name(best.to_square)] == STYLE.hint
    state = table.session.state()
    assert state.notice is not None and state.notice.text("en") == f"Blunder: {best_san} was best. Take it back?"
    assert state.notice.text("fr").startswith("Gaffe : ")
    table.wait(1.0)
    assert STYLE.blunder in lit(table).values()          # still within the moment
    table.wait(1.5)
    assert STYLE.blunder not in lit(table).values()      # the moment is over: the game's LEDs
    takeback(table.session)
    table.wait(0.5)
    game = await pgn_game(table)
    assert [m.uci() for m in game.mainline_moves()] == ["f2f3", "e7e5"]
    assert list(game.mainline())[1].comment == "Taken back: g4"


async def test_the_engines_own_move_is_called_best(tmp_path):
    table = coached_table(tmp_path, black=True)
    table.play("e2e4")
    best = oracle_best(["e2e4"])
    table.play(best.uci())
    await table.session.coach.settled()
    assert table.session.state().notice == Message.of("coach_best")
    assert lit(table) == {chess.square_name(best.from_square): STYLE.good_move,
                          chess.square_name(best.to_square): STYLE.good_move}
    await table.session.coach.settled()


async def test_closing_the_session_stops_the_coachs_search_and_its_engine(tmp_path):
    """A stop while the coach thinks (a long search asked): the session closes at once, the search
    is cancelled and no Stockfish is left running."""
    import asyncio
    import time

    table = coached_table(tmp_path, white=True, depth=0, movetime_ms=60_000)
    table.play_all("e2e4 e7e5")
    button(table.session, "hint")
    await asyncio.sleep(0)       # (the search starts)
    assert table.session.coach._tasks
    started = time.monotonic()
    await asyncio.wait_for(table.session.aclose(), 10)
    assert time.monotonic() - started < 10
    assert not table.session.coach._tasks


async def test_a_judgement_that_comes_after_the_movers_next_move_is_not_shown(tmp_path, monkeypatch):
    """Two coached moves judged by two searches: the older search ending last never covers the news."""
    import asyncio

    table = coached_table(tmp_path, white=True)
    real = table.session.coach._evaluate
    release: dict[int, asyncio.Event] = {}

    async def held(moves, plies):
        release.setdefault(len(moves), asyncio.Event())
        await release[len(moves)].wait()
        return await real(moves, plies)

    monkeypatch.setattr(table.session.coach, "_evaluate", held)
    table.play_all("f2f3 e7e5 g2g4")       # 1. f3 and 2. g4?? both judged
    await asyncio.sleep(0)
    release.setdefault(3, asyncio.Event()).set()
    while len(table.session.coach._tasks) > 1:
        await asyncio.sleep(0.01)
    news = table.session.state().notice
    assert news is not None and news.text("en").startswith("Blunder")
    release.setdefault(1, asyncio.Event()).set()      # 1. f3's judgement, late
    await table.session.coach.settled()
    assert table.session.state().notice == news


async def test_a_judged_move_refused_by_a_full_queue_is_left_out_not_called_a_failed_engine(tmp_path, caplog):
    """Issue 32, item 5: EngineBusy is an EngineError, so a move judged while the helper's queue was
    full said "The coach's engine failed" on the page, when the engine was only busy."""
    import asyncio
    import logging

    table = coached_table(tmp_path, white=True)
    helper = table.session.coach.engine
    others = fill_the_queue(helper)
    try:
        await asyncio.sleep(0)
        assert helper.busy
        with caplog.at_level(logging.INFO, logger="firmware.session.coach"):
            table.play("e2e4")                              # a coached move, judged while the queue is full
            await table.session.coach.settled()
        state = table.session.state()
        assert state.failed_helpers == () and table.session.board_state.failed_helpers == ()
        assert state.notice is None                          # nothing said of that move: left out
        assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
        assert any("busy" in r.getMessage() for r in caplog.records)    # the journal says why, quietly
    finally:
        for task in others:
            task.cancel()
        await asyncio.gather(*others, return_exceptions=True)
    table.play("e7e5")
    table.play("g1f3")                                       # the queue has room again: judged as before
    await table.session.coach.settled()
    assert table.session.state().notice is not None and table.session.board_state.failed_helpers == ()
