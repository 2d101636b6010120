"""The engine as an opponent, with the real Stockfish: full games, either colour, take-over, failures."""
from __future__ import annotations

import asyncio
import gc
import os
import random
import signal

import pytest

from chess_core import BLACK, WHITE, Game, Move, Termination
from firmware.opponents.base import Action, ActionNotSupported, ClockTimes, LinkState, Opponent
from uci.engine import EngineLaunch
from firmware.opponents.engine.opponent import EngineOpponent, takeover_record
from firmware.opponents.engine.levels import Level

from .helpers import STOCKFISH, Recorder, fake_engine

pytestmark = pytest.mark.skipif(not os.access(STOCKFISH, os.X_OK), reason="needs /usr/games/stockfish")

FAST = Level(depth=4)   # a fixed depth on one thread: the same moves every run
CONFIG = EngineLaunch(STOCKFISH, options={"Threads": 1, "Hash": 16})


async def next_move(recorder: Recorder, count: int, timeout: float = 10.0) -> Move:
    """The opponent's move number ``count`` (0-based)."""
    async def wait() -> Move:
        while len(recorder.values("opponent_move")) <= count:
            await recorder.wait_for("opponent_move", after=len(recorder.calls) - 1, timeout=timeout)
        return recorder.values("opponent_move")[count]
    return await asyncio.wait_for(wait(), timeout)


async def play(opponent, recorder: Recorder, game: Game, local: set, rng: random.Random, max_plies: int = 400,
               on_ply=None, confirm: bool = True) -> None:
    """What the session does: local moves are random; the opponent's are carried out as told."""
    engine_moves = 0
    while not game.is_over and len(game.moves) < max_plies:
        if on_ply is not None:
            on_ply(len(game.moves))
        if game.turn in local:
            move = rng.choice(sorted(game.position.legal_moves(), key=Move.uci))
        else:
            move = await next_move(recorder, engine_moves)
            engine_moves += 1
            assert game.position.is_legal(move)
            if not confirm:     # as Session: the engine is not told its move was carried out
                game.push(move)
                continue
        game.push(move)
        opponent.on_move(move)


def test_the_engine_opponent_follows_the_protocol():
    assert isinstance(EngineOpponent(BLACK, config=CONFIG), Opponent)
    assert EngineOpponent(BLACK, config=CONFIG).assistance_allowed


@pytest.mark.parametrize("confirm", [True, False], ids=["told when carried out", "not told (as Session)"])
@pytest.mark.parametrize("engine_side", [BLACK, WHITE])
async def test_a_full_game_against_random_moves_ends_by_the_rules(engine_side, confirm):
    recorder, game, rng = Recorder(), Game(rules="casual"), random.Random(7)
    opponent = EngineOpponent(engine_side, level=FAST, config=CONFIG)
    await opponent.start(recorder)
    try:
        await play(opponent, recorder, game, {engine_side ^ 1}, rng, confirm=confirm)
    finally:
        await opponent.stop()
    assert game.outcome is not None, "the game ended by the rules"
    assert game.outcome.termination is Termination.CHECKMATE and game.outcome.winner == engine_side
    assert recorder.values("link")[0][0] is LinkState.CONNECTING
    assert recorder.values("link")[-1][0] is LinkState.CLOSED
    assert opponent.name.startswith("Stockfish")


async def test_the_engine_is_told_the_clock_times():
    told: list[ClockTimes] = []

    def times() -> ClockTimes:
        told.append(ClockTimes(wtime=60_000, btime=800, winc=0, binc=0))
        return told[-1]
    recorder, game = Recorder(), Game()
    opponent = EngineOpponent(BLACK, level=Level(), config=CONFIG, times=times)
    await opponent.start(recorder)
    try:
        game.push(Move.from_uci("e2e4"))
        opponent.on_move(Move.from_uci("e2e4"))
        move = await next_move(recorder, 0, timeout=3)
    finally:
        await opponent.stop()
    assert told and game.position.is_legal(move)


async def test_the_engine_takes_over_a_players_side_and_the_pgn_says_from_which_move():
    recorder, game, rng = Recorder(), Game(rules="casual"), random.Random(3)
    opponent = EngineOpponent(BLACK, level=FAST, config=CONFIG)
    await opponent.start(recorder)
    records = []

    def at_ply(ply: int) -> None:
        if ply == 10 and not records:      # White's player has to leave before their 6th move
            records.append(opponent.take_over(WHITE, "Alice"))
    try:
        await play(opponent, recorder, game, {WHITE}, rng, max_plies=10, on_ply=at_ply)
        assert len(game.moves) == 10 and not game.is_over
        at_ply(10)
        # From now on the engine plays both sides; the board carries each move out.
        for count in range(5, 5 + 12):
            if game.is_over:
                break
            move = await next_move(recorder, count)
            game.push(move)
            opponent.on_move(move)
    finally:
        await opponent.stop()
    record = records[0]
    name = opponent.name                  # the engine's own (UCI id name): "Stockfish 15.1"
    assert name.startswith("Stockfish ") and record.engine == name
    assert record.player_tag() == f"Alice ({name} from move 6)"
    assert record.comment() == f"{name} plays White from here"
    assert len(game.moves) >= 20 or game.is_over


