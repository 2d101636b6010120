"""The DGT Pegasus codec against the bytes DGTCentaurMods / Universal-Chess record of a real board and DGT's app."""
from __future__ import annotations

from chess_core import STARTING_FEN, Position, parse_square, square_name
from firmware.emulation.board import AppSeen, Light, Send, pieces_shown
from firmware.emulation.pegasus import Pegasus

# A real Pegasus's dump of the start position: 1 where a piece stands, a8..h8 first.
START_DUMP = bytes.fromhex("86 00 43") + bytes([1] * 16) + bytes(32) + bytes([1] * 16)
# What DGT's app writes on connecting: reset, lights out, its developer key, an unknown byte,
# the trademark, a dump and the update mode.
APP_OPENING = bytes.fromhex("40 60 02 00 00 63 07 8e 87 b0 18 b6 f4 00 5a 47 42 44")


def sent(events) -> list[bytes]:
    return [e.data for e in events if isinstance(e, Send)]


def lit(events) -> list[set[str]]:
    return [{square_name(s) for s in range(64) if e.lights.lit(0.0) >> s & 1} for e in events if isinstance(e, Light)]


def field(name: str) -> int:
    s = parse_square(name)
    return (7 - s // 8) * 8 + s % 8


def start() -> Pegasus:
    board = Pegasus(0.0)
    board.board(pieces_shown(STARTING_FEN, Position().occupied), 0.0)
    return board


TRADEMARK = (b"Echiquier open-source chessboard\r\nNot a DGT product\r\n"
             b"software version: 1.00, build: 000000\r\nhardware version: 1.00, serial no: 0000000001")


def test_the_app_s_opening_gets_the_trademark_and_the_occupancy_dump():
    board = start()
    events = board.receive(APP_OPENING, 1.0)
    assert isinstance(events[0], AppSeen)
    assert sent(events) == [bytes.fromhex("92 01 0c") + TRADEMARK, START_DUMP]   # 140 bytes: 1 x 128 + 12


def test_the_trademark_has_the_recorded_board_s_four_lines():
    (answer,) = sent(Pegasus(0.0).receive(b"\x47", 0.0))
    lines = answer[3:].decode("ascii").split("\r\n")
    assert answer[0] == 0x92 and (answer[1] << 7 | answer[2]) == len(answer)
    assert len(lines) == 4 and lines[2].startswith("software version: 1.00, build: ")
    assert lines[3] == "hardware version: 1.00, serial no: 0000000001"
    assert not any("DGT" in line and "Not a DGT" not in line for line in lines)


def test_the_opening_arriving_in_pieces_is_read_the_same():
    board = start()
    events = [e for i in range(0, len(APP_OPENING), 5) for e in board.receive(APP_OPENING[i:i + 5], 1.0)]
    assert sent(events)[-1] == START_DUMP and sent(events)[0][0] == 0x92


def test_field_updates_say_emptied_then_filled_with_no_piece_named():
    board = start()
    board.receive(bytes([0x44]), 0.0)
    after_fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    after = pieces_shown(after_fen, Position.from_fen(after_fen).occupied)
    assert sent(board.board(after, 1.0)) == [bytes([0x8E, 0, 5, field("e2"), 0]), bytes([0x8E, 0, 5, field("e4"), 1])]


def test_version_battery_and_serial_numbers():
    board = Pegasus(0.0, battery=88)
    assert sent(board.receive(bytes([0x4D, 0x32, 0x45]), 0.0)) == [
        bytes.fromhex("93 00 05 01 00"), bytes.fromhex("a0 00 0c 58 00 00 00 00 00 00 00 02"),
        bytes.fromhex("91 00 08") + b"00001"]


def test_the_led_command_lights_the_fields_it_lists_and_mode_0_puts_them_out():
    board = start()
    # 0x60, size, mode 5, speed, flash mode, intensity, the fields, 0x00
    events = board.receive(bytes([0x60, 7, 5, 1, 0, 9, field("d8"), field("h4"), 0]), 0.0)
    assert lit(events) == [{"d8", "h4"}]
    assert lit(board.receive(bytes([0x60, 6, 5, 1, 0, 9, field("e2"), 0]), 0.0)) == [{"e2"}]
    assert lit(board.receive(bytes.fromhex("60 02 00 00"), 0.0)) == [set()]
    board.receive(bytes([0x60, 6, 5, 1, 0, 9, field("e2"), 0]), 0.0)
    assert lit(board.receive(bytes.fromhex("60 04 02 00 00 00"), 0.0)) == [set()]


def test_a_field_beyond_the_board_and_an_unknown_mode_light_nothing():
    board = start()
    assert lit(board.receive(bytes([0x60, 6, 5, 1, 0, 9, 64, 0]), 0.0)) == []
    assert lit(board.receive(bytes([0x60, 4, 7, 1, 2, 0]), 0.0)) == []
