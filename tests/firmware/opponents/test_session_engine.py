"""The engine opponent through the real Session: its moves shown and carried out on the simulated board."""
from __future__ import annotations

import asyncio
import os
import random
import subprocess

import pytest

from chess_core import BLACK, QUEEN, WHITE, Move, Termination, parse_square, square_name
from uci.engine import EngineLaunch
from firmware.opponents.engine.opponent import EngineOpponent, takeover_record
from firmware.referee.feedback import LedStyle
from firmware.session.session import SessionError
from firmware.opponents.engine.levels import Level
from firmware.session.game_commands import update_settings
from tests.firmware.session_support import Table

from .helpers import STOCKFISH

pytestmark = pytest.mark.skipif(not os.access(STOCKFISH, os.X_OK), reason="needs /usr/games/stockfish")

CONFIG = EngineLaunch(STOCKFISH, options={"Threads": 1, "Hash": 16})
LEVEL = Level(depth=3)


async def engine_reply(table: Table, timeout: float = 10.0) -> Move:
    """Let the engine think (the loop runs) until the session shows its move."""
    async def wait() -> Move:
        while table.session.board_state.play.expected_move is None:
            await asyncio.sleep(0.005)
        return table.session.board_state.play.expected_move
    return await asyncio.wait_for(wait(), timeout)


# A rook leaving its corner while its king is at home reads as the start of rook-first castling on
# a sensor board: the session waits to see whether the king follows. The random player leaves those
# moves out (the session's own tests cover that ambiguity).
CORNERS = {"a1": "e1", "h1": "e1", "a8": "e8", "h8": "e8"}


def random_move(table: Table, rng: random.Random, greedy: bool = False) -> Move:
    """A random legal move that a hand makes unambiguously (queen promotions, no rook-first castling);
    ``greedy``: a mate if there is one, else one of the biggest captures."""
    position = table.session.game.position
    kings = {position.king[WHITE], position.king[BLACK]}
    moves = sorted((m for m in position.legal_moves() if m.promotion in (None, QUEEN)
                    and not (square_name(m.from_square) in CORNERS
                             and parse_square(CORNERS[square_name(m.from_square)]) in kings)), key=Move.uci)
    if greedy:
        scored = []
        for move in moves:
            target = position.piece_at(move.to_square)
            position.push(move)
            mate = position.is_checkmate()
            position.pop()
            scored.append((100 if mate else target.piece_type if target else 0, move))
        best = max(score for score, _ in scored)
        moves = [move for score, move in scored if score == best]
    return rng.choice(moves)


async def play_out(table: Table, engine_sides: set, rng: random.Random, max_plies: int = 300) -> None:
    game = table.session.game
    while not game.is_over and len(game.moves) < max_plies:
        if game.turn in engine_sides:
            move = await engine_reply(table)
        else:
            move = random_move(table, rng)
        table.play(move.uci())
        game = table.session.game
        assert game.moves[-1] == move, f"the board committed {game.moves[-1]} for {move}"


async def test_a_full_game_against_stockfish_through_the_session(tmp_path):
    table = Table(tmp_path)
    opponent = EngineOpponent(BLACK, level=LEVEL, config=CONFIG)
    await table.session.start_opponent(opponent)
    table.setup()
    try:
        await play_out(table, {BLACK}, random.Random(5))
    finally:
        await table.session.aclose()
    game = table.session.game
    assert game.outcome is not None and game.outcome.termination is Termination.CHECKMATE
    assert game.outcome.winner == BLACK
    saved = table.session.file.recorder.load()
    assert saved.is_over and saved.moves == [m.uci() for m in game.moves]


async def test_the_engine_playing_white_moves_first_on_the_board(tmp_path):
    table = Table(tmp_path)
    opponent = EngineOpponent(WHITE, level=LEVEL, config=CONFIG)
    await table.session.start_opponent(opponent)
    table.setup()
    try:
        first = await engine_reply(table)
        snap = table.session.snapshot()
        assert snap["expected_move"] == first.uci()
        table.play(first.uci())
        assert table.session.game.moves == [first]
    finally:
        await table.session.aclose()


