"""Other programs read what we write, and we read what they write: python-chess and pgn-extract.

python-chess is a test-only oracle here. pgn-extract is the Debian package (installed in
/usr/games by scripts/install-system-deps.sh); its test skips, saying so, where it is missing.
"""
from __future__ import annotations

import io
import os
import random
import re
import shutil
import subprocess
from pathlib import Path

import chess
import chess.pgn
import pytest

from chess_core.pgn import PgnError, read_game, read_pgn, write_pgn

from .test_pgn_samples import SAMPLE_SIZE, Sample, random_game, samples

_CLK = re.compile(r"\[%clk [^\]]*\]")


def write(sample: Sample) -> str:
    return write_pgn(sample.game, sample.headers, sample.clocks, comments=sample.comments,
                     nags=sample.nags)


def expected_clocks(sample: Sample) -> list[float | None]:
    n = len(sample.game.moves)
    clocks = sample.clocks + [None] * (n - len(sample.clocks))
    return [None if ms is None else (ms - ms % 100) / 1000 for ms in clocks]


# -- python-chess reads our output ------------------------------------------------------------

@pytest.mark.parametrize("seed", range(SAMPLE_SIZE))
def test_python_chess_reads_our_games_with_the_same_moves_headers_and_clocks(seed):
    sample = random_game(seed, plain_text=True)  # python-chess keeps \" in tag values as is
    text = write(sample)
    theirs = chess.pgn.read_game(io.StringIO(text))
    assert theirs is not None and theirs.errors == []
    assert [m.uci() for m in theirs.mainline_moves()] == [m.uci() for m in sample.game.moves]
    assert dict(theirs.headers) == read_game(text, rules=sample.game.rules).headers
    for name, value in sample.headers.items():
        assert theirs.headers[name] == value
    assert [node.clock() for node in theirs.mainline()] == pytest.approx(expected_clocks(sample))
    board = theirs.end().board()
    ours = sample.game.position
    assert board.board_fen() == sample.game.fen().split()[0]
    assert board.turn == (ours.turn == 0)
    outcome = sample.game.outcome
    assert theirs.headers["Result"] == (outcome.result() if outcome else "*")
    if outcome is not None:
        assert f"{outcome.describe()}." in theirs.end().comment
        if outcome.termination.value == "checkmate":
            assert board.is_checkmate()
    for ply, nags in sample.nags.items():
        assert list(theirs.mainline())[ply - 1].nags == set(nags)


def test_python_chess_reads_a_whole_file_of_our_games():
    text = "\n".join(write(s) for s in samples())
    handle = io.StringIO(text)
    count = 0
    while (game := chess.pgn.read_game(handle)) is not None:
        assert game.errors == []
        count += 1
    assert count == len(samples())


# -- we read python-chess's output ------------------------------------------------------------

def python_chess_game(seed: int) -> chess.pgn.Game:
    """A python-chess game with what its exporter writes: clocks, evals, arrows, NAGs, variations."""
    rng = random.Random(seed)
    game = chess.pgn.Game()
    game.headers.update(Event=f"python-chess {seed}", White="Deep Thought", Black="Hal",
                        TimeControl="180+2")
    if rng.random() < 0.3:
        board = chess.Board()
        for _ in range(rng.randint(1, 30)):
            board.push(rng.choice(list(board.legal_moves)))
        if not board.is_game_over():
            game.setup(board)
    board = game.board()
    node: chess.pgn.GameNode = game
    if rng.random() < 0.3:
        game.comment = "A game made by python-chess"
    for _ in range(rng.choice([0, 5, 40, 120])):
        if board.is_game_over():
            break
        moves = list(board.legal_moves)
        move = rng.choice(moves)
        child = node.add_main_variation(move)
        if len(moves) > 1 and rng.random() < 0.15:
            other = rng.choice([m for m in moves if m != move])
            side = node.add_variation(other, comment="or this")
            reply = list(side.board().legal_moves)
            if reply:
                side.add_variation(reply[0]).nags.add(chess.pgn.NAG_DUBIOUS_MOVE)
        node = child
        node.set_clock(rng.randrange(0, 3 * 3600 * 1000) / 1000)
        if rng.random() < 0.1:
            node.nags.add(rng.choice([1, 2, 3, 4, 5, 6, 14, 18]))
        if rng.random() < 0.1:
            node.set_eval(chess.engine.PovScore(chess.engine.Cp(rng.randint(-300, 300)), chess.WHITE))
        if rng.random() < 0.1:
            node.comment += " a remark"
        board.push(move)
    if board.is_game_over():
        game.headers["Result"] = board.result()
    else:
        game.headers["Result"] = rng.choice(["*", "1-0", "0-1", "1/2-1/2"])
    return game


