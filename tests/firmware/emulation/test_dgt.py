"""The DGT serial codec against the published description (dgtbrd.h) and what PicoChess sends and reads."""
from __future__ import annotations

import doctest
import random

import pytest

import firmware.emulation.dgt
from chess_core import STARTING_FEN, Move, Position, parse_square, square_name
from firmware.emulation.board import AppSeen, Light, Send, pieces_shown
from firmware.emulation.dgt import Dgt

# The start position's dump, from the description: the header, then a8..h8, ..., a1..h1.
START_DUMP = bytes.fromhex("86 00 43 08 09 0a 0c 0b 0a 09 08") + bytes([7] * 8) + bytes(32) + bytes([1] * 8) \
    + bytes.fromhex("02 03 04 06 05 04 03 02")


def sent(events) -> list[bytes]:
    return [e.data for e in events if isinstance(e, Send)]


def lights(events):
    return [e.lights for e in events if isinstance(e, Light)]


def dgt_field(name: str) -> int:
    """The description's field number: a8 = 0 .. h1 = 63."""
    s = parse_square(name)
    return (7 - s // 8) * 8 + s % 8


def lit(light) -> set[str]:
    bb = light.lit(0.0)
    return {square_name(s) for s in range(64) if bb >> s & 1}


@pytest.fixture
def board() -> Dgt:
    return Dgt(0.0)


START = pieces_shown(STARTING_FEN, Position().occupied)


def test_the_start_position_s_dump_is_the_published_one(board):
    board.board(START, 0.0)
    events = board.receive(b"\x42", 0.0)
    assert sent(events) == [START_DUMP]
    assert len(START_DUMP) == 67
    assert AppSeen("0x42") in events


def test_a_lifted_piece_is_an_empty_field_in_the_dump(board):
    pos = Position()
    board.board(pieces_shown(pos.fen(), pos.occupied & ~(1 << parse_square("e1"))), 0.0)
    (dump,) = sent(board.receive(b"\x42", 0.0))
    assert dump[3 + dgt_field("e1")] == 0 and dump[3 + dgt_field("d1")] == 6


def test_version_serial_and_long_serial(board):
    assert sent(board.receive(b"\x4d", 0.0)) == [bytes([0x93, 0, 5, 1, 7])]
    (serial,) = sent(board.receive(b"\x45", 0.0))
    assert serial[:3] == bytes([0x91, 0, 8]) and serial[3:].isdigit() and len(serial) == 8
    (long_serial,) = sent(board.receive(b"\x55", 0.0))
    assert long_serial[:3] == bytes([0xA2, 0, 13]) and long_serial[3:].isdigit() and len(long_serial) == 13


def test_the_bus_address_is_the_serial_number_s_value_in_two_7_bit_bytes():
    # dgtbrd.h: serial number "01025" -> bus address bytes 0x08 0x01
    assert sent(Dgt(0.0, serial="01025").receive(b"\x46", 0.0)) == [bytes.fromhex("90 00 05 08 01")]
    assert sent(Dgt(0.0).receive(b"\x46", 0.0)) == [bytes.fromhex("90 00 05 00 01")]


def test_the_trademark_names_this_board_and_no_dgt_mark(board):
    (answer,) = sent(board.receive(b"\x47", 0.0))
    text = answer[3:].decode("ascii")
    assert answer[0] == 0x92 and (answer[1] << 7 | answer[2]) == len(answer)
    assert all(b < 0x80 for b in answer[1:])           # no byte an app could take for a message's start
    assert "Echiquier" in text and "Vs 1.07. Serial nr. 00001" in text
    assert "registered trade mark" not in text and "DGT Projects" not in text


def test_no_stored_moves_is_the_end_of_the_stream_alone(board):
    assert sent(board.receive(b"\x49", 0.0)) == [bytes.fromhex("8f 00 04 6b")]


def test_the_battery_is_full_with_no_time_left_known(board):
    assert sent(board.receive(b"\x4c", 0.0)) == [bytes.fromhex("a0 00 0c 64 7f 7f 00 00 00 00 00 00")]


def test_the_clock_is_answered_with_the_empty_time_apps_ignore(board):
    assert sent(board.receive(b"\x41", 0.0)) == [bytes([0x8D, 0, 10]) + bytes(7)]


def test_field_updates_come_only_in_an_update_mode(board):
    board.board(START, 0.0)
    pos = Position()
    lifted = pieces_shown(pos.fen(), pos.occupied & ~(1 << parse_square("e2")))
    assert board.board(lifted, 0.1) == []                             # IDLE at power-on
    board.receive(b"\x4b", 0.2)                                        # UPDATE_NICE, as PicoChess asks
    assert sent(board.board(START, 0.3)) == [bytes([0x8E, 0, 5, dgt_field("e2"), 1])]
    assert sent(board.board(lifted, 0.4)) == [bytes([0x8E, 0, 5, dgt_field("e2"), 0])]
    board.receive(b"\x40", 0.5)                                        # reset: IDLE again
    assert board.board(START, 0.6) == []


@pytest.mark.parametrize("mode", [0x43, 0x44, 0x4B])
def test_each_update_mode_sends_field_updates(board, mode):
    board.receive(bytes([mode]), 0.0)
    assert sent(board.board(START, 0.1))


def test_a_capture_reports_the_emptied_square_before_the_filled_one(board):
    pos = Position("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1")
    board.board(pieces_shown(pos.fen(), pos.occupied), 0.0)
    board.receive(b"\x44", 0.0)
    pos.push(Move.from_uci("e4d5"))
    updates = sent(board.board(pieces_shown(pos.fen(), pos.occupied), 0.1))
    assert updates == [bytes([0x8E, 0, 5, dgt_field("e4"), 0]), bytes([0x8E, 0, 5, dgt_field("d5"), 1])]


def test_picochess_s_start_up_is_answered(board):
    """0x4b, 0x4d, then 0x42 and a clock version request (0x2b 0x03 0x03 0x09 0x00), then 0x45."""
    board.board(START, 0.0)
    events = board.receive(bytes([0x4B, 0x4D, 0x42, 0x2B, 0x03, 0x03, 0x09, 0x00, 0x45]), 0.0)
    out = sent(events)
    assert [m[0] for m in out] == [0x93, 0x86, 0x91]
    assert out[1] == START_DUMP


def test_revelation_leds_light_a_move_and_go_out(board):
    """PicoChess: 0x60 0x04 0x01 from to 0x00 lights a move; 0x60 0x04 0x00 0x40 0x40 0x00 clears."""
    (light,) = lights(board.receive(bytes([0x60, 4, 1, dgt_field("e2"), dgt_field("e4"), 0]), 0.0))
    assert lit(light) == {"e2", "e4"}
    (light,) = lights(board.receive(bytes([0x60, 4, 0, 0x40, 0x40, 0]), 0.0))
    assert light.dark


def test_revelation_leds_lit_one_square_at_a_time_add_up(board):
    """Another PicoChess lights each square with its own command (start = end), and clears 0..63."""
    board.receive(bytes([0x60, 4, 1, dgt_field("g1"), dgt_field("g1"), 0]), 0.0)
    (light,) = lights(board.receive(bytes([0x60, 4, 1, dgt_field("f3"), dgt_field("f3"), 0]), 0.0))
    assert lit(light) == {"g1", "f3"}
    (light,) = lights(board.receive(bytes([0x60, 4, 0, 0, 63, 0]), 0.0))
    assert light.dark


def test_a_command_split_over_writes_is_read_whole(board):
    data = bytes([0x60, 4, 1, dgt_field("a1"), dgt_field("a1"), 0])
    events = []
    for b in data:
        events += board.receive(bytes([b]), 0.0)
    assert lit(lights(events)[0]) == {"a1"}


def test_unknown_bytes_are_ignored(board):
    board.board(START, 0.0)
    assert sent(board.receive(b"\x00\x7f\x4e\x50\x5a\x42", 0.0)) == [START_DUMP]


def test_a_flood_of_bytes_keeps_at_most_one_command(board):
    rng = random.Random(22)
    for _ in range(200):
        board.receive(bytes(rng.randrange(256) for _ in range(997)), 0.0)
        assert len(board._pending) <= 2 + 255
    board.receive(bytes(300), 0.0)                        # zeros end any sized command left open
    board.board(START, 0.0)
    assert START_DUMP in sent(board.receive(b"\x42", 0.0))


def test_the_modules_examples_hold():
    assert doctest.testmod(firmware.emulation.dgt).failed == 0
