"""Real PGN files from other programs (data/wild, see SOURCES.md) read and written back, python-chess the oracle.

Every game is read by both; a game is "same" when the moves, the tags, the NAGs and the result
agree. Every other game falls in one of the classes below, each with the reason it remains.
Then each game we read is written back (``PgnGame.pgn()``) and python-chess reads our text: the
same moves, tags, comments, NAGs, clocks and result as it read in the original.
"""
from __future__ import annotations

import io
import logging
from collections import Counter
from pathlib import Path

import chess
import chess.pgn
import pytest

from chess_core.pgn import PgnError, PgnGame, read_games
from chess_core.pgn_words import ROSTER_DEFAULTS

WILD = Path(__file__).parent / "data" / "wild"
FILES = sorted(p.name for p in WILD.glob("*.pgn"))

# Files that python-chess cuts into games otherwise: (its count, ours, why).
BLANK_AFTER_COMMENT = ("a blank line between the comment before the first move and the moves: "
                       "python-chess ends the game at the blank line and reads the moves as a game "
                       "without tags; we read one game, as pgn-extract does")
SPLITS = {
    "pgnextract-barnes-horton.pgn": (2, 1, BLANK_AFTER_COMMENT),
    "pgnextract-test-checkmate.pgn": (3, 2, BLANK_AFTER_COMMENT),
    "pgnextract-test-nomovenumbers.pgn": (2, 1, BLANK_AFTER_COMMENT),
    "pgnextract-test-noresults.pgn": (2, 1, BLANK_AFTER_COMMENT),
    "pgnextract-test-notags.pgn": (2, 1, BLANK_AFTER_COMMENT),
    "pgnextract-test-stalemate.pgn": (4, 3, BLANK_AFTER_COMMENT),
    "pgnextract-test-nobadresults.pgn": (1, 9, "nine games of one line each, tags then moves: "
                                               "python-chess reads one game of tags and no moves"),
}

# The classes of the other games, their counts over the whole corpus, and why each remains.
EXPECTED = {
    "same": 425,
    # The next game's tags follow a result on the very next line (Chess.com archive): python-chess
    # reads those tag lines as movetext of the game before ("Let's Play!" gives it a NAG) and the
    # next game has no tags. We start a game at a tag line.
    "python-chess lost the tags after a result with no blank line": 6,
    "python-chess took the next game's tag line for moves": 1,
    # Antichess and crazyhouse: not played on this board (Chess960 is read since it is played).
    "variant": 6,
    # pgn-extract's test of wrong results: a 1-0 after Black mates, a win after a stalemate.
    # python-chess keeps the file's result; we refuse the game and say which contradiction.
    "result contradicts the board": 5,
    # Braces inside a comment (pgn-extract's --nestedcomment): PGN comments do not nest; python-chess
    # skips the words it cannot read, we stop at the first one and name it.
    "nested comment": 1,
}


def python_chess_games(text: str) -> list[chess.pgn.Game]:
    logging.getLogger("chess.pgn").setLevel(logging.CRITICAL)  # it logs the illegal moves it skips
    handle, games = io.StringIO(text), []
    while (game := chess.pgn.read_game(handle)) is not None:
        games.append(game)
    return games


def read(name: str) -> tuple[list[chess.pgn.Game], list]:
    text = (WILD / name).read_text(encoding="utf-8-sig")
    return python_chess_games(text), list(read_games(text))


def their_tags(game: chess.pgn.Game, ours: dict[str, str]) -> dict[str, str]:
    """python-chess's tags but Result (compared apart), without the roster defaults it fills in
    for a tag the file lacks."""
    return {name: value for name, value in game.headers.items()
            if name != "Result" and (name in ours or ROSTER_DEFAULTS.get(name) != value)}


def our_tags(headers: dict[str, str]) -> dict[str, str]:
    return {name: value for name, value in headers.items() if name != "Result"}


def classify(theirs: chess.pgn.Game, ours) -> str:
    if isinstance(ours, PgnError):
        if "variant" in ours.problem:
            return "variant"
        if "contradicts the final position" in ours.problem:
            return "result contradicts the board"
        if ours.move == "which":
            return "nested comment"
        return f"error: {ours}"
    assert [m.uci() for m in theirs.mainline_moves()] == [m.uci() for m in ours.moves], ours.number
    tags = their_tags(theirs, ours.headers)
    if tags != our_tags(ours.headers):
        lost = all(theirs.headers.get(name) == value for name, value in ROSTER_DEFAULTS.items())
        if lost and ours.headers.get("Event", "?") != "?":
            return "python-chess lost the tags after a result with no blank line"
        return f"tags differ: {tags} {ours.headers}"
    nodes = list(theirs.mainline())
    if {p: sorted(n.nags) for p, n in enumerate(nodes, 1) if n.nags} != ours.nags:
        return "python-chess took the next game's tag line for moves"
    assert theirs.headers.get("Result", "*") in (ours.result, "*")
    return "same"


