"""Chess960 castling read from the board in every order: king first, rook first, both lifted; the king or
the rook staying where it is; each landing on the other's square; and random 960 games played by
simulated hands (every castling order, captures of every kind) replayed exactly, as `echiquier replay
--variant chess960` does."""
from __future__ import annotations

from collections import Counter

import chess
import pytest

from chess_core.chess960 import start_fen
from firmware.commands.replay import game_json, replay
from firmware.referee.inference import WAIT_CASTLE, VerdictKind
from firmware.referee.match import MatchConfig
from tests.fakes.hands import Hand, capture_game, random_game

# Positions (White to castle) and the castling move, king takes rook.
KING_STAYS = ("4k3/8/8/8/8/8/8/6KR w H - 0 1", "g1h1")          # king g1 stays, rook h1-f1
ROOK_STAYS = ("4k3/8/8/8/8/8/8/4KR2 w F - 0 1", "e1f1")         # king e1-g1 over the rook, rook f1 stays
SWAP = ("4k3/8/8/8/8/8/8/5KR1 w G - 0 1", "f1g1")               # king f1-g1, rook g1-f1
KING_ONTO_ROOK = ("4k3/8/8/8/8/8/8/4K1R1 w G - 0 1", "e1g1")   # king e1-g1 (the rook's square), rook g1-f1
ROOK_ONTO_KING = ("4k3/8/8/8/8/8/8/5K1R w H - 0 1", "f1h1")    # rook h1-f1 (the king's square), king f1-g1
APART = ("4k3/8/8/8/8/8/8/RK6 w A - 0 1", "b1a1")              # king b1-c1, rook a1-d1 (a side)
BLACK_SWAP = ("1rk5/8/8/8/8/8/8/4K3 b b - 0 1", "c8b8")         # a side: king c8 stays, rook b8-d8


def play(case, steps, *, colour=False):
    fen, _ = case
    hand = Hand(fen, chess960=True, colour=colour)
    for action, *squares in steps:
        getattr(hand, action)(*squares)
    hand.settle()
    return hand


@pytest.mark.parametrize("colour", [False, True])
@pytest.mark.parametrize("case, steps", [
    # The king stays: it is lifted and set back (before, during or after the rook's move).
    (KING_STAYS, [("move", "h1", "f1"), ("lift", "g1"), ("place", "g1")]),
    (KING_STAYS, [("lift", "g1"), ("move", "h1", "f1"), ("place", "g1", 0)]),
    (KING_STAYS, [("lift", "g1"), ("lift", "h1"), ("place", "f1"), ("place", "g1")]),
    # The rook stays: the king goes over it; the rook may be touched.
    (ROOK_STAYS, [("move", "e1", "g1")]),
    (ROOK_STAYS, [("lift", "f1"), ("lift", "e1"), ("place", "g1", 0), ("place", "f1", 0)]),
    (ROOK_STAYS, [("move", "e1", "g1"), ("lift", "f1"), ("place", "f1")]),
    # Swapped squares: both in the hand at once.
    (SWAP, [("lift", "f1"), ("lift", "g1"), ("place", "f1"), ("place", "g1")]),
    (SWAP, [("lift", "g1"), ("lift", "f1"), ("place", "g1"), ("place", "f1")]),
    # The king onto the rook's square: rook first (a rook move until the king comes), or both lifted.
    (KING_ONTO_ROOK, [("move", "g1", "f1"), ("move", "e1", "g1")]),
    (KING_ONTO_ROOK, [("lift", "e1"), ("lift", "g1"), ("place", "f1"), ("place", "g1")]),
    (KING_ONTO_ROOK, [("lift", "g1"), ("lift", "e1"), ("place", "g1"), ("place", "f1")]),
    # The rook onto the king's square: king first (a king move until the rook comes), or both lifted.
    (ROOK_ONTO_KING, [("move", "f1", "g1"), ("move", "h1", "f1")]),
    (ROOK_ONTO_KING, [("lift", "h1"), ("lift", "f1"), ("place", "g1"), ("place", "f1")]),
    # All four squares apart, as in standard chess.
    (APART, [("move", "b1", "c1"), ("move", "a1", "d1")]),
    (APART, [("move", "a1", "d1"), ("move", "b1", "c1")]),
    (APART, [("lift", "a1"), ("lift", "b1"), ("place", "c1"), ("place", "d1")]),
    # Black, a side, the king staying on c8.
    (BLACK_SWAP, [("move", "b8", "d8"), ("lift", "c8"), ("place", "c8")]),
])
def test_960_castling_in_every_order(case, steps, colour):
    hand = play(case, steps, colour=colour)
    assert hand.moves() == [case[1]], hand.verdicts
    assert hand.position.fen() == _after(*case)
    assert VerdictKind.ILLEGAL not in hand.kinds()


def _after(fen: str, uci: str) -> str:
    board = chess.Board(fen, chess960=True)
    board.push_uci(uci)
    return board.fen()