async def test_a_wrongly_executed_engine_move_is_pointed_out_like_an_illegal_move(tmp_path):
    table = Table(tmp_path)
    opponent = EngineOpponent(BLACK, level=LEVEL, config=CONFIG)
    await table.session.start_opponent(opponent)
    table.setup()
    try:
        table.play("e2e4")
        move = await engine_reply(table)
        position = table.session.game.position
        wrong = next(sq for sq in range(40, 48) if position.piece_at(sq) is None and sq != move.to_square)
        table.lift(square_name(move.from_square))
        table.place(square_name(wrong))
        snap = table.session.snapshot()
        pointed = {square_name(move.from_square), square_name(wrong)}
        assert set(snap["wrong"]) == pointed and snap["status"].startswith("Not a legal move (Black to move): put the ")
        assert snap["status"] == snap["problems"][-1] and snap["notes"] == []   # said once, in the headline
        assert table.lit_names(LedStyle().fix, blink_on=True) >= pointed
        assert snap["problems"][-1].startswith("Not a legal move (Black to move): put the ")
        assert snap["expected_move"] == move.uci() and len(table.session.game.moves) == 1
        table.lift(square_name(wrong))
        table.place(square_name(move.to_square))
        assert table.session.game.moves[-1] == move
    finally:
        await table.session.aclose()


async def test_the_engine_takes_over_a_side_of_an_over_the_board_game(tmp_path):
    table = Table(tmp_path)
    table.setup()
    rng = random.Random(8)
    for _ in range(6):
        table.play(random_move(table, rng).uci())
    game = table.session.game
    record = takeover_record(BLACK, "Bob", "Stockfish", game.position)
    opponent = EngineOpponent(BLACK, level=LEVEL, config=CONFIG, start_fen=game.start_fen, moves=game.moves)
    await table.session.start_opponent(opponent)
    try:
        await play_out(table, {BLACK}, rng, max_plies=40)
    finally:
        await table.session.aclose()
    assert record.player_tag() == "Bob (Stockfish from move 4)"
    assert len(table.session.game.moves) == 40 or table.session.game.is_over


# -- the engine as the session's configured opponent ----------------------------------------------

FAST = {"level": 4, "move_time": 0.02}   # [engine] keys: a weak engine that answers at once


def configured_table(tmp_path, engine: dict, **game) -> Table:
    from firmware.config import with_overrides
    table = Table(tmp_path, **game)
    table.config = with_overrides(table.config, engine={"path": STOCKFISH, **engine})
    table.session = table.new_session()
    return table


def said_name() -> str:
    """Stockfish's own name, as it says it to ``uci`` ("Stockfish 15.1")."""
    out = subprocess.run([STOCKFISH], input="uci\nquit\n", capture_output=True, text=True, timeout=30).stdout
    return next(line[len("id name "):].strip() for line in out.splitlines() if line.startswith("id name "))


async def test_the_engine_bears_its_own_name_on_the_page_in_the_pgn_and_in_the_log(tmp_path, closing, caplog):
    from firmware.opponents.factory import build_opponent
    from firmware.session.state import to_json
    name = said_name()
    assert name.startswith("Stockfish ")          # a version after the name: not the executable's
    table = configured_table(tmp_path, {**FAST, "side": "black"}, opponent="engine", white="Ann")
    session = table.session
    closing.append(session)
    with caplog.at_level("INFO"):
        await session.start_opponent(build_opponent(table.config))
        table.setup()
        table.play("e2e4")
        move = await engine_reply(table)
    page = to_json(session.state(table.t))
    assert page["opponent"]["name"] == name and page["players"] == {"white": "Ann", "black": name}
    assert page["status"].startswith(f"Black to move: {name} plays ")
    assert page["opponent"]["link"]["detail"] == name
    assert (page["opponent"]["text"], page["opponent"]["text_fr"]) == (f"{name} plays Black.", f"{name} joue les Noirs.")
    table.play(move.uci())
    assert f'[Black "{name}"]' in pgn_of(table)
    logged = [r.getMessage() for r in caplog.records if "engine" in r.getMessage() and "ready" in r.getMessage()]
    assert logged and all(f"engine {name} ready" in line for line in logged)
    session.seat.takeovers.take_over("white")                   # the running engine takes Ann's side too: its name at once
    assert session.snapshot()["players"]["white"] == f"Ann ({name} from move 2)"


