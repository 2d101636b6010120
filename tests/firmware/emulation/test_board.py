"""What every emulated protocol reports and is asked: the pieces shown, the app's lights, the 81 corners."""
from __future__ import annotations

import pytest

from chess_core import STARTING_FEN, Move, Position, parse_square
from firmware.emulation.board import EMPTY_BOARD, Lights, Pieces, corner_patterns_to_squares, pieces_shown, placement


def bb(*names: str) -> int:
    out = 0
    for name in names:
        out |= 1 << parse_square(name)
    return out


START_OCCUPIED = Position().occupied


def test_the_start_position_is_shown_whole():
    shown = pieces_shown(STARTING_FEN, START_OCCUPIED)
    assert shown.at(parse_square("e1")) == "K" and shown.at(parse_square("d8")) == "q"
    assert shown.occupied == START_OCCUPIED


def test_a_lifted_piece_leaves_its_square_empty():
    shown = pieces_shown(STARTING_FEN, START_OCCUPIED & ~bb("g1"))
    assert shown.at(parse_square("g1")) == "."
    assert shown.occupied == START_OCCUPIED & ~bb("g1")


def test_a_piece_the_game_does_not_have_is_not_invented():
    shown = pieces_shown(STARTING_FEN, START_OCCUPIED | bb("e4"))
    assert shown.at(parse_square("e4")) == "."


def test_a_board_that_reads_colours_shows_no_piece_of_the_wrong_colour():
    pos = Position()
    white = pos.occupied_by(0) & ~bb("e2")
    black = pos.occupied_by(1) | bb("e2")     # a black piece stands where the game has a white pawn
    shown = pieces_shown(STARTING_FEN, pos.occupied, white, black)
    assert shown.at(parse_square("e2")) == "."
    assert shown.at(parse_square("d2")) == "P"


def test_the_position_after_a_move_is_the_game_s():
    pos = Position()
    pos.push(Move.from_uci("e2e4"))
    shown = pieces_shown(pos.fen(), pos.occupied)
    assert shown.at(parse_square("e4")) == "P" and shown.at(parse_square("e2")) == "."


