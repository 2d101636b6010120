"""The game library: listing the recorded games, replaying one move by move, PGN downloads."""
from __future__ import annotations

import asyncio
import re
import threading
import types
from pathlib import Path

import pytest

from chess_core import Game
from chess_core.pgn import write_pgn
from firmware.library.games import MAX_PGN_BYTES, GameLibrary, UnknownGame
from firmware.words import player_name
from firmware.words.message import san_in
from tests.said import english, french

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
    listed = english(GameLibrary(games).games())
    assert [g["id"] for g in listed] == ["2025-03-02_0900_Ben-vs-Anna", "2025-03-01_1000_Anna-vs-Ben"]
    mate = listed[1]
    assert (mate["white"], mate["black"], mate["result"], mate["plies"]) == ("Anna", "Ben", "1-0", 7)
    assert mate["ending"] == "White wins by checkmate" and not mate["in_progress"]
    assert french(GameLibrary(games).games())[1]["ending"] == "Les Blancs gagnent par mat"
    assert french(GameLibrary(games).game("2025-03-01_1000_Anna-vs-Ben"))["ending"] == "Les Blancs gagnent par mat"
    assert listed[0]["in_progress"] and listed[0]["result"] == "*"


def test_a_game_replays_move_by_move_in_the_pages_letters(games):
    game = GameLibrary(games).game("2025-03-01_1000_Anna-vs-Ben")
    assert len(game["fens"]) == 8
    assert game["fens"][0].startswith("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w")
    assert game["san"][-1] == "Qxf7#" and san_in(game["san"][-1], "fr") == "Dxf7#"
    assert [san_in(text, "fr") for text in game["san"][2:4]] == ["Fc4", "Cc6"]
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
    listed = {g["id"]: g for g in english(GameLibrary(games).games())}
    listed_fr = {g["id"]: g for g in french(GameLibrary(games).games())}
    assert listed["broken"]["problem"] and listed["broken"]["plies"] == 0


def test_without_a_games_directory_the_library_is_empty(tmp_path):
    library = GameLibrary(tmp_path / "none")
    assert library.games() == [] and library.all_pgn() == ""


async def test_the_library_over_http(serve, games):
    client, _, _ = await serve(games_dir=games)
    listed = (await (await client.get("/api/games")).json())["games"]
    assert len(listed) == 2
    detail = await (await client.get("/api/games/2025-03-01_1000_Anna-vs-Ben")).json()
    assert detail["san"][-1] == "Qxf7#"
    one = await client.get("/games/2025-03-01_1000_Anna-vs-Ben.pgn")
    assert one.status == 200 and "Qxf7#" in await one.text()
    assert 'attachment; filename="2025-03-01_1000_Anna-vs-Ben.pgn"' == one.headers["Content-Disposition"]
    every = await client.get("/games.pgn")
    assert (await every.text()).count("[Event ") == 2
    assert (await client.get("/api/games/..%2Fsecret")).status == 404
    assert (await client.get("/games/nothing.pgn")).status == 404


def test_the_whole_library_is_read_with_one_listing_of_the_directory(tmp_path, monkeypatch):
    """/games.pgn is open to anyone on the LAN: it must cost one directory listing, not one per game."""
    from firmware.library.games import GameLibrary
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
    assert (default["white"], default["black"], player_name(default["white"], 0, "fr"),
            player_name(default["black"], 1, "fr")) == ("White", "Black", "Blancs", "Noirs")
    # ("Black" as White's name is a name)
    assert (player_name(named["white"], 0, "fr"), player_name(named["black"], 1, "fr")) == ("Black", "Anna")
    assert '[White "White"]' in GameLibrary(d).pgn(default["id"])


# -- issue 32, item 5: a library with a big file ------------------------------------------------

WILD = Path(__file__).resolve().parents[1] / "chess_core" / "data" / "wild"


def big_import(n: int = 5000) -> str:
    """``n`` real games (a Chess.com archive export of 204 games with clocks, SOURCES.md beside
    it), over and over: an import of a whole database."""
    games = [g for g in re.split(r"(?m)^(?=\[Event )", (WILD / "chesscom-cancer0707.pgn").read_text()) if g.strip()]
    return "".join(games[i % len(games)].rstrip() + "\n\n" for i in range(n))


