"""`echiquier replay` prints the tags that `echiquier run` records for the same capture (the opening's ECO and name)."""
from __future__ import annotations

import io

import chess.pgn

from firmware.cli import main
from firmware.openings import BOOK
from tests.fakes.hands import capture_game

from .test_replay_gestures import run_service

RUY_LOPEZ = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6", "e1g1"]
ANY_GAME = ("Event", "Site", "Date", "Time", "Round", "White", "Black", "Result", "TimeControl", "Termination")


def test_replay_names_the_opening_as_the_run_records_it(tmp_path, capsys):
    BOOK.index()   # (on a board the book is read long before an opening is played: run names it then)
    lines = capture_game(RUY_LOPEZ, seed=5, amend_rate=0, hesitate_rate=0).lines
    recorded = run_service(tmp_path, lines)
    assert [m.uci() for m in recorded.mainline_moves()] == RUY_LOPEZ
    (tmp_path / "same.cap").write_text("\n".join(lines) + "\n")
    assert main(["replay", str(tmp_path / "same.cap")]) == 0
    printed = chess.pgn.read_game(io.StringIO(capsys.readouterr().out))
    assert [m.uci() for m in printed.mainline_moves()] == RUY_LOPEZ
    assert recorded.headers["ECO"] == "C78"    # Ruy Lopez: Morphy Defense, ... (5. O-O)
    # every tag of the game itself as the run records it; the session's own (place, time, names) aside
    game_tags = {k: v for k, v in recorded.headers.items() if k not in ANY_GAME}
    assert {k: printed.headers.get(k) for k in game_tags} == game_tags
