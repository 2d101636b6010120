"""The recorder: PGN files named after the game, the game in progress, writes that survive a crash."""
from __future__ import annotations

import doctest
import json
import os
from datetime import datetime

import chess.pgn
import pytest

import firmware.session.recorder
from chess_core import BLACK, Move, Outcome, Termination
from durable.atomic_file import write_atomically as atomic_write
from firmware.session.recorder import Recorder, safe_name

START = datetime(2026, 11, 29, 19, 30, 12)


def test_doctests():
    assert doctest.testmod(firmware.session.recorder).failed == 0


def test_the_file_is_named_after_date_time_and_players(tmp_path):
    rec = Recorder(tmp_path).new_record(START, "Ada Lovelace", "Émile/Zola")
    assert rec.pgn_name == "2026-11-29_1930_Ada_Lovelace-vs-Emile_Zola.pgn"


def test_names_never_collide(tmp_path):
    recorder = Recorder(tmp_path)
    first = recorder.new_record(START, "White", "Black")
    recorder.save(first)
    second = recorder.new_record(START, "White", "Black")
    assert second.pgn_name == "2026-11-29_1930_White-vs-Black-2.pgn"


@pytest.mark.parametrize("raw", ["", "..", "/", "   ", "../../etc/passwd"])
def test_names_cannot_escape_the_games_dir(raw):
    name = safe_name(raw)
    assert "/" not in name and not name.startswith(".")


def _record(recorder, moves=("e2e4", "e7e5", "g1f3"), clocks=(299_000, 295_500, 290_100)):
    rec = recorder.new_record(START, "Ada", "Bob", time_control="300+2")
    rec.moves, rec.clocks = list(moves), list(clocks)
    return rec


def test_saving_writes_the_pgn_with_headers_and_clocks(tmp_path):
    recorder = Recorder(tmp_path)
    rec = _record(recorder)
    recorder.save(rec)
    text = (tmp_path / "games" / rec.pgn_name).read_text()
    game = chess.pgn.read_game(__import__("io").StringIO(text))
    assert game.headers["White"] == "Ada" and game.headers["Black"] == "Bob"
    assert game.headers["Date"] == "2026.11.29" and game.headers["TimeControl"] == "300+2"
    assert game.headers["Result"] == "*"
    assert [m.uci() for m in game.mainline_moves()] == ["e2e4", "e7e5", "g1f3"]
    assert [node.clock() for node in game.mainline()] == [299.0, 295.5, 290.1]


def test_the_result_and_termination_are_written_at_the_end(tmp_path):
    recorder = Recorder(tmp_path)
    rec = _record(recorder)
    rec.set_outcome(Outcome(Termination.RESIGNATION, BLACK))
    recorder.save(rec)
    text = recorder.pgn_path(rec).read_text()
    assert '[Result "0-1"]' in text and "Black wins by resignation" in text
    assert text.rstrip().endswith("0-1")


def test_the_game_in_progress_round_trips(tmp_path):
    recorder = Recorder(tmp_path)
    rec = _record(recorder)
    rec.swapped = True
    recorder.save(rec)
    loaded = Recorder(tmp_path).load()
    assert loaded == rec
    assert loaded.game().moves == [Move.from_uci(u) for u in rec.moves]
    assert json.loads((tmp_path / "current.json").read_text())["version"] == 1


def test_a_finished_game_restores_its_outcome(tmp_path):
    recorder = Recorder(tmp_path)
    rec = _record(recorder)
    rec.set_outcome(Outcome(Termination.TIME_FORFEIT, BLACK))
    recorder.save(rec)
    assert recorder.load().game().outcome == Outcome(Termination.TIME_FORFEIT, BLACK)


def test_no_saved_game(tmp_path):
    assert Recorder(tmp_path).load() is None


@pytest.mark.parametrize("content", ["{", '{"version": 7}', json.dumps(
    {"version": 1, "pgn_name": "x.pgn", "started": "2026-01-01T00:00:00", "moves": ["e2e5"]})])
def test_a_damaged_record_is_set_aside(tmp_path, content):
    (tmp_path / "current.json").write_text(content)
    assert Recorder(tmp_path).load() is None
    assert (tmp_path / "current.json.damaged").exists() and not (tmp_path / "current.json").exists()


def test_atomic_write_replaces_the_file_whole(tmp_path, monkeypatch):
    path = tmp_path / "f.txt"
    atomic_write(path, "old")

    def crash(*args):
        raise OSError("power cut")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError):
        atomic_write(path, "new and longer")
    assert path.read_text() == "old"  # the interrupted write left the old file as it was
    monkeypatch.undo()
    atomic_write(path, "new")
    assert path.read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.txt"]


def test_comments_by_ply_go_into_the_pgn_and_survive_a_reload(tmp_path):
    from chess_core import Game, Move
    recorder = Recorder(tmp_path)
    record = recorder.new_record(datetime(2026, 1, 2, 3, 4), "Ann (Stockfish from move 2)", "Bob",
                                 moves=["e2e4", "e7e5", "g1f3"], comments={"3": "Stockfish plays White from here"})
    game = Game()
    for uci in record.moves:
        game.push(Move.from_uci(uci))
    recorder.save(record, game)
    text = recorder.pgn_path(record).read_text()
    assert '[White "Ann (Stockfish from move 2)"]' in text
    assert "2. Nf3 { Stockfish plays White from here } *" in text
    assert recorder.load().comments == {"3": "Stockfish plays White from here"}
