"""The players' words in every language (English, French, German): the catalogues alike, SAN in the chosen letters, what to do next, LED colours told apart."""
from __future__ import annotations

import ast
import inspect
import re
import string
from pathlib import Path

import pytest

from chess_core import BLACK, WHITE, Move, Outcome, Position, Termination
from chess_core.chess960 import start_position
from firmware import words
from firmware.referee.feedback import LedStyle
from firmware.referee.round_rules import draw_offer_refused
from chess_core.notation import LETTERS
from firmware.words import catalogue as catalogue_module
from firmware.words import en, languages, message, texts
from firmware.words.languages import module_of
from firmware.words.spoken import SPOKEN

OTHERS = [lang for lang in words.LANGS if lang != "en"]   # each compared with the English

CASTLE_READY = "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"
EN_PASSANT = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"


def sq(name: str) -> int:
    return "abcdefgh".index(name[0]) + 8 * (int(name[1]) - 1)


def moved(position: Position, *changes: str) -> int:
    """The occupancy after lifting "-e1" / setting down "+g1"."""
    occ = position.occupied
    for change in changes:
        occ = occ & ~(1 << sq(change[1:])) if change[0] == "-" else occ | 1 << sq(change[1:])
    return occ


@pytest.mark.parametrize("lang, text", [("en", "Now move the rook h1 to f1"),
                                        ("fr", "Déplacez maintenant la tour de h1 en f1 (roque)")])
def test_castling_half_done_says_to_move_the_rook(lang, text):
    pos = Position(CASTLE_READY)
    assert words.board_hint(pos, moved(pos, "-e1", "+g1")).text(lang) == text


@pytest.mark.parametrize("lang, text", [("en", "Remove the pawn on f5 (en passant)"),
                                        ("fr", "Retirez le pion de f5 (prise en passant)")])
def test_en_passant_half_done_says_to_remove_the_victim(lang, text):
    pos = Position(EN_PASSANT)
    assert words.board_hint(pos, moved(pos, "-e5", "+f6")).text(lang) == text


@pytest.mark.parametrize("lang, text", [("en", "Put the knight back on b8"), ("fr", "Remettez le cavalier en b8")])
def test_a_piece_missing_is_named_with_its_square(lang, text):
    pos = Position("rnbqkbnr/pppppppp/8/8/8/1P6/P1PPPPPP/RNBQKBNR b KQkq - 0 1")
    assert words.board_hint(pos, moved(pos, "-b8")).text(lang) == text


@pytest.mark.parametrize("lang, text", [
    ("en", "Black to move: Stockfish plays Nf6, make it on the board"),
    ("fr", "Trait aux Noirs : Stockfish joue Cf6, jouez-le sur l'échiquier")])
