"""Computer analysis with the real Stockfish: evaluations equal to python-chess's at the same depth, the analysed PGN read back by python-chess, `echiquier analyse` end to end."""
from __future__ import annotations

import io
import math
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import chess
import chess.engine
import chess.pgn
import pytest

from chess_core import Move, read_game
from firmware.analysis.annotated import annotated_pgn
from firmware.analysis.engine import AnalysisLimit, evaluate_game
from firmware.analysis.judgement import BLACK, WHITE, Judgement, Score
from firmware.analysis.review import review
from firmware.openings import classify

STOCKFISH = "/usr/games/stockfish"
ROOT = Path(__file__).resolve().parents[2]
WILD = ROOT / "tests" / "chess_core" / "data" / "wild"
DEPTH = 10
pytestmark = pytest.mark.skipif(not shutil.which(STOCKFISH), reason="Stockfish is not installed")

# A real game (Deep Blue - Kasparov, 1997, game 6: 37 plies), and a short one that ends in checkmate.
DEEP_BLUE = (WILD / "pychess-kasparov-deep-blue-1997.pgn").read_text(encoding="utf-8").split("\n\n[Event")[-1]
DEEP_BLUE = "[Event" + DEEP_BLUE
SCHOLAR = '[Event "Club"]\n[White "Anna"]\n[Black "Ben"]\n[Result "1-0"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\n'


def oracle(pgn_text: str) -> list[tuple[Score, str | None]]:
    """Every position's score (White's side) and best move by python-chess's engine module: the
    same Stockfish, one thread, the same hash, the same depth, a new game per position."""
    game = chess.pgn.read_game(io.StringIO(pgn_text))
    board = game.board()
    found = []
    with chess.engine.SimpleEngine.popen_uci(STOCKFISH) as engine:
        engine.configure({"Threads": 1, "Hash": 16})
        for move in [None, *game.mainline_moves()]:
            if move is not None:
                board.push(move)
            if board.is_checkmate():
                found.append((Score.checkmated(WHITE if board.turn == chess.WHITE else BLACK), None))
                continue
            info = engine.analyse(board, chess.engine.Limit(depth=DEPTH), game=object())
            white = info["score"].white()
            score = Score(mate=white.mate()) if white.is_mate() else Score(cp=white.score())
            found.append((score, info["pv"][0].uci() if info.get("pv") else None))
    return found


async def ours(pgn_text: str):
    game = read_game(pgn_text)
    evals = await evaluate_game(game.moves, AnalysisLimit(depth=DEPTH), start_fen=game.game.start_fen)
    return game, evals


@pytest.mark.parametrize("pgn_text", [DEEP_BLUE, SCHOLAR], ids=["deep-blue-kasparov-6", "scholars-mate"])
async def test_the_evaluations_are_stockfishs_as_python_chess_gets_them(pgn_text):
    game, evals = await ours(pgn_text)
    expected = oracle(pgn_text)
    assert len(evals) == len(expected) == len(game.moves) + 1
    assert [(e.score, e.best.uci() if e.best else None) for e in evals] == expected


async def test_an_analysed_game_is_read_back_by_python_chess_with_every_evaluation_and_mark():
    game, evals = await ours(SCHOLAR)
    found = review(game.moves, evals, engine="Stockfish", limit=f"depth {DEPTH}")
    text = annotated_pgn(game, found, annotator=f"Stockfish, depth {DEPTH}", opening=classify(game.game))
    theirs = chess.pgn.read_game(io.StringIO(text))
    assert not theirs.errors
    nodes = list(theirs.mainline())
    assert [n.move.uci() for n in nodes] == [m.uci() for m in game.moves]
    for node, reviewed in zip(nodes, found.moves):
        if reviewed.score.mate == 0:          # the checkmate itself: no evaluation, as Lichess
            assert node.eval() is None
        else:
            white = node.eval().white()
            assert (white.mate() if white.is_mate() else white.score()) == (reviewed.score.mate or reviewed.score.cp)
        assert node.nags == ({reviewed.advice.judgement.nag} if reviewed.advice else set())
        if reviewed.advice:
            assert node.parent.variations[1].move.uci() == reviewed.best.uci()   # the better move, as a variation
            assert f"{reviewed.advice.text}. {reviewed.best_san} was best." in node.comment
    # 3... Nf6?? lets White mate at once: Lichess's words, its mark, the better move
    blunder = nodes[5]
    assert blunder.san() == "Nf6" and blunder.nags == {4}
    assert "Checkmate is now unavoidable. " in blunder.comment and "was best." in blunder.comment
    assert theirs.headers["Annotator"] == f"Stockfish, depth {DEPTH}"
    assert theirs.headers["ECO"] == "C23" and theirs.headers["Opening"].startswith("Bishop's Opening")
    assert "1. e4 { [%eval " in text and "4. Qxf7# 1-0" in text.replace("\n", " ")


def win(cp: int) -> float:
    return 50 + 50 * (2 / (1 + math.exp(-0.00368208 * cp)) - 1)


async def test_the_marks_follow_lichess_thresholds_on_those_evaluations():
    judged = 0
    for pgn_text in (DEEP_BLUE, SCHOLAR):
        game, evals = await ours(pgn_text)
        found = review(game.moves, evals)
        for ply, reviewed in enumerate(found.moves, start=1):
            before, after = reviewed.before, reviewed.score
            if evals[ply - 1].best == reviewed.move or before.cp is None or after.cp is None:
                continue
            mover = 1 if ply % 2 else -1          # White moves the odd plies in both games
            lost = mover * (win(before.cp) - win(after.cp)) / 50      # winning chances, -1..+1
            expected = (Judgement.BLUNDER if lost >= 0.3 else Judgement.MISTAKE if lost >= 0.2
                        else Judgement.INACCURACY if lost >= 0.1 else None)
            assert (reviewed.advice.judgement if reviewed.advice else None) is expected, ply
            judged += expected is not None
        assert found.accuracy is not None and all(0 <= a <= 100 for a in found.accuracy)
    assert judged >= 3                           # (the games have faults to judge)