def test_a_big_import_is_listed_with_its_first_game_and_said_to_be_cut(games):
    (games / "2020-01-01_import.pgn").write_text(big_import())
    assert (games / "2020-01-01_import.pgn").stat().st_size > MAX_PGN_BYTES
    listed = {g["id"]: g for g in english(GameLibrary(games).games())}
    listed_fr = {g["id"]: g for g in french(GameLibrary(games).games())}
    big = listed["2020-01-01_import"]
    assert (big["white"], big["black"], big["result"]) == ("cancer0707", "Rico7", "1-0")
    assert big["cut"] and big["more_games"] and not big["damaged"] and not big["in_progress"]
    assert not listed["2025-03-01_1000_Anna-vs-Ben"]["cut"] and not listed["2025-03-01_1000_Anna-vs-Ben"]["more_games"]
    text = GameLibrary(games).pgn("2020-01-01_import")
    assert len(text.encode()) <= MAX_PGN_BYTES and text.startswith('[Event "Let\'s Play!"]')


def test_each_file_is_read_once_while_it_is_unchanged(games, monkeypatch):
    """The summary cache: size and modification time say when a file must be read again."""
    import firmware.library.games as library_module
    reads = []
    real = library_module.read_file
    monkeypatch.setattr(library_module, "read_file", lambda path: reads.append(path.stem) or real(path))
    library = GameLibrary(games)
    library.games()
    library.games()
    library.moves("2025-03-01_1000_Anna-vs-Ben")
    assert sorted(reads) == ["2025-03-01_1000_Anna-vs-Ben", "2025-03-02_0900_Ben-vs-Anna"]
    record(games, "2025-03-02_0900_Ben-vs-Anna", ("d4", "d5", "c4"), White="Ben", Black="Anna")
    assert [g["plies"] for g in library.games()] == [3, 7] and reads[-1] == "2025-03-02_0900_Ben-vs-Anna"


def test_empty_binary_and_illegal_files_are_listed_as_damaged_in_the_players_words(games):
    (games / "empty.pgn").write_bytes(b"")
    (games / "blank.pgn").write_text("\n  \n{ only a comment }\n")
    (games / "picture.pgn").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4)
    (games / "illegal.pgn").write_text('[White "X"]\n\n1. e4 e5 2. Ke3 *\n')
    (games / "tags.pgn").write_text('[White "X"\n[Black "Y"]\n\n1. e4 *\n')
    listed = {g["id"]: g for g in english(GameLibrary(games).games())}
    listed_fr = {g["id"]: g for g in french(GameLibrary(games).games())}
    assert listed["empty"]["damaged"] == listed["blank"]["damaged"] == "This file holds no game: it is empty."
    assert listed_fr["empty"]["damaged"] == "Ce fichier ne contient aucune partie : il est vide."
    assert "not text" in listed["picture"]["damaged"] and "pas du texte" in listed_fr["picture"]["damaged"]
    assert listed["illegal"]["damaged"] == "This file is damaged: the move 2. Ke3 cannot be played there."
    assert listed_fr["illegal"]["damaged"] == "Ce fichier est abîmé : le coup 2. Ke3 ne peut pas y être joué."
    assert listed["tags"]["damaged"] == "This file is damaged: its game cannot be read (line 1)."
    for name in ("empty", "blank", "picture", "illegal", "tags"):
        assert listed[name]["problem"] and listed[name]["plies"] == 0 and not listed[name]["in_progress"]
        assert GameLibrary(games).game(name)["fens"] == []
    assert listed["2025-03-01_1000_Anna-vs-Ben"]["damaged"] is None
    assert GameLibrary(games).all_pgn().count("[White ") == 4     # the two games, the illegal one and the tags


