"""`echiquier replay`: hand-written captures of each pattern, malformed lines, errors, output formats."""
from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from firmware.cli import main

CAPTURES = Path(__file__).parent / "captures"
# Captures that are expected to report problems, and what each problem must mention.
PROBLEMS = {
    "wrong_side_and_illegal.cap": ["squares that differ: e5 e7", "squares that differ: f1 c4"],
    "malformed.cap": ["line 6:", "line 7:", "line 8:", "line 9:"],
}


def headers(path: Path) -> dict[str, str]:
    found = {}
    for line in path.read_text().splitlines():
        if line.startswith("# ") and ":" in line:
            key, _, value = line[2:].partition(":")
            if key in ("args", "expect", "result"):
                found[key] = value.strip()
    return found


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["replay", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("name", sorted(p.name for p in CAPTURES.glob("*.cap")))
def test_hand_written_capture_replays_to_its_moves(name, capsys):
    path = CAPTURES / name
    head = headers(path)
    code, out, err = run(capsys, str(path), "--format", "json", *shlex.split(head.get("args", "")))
    assert code == 0
    data = json.loads(out)
    assert data["moves"] == head["expect"].split()
    if "result" in head:
        result, _, termination = head["result"].partition(" ")
        assert (data["result"], data["termination"]) == (result, termination)
    expected = PROBLEMS.get(name, [])
    assert len(data["problems"]) == len(expected), data["problems"]
    for problem, needle in zip(data["problems"], expected):
        assert needle in problem
    if name != "malformed.cap":
        assert err == ""


def test_malformed_lines_are_reported_on_stderr_with_their_line_numbers(capsys):
    code, out, err = run(capsys, str(CAPTURES / "malformed.cap"), "--format", "json")
    assert code == 0
    lines = err.strip().splitlines()
    assert [line.split(":")[1].strip() for line in lines] == ["line 6", "line 7", "line 8", "line 9"]
    assert "16 hex digits" in lines[1] and "promotion piece" in lines[2] and "goes back" in lines[3]


def test_pgn_output_names_the_capture_and_carries_the_clocks(capsys):
    path = CAPTURES / "quiet_moves.cap"
    code, out, _ = run(capsys, str(path), "--time-control", "300+2")
    assert code == 0
    assert f'[Event "Replay of {path}"]' in out and '[TimeControl "300+2"]' in out
    assert "1. e4 {" in out and "[%clk" in out and out.rstrip().endswith("*")


def test_missing_capture_file_exits_non_zero_with_a_clear_message(capsys, tmp_path):
    code, out, err = run(capsys, str(tmp_path / "nope.cap"))
    assert code != 0 and out == ""
    assert "cannot read" in err and "nope.cap" in err


@pytest.mark.parametrize("option, value, word", [("--fen", "not a fen", "--fen"),
                                                  ("--time-control", "5 minutes", "--time-control")])
def test_bad_options_exit_non_zero(capsys, option, value, word):
    code, _, err = run(capsys, str(CAPTURES / "quiet_moves.cap"), option, value)
    assert code == 2 and word in err


def test_binary_garbage_does_not_crash(capsys, tmp_path):
    path = tmp_path / "garbage.cap"
    path.write_bytes(bytes(range(256)) * 4)
    code, out, err = run(capsys, str(path), "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["moves"] == [] and data["problems"] and err


def test_empty_capture_gives_an_empty_game(capsys, tmp_path):
    path = tmp_path / "empty.cap"
    path.write_text("# nothing\n")
    code, out, _ = run(capsys, str(path), "--format", "json")
    assert code == 0 and json.loads(out)["moves"] == [] and json.loads(out)["result"] == "*"


def test_a_capture_that_never_shows_the_start_position_says_so(capsys):
    """A capture of a composed position replayed without its --fen: the board never showed the
    start, so no game began; the replay says what to give instead of printing an empty game."""
    code, out, err = run(capsys, str(CAPTURES / "promotion.cap"), "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["moves"] == []
    assert any("never showed the start position" in p and "--fen" in p for p in data["problems"])
    assert "--fen" in err


def test_the_clocks_start_as_run_starts_them(capsys):
    path = CAPTURES / "quiet_moves.cap"
    _, first_move, _ = run(capsys, str(path), "--time-control", "300+2")
    assert "1. e4 { [%clk 0:05:02] }" in first_move          # [game] clock_start's default: White's first move is free
    _, at_once, _ = run(capsys, str(path), "--time-control", "300+2", "--clock-start", "at_once")
    assert "1. e4 { [%clk 0:05:02] }" not in at_once and "1. e4 { [%clk 0:05:0" in at_once


def test_a_game_left_for_the_start_position_ends_there_as_under_run(capsys, tmp_path):
    from tests.fakes.hands import capture_evening
    evening = capture_evening(2, seed=3, first=1)          # abandoned half-way, then the next game
    path = tmp_path / "evening.cap"
    path.write_text(evening.capture.text)
    code, out, err = run(capsys, str(path))
    assert code == 0
    first = evening.games[0][1]
    assert '[Termination "abandoned"]' in out and out.rstrip().endswith("*")
    assert "the start position was set up: the game is left unfinished" in err
    code, out, _ = run(capsys, str(path), "--format", "json")
    data = json.loads(out)
    assert data["moves"] == first and data["result"] == "*"   # this game's moves, none of the next one's


def test_an_evening_of_games_replays_to_every_game_in_pgn_and_json(capsys, tmp_path):
    """Issue 26 (7): a capture of an evening (games separated by setting up the start position)
    printed the first game only."""
    import chess.pgn
    import io

    from tests.fakes.hands import capture_evening
    evening = capture_evening(4, seed=5)                 # mated, abandoned, drawn without a word, mated
    path = tmp_path / "evening.cap"
    path.write_text(evening.capture.text)
    played = [moves for _, moves in evening.games]
    code, out, err = run(capsys, str(path))
    assert code == 0, err
    pgn = io.StringIO(out)
    games = []
    while (game := chess.pgn.read_game(pgn)) is not None:
        games.append(game)
    assert [[m.uci() for m in g.mainline_moves()] for g in games] == played
    assert [g.headers["Result"] for g in games] == ["1-0" if len(played[0]) % 2 else "0-1", "*", "*",
                                                    "1-0" if len(played[3]) % 2 else "0-1"]
    assert [g.headers.get("Termination") for g in games][1:3] == ["abandoned", "abandoned"]
    assert [g.headers["Round"] for g in games] == ["1", "2", "3", "4"]
    code, out, _ = run(capsys, str(path), "--format", "json")
    data = json.loads(out)
    assert [g["moves"] for g in data["games"]] == played
    assert data["moves"] == played[0] and data["result"] == data["games"][0]["result"]   # (the first, as before)
