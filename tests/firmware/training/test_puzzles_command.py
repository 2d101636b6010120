"""`echiquier puzzles`: Stockfish games to a PGN file, puzzles mined from a PGN file to JSON lines; bad input is a clear message and exit code 2, never a traceback."""
from __future__ import annotations

import os

import pytest

from chess_core import PgnGame, read_games
from firmware.cli import main
from firmware.training.puzzles import load
from uci.engine import DEFAULT_ENGINE_PATH

needs_stockfish = pytest.mark.skipif(not os.access(DEFAULT_ENGINE_PATH, os.X_OK), reason="no Stockfish")

# Black's queen leaves the back rank: a mate in 2 for White (1. Re8+ Rxe8 2. Rxe8#)
MATE_IN_TWO = """[Event "test"]
[Site "back rank"]
[FEN "r2q2k1/5ppp/8/8/8/8/4RPPP/4R1K1 w - - 0 1"]
[SetUp "1"]
[Result "*"]

1. h3 Qh4 *
"""


@pytest.mark.parametrize("argv, message", [
    (["puzzles", "mine", "missing.pgn", "--out", "p.jsonl"], "cannot read missing.pgn"),
    (["puzzles", "mine", "garbage.pgn", "--out", "p.jsonl"], "holds no game that can be read"),
    (["puzzles", "mine", "garbage.pgn", "--out", "p.jsonl", "--limit", "0"], "--limit must be > 0"),
    (["puzzles", "mine", "garbage.pgn", "--out", "p.jsonl", "--scout-nodes", "-1"], "--scout-nodes must be >= 0"),
    (["puzzles", "games", "--count", "0", "--out", "g.pgn"], "--count must be > 0"),
    (["puzzles", "games", "--count", "1", "--skills", "5-30", "--out", "g.pgn"], "--skills must be LOW-HIGH"),
    (["puzzles", "games", "--count", "1", "--max-slip", "1.5", "--out", "g.pgn"], "--max-slip must be within 0..1"),
    (["puzzles", "games", "--count", "1", "--out", "no/such/dir/g.pgn"], "cannot write no/such/dir/g.pgn"),
])
def test_bad_input_is_a_message_and_exit_code_2(argv, message, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "garbage.pgn").write_text("1. e4 e5 2. Qxf9 *\n\n[Event\n")
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


@needs_stockfish
def test_mining_a_pgn_file_writes_its_puzzles_as_json_lines(tmp_path, capsys):
    (tmp_path / "games.pgn").write_text(MATE_IN_TWO)
    out = tmp_path / "puzzles.jsonl"
    assert main(["puzzles", "mine", str(tmp_path / "games.pgn"), "--out", str(out), "--scan-nodes", "20000",
                 "--nodes", "150000", "--reply-nodes", "50000"]) == 0
    [puzzle] = load(out)
    assert puzzle.solution == ("e2e8", "a8e8", "e1e8") and puzzle.blunder == "d8h4"
    assert puzzle.source == "back rank ply 2"
    assert "1 puzzles" in capsys.readouterr().err


@needs_stockfish
def test_stockfish_games_are_written_as_pgn(tmp_path):
    out = tmp_path / "games.pgn"
    assert main(["puzzles", "games", "--count", "2", "--nodes", "100", "--seed", "3", "--out", str(out)]) == 0
    games = list(read_games(out.read_text()))
    assert len(games) == 2 and all(isinstance(g, PgnGame) and g.game.moves for g in games)
    assert games[0].headers["Site"] == "seed 3 game 1"
    assert "skill" in games[0].headers["White"] and "nodes" in games[0].headers["Black"]
    assert games[0].headers["Seed"].isdigit()       # the seed of the game's own random moves