def test_a_game_ended_by_its_moves_without_a_result_is_not_in_progress(tmp_path):
    """A game whose file says no result (no Result tag, no result after the moves) but whose moves
    end it, mate or stalemate, is over; and a game without a result is in progress only if it is
    the one the board is recording."""
    d = tmp_path / "games"
    d.mkdir()
    (d / "mate.pgn").write_text('[White "Anna"]\n[Black "Ben"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7#\n')
    (d / "stalemate.pgn").write_text('[FEN "7k/8/6K1/8/8/8/8/5Q2 w - - 0 1"]\n\n1. Qf7\n')
    (d / "unfinished.pgn").write_text('[White "Cleo"]\n[Result "*"]\n\n1. d4 d5 *\n')
    (d / "playing.pgn").write_text('[White "Dan"]\n[Result "*"]\n\n1. c4 *\n')
    listed = {g["id"]: g for g in english(GameLibrary(d).games())}
    assert (listed["mate"]["result"], listed["mate"]["in_progress"]) == ("1-0", False)
    assert listed["mate"]["ending"] == "White wins by checkmate"
    assert (listed["stalemate"]["result"], listed["stalemate"]["in_progress"]) == ("1/2-1/2", False)
    assert listed["unfinished"]["in_progress"] and listed["playing"]["in_progress"]   # (who plays: unknown)
    board = GameLibrary(d, playing=lambda: "playing.pgn")
    listed = {g["id"]: g for g in board.games()}
    assert not listed["unfinished"]["in_progress"] and listed["playing"]["in_progress"]
    assert board.game("playing")["in_progress"] and not board.game("unfinished")["in_progress"]
    nothing = GameLibrary(d, playing=lambda: None)
    assert not any(g["in_progress"] for g in nothing.games())


async def test_the_board_answers_while_a_big_library_is_listed(serve, games):
    """The listing is read in a worker thread: while it reads (held here until the board's state
    has been answered, at most 30 s), the loop answers the board's own requests."""
    (games / "2020-01-01_import.pgn").write_text(big_import())
    client, companion, _ = await serve(games_dir=games)
    started, answered = threading.Event(), threading.Event()
    order = []
    real = GameLibrary._files

    def held(self):
        if not started.is_set():
            started.set()
            answered.wait(30)           # (on the loop, this would hold the state's answer too)
            order.append("listing read")
        return real(self)

    companion.library._files = types.MethodType(held, companion.library)
    listing = asyncio.ensure_future(client.get("/api/games"))
    while not started.is_set():         # (a thread's event: looked at between the loop's turns)
        await asyncio.sleep(0.01)
    state = await client.get("/api/state")
    order.append("state answered")
    answered.set()
    assert state.status == 200
    listed = await (await listing).json()
    assert order == ["state answered", "listing read"]
    big = next(g for g in listed["games"] if g["id"] == "2020-01-01_import")
    assert big["cut"] and big["more_games"] and big["white"] == "cancer0707"


def test_the_replays_kept_have_a_budget(tmp_path, monkeypatch):
    """A replay (every FEN, the SAN in two languages) is kept for the few games opened last, and
    for so many plies at most: ten files of long games do not all stay in memory."""
    import firmware.library.games as library_module
    monkeypatch.setattr(library_module, "DETAILS_PLIES", 100)
    d = tmp_path / "games"
    d.mkdir()
    for n, text in enumerate(big_import(10).split("\n\n[Event ")):
        (d / f"g{n}.pgn").write_text(text if n == 0 else "[Event " + text)
    library = GameLibrary(d)
    plies = [library.game(f"g{n}")["plies"] for n in range(10)]
    kept = list(library._details)
    assert 0 < len(kept) < 10 and kept[-1] == "g9"
    assert sum(plies[int(k[1:])] for k in kept) <= 100 or len(kept) == 1
    assert library.game("g0")["plies"] == plies[0]            # (read again when asked)


# -- issue 32, item 5: a long game, and one reading of a file at a time ----------------------------

def shuffle(plies: int, result: str = "1/2-1/2") -> str:
    """A legal game of ``plies`` plies: both knights go out and back (538,164 of them fill 4 MB)."""
    cycle = ("Nf3", "Nf6", "Ng1", "Ng8")
    moves = [f"{p // 2 + 1}. {cycle[p % 4]}" if p % 2 == 0 else cycle[p % 4] for p in range(plies)]
    lines = [" ".join(moves[i:i + 16]) for i in range(0, plies, 16)]
    return f'[White "A"]\n[Black "B"]\n[Result "{result}"]\n\n' + "\n".join(lines) + f" {result}\n"


