"""Legal moves, make/unmake, check, mate and stalemate; castling, en passant and promotion rules."""
from __future__ import annotations

import random

import pytest

from chess_core import BISHOP, KNIGHT, QUEEN, ROOK, IllegalMoveError, Move, Position


def ucis(pos: Position) -> set[str]:
    return {m.uci() for m in pos.legal_moves()}


def uci(text: str) -> Move:
    return Move.from_uci(text)


# -- castling --------------------------------------------------------------------------------

CASTLING_CASES = {
    # name: (fen, castling moves that must be legal, castling moves that must not)
    "all free": ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", {"e1g1", "e1c1"}, set()),
    "black, all free": ("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", {"e8g8", "e8c8"}, set()),
    "no rights": ("r3k2r/8/8/8/8/8/8/R3K2R w kq - 0 1", set(), {"e1g1", "e1c1"}),
    "king in check": ("r3k2r/4r3/8/8/8/8/8/R3K2R w KQkq - 0 1", set(), {"e1g1", "e1c1"}),
    "passing through an attacked f1": ("r3kr2/8/8/8/8/8/8/R3K2R w KQq - 0 1", {"e1c1"}, {"e1g1"}),
    "landing on an attacked g1": ("r3k1r1/8/8/8/8/8/8/R3K2R w KQq - 0 1", {"e1c1"}, {"e1g1"}),
    "passing through an attacked d1": ("r2rk3/8/8/8/8/8/8/R3K2R w KQ - 0 1", {"e1g1"}, {"e1c1"}),
    "landing on an attacked c1": ("r1r1k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", {"e1g1"}, {"e1c1"}),
    "attacked b1 does not matter": ("1r2k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", {"e1g1", "e1c1"}, set()),
    "attacked a1 rook does not matter": ("4k3/r7/8/8/8/8/8/R3K2R w KQ - 0 1", {"e1g1", "e1c1"}, set()),
    "attacked h1 rook does not matter": ("4k2r/8/8/8/8/8/8/R3K2R w KQ - 0 1", {"e1g1", "e1c1"}, set()),
    "knight on b1 blocks": ("4k3/8/8/8/8/8/8/RN2K2R w KQ - 0 1", {"e1g1"}, {"e1c1"}),
    "bishop on f1 blocks": ("4k3/8/8/8/8/8/8/R3KB1R w KQ - 0 1", {"e1c1"}, {"e1g1"}),
    "black, through an attacked f8": ("r3k2r/8/8/8/8/8/8/4KR2 b kq - 0 1", {"e8c8"}, {"e8g8"}),
    "black, attacked b8 does not matter": ("r3k2r/8/8/8/8/8/8/1R2K3 b kq - 0 1", {"e8g8", "e8c8"}, set()),
    "black, pawn attacks c8": ("r3k2r/1P6/8/8/8/8/8/4K3 b kq - 0 1", {"e8g8"}, {"e8c8"}),
    "black, knight attacks g8": ("r3k2r/8/7N/8/8/8/8/4K3 b kq - 0 1", {"e8c8"}, {"e8g8"}),
}


@pytest.mark.parametrize("name", list(CASTLING_CASES))
def test_castling_conditions(name):
    fen, legal, illegal = CASTLING_CASES[name]
    moves = ucis(Position(fen))
    assert legal <= moves
    assert not illegal & moves


def test_castling_moves_the_rook_and_unmake_puts_it_back():
    fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
    pos = Position(fen)
    pos.push(uci("e1c1"))
    assert pos.fen() == "r3k2r/8/8/8/8/8/8/2KR3R b kq - 1 1"
    pos.push(uci("e8g8"))
    assert pos.fen() == "r4rk1/8/8/8/8/8/8/2KR3R w - - 2 2"
    pos.pop()
    pos.pop()
    assert pos.fen() == fen


