"""Stockfish plays Chess960 with UCI_Chess960: its castling comes king-takes-rook and is legal on our board."""
from __future__ import annotations

import os
import random

import pytest

from chess_core import BLACK, ROOK, WHITE, Game, Move
from chess_core.chess960 import start_fen
from firmware.opponents.engine.levels import Level
from firmware.opponents.engine.opponent import EngineOpponent
from uci.engine import EngineLaunch, EngineError

from .helpers import STOCKFISH, Recorder, fake_engine
from .test_engine_opponent import next_move

pytestmark = pytest.mark.skipif(not os.access(STOCKFISH, os.X_OK), reason="needs /usr/games/stockfish")

FAST = Level(depth=4)
CONFIG = EngineLaunch(STOCKFISH, options={"Threads": 1, "Hash": 16})


async def test_stockfish_mates_by_960_castling_written_king_takes_rook():
    fen = "2rkr3/2p1p3/8/8/8/8/8/RK6 w A - 0 1"   # O-O-O: the rook from a1 to d1 mates
    recorder = Recorder()
    opponent = EngineOpponent(WHITE, level=FAST, config=CONFIG, start_fen=fen, chess960=True)
    await opponent.start(recorder)
    try:
        move = await next_move(recorder, 0)
    finally:
        await opponent.stop()
    assert move == Move.from_uci("b1a1")
    game = Game(fen, chess960=True)
    game.push(move)
    assert game.position.is_checkmate() and game.position.fen().startswith("2rkr3/2p1p3/8/8/8/8/8/2KR4 b")


async def test_stockfish_plays_960_games_legally_and_follows_castling():
    castles = []
    # Start positions with the local side's pieces between king and rooks taken off, so that it can castle
    # (king and rook swapping squares) from its first move.
    starts = [("bnrqkrnb/pppppppp/8/8/8/8/PPPPPPPP/B1RK1R1B w KQkq - 0 1", BLACK),
              ("b1rk1r1b/pppppppp/8/8/8/8/PPPPPPPP/BNRQKRNB w KQkq - 0 1", WHITE),
              (start_fen(959), WHITE)]
    for number, (fen, engine_side) in enumerate(starts):
        recorder, rng = Recorder(), random.Random(number)
        game = Game(fen, chess960=True, rules="casual")
        opponent = EngineOpponent(engine_side, level=FAST, config=CONFIG, start_fen=game.start_fen, chess960=True)
        await opponent.start(recorder)
        engine_moves = 0
        try:
            while not game.is_over and len(game.moves) < 60:
                if game.turn == engine_side:
                    move = await next_move(recorder, engine_moves)
                    engine_moves += 1
                    assert game.position.is_legal(move), (move, game.fen())
                    if game.position.is_castling(move):   # king takes its own rook
                        assert game.position.piece_at(move.to_square).piece_type == ROOK
                        castles.append((number, move.uci()))
                else:
                    # The local side castles whenever it can (the engine must follow it), else plays at random.
                    legal = sorted(game.position.legal_moves(), key=Move.uci)
                    own = [m for m in legal if game.position.is_castling(m)]
                    move = own[0] if own else rng.choice(legal)
                    if own:
                        castles.append((number, move.uci()))
                game.push(move)
                opponent.on_move(move)
        finally:
            await opponent.stop()
    assert len(castles) >= 2, "castling on both sides of the board, the engine following"


async def test_an_engine_without_uci_chess960_is_refused_with_its_reason(tmp_path):
    path, args = fake_engine(tmp_path, "nonsense")
    opponent = EngineOpponent(BLACK, config=EngineLaunch(path, args=args), start_fen=start_fen(100), chess960=True)
    recorder = Recorder()
    with pytest.raises(EngineError, match="UCI_Chess960"):
        await opponent.start(recorder)
    await opponent.stop()