def corpus() -> list[tuple[str, chess.pgn.Game, object]]:
    pairs = []
    for name in FILES:
        theirs, ours = read(name)
        if name in SPLITS:
            assert (len(theirs), len(ours)) == SPLITS[name][:2], name
            continue
        assert len(theirs) == len(ours), name
        pairs.extend((name, t, o) for t, o in zip(theirs, ours))
    return pairs


@pytest.fixture(scope="module")
def pairs():
    return corpus()


def test_the_corpus_is_real_files_of_several_programs():
    sizes = sum((WILD / name).stat().st_size for name in FILES)
    assert len(FILES) >= 40 and 500_000 < sizes < 3_000_000


def test_every_game_agrees_with_python_chess_or_falls_in_a_known_class(pairs):
    found = Counter(classify(theirs, ours) for _, theirs, ours in pairs)
    assert found == Counter(EXPECTED)
    games = sum(EXPECTED.values()) + sum(ours for _, ours, _ in SPLITS.values())
    assert games == 462  # the figure of the closing note


def comments_of(game: chess.pgn.Game) -> list[str]:
    return [" ".join(game.comment.split())] + [" ".join(n.comment.split()) for n in game.mainline()]


@pytest.mark.slow
def test_every_game_read_is_written_back_as_python_chess_read_it(pairs):
    written = 0
    for name, theirs, ours in pairs:
        if not isinstance(ours, PgnGame):
            continue
        back = python_chess_games(ours.pgn())
        assert len(back) == 1 and back[0].errors == [], (name, ours.number)
        again = back[0]
        where = (name, ours.number)
        assert [m.uci() for m in again.mainline_moves()] == [m.uci() for m in ours.moves], where
        assert again.headers.get("Result") == ours.result, where
        assert their_tags(again, ours.headers) == _as_written(ours), where
        if classify(theirs, ours) == "same":
            assert comments_of(again) == comments_of(theirs), where
            assert [n.nags for n in again.mainline()] == [n.nags for n in theirs.mainline()], where
            assert [n.clock() for n in again.mainline()] == [n.clock() for n in theirs.mainline()], where
        written += 1
    assert written == EXPECTED["same"] + 7


def _as_written(ours: PgnGame) -> dict[str, str]:
    """The tags read, with the two things the writer corrects: a PlyCount follows the moves, and
    a FEN tag gets the SetUp "1" the standard asks for beside it."""
    tags = our_tags(ours.headers)
    if "PlyCount" in tags:
        tags["PlyCount"] = str(len(ours.moves))
    if "FEN" in tags:
        tags["SetUp"] = "1"
        tags["FEN"] = ours.game.start_fen
    return tags


def test_the_odd_things_real_files_hold_are_read():
    """Null moves, UCI movetext, forum wrappers, en dashes, stale castling rights, tags and moves
    on one line: read as python-chess reads them."""
    games = {name: read(name)[1] for name in ("pychess-anastasian-lewis.pgn", "pychess-uci-moves.pgn",
                                              "pgnextract-test-allownullmoves.pgn",
                                              "pgnextract-test-nobadresults.pgn")}
    lewis = games["pychess-anastasian-lewis.pgn"][0]
    assert lewis.game.san_moves()[80:] == ["Bxf3", "--", "Ke1", "Qh1+"]
    assert "41. Bxf3 -- 42. Ke1 Qh1+ 1-0" in lewis.pgn()
    uci = read("pychess-uci-moves.pgn")
    assert [m.uci() for m in uci[1][0].moves] == [m.uci() for m in uci[0][0].mainline_moves()]
    assert len(uci[1][0].moves) == 113
    assert [len(g.moves) for g in games["pgnextract-test-allownullmoves.pgn"]] == [5, 2]
    one_line = games["pgnextract-test-nobadresults.pgn"]
    assert [type(g).__name__ for g in one_line] == ["PgnGame"] * 3 + ["PgnError"] * 3 + ["PgnGame"] * 3
    assert [g.result for g in one_line if isinstance(g, PgnGame)] == ["1-0", "0-1", "1/2-1/2"] * 2
