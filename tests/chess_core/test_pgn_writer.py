"""The PGN writer: tag order and defaults, English SAN, clocks, result, reason, line length."""
from __future__ import annotations

import doctest
import re

import pytest

from chess_core import pgn, pgn_model, pgn_reader, pgn_words, pgn_writer
from chess_core.game import Game
from chess_core.move import Move
from chess_core.pgn import read_game, write_pgn
from chess_core.squares import BLACK, WHITE

SCHOLAR = "e2e4 e7e5 f1c4 b8c6 d1h5 g8f6 h5f7"


def play(uci: str, fen: str | None = None) -> Game:
    game = Game(fen)
    for text in uci.split():
        game.push(Move.from_uci(text))
    return game


def tag_names(text: str) -> list[str]:
    return re.findall(r'^\[(\w+) "', text, re.MULTILINE)


def movetext(text: str) -> str:
    return text.split("\n\n", 1)[1]


def test_tags_are_the_roster_in_order_then_the_others_in_ascii_order():
    text = write_pgn(play(SCHOLAR), {"WhiteElo": "1500", "Annotator": "Échiquier", "Site": "Lyon"})
    assert tag_names(text) == ["Event", "Site", "Date", "Round", "White", "Black", "Result",
                               "Annotator", "PlyCount", "Termination", "TimeControl", "WhiteElo"]


def test_missing_headers_take_the_standard_unknown_values():
    text = write_pgn(Game())
    for line in ('[Event "?"]', '[Site "?"]', '[Date "????.??.??"]', '[Round "?"]', '[White "?"]',
                 '[Black "?"]', '[Result "*"]', '[TimeControl "?"]', '[PlyCount "0"]'):
        assert line in text.splitlines()


def test_headers_override_the_defaults_but_not_what_follows_from_the_game():
    text = write_pgn(play("e2e4"), {"Event": "Club night", "White": "Anne", "PlyCount": "99",
                                    "TimeControl": "300+3", "Termination": None})
    lines = text.splitlines()
    assert '[Event "Club night"]' in lines and '[White "Anne"]' in lines
    assert '[PlyCount "1"]' in lines and '[TimeControl "300+3"]' in lines
    assert "Termination" not in tag_names(text)


def test_a_roster_tag_cannot_be_dropped_and_tag_names_are_checked():
    with pytest.raises(ValueError, match="roster"):
        write_pgn(Game(), {"Event": None})
    with pytest.raises(ValueError, match="tag name"):
        write_pgn(Game(), {"Bad Name": "x"})
    with pytest.raises(ValueError, match="Result"):
        write_pgn(Game(), {"Result": "2-0"})


def test_tag_values_escape_quotes_and_backslashes_and_stay_on_one_line():
    text = write_pgn(Game(), {"Event": 'The "A" open', "Site": "C:\\club", "Annotator": "two\nlines"})
    lines = text.splitlines()
    assert '[Event "The \\"A\\" open"]' in lines
    assert '[Site "C:\\\\club"]' in lines
    assert '[Annotator "two lines"]' in lines


def test_a_game_still_going_ends_with_a_star_and_is_unterminated():
    text = write_pgn(play("e2e4 e7e5"))
    assert '[Result "*"]' in text and '[Termination "unterminated"]' in text
    assert movetext(text) == "1. e4 e5 *\n"


def test_an_empty_game_is_just_the_star():
    assert movetext(write_pgn(Game())) == "*\n"


def test_moves_are_in_english_san_with_check_and_mate_marks():
    text = write_pgn(play(SCHOLAR))
    assert movetext(text).startswith("1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7#")


def test_checkmate_gives_the_result_normal_termination_and_the_reason_after_the_last_move():
    text = write_pgn(play(SCHOLAR))
    assert '[Result "1-0"]' in text and '[Termination "normal"]' in text
    assert movetext(text) == "1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# { White wins by checkmate. } 1-0\n"


def test_a_flag_fall_is_a_time_forfeit_with_its_reason():
    game = play("e2e4 e7e5")
    game.flag(WHITE)
    text = write_pgn(game)
    assert '[Result "0-1"]' in text and '[Termination "time forfeit"]' in text
    assert movetext(text) == "1. e4 e5 { Black wins on time. } 0-1\n"


def test_timeout_against_a_bare_king_is_a_draw_by_time_forfeit():
    game = Game("4k3/8/8/8/8/8/8/3QK3 w - - 0 1")
    game.flag(WHITE)
    text = write_pgn(game)
    assert '[Result "1/2-1/2"]' in text and '[Termination "time forfeit"]' in text
    assert "{ Draw by timeout vs insufficient material. } 1/2-1/2" in text


def test_abandoned_and_resigned_and_agreed_games():
    game = play("e2e4")
    game.abandon(WHITE)
    assert '[Termination "abandoned"]' in write_pgn(game)
    game = play("e2e4")
    game.resign(BLACK)
    assert movetext(write_pgn(game)) == "1. e4 { White wins by resignation. } 1-0\n"
    game = play("e2e4")
    game.agree_draw()
    assert movetext(write_pgn(game)) == "1. e4 { Draw by agreement. } 1/2-1/2\n"


