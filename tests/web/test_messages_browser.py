"""The page says the state's messages as the board does: static/said.js in Chromium against firmware.words.message.render, every kind of value, in every language."""
from __future__ import annotations

import json

from chess_core import BLACK, WHITE, Move, Outcome, Position, Termination
from chess_core.chess960 import start_position
from firmware import words
from firmware.session.commands import SessionError, side_played
from firmware.words.message import English, Message, San, from_json, render, to_json

from .test_browser import browser, open_page, sim  # noqa: F401 - fixtures

CASTLE_READY = "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"


def corpus() -> list[Message]:
    """Messages of every kind the board says: nested messages, sides, pieces, SAN, endings, lists,
    steps, the rule of "then", a machine's English, a refusal."""
    start = Position()
    c960 = start_position(323)
    castled = Position(CASTLE_READY)
    knight_gone = start.occupied & ~(1 << 6)
    many_gone = start.occupied & ~0xFF00
    return [
        words.side_to_move(WHITE, check=True),
        words.opponent_plays(Position("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"),
                             Move.from_uci("g8f6"), "Stockfish"),
        words.outcome_text(Outcome(Termination.CHECKMATE, BLACK)),
        words.outcome_text(Outcome(Termination.STALEMATE)),
        words.outcome_text(Outcome(Termination.TIME_FORFEIT, WHITE)),
        words.takeback_text(start, Move.from_uci("g1f3")),
        words.illegal_text(start, knight_gone),
        words.illegal_text(start, many_gone),
        words.paused_text(words.board_hint(start, knight_gone) or Message.of("put_right")),
        words.board_hint(castled, castled.occupied & ~(1 << 4) | 1 << 6) or Message.of("put_right"),
        words.setup_text(c960, c960.occupied, c960.occupied & 0xFF, number=323),
        words.setup_text(c960, 0, c960.occupied, number=323),
        words.setup_text(start, start.occupied ^ (1 << 20 | 1 << 8), 1 << 20 | 1 << 8),
        words.refused_text("Lichess", Move.from_uci("g1f3"), "no", Position()),
        words.refused_text("", Move.from_uci("g1f3"), "no"),
        words.opponent_line("engine", "Stockfish 16", [WHITE, BLACK]),
        words.opponent_line("lichess", None, []),
        words.void_text("aborted"),
        words.void_text("noStart"),
        words.draw_offers_from(20, 12),
        Message.of("coach_take_back", judged=Message.of("coach_judged", judgement=Message.of("coach_blunder"),
                                                         best=San("Qxf7#"))),
        Message.of("cannot_save", error=English("[Errno 28] No space left on device")),
        SessionError("takeover_already", side=side_played(BLACK)).message,
        words.Refusal("bad_field", field="color", problem=English("expected one of 'white', 'black'")).message,
    ]


def test_every_message_survives_its_json_form():
    for message in corpus():
        data = json.loads(json.dumps(to_json(message)))
        assert from_json(data) == message
        for lang in words.LANGS:
            assert render(from_json(data), lang) == render(message, lang)


def test_the_page_says_every_message_as_the_board_does(sim, open_page):
    page = open_page(sim())
    messages = [to_json(message) for message in corpus()]
    for lang in words.LANGS:
        shown = page.evaluate(
            """async ([messages, lang]) => {
                 const { ui } = await import("/static/ui.js");
                 const { said } = await import("/static/said.js");
                 const before = ui.lang;
                 ui.lang = lang;
                 try { return messages.map(said); } finally { ui.lang = before; }
               }""", [messages, lang])
        assert shown == [render(message, lang) for message in corpus()], lang
    assert page.errors == []
