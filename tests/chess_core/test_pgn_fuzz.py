"""Any text at all reads as games or PgnErrors, never as another exception."""
from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chess_core.pgn import PgnError, PgnGame, read_games, read_pgn, write_pgn

# Pieces of PGN, whole and broken, so that the text reaches deep into the reader.
FRAGMENTS = ['[Event "x"]', '[Result "1-0"]', '[FEN "8/8/8/8/8/8/8/K1k5 w - - 0 1"]', '[SetUp "1"]',
             '[FEN "bad"]', '[Variant "Atomic"]', '[White "a\\"b"]', '[Bad', "]", '"', "\\",
             "1.", "1...", "2.", "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "O-O", "0-0-0", "O-O-O",
             "exd6", "e.p.", "e8=Q", "Fc4", "Cc6", "Dh5", "Re2", "R", "--", "Z0", "!", "?!", "!!!",
             "$1", "$", "$99999999999999999999", "{", "}", "{ [%clk 0:01:00] }", "[%clk 9:99:99.99]",
             "(", ")", ";", "%", "1-0", "0-1", "1/2-1/2", "½-½", "*", "\n", "\r\n", "\r", "\n\n",
             " ", "\t", "\ufeff", "\u2028", "\x00", "é", "Qxf7#", "Kxe1", "a1=K", "8/8"]

pgnish = st.lists(st.sampled_from(FRAGMENTS), max_size=80).map(" ".join)
anything = st.text(max_size=400)


def check(text: str) -> None:
    items = list(read_games(text))
    for number, item in enumerate(items, 1):
        assert isinstance(item, (PgnGame, PgnError))
        assert item.number == number
        if isinstance(item, PgnGame):
            assert len(item.clocks) == len(item.game.moves)
            item.pgn()  # whatever was read can be written
        else:
            assert str(item).startswith(f"game {number}")
    errors: list[PgnError] = []
    games = read_pgn(text, errors)
    assert len(games) + len(errors) == len(items)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(anything)
def test_arbitrary_text_gives_games_or_errors(text):
    check(text)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pgnish)
def test_pgn_like_text_gives_games_or_errors(text):
    check(text)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(pgnish, min_size=1, max_size=4))
def test_lines_given_one_by_one_read_like_the_text(lines):
    text = "\n".join(lines)
    as_text = [summary(x) for x in read_games(text)]
    as_lines = [summary(x) for x in read_games(line + "\n" for line in lines)]
    assert as_text == as_lines


def summary(item: PgnGame | PgnError) -> object:
    if isinstance(item, PgnError):
        return str(item)
    return (item.headers, item.game.moves, item.game.outcome, item.clocks, item.comments, item.nags,
            item.result, item.warnings)


def test_what_is_read_can_be_written_even_from_odd_input():
    games = read_pgn("1. e4 (1. d4 $1 { side }) e5 ; end\n2. Nf3 $2 *")
    assert games[0].pgn().endswith("1. e4 e5 { end } 2. Nf3 $2 *\n")
    assert write_pgn(games[0].game).endswith("1. e4 e5 2. Nf3 *\n")


SAMPLE = (Path(__file__).parent / "data" / "features.pgn").read_text(encoding="utf-8") + "\n" + \
    (Path(__file__).parent / "data" / "french.pgn").read_text(encoding="utf-8")


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, len(SAMPLE)), st.integers(0, 12), st.sampled_from(FRAGMENTS)),
                min_size=1, max_size=6))
def test_real_pgn_damaged_anywhere_gives_games_or_errors(edits):
    text = SAMPLE
    for at, cut, insert in edits:
        text = text[:at] + insert + text[at + cut:]
    check(text)