def count_variations(node: chess.pgn.GameNode) -> int:
    return sum(len(n.variations) - 1 for n in [node, *node.mainline()] if n.variations)


@pytest.mark.parametrize("seed", range(40))
def test_we_read_what_python_chess_writes(seed):
    theirs = python_chess_game(seed)
    text = str(theirs)
    pg = read_game(text)
    assert [m.uci() for m in pg.game.moves] == [m.uci() for m in theirs.mainline_moves()]
    assert pg.game.start_fen == theirs.board().fen()
    assert pg.headers == dict(theirs.headers)
    assert pg.result == theirs.headers["Result"]
    nodes = list(theirs.mainline())
    assert pg.clocks == [round(n.clock() * 1000) for n in nodes]
    assert pg.nags == {ply: sorted(n.nags) for ply, n in enumerate(nodes, 1) if n.nags}
    for ply, n in enumerate(nodes, 1):
        assert pg.comments.get(ply, "") == " ".join(_CLK.sub(" ", n.comment).split())
    assert pg.comments.get(0, "") == theirs.comment
    assert sum(len(v) for v in pg.variations.values()) == count_variations(theirs)
    assert pg.warnings == [] or pg.result != "*"


def test_we_read_a_file_of_python_chess_games():
    games = [python_chess_game(seed) for seed in range(40)]
    text = "\n\n".join(str(g) for g in games)
    errors: list[PgnError] = []
    read = read_pgn(text, errors)
    assert errors == [] and len(read) == len(games)


# -- pgn-extract reads our output -------------------------------------------------------------

def pgn_extract() -> str:
    found = shutil.which("pgn-extract")
    for path in ("/usr/games/pgn-extract", "/usr/bin/pgn-extract"):
        if found is None and os.access(path, os.X_OK):
            found = path
    if found is None:
        pytest.skip("pgn-extract is not installed: apt-get install pgn-extract "
                    "(scripts/install-system-deps.sh does it)")
    return found


def run_pgn_extract(tmp_path: Path, text: str, *args: str) -> tuple[str, str]:
    source, out, log = tmp_path / "ours.pgn", tmp_path / "out.pgn", tmp_path / "log.txt"
    source.write_text(text, encoding="utf-8")
    done = subprocess.run([pgn_extract(), "-s", *args, f"-l{log}", f"-o{out}", str(source)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    report = done.stderr + (log.read_text(encoding="utf-8", errors="replace") if log.exists() else "")
    return out.read_text(encoding="utf-8", errors="replace"), report


def test_pgn_extract_reads_our_games_without_a_single_complaint(tmp_path):
    written = samples()
    out, report = run_pgn_extract(tmp_path, "\n".join(write(s) for s in written), "-Wuci")
    assert report.strip() == ""
    blocks = re.split(r"\n\n(?=\[)", out.strip())
    assert len(blocks) == len(written)
    for sample, block in zip(written, blocks):
        tokens = block.split("\n\n", 1)[1].split() if "\n\n" in block else []
        result = sample.game.outcome.result() if sample.game.outcome else "*"
        assert tokens[-1] == result
        assert [t.lower() for t in tokens[:-1]] == [m.uci() for m in sample.game.moves]


def test_pgn_extract_keeps_our_tags_clocks_and_reasons(tmp_path):
    sample = samples()[0]
    text = write(sample)
    out, report = run_pgn_extract(tmp_path, text)
    assert report.strip() == ""
    again = read_game(out, rules=sample.game.rules)
    assert again.game.moves == sample.game.moves
    assert again.game.outcome == sample.game.outcome
    assert again.clocks == read_game(text, rules=sample.game.rules).clocks
    for name, value in sample.headers.items():
        assert again.headers[name] == value
