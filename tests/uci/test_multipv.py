"""MultiPV in the UCI client: every line's last info, best first, the main line's info as before, and the search's progress as it comes."""
from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

import pytest

from chess_core import STARTING_FEN
from uci.engine import DEFAULT_ENGINE_PATH, EngineLaunch, SearchLimit, UciEngine

needs_stockfish = pytest.mark.skipif(not os.access(DEFAULT_ENGINE_PATH, os.X_OK), reason="no Stockfish")


def scripted_engine(tmp_path: Path, lines: list[str]) -> EngineLaunch:
    """An 'engine' that answers every ``go`` with ``lines`` then ``bestmove e2e4``."""
    script = tmp_path / "engine.py"
    script.write_text(textwrap.dedent(f"""
        import sys
        for line in sys.stdin:
            word = line.split()[0] if line.split() else ""
            if word == "uci":
                print("id name Scripted", flush=True)
                print("option name MultiPV type spin default 1 min 1 max 500", flush=True)
                print("uciok", flush=True)
            elif word == "isready":
                print("readyok", flush=True)
            elif word == "go":
                for answer in {lines!r}:
                    print(answer, flush=True)
                print("bestmove e2e4", flush=True)
            elif word == "quit":
                break
    """))
    return EngineLaunch(path=sys.executable, args=(str(script),))


async def test_each_line_keeps_its_last_info_best_first(tmp_path):
    launch = scripted_engine(tmp_path, [
        "info depth 1 multipv 1 score cp 40 pv e2e4",
        "info depth 1 multipv 2 score cp 30 pv d2d4",
        "info depth 2 multipv 1 score cp 35 pv e2e4 e7e5",
        "info depth 2 multipv 2 score cp 20 pv g1f3",
        "info string NNUE evaluation using nn.nnue",
    ])
    seen = []
    async with UciEngine(launch) as engine:
        await engine.set_option("MultiPV", 2)
        found = await engine.play(STARTING_FEN, [], SearchLimit(depth=2), on_info=seen.append)
    assert [line["pv"] for line in found.lines] == ["e2e4 e7e5", "g1f3"]
    assert found.info == found.lines[0]          # the main line's, not the last line printed
    assert [(i["depth"], i["multipv"]) for i in seen] == [("1", "1"), ("1", "2"), ("2", "1"), ("2", "2")]


async def test_without_multipv_the_answer_is_as_before(tmp_path):
    launch = scripted_engine(tmp_path, ["info depth 1 score cp 12 pv e2e4", "info depth 2 score cp 18 pv e2e4"])
    async with UciEngine(launch) as engine:
        found = await engine.play(STARTING_FEN, [], SearchLimit(depth=2))
        again = await engine.play(STARTING_FEN, [], SearchLimit(depth=2))
    assert found.info["score"] == "cp 18" and found.lines == (found.info,)
    assert again.lines == found.lines            # (nothing left over from the search before)


@needs_stockfish
async def test_stockfish_gives_as_many_lines_as_asked():
    async with UciEngine(EngineLaunch(options={"Threads": 1, "Hash": 16, "MultiPV": 3})) as engine:
        found = await engine.play(STARTING_FEN, [], SearchLimit(nodes=20_000))
    assert len(found.lines) == 3
    assert [line["multipv"] for line in found.lines] == ["1", "2", "3"]
    assert len({line["pv"].split()[0] for line in found.lines}) == 3
    assert found.move is not None and found.lines[0]["pv"].split()[0] == found.move.uci()
