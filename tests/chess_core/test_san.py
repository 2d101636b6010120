"""SAN out and in, in English (K Q R B N), French (R D T F C) and German (K D T L S) letters, and UCI move strings."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chess_core import (AmbiguousMoveError, IllegalMoveError, InvalidMoveError, Move, Position,
                        detect_language, parse_move, parse_san, parse_uci, san)

KNIGHTS_TO_D2 = "4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1"
EP_READY = "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2"
PROMOTION = "3r4/4P3/8/8/7k/8/8/4K3 w - - 0 1"
CASTLING = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"


def uci(text: str) -> Move:
    return Move.from_uci(text)


# -- SAN out ---------------------------------------------------------------------------------

@pytest.mark.parametrize("fen, move, english, french, german", [
    (Position().fen(), "g1f3", "Nf3", "Cf3", "Sf3"),
    (Position().fen(), "e2e4", "e4", "e4", "e4"),
    ("4k3/8/8/8/8/8/8/4K3 w - - 0 1", "e1d2", "Kd2", "Rd2", "Kd2"),
    (KNIGHTS_TO_D2, "b1d2", "Nbd2", "Cbd2", "Sbd2"),
    (KNIGHTS_TO_D2, "f3d2", "Nfd2", "Cfd2", "Sfd2"),
    ("4k3/8/8/R7/8/8/8/R3K3 w - - 0 1", "a1a3", "R1a3", "T1a3", "T1a3"),
    ("8/8/1k6/8/4Q2Q/8/8/K6Q w - - 0 1", "h4e1", "Qh4e1", "Dh4e1", "Dh4e1"),
    ("8/8/1k6/8/4Q2Q/8/8/K6Q w - - 0 1", "e4e1", "Qee1", "Dee1", "Dee1"),
    # A pinned knight is no rival: no disambiguation.
    ("4r1k1/8/8/1N6/8/8/4N3/4K3 w - - 0 1", "b5d4", "Nd4", "Cd4", "Sd4"),
    (EP_READY, "e5d6", "exd6", "exd6", "exd6"),
    (PROMOTION, "e7d8q", "exd8=Q+", "exd8=D+", "exd8=D+"),
    (PROMOTION, "e7d8n", "exd8=N", "exd8=C", "exd8=S"),
    (PROMOTION, "e7e8r", "e8=R", "e8=T", "e8=T"),
    (PROMOTION, "e7e8b", "e8=B", "e8=F", "e8=L"),
    (CASTLING, "e1g1", "O-O", "O-O", "O-O"),
    (CASTLING, "e1c1", "O-O-O", "O-O-O", "O-O-O"),
    (CASTLING, "a1a8", "Rxa8+", "Txa8+", "Txa8+"),
    ("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "a1a8", "Ra8#", "Ta8#", "Ta8#"),
    ("6k1/8/8/8/8/8/5B2/4K3 w - - 0 1", "f2c5", "Bc5", "Fc5", "Lc5"),
])
def test_san_in_english_french_and_german(fen, move, english, french, german):
    pos = Position(fen)
    assert san(pos, uci(move)) == english
    assert san(pos, uci(move), "fr") == french
    assert san(pos, uci(move), "de") == german
    assert parse_san(pos, english, "en") == uci(move)
    assert parse_san(pos, french, "fr") == uci(move)
    assert parse_san(pos, german, "de") == uci(move)
    assert parse_san(pos, german) == uci(move)   # auto: the letters decide
    assert pos.fen() == fen, "san and parse_san leave the position as it was"


def test_german_letters_are_read_only_as_german():
    """L and S are German only; K is the king and D, T the queen and rook in German as in French."""
    pos = Position("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1")
    assert parse_san(pos, "Kd2", "de") == uci("e1d2")
    with pytest.raises(InvalidMoveError):
        parse_san(Position(), "Sf3", "en")
    with pytest.raises(InvalidMoveError):
        parse_san(Position(), "Nf3", "de")
    with pytest.raises(InvalidMoveError):
        parse_san(Position(PROMOTION), "e8=K", "de")   # (nor in any language)


def test_san_of_an_illegal_move_raises():
    with pytest.raises(IllegalMoveError):
        san(Position(), uci("e2e5"))


# -- SAN in: what players write --------------------------------------------------------------

@pytest.mark.parametrize("fen, text, move", [
    (PROMOTION, "e8Q", "e7e8q"),
    (PROMOTION, "e8=Q", "e7e8q"),
    (PROMOTION, "e8(Q)", "e7e8q"),
    (PROMOTION, "e8q", "e7e8q"),
    (PROMOTION, "exd8N", "e7d8n"),
    (PROMOTION, "ed8=N", "e7d8n"),
    (PROMOTION, "e8=D", "e7e8q"),  # French letters are read in auto mode too
    (PROMOTION, "e7e8=Q", "e7e8q"),
    (CASTLING, "0-0", "e1g1"),
    (CASTLING, "0-0-0", "e1c1"),
    (CASTLING, "O-O", "e1g1"),
    (CASTLING, "OO", "e1g1"),
    (CASTLING, "o-o-o", "e1c1"),
    (CASTLING, "O-O-O+", "e1c1"),
    (EP_READY, "exd6 e.p.", "e5d6"),
    (EP_READY, "exd6ep", "e5d6"),
    (EP_READY, "exd6", "e5d6"),
    (EP_READY, "ed6", "e5d6"),
    (EP_READY, "e:d6", "e5d6"),
    (Position().fen(), "Ng1f3", "g1f3"),
    (Position().fen(), "Ng1-f3", "g1f3"),
    (Position().fen(), "e2-e4", "e2e4"),
    (Position().fen(), "  Nf3!? ", "g1f3"),
    (Position().fen(), "Cf3", "g1f3"),
    (KNIGHTS_TO_D2, "N1d2", "b1d2"),
    (KNIGHTS_TO_D2, "Nfd2", "f3d2"),
])
def test_forgiving_san_input(fen, text, move):
    assert parse_san(Position(fen), text) == uci(move)


def test_ambiguous_san_with_two_knights_raises_and_names_the_choices():
    with pytest.raises(AmbiguousMoveError) as info:
        parse_san(Position(KNIGHTS_TO_D2), "Nd2")
    assert "Nbd2" in str(info.value) and "Nfd2" in str(info.value)
    with pytest.raises(AmbiguousMoveError):
        parse_san(Position(KNIGHTS_TO_D2), "Cd2", "fr")


def test_a_pawn_move_without_a_file_is_a_push_not_a_capture():
    # Regression: "d5" was read as cxd5 or exd5 (and as ambiguous with both pawns there).
    pos = Position("4k3/8/8/3p4/2P1P3/8/8/4K3 w - - 0 1")
    with pytest.raises(IllegalMoveError):
        parse_san(pos, "d5")
    assert parse_san(pos, "exd5") == uci("e4d5")
    with pytest.raises(IllegalMoveError):
        parse_san(Position(EP_READY), "d6")  # not en passant: that is exd6


@pytest.mark.parametrize("fen, text, error, words", [
    (Position().fen(), "e5", IllegalMoveError, "illegal move 'e5' for white"),
    (Position().fen(), "O-O", IllegalMoveError, "castling 'O-O' is not legal for white"),
    (Position().fen(), "Xe4", InvalidMoveError, "cannot read move"),
    (Position().fen(), "hello", InvalidMoveError, "cannot read move"),
    (Position().fen(), "", InvalidMoveError, "empty move"),
    (Position().fen(), "e9", InvalidMoveError, "cannot read move"),
    (Position().fen(), "--", IllegalMoveError, "null move"),
    (PROMOTION, "e8", InvalidMoveError, "must name its promotion piece"),
    (PROMOTION, "e8=K", InvalidMoveError, "'e8=K'"),
    (PROMOTION, "exd8=P", InvalidMoveError, "'exd8=P'"),
    (Position().fen(), "Nf3=Q", InvalidMoveError, "only a pawn can promote"),
    # Regression: in auto mode these were reported as letters French cannot read.
    (Position().fen(), "Bc4", IllegalMoveError, "illegal move 'Bc4' for white"),
    (Position().fen(), "Ke2", IllegalMoveError, "illegal move 'Ke2' for white"),
    (Position().fen(), "Td1", IllegalMoveError, "illegal move 'Td1' for white"),
])
def test_bad_san_raises_a_clear_error(fen, text, error, words):
    with pytest.raises(error) as info:
        parse_san(Position(fen), text)
    assert words in str(info.value)


def test_move_errors_are_value_errors():
    for error in (AmbiguousMoveError, IllegalMoveError, InvalidMoveError):
        assert issubclass(error, ValueError)


def test_language_choice():
    pos = Position("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1")
    assert parse_san(pos, "Rd1") == uci("a1d1")  # auto: a rook move fits, R is an English rook
    assert parse_san(pos, "Rd1", "fr") == uci("e1d1")  # French: R is the king
    assert parse_san(pos, "Td1", "fr") == uci("a1d1")
    assert parse_san(pos, "Rf2") == uci("e1f2")  # auto: only a king move fits
    with pytest.raises(IllegalMoveError):
        parse_san(pos, "Rf2", "en")
    with pytest.raises(InvalidMoveError):
        parse_san(pos, "Td1", "en")
    with pytest.raises(InvalidMoveError, match="cannot promote to 'R'"):
        parse_san(Position(PROMOTION), "e8=R", "fr")  # in French letters R is the king
    assert parse_san(Position(PROMOTION), "e8=R") == uci("e7e8r")
    with pytest.raises(ValueError, match="unknown notation language"):
        parse_san(pos, "Rd1", "xx")


def test_detect_language():
    assert detect_language(["1.", "e4", "e5", "2.", "Fc4"]) == "fr"
    assert detect_language(["e4", "e5", "Bc4"]) == "en"
    assert detect_language(["e4", "e5", "e8=D"]) == "fr"
    assert detect_language(["e4", "O-O"]) == "en"


# -- UCI -------------------------------------------------------------------------------------

def test_uci_moves():
    pos = Position(PROMOTION)
    assert parse_uci(pos, "e7e8q") == Move(52, 60, 5)
    assert parse_uci(pos, " e7d8n ") == uci("e7d8n")
    assert uci("e7e8q").uci() == "e7e8q" and str(uci("g1f3")) == "g1f3"
    assert repr(uci("e7e8q")) == "Move.from_uci('e7e8q')"
    with pytest.raises(IllegalMoveError):
        parse_uci(pos, "e7e8")  # a promotion must say to what
    with pytest.raises(IllegalMoveError):
        parse_uci(pos, "e1e3")
    for text in ("e7e8k", "e2", "e2e2", "i2i4", "e2e4qq", ""):
        with pytest.raises(InvalidMoveError):
            parse_uci(pos, text)


def test_parse_move_reads_uci_or_san():
    pos = Position(CASTLING)
    assert parse_move(pos, "e1g1") == parse_move(pos, "O-O") == uci("e1g1")
    assert parse_move(pos, "Ta8+", "fr") == uci("a1a8")


# -- fuzzing ---------------------------------------------------------------------------------

FUZZ_FENS = [Position().fen(), KNIGHTS_TO_D2, EP_READY, PROMOTION, CASTLING,
             "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"]
SAN_ALPHABET = "KQRBNDTFCabcdefgh12345678xX=+#O0o-:()!? ep."


def _parse_or_refuse(fen: str, text: str, how) -> None:
    pos = Position(fen)
    try:
        move = how(pos, text)
    except (InvalidMoveError, IllegalMoveError, AmbiguousMoveError) as exc:
        assert str(exc)
    else:
        assert pos.is_legal(move)
    assert pos.fen() == fen


PARSERS = [lambda p, t: parse_san(p, t, "en"), lambda p, t: parse_san(p, t, "fr"), parse_san, parse_move,
           parse_uci]


@settings(max_examples=300, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(FUZZ_FENS), st.text(), st.sampled_from(PARSERS))
def test_any_text_gives_a_move_or_a_move_error(fen, text, how):
    _parse_or_refuse(fen, text, how)


@st.composite
def mutated_sans(draw):
    fen = draw(st.sampled_from(FUZZ_FENS))
    pos = Position(fen)
    move = draw(st.sampled_from(pos.legal_moves()))
    text = list(san(pos, move, draw(st.sampled_from(("en", "fr")))))
    for _ in range(draw(st.integers(0, 3))):
        where = draw(st.integers(0, len(text)))
        char = draw(st.sampled_from(SAN_ALPHABET) | st.characters())
        action = draw(st.sampled_from(("replace", "insert", "delete")))
        if action == "insert" or where == len(text):
            text.insert(where, char)
        elif action == "replace":
            text[where] = char
        else:
            del text[where]
    return fen, "".join(text)


@settings(max_examples=1000, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(mutated_sans(), st.sampled_from(PARSERS))
def test_mutated_san_gives_a_move_or_a_move_error(case, how):
    _parse_or_refuse(*case, how)