def test_the_opponents_move_in_san_in_the_chosen_letters(lang, text):
    pos = Position("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
    assert words.opponent_plays(pos, Move.from_uci("g8f6"), "Stockfish").text(lang) == text


def test_the_rule_texts_terms_in_french():
    assert words.side_to_move(WHITE, check=True).text("fr") == "Trait aux Blancs (échec)"
    assert words.outcome_text(Outcome(Termination.CHECKMATE, BLACK)).text("fr") == "Les Noirs gagnent par mat"
    assert words.outcome_text(Outcome(Termination.STALEMATE)).text("fr") == "Nulle par pat"
    assert words.outcome_text(Outcome(Termination.RESIGNATION, WHITE)).text("fr") == "Les Blancs gagnent par abandon"
    assert words.outcome_text(Outcome(Termination.TIME_FORFEIT, WHITE)).text("fr") == "Les Blancs gagnent au temps"
    assert words.takeback_text(Position(), Move.from_uci("g1f3")).text("fr") == "Reprenez Cf3 : remettez le cavalier en g1"
    assert words.takeback_text(Position(), Move.from_uci("g1f3")).text("en") == "Take back Nf3: put the knight back on g1"


@pytest.mark.parametrize("lang", OTHERS)
def test_every_page_word_and_led_role_exists_in_every_language(lang):
    assert set(words.PAGE["en"]) == set(words.PAGE[lang])
    assert set(words.LED_ROLES["en"]) == set(words.LED_ROLES[lang])
    assert {role for group in words.LED_GROUPS for role in group} == set(words.LED_ROLES["en"])


SECTIONS = ("page", "leds", "prompts", "refusals", "pieces", "the_pieces", "terminations", "void_statuses")


@pytest.mark.parametrize("lang", OTHERS)
@pytest.mark.parametrize("section", SECTIONS)
def test_every_key_of_the_catalogues_exists_in_every_language(section, lang):
    english, other = getattr(en.CATALOGUE, section), getattr(words.CATALOGUES[lang], section)
    assert list(english) == list(other)   # the same keys, in the same order (the legend's, the page's)
    assert all(isinstance(text, str) and text for text in (*english.values(), *other.values()))


def test_the_catalogues_name_every_piece_side_and_ending():
    for words_of in words.CATALOGUES.values():
        assert set(words_of.pieces) == set(words_of.the_pieces) == set(range(1, 7))
        assert set(words_of.terminations) == set(Termination)
        assert len(words_of.sides) == len(words_of.sides_played) == 2


def _placeholders(text: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(text) if field is not None}


@pytest.mark.parametrize("lang", OTHERS)
@pytest.mark.parametrize("section", ["page", "prompts", "refusals", "leds"])
def test_the_texts_have_the_same_placeholders_in_every_language(section, lang):
    english, other = getattr(en.CATALOGUE, section), getattr(words.CATALOGUES[lang], section)
    for key, text in english.items():
        assert _placeholders(text) == _placeholders(other[key]), (section, key)


def test_every_prompt_is_filled_in_somewhere():
    """A template no function names is a text no player reads (a key named but missing fails the tests above)."""
    package = Path(texts.__file__).resolve().parents[1]   # firmware/: the words' functions and their callers
    source = "".join(path.read_text(encoding="utf-8") for path in package.rglob("*.py") if path.parent.name != "words"
                     ) + inspect.getsource(texts) + inspect.getsource(message)
    # A piece of a colour ("man_a_wn": "a white knight") is named by texts.setup_step from its FEN letter.
    men = {f"man_{form}_{c}{k}" for form in ("bare", "a", "the") for c in "wb" for k in "pnbrqk"}
    assert 'f"man_' in inspect.getsource(texts.setup_step) and men <= set(en.CATALOGUE.prompts)
    assert [key for key in en.CATALOGUE.prompts
            if f'"{key}"' not in source and f"'{key}'" not in source and key not in men] == []


# the refusals a player reads (firmware.words.Refusal): a command's, the simulator's hand's, a request's that
# cannot be used (a 400), and those the page's server makes itself (the guard's 403, 415, 421 and 429)
REFUSED = ("SessionError", "CommandRefused", "HandError", "BadRequest", "ServerRefusal")


def _refusals_raised() -> list[tuple[str, int, ast.expr]]:
    """(file, line, first argument) of every refusal made in firmware/."""
    package = Path(texts.__file__).resolve().parents[1]
    found = []
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in REFUSED:
                assert node.args, f"{path.name}:{node.lineno}: a refusal names its words"
                found.append((path.name, node.lineno, node.args[0]))
    return found


def test_every_refusal_of_the_server_has_its_words_in_every_language():
    """Issue 26.10: the session's and the page server's errors (a 409's, a 400's, the pairing's 403
    and 429, a misdirected request's 421: "error" and "error_fr") are catalogue keys, never a text of
    their own, so that each one has its French; a key passed on (``exc.key``, a parameter) is a key
    written somewhere else. The guard and the server answer no text of their own (``error_answer``
    is for the HTTP layer's errors), and no field of a request body says what is wrong in a plain
    ValueError."""
    refusals = _refusals_raised()
    assert len(refusals) > 80
    for name, line, first in refusals:
        assert not isinstance(first, (ast.JoinedStr, ast.BinOp)), f"{name}:{line}: a text, not a key"
        if isinstance(first, ast.Constant):
            assert all(first.value in c.refusals for c in words.CATALOGUES.values()), \
                f"{name}:{line}: {first.value!r} is no refusal of the catalogues"
    package = Path(texts.__file__).resolve().parents[1]
    source = "".join(path.read_text(encoding="utf-8") for path in package.rglob("*.py") if path.parent.name != "words")
    assert [key for key in en.CATALOGUE.refusals if f'"{key}"' not in source] == []   # (none no one says)
    web = package / "web"
    for path in (web / "guard.py", web / "server.py", web / "validate.py", web / "library_pages.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and ast.unparse(node.func) in ("error_answer", "ValueError"):
                status = ast.unparse(node.args[0]) if node.args else ""
                assert path.name == "library_pages.py" and status in ("404", "409"), \
                    f"{path.name}:{node.lineno}: {ast.unparse(node)[:70]} has no French"


def test_a_refusal_reads_in_each_language():
    from firmware.session import SessionError
    refused = SessionError("takeover_already", side=message.SidePlayed(BLACK))
    assert str(refused) == "the computer already plays Black"
    assert refused.text("fr") == "l'ordinateur joue déjà les Noirs"
    assert words.Refusal("token_not_kept", path="t", reason="abc def").without("abc").text("en") == \
        "cannot keep the Lichess token in t: <token> def"
    with pytest.raises(KeyError):
        SessionError("no such refusal")


def test_english_outcomes_read_as_chess_cores():
    """chess_core's Outcome.describe() (the PGN side's words) and the catalogue's say the same."""
    for termination in Termination:
        for winner in (None, WHITE, BLACK):
            outcome = Outcome(termination, winner)
            assert words.outcome_text(outcome).text("en") == outcome.describe()


def test_a_language_it_does_not_know_reads_as_english():
    assert words.side_to_move(BLACK).text("xx") == "Black to move"
    assert words.void_text("aborted").text("") == "The game was aborted at the other end: it does not count"
    assert words.LANGS == ("en", "de", "fr")   # the catalogues found: English first (the fallback), then by code


@pytest.mark.parametrize("lang, text", [
    ("en", "Draw offers are allowed from move 20 on (this is move 12): play on."),
    ("fr", "La nulle se propose à partir du coup 20 (c’est le coup 12) : jouez.")])
def test_a_draw_offer_before_the_rounds_move_says_why_in_each_language(lang, text):
    assert draw_offer_refused(12, 20).text(lang) == text
    assert draw_offer_refused(20, 20) is None and draw_offer_refused(3, 1) is None


@pytest.mark.parametrize("status, en_text, fr_text", [
    ("aborted", "The game was aborted at the other end: it does not count",
     "La partie a été annulée à l'autre bout : elle ne compte pas"),
    ("noStart", "The game was noStart at the other end: it does not count",
     "La partie a été noStart à l'autre bout : elle ne compte pas")])
def test_a_game_voided_at_the_other_end(status, en_text, fr_text):
    assert words.void_text(status).text("en") == en_text and words.void_text(status).text("fr") == fr_text


def test_an_illegal_board_says_whose_turn_and_what_to_do():
    start = Position()
    knight_gone = start.occupied & ~(1 << sq("g1"))
    assert words.illegal_text(start, knight_gone).text("en") == "Not a legal move (White to move): put the knight back on g1"
    assert words.illegal_text(start, knight_gone).text("fr") == "Coup illégal (trait aux Blancs) : remettez le cavalier en g1"
    assert words.illegal_text(start, start.occupied).text("fr") == "Coup illégal (trait aux Blancs) : remettez les pièces comme indiqué"


def test_a_chess960_set_up_gives_the_first_rank_in_the_chosen_letters():
    position = start_position(0)   # BBQNNRKR
    assert words.setup_text(position, position.occupied, 0, number=0).text("en") == \
        "Set up Chess960 position 0 to start: first rank BBQNNRKR, Black's mirrors it"
    assert words.setup_text(position, position.occupied, 0, number=0).text("fr") == \
        "Placez la position Chess960 n° 0 pour commencer : première rangée FFDCCTRT, celle des Noirs en miroir"
    lit = words.setup_text(position, 0, position.occupied & 0xFF, number=0).text("fr")
    assert lit.endswith(" ; posez les pièces sur la rangée 1 comme le dit la première rangée")


def test_the_referee_keeps_no_words():
    """The pure referee picks no language: no "fr" of its own, its texts come from firmware.words."""
    referee = Path(catalogue_module.__file__).parents[1] / "referee"
    assert not (referee / "words.py").exists()
    for path in referee.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assert not [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Constant) and node.value == "fr"], \
            path.name


def _distance(a: int, b: int) -> int:
    return max(abs((a >> s & 0xFF) - (b >> s & 0xFF)) for s in (16, 8, 0))


def test_no_two_roles_shown_together_share_a_colour():
    """The roles of [leds] colours (the others' colours, and the roles of layers shown together:
    tests/firmware/test_leds_compose.py)."""
    style = LedStyle()
    for group in words.LED_GROUPS:
        group = tuple(role for role in group if hasattr(style, role))
        for i, first in enumerate(group):
            for second in group[i + 1:]:
                assert _distance(getattr(style, first), getattr(style, second)) >= 0x60, (first, second)


@pytest.mark.parametrize("squares, en, fr", [
    ((1 << 64) - 1, "every square", "toutes les cases"),
    (0xFFFF00000000FFFF, "ranks 1, 2, 7 and 8", "les rangées 1, 2, 7 et 8"),
    (0x0101010101010101, "the a-file", "la colonne a"),
    (0x8181818181818181, "the a and h files", "les colonnes a et h"),
    (0xFF | 1 << 63, "rank 1 and h8", "la rangée 1 et h8"),
    (1 | 1 << 2 | 1 << 5, "a1, c1 and f1", "a1, c1 et f1"),
    (1 << 28, "e4", "e4"),
    (sum(1 << s for s in range(0, 24, 2)), "a1, c1, e1, g1, a2, c2, e2, g2 and 4 more",
     "a1, c1, e1, g1, a2, c2, e2, g2 et 4 autres"),
])
def test_squares_in_a_players_words(squares, en, fr):
    assert words.render(words.squares_text(squares), "en") == en and words.render(words.squares_text(squares), "fr") == fr


def test_a_set_up_says_nothing_more_when_nothing_is_lit():
    start = Position()
    assert words.setup_text(start, 0, 0).text("en") == "Set up the pieces to start"
    assert words.setup_text(start, 0, 0).text("fr") == "Placez les pièces pour commencer"
    assert words.setup_text(start, 0, start.occupied).text("en") == \
        "Set up the pieces to start; put the pieces on ranks 1, 2, 7 and 8"


def test_a_refused_move_in_san_of_the_chosen_letters():
    knight = Move.from_uci("g1f3")
    assert words.refused_text("Lichess", knight, "no", Position()).text("en") == \
        "Lichess refused Nf3 (no): put the pieces back as shown"
    assert words.refused_text("Lichess", knight, "no", Position()).text("fr") == \
        "Lichess a refusé Cf3 (no) : remettez les pièces comme indiqué"
    assert words.refused_text("", knight, "no").text("fr") == \
        "L'adversaire en ligne a refusé g1f3 (no) : remettez les pièces comme indiqué"


@pytest.mark.parametrize("kind, name, sides, en, fr", [
    ("engine", "Stockfish 15.1", [BLACK], "Stockfish 15.1 plays Black.", "Stockfish 15.1 joue les Noirs."),
    ("engine", "Stockfish 15.1", [WHITE, BLACK], "Stockfish 15.1 plays White and Black.",
     "Stockfish 15.1 joue les Blancs et les Noirs."),
    ("engine", None, [], "Stockfish plays no side yet.", "Stockfish ne joue encore aucun camp."),
    ("lichess", "Mary", [WHITE], "Online on Lichess: Mary plays White.", "En ligne sur Lichess : Mary joue les Blancs."),
    ("lichess", None, [], "Online on Lichess.", "En ligne sur Lichess."),
])
def test_who_plays_off_the_board_in_both_languages(kind, name, sides, en, fr):
    assert words.opponent_line(kind, name, sides).text("en") == en and words.opponent_line(kind, name, sides).text("fr") == fr


@pytest.mark.parametrize("module", [module_of(lang, prefix) for prefix in ("", "spoken_") for lang in words.LANGS]
                         + [catalogue_module], ids=lambda module: module.__name__.rpartition(".")[2])
def test_no_key_is_written_twice(module):
    """A key given twice in a dict literal silently keeps the last one: the Lichess fieldset's
    legend read "Account {account}" / "Compte {account}", the words of the signed-in line."""
    tree = ast.parse(inspect.getsource(module))
    dicts = [node for node in ast.walk(tree) if isinstance(node, ast.Dict)]
    assert dicts or module is catalogue_module
    for node in dicts:
        keys = [ast.unparse(k) for k in node.keys if k is not None]
        assert not {k for k in keys if keys.count(k) > 1}, f"{module.__name__} line {node.lineno}"


def test_the_words_of_the_pages_fixed_texts_have_no_placeholder():
    """The elements of index.html marked data-words are relabelled as they are: a {placeholder}
    in their words would be shown to the player as it is."""
    html = (Path(words.__file__).parents[1] / "web" / "static" / "index.html").read_text(encoding="utf-8")
    keys = set(re.findall(r'data-words="(\w+)"', html))
    assert "lichess_account" in keys
    for lang in words.LANGS:
        for key in keys:
            assert "{" not in words.PAGE[lang][key], (lang, key, words.PAGE[lang][key])
    assert words.PAGE["en"]["lichess_account"] == "Lichess account"
    assert words.PAGE["fr"]["lichess_account"] == "Compte Lichess"


# -- German: the FIDE Laws' German terms, SAN in K D T L S, the pieces as the templates use them ---

GERMAN_OUTCOMES = [
    (Termination.CHECKMATE, BLACK, "Schwarz gewinnt durch Schachmatt"),
    (Termination.STALEMATE, None, "Remis durch Patt"),
    (Termination.THREEFOLD_REPETITION, None, "Remis durch dreifache Stellungswiederholung"),
    (Termination.FIFTY_MOVES, None, "Remis durch die 50-Züge-Regel"),
    (Termination.INSUFFICIENT_MATERIAL, None, "Remis durch ungenügendes Material"),
    (Termination.TIME_FORFEIT, WHITE, "Weiß gewinnt durch Zeitüberschreitung"),
    (Termination.RESIGNATION, WHITE, "Weiß gewinnt durch Aufgabe"),
    (Termination.AGREEMENT, None, "Remis durch Vereinbarung"),
]


@pytest.mark.parametrize("termination, winner, text", GERMAN_OUTCOMES)
def test_how_a_game_ended_in_german(termination, winner, text):
    assert words.outcome_text(Outcome(termination, winner)).text("de") == text


def test_the_side_to_move_in_german():
    assert words.side_to_move(WHITE).text("de") == "Weiß am Zug"
    assert words.side_to_move(BLACK, check=True).text("de") == "Schwarz am Zug (Schach)"
    assert words.player_name("White", WHITE, "de") == "Weiß" and words.player_name("Mary", BLACK, "de") == "Mary"


def test_put_a_piece_back_or_take_it_off_in_german():
    """The pieces with their article in the accusative (den Springer, den Bauern, die Dame): every
    template that names one makes it the object; a step after a colon begins with its verb."""
    start = Position()
    assert words.put_back(2, sq("g1")).text("de") == "Stellen Sie den Springer auf g1 zurück"
    assert words.put_back(5, sq("d1")).text("de") == "Stellen Sie die Dame auf d1 zurück"
    assert words.remove(1, sq("f5")).text("de") == "Nehmen Sie den Bauern auf f5 vom Brett"
    assert words.illegal_text(start, start.occupied & ~(1 << sq("g1"))).text("de") == \
        "Regelwidriger Zug (Weiß am Zug): stellen Sie den Springer auf g1 zurück"
    assert words.illegal_text(start, moved(start, "-g1", "+f3")).text("de") == \
        "Regelwidriger Zug (Weiß am Zug): stellen Sie den Springer von f3 zurück auf g1"
    assert words.takeback_text(start, Move.from_uci("g1f3")).text("de") == \
        "Nehmen Sie Sf3 zurück: stellen Sie den Springer auf g1 zurück"
    assert words.board_hint(Position(EN_PASSANT), moved(Position(EN_PASSANT), "-e5", "+f6")).text("de") == \
        "Nehmen Sie den Bauern auf f5 vom Brett (en passant)"
    pos = Position(CASTLE_READY)
    assert words.board_hint(pos, moved(pos, "-e1", "+g1")).text("de") == \
        "Ziehen Sie jetzt den Turm von h1 nach f1 (Rochade)"


def test_san_in_german_letters_in_the_players_texts():
    pos = Position("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
    assert words.opponent_plays(pos, Move.from_uci("g8f6"), "Stockfish").text("de") == \
        "Schwarz am Zug: Stockfish spielt Sf6, führen Sie den Zug auf dem Brett aus"
    assert words.refused_text("Lichess", Move.from_uci("g1f3"), "no", Position()).text("de") == \
        "Lichess hat Sf3 abgelehnt (no): stellen Sie die Figuren wie angezeigt zurück"
    promotion = Position("3r4/4P3/8/8/7k/8/8/4K3 w - - 0 1")
    assert words.takeback_text(promotion, Move.from_uci("e7e8q")).text("de").startswith("Nehmen Sie e8=D zurück: ")
    castle = Position(CASTLE_READY)
    assert words.takeback_text(castle, Move.from_uci("e1g1")).text("de").startswith("Nehmen Sie O-O zurück: ")
    position = start_position(0)   # BBQNNRKR: Läufer Läufer Dame Springer Springer Turm König Turm
    assert words.setup_text(position, position.occupied, 0, number=0).text("de") == \
        "Stellen Sie die Chess960-Stellung Nr. 0 auf, um zu beginnen: erste Reihe LLDSSTKT, die von Schwarz " \
        "spiegelbildlich"


def test_setting_up_and_the_squares_in_german():
    start = Position()
    assert words.setup_text(start, 0, 0).text("de") == "Stellen Sie die Grundstellung auf, um zu beginnen"
    assert words.setup_text(start, 0, start.occupied).text("de") == \
        "Stellen Sie die Grundstellung auf, um zu beginnen; stellen Sie die Figuren auf die Reihen 1, 2, 7 und 8"
    assert words.render(words.squares_text(0x8181818181818181), "de") == "die Linien a und h"
    assert words.render(words.squares_text(sum(1 << s for s in range(0, 24, 2))), "de") == \
        "a1, c1, e1, g1, a2, c2, e2, g2 und 4 weitere"


@pytest.mark.parametrize("kind, name, sides, text", [
    ("engine", "Stockfish 15.1", [BLACK], "Stockfish 15.1 spielt Schwarz."),
    ("engine", "Stockfish 15.1", [WHITE, BLACK], "Stockfish 15.1 spielt Weiß und Schwarz."),
    ("lichess", "Mary", [WHITE], "Online auf Lichess: Mary spielt Weiß."),
])
def test_who_plays_off_the_board_in_german(kind, name, sides, text):
    assert words.opponent_line(kind, name, sides).text("de") == text


def test_the_rules_words_in_german_as_the_fide_laws_say_them():
    page = words.PAGE["de"]
    assert page["touch_move"].startswith("Berührt – geführt")
    assert page["claim_threefold_repetition"] == "dreifache Stellungswiederholung"
    assert page["claim_fifty_move_rule"] == "50-Züge-Regel"
    assert page["draw_offered_white"] == "Weiß bietet Remis an."
    assert words.Refusal("takeover_already", side=message.SidePlayed(BLACK)
                         ).text("de") == "der Computer spielt bereits Schwarz"
    assert words.draw_offers_from(20, 12).text("de") == \
        "Remisangebote sind ab Zug 20 erlaubt (dies ist Zug 12): spielen Sie weiter."


# -- the languages: found in firmware/words, each a catalogue and a voice ---------------------------

def test_each_language_is_a_catalogue_a_voice_and_its_san_letters():
    assert words.LANGS[0] == words.FALLBACK == "en" and set(words.LANGS) == set(words.CATALOGUES) == set(SPOKEN)
    for lang in words.LANGS:
        assert module_of(lang).CATALOGUE is words.CATALOGUES[lang]
        assert SPOKEN[lang].espeak   # the voice names its espeak-ng voice
        assert set(LETTERS[lang]) == set(range(2, 7))   # chess_core's letters for its SAN


def test_a_fourth_language_is_found_by_its_files(tmp_path):
    """A catalogue named by its code is a language: nothing else names it."""
    for name in ("__init__", "catalogue", "texts", "spoken", "spoken_en", "spoken_it", "en", "fr", "it"):
        (tmp_path / f"{name}.py").write_text('"""A module."""\n')
    assert languages.found(tmp_path) == ("en", "fr", "it")
    (tmp_path / "en.py").unlink()
    with pytest.raises(ImportError, match="no en.py"):
        languages.found(tmp_path)


def test_a_refusal_without_its_secret_hides_it_at_any_depth():
    """A token quoted inside a nested message (a field's problem, an English detail) is hidden too."""
    inner = message.Message("bad_field", (("field", "token"), ("problem", message.English("tok123 is not a token"))),
                            "refusals")
    refused = words.Refusal("bad_field", field="body", problem=inner).without("tok123")
    for lang in words.LANGS:
        assert "tok123" not in refused.text(lang) and "tok123" not in str(message.to_json(refused.message))
    assert "<token> is not a token" in str(refused)
