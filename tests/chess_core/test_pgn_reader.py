"""The PGN reader: every feature of hand-written PGN, French letters, outcomes, and errors."""
from __future__ import annotations

import io
from pathlib import Path

import pytest

from chess_core.game import Game
from chess_core.outcome import Outcome, Termination
from chess_core.pgn import PgnError, PgnGame, outcome_from_tag, read_game, read_games, read_pgn
from chess_core.squares import BLACK, WHITE

DATA = Path(__file__).parent / "data"


def sample(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def san(pg: PgnGame) -> list[str]:
    return pg.game.san_moves()


# -- a full-featured game ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def features() -> PgnGame:
    return read_game(sample("features.pgn"))


def test_tags_are_read_with_their_escapes(features):
    assert features.headers["Event"] == 'Club championship "A"'
    assert features.headers["Annotator"] == "C:\\chess"
    assert features.headers["White"] == "Dupont, Anne"
    assert list(features.headers)[:7] == ["Event", "Site", "Date", "Round", "White", "Black", "Result"]


def test_the_main_line_is_read_through_comments_escapes_and_variations(features):
    moves = san(features)
    assert len(moves) == 63
    assert moves[:8] == ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6"]
    assert moves[-1] == "Qxg7"
    assert features.result == "1-0"
    assert features.warnings == []


def test_brace_and_semicolon_comments_are_kept_per_ply(features):
    assert features.comments[0] == "A comment may hold { but not its closing brace."
    assert features.comments[1] == "Best by test."
    assert features.comments[4] == "a comment to the end of the line"
    assert 2 not in features.comments  # it held only a clock


def test_nags_and_move_suffixes_are_read_as_nags(features):
    assert features.nags[1] == [1]      # $1
    assert features.nags[3] == [5]      # Nf3!?
    assert features.nags[14] == [6]     # d6 $6
    assert features.nags[52] == [4]     # Rac8??


def test_clocks_are_read_from_clk_commands(features):
    assert features.clocks[:3] == [5_400_000, 5_397_400, None]
    assert len(features.clocks) == len(features.game.moves)


def test_variations_are_kept_as_lines_nested_where_they_branch(features):
    alternatives = features.variations[6]  # alternatives to 3... a6
    assert [line.san for line in alternatives] == [["Nf6", "O-O", "Nxe4"], ["f5"]]
    first, second = alternatives
    assert first.start_fen == "r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3"
    assert [line.san for line in first.variations[2]] == [["d3", "Bc5"]]  # instead of 4. O-O
    assert second.nags == {1: [5]} and second.comments == {1: "Schliemann"}


def test_a_bom_and_windows_or_old_mac_line_ends_read_the_same(features):
    text = sample("features.pgn")
    for variant in ("\ufeff" + text.replace("\n", "\r\n"), text.replace("\n", "\r")):
        again = read_game(variant)
        assert again.game.moves == features.game.moves
        assert again.headers == features.headers
        assert again.comments == features.comments
        assert again.clocks == features.clocks


def test_a_file_object_of_lines_reads_like_the_text(features):
    again = read_game(io.StringIO(sample("features.pgn")))
    assert again.game.moves == features.game.moves and again.nags == features.nags


def test_other_comment_commands_stay_in_the_comment_text():
    pg = read_game("1. e4 { [%eval 0.3] [%clk 0:10:00] good } *")
    assert pg.clocks == [600_000]
    assert pg.comments == {1: "[%eval 0.3] good"}


@pytest.mark.parametrize("text, ms", [("0:4:59", 299_000), ("1:02:03.456", 3_723_456),
                                      ("0:00:01.23456", 1_235), ("0:00:07.", 7_000),
                                      ("12:00:00", 43_200_000)])
def test_clock_spellings_are_read_to_the_millisecond(text, ms):
    assert read_game(f"1. e4 {{ [%clk {text}] }} *").clocks == [ms]


# -- several games, and errors ----------------------------------------------------------------

def test_a_broken_game_in_the_middle_does_not_stop_the_following_ones():
    errors: list[PgnError] = []
    games = read_pgn(sample("broken_middle.pgn"), errors)
    assert [g.headers["Event"] for g in games] == ["First", "Third", "Fifth"]
    assert [g.number for g in games] == [1, 3, 5]
    assert [e.number for e in errors] == [2, 4]
    illegal, unclosed = errors
    assert (illegal.white, illegal.black, illegal.ply, illegal.move) == ("Gamma", "Delta", 9, "Ke3")
    assert illegal.line == 13
    assert str(illegal).startswith("game 2 (Gamma - Delta), move 5. Ke3 (line 13): illegal move 'Ke3'")
    assert "comment opened on line 27 is not closed (after 1. e4)" in str(unclosed)
    assert str(unclosed).startswith("game 4 (Eta - Theta)")


def test_read_games_yields_games_and_errors_in_file_order():
    kinds = [type(item).__name__ for item in read_games(sample("broken_middle.pgn"))]
    assert kinds == ["PgnGame", "PgnError", "PgnGame", "PgnError", "PgnGame"]


def test_without_an_error_list_the_first_broken_game_raises():
    with pytest.raises(PgnError, match="game 2"):
        read_pgn(sample("broken_middle.pgn"))


def test_pgn_error_is_a_value_error_that_names_a_black_move():
    with pytest.raises(ValueError) as info:
        read_game('[White "A"]\n[Black "B"]\n\n1. e4 e5 2. Nf3 Ke6 *')
    err = info.value
    assert isinstance(err, PgnError)
    assert (err.game_number, err.ply, err.move, err.label) == (1, 4, "Ke6", "2... Ke6")
    assert "game 1 (A - B), move 2... Ke6 (line 4)" in str(err)


def test_read_game_wants_exactly_one_game():
    with pytest.raises(PgnError, match="found 0"):
        read_game("\n% nothing here\n")
    with pytest.raises(PgnError, match="found 2"):
        read_game("1. e4 1-0\n1. d4 0-1\n")


def test_games_without_tags_and_several_on_a_line():
    games = read_pgn("1. e4 e5 1/2-1/2 1. d4 0-1\n\n1. c4 *")
    assert [san(g) for g in games] == [["e4", "e5"], ["d4"], ["c4"]]
    assert [g.result for g in games] == ["1/2-1/2", "0-1", "*"]


def test_a_game_cut_by_the_next_tags_takes_its_result_from_its_tag():
    games = read_pgn('[Result "1-0"]\n\n1. e4 e5\n[Result "0-1"]\n\n1. d4 0-1\n')
    assert [g.result for g in games] == ["1-0", "0-1"]
    assert "taken from the tag" in games[0].warnings[0]
    assert games[0].game.outcome == Outcome(Termination.RESIGNATION, WHITE)


def test_a_game_of_tags_only_has_no_moves():
    pg = read_game('[Event "Adjourned"]\n[Result "*"]\n')
    assert pg.game.moves == [] and pg.result == "*" and pg.game.outcome is None


def test_leading_comments_of_a_file_are_not_a_game():
    games = read_pgn("; written by hand\n{ a file comment }\n\n[Event \"x\"]\n\n1. e4 *\n")
    assert len(games) == 1 and games[0].headers == {"Event": "x"} and games[0].number == 1


@pytest.mark.parametrize("text, problem", [
    ("1. e4 e5 2. Nf3 (2. f4 exf4 *", "inside a variation"),
    ("1. e4 e5 (1... c5 2. Nf3 \n", "variation opened on line 1 is not closed"),
    ('[Event "x"\n\n1. e4 *', "malformed tag pair"),
    ('[FEN "8/8/8/8/8/8/8/8 w - - 0 1"]\n\n*', "FEN tag"),
    ('[Variant "Crazyhouse"]\n\n1. e4 *', "not supported"),
    ("1. e4 } e5 *", "unexpected '}'"),
    ("1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 0-1", "contradicts the final position"),
    ('[Result "1-0"]\n\n1. e4 0-1', "Result tag says 1-0"),
    ("1. f3 e5 2. g4 Qh4# 3. Kf2 0-1", "already over"),
    ("1. e4 e5 2. Nc3 Nc6 3. Ne2 *", "ambiguous"),
    ("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Bxc6 dxc6 5. O-O O-O-O 6. O-O *", "castling"),
])
def test_malformed_games_raise_a_clear_error(text, problem):
    errors: list[PgnError] = []
    assert read_pgn(text + "\n\n[Event \"next\"]\n\n1. d4 *\n", errors)[0].headers["Event"] == "next"
    assert len(errors) == 1 and problem in str(errors[0]), errors


def test_null_moves_pass_the_turn_in_the_main_line_and_in_variations():
    pg = read_game("1. e4 -- 2. d4 Z0 (2... e5 3. -- d5) 3. c4 *")
    assert san(pg) == ["e4", "--", "d4", "--", "c4"]
    assert pg.game.fen().split()[:2] == ["rnbqkbnr/pppppppp/8/8/2PPP3/8/PP3PPP/RNBQKBNR", "b"]
    assert [line.san for line in pg.variations[4]] == [["e5", "--", "d5"]]
    assert "1. e4 -- 2. d4 -- 3. c4 *" in pg.pgn()


def test_uci_moves_wrappers_en_dashes_and_tags_before_moves_on_one_line():
    assert san(read_game("e2e4 e7e5 g1f3 b8c6 f1b5 *")) == ["e4", "e5", "Nf3", "Nc6", "Bb5"]
    wrapped = read_game('[pgn][Event "Forum"]\n1. e4 e5 2. Nf3 1–0[/pgn]')
    assert wrapped.headers == {"Event": "Forum"} and wrapped.result == "1-0" and len(wrapped.moves) == 3
    assert read_game('[Result "½–½"]\n\n1. d4 d5 ½–½').result == "1/2-1/2"
    games = read_pgn('[White "A"] [Result "1-0"] 1. e4 1-0\n[White "B"] 1. d4 *\n')
    assert [(g.headers["White"], san(g), g.result) for g in games] == [("A", ["e4"], "1-0"),
                                                                      ("B", ["d4"], "*")]


def test_castling_rights_the_fen_position_denies_are_dropped_with_a_warning():
    pg = read_game('[SetUp "1"]\n[FEN "r3k2r/8/8/8/8/8/8/4K2R w KQkq - 0 1"]\n\n1. Kf1 O-O-O *')
    assert pg.game.start_fen == "r3k2r/8/8/8/8/8/8/4K2R w Kkq - 0 1"
    assert pg.warnings == ["FEN tag: castling right 'Q' dropped: castling right 'Q' needs the king "
                           "on e1 and a rook on a1"]
    assert '[FEN "r3k2r/8/8/8/8/8/8/4K2R w Kkq - 0 1"]' in pg.pgn()


def test_a_star_marker_after_a_decided_result_tag_takes_the_tag():
    pg = read_game('[Result "0-1"]\n\n1. e4 *')
    assert pg.result == "0-1" and "taken from the Result tag" in pg.warnings[0]
    assert read_game('[Result "*"]\n\n1. e4 1-0').result == "1-0"


def test_a_variation_with_an_illegal_move_is_dropped_and_the_main_line_goes_on():
    pg = read_game("1. e4 e5 (1... Ke7?? 2. Qh5 (2. Ke3) Ke6) 2. Nf3 (2. Bb5 Bb4) 2... Nc6 *")
    assert san(pg) == ["e4", "e5", "Nf3", "Nc6"]
    assert list(pg.variations) == [3]  # the one at ply 2 was dropped, with its sub-variation
    assert "variation dropped at 1... Ke7??" in pg.warnings[0]


def test_a_stray_closing_parenthesis_is_a_warning():
    pg = read_game("1. e4 ) e5 *")
    assert san(pg) == ["e4", "e5"] and "')' without '('" in pg.warnings[0]


def test_a_variation_before_any_move_is_dropped():
    pg = read_game("( 1. d4 ) 1. e4 *")
    assert san(pg) == ["e4"] and pg.variations == {} and pg.warnings


def test_en_passant_marks_and_annotations_glued_to_moves_are_read():
    pg = read_game("1. e4 Nf6 2. e5 d5 3. exd6 e.p. exd6!? 4. Nf3+? *")
    assert san(pg) == ["e4", "Nf6", "e5", "d5", "exd6", "exd6", "Nf3"]
    assert pg.nags == {6: [5], 7: [2]}


# -- French letters ---------------------------------------------------------------------------

def test_french_letters_are_read_and_the_game_says_so():
    scholar, promotion = read_pgn(sample("french.pgn"))
    assert san(scholar) == ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"]
    assert scholar.lang == "fr"
    assert scholar.game.outcome == Outcome(Termination.CHECKMATE, WHITE)
    assert san(promotion) == ["O-O", "Ke7", "b8=Q", "Kd7", "Rfd1+", "Kc6"]
    assert promotion.game.start_fen == "4k3/1P6/8/8/8/8/8/R3K2R w KQ - 0 1"


def test_the_language_is_decided_per_game():
    games = read_pgn("1. e4 e5 2. Fc4 Fc5 *\n\n1. e4 e5 2. Bc4 Bc5 *\n\n1. Cf3 Cf6 *\n")
    assert [g.lang for g in games] == ["fr", "en", "fr"]
    assert san(games[0]) == san(games[1])


def test_r_alone_is_a_rook_when_a_rook_can_go_else_a_french_king():
    rook = read_game('[FEN "4k3/8/8/8/8/8/8/R3K3 w - - 0 1"]\n\n1. Ra7 *')
    king = read_game("1. e4 e5 2. Re2 Re7 *")
    assert san(rook) == ["Ra7"] and san(king) == ["e4", "e5", "Ke2", "Ke7"]


# -- outcomes ---------------------------------------------------------------------------------

def test_the_board_decides_when_it_can():
    stalemate = read_game('[FEN "7k/8/6K1/8/8/8/5Q2/8 w - - 0 1"]\n\n1. Qf7 1/2-1/2')
    assert stalemate.game.outcome == Outcome(Termination.STALEMATE)
    mate = read_game("1. f3 e5 2. g4 Qh4# 0-1")
    assert mate.game.outcome == Outcome(Termination.CHECKMATE, BLACK)


@pytest.mark.parametrize("tag, result, expected", [
    ("Time forfeit", "1-0", Outcome(Termination.TIME_FORFEIT, WHITE)),
    ("time forfeit", "1/2-1/2", Outcome(Termination.TIME_VS_INSUFFICIENT)),
    ("Black won on time", "0-1", Outcome(Termination.TIME_FORFEIT, BLACK)),
    ("abandoned", "0-1", Outcome(Termination.ABANDONED, BLACK)),
    ("rules infraction", "1-0", Outcome(Termination.ABANDONED, WHITE)),
    ("normal", "0-1", Outcome(Termination.RESIGNATION, BLACK)),
    ("", "1-0", Outcome(Termination.RESIGNATION, WHITE)),
    ("White won by resignation", "1-0", Outcome(Termination.RESIGNATION, WHITE)),
    ("normal", "1/2-1/2", Outcome(Termination.AGREEMENT)),
    ("Game drawn by agreement", "1/2-1/2", Outcome(Termination.AGREEMENT)),
])
def test_a_result_and_a_termination_tag_give_the_outcome(tag, result, expected):
    pg = read_game(f'[Termination "{tag}"]\n\n1. e4 e5 {result}')
    assert pg.game.outcome == expected
    assert outcome_from_tag(tag, result) == expected


def test_a_drawn_result_where_a_repetition_can_be_claimed_is_a_repetition_draw():
    text = "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 1/2-1/2"
    assert read_game(text).game.outcome == Outcome(Termination.THREEFOLD_REPETITION)
    agreed = '[Termination "Game drawn by agreement"]\n\n' + text
    assert read_game(agreed).game.outcome == Outcome(Termination.AGREEMENT)


TIME = '[Termination "time forfeit"]\n\n'
NORMAL = '[Termination "normal"]\n\n'


def test_our_reason_comment_gives_the_outcome_and_leaves_the_comments():
    pg = read_game(TIME + "1. e4 { [%clk 0:00:03] } { Black wins on time. } 0-1")
    assert pg.game.outcome == Outcome(Termination.TIME_FORFEIT, BLACK)
    assert pg.comments == {} and pg.clocks == [3000] and pg.reason == "Black wins on time."
    pg = read_game(NORMAL + "{ White wins by resignation. } 1-0")
    assert pg.game.outcome == Outcome(Termination.RESIGNATION, WHITE) and pg.comments == {}


def test_a_reason_that_the_position_denies_is_ignored_with_a_warning():
    pg = read_game(NORMAL + "1. e4 { White wins by checkmate. } 1-0")
    assert pg.game.outcome == Outcome(Termination.RESIGNATION, WHITE)
    assert pg.warnings and pg.comments == {}
    pg = read_game(NORMAL + "1. e4 { Draw by threefold repetition. } 1/2-1/2")
    assert pg.game.outcome == Outcome(Termination.AGREEMENT)


def test_a_reason_for_another_result_stays_a_comment():
    pg = read_game(TIME + "1. e4 { White wins on time. } 0-1")
    assert pg.comments == {1: "White wins on time."}
    assert pg.game.outcome == Outcome(Termination.TIME_FORFEIT, BLACK)


@pytest.mark.parametrize("text", [
    # Lichess writes our very sentence beside its own Termination word
    '[Termination "Normal"]\n\n1. e4 e5 { White wins by resignation. } 1-0',
    # without a Termination tag, or in another spelling, it is someone else's comment
    "1. e4 e5 { White wins by resignation. } 1-0",
    '[Termination "normal"]\n\n1. e4 e5 { white wins by resignation } 1-0',
])
def test_another_programs_end_comment_stays_a_comment(text):
    pg = read_game(text)
    assert pg.reason is None and pg.comments[2].lower().startswith("white wins by resignation")
    assert pg.pgn().count("{") == 1


def test_an_unfinished_game_has_no_outcome():
    pg = read_game('[Result "*"]\n\n1. e4 *')
    assert pg.game.outcome is None and not pg.game.is_over


def test_a_game_that_went_on_past_a_fivefold_repetition_is_read_as_played():
    shuffle = " ".join(f"{2 * i + 1}. Nf3 Nf6 {2 * i + 2}. Ng1 Ng8" for i in range(4))
    pg = read_game(shuffle + " 9. e4 e5 1/2-1/2")
    assert len(pg.game.moves) == 18
    assert any("fivefold" in w for w in pg.warnings)
    assert pg.game.outcome == Outcome(Termination.AGREEMENT)


def test_the_rules_profile_is_the_callers():
    text = "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 *"
    assert read_game(text).game.outcome is None
    assert read_game(text, rules="casual").game.outcome == Outcome(Termination.THREEFOLD_REPETITION)
    with pytest.raises(ValueError):
        read_pgn(text, rules="blitz")


def test_a_game_read_is_a_game_that_can_go_on():
    pg = read_game("1. e4 e5 *")
    assert isinstance(pg.game, Game)
    pg.game.push_text("Nf3")
    assert pg.game.san_moves() == ["e4", "e5", "Nf3"]


# -- what online servers export ---------------------------------------------------------------

def test_lichess_and_chess_com_exports_are_read_with_their_clocks_and_endings():
    lichess, chess_com = read_pgn(sample("online_exports.pgn"))
    assert lichess.headers["Opening"] == "Italian Game: Two Knights Defense"
    assert lichess.clocks[:3] == [180_000, 180_000, 179_000] and lichess.clocks[8] == 1_000
    assert lichess.comments[9] == "[%eval -0.6] Inaccuracy. c3 was best."
    assert lichess.nags == {9: [6]}
    assert [line.san for line in lichess.variations[9]] == [["c3", "d6", "O-O"]]
    assert lichess.game.outcome == Outcome(Termination.TIME_FORFEIT, BLACK)
    assert chess_com.clocks == [59_900, 59_100, 58_800, 57_000]
    assert chess_com.game.outcome == Outcome(Termination.RESIGNATION, WHITE)
    assert lichess.warnings == chess_com.warnings == []


# -- budgets ----------------------------------------------------------------------------------

def test_a_huge_comment_is_cut_to_its_budget_and_the_game_reads_on():
    """Issue 32.5: a 4 MB comment (a blob pasted in braces) costs no more than the budget; the
    moves after it and the next game are read, and a warning says where the comment was cut."""
    from chess_core.pgn_reader import MAX_COMMENT_CHARS
    blob = "lorem ipsum " * (300_000 // 12)
    lines = "\n".join(["word " * 20] * 20_000)                      # ~2 MB over many lines
    text = (f'[Event "a"]\n\n1. e4 {{{blob}}} e5 2. Nf3 {{{lines}\n}} Nc6 ; {blob}\n3. Bb5 *\n\n'
            '[Event "b"]\n\n1. d4 *\n')
    first, second = read_pgn(text)
    assert san(first) == ["e4", "e5", "Nf3", "Nc6", "Bb5"] and san(second) == ["d4"]
    assert all(len(comment) <= MAX_COMMENT_CHARS for comment in first.comments.values())
    assert first.comments[1].startswith("lorem ipsum") and first.comments[3].startswith("word word")
    assert sum("is cut there" in w for w in first.warnings) == 3
    assert any(w.startswith("line 3:") for w in first.warnings)


# -- a ply cap (issue 32, item 5: a 4 MB game of 538,164 plies) -----------------------------------

def test_a_game_past_the_ply_cap_is_read_up_to_it_and_nothing_after_it():
    """``max_plies``: the main line is read up to the cap, the result is the tag's (the outcome not judged), and the games after it are not read."""
    text = ('[Result "0-1"]\n\n1. e4 e5 2. Nf3 (2. Nc3 Nc6 3. f4) Nc6 3. Bb5 a6 0-1\n\n'
            '[White "Next"]\n\n1. d4 *\n')
    cut = list(read_games(text, max_plies=4))
    assert len(cut) == 1 and cut[0].cut and san(cut[0]) == ["e4", "e5", "Nf3", "Nc6"]
    assert cut[0].result == "0-1" and cut[0].game.outcome is None
    assert "cut after 4 plies" in cut[0].warnings[0]
    assert [v.san for v in cut[0].variations[3]] == [["Nc3", "Nc6", "f4"]]
    whole = list(read_games(text, max_plies=6))
    assert [len(g.moves) for g in whole] == [6, 1] and not any(g.cut for g in whole)
    assert whole[0].game.outcome is not None        # (not cut: judged as before)


def test_a_game_of_comments_past_the_token_cap_is_cut():
    """Tokens of every kind count too (``TOKENS_PER_PLY`` a ply of the cap): 4 MB of ``{x}``
    does not fill a list of a million comments; a variation open at the cut is kept as read."""
    from chess_core.pgn_reader import TOKENS_PER_PLY
    game = read_games("1. e4 " + "{x} " * 10_000 + "e5 *", max_plies=10)
    found = next(game)
    assert found.cut and san(found) == ["e4"] and next(game, None) is None
    assert len(found.comments_as_written[1].split()) == 10 * TOKENS_PER_PLY - 2
    inside = next(read_games("1. e4 (1. d4 d5 " + "$1 " * 10_000 + ") e5 *", max_plies=10))
    assert inside.cut and san(inside) == ["e4"] and [v.san for v in inside.variations[1]] == [["d4", "d5"]]
