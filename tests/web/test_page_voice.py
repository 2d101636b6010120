"""The page's announcements (the state's ``said``) and its voice requests (POST /api/voice), with the board's own voice or without."""
from __future__ import annotations

import pytest

from .test_session_backend import Table


@pytest.fixture
def table(tmp_path):
    return Table(tmp_path)


class BoardVoice:
    """The board's voice as the page reaches it: the requests and the language it is given."""

    def __init__(self, follows_page: bool = True) -> None:
        self.requests: list[str] = []
        self.follows_page = follows_page
        self.lang = "en"
        self.muted = False

    def mute(self, muted: bool) -> None:
        self.muted = muted

    def request(self, what: str) -> None:
        self.requests.append(what)

    def use_language(self, lang: str) -> None:
        if self.follows_page:
            self.lang = lang


def test_each_move_is_announced_in_both_languages_with_a_new_number(table):
    table.move("g1", "f3")
    first = table.backend.said()
    assert (first["text"]["en"], first["text"]["fr"], first["kinds"]) == ("Knight f3", "Cavalier f3", ["move"])
    table.move("e7", "e5")
    second = table.backend.said()
    assert (second["text"]["en"], second["text"]["fr"]) == ("e5", "e5") and second["n"] > first["n"]
    assert table.state()["status"] == "White to move"   # (the state itself as before)


def test_a_wrong_board_is_announced_at_once_in_the_status_words(table):
    table.move("g1", "f3")
    table.move("b8", "b5")   # no knight's move
    said, state = table.backend.said(), table.state()
    assert said["kinds"] == ["prompt"] and said["text"]["fr"] == table.state("fr")["status"]
    assert said["text"]["en"] == state["status"] and said["text"]["en"].startswith("Not a legal move (Black to move)")


def test_the_page_asks_for_the_position_the_clocks_and_the_last_move_in_its_language(table):
    table.move("e2", "e4")
    now = table.clock.now
    described = table.backend.voice("describe", "fr", now)
    assert described["text"].startswith("Blancs : roi e1, dame d1") and described["board"] is False
    assert table.backend.voice("repeat", "en", now)["text"] == "Last move: e4"
    assert table.backend.voice("clocks", "fr", now)["text"] == "Pas de pendule"
    assert table.backend.voice(None, "fr", now) == {"text": "", "board": False, "muted": False}


def test_the_boards_voice_says_what_the_page_asks_in_the_pages_language(table):
    voice = BoardVoice()
    table.backend.spoken.board_voice = lambda: voice
    answer = table.backend.voice("repeat", "fr", table.clock.now)
    assert answer == {"text": "Aucun coup joué", "board": True, "muted": False}
    assert voice.requests == ["repeat"] and voice.lang == "fr"
    table.backend.voice(None, "en", table.clock.now)   # the page changed its language
    assert voice.requests == ["repeat"] and voice.lang == "en"


async def test_post_api_voice_answers_the_text_and_refuses_a_bad_request_clearly(table, serve):
    client, companion, backend = await serve(backend=table.backend)
    async with client.post("/api/voice", json={"say": "describe", "lang": "en"}) as answer:
        assert answer.status == 200
        body = await answer.json()
    assert body["ok"] and body["text"].startswith("White: king e1") and body["board"] is False
    async with client.post("/api/voice", json={"say": "sing", "lang": "en"}) as answer:
        assert answer.status == 400
        assert "say: expected one of 'repeat', 'describe', 'clocks', got 'sing'" in (await answer.json())["error"]
    async with client.post("/api/voice", json={"say": "repeat"}) as answer:
        assert answer.status == 400 and "lang" in (await answer.json())["error"]


async def test_the_page_state_carries_the_latest_announcement(table, serve):
    client, companion, backend = await serve(backend=table.backend)
    table.move("g1", "f3")
    async with client.get("/api/state") as answer:
        said = (await answer.json())["said"]
    assert said["text"]["fr"] == "Cavalier f3" and said["kinds"] == ["move"]


def test_the_pages_switch_mutes_the_boards_voice_and_says_so(table):
    voice = BoardVoice()
    table.backend.spoken.board_voice = lambda: voice
    assert table.backend.voice(None, "fr", table.clock.now, mute=True) == {"text": "", "board": True, "muted": True}
    assert voice.muted
    assert table.backend.voice(None, "fr", table.clock.now)["muted"] is True   # (a request alone changes nothing)
    assert table.backend.voice(None, "fr", table.clock.now, mute=False)["muted"] is False


async def test_post_api_voice_takes_the_switch_as_a_boolean(table, serve):
    client, companion, backend = await serve(backend=table.backend)
    async with client.post("/api/voice", json={"lang": "fr", "mute": "yes"}) as answer:
        assert answer.status == 400 and "mute" in (await answer.json())["error"]
    async with client.post("/api/voice", json={"lang": "fr", "mute": True}) as answer:
        assert answer.status == 200 and (await answer.json())["board"] is False   # (no voice on this board)


def test_the_page_may_ask_in_any_language_of_the_words_german_too(table):
    table.move("e2", "e4")
    now = table.clock.now
    assert table.backend.voice("describe", "de", now)["text"].startswith("Weiß: König e1, Dame d1")
    assert table.backend.voice("repeat", "de", now)["text"] == "Letzter Zug: e4"
    assert table.backend.voice("clocks", "de", now)["text"] == "Keine Uhr"


async def test_get_api_words_serves_every_language_the_board_has(table, serve):
    """The page's words, the LED legend and the squares for a screen reader, in each language of
    firmware.words: the page's language menu may list them (Object.keys of "page")."""
    from firmware.words import LANGS

    client, companion, backend = await serve(backend=table.backend)
    async with client.get("/api/words") as answer:
        body = await answer.json()
    assert tuple(body["page"]) == tuple(body["leds"]) == tuple(body["squares"]) == LANGS
    assert body["page"]["de"]["touch_move"].startswith("Berührt – geführt")
    assert body["squares"]["de"]["pieces"]["N"] == "weißer Springer"
