"""The library's analyses with the real Stockfish: asked on the page or run while idle, kept beside the games, served with the game, never of another game's moves."""
from __future__ import annotations

import asyncio
import io
import json
import shutil

import chess.pgn
import pytest

from firmware.analysis.engine import AnalysisLimit
from firmware.library.analyses import Analyses, AnalysisRefused
from firmware.library.games import GameLibrary, UnknownGame

from .test_library import SHEPHERD, record
from tests.said import both, error_in

pytestmark = pytest.mark.skipif(not shutil.which("/usr/games/stockfish"), reason="Stockfish is not installed")
QUICK = AnalysisLimit(depth=4)
FINISHED = "2025-03-01_1000_Anna-vs-Ben"
PLAYING = "2025-03-04_1200_Cleo-vs-Dan"
OLDER = "2025-02-01_0900_Ben-vs-Anna"


@pytest.fixture
def games(tmp_path):
    d = tmp_path / "games"
    record(d, FINISHED, SHEPHERD)                                   # 1-0 by checkmate
    record(d, OLDER, ("d4", "d5", "c4", "e6"), White="Ben", Black="Anna", Result="1/2-1/2")
    record(d, PLAYING, ("e4", "c5"), White="Cleo", Black="Dan")    # no result yet: in progress
    return d


def analyses_of(games, idle=lambda: True, **kw) -> Analyses:
    return Analyses(GameLibrary(games), games.parent / "analysis", idle=idle, limit=QUICK, **kw)


async def test_an_analysis_asked_for_is_kept_beside_the_game_and_is_of_its_moves(games):
    analyses = analyses_of(games)
    assert await analyses.request(FINISHED) == {"state": "queued"}
    await analyses.settled()
    uci = GameLibrary(games).game(FINISHED)["uci"]
    found = analyses.review(FINISHED, uci)
    assert found is not None and [m["uci"] for m in found["moves"]] == uci
    assert found["moves"][5]["san"] == "Nf6" and found["moves"][5]["judgement"] == "blunder"
    assert found["accuracy"]["white"] > found["accuracy"]["black"]
    assert analyses.status(FINISHED) is None
    pgn = analyses.pgn(FINISHED, uci)
    theirs = chess.pgn.read_game(io.StringIO(pgn))
    assert theirs.headers["White"] == "Anna" and list(theirs.mainline())[0].eval() is not None
    assert (games.parent / "analysis" / f"{FINISHED}.json").is_file()
    # the same file name with other moves (a game replaced): its analysis is not shown
    assert analyses.review(FINISHED, uci[:-1]) is None and analyses.pgn(FINISHED, uci[:-1]) is None


async def test_a_game_in_progress_or_unknown_is_refused(games):
    analyses = analyses_of(games)
    with pytest.raises(AnalysisRefused, match="still being played"):
        await analyses.request(PLAYING)
    with pytest.raises(UnknownGame):
        await analyses.request("nothing-here")


class RewrittenOnceRead(GameLibrary):
    """The recorder rewrites the game (its moves taken back and played otherwise) just after the
    analysis read it."""

    def pgn(self, game_id: str) -> str:
        text = super().pgn(game_id)
        if not getattr(self, "rewritten", False):
            self.rewritten = True
            record(self.games_dir, OLDER, ("d4", "d5", "c4", "c6"), White="Ben", Black="Anna", Result="1/2-1/2")
        return text


async def test_a_game_that_changes_while_analysed_keeps_no_analysis(games):
    analyses = Analyses(RewrittenOnceRead(games), games.parent / "analysis", limit=QUICK)
    await analyses.request(OLDER)
    await analyses.settled()
    assert analyses.status(OLDER)["state"] == "failed" and "changed" in analyses.status(OLDER)["error"]
    assert analyses.review(OLDER, GameLibrary(games).game(OLDER)["uci"]) is None
    await analyses.request(OLDER)                         # asked again: analysed
    await analyses.settled()
    assert analyses.review(OLDER, GameLibrary(games).game(OLDER)["uci"]) is not None