def analyse(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "firmware.cli", "analyse", *args], cwd=ROOT, input=stdin,
                          capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONUNBUFFERED": "1"})


def test_echiquier_analyse_writes_the_analysed_games_and_says_each_sides_accuracy(tmp_path):
    source = tmp_path / "club.pgn"
    source.write_text(SCHOLAR, encoding="utf-8")
    out = tmp_path / "analysed.pgn"
    done = analyse(str(source), "--depth", "8", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    said = done.stderr.strip()
    assert said.startswith("game 1 (Anna - Ben): White ") and said.endswith("(1 blunder)")   # 3... Nf6??
    theirs = chess.pgn.read_game(io.StringIO(out.read_text(encoding="utf-8")))
    assert theirs.headers["Annotator"].endswith("depth 8") and theirs.end().board().is_checkmate()
    assert all(node.eval() is not None for node in list(theirs.mainline())[:-1])
    printed = analyse("-", "--movetime", "50", stdin=SCHOLAR)      # from the standard input, to the standard output
    assert printed.returncode == 0 and "[%eval" in printed.stdout and "50 ms a move" in printed.stdout


@pytest.mark.parametrize("args, says", [
    (["missing.pgn"], "cannot read missing.pgn"),
    (["-", "--depth", "0"], "the depth is 1 to 60"),
    (["-", "--movetime", "5"], "10 ms to 10 minutes"),
    (["-", "--hash", "0"], "--hash is 1 to 1024 MB"),
    (["-", "--engine", "/nonexistent/stockfish"], "cannot run the engine"),
])
def test_bad_input_is_a_clear_message_and_exit_2(args, says):
    done = analyse(*args, stdin=SCHOLAR)
    assert done.returncode == 2 and says in done.stderr and "Traceback" not in done.stderr


def test_a_file_without_a_readable_game_says_so():
    done = analyse("-", stdin="this is not a game\n")
    assert done.returncode == 2 and "no game to analyse" in done.stderr and "Traceback" not in done.stderr
    both = analyse("-", "--depth", "3", "--movetime", "10", stdin=SCHOLAR)
    assert both.returncode == 2 and "not allowed with argument" in both.stderr


def test_a_game_that_cannot_be_read_is_left_out_and_the_others_written():
    broken = SCHOLAR + '\n[Event "Broken"]\n\n1. e4 e5 2. Ke3 *\n'
    done = analyse("-", "--depth", "4", stdin=broken)
    assert done.returncode == 1 and "(left out)" in done.stderr
    assert done.stdout.count("[Event ") == 1 and "[%eval" in done.stdout


def test_the_help_names_the_eval_command_as_it_is_written():
    done = analyse("--help")
    assert done.returncode == 0 and "[%eval]" in done.stdout and "%%" not in done.stdout


@pytest.mark.parametrize("signum, whole_group, to_file", [
    (signal.SIGINT, True, True),       # Ctrl-C: the terminal signals the whole group
    (signal.SIGTERM, False, False),    # a timeout, the games on the standard output
], ids=["ctrl-c-out-file", "sigterm-stdout"])
def test_a_stopped_analysis_keeps_the_games_done(tmp_path, signum, whole_group, to_file):
    """Stopped in game 2 of 3, the output holds game 1, analysed, as valid PGN; a short line
    says so (no traceback) and the exit code is 128 + the signal's."""
    source = tmp_path / "evening.pgn"
    source.write_text(SCHOLAR + "\n" + DEEP_BLUE + "\n" + SCHOLAR, encoding="utf-8")
    out = tmp_path / "analysed.pgn"
    command = [sys.executable, "-m", "firmware.cli", "analyse", str(source), "--movetime", "100"]
    proc = subprocess.Popen(command + (["--out", str(out)] if to_file else []), cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        first = proc.stderr.readline()           # game 1 is written before its line is printed
        assert first.startswith("game 1 (Anna - Ben): "), first
        if whole_group:
            os.killpg(proc.pid, signum)
        else:
            proc.send_signal(signum)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 128 + signum, stderr
    assert "Traceback" not in stderr
    assert f"stopped ({signal.Signals(signum).name}): 1 of 3 games analysed and written" in stderr
    text = out.read_text(encoding="utf-8") if to_file else stdout
    handle = io.StringIO(text)
    theirs = chess.pgn.read_game(handle)
    assert chess.pgn.read_game(handle) is None         # game 1 alone
    assert not theirs.errors and theirs.headers["White"] == "Anna" and theirs.end().board().is_checkmate()
    assert all(node.eval() is not None for node in list(theirs.mainline())[:-1])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["analysed.pgn", "evening.pgn"][not to_file:]


def test_the_analysed_file_is_written_with_the_users_mode_not_the_services(tmp_path):
    """A tester found analyse's output created 0640, the mode of the service's private files:
    a new file follows the umask as any file of the user's does; an existing one keeps its mode."""
    import os

    from firmware.commands.analyse import Output
    old = os.umask(0o022)
    try:
        out = tmp_path / "new.pgn"
        Output(str(out)).add('[Event "?"]\n\n*\n')
        assert out.stat().st_mode & 0o777 == 0o644
        kept = tmp_path / "kept.pgn"
        kept.write_text("")
        kept.chmod(0o600)
        Output(str(kept)).add('[Event "?"]\n\n*\n')
        assert kept.stat().st_mode & 0o777 == 0o600
    finally:
        os.umask(old)
