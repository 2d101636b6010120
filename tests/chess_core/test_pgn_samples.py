"""Seeded random games for the PGN tests: random play with every ending, clocks and comments.

The other PGN test modules import ``random_game`` from here; the tests in this module check
that the sample they share does hold castling, en passant, promotions and every ending.
"""
from __future__ import annotations

import functools
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Optional

from chess_core.game import Game
from chess_core.move import Move
from chess_core.outcome import Termination
from chess_core.squares import BLACK, PAWN, WHITE

NAMES = ["Anne Dupont", "Müller, Jörg", "Nakamura, Hikaru", "Ōyama", "Ivanchuk, V.", "O'Brien",
         "José Raúl Capablanca", "李", "Kasparov, Garry"]
WORDS = ["good", "bad", "!!", "the", "knight", "(sic)", "$5", "[note]", "zwischenzug", "%hmm",
         ";semi", "{open", "é", "1-0", "*", "e4", "Qh5?", "long" * 9, "x" * 70]
ENDINGS = ["none", "resign", "agree", "flag", "abandon", "claim"]
SAMPLE_SIZE = 60


@dataclass
class Sample:
    """A game and what the writer is given besides it."""

    game: Game
    headers: dict[str, str] = field(default_factory=dict)
    clocks: list[Optional[int]] = field(default_factory=list)
    comments: dict[int, str] = field(default_factory=dict)
    nags: dict[int, list[int]] = field(default_factory=dict)


def _pick(rng: random.Random, game: Game) -> Move:
    moves = game.position.legal_moves()
    special = [m for m in moves if m.promotion or game.position.is_en_passant(m)
               or game.position.is_castling(m)]
    if special and rng.random() < 0.6:
        return rng.choice(special)
    pawn_moves = [m for m in moves if game.position.board[m.from_square] & 7 == PAWN]
    if pawn_moves and rng.random() < 0.3:
        return rng.choice(pawn_moves)
    return rng.choice(moves)


def _start_fen(rng: random.Random) -> Optional[str]:
    if rng.random() < 0.7:
        return None
    game = Game()
    for _ in range(rng.randint(1, 40)):
        game.push(_pick(rng, game))
        if game.outcome:
            return None
    return game.fen()


def random_game(seed: int, *, plain_text: bool = False) -> Sample:
    """Random play from the start or a random position, then a random ending.

    ``plain_text`` keeps tag values and comments to what every reader spells alike (python-chess
    does not unescape quotes in tags): ASCII letters, digits and spaces.
    """
    rng = random.Random(seed)
    game = Game(_start_fen(rng), rng.choice(["fide", "fide", "casual"]))
    for _ in range(rng.choice([0, 1, 2, 10, 40, 80, 150, 300])):
        if game.outcome:
            break
        game.push(_pick(rng, game))
    if game.outcome is None:
        _end(rng, game)
    n = len(game.moves)
    sample = Sample(game)
    clock_kind = rng.choice(["none", "all", "some", "tenths"])
    if clock_kind != "none":
        sample.clocks = [rng.randrange(0, 3 * 3600 * 1000) for _ in range(n)]
        if clock_kind == "tenths":
            sample.clocks = [ms - ms % 100 for ms in sample.clocks]
        if clock_kind == "some":
            sample.clocks = [ms if rng.random() < 0.5 else None for ms in sample.clocks][:rng.randint(0, n)]
        sample.headers["TimeControl"] = rng.choice(["300+3", "5400+30", "40/5400+30:1800+30", "?"])
    names = NAMES if not plain_text else ["Anne Dupont", "Magnus", "Player 2", "Fischer Robert"]
    sample.headers.update({"White": rng.choice(names), "Black": rng.choice(names),
                           "Event": f"Random {seed}", "Date": f"20{seed % 30:02d}.01.0{seed % 9 + 1}"})
    if rng.random() < 0.5:
        sample.headers["Annotator"] = "Echiquier" if plain_text else 'Échiquier "board" \\ v1'
        sample.headers["Site"] = "Club"
    words = WORDS if not plain_text else ["good", "bad", "knight", "zwischenzug", "x" * 70, "e4"]
    for ply in range(n + 1):
        if rng.random() < 0.15:
            sample.comments[ply] = " ".join(rng.choice(words) for _ in range(rng.randint(1, 20)))
        if ply and rng.random() < 0.1:
            sample.nags[ply] = [rng.randrange(256) for _ in range(rng.randint(1, 2))]
    return sample


def _end(rng: random.Random, game: Game) -> None:
    ending = rng.choice(ENDINGS)
    side = rng.choice([WHITE, BLACK])
    if ending == "resign":
        game.resign(side)
    elif ending == "agree":
        game.agree_draw()
    elif ending == "flag":
        game.flag(side)
    elif ending == "abandon":
        game.abandon(rng.choice([WHITE, BLACK, None]))
    elif ending == "claim":
        for move in game.position.legal_moves():
            if game.claimable_draws(move):
                game.claim_draw(move)
                return
        game.resign(side)


@functools.lru_cache(maxsize=None)
def samples() -> tuple[Sample, ...]:
    """The shared sample; tests read it and never change it."""
    return tuple(random_game(seed) for seed in range(SAMPLE_SIZE))


def test_the_sample_holds_castling_en_passant_and_promotions():
    seen: Counter = Counter()
    for sample in samples():
        pos = sample.game.start_position()
        for move in sample.game.moves:
            seen["castling"] += pos.is_castling(move)
            seen["en passant"] += pos.is_en_passant(move)
            seen["promotion"] += move.promotion is not None
            seen["underpromotion"] += move.promotion not in (None, 5)
            pos.push(move)
    assert all(seen[k] >= 3 for k in ("castling", "en passant", "promotion", "underpromotion")), seen


def test_the_sample_holds_every_kind_of_ending():
    endings = Counter(s.game.outcome.termination if s.game.outcome else None for s in samples())
    for kind in (None, Termination.RESIGNATION, Termination.AGREEMENT, Termination.TIME_FORFEIT,
                 Termination.ABANDONED):
        assert endings[kind], endings
    assert any(s.game.start_fen != Game().start_fen for s in samples())