async def test_without_an_engine_the_analysis_fails_in_words(games):
    analyses = analyses_of(games, engine_path="/nonexistent/stockfish")
    await analyses.request(FINISHED)
    await analyses.settled()
    status = analyses.status(FINISHED)
    assert status["state"] == "failed" and "cannot run the engine" in status["error"]


async def test_when_idle_the_newest_finished_games_are_analysed_one_after_the_other(games):
    board_idle = [True]
    analyses = analyses_of(games, idle=lambda: board_idle[0])
    await analyses.tick()
    assert analyses.status(FINISHED) is None          # the setting is off by default
    await analyses.set_when_idle(True)                      # (it looks at once)
    assert json.loads((games.parent / "analysis" / "settings.json").read_text()) == {"when_idle": True}
    assert analyses.status(FINISHED) == {"state": "queued"} and analyses.status(PLAYING) is None
    await analyses.settled()
    await analyses.tick()
    assert analyses.status(OLDER) == {"state": "queued"}   # the next one, the game in progress never
    await analyses.settled()
    await analyses.tick()
    assert all(analyses.status(g) is None for g in (FINISHED, OLDER, PLAYING))   # nothing more to do
    library = GameLibrary(games)
    assert all(analyses.review(g, library.game(g)["uci"]) for g in (FINISHED, OLDER))
    assert analyses_of(games).when_idle        # kept for the next start


async def test_an_idle_analysis_stops_when_a_game_begins_and_one_asked_for_does_not(games):
    board_idle = [True]
    analyses = analyses_of(games, idle=lambda: board_idle[0])
    analyses.limit = AnalysisLimit(movetime_ms=2000)    # long enough to be under way when the game begins
    await analyses.set_when_idle(True)
    assert analyses.status(FINISHED) == {"state": "queued"}
    await asyncio.sleep(0)                              # (the runner takes it: running)
    board_idle[0] = False
    await analyses.tick()
    await analyses.settled()
    assert analyses.status(FINISHED) is None and analyses.review(FINISHED, GameLibrary(games).game(FINISHED)["uci"]) is None
    analyses.limit = QUICK
    await analyses.request(OLDER)                             # asked on the page: runs during a game
    await analyses.tick()
    await analyses.settled()
    assert analyses.review(OLDER, GameLibrary(games).game(OLDER)["uci"]) is not None


async def test_the_analysis_over_http(serve, games):
    client, companion, _ = await serve(games_dir=games)
    companion.analyses.limit = QUICK
    listed = await (await client.get("/api/games")).json()
    assert listed["analysis"] == {"when_idle": False}
    before = await (await client.get(f"/api/games/{FINISHED}")).json()
    assert before["analysis"] is None and before["analysing"] is None
    asked = await client.post(f"/api/games/{FINISHED}/analysis", json={})
    assert asked.status == 202 and (await asked.json())["analysing"]["state"] in ("queued", "running")
    await companion.analyses.settled()
    after = await (await client.get(f"/api/games/{FINISHED}")).json()
    assert after["analysing"] is None and after["analysis"]["moves"][5]["judgement"] == "blunder"
    download = await (await client.get(f"/games/{FINISHED}.pgn")).text()
    assert "[%eval" in download and "Nf6??" in download
    refused = await client.post(f"/api/games/{PLAYING}/analysis", json={})
    assert refused.status == 409 and "still being played" in (await refused.json())["error"]
    assert (await client.post("/api/games/nothing/analysis", json={})).status == 404
    setting = await client.post("/api/analysis/settings", json={"when_idle": "yes"})
    assert setting.status == 400 and "when_idle" in (await setting.json())["error"]
    setting = await client.post("/api/analysis/settings", json={"when_idle": False})
    assert setting.status == 200 and (await setting.json())["when_idle"] is False


