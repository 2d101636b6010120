"""What the board says, word for word: every kind of move, every ending, the clocks and the position, in French, English and German."""
from __future__ import annotations

import random
import re
import string

import pytest

from chess_core import BLACK, WHITE, Move, Outcome, Position, Termination
from chess_core.chess960 import start_position
from firmware.voice import phrases
from firmware.voice.phrases import (clocks_words, describe, duration_words, ending_words, move_said, move_words,
                                    opponent_plays, speakable, square_label)
from firmware.words.spoken import SPOKEN

from .hearing import heard_move, heard_opponent

CASTLE_READY = "r3k2r/pppq1ppp/2npbn2/2b1p3/2B1P3/2NPBN2/PPPQ1PPP/R3K2R w KQkq - 4 8"
EN_PASSANT = "rnbqkbnr/ppp1p1pp/8/2PpPp2/8/8/PP1P1PPP/RNBQKBNR w KQkq d6 0 4"
PROMOTE = "1n2k3/P1P5/8/8/8/8/8/4K3 w - - 0 1"


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


@pytest.mark.parametrize("lang", sorted(SPOKEN))
def test_the_spoken_catalogues_have_the_same_keys_and_placeholders(lang):
    en, other = SPOKEN["en"], SPOKEN[lang]
    assert en.says.keys() == other.says.keys()
    for key in en.says:
        assert _fields(en.says[key]) == _fields(other.says[key]), key
    assert en.plurals.keys() == other.plurals.keys() == set(range(1, 7))
    assert en.coloured.keys() == other.coloured.keys() == {(c, t) for c in (0, 1) for t in range(1, 7)}


@pytest.mark.parametrize("fen, uci, fr, en", [
    (None, "g1f3", "Cavalier f3", "Knight f3"),
    (None, "e2e4", "e4", "e4"),
    ("rnbqkbnr/pppp1ppp/8/4p3/8/5Q2/PPPPPPPP/RNB1KBNR w KQkq - 0 1", "f3f7", "Dame prend f7, échec",
     "Queen takes f7, check"),
    ("rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq g3 0 2", "d8h4", "Dame h4, échec et mat",
     "Queen h4, checkmate"),
    ("4k3/8/8/8/8/8/q7/3QK3 w - - 0 1", "d1d8", "Dame d8, échec", "Queen d8, check"),
    (CASTLE_READY, "e1g1", "Petit roque", "Short castle"),
    (CASTLE_READY, "e1c1", "Grand roque", "Long castle"),
    (EN_PASSANT, "e5d6", "Pion e prend d6 en passant", "Pawn e takes d6 en passant"),
    ("rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3", "e5d6", "Pion prend d6 en passant",
     "Pawn takes d6 en passant"),
    (PROMOTE, "a7a8q", "a8, promotion en dame", "a8, promotion to queen"),
    (PROMOTE, "c7c8n", "c8, promotion en cavalier", "c8, promotion to knight"),
    (PROMOTE, "a7b8r", "Pion a prend b8, promotion en tour, échec", "Pawn a takes b8, promotion to rook, check"),
    (PROMOTE, "c7b8b", "Pion c prend b8, promotion en fou", "Pawn c takes b8, promotion to bishop"),
    ("4k3/8/8/8/8/8/8/R4RK1 w - - 0 1", "a1d1", "Tour a d1", "Rook a d1"),
    ("4k3/8/8/R7/8/8/8/R3K3 w - - 0 1", "a1a3", "Tour 1 a3", "Rook 1 a3"),
    ("1k6/8/8/8/Q6Q/8/8/4K2Q w - - 0 1", "h4e4", "Dame h4 e4", "Queen h4 e4"),
    ("4k3/8/2n1n3/8/3P4/8/8/4K3 b - - 0 1", "c6d4", "Cavalier c prend d4", "Knight c takes d4"),
])
def test_every_kind_of_move_in_words(fen, uci, fr, en):
    position = Position(fen) if fen else Position()
    move = Move.from_uci(uci)
    assert move_said(position, move, "fr") == fr
    assert move_said(position, move, "en") == en
    assert position.fen() == (Position(fen) if fen else Position()).fen()   # the position is left as it was


def test_chess960_castling_is_said_as_castling():
    position = Position("4k3/8/8/8/8/8/8/1R2K1R1 w GB - 0 1", chess960=True)
    assert move_said(position, Move.from_uci("e1g1"), "fr") == "Petit roque"
    assert move_said(position, Move.from_uci("e1b1"), "en") == "Long castle"


