"""Opening names: real games named as Lichess's data set says (python-chess the oracle), the data set's own lines, transpositions, a game that grows and shrinks."""
from __future__ import annotations

import io
import logging
from pathlib import Path

import chess
import chess.pgn
import pytest

from chess_core import Game, Move
from firmware.openings import BOOK, Opening, OpeningBook, OpeningCache, classify
from firmware.openings.book import VOLUMES, read_lines

WILD = Path(__file__).resolve().parents[1] / "chess_core" / "data" / "wild"
DATA = Path(__file__).resolve().parents[2] / "firmware" / "openings" / "data"


# -- the oracle: the data set read by python-chess, and its README's rule written out again ------

@pytest.fixture(scope="module")
def oracle_index() -> dict[str, tuple[str, str]]:
    """EPD -> (eco, name), each line of a.tsv..e.tsv played by python-chess."""
    index = {}
    for path in VOLUMES:
        rows = path.read_text(encoding="utf-8").splitlines()
        assert rows[0] == "eco\tname\tpgn"
        for row in rows[1:]:
            eco, name, pgn = row.split("\t")
            board = chess.Board()
            for token in pgn.split():
                if not token[0].isdigit():
                    board.push_san(token)
            index[board.epd()] = (eco, name)
    return index


def oracle(game: chess.pgn.Game, index: dict[str, tuple[str, str]]) -> tuple[str, str, int] | None:
    """The README: "play moves backwards until a named position is found"."""
    board = game.board()
    epds = [board.epd()]
    for move in game.mainline_moves():
        board.push(move)
        epds.append(board.epd())
    for ply in range(len(epds) - 1, -1, -1):
        if epds[ply] in index:
            return (*index[epds[ply]], ply)
    return None


def ours(game: chess.pgn.Game) -> Game:
    """The same game in chess_core, move by move from its UCI."""
    ours = Game(game.board().fen())
    for move in game.mainline_moves():
        ours.push(Move.from_uci(move.uci()))
    return ours


def real_games() -> list[tuple[str, chess.pgn.Game]]:
    """Every standard game of tests/chess_core/data/wild/ that python-chess reads without an error."""
    logging.getLogger("chess.pgn").setLevel(logging.CRITICAL)
    found = []
    for path in sorted(WILD.glob("*.pgn")):
        handle = io.StringIO(path.read_text(encoding="utf-8-sig"))
        while (game := chess.pgn.read_game(handle)) is not None:
            variant = game.headers.get("Variant", "Standard").lower()
            if (variant in ("standard", "from position") and not game.errors and game.board().is_valid()
                    and all(game.mainline_moves())):   # (no null moves)
                found.append((path.name, game))
    return found


def test_real_games_are_named_as_the_data_sets_readme_says(oracle_index):
    games = real_games()
    named = differ = 0
    for name, game in games:
        expected = oracle(game, oracle_index)
        opening = classify(ours(game))
        got = (opening.eco, opening.name, opening.ply) if opening else None
        if got != expected:
            differ += 1
            print(name, game.headers.get("White"), game.headers.get("Black"), expected, got)
        named += expected is not None
    print(f"{len(games)} real games, {named} named")
    assert differ == 0
    assert len(games) > 400 and named > 300, (len(games), named)   # real games, most of them named


def test_the_data_set_is_read_whole_and_each_line_names_its_own_position(oracle_index):
    lines = read_lines(VOLUMES)
    assert len(lines) == len(oracle_index) == len(BOOK.index()) == 3807
    for eco, name, pgn in lines:
        board = chess.Board()
        game = Game()
        for token in pgn.split():
            if not token[0].isdigit():
                game.push(Move.from_uci(board.push_san(token).uci()))
        assert classify(game) == Opening(eco, name, len(game.moves)), pgn


def test_a_transposition_has_the_name_of_the_position_it_reaches():
    def named(ucis: str) -> Opening | None:
        game = Game()
        for uci in ucis.split():
            game.push(Move.from_uci(uci))
        return classify(game)

    nimzo = named("d2d4 g8f6 c2c4 e7e6 b1c3 f8b4")              # 1. d4 Nf6 2. c4 e6 3. Nc3 Bb4, the data set's line
    english = named("c2c4 e7e6 b1c3 g8f6 d2d4 f8b4")            # 1. c4 e6 2. Nc3 Nf6 3. d4 Bb4
    assert nimzo == english == Opening("E20", "Nimzo-Indian Defense", 6)


def test_a_game_past_its_opening_keeps_the_last_name_found_and_a_bare_start_has_none():
    game = Game()
    assert classify(game) is None
    for uci in "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6 e1g1 f8e7 f1e1 b7b5 a4b3 d7d6 c2c3 e8g8 h2h3 h7h6 a2a3".split():
        game.push(Move.from_uci(uci))
    opening = classify(game)
    assert opening == Opening("C93", "Ruy Lopez: Closed, Smyslov Defense", 18)   # 9... h6, not 10. a3


def test_chess960_games_have_no_opening_name():
    game = Game("bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w KQkq - 0 1", chess960=True)
    game.push(Move.from_uci("e2e4"))
    assert classify(game) is None
    assert OpeningCache().update(game) is None


def test_the_cache_follows_the_game_move_by_move_and_through_takebacks():
    cache = OpeningCache()
    game = Game()
    seen = []
    plan = "e2e4 c7c5 g1f3 d7d6 - - b1c3 b8c6 - - g1f3 d7d6 d2d4 c5d4 f3d4 g8f6 - - - - b1c3 g8f6".split()
    for step in plan:
        if step == "-":
            game.pop()
        else:
            game.push(Move.from_uci(step))
        opening = cache.update(game)
        assert opening == classify(game), (step, game.moves)
        seen.append(opening.eco if opening else None)
    assert {"B23", "B54"} <= set(seen)   # the Closed Sicilian, taken back, then the Open's main line


def test_a_new_game_in_the_cache_starts_afresh():
    cache = OpeningCache()
    first = Game()
    for uci in "d2d4 d7d5 c2c4".split():
        first.push(Move.from_uci(uci))
    assert cache.update(first) == Opening("D06", "Queen's Gambit", 3)
    second = Game()
    second.push(Move.from_uci("e2e4"))
    assert cache.update(second) == classify(second) == Opening("B00", "King's Pawn Game", 1)


def test_until_the_book_is_built_nothing_is_named_and_the_board_never_waits(tmp_path):
    book = OpeningBook()
    cache = OpeningCache(book)
    game = Game()
    game.push(Move.from_uci("e2e4"))
    assert not book.ready()
    assert cache.update(game) is None            # the book is built in a thread of its own
    warming = book.warm()
    if warming is not None:                       # (the first update may have started it already)
        warming.join(timeout=60)
    book.index()
    assert book.ready()
    assert cache.update(game) == Opening("B00", "King's Pawn Game", 1)


def test_a_damaged_data_file_says_which_line(tmp_path):
    bad = tmp_path / "a.tsv"
    bad.write_text("eco\tname\tpgn\nA00\tAmar Opening\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"a.tsv:2: expected 3 columns"):
        OpeningBook([bad]).index()


def test_the_data_set_ships_with_its_licence_and_source():
    assert "CC0 1.0 Universal" in (DATA / "COPYING.txt").read_text(encoding="utf-8")
    source = (DATA / "SOURCE.md").read_text(encoding="utf-8")
    assert "github.com/lichess-org/chess-openings" in source and "51b886249b9e418498d25b6e39b926c3de99c29a" in source
