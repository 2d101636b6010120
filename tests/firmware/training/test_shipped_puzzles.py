"""The shipped puzzles: they load, are legal by python-chess's rules, and (slow, a sample) Stockfish driven by python-chess, deeper than the miner, finds every solver move the only winning one."""
from __future__ import annotations

import collections
import json
import os
import random

import pytest

from firmware.training.puzzles import DEFAULT_FILE, load
from firmware.training.themes import themes
from tests.firmware.training.puzzle_check import STOCKFISH, refusal, replay

RECORDS = [json.loads(line) for line in DEFAULT_FILE.read_text().splitlines() if line.strip()]


def test_the_shipped_collection_loads_with_one_id_each_and_ratings_on_lichesss_scale():
    puzzles = load()
    assert len(puzzles) == len(RECORDS) >= 100
    assert len({p.id for p in puzzles}) == len(puzzles)
    assert len({" ".join(p.fen.split()[:4]) for p in puzzles}) == len(puzzles)
    assert all(600 <= p.rating <= 2600 for p in puzzles)


def test_every_puzzle_is_legal_by_python_chess_and_its_themes_are_todays():
    for record, puzzle in zip(RECORDS, load()):
        replay(record)      # raises on an illegal blunder or solution
        assert puzzle.themes == themes(puzzle.fen, puzzle.solution, puzzle.before, puzzle.blunder), puzzle.id


def test_the_collection_has_mates_and_tactics():
    counts = collections.Counter(theme for p in load() for theme in p.themes)
    assert counts["mateIn1"] and counts["mateIn2"] and counts["fork"] and counts["pin"]


SAMPLE = 30   # puzzles checked at each run (about 80 s); the whole file is checked when it changes:
#               python -m tests.firmware.training.puzzle_check firmware/training/data/puzzles.jsonl
#               (its figure is in firmware/training/data/SOURCE.md)


@pytest.mark.slow
@pytest.mark.timeout(1200)
@pytest.mark.skipif(not os.access(STOCKFISH, os.X_OK), reason="no Stockfish")
def test_stockfish_through_python_chess_confirms_every_solver_move_is_the_only_winning_one():
    import chess.engine

    sample = random.Random(len(RECORDS)).sample(RECORDS, min(SAMPLE, len(RECORDS)))   # (another with the file)
    with chess.engine.SimpleEngine.popen_uci(STOCKFISH) as engine:
        engine.configure({"Threads": 1, "Hash": 64})
        refused = {r["id"]: why for r in sample if (why := refusal(engine, r)) is not None}
    assert refused == {}, f"{len(sample) - len(refused)} of {len(sample)} pass"
