"""`echiquier replay` reads gestures as `echiquier run` does: the same capture, the same game."""
from __future__ import annotations

from pathlib import Path

import chess
import chess.pgn

from firmware.commands.replay import game_json, replay
from firmware.referee.match import MatchConfig
from firmware.service import Service
from tests.fakes.hands import capture_game, stepped_lines

from .test_service import FakeNotifier

OPENING = ["g1f3", "g8f6"]


def sq(name: str) -> int:
    return 1 << chess.parse_square(name)


def with_kings(moves: list[str], steps: list[tuple[int, list[str], list[str]]]) -> list[str]:
    """The capture of ``moves``, then at each (ms after the last line, lift, place) step the squares
    named lifted and placed (occupancy only)."""
    capture = capture_game(moves, seed=3, amend_rate=0, hesitate_rate=0, bounce=False)
    board = chess.Board()
    for m in moves:
        board.push_uci(m)
    lines, _, _ = stepped_lines(int(board.occupied), capture.end_ms, steps)
    return capture.lines + lines


def run_service(tmp_path: Path, lines: list[str]):
    import asyncio
    from firmware.config import load_config
    (tmp_path / "game.cap").write_text("\n".join(lines) + "\n")
    config = tmp_path / "config.toml"
    config.write_text('[board]\nsensors = "replay"\ncapture = "game.cap"\nspeed = 0\n[storage]\ndir = "state"\n')
    assert asyncio.run(Service(load_config(config), notifier=FakeNotifier()).run()) == 0
    games = sorted((tmp_path / "state" / "games").glob("*.pgn"))
    return chess.pgn.read_game(open(games[-1], encoding="utf-8"))


KINGS_LIGHT = [(1000, ["e1"], []), (300, ["e8"], []), (300, [], ["d5"]), (300, [], ["e4"])]
KINGS_HOME = [(400, ["d5"], []), (300, ["e4"], []), (300, [], ["e1"]), (300, [], ["e8"])]


def test_a_result_set_with_the_kings_ends_the_replay_as_it_ends_the_run(tmp_path):
    lines = with_kings(OPENING, KINGS_LIGHT + [(4000, ["a2"], [])])
    match = replay(lines, MatchConfig())
    data = game_json(match)
    assert (data["moves"], data["result"], data["termination"]) == (OPENING, "1-0", "resignation")
    assert len(data["gestures"]) == 1 and "1-0" in data["gestures"][0]
    assert data["problems"] == []   # the kings on their way to the centre are no wrong board
    game = run_service(tmp_path, lines)
    assert [m.uci() for m in game.mainline_moves()] == OPENING and game.headers["Result"] == "1-0"


def test_a_result_taken_back_in_time_replays_as_the_game_going_on(tmp_path):
    board = chess.Board()
    for m in OPENING:
        board.push_uci(m)
    lines = with_kings(OPENING, KINGS_LIGHT + [(3500, [], [])] + KINGS_HOME
                       + [(1500, ["b1"], []), (400, [], ["c3"]), (3000, [], [])])
    data = game_json(replay(lines, MatchConfig()))
    assert data["moves"] == OPENING + ["b1c3"] and data["result"] == "*"
    assert [g.split(": ")[1] for g in data["gestures"]] == ["1-0 (resigned by gesture)", "1-0 taken back"]
    assert data["problems"] == []
    game = run_service(tmp_path, lines)
    assert [m.uci() for m in game.mainline_moves()] == OPENING + ["b1c3"] and game.headers["Result"] == "*"


def test_holding_the_king_twenty_seconds_replays_as_no_gesture():
    lines = with_kings(OPENING, [(1000, ["e1"], []), (20000, [], ["e1"]), (1000, ["e2"], []), (300, [], ["e4"]),
                                 (2000, [], [])])
    data = game_json(replay(lines, MatchConfig()))
    assert data["moves"] == OPENING + ["e2e4"] and data["gestures"] == [] and data["result"] == "*"


def test_a_king_alone_moved_onto_the_centre_is_still_a_problem():
    lines = with_kings(OPENING, [(1000, ["e1"], []), (300, [], ["d5"]), (3000, [], [])])
    data = game_json(replay(lines, MatchConfig()))
    assert "e1 d5" in data["problems"][0] and data["gestures"] == []


def test_the_new_piece_lifted_and_put_back_replays_as_in_the_run_a_queen(tmp_path):
    fen = "8/1P5k/8/8/8/8/6p1/K7 w - - 0 1"
    capture = capture_game(["b7b8q"], fen=fen, seed=2, amend_rate=0, hesitate_rate=0, bounce=False)
    t = capture.end_ms
    after = chess.Board(fen)
    after.push_uci("b7b8q")
    occ = int(after.occupied)
    lines = capture.lines + [f"{t + 300} {occ & ~sq('b8'):016x}", f"{t + 600} {occ:016x}",   # the exchange
                             f"{t + 900} {occ & ~sq('b8'):016x}", f"{t + 1200} {occ:016x}",  # straightened
                             f"{t + 3000} {occ:016x}"]
    data = game_json(replay(lines, MatchConfig(fen=fen)))
    assert data["moves"] == ["b7b8q"] and data["gestures"] == []
