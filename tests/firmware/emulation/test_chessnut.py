"""The Chessnut Air codec against the maker's published API and what PicoChess's Chessnut client reads."""
from __future__ import annotations

import doctest

import chess

import firmware.emulation.chessnut
from chess_core import STARTING_FEN, Position, parse_square
from firmware.emulation.board import AppSeen, Light, Send, pieces_shown
from firmware.emulation.chessnut import Chessnut

# The description's codes: 0 empty, q k b p n = 1..5, R P = 6 7, r = 8, B N Q K = 9..12.
STONES = {0: None, 1: "q", 2: "k", 3: "b", 4: "p", 5: "n", 6: "R", 7: "P", 8: "r", 9: "B", 10: "N", 11: "Q",
          12: "K"}
START = pieces_shown(STARTING_FEN, Position().occupied)


def read_position(message: bytes) -> str:
    """An app's reading: ``01 24``, then 32 bytes, 4 bits a square from h8 (low nibble first)."""
    assert message[:2] == bytes([0x01, 0x24]) and len(message) == 38
    board = chess.Board(None)
    for n in range(64):
        byte = message[2 + n // 2]
        code = (byte >> 4) if n % 2 else (byte & 0x0F)
        if STONES[code]:
            board.set_piece_at(63 - n, chess.Piece.from_symbol(STONES[code]))
    return board.board_fen()


def sent(events) -> list[bytes]:
    return [e.data for e in events if isinstance(e, Send)]


def test_nothing_is_sent_before_real_time_mode_then_the_position_at_once():
    board = Chessnut()
    assert board.board(START, 0.0) == []
    events = board.receive(bytes([0x21, 0x01, 0x00]), 0.1)
    assert AppSeen("realtime") in events
    (message,) = sent(events)
    assert read_position(message) == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
    assert message[2] == 0x58 and message[33] == 0x6A      # h8 r, g8 n; b1 N, a1 R (the high nibble)


def test_every_change_is_sent_and_a_lifted_piece_leaves_an_empty_square():
    board = Chessnut()
    board.board(START, 0.0)
    board.receive(bytes([0x21, 0x01, 0x00]), 0.0)
    lifted = pieces_shown(STARTING_FEN, Position().occupied & ~(1 << parse_square("g1")))
    (message,) = sent(board.board(lifted, 0.1))
    assert read_position(message) == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKB1R"
    assert board.board(lifted, 0.2) == []                  # no change, nothing sent


def test_the_led_bitmap_lights_exactly_its_squares():
    """PicoChess's set_led: square (7 - rank) * 8 + file, byte square // 8, bit 7 for the a-file."""
    board = Chessnut()
    bitmap = bytearray(8)
    for name in ("e2", "e4", "a8", "h1"):
        s = parse_square(name)
        index = (7 - s // 8) * 8 + s % 8
        bitmap[index // 8] |= 0x80 >> (index % 8)
    (light,) = [e.lights for e in board.receive(bytes([0x0A, 0x08]) + bitmap, 0.0) if isinstance(e, Light)]
    bb = light.lit(0.0)
    assert {chess.square_name(s) for s in range(64) if bb >> s & 1} == {"e2", "e4", "a8", "h1"}
    (light,) = [e.lights for e in board.receive(bytes([0x0A, 0x08]) + bytes(8), 1.0) if isinstance(e, Light)]
    assert light.dark


def test_commands_split_over_writes_and_garbage_between_them_are_read():
    board = Chessnut()
    board.board(START, 0.0)
    data = b"\x00\x7f\x21\x01\x05" + bytes([0x0A, 0x08, 0x80, 0, 0, 0, 0, 0, 0, 0]) + b"\x21\x01\x00"
    events = []
    for byte in data:
        events += board.receive(bytes([byte]), 0.0)
    assert [type(e).__name__ for e in events] == ["AppSeen", "Light", "Send"]
    assert len(board._buffer) == 0


def test_the_modules_examples_hold():
    assert doctest.testmod(firmware.emulation.chessnut).failed == 0