def test_a_resignation_before_any_move_puts_the_reason_before_the_result():
    game = Game()
    game.resign(WHITE)
    assert movetext(write_pgn(game)) == "{ Black wins by resignation. } 0-1\n"


def test_termination_argument_is_a_pgn_word_for_the_tag_or_else_the_reason_in_words():
    game = play("e2e4")
    game.resign(BLACK)
    text = write_pgn(game, termination="rules infraction")
    assert '[Termination "rules infraction"]' in text and "{ White wins by resignation. }" in text
    text = write_pgn(game, termination="Black made a third illegal move")
    assert '[Termination "normal"]' in text and "{ Black made a third illegal move } 1-0" in text


def test_a_clock_comment_follows_every_move_that_has_a_clock_value():
    text = write_pgn(play("e2e4 e7e5 g1f3"), {"TimeControl": "300+3"}, [299_700, 300_000, None])
    assert movetext(text) == "1. e4 { [%clk 0:04:59.7] } 1... e5 { [%clk 0:05:00] } 2. Nf3 *\n"


def test_clock_times_are_cut_to_the_tenth_like_the_clock_module_writes_them():
    text = write_pgn(play("e2e4 e7e5"), clocks=[3_723_499, 59])
    assert "[%clk 1:02:03.4]" in text and "[%clk 0:00:00]" in text


def test_a_time_control_not_given_is_unknown_not_none():
    """'-' says the game had no clock: only the caller knows that; the writer says '?'."""
    assert '[TimeControl "?"]' in write_pgn(play("e2e4"), clocks=[1000])
    assert '[TimeControl "?"]' in write_pgn(play("e2e4"))
    assert '[TimeControl "-"]' in write_pgn(play("e2e4"), {"TimeControl": "-"})


def test_a_game_read_is_written_back_with_only_what_the_file_had():
    text = ('[Event "Club"]\n[White "A"]\n[Black "B"]\n[Result "0-1"]\n[Annotator "me"]\n\n'
            '1. e4 e5 2. Qh5 Nc6 0-1\n')
    back = read_game(text).pgn()
    assert tag_names(back) == ["Event", "Site", "Date", "Round", "White", "Black", "Result", "Annotator"]
    assert movetext(back) == "1. e4 e5 2. Qh5 Nc6 0-1\n"  # no "Black wins by resignation."


def test_a_game_read_keeps_its_result_marker_and_its_plycount_follows_the_moves():
    mate = '[Result "*"]\n[PlyCount "9"]\n\n1. f3 e5 2. g4 Qh4# *\n'
    back = read_game(mate).pgn()
    assert '[Result "*"]' in back and '[PlyCount "4"]' in back and movetext(back) == "1. f3 e5 2. g4 Qh4# *\n"
    setup = '[SetUp "1"]\n[FEN "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"]\n\n1. e4 *\n'
    assert '[FEN "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"]' in read_game(setup).pgn()


def test_our_reason_comment_read_is_written_back_as_it_was():
    ours = write_pgn(play(SCHOLAR), {"White": "A"})
    again = read_game(ours)
    assert again.reason == "White wins by checkmate." and again.pgn() == ours


def test_bad_clock_lists_are_refused():
    with pytest.raises(ValueError, match="2 clock values"):
        write_pgn(play("e2e4"), clocks=[1, 2])
    with pytest.raises(ValueError, match="after move 1"):
        write_pgn(play("e2e4"), clocks=[-5])
    with pytest.raises(ValueError, match="after move 1"):
        write_pgn(play("e2e4"), clocks=[True])


def test_a_game_from_a_position_has_setup_and_fen_and_black_starts_with_dots():
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 3 7"
    text = write_pgn(play("g8f6 f3e5", fen))
    lines = text.splitlines()
    assert '[SetUp "1"]' in lines and f'[FEN "{fen}"]' in lines
    assert tag_names(text).index("FEN") < tag_names(text).index("SetUp")
    assert movetext(text) == "7... Nf6 8. Nxe5 *\n"


def test_a_game_from_the_standard_position_has_no_setup_or_fen():
    assert "FEN" not in tag_names(write_pgn(play("e2e4")))


def test_black_moves_after_a_comment_carry_their_number():
    text = write_pgn(play("e2e4 e7e5 g1f3 b8c6"), comments={1: "Best by test", 3: "Develops"})
    assert movetext(text) == "1. e4 { Best by test } 1... e5 2. Nf3 { Develops } 2... Nc6 *\n"


def test_comments_and_nags_are_written_where_asked():
    text = write_pgn(play("e2e4 e7e5"), comments={0: "Opening"}, nags={1: [1], 2: [6, 14]})
    assert movetext(text) == "{ Opening } 1. e4 $1 e5 $6 $14 *\n"
    with pytest.raises(ValueError):
        write_pgn(play("e2e4"), comments={5: "too far"})
    with pytest.raises(ValueError):
        write_pgn(play("e2e4"), nags={1: [300]})


def test_a_closing_brace_cannot_get_into_a_comment():
    text = write_pgn(play("e2e4"), comments={1: "a } b"})
    assert movetext(text) == "1. e4 { a b } *\n"


