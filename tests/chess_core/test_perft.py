"""Perft: the move generator counts the published leaf numbers of the standard positions."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from chess_core import Position, divide, perft
from firmware.cli import main

REPO_ROOT = Path(__file__).resolve().parents[2]
PERFT_EPD = Path(__file__).parent / "data" / "perft.epd"
MAX_NODES = 2_200_000  # deeper counts are left to bench/perft.py
EVERY_LEAF_NODES = 100_000  # counts also checked with every leaf made and unmade
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


def read_epd(path: Path) -> list[tuple[str, dict[int, int]]]:
    """``FEN ;D1 n ;D2 n ...`` lines as (fen, {depth: nodes})."""
    entries = []
    for line in path.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        fen, *counts = line.split(";")
        entries.append((fen.strip(), {int(c.split()[0][1:]): int(c.split()[1]) for c in counts}))
    return entries


def _cases():
    cases = []
    for number, (fen, counts) in enumerate(read_epd(PERFT_EPD), 1):
        for depth, nodes in sorted(counts.items()):
            if nodes <= MAX_NODES:
                cases.append(pytest.param(fen, depth, nodes, id=f"epd{number}-d{depth}"))
    return cases


@pytest.mark.parametrize("fen, depth, nodes", _cases())
def test_perft_matches_the_published_counts(fen, depth, nodes):
    pos = Position(fen)
    assert perft(pos, depth) == nodes
    assert pos.fen() == Position(fen).fen(), "make/unmake leaves the position as it was"
    if nodes <= EVERY_LEAF_NODES:  # every leaf made and unmade too, not only counted
        assert perft(pos, depth, bulk=False) == nodes
        assert pos.fen() == Position(fen).fen()


def test_every_epd_position_is_tested_below_two_million_nodes():
    entries = read_epd(PERFT_EPD)
    assert len(entries) >= 7
    assert all(min(counts.values()) <= MAX_NODES for _, counts in entries)


def test_perft_depth_zero_is_one_node():
    assert perft(Position(), 0) == 1


def test_divide_splits_perft_by_first_move():
    pos = Position(KIWIPETE)
    split = divide(pos, 2)
    assert len(split) == 48 and sum(split.values()) == 2039
    assert split["e1g1"] == 43 and split["e1c1"] == 43 and split["d5e6"] == 46
    chess = pytest.importorskip("chess")
    board = chess.Board(KIWIPETE)
    for move in board.legal_moves:
        board.push(move)
        assert split[move.uci()] == board.legal_moves.count()
        board.pop()


# -- the command -----------------------------------------------------------------------------

def test_perft_command_prints_the_node_count(capsys):
    assert main(["perft", "--depth", "3"]) == 0
    assert capsys.readouterr().out.strip() == "8902"
    assert main(["perft", "--fen", KIWIPETE, "--depth", "2"]) == 0
    assert capsys.readouterr().out.strip() == "2039"


def test_perft_command_every_leaf_counts_the_same(capsys):
    assert main(["perft", "--fen", KIWIPETE, "--depth", "2", "--every-leaf"]) == 0
    assert capsys.readouterr().out.strip() == "2039"


def test_perft_command_divide_prints_each_first_move_and_the_total(capsys):
    assert main(["perft", "--fen", KIWIPETE, "--depth", "2", "--divide"]) == 0
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if ": " in line and not line.startswith("Nodes")]
    assert len(lines) == 48
    assert "e1g1: 43" in lines and "a2a4: 44" in lines
    assert lines == sorted(lines)
    assert out.rstrip().endswith("Nodes: 2039")


@pytest.mark.parametrize("argv, words", [
    (["perft", "--fen", "not a fen", "--depth", "1"], "bad --fen"),
    (["perft", "--fen", "4k3/8/8/8/8/8/8/3KK3 w - - 0 1", "--depth", "1"], "white must have exactly one king"),
    (["perft", "--depth", "-1"], "--depth must be >= 0"),
])
def test_perft_command_refuses_bad_input_with_exit_2(argv, words, capsys):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert words in captured.err and captured.out == ""


def test_perft_command_as_a_process():
    ok = subprocess.run([sys.executable, "-m", "firmware.cli", "perft", "--depth", "2"],
                        capture_output=True, text=True, cwd=REPO_ROOT, timeout=60)
    assert (ok.returncode, ok.stdout.strip()) == (0, "400")
    bad = subprocess.run([sys.executable, "-m", "firmware.cli", "perft", "--fen", "8/8/8 w - - 0 1",
                          "--depth", "1"], capture_output=True, text=True, cwd=REPO_ROOT, timeout=60)
    assert bad.returncode == 2
    assert "bad --fen" in bad.stderr and "8 ranks" in bad.stderr and "Traceback" not in bad.stderr


# -- Chess960 and positions that fail the checks (issue 15) ----------------------------------

def test_perft_command_counts_960_positions_with_the_variant(capsys):
    fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"
    assert main(["perft", "--variant", "chess960", "--fen", fen, "--depth", "2"]) == 0
    assert capsys.readouterr().out.strip() == "528"
    swap = "4k3/8/8/8/8/8/8/5KR1 w G - 0 1"  # castling swaps the king and the rook
    assert main(["perft", "--variant", "chess960", "--fen", swap, "--depth", "1", "--divide"]) == 0
    assert "f1g1: 1" in capsys.readouterr().out.splitlines()  # castling, king takes rook
    assert main(["perft", "--fen", fen, "--depth", "2"]) == 2
    err = capsys.readouterr().err
    assert "Chess960 castling (add --variant chess960)" in err and "--no-validate" not in err


def test_perft_command_no_validate_counts_what_the_checks_refuse(capsys):
    fen = "3R4/8/q4k2/2B5/1NK5/3b4/8/8 w - - 0 1"  # python-chess's tricky "align-diag-1"
    assert main(["perft", "--fen", fen, "--depth", "3"]) == 2
    assert "double check" in capsys.readouterr().err
    assert main(["perft", "--fen", fen, "--depth", "3", "--no-validate"]) == 0
    assert capsys.readouterr().out.strip() == "2854"
    assert main(["perft", "--fen", "8/8/8 w - - 0 1", "--depth", "1", "--no-validate"]) == 2
    assert "8 ranks" in capsys.readouterr().err


# -- the error of a bad --fen says what is wrong, and suggests an option only when it reads the FEN ---------

BAD_FENS = [
    "bad",                                                                     # not a FEN at all
    "8/8/8 w - - 0 1",                                                         # three ranks
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",                # side to move
    "3R4/8/q4k2/2B5/1NK5/3b4/8/8 w - - 0 1",                                   # an impossible double check
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",       # Chess960 castling
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9",       # the same, in X-FEN
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - x 9",       # Chess960 and a bad clock
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq e6 2 9",      # Chess960, no pawn past e6
    "4k3/8/8/8/8/8/8/4K2R w Kk - 0 1",                                         # a right with no rook: either way
]


@pytest.mark.parametrize("fen", BAD_FENS)
@pytest.mark.parametrize("given", [[], ["--no-validate"], ["--variant", "chess960"]])
def test_a_bad_fen_gets_advice_only_when_following_it_reads_the_fen(capsys, fen, given):
    code = main(["perft", "--fen", fen, "--depth", "1", *given])
    err = capsys.readouterr().err
    if code == 0:
        return
    assert code == 2 and err.startswith("echiquier perft: bad --fen: ") and "Traceback" not in err
    advice = re.findall(r"\(add (--[^)]*?)(?: to count it anyway)?\)", err)
    assert len(advice) <= 1, err
    if advice:
        added = advice[0].split()
        assert not set(added) & set(given), err            # never an option already given
        assert main(["perft", "--fen", fen, "--depth", "1", *given, *added]) == 0, err
        capsys.readouterr()
    else:   # none is suggested: then none reads it
        assert "--no-validate" not in err and "--variant" not in err
        for added in (["--no-validate"], ["--variant", "chess960"], ["--no-validate", "--variant", "chess960"]):
            if not set(added) & set(given):
                assert main(["perft", "--fen", fen, "--depth", "1", *given, *added]) == 2, (err, added)
                capsys.readouterr()


def test_perft_on_a_word_says_what_a_fen_is_and_suggests_nothing(capsys):
    for given in ([], ["--no-validate"]):
        assert main(["perft", "--fen", "bad", "--depth", "1", *given]) == 2
        err = capsys.readouterr().err
        assert "FEN needs 6 fields (or 4), found 1: 'bad'" in err
        assert "the side to move (w or b)" in err and "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1" in err
        assert "--no-validate" not in err