def test_the_rook_over_a_king_that_stays_is_castling_at_once():
    hand = play(KING_STAYS, [("move", "h1", "f1")])
    assert hand.moves() == ["g1h1"]


def test_a_rook_move_that_castling_could_also_explain_waits_for_the_king_then_is_amended():
    # King f1, rook h1: the rook on g1 is a rook move, or the first half of castling (king to g1).
    hand = play(ROOK_ONTO_KING, [("move", "h1", "g1")])
    assert hand.moves() == ["h1g1"]
    hand = Hand(ROOK_ONTO_KING[0], chess960=True)
    hand.lift("h1")
    hand.lift("f1")
    hand.place("g1", 0)
    hand.wait(WAIT_CASTLE + 1)  # a pause with the rook in the hand
    hand.place("f1", 0)
    hand.settle()
    assert hand.moves() == ["f1h1"]


def test_a_king_move_onto_the_rooks_destination_is_amended_when_the_rook_follows():
    hand = play(ROOK_ONTO_KING, [("move", "f1", "g1")])
    assert hand.moves() == ["f1g1"]
    hand.move("h1", "f1")
    hand.settle()
    assert hand.moves() == ["f1h1"]


def test_king_and_rook_put_back_one_at_a_time_is_no_move():
    hand = play(SWAP, [("lift", "f1"), ("place", "f1"), ("lift", "g1"), ("place", "g1")])
    assert hand.moves() == []


def test_a_one_square_king_move_with_the_rook_untouched_is_a_king_move():
    hand = play(KING_ONTO_ROOK, [("move", "e1", "f1")])
    assert hand.moves() == ["e1f1"]


# -- generated games: every castling order, through the whole pipeline ---------------------------

def check_960(seed: int, *, noise: str = "bounce", colour: bool = False) -> Counter:
    number = seed * 7 % 960
    fen = start_fen(number)
    moves = random_game(seed, fen=fen, max_plies=70, chess960=True)
    capture = capture_game(moves, fen=fen, seed=seed, colour=colour, noise=noise, chess960=True,
                           hold_rate=0.03, touch_rate=0.0, correct_rate=0.03)
    match = replay(capture.lines, MatchConfig(fen=fen, chess960=True, exact_dead_positions=False))
    data = game_json(match)
    where = f"seed {seed}, position {number}, noise {noise}{' (colour)' if colour else ''}"
    assert data["moves"] == moves, where
    assert data["problems"] == [], where
    board = chess.Board(fen, chess960=True)
    for move in moves:
        board.push_uci(move)
    assert data["fen"] == board.fen(), where
    outcome = board.outcome(claim_draw=False)
    assert data["result"] == (outcome.result() if outcome else "*"), where
    assert data.get("gestures", []) == [], where
    return capture.patterns


def test_random_960_games_replay_exactly():
    patterns: Counter = Counter()
    for seed in range(40):
        patterns += check_960(seed, colour=seed % 4 == 3)
    assert patterns["castling, king first"] + patterns["castling, rook first"] + patterns["castling, both lifted"] >= 30


@pytest.mark.slow
def test_many_random_960_games_replay_exactly_with_every_castling_order():
    patterns: Counter = Counter()
    games = 0
    for seed in range(40, 440):
        patterns += check_960(seed, noise=("clean", "bounce", "rough")[seed % 3], colour=seed % 4 == 3)
        games += 1
    for name in ("castling, king first", "castling, rook first", "castling, both lifted", "castling 960, king stays",
                 "castling 960, rook stays", "castling 960, swap", "castling 960, onto the other's square",
                 "capture, victim first", "capture, mover first", "capture, swept"):
        assert patterns[name] >= 5, (name, patterns)
    print(f"{games} random 960 games replayed exactly: {dict(patterns)}")


def test_replay_command_with_a_960_start_position(tmp_path, capsys):
    import json

    from firmware.cli import main
    fen = start_fen(323)  # bnrqkrnb: the king on e1 between rooks on c1 and f1
    moves = ["g2g3", "g7g6", "g1f3", "d7d6", "e1f1", "d8d7", "d2d3", "e8c8"]  # the rook stays; the king onto the rook
    path = tmp_path / "game.capture"
    path.write_text("\n".join(capture_game(moves, fen=fen, seed=3, chess960=True).lines) + "\n")
    assert main(["replay", str(path), "--start-position", "323", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["moves"] == moves and data["san"][4::3] == ["O-O", "O-O-O"] and data["problems"] == []
    assert main(["replay", str(path), "--variant", "chess960", "--fen", fen]) == 0
    pgn = capsys.readouterr().out
    assert '[Variant "Chess960"]' in pgn and f'[FEN "{fen}"]' in pgn and "O-O" in pgn
    assert main(["replay", str(path), "--start-position", "960"]) == 2
    assert "0 to 959" in capsys.readouterr().err
    assert main(["replay", str(path), "--fen", fen]) == 2
    assert "add --variant chess960" in capsys.readouterr().err