def _random_positions(seed: int, games: int, chess960: bool = False):
    """The rare forms first (castling both ways, en passant, promotions), then random games."""
    for fen in (CASTLE_READY, EN_PASSANT, PROMOTE):
        yield Position(fen, chess960=chess960)
    rng = random.Random(seed)
    for _ in range(games):
        position = start_position(rng.randrange(960)) if chess960 else Position()
        for _ in range(160):
            moves = position.legal_moves()
            if not moves:
                break
            yield position
            # prefer captures and promotions: more of the rare forms (en passant, promotions, mates)
            lively = [m for m in moves if position.is_capture(m) or m.promotion] or moves
            position.push(rng.choice(lively if rng.random() < 0.5 else moves))


@pytest.mark.parametrize("chess960", [False, True])
@pytest.mark.parametrize("lang", ["fr", "en", "de"])
def test_every_legal_move_said_names_that_move_and_no_other(lang, chess960):
    """The spoken words of each legal move of thousands of positions read back (by an ear that
    knows only the words) into that move, with the check or mate it gives; no SAN letter is said."""
    kinds = set()
    letters = re.compile(r"\b[KQRBNDTFCLS][a-h]?[1-8]?x?[a-h][1-8]\b")
    for position in _random_positions(7 if chess960 else 3, 8, chess960):
        for move in position.legal_moves():
            text = move_words(position, move, lang)
            assert not letters.search(text), text
            heard, mark = heard_move(position, text, lang)
            assert heard == move, (position.fen(), move.uci(), text)
            position.push(move)
            expected = "mate" if position.is_checkmate() else "check" if position.is_check() else ""
            position.pop()
            assert mark == expected, (position.fen(), text)
            kinds.add("castle" if position.is_castling(move) else "ep" if position.is_en_passant(move)
                      else "promotion" if move.promotion else "capture" if position.is_capture(move) else "move")
            kinds.add(mark)
    assert kinds >= {"castle", "ep", "promotion", "capture", "move", "check", ""}


@pytest.mark.parametrize("termination, winner, fr, en", [
    (Termination.CHECKMATE, WHITE, "échec et mat, les Blancs gagnent", "checkmate, White wins"),
    (Termination.CHECKMATE, BLACK, "échec et mat, les Noirs gagnent", "checkmate, Black wins"),
    (Termination.STALEMATE, None, "pat", "stalemate"),
    (Termination.THREEFOLD_REPETITION, None, "nulle par répétition", "draw by repetition"),
    (Termination.FIVEFOLD_REPETITION, None, "nulle par répétition", "draw by repetition"),
    (Termination.FIFTY_MOVES, None, "nulle par la règle des 50 coups", "draw by the fifty-move rule"),
    (Termination.SEVENTYFIVE_MOVES, None, "nulle par la règle des 75 coups", "draw by the seventy-five-move rule"),
    (Termination.INSUFFICIENT_MATERIAL, None, "nulle, matériel insuffisant", "draw, insufficient material"),
    (Termination.RESIGNATION, WHITE, "les Noirs abandonnent, les Blancs gagnent", "Black resigns, White wins"),
    (Termination.RESIGNATION, BLACK, "les Blancs abandonnent, les Noirs gagnent", "White resigns, Black wins"),
    (Termination.TIME_FORFEIT, BLACK, "les Noirs gagnent au temps", "Black wins on time"),
    (Termination.TIME_VS_INSUFFICIENT, None, "temps écoulé, mais le mat est impossible : nulle",
     "time is up, but mate is impossible: draw"),
    (Termination.AGREEMENT, None, "nulle par accord mutuel", "draw agreed"),
    (Termination.ABANDONED, None, "partie abandonnée", "game abandoned"),
    (Termination.ABANDONED, WHITE, "les Blancs gagnent", "White wins"),
])
def test_every_ending_in_words(termination, winner, fr, en):
    outcome = Outcome(termination, winner)
    assert ending_words(outcome, "fr") == fr
    assert ending_words(outcome, "en") == en


def test_every_termination_has_its_words():
    said = {ending_words(Outcome(t, None), "fr") for t in Termination if t not in (
        Termination.CHECKMATE, Termination.RESIGNATION, Termination.TIME_FORFEIT)}
    assert "nulle par accord mutuel" in said and len(said) == len(Termination) - 3 - 1   # (3- and 5-fold alike)


