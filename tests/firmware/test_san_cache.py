"""The session's SAN cache: right after moves, takebacks and new games; extended, never replayed."""
from __future__ import annotations

import random

from chess_core import Game, Move, Position
from firmware.session.state import SanCache


class CountingPosition(Position):
    pushes = 0

    def push(self, move: Move) -> None:
        CountingPosition.pushes += 1
        super().push(move)


def random_game(seed: int, plies: int) -> Game:
    rng = random.Random(seed)
    game = Game()
    while len(game.moves) < plies and not game.is_over:
        game.push(rng.choice(game.position.legal_moves()))
    return game


def test_each_update_replays_only_the_new_moves(monkeypatch):
    monkeypatch.setattr(Game, "start_position", lambda self: CountingPosition(self.start_fen))
    game = random_game(7, 120)
    played = list(game.moves)
    for _ in range(len(played)):
        game.pop()
    cache = SanCache()
    CountingPosition.pushes = 0
    for move in played:
        game.push(move)
        cache.update(game)
        cache.update(game)  # nothing new: nothing replayed
    assert CountingPosition.pushes == len(played)
    assert cache.en == game.san_moves("en")


def test_takebacks_replaced_moves_and_new_games_are_seen():
    game = random_game(3, 60)
    cache = SanCache()
    cache.update(game)
    assert cache.en == game.san_moves("en")
    # Take back three plies and play other moves to the same length: the SAN follows.
    rng = random.Random(1)
    for _ in range(3):
        game.pop()
    for _ in range(3):
        game.push(rng.choice(game.position.legal_moves()))
    cache.update(game)
    assert cache.en == game.san_moves("en")
    for _ in range(5):
        game.pop()
    cache.update(game)
    assert cache.en == game.san_moves("en")
    # A new game, even with the same moves from another start, is read from its own start.
    other = Game("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    other.push(Move.from_uci("e1g1"))
    cache.update(other)
    assert cache.en == ["O-O"]
    fresh = random_game(3, 10)
    cache.update(fresh)
    assert cache.en == fresh.san_moves("en")