def pgn_of(table: Table) -> str:
    session = table.session
    return session.file.recorder.pgn_path(session.file.record).read_text()


@pytest.fixture
async def closing():
    """Sessions closed at the end of the test, passed or failed."""
    made: list = []
    yield made
    for session in made:
        await session.aclose()


async def test_a_full_game_against_the_configured_engine_on_the_simulated_board(tmp_path, closing):
    from firmware.opponents.factory import build_opponent
    table = configured_table(tmp_path, {**FAST, "side": "white"}, opponent="engine", white="Ann", black="Bob")
    opponent = build_opponent(table.config)
    assert opponent.level == Level(skill=4, movetime_ms=20)   # as configured
    opponent.set_level(LEVEL)   # full strength to depth 3: the same game every time
    closing.append(table.session)
    await table.session.start_opponent(opponent)
    table.setup()
    assert table.session.snapshot()["opponent"]["sides"] == ["white"]
    await play_out(table, {WHITE}, random.Random(11))
    game = table.session.game
    assert game.outcome is not None and game.outcome.termination is not None
    snap = table.session.snapshot()
    assert snap["players"]["white"].startswith("Stockfish") and snap["players"]["black"] == "Bob"
    saved = table.session.file.recorder.load()
    assert saved.is_over and saved.moves == [m.uci() for m in game.moves] and saved.white.startswith("Stockfish")


async def test_the_computer_takes_over_mid_game_and_the_pgn_says_so(tmp_path, closing):
    table = Table(tmp_path, white="Alice", black="Bob")
    session = table.session
    closing.append(session)
    update_settings(session, engine=FAST)
    table.setup()
    rng = random.Random(8)
    for _ in range(6):
        table.play(random_move(table, rng).uci())
    session.seat.takeovers.take_over("black")
    session.opponent.set_level(LEVEL)   # the same game every time
    snap = session.snapshot()
    assert snap["players"]["black"] == "Bob (Stockfish from move 4)"   # its executable's name, until it speaks
    assert snap["opponent"]["kind"] == "engine" and snap["opponent"]["sides"] == ["black"]
    assert snap["opponent"]["takeover"] == {"black": {"player": "Bob", "engine": "Stockfish", "from_move": 4,
                                                     "tag": "Bob (Stockfish from move 4)"}}
    with pytest.raises(SessionError, match="already plays Black"):
        session.seat.takeovers.take_over("black")
    await play_out(table, {BLACK}, rng, max_plies=12)
    name = said_name()            # connected: its own name everywhere
    assert session.snapshot()["opponent"]["takeover"]["black"]["tag"] == f"Bob ({name} from move 4)"
    sans = session.game.san_moves()   # Black's 4th move is the engine's first
    assert f'[Black "Bob ({name} from move 4)"]' in pgn_of(table)
    assert f"4. {sans[6]} {sans[7]} {{ {name} plays Black from here }}" in pgn_of(table).replace("\n", " ")
    session.seat.takeovers.take_over("white")   # both players left: the engine plays on alone
    assert session.snapshot()["opponent"]["sides"] == ["white", "black"]
    await play_out(table, {WHITE, BLACK}, rng, max_plies=30)
    text = pgn_of(table).replace("\n", " ")   # (a comment may wrap)
    assert f'[White "Alice ({name} from move 7)"]' in text and f"{{ {name} plays White from here }}" in text
    assert text.index("Black from here") < text.index("White from here")
    assert len(session.game.moves) == 30
    session.new_game()
    await session.wait_idle()
    assert session.opponent is None and session.snapshot()["opponent"]["takeover"] is None
    assert set(session.board_state.names) == {"Alice", "Bob"}