@pytest.mark.parametrize("fen, uci, termination, winner, fr, en", [
    ("r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 4 4", "f3f7", Termination.CHECKMATE, WHITE,
     "Dame prend f7, échec et mat, les Blancs gagnent", "Queen takes f7, checkmate, White wins"),
    ("7k/8/6K1/8/8/8/8/5Q2 w - - 0 1", "f1f7", Termination.STALEMATE, None, "Dame f7, pat", "Queen f7, stalemate"),
    (None, "g1f3", Termination.THREEFOLD_REPETITION, None, "Cavalier f3, nulle par répétition",
     "Knight f3, draw by repetition"),
])
def test_a_move_that_ends_the_game_says_how(fen, uci, termination, winner, fr, en):
    position = Position(fen) if fen else Position()
    outcome = Outcome(termination, winner)
    assert move_said(position, Move.from_uci(uci), "fr", outcome) == fr
    assert move_said(position, Move.from_uci(uci), "en", outcome) == en


@pytest.mark.parametrize("lang, text", [
    ("fr", "Stockfish joue fou c4, à vous de le jouer sur l'échiquier"),
    ("en", "Stockfish plays bishop c4, make it on the board")])
def test_the_opponents_move_to_carry_out(lang, text):
    position = Position("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2")
    said = opponent_plays(position, Move.from_uci("f1c4"), "Stockfish", lang)
    assert said == text
    who, move = heard_opponent(said, lang)
    assert who == "Stockfish" and heard_move(position, move, lang)[0] == Move.from_uci("f1c4")


@pytest.mark.parametrize("ms, fr, en", [
    (252_000, "4 minutes 12", "4 minutes 12"), (240_000, "4 minutes", "4 minutes"),
    (61_000, "1 minute 1", "1 minute 1"), (60_000, "1 minute", "1 minute"), (30_000, "30 secondes", "30 seconds"),
    (1_999, "1 seconde", "1 second"), (400, "0 secondes", "0 seconds"), (-5, "0 secondes", "0 seconds"),
    (3_600_000, "1 heure", "1 hour"), (3_723_000, "1 heure 2 minutes", "1 hour 2 minutes"),
    (7_260_000, "2 heures 1 minute", "2 hours 1 minute")])
def test_a_clock_in_words(ms, fr, en):
    assert duration_words(ms, "fr") == fr
    assert duration_words(ms, "en") == en


def test_both_clocks_and_none():
    assert clocks_words((252_000, 30_000), "fr") == "Blancs : 4 minutes 12, Noirs : 30 secondes"
    assert clocks_words((252_000, 30_000), "en") == "White: 4 minutes 12, Black: 30 seconds"
    assert clocks_words((None, None), "fr") == "Pas de pendule"


def test_the_position_described_side_by_side_piece_by_piece():
    assert describe(Position(), "fr") == (
        "Blancs : roi e1, dame d1, tours a1 et h1, fous c1 et f1, cavaliers b1 et g1, pions a2, b2, c2, d2, e2, f2, "
        "g2 et h2. Noirs : roi e8, dame d8, tours a8 et h8, fous c8 et f8, cavaliers b8 et g8, pions a7, b7, c7, d7, "
        "e7, f7, g7 et h7. Trait aux Blancs")
    position = Position("6k1/5ppp/8/8/8/8/1q6/R5K1 b - - 0 1")
    assert describe(position, "en") == ("White: king g1, rook a1. Black: king g8, queen b2, pawns f7, g7 and h7. "
                                        "Black to move")
    assert describe(Position("6k1/8/8/8/8/8/8/R5K1 b - - 0 1"), "fr").endswith("Trait aux Noirs")
    assert describe(Position("R5k1/8/8/8/8/8/8/6K1 b - - 0 1"), "fr").endswith("Trait aux Noirs (échec)")


@pytest.mark.parametrize("square, fr, en", [(12, "e2, pion blanc", "e2, white pawn"),
                                            (56, "a8, tour noire", "a8, black rook"),
                                            (3, "d1, dame blanche", "d1, white queen"),
                                            (28, "e4, vide", "e4, empty")])
def test_a_square_named_for_a_screen_reader(square, fr, en):
    assert square_label(Position(), square, "fr") == fr
    assert square_label(Position(), square, "en") == en


def test_the_synthesizer_reads_a_lone_file_a_as_the_letter_in_english():
    assert speakable("Rook a d1", "en") == "Rook A d1"
    assert speakable("Pawn a takes b8, promotion to rook", "en") == "Pawn A takes b8, promotion to rook"
    assert speakable("Put a piece on a4", "en") == "Put a piece on a4"
    assert speakable("Tour a d1", "fr") == "Tour a d1"


def test_a_sentence_begins_with_a_capital_unless_with_a_square():
    assert phrases.sentence("petit roque") == "Petit roque"
    assert phrases.sentence("e8, promotion en dame") == "e8, promotion en dame"
    assert phrases.sentence("") == ""


# -- German: the FIDE Laws' German terms, pieces and squares as words --------------------------------