@pytest.mark.parametrize("fen", ["8/8/8/8/8/8/8/K6 w - - 0 1", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w", "x" * 8])
def test_a_malformed_placement_is_refused(fen):
    with pytest.raises(ValueError):
        placement(fen)


def test_pieces_hold_64_letters():
    with pytest.raises(ValueError):
        Pieces("." * 63)
    with pytest.raises(ValueError):
        Pieces("x" * 64)
    assert EMPTY_BOARD.occupied == 0


def test_steady_lights_never_change():
    lights = Lights.steady(bb("e2", "e4"))
    assert lights.lit(0.0) == lights.lit(123.4) == bb("e2", "e4")
    assert lights.next_change(5.0) is None


def test_a_pattern_plays_one_bit_per_slot_from_bit_7():
    patterns = [0] * 64
    patterns[parse_square("e2")] = 0xF0      # on for four slots, off for four
    patterns[parse_square("e4")] = 0x0F      # the other way round
    lights = Lights(tuple(patterns), slot_s=0.1, since=10.0)
    assert lights.lit(10.0) == bb("e2")
    assert lights.lit(10.39) == bb("e2")
    assert lights.lit(10.41) == bb("e4")
    assert lights.lit(10.81) == bb("e2")     # and again, every eight slots
    assert lights.next_change(10.05) == pytest.approx(10.1)


def _corners(*squares: str, pattern: int = 0xFF) -> list[int]:
    corners = [0] * 81
    for name in squares:
        s = parse_square(name)
        x, y = s % 8, s // 8
        for cy in (y, y + 1):
            for cx in (x, x + 1):
                corners[cx + 9 * cy] = pattern
    return corners


def test_a_square_is_lit_by_its_four_corners():
    squares = corner_patterns_to_squares(tuple(_corners("e2", "e4")))
    assert {s for s, p in enumerate(squares) if p} == {parse_square("e2"), parse_square("e4")}


def test_a_square_between_two_lit_ones_is_not_lit():
    """e2 and e4 light the four corners of e3 too: the fewest squares that explain them are shown."""
    squares = corner_patterns_to_squares(tuple(_corners("a1", "a3", "h8", "f8")))
    assert {s for s, p in enumerate(squares) if p} == {parse_square(n) for n in ("a1", "a3", "h8", "f8")}


def test_two_squares_side_by_side_light_only_themselves():
    squares = corner_patterns_to_squares(tuple(_corners("e2", "e3")))
    assert {s for s, p in enumerate(squares) if p} == {parse_square("e2"), parse_square("e3")}


def test_shared_corners_keep_each_square_s_own_slots():
    corners = _corners("e2", pattern=0x80)
    for i, p in enumerate(_corners("e3", pattern=0x40)):
        corners[i] |= p
    squares = corner_patterns_to_squares(tuple(corners))
    assert squares[parse_square("e2")] == 0x80 and squares[parse_square("e3")] == 0x40


def test_a_square_whose_shared_corners_were_written_over_keeps_its_own_slots():
    corners = _corners("e2", pattern=0x0F)
    for i, p in enumerate(_corners("e3", pattern=0xF0)):
        if p:
            corners[i] = p                     # python-mchess's set_led: the last square written wins
    squares = corner_patterns_to_squares(tuple(corners))
    assert squares[parse_square("e2")] == 0x0F and squares[parse_square("e3")] == 0xF0


def test_a_lone_corner_lights_nothing():
    corners = [0] * 81
    corners[40] = 0xFF
    assert not any(corner_patterns_to_squares(tuple(corners)))


def test_the_squares_shown_on_a_corner_board_are_the_corners_the_app_lit():
    """Both layouts: on an 81-LED board the squares mapped back light exactly the corners asked."""
    from board_driver.layout import LedLayout
    corners = _corners("a1", "e4", "h8", "d5")
    squares = corner_patterns_to_squares(tuple(corners))
    frame = [0xFFFFFF if p else 0 for p in squares]
    assert [1 if c else 0 for c in LedLayout("corners").cell_colours(frame)] == [1 if c else 0 for c in corners]
    assert [1 if c else 0 for c in LedLayout("square").cell_colours(frame)] == [1 if p else 0 for p in squares]


def _squares_lit_by_definition(lit: set[int], possible: list[int]) -> list[int]:
    """The corner mapping's first definition, square against square (quadratic: 4 ms for a frame
    with every corner lit), kept to check the counting one against."""
    from firmware.emulation.board import SQUARE_CORNERS
    candidates = [s for s in range(64) if all(c in lit for c in SQUARE_CORNERS[s])]
    chosen = [s for s in candidates
              if any(all(c not in SQUARE_CORNERS[o] for o in candidates if o != s) for c in SQUARE_CORNERS[s])]
    covered = {c for s in chosen for c in SQUARE_CORNERS[s]}
    for s in candidates:
        if s not in chosen and any(c not in covered for c in SQUARE_CORNERS[s]):
            chosen.append(s)
            covered.update(SQUARE_CORNERS[s])
    leftover = lit - covered
    if leftover:
        chosen += [s for s in possible if s not in chosen and sum(c in leftover for c in SQUARE_CORNERS[s]) >= 2]
    return chosen


def test_the_corner_mapping_counts_shared_corners_as_its_definition_compares_squares():
    import random

    from firmware.emulation.board import SQUARE_CORNERS, _squares_lit
    rng = random.Random(32)
    for trial in range(400):
        density = rng.choice([0.1, 0.3, 0.6, 0.9, 1.0])
        lit = {c for c in range(81) if rng.random() < density}
        if trial % 4 == 0:                  # whole squares, as apps light them
            lit = {c for s in rng.sample(range(64), rng.randrange(1, 12)) for c in SQUARE_CORNERS[s]}
        possible = [s for s in range(64) if all(c in lit for c in SQUARE_CORNERS[s])]
        assert _squares_lit(set(lit), possible) == _squares_lit_by_definition(set(lit), possible)
