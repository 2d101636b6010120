"""Round trips: what write_pgn writes, read_pgn reads back as the same game, tags and clocks."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chess_core.game import Game
from chess_core.move import Move
from chess_core.outcome import Outcome, Termination
from chess_core.pgn import PgnError, PgnGame, read_game, read_games, read_pgn, write_pgn

from .test_pgn_samples import Sample, random_game, samples


def tenths(clocks):
    return [None if ms is None else ms - ms % 100 for ms in clocks]


def write(sample: Sample) -> str:
    return write_pgn(sample.game, sample.headers, sample.clocks, comments=sample.comments,
                     nags=sample.nags)


def check_round_trip(sample: Sample, text: str, pg: PgnGame) -> None:
    game = sample.game
    assert pg.game.moves == game.moves
    assert pg.game.start_fen == game.start_fen
    assert pg.game.fen() == game.fen()
    assert pg.game.outcome == game.outcome
    assert pg.result == (game.outcome.result() if game.outcome else "*")
    n = len(game.moves)
    assert pg.clocks == tenths(sample.clocks + [None] * (n - len(sample.clocks)))
    for name, value in sample.headers.items():
        assert pg.headers[name] == value
    assert pg.comments == {p: " ".join(t.replace("}", "").split()) for p, t in sample.comments.items()
                           if t.replace("}", "").strip()}
    assert pg.nags == {p: v for p, v in sample.nags.items() if v}
    assert pg.warnings == []
    assert pg.pgn() == text  # and writing it again gives the same text


@pytest.mark.parametrize("index", range(len(samples())))
def test_a_random_game_comes_back_the_same(index):
    sample = samples()[index]
    text = write(sample)
    check_round_trip(sample, text, read_game(text, rules=sample.game.rules))


def test_a_file_of_many_games_comes_back_game_by_game():
    fide = [s for s in samples() if s.game.rules == "fide"]
    text = "\n".join(write(s) for s in fide)
    errors: list[PgnError] = []
    games = read_pgn(text, errors)
    assert errors == [] and len(games) == len(fide)
    for number, (sample, pg) in enumerate(zip(fide, games), 1):
        assert pg.number == number
        check_round_trip(sample, write(sample), pg)


def test_clocks_in_milliseconds_come_back_cut_to_the_tenth():
    game = Game()
    game.push(Move.from_uci("e2e4"))
    game.push(Move.from_uci("e7e5"))
    pg = read_game(write_pgn(game, clocks=[299_999, 1]))
    assert pg.clocks == [299_900, 0]


def _played(uci: str, fen: str | None = None, rules: str = "fide") -> Game:
    game = Game(fen, rules)
    for text in uci.split():
        game.push(Move.from_uci(text))
    return game


@pytest.mark.parametrize("make, termination", [
    (lambda: _played("g1f3 g8f6 f3g1 f6g8 " * 4), Termination.FIVEFOLD_REPETITION),
    (lambda: _played("g1f3 g8f6 f3g1 f6g8 " * 2, rules="casual"), Termination.THREEFOLD_REPETITION),
    (lambda: _played("a1a2 h8h7", fen="7k/8/8/8/8/8/8/R6K w - - 148 90"), Termination.SEVENTYFIVE_MOVES),
    (lambda: _played("a1a2 h8h7", fen="7k/8/8/8/8/8/8/R6K w - - 98 90", rules="casual"),
     Termination.FIFTY_MOVES),
    (lambda: _played("a1b2", fen="7k/8/8/8/8/8/1r6/B3K3 w - - 0 1"), Termination.INSUFFICIENT_MATERIAL),
    (lambda: _played("f2f7", fen="7k/8/6K1/8/8/8/5Q2/8 w - - 0 1"), Termination.STALEMATE),
])
def test_every_rule_ending_comes_back(make, termination):
    game = make()
    assert game.outcome is not None and game.outcome.termination == termination
    text = write_pgn(game)
    pg = read_game(text, rules=game.rules)
    assert pg.game.outcome == game.outcome and pg.pgn() == text


def test_claimed_draws_come_back_under_fide_rules():
    game = _played("g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1")
    game.claim_draw(Move.from_uci("f6g8"))
    assert game.outcome == Outcome(Termination.THREEFOLD_REPETITION)
    pg = read_game(write_pgn(game))
    assert pg.game.outcome == game.outcome and len(pg.game.moves) == 8
    game = _played("a1a2", fen="7k/8/8/8/8/8/8/R6K w - - 98 90")
    game.claim_draw(Move.from_uci("h8h7"))
    pg = read_game(write_pgn(game))
    assert pg.game.outcome == Outcome(Termination.FIFTY_MOVES)


def test_a_game_in_progress_is_rewritten_after_every_move_and_read_back_each_time():
    sample = samples()[3]
    game = Game(sample.game.start_fen, sample.game.rules)
    for ply, move in enumerate(sample.game.moves[:40], 1):
        game.push(move)
        clocks = [60_000 + 100 * i for i in range(ply)]
        pg = read_game(write_pgn(game, {"White": "A"}, clocks), rules=game.rules)
        assert pg.game.moves == game.moves and pg.clocks == clocks
        assert pg.game.outcome == game.outcome


_comment_text = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=60)
_tag_text = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=40)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**9), white=_tag_text, event=_tag_text, data=st.data())
def test_any_game_with_any_names_and_comments_round_trips(seed, white, event, data):
    sample = random_game(seed)
    sample.headers.update(White=white, Event=event)
    n = len(sample.game.moves)
    plies = data.draw(st.lists(st.integers(0, n), max_size=4, unique=True))
    for ply in plies:
        sample.comments[ply] = data.draw(_comment_text)
    text = write(sample)
    # Comments that read as one of our reasons, or a clock command, are not free text.
    from chess_core.pgn_words import CLK_RE, parse_reason
    if any(CLK_RE.search(t) or parse_reason(t) for t in sample.comments.values()):
        return
    check_round_trip(sample, text, read_game(text, rules=sample.game.rules))
    assert all(len(line) <= 80 for line in text.split("\n\n", 1)[1].split("\n"))


def test_read_games_of_our_own_file_gives_no_errors():
    text = "".join(write(s) + "\n" for s in samples() if s.game.rules == "fide")
    assert not any(isinstance(item, PgnError) for item in read_games(text))