@pytest.mark.parametrize("moves, rights", [
    (["e1e2"], "kq"),
    (["h1h2"], "Qkq"),
    (["a1a2"], "Kkq"),
    (["a1a8"], "Kk"),  # the rook that is taken loses its right too
    (["h1h8"], "Qq"),
])
def test_castling_rights_are_lost_by_moving_or_losing_a_rook(moves, rights):
    pos = Position("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    for move in moves:
        pos.push(uci(move))
    assert pos.fen().split()[2] == rights


# -- en passant ------------------------------------------------------------------------------

def test_en_passant_is_legal_only_right_after_the_double_push():
    pos = Position("4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1")
    pos.push(uci("e2e4"))
    assert "d4e3" in ucis(pos)
    pos.push(uci("e8d8"))
    pos.push(uci("e1d1"))
    assert "d4e3" not in ucis(pos)


@pytest.mark.parametrize("fen, capture", [
    # Black's d4 pawn and white's e4 pawn both leave the rank: the queen on h4 would check a4.
    ("8/8/8/8/k2pP2Q/8/8/K7 b - e3 0 1", "d4e3"),
    ("8/8/8/8/k2Pp2Q/8/8/K7 b - d3 0 1", "e4d3"),
    ("8/8/8/KPp4r/8/8/8/7k w - c6 0 2", "b5c6"),
    # The capturing pawn is pinned to its king: on a diagonal, on a file.
    ("4k2b/8/8/3pP3/8/8/8/K7 w - d6 0 2", "e5d6"),
    ("4r2k/8/8/3pP3/8/8/8/4K3 w - d6 0 2", "e5d6"),
    # In check from the bishop that the double push uncovered: taking does not help.
    ("8/8/8/7k/3pP3/8/8/3BK3 b - e3 0 1", "d4e3"),
])
def test_en_passant_refused_when_it_would_leave_the_king_in_check(fen, capture):
    pos = Position(fen)
    assert capture not in ucis(pos)
    with pytest.raises(IllegalMoveError):
        pos.push(uci(capture))


@pytest.mark.parametrize("fen, capture", [
    ("6bk/8/8/3Pp3/8/8/K7/8 w - e6 0 2", "d5e6"),  # pinned, but the capture stays on the pin line
    ("8/8/8/5k2/3pP3/8/8/4K3 b - e3 0 1", "d4e3"),  # taking the pawn that gives check
    ("8/8/8/8/k2pP3/8/8/K6Q b - e3 0 1", "d4e3"),  # a queen on the first rank pins nothing
])
def test_en_passant_allowed(fen, capture):
    pos = Position(fen)
    assert capture in ucis(pos)
    assert pos.is_en_passant(uci(capture)) and pos.is_capture(uci(capture))
    before = pos.fen()
    pos.push(uci(capture))
    taken = uci(capture).to_square + (-8 if pos.turn == 1 else 8)
    assert pos.piece_at(taken) is None
    pos.pop()
    assert pos.fen() == before


# -- promotion -------------------------------------------------------------------------------

def test_promotion_to_each_piece_by_push_and_by_capture():
    pos = Position("1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1")
    promotions = [m for m in pos.legal_moves() if m.promotion]
    assert sorted((m.uci()) for m in promotions) == sorted(
        f"a7{to}{p}" for to in ("a8", "b8") for p in "qrbn")
    for piece in (QUEEN, ROOK, BISHOP, KNIGHT):
        pos.push(Move(48, 57, piece))
        assert pos.piece_at(57).piece_type == piece and pos.piece_at(48) is None
        pos.pop()
        assert pos.fen() == "1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1"


def test_blocked_pawn_does_not_promote_and_black_promotes_down():
    assert not [m for m in Position("n3k3/P7/8/8/8/8/8/4K3 w - - 0 1").legal_moves() if m.promotion]
    pos = Position("4k3/8/8/8/8/8/1p6/R3K3 b Q - 0 1")
    assert {m.uci() for m in pos.legal_moves() if m.promotion} == {
        f"b2{to}{p}" for to in ("b1", "a1") for p in "qrbn"}
    pos.push(uci("b2a1n"))
    assert pos.fen() == "4k3/8/8/8/8/8/8/n3K3 w - - 0 2"  # the rook is gone, and its right


# -- check, mate, stalemate ------------------------------------------------------------------

def test_check_checkmate_stalemate():
    fools_mate = Position()
    for text in ("f2f3", "e7e5", "g2g4", "d8h4"):
        fools_mate.push(uci(text))
    assert fools_mate.is_check() and fools_mate.is_checkmate() and not fools_mate.is_stalemate()
    assert fools_mate.legal_moves() == []
    stalemate = Position("7k/8/6Q1/8/8/8/8/K7 b - - 0 1")
    assert stalemate.is_stalemate() and not stalemate.is_check() and not stalemate.is_checkmate()
    check = Position("4k3/8/8/8/8/8/8/4RK2 b - - 0 1")
    assert check.is_check() and not check.is_checkmate()
    assert ucis(check) == {"e8d7", "e8d8", "e8f7", "e8f8"}


def test_double_check_only_the_king_moves():
    pos = Position("4k3/8/5N2/8/8/8/3B4/4R1K1 b - - 0 1")
    assert all(m.from_square == 60 for m in pos.legal_moves())


def test_king_cannot_step_along_the_checking_line():
    pos = Position("8/8/8/8/r3K3/8/8/7k w - - 0 1")
    assert "e4f4" not in ucis(pos) and "e4d4" not in ucis(pos)


def test_pinned_pieces_move_only_along_the_pin():
    pos = Position("4k3/8/8/8/4r3/8/4R3/4K3 w - - 0 1")
    assert {m.uci() for m in pos.legal_moves() if m.from_square == 12} == {"e2e3", "e2e4"}
    knight = Position("4k3/8/8/8/4r3/8/4N3/4K3 w - - 0 1")
    assert not [m for m in knight.legal_moves() if m.from_square == 12]


def test_helpers_on_moves():
    pos = Position("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    assert pos.is_castling(uci("e1g1")) and not pos.is_castling(uci("e1f1"))
    assert pos.is_capture(uci("a1a8")) and not pos.is_capture(uci("a1a7"))
    assert pos.gives_check(uci("a1a8")) and not pos.gives_check(uci("a1a7"))
    assert pos.is_legal(uci("e1c1")) and not pos.is_legal(uci("e1c2"))
    assert pos.checkers() == 0 and not pos.is_attacked_by(1, 4)


# -- make / unmake ---------------------------------------------------------------------------

def _state(pos: Position) -> tuple:
    return (pos.board[:], pos.bb_color[:], pos.bb_piece[:], pos.king[:], pos.turn, pos.castling, pos.ep,
            pos.halfmove_clock, pos.fullmove_number)


@pytest.mark.parametrize("fen", [
    Position().fen(),
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
])
def test_unmake_restores_every_field(fen):
    rng = random.Random(7)
    for _ in range(20):
        pos = Position(fen)
        states = []
        for _ in range(40):
            codes = pos.legal_codes()
            if not codes:
                break
            states.append(_state(pos))
            pos.make(rng.choice(codes))
        while states:
            pos.unmake()
            assert _state(pos) == states.pop()


def test_push_pop_and_move_stack():
    pos = Position()
    pos.push(uci("e2e4"))
    pos.push(uci("e7e5"))
    assert pos.move_stack() == [uci("e2e4"), uci("e7e5")]
    assert pos.pop() == uci("e7e5")
    copy = pos.copy(stack=True)
    assert copy == pos and copy.move_stack() == pos.move_stack()
    with pytest.raises(IllegalMoveError):
        pos.push(uci("e4e5"))


def test_castling_rights_set_by_hand_without_the_rook_grant_nothing():
    # Regression: a right set on a hand-built board made a rook appear from nowhere.
    pos = Position("4k3/8/8/8/8/8/8/4K3 w - - 0 1")
    pos.castling = 1 | 2  # K and Q, with no rook on h1 or a1
    assert "e1g1" not in ucis(pos) and "e1c1" not in ucis(pos)
    moved_king = Position("4k3/8/8/8/8/8/8/R2K3R w - - 0 1")
    moved_king.castling = 1 | 2
    assert not [m for m in moved_king.legal_moves() if moved_king.is_castling(m)]


def test_en_passant_square_set_by_hand_without_the_pawn_grants_nothing():
    # Regression: taking "en passant" a pawn that was not there made one appear.
    pos = Position("4k3/8/8/4P3/8/8/8/4K3 w - - 0 1")
    pos.ep = 43  # d6, but no black pawn on d5
    assert "e5d6" not in ucis(pos)
    assert not pos.has_legal_en_passant()
