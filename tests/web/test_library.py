"""The game library: listing the recorded games, replaying one move by move, PGN downloads."""
from __future__ import annotations

import pytest

from chess_core import Game
from chess_core.pgn import write_pgn
from firmware.web.library import GameLibrary, UnknownGame

SHEPHERD = ("e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#")


def record(games_dir, name, sans, **headers):
    games_dir.mkdir(parents=True, exist_ok=True)
    game = Game()
    for text in sans:
        game.push_text(text)
    path = games_dir / f"{name}.pgn"
    path.write_text(write_pgn(game, {"White": "Anna", "Black": "Ben", "Date": "2025.03.01", **headers}))
    return path


@pytest.fixture
def games(tmp_path):
    d = tmp_path / "games"
    record(d, "2025-03-01_1000_Anna-vs-Ben", SHEPHERD)
    record(d, "2025-03-02_0900_Ben-vs-Anna", ("d4", "d5"), White="Ben", Black="Anna")
    return d


def test_every_recorded_game_is_listed_newest_first(games):
    listed = GameLibrary(games).games()
    assert [g["id"] for g in listed] == ["2025-03-02_0900_Ben-vs-Anna", "2025-03-01_1000_Anna-vs-Ben"]
    mate = listed[1]
    assert (mate["white"], mate["black"], mate["result"], mate["plies"]) == ("Anna", "Ben", "1-0", 7)
    assert mate["ending"] == "White wins by checkmate" and not mate["in_progress"]
    assert mate["ending_fr"] == "Les Blancs gagnent par mat"
    assert GameLibrary(games).game("2025-03-01_1000_Anna-vs-Ben")["ending_fr"] == "Les Blancs gagnent par mat"
    assert listed[0]["in_progress"] and listed[0]["result"] == "*"


def test_a_game_replays_move_by_move_in_both_notations(games):
    game = GameLibrary(games).game("2025-03-01_1000_Anna-vs-Ben")
    assert len(game["fens"]) == 8
    assert game["fens"][0].startswith("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w")
    assert game["san"]["en"][-1] == "Qxf7#" and game["san"]["fr"][-1] == "Dxf7#"
    assert game["san"]["fr"][2] == "Fc4" and game["san"]["fr"][3] == "Cc6"
    assert game["last_moves"][-1] == ["h5", "f7"]


def test_downloads_give_the_recorded_text_and_all_games_in_one_file(games):
    library = GameLibrary(games)
    one = library.pgn("2025-03-01_1000_Anna-vs-Ben")
    assert one == (games / "2025-03-01_1000_Anna-vs-Ben.pgn").read_text()
    everything = library.all_pgn()
    assert everything.index("Qxf7#") < everything.index("d4 d5")  # oldest first
    assert everything.count("[Event ") == 2


@pytest.mark.parametrize("bad", ["../secret", "..", ".hidden", "a/b", "", "x" * 300, "nothing-here"])
def test_no_id_reaches_outside_the_games(games, bad):
    (games.parent / "secret.pgn").write_text("[Event \"private\"]\n\n*\n")
    with pytest.raises(UnknownGame):
        GameLibrary(games).pgn(bad)


def test_a_game_being_written_is_read_again_when_it_changes(games):
    library = GameLibrary(games)
    assert library.game("2025-03-02_0900_Ben-vs-Anna")["plies"] == 2
    record(games, "2025-03-02_0900_Ben-vs-Anna", ("d4", "d5", "c4"), White="Ben", Black="Anna")
    assert library.game("2025-03-02_0900_Ben-vs-Anna")["plies"] == 3


def test_an_unreadable_file_is_listed_with_its_problem(games):
    (games / "broken.pgn").write_text('[White "X"]\n\n1. e4 Ke7 2. Qxf7 *\n')
    listed = {g["id"]: g for g in GameLibrary(games).games()}
    assert listed["broken"]["problem"] and listed["broken"]["plies"] == 0


def test_without_a_games_directory_the_library_is_empty(tmp_path):
    library = GameLibrary(tmp_path / "none")
    assert library.games() == [] and library.all_pgn() == ""


async def test_the_library_over_http(serve, games):
    client, _, _ = await serve(games_dir=games)
    listed = (await (await client.get("/api/games")).json())["games"]
    assert len(listed) == 2
    detail = await (await client.get("/api/games/2025-03-01_1000_Anna-vs-Ben")).json()
    assert detail["san"]["en"][-1] == "Qxf7#"
    one = await client.get("/games/2025-03-01_1000_Anna-vs-Ben.pgn")
    assert one.status == 200 and "Qxf7#" in await one.text()
    assert 'attachment; filename="2025-03-01_1000_Anna-vs-Ben.pgn"' == one.headers["Content-Disposition"]
    every = await client.get("/games.pgn")
    assert (await every.text()).count("[Event ") == 2
    assert (await client.get("/api/games/..%2Fsecret")).status == 404
    assert (await client.get("/games/nothing.pgn")).status == 404


def test_the_whole_library_is_read_with_one_listing_of_the_directory(tmp_path, monkeypatch):
    """/games.pgn is open to anyone on the LAN: it must cost one directory listing, not one per game."""
    from firmware.web.library import GameLibrary
    games = tmp_path / "games"
    games.mkdir()
    for n in range(30):
        (games / f"2026-12-01-{n:03d}.pgn").write_text(f'[Event "g{n}"]\n[Result "*"]\n\n1. e4 *\n')
    library = GameLibrary(games)
    listings = []
    real = GameLibrary._files
    monkeypatch.setattr(GameLibrary, "_files", lambda self: listings.append(1) or real(self))
    text = library.all_pgn()
    assert text.count("[Event ") == 30 and text.index('"g0"') < text.index('"g29"')
    assert len(listings) == 1


def test_the_default_names_read_in_the_pages_language(tmp_path):
    """Issue 26.10: a game between "White" and "Black" (the names nobody gave) is listed as between
    "Blancs" and "Noirs" on a French page; the PGN keeps them as written, and a given name stays."""
    d = tmp_path / "games"
    record(d, "2025-03-03_1000_White-vs-Black", ("e4",), White="White", Black="Black")
    record(d, "2025-03-03_1100_Black-vs-Anna", ("e4",), White="Black", Black="Anna")
    named, default = GameLibrary(d).games()
    assert (default["white"], default["black"], default["white_fr"], default["black_fr"]) == \
        ("White", "Black", "Blancs", "Noirs")
    assert (named["white_fr"], named["black_fr"]) == ("Black", "Anna")   # "Black" as White's name is a name
    assert GameLibrary(d).game(default["id"])["white_fr"] == "Blancs"
    assert '[White "White"]' in GameLibrary(d).pgn(default["id"])