async def test_a_new_game_chooses_the_engine_its_side_and_level_and_back_to_none(tmp_path, closing):
    table = configured_table(tmp_path, FAST)
    session = table.session
    closing.append(session)
    table.setup()
    with pytest.raises(SessionError, match="opponent is one of"):
        session.new_game(opponent="stockfish")
    with pytest.raises(SessionError, match="engine plays one of"):
        session.new_game(opponent="engine", engine_side="both")
    session.new_game(opponent="engine", engine_side="white", engine_level=2, white=None, black="Bob")
    await session.wait_idle()
    assert session.opponent.sides == {WHITE} and session.opponent.level.skill == 2
    table.setup()
    first = await engine_reply(table)
    snap = session.snapshot()
    assert snap["expected_move"] == first.uci() and snap["settings"]["opponent"] == "engine"
    assert snap["players"]["black"] == "Bob" and snap["players"]["white"].startswith("Stockfish")
    table.play(first.uci())
    session.new_game(opponent="none", white="Ann", black="Bob")
    await session.wait_idle()
    assert session.opponent is None and session.snapshot()["opponent"]["kind"] == "none"
    assert session.config.game.opponent == "none"


async def test_engine_settings_apply_from_its_next_move(tmp_path, closing):
    table = configured_table(tmp_path, FAST)
    session = table.session
    closing.append(session)
    opponent = EngineOpponent(BLACK, level=LEVEL, config=CONFIG)
    await session.start_opponent(opponent)
    update_settings(session, engine={"level": 5, "elo": 1500, "move_time": 0.2})
    assert opponent.level == Level(skill=5, elo=1500, movetime_ms=200)
    assert session.config.engine.elo == 1500
    with pytest.raises(SessionError, match="engine.elo"):
        update_settings(session, engine={"elo": 10})
    with pytest.raises(SessionError, match="engine.colour: not a setting"):
        update_settings(session, engine={"colour": "white"})


async def test_the_engine_is_told_the_clock(tmp_path, closing):
    table = configured_table(tmp_path, FAST, time_control="40/5400+30:1800+30", clock_start="at_once")
    closing.append(table.session)
    opponent = EngineOpponent(WHITE, level=LEVEL, config=CONFIG)
    await table.session.start_opponent(opponent)
    assert opponent.times() is None   # no game yet
    table.setup()
    times = opponent.times()
    clocks = table.session.snapshot()["clocks"]
    assert (times.wtime, times.btime) == (clocks["white"], clocks["black"]) == (5_400_000 - 500, 5_400_000)
    assert (times.winc, times.binc, times.movestogo) == (30_000, 30_000, 40)


@pytest.mark.parametrize("control", ["300d5", "300b5"])
async def test_a_delay_is_told_to_the_engine_as_the_increment_it_amounts_to(tmp_path, closing, control):
    """UCI has no delay: before, the engine heard winc 0 and played as if every second counted."""
    table = configured_table(tmp_path, FAST, time_control=control)
    closing.append(table.session)
    opponent = EngineOpponent(WHITE, level=LEVEL, config=CONFIG)
    await table.session.start_opponent(opponent)
    table.setup()
    times = opponent.times()
    assert (times.winc, times.binc, times.movestogo) == (5_000, 5_000, None)


async def test_the_engine_plays_on_from_a_restored_game(tmp_path, closing):
    table = configured_table(tmp_path, FAST)
    opponent = EngineOpponent(BLACK, level=LEVEL, config=CONFIG)
    await table.session.start_opponent(opponent)
    table.setup()
    table.play("d2d4")
    reply = await engine_reply(table)
    table.play(reply.uci())
    table.play("c2c4")
    await table.session.aclose()
    restarted = table.new_session()   # a power cut: the same storage, a new session and engine
    closing.append(restarted)
    assert restarted.restore(table.t)
    table.session = restarted
    await restarted.start_opponent(EngineOpponent(BLACK, level=LEVEL, config=CONFIG))
    move = await engine_reply(table)
    assert restarted.game.position.is_legal(move) and len(restarted.game.moves) == 3