async def test_the_board_shows_nothing_without_a_session_and_bad_moves_are_refused(serve, games):
    client, _, _ = await serve(games_dir=games)
    shown = await client.post("/api/board/show", json={"played": "e2e4", "best": "d2d4"})
    assert shown.status == 200 and (await shown.json())["shown"] is False
    bad = await client.post("/api/board/show", json={"played": "e2e9"})
    assert bad.status == 400 and "played" in (await bad.json())["error"]
    bad = await client.post("/api/board/show", json={"played": "e2e4", "colour": "red"})
    assert bad.status == 400 and "unknown field" in (await bad.json())["error"]


async def test_a_link_in_the_analyses_is_not_followed(serve, games, tmp_path_factory):
    """Issue 32.5: a link put in analysis/ was followed and its target served as the analysed
    download (a file outside the state directory). Links there are refused as in games/."""
    outside = tmp_path_factory.mktemp("elsewhere")
    (outside / "secret.pgn").write_text("root:x:0:0:secret\n")
    uci = GameLibrary(games).game(FINISHED)["uci"]
    review = {"moves": [], "accuracy": None}
    (outside / "review.json").write_text(json.dumps({"moves": GameLibrary(games).game(OLDER)["uci"], "review": review}))
    kept = games.parent / "analysis"
    kept.mkdir()
    (kept / f"{FINISHED}.json").write_text(json.dumps({"moves": uci, "review": review}))
    (kept / f"{FINISHED}.pgn").symlink_to(outside / "secret.pgn")
    (kept / f"{OLDER}.json").symlink_to(outside / "review.json")
    (kept / f"{OLDER}.pgn").symlink_to(outside / "secret.pgn")
    client, _, _ = await serve(games_dir=games)
    for game_id in (FINISHED, OLDER):
        answer = await client.get(f"/games/{game_id}.pgn")
        body = await answer.json()
        assert answer.status == 403 and "secret" not in json.dumps(body)
        assert "link" in body["error"] and "lien" in error_in(body, "fr")
    assert (await (await client.get(f"/api/games/{OLDER}")).json())["analysis"] is None
    assert (await client.get(f"/games/{PLAYING}.pgn")).status == 200    # (no analysis: the game as recorded)


async def test_a_game_ended_by_mate_without_a_result_tag_is_analysed(games):
    """Issue 32.5: a finished game whose file has no Result was "in progress": its analysis was refused."""
    (games / "2025-03-05_0900_Eve-vs-Fay.pgn").write_text(
        '[White "Eve"]\n[Black "Fay"]\n\n1. f3 e5 2. g4 Qh4#\n')
    analyses = analyses_of(games)
    assert await analyses.request("2025-03-05_0900_Eve-vs-Fay") == {"state": "queued"}
    await analyses.settled()
    assert analyses.review("2025-03-05_0900_Eve-vs-Fay", ["f2f3", "e7e5", "g2g4", "d8h4"]) is not None


# -- issue 32, item 5: a game too long, nothing read on the loop, one listing at a time --------------

LONG = "2025-01-01_0900_A-vs-B"


async def test_a_game_too_long_to_analyse_is_refused_in_words_and_never_taken_when_idle(serve, games):
    """A finished game over the library's ply cap (only its beginning is read) was analysed, the
    idle watch's too, at 200 ms a position: refused, in both languages, and skipped when idle."""
    from firmware.library.games import MAX_PLIES

    from .test_library import shuffle
    for name in (FINISHED, OLDER, PLAYING):
        (games / f"{name}.pgn").unlink()
    (games / f"{LONG}.pgn").write_text(shuffle(MAX_PLIES + 2))
    analyses = analyses_of(games)
    with pytest.raises(AnalysisRefused, match="too long to analyse") as refused:
        await analyses.request(LONG)
    assert refused.value.status == 422 and "trop longue" in refused.value.text("fr")
    await analyses.set_when_idle(True)                 # (it looks at once)
    assert analyses.status(LONG) is None
    client, _, _ = await serve(games_dir=games)
    answer = await client.post(f"/api/games/{LONG}/analysis", json={})
    body = await answer.json()
    assert answer.status == 422 and "1000 moves" in body["error"] and "1000 premiers coups" in error_in(body, "fr")