def test_a_4_mb_game_is_read_up_to_the_ply_cap_within_a_memory_budget(tmp_path):
    """A legal 4 MB file of one game (538,164 plies) took 460 MB and 19 s to list, 660 MB to open,
    and its replay stayed kept: it is read up to MAX_PLIES, listed and replayed as far as it is read,
    ``cut`` and ``too_long``, with the result its tag says (its ending is not known)."""
    import tracemalloc
    from firmware.library.games import MAX_PLIES
    d = tmp_path / "games"
    d.mkdir()
    (d / "long.pgn").write_text(shuffle(538_164))
    assert MAX_PGN_BYTES - 64 < (d / "long.pgn").stat().st_size <= MAX_PGN_BYTES
    library = GameLibrary(d)
    tracemalloc.start()
    try:
        [listed] = library.games()
        game = library.game("long")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (listed["plies"], listed["cut"], listed["too_long"], listed["result"]) == (MAX_PLIES, True, True, "1/2-1/2")
    assert not listed["damaged"] and listed["ending"] is None and not listed["in_progress"]
    assert len(game["fens"]) == MAX_PLIES + 1 and [san_in(text, "fr") for text in game["san"][:2]] == ["Cf3", "Cf6"] and game["too_long"]
    assert peak < 32 * 1024 * 1024, f"{peak / 1e6:.0f} MB"
    (d / "short.pgn").write_text(shuffle(MAX_PLIES))          # (as long as the cap: whole)
    short = {g["id"]: g for g in GameLibrary(d).games()}["short"]
    assert (short["plies"], short["cut"], short["too_long"]) == (MAX_PLIES, False, False) and short["ending"]


def test_a_replay_over_the_budget_is_never_kept(tmp_path, monkeypatch):
    """The replays kept had at least the last one opened, whatever its size: a game over the
    budget (its plies) is read again when asked again, and pushes the others out."""
    import firmware.library.games as library_module
    monkeypatch.setattr(library_module, "DETAILS_PLIES", 6)
    reads = []
    real = library_module.read_file
    monkeypatch.setattr(library_module, "read_file", lambda path: reads.append(path.stem) or real(path))
    d = tmp_path / "games"
    record(d, "short", ("e4", "e5"))
    record(d, "mate", SHEPHERD)                 # 7 plies: over the budget
    library = GameLibrary(d)
    library.game("short")
    library.game("short")
    assert reads == ["short"]                   # (kept)
    assert library.game("mate")["plies"] == 7 and library.game("mate")["plies"] == 7
    assert reads == ["short", "mate", "mate"]   # never kept
    library.game("short")
    assert reads[-1] == "mate"                  # ... and the small one still is


def test_the_downloads_read_the_text_not_the_moves(games, monkeypatch):
    """/games.pgn and /games/<id>.pgn return the text: its games are not read (a parse of every
    file, 19 s for a 4 MB one, only to give its text back)."""
    import chess_core.pgn_reader as reader
    parses = []
    real = reader._Lexer.__init__
    monkeypatch.setattr(reader._Lexer, "__init__", lambda self, *a, **kw: parses.append(1) or real(self, *a, **kw))
    (games / "picture.pgn").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    library = GameLibrary(games)
    assert library.pgn("2025-03-01_1000_Anna-vs-Ben") == (games / "2025-03-01_1000_Anna-vs-Ben.pgn").read_text()
    assert library.pgn("picture") == ""
    assert library.all_pgn().count("[Event ") == 2
    assert parses == []


def test_a_file_is_read_once_however_many_ask_for_it_at_once(tmp_path, monkeypatch):
    """Two openings of one game and a listing at the same moment read its file once, and share
    that reading (three parses of a long game at once: three times the memory)."""
    import time
    import firmware.library.games as library_module
    d = tmp_path / "games"
    record(d, "mate", SHEPHERD)
    reads, entered, release = [], threading.Event(), threading.Event()
    real = library_module.read_file

    def held(path):
        reads.append(path.stem)
        entered.set()
        release.wait(30)
        return real(path)

    monkeypatch.setattr(library_module, "read_file", held)
    library = GameLibrary(d)
    found = {}
    first = threading.Thread(target=lambda: found.setdefault("first", library.game("mate")))
    first.start()
    assert entered.wait(30)
    others = [threading.Thread(target=lambda: found.setdefault("second", library.game("mate"))),
              threading.Thread(target=lambda: found.setdefault("listed", library.games()))]
    for thread in others:
        thread.start()
    deadline = time.monotonic() + 30        # (until both wait for the first reading, or read too)
    while (len(reads) < 2 and sum(f.waiting for f in getattr(library, "_flights", {}).values()) < 2
           and time.monotonic() < deadline):
        time.sleep(0.001)
    release.set()
    for thread in (first, *others):
        thread.join(30)
    assert reads == ["mate"]
    assert found["first"]["san"] == found["second"]["san"] and found["listed"][0]["plies"] == 7