def test_lines_stay_within_80_characters_and_never_start_with_a_percent_sign():
    game = Game()
    moves = "g1f3 g8f6 f3g1 f6g8 b1c3 b8c6 c3b1 c6b8".split() * 6
    for uci in moves:
        game.push(Move.from_uci(uci))
        if game.outcome:
            break
    n = len(game.moves)
    comments = {p: "%odd " + "word " * (p % 23) + "x" * (p % 90) for p in range(0, n + 1, 3)}
    text = write_pgn(game, clocks=[10_000_000 + 100 * i for i in range(n)], comments=comments,
                     nags={p: [p % 200] for p in range(1, n, 5)})
    body = movetext(text).splitlines()
    assert len(body) > 10
    assert all(len(line) <= 80 for line in body)
    assert not any(line.startswith("%") for line in body)
    assert all(len(line) <= 80 for line in text.splitlines())


def test_a_move_keeps_its_number_and_its_clock_on_one_line():
    game = Game()
    for uci in ("g1f3 g8f6 f3g1 f6g8 " * 3).split():
        game.push(Move.from_uci(uci))
    text = write_pgn(game, clocks=[5_999_900] * len(game.moves))
    for line in movetext(text).splitlines():
        assert re.fullmatch(r"(\d+\.(\.\.)? \S+ \{ \[%clk [\d:.]+\] \} ?)+\*?", line), line


@pytest.mark.parametrize("module", [pgn, pgn_model, pgn_reader, pgn_words, pgn_writer])
def test_docstring_examples_hold(module):
    assert doctest.testmod(module).failed == 0


def test_a_long_comment_of_percent_words_wraps_without_cutting_a_word():
    game = Game()
    game.push_text("e4")
    comment = "x" * 70 + " %hmm %hmm e4 knight"
    text = write_pgn(game, comments={1: comment})
    assert all(len(line) <= 80 and not line.startswith("%") for line in text.splitlines())
    assert read_game(text).comments[1] == comment


def test_a_word_longer_than_a_line_stays_whole_on_a_line_of_its_own():
    word = "https://example.org/" + "x" * 90
    text = write_pgn(play("e2e4"), comments={1: f"see {word} later"})
    assert word in text.splitlines()
    assert read_game(text).comments[1] == f"see {word} later"


def test_commands_keep_their_spelling_and_order_when_a_game_read_is_written_back():
    text = ("1. e4 { [%eval 0.17][%clk 00:30:00] } 1... e5 { [%clk 0:29:59.50] [%emt 0:00:01] a note } *\n")
    back = read_game(text).pgn()
    flat = " ".join(back.split())
    assert "{ [%eval 0.17][%clk 00:30:00] }" in flat
    assert "{ [%clk 0:29:59.50] [%emt 0:00:01] a note }" in flat
    assert read_game(back).clocks == [1_800_000, 1_799_500]


def test_a_game_written_from_its_kept_san_is_the_game_written_by_replaying_it(monkeypatch):
    """The session keeps each move's SAN and saves after every move: given that SAN, the writer
    replays nothing (no san() call) and writes the same text, from any start (Black to move, a
    late move number) and with comments, clocks and NAGs."""
    import chess_core.pgn_writer as writer
    from chess_core.move import Move
    from chess_core.notation import san as real_san

    games = []
    for fen, ucis in [(None, "e2e4 c7c5 g1f3 d7d6 d2d4 c5d4 f3d4 g8f6 b1c3 a7a6 f1e2 e7e5 e1g1"),
                      ("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 7 41", "e8c8 e1g1 d8d1 f1d1 h8h1 g1h1")]:
        game = Game(fen)
        for uci in ucis.split():
            game.push(Move.from_uci(uci))
        games.append(game)
    for game in games:
        pos, sans = game.start_position(), []
        for move in game.moves:
            sans.append(real_san(pos, move, "en"))
            pos.push(move)
        n = len(game.moves)
        kw = dict(clocks=[60_000 - 100 * i for i in range(n)], comments={0: "start", 3: "a note"}, nags={2: [1]})
        replayed = write_pgn(game, {"White": "Ada"}, **kw)
        monkeypatch.setattr(writer, "san", lambda *a: (_ for _ in ()).throw(AssertionError("replayed")))
        assert write_pgn(game, {"White": "Ada"}, **kw, sans=sans) == replayed
        monkeypatch.undo()
        with pytest.raises(ValueError):
            write_pgn(game, sans=sans[:-1])


def test_a_comment_of_one_huge_word_is_cut_into_units_within_a_small_budget():
    """Issue 32.5: ``echiquier analyse`` went to 670 MB on a 3.9 MB comment: the word pattern kept
    a backtracking record per character of a word (120 MB for 1 MB). Now a few copies at most."""
    import tracemalloc
    word = "x" * 1_000_000
    tracemalloc.start()
    try:
        units = pgn_writer.comment_units(f"before {word} [%clk 0:01:00] after")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert units == ["{ before", word, "[%clk 0:01:00]", "after }"]
    assert peak < 4 * len(word)