async def test_a_take_over_while_the_engine_is_still_starting_waits_for_it_instead_of_failing():
    recorder, game = Recorder(), Game()
    opponent = EngineOpponent(BLACK, level=FAST, config=CONFIG)
    loop = asyncio.get_running_loop()
    failures: list = []
    loop.set_exception_handler(lambda _loop, context: failures.append(context))
    starting = loop.create_task(opponent.start(recorder))
    await asyncio.sleep(0)          # start() is now waiting for the Stockfish process
    opponent.take_over(WHITE, "Alice")
    try:
        await starting
        move = await next_move(recorder, 0)
        assert game.position.is_legal(move)
    finally:
        await opponent.stop()
        gc.collect()
        loop.set_exception_handler(None)
    assert failures == []   # no search task failed for want of an engine


def test_the_takeover_move_number_is_the_first_move_the_engine_plays():
    game = Game()
    game.push(Move.from_uci("e2e4"))
    assert takeover_record(WHITE, "Alice", "Stockfish", game.position).from_move == 2
    assert takeover_record(BLACK, "Bob", "Stockfish", game.position).from_move == 1
    assert takeover_record(BLACK, "", "Stockfish", game.position).player_tag() == "Black (Stockfish from move 1)"


async def test_a_takeback_on_the_board_drops_the_search_and_the_engine_answers_the_new_position():
    recorder = Recorder()
    opponent = EngineOpponent(BLACK, level=Level(movetime_ms=1_000), config=CONFIG)
    await opponent.start(recorder)
    try:
        opponent.on_move(Move.from_uci("e2e4"))
        await asyncio.sleep(0.2)
        assert opponent.thinking
        opponent.on_reset(Game().start_fen, [Move.from_uci("d2d4")])    # e4 taken back, d4 played
        move = await next_move(recorder, 0, timeout=8)
    finally:
        await opponent.stop()
    game = Game()
    game.push(Move.from_uci("d2d4"))
    assert game.position.is_legal(move)
    assert len(recorder.values("opponent_move")) == 1, "the search about e4 was dropped"


async def test_a_crashed_engine_is_restarted_and_the_move_still_comes():
    recorder = Recorder()
    opponent = EngineOpponent(BLACK, level=Level(movetime_ms=800), config=CONFIG)
    await opponent.start(recorder)
    try:
        opponent.on_move(Move.from_uci("e2e4"))
        await asyncio.sleep(0.3)
        os.kill(opponent._engine.pid, signal.SIGKILL)
        await recorder.wait_for("link", lambda v: v[0] is LinkState.RECONNECTING)
        move = await next_move(recorder, 0, timeout=10)
    finally:
        await opponent.stop()
    states = [s for s, _ in recorder.values("link")]
    assert states[:4] == [LinkState.CONNECTING, LinkState.CONNECTED, LinkState.RECONNECTING, LinkState.CONNECTED]
    assert "ended" in dict(recorder.values("link"))[LinkState.RECONNECTING]
    assert move.uci() in {m.uci() for m in _after("e2e4").position.legal_moves()}


async def test_an_engine_that_keeps_hanging_is_given_up_and_reported(tmp_path):
    path, args = fake_engine(tmp_path, "no-bestmove")
    recorder = Recorder()
    config = EngineLaunch(path, args, go_grace=0.1, stop_grace=0.1, quit_grace=0.1)
    opponent = EngineOpponent(WHITE, level=Level(movetime_ms=50), config=config, max_restarts=1)
    await opponent.start(recorder)
    try:
        failed = await recorder.wait_for("link", lambda v: v[0] is LinkState.FAILED, timeout=10)
    finally:
        await opponent.stop()
    assert "gave up after 1 restarts" in failed[1]
    assert not recorder.values("opponent_move")


async def test_an_engine_that_answers_an_illegal_move_counts_as_failed(tmp_path):
    path, args = fake_engine(tmp_path, "nonsense")
    recorder = Recorder()
    opponent = EngineOpponent(WHITE, level=Level(movetime_ms=50), config=EngineLaunch(path, args, quit_grace=0.1),
                              max_restarts=0)
    await opponent.start(recorder)
    try:
        failed = await recorder.wait_for("link", lambda v: v[0] is LinkState.FAILED, timeout=10)
    finally:
        await opponent.stop()
    assert "e2e5, which is illegal" in failed[1]
    assert not recorder.values("opponent_move")


async def test_decisions_are_the_boards_against_the_engine():
    opponent = EngineOpponent(BLACK, config=CONFIG)
    with pytest.raises(ActionNotSupported):
        await opponent.act(Action.OFFER_DRAW)


async def test_start_and_stop_are_idempotent():
    recorder = Recorder()
    opponent = EngineOpponent(BLACK, level=FAST, config=CONFIG)
    await opponent.start(recorder)
    await opponent.start(recorder)
    await opponent.stop()
    await opponent.stop()
    assert [s for s, _ in recorder.values("link")] == [LinkState.CONNECTING, LinkState.CONNECTED, LinkState.CLOSED]


async def test_a_level_change_applies_from_the_next_move():
    recorder = Recorder()
    opponent = EngineOpponent(BLACK, level=FAST, config=CONFIG)
    await opponent.start(recorder)
    try:
        opponent.set_level(Level(skill=0, movetime_ms=20))
        opponent.on_move(Move.from_uci("e2e4"))
        move = await next_move(recorder, 0)
    finally:
        await opponent.stop()
    assert _after("e2e4").position.is_legal(move)
    assert opponent.level.skill == 0


def _after(*ucis: str) -> Game:
    game = Game()
    for uci in ucis:
        game.push(Move.from_uci(uci))
    return game