async def test_an_analysis_reads_its_game_once(games, monkeypatch):
    """An analysis read the file three times (the replay, then its text parsed twice), whole: now
    its summary is the listing's, and its text is read once."""
    import chess_core.pgn_reader as reader
    library = GameLibrary(games)
    analyses = Analyses(library, games.parent / "analysis", limit=QUICK)
    library.games()
    parses = []
    real = reader._Lexer.__init__
    monkeypatch.setattr(reader._Lexer, "__init__", lambda self, *a, **kw: parses.append(1) or real(self, *a, **kw))
    await analyses.request(FINISHED)
    await analyses.settled()
    assert analyses.status(FINISHED) is None and analyses.review(FINISHED, library.moves(FINISHED)) is not None
    assert len(parses) == 1


async def test_the_idle_watch_reads_nothing_on_the_loop(games, monkeypatch):
    """The watch chose its game on the loop: the listing, the game's replay (in two languages) and
    the analyses kept (up to 16 MB of JSON) held the board's loop. Every file is read in a thread."""
    import threading

    import firmware.library.games as library_module
    loop_thread = threading.get_ident()
    on_loop = []

    def watched(name, real):
        def read(*args, **kw):
            if threading.get_ident() == loop_thread:
                on_loop.append(name)
            return real(*args, **kw)
        return read

    for name in ("read_file", "read_text", "_read_bytes"):
        monkeypatch.setattr(library_module, name, watched(name, getattr(library_module, name)))
    monkeypatch.setattr(GameLibrary, "_files", watched("listing", GameLibrary._files))
    monkeypatch.setattr(GameLibrary, "_stamp", staticmethod(watched("stat", GameLibrary._stamp)))
    monkeypatch.setattr(Analyses, "_read", watched("analysis file", Analyses._read))
    analyses = analyses_of(games)
    await analyses.set_when_idle(True)
    await analyses.settled()
    await analyses.tick()                   # (the next one; the first's analysis is read back)
    await analyses.settled()
    await analyses.tick()
    assert analyses.status(FINISHED) is None and analyses.status(OLDER) is None
    assert (games.parent / "analysis" / f"{OLDER}.json").is_file()
    assert on_loop == []


async def test_the_idle_watch_waits_for_the_pages_listing(games):
    """The watch listed the library beside the page's listing (two parses of each file at once):
    it takes the page's listing lock."""
    import threading
    import types

    from firmware.web.library_pages import LibraryPages
    library = GameLibrary(games)
    analyses = Analyses(library, games.parent / "analysis", limit=QUICK)
    (games.parent / "analysis").mkdir()
    (games.parent / "analysis" / "settings.json").write_text('{"when_idle": true}')
    pages = LibraryPages(library, analyses=analyses)
    inside, most, started, release = [0], [0], threading.Event(), threading.Event()
    count = threading.Lock()
    real = GameLibrary.games

    def held(self):
        with count:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        started.set()
        release.wait(30)
        try:
            return real(self)
        finally:
            with count:
                inside[0] -= 1

    library.games = types.MethodType(held, library)
    listing = asyncio.ensure_future(pages.games(None))
    while not started.is_set():
        await asyncio.sleep(0.01)
    tick = asyncio.ensure_future(analyses.tick())
    for _ in range(3000):   # until the watch waits for the lock (or, without it, lists meanwhile)
        if most[0] > 1 or getattr(analyses.listing, "_waiters", None):
            break
        await asyncio.sleep(0.01)
    release.set()
    await listing
    await tick
    await analyses.stop()
    assert most[0] == 1