@pytest.mark.parametrize("fen, uci, de", [
    (None, "g1f3", "Springer f3"),
    (None, "e2e4", "e4"),
    ("rnbqkbnr/pppp1ppp/8/4p3/8/5Q2/PPPPPPPP/RNB1KBNR w KQkq - 0 1", "f3f7", "Dame schlägt f7, Schach"),
    ("rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq g3 0 2", "d8h4", "Dame h4, Schachmatt"),
    (CASTLE_READY, "e1g1", "Kurze Rochade"),
    (CASTLE_READY, "e1c1", "Lange Rochade"),
    (EN_PASSANT, "e5d6", "Bauer e schlägt d6 en passant"),
    (PROMOTE, "a7a8q", "a8, Umwandlung in Dame"),
    (PROMOTE, "a7b8r", "Bauer a schlägt b8, Umwandlung in Turm, Schach"),
    ("4k3/8/8/8/8/8/8/R4RK1 w - - 0 1", "a1d1", "Turm a d1"),
    ("4k3/8/2n1n3/8/3P4/8/8/4K3 b - - 0 1", "c6d4", "Springer c schlägt d4"),
    ("6k1/8/8/8/8/8/5B2/4K3 w - - 0 1", "f2c5", "Läufer c5"),
])
def test_every_kind_of_move_in_german_words(fen, uci, de):
    position = Position(fen) if fen else Position()
    assert move_said(position, Move.from_uci(uci), "de") == de


@pytest.mark.parametrize("termination, winner, de", [
    (Termination.CHECKMATE, WHITE, "Schachmatt, Weiß gewinnt"),
    (Termination.STALEMATE, None, "Patt, Remis"),
    (Termination.THREEFOLD_REPETITION, None, "Remis durch Stellungswiederholung"),
    (Termination.FIFTY_MOVES, None, "Remis nach der 50-Züge-Regel"),
    (Termination.INSUFFICIENT_MATERIAL, None, "Remis, ungenügendes Material"),
    (Termination.RESIGNATION, WHITE, "Schwarz gibt auf, Weiß gewinnt"),
    (Termination.TIME_FORFEIT, BLACK, "Schwarz gewinnt durch Zeitüberschreitung"),
    (Termination.AGREEMENT, None, "Remis vereinbart"),
])
def test_every_ending_in_german_words(termination, winner, de):
    assert ending_words(Outcome(termination, winner), "de") == de


def test_a_game_an_opponent_and_the_clocks_in_german():
    mate = Position("r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 4 4")
    assert move_said(mate, Move.from_uci("f3f7"), "de", Outcome(Termination.CHECKMATE, WHITE)) == \
        "Dame schlägt f7, Schachmatt, Weiß gewinnt"
    position = Position("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2")
    said = opponent_plays(position, Move.from_uci("f1c4"), "Stockfish", "de")
    assert said == "Stockfish spielt Läufer c4, führen Sie den Zug auf dem Brett aus"
    who, move = heard_opponent(said, "de")
    assert who == "Stockfish" and heard_move(position, move, "de")[0] == Move.from_uci("f1c4")
    assert clocks_words((252_000, 30_000), "de") == "Weiß: 4 Minuten 12, Schwarz: 30 Sekunden"
    assert duration_words(3_723_000, "de") == "1 Stunde 2 Minuten" and duration_words(1_000, "de") == "1 Sekunde"
    assert clocks_words((None, None), "de") == "Keine Uhr"


def test_the_position_and_its_squares_in_german():
    position = Position("6k1/5ppp/8/8/8/8/1q6/R5K1 b - - 0 1")
    assert describe(position, "de") == ("Weiß: König g1, Turm a1. Schwarz: König g8, Dame b2, Bauern f7, g7 und h7. "
                                        "Schwarz am Zug")
    assert square_label(Position(), 3, "de") == "d1, weiße Dame"
    assert square_label(Position(), 56, "de") == "a8, schwarzer Turm"
    assert square_label(Position(), 28, "de") == "e4, leer"


def test_the_synthesizer_is_given_remis_and_en_passant_as_a_german_says_them():
    """espeak-ng's German reads "Remis" as spelt ("Reemiss") and "en passant" as German: they are
    given as its phonemes ([rəˈmiː], the French [ɑ̃ paˈsɑ̃]); nothing else changes."""
    assert speakable("Remis durch Patt", "de") == "[[r@m'i:]] durch Patt"
    assert speakable("Schwarz hat Ihr Remisangebot abgelehnt", "de") == "Schwarz hat Ihr [[r@m'i:]]angebot abgelehnt"
    assert speakable("Bauer e schlägt d6 en passant", "de") == "Bauer e schlägt d6 [[A~ pas'A~]]"
    assert speakable("Turm a d1", "de") == "Turm a d1"
