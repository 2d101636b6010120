"""The ChessLink codec against the published description, the real board's bytes and what the open clients read."""
from __future__ import annotations

import doctest
import random

import pytest

import firmware.emulation.board
import firmware.emulation.chesslink
from chess_core import STARTING_FEN, Move, Position, parse_square
from firmware.emulation.board import AppSeen, Light, Send, pieces_shown
from firmware.emulation.chesslink import MAX_FRAME, ChessLink


# -- the app's side, written from the description (magic-board.md) ---------------------------------

def par(text: str) -> bytes:
    """``text`` with odd parity in bit 7 of each character, as a 7O1 line sends it."""
    return bytes(ord(c) | (0x80 if bin(ord(c)).count("1") % 2 == 0 else 0) for c in text)


def frame(text: str) -> str:
    x = 0
    for c in text:
        x ^= ord(c)
    return text + f"{x:02X}"


def replies(events) -> list[str]:
    """The frames sent, parity stripped and each checked: parity odd, check digits right."""
    out = []
    for event in events:
        if isinstance(event, Send):
            assert all(bin(b).count("1") % 2 == 1 for b in event.data), "every byte has odd parity"
            text = "".join(chr(b & 0x7F) for b in event.data)
            assert frame(text[:-2]) == text, f"bad check digits in {text!r}"
            out.append(text)
    return out


def lights(events):
    return [e.lights for e in events if isinstance(e, Light)]


def status_to_fen_placement(status: str) -> str:
    """Read a status as python-mchess does by default: the 64 letters from h1 (h1 g1 .. a1 h2 ..)."""
    board = [["."] * 8 for _ in range(8)]
    for y in range(8):
        for x in range(8):
            board[y][x] = status[7 - x + y * 8]
    rows = []
    for y in reversed(range(8)):
        row, empty = "", 0
        for c in board[y]:
            if c == ".":
                empty += 1
                continue
            row += (str(empty) if empty else "") + c
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows)


def led_command(squares: dict[str, int], slot: int = 0x20) -> str:
    """An L command lighting ``squares`` (name -> pattern) by their four corners, LED 1 at the h1
    corner running up the h-file, as python-mchess and PicoChess light a real board."""
    leds = [[0] * 9 for _ in range(9)]
    for name, pattern in squares.items():
        s = parse_square(name)
        x, y = s % 8, s // 8
        for row in (7 - x, 8 - x):
            for col in (y, y + 1):
                leds[row][col] |= pattern
    return "L" + f"{slot:02X}" + "".join(f"{leds[r][c]:02X}" for r in range(9) for c in range(9))


def lit_squares(light, now=0.0) -> set[str]:
    from chess_core import square_name
    bb = light.lit(now)
    return {square_name(s) for s in range(64) if bb >> s & 1}


@pytest.fixture
def link() -> ChessLink:
    return ChessLink(0.0)


START = pieces_shown(STARTING_FEN, Position().occupied)


# -- golden bytes -------------------------------------------------------------------------------

def test_the_version_exchange_of_the_real_board(link):
    """V56 -> v010374, bytes as python-mchess logged them from a real board."""
    events = link.receive(b"\xd6\xb5\xb6", 0.0)
    assert [e.data for e in events if isinstance(e, Send)] == [b"v\xb01\xb0\xb374"]
    assert AppSeen("V") in events


def test_input_without_the_parity_bit_is_read_too(link):
    assert replies(link.receive(b"V56", 0.0)) == ["v010374"]


def test_hex_digits_are_read_in_either_case(link):
    """The check is the XOR of the characters as sent, lower-case digits included."""
    assert replies(link.receive(par(frame("W040a")), 0.0)) == [frame("w040A")]
    assert replies(link.receive(par(frame("R04")), 0.0)) == [frame("r040A")]
    assert link.receive(par("W040c" + frame("W040C")[-2:]), 0.0) == []   # a check of other characters


# -- status -------------------------------------------------------------------------------------

def test_the_status_runs_from_h1_as_the_open_clients_read_it(link):
    link.board(START, 0.0)
    (reply,) = replies(link.receive(par(frame("S")), 0.1))
    assert reply[0] == "s" and len(reply) == 67
    assert reply[1:9] == "RNBKQBNR"
    assert status_to_fen_placement(reply[1:65]) == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"


def test_a_lifted_piece_is_an_empty_square_in_the_status(link):
    pos = Position()
    link.board(pieces_shown(pos.fen(), pos.occupied & ~(1 << parse_square("g1"))), 0.0)
    (reply,) = replies(link.receive(par(frame("S")), 0.1))
    assert status_to_fen_placement(reply[1:65]) == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKB1R"


def test_every_scan_reports_by_default_and_at_once_on_a_change(link):
    assert replies(link.poll(0.0)) == ["s" + "." * 64 + frame("s" + "." * 64)[-2:]]
    assert link.next_deadline() == pytest.approx(20 * 0.002048)
    assert link.poll(0.02) == []
    assert len(replies(link.poll(0.041))) == 1
    assert len(replies(link.board(START, 0.05))) == 1                  # a change: at once
    assert link.next_deadline() == pytest.approx(0.05 + 0.04096)


def test_reports_on_change_only_once_per_change(link):
    assert replies(link.receive(par(frame("W0203")), 0.0)) == [frame("w0203"), frame("s" + "." * 64)]
    assert len(replies(link.board(START, 0.1))) == 1
    assert replies(link.board(START, 0.2)) == []
    assert link.next_deadline() is None
    assert link.poll(5.0) == []


def test_the_debounced_reports_python_mchess_asks_for_report_each_settled_change(link):
    link.board(START, 0.0)
    (w, s) = replies(link.receive(par(frame("W0207")), 0.0))   # set_debounce(4): where the board stands
    assert w == frame("w0207") and status_to_fen_placement(s[1:65]) == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
    lifted = pieces_shown(STARTING_FEN, Position().occupied & ~(1 << parse_square("e2")))
    assert len(replies(link.board(lifted, 0.1))) == 1


def test_reports_switched_off(link):
    link.receive(par(frame("W0201")), 0.0)
    assert link.board(START, 0.1) == [] and link.poll(1.0) == []
    assert len(replies(link.receive(par(frame("S")), 1.0))) == 1      # S still answers


def test_timed_reports_use_the_report_time(link):
    events = link.receive(par(frame("W030A")) + par(frame("W0202")), 0.0)      # every 10 x 4.096 ms
    assert [r[0] for r in replies(events)] == ["w", "w", "s"]
    assert link.next_deadline() == pytest.approx(0.04096)
    assert link.poll(0.03) == []
    assert len(replies(link.poll(0.041))) == 1


def test_the_scan_time_is_kept_and_read_back(link):
    assert replies(link.receive(par(frame("W0130")), 0.0)) == [frame("w0130")]
    assert replies(link.receive(par(frame("R01")), 0.0)) == [frame("r0130")]
    link.poll(0.0)
    assert link.next_deadline() == pytest.approx(0x30 * 0.002048)
    link.receive(par(frame("W010A")), 0.0)                                # under 15: 20
    link.poll(0.0)
    assert link.next_deadline() == pytest.approx(20 * 0.002048)


def test_an_unsolicited_report_may_come_between_a_command_and_its_reply(link):
    """The app must match replies by their letter; a report does not swallow a reply."""
    events = link.receive(par(frame("V")), 0.0) + link.board(START, 0.0)
    assert [r[0] for r in replies(events)] == ["v", "s"]


# -- LEDs ---------------------------------------------------------------------------------------

def test_an_l_command_lights_the_squares_the_app_framed(link):
    events = link.receive(par(frame(led_command({"e2": 0xFF, "e4": 0xFF}))), 1.0)
    assert replies(events) == [frame("l")]
    (light,) = lights(events)
    assert lit_squares(light) == {"e2", "e4"}


def test_the_leds_blink_as_python_mchess_shows_a_move(link):
    """show_delta: the from-square with pattern 0x0F, the to-square 0xF0, slot 0x20 x 4.096 ms."""
    (light,) = lights(link.receive(par(frame(led_command({"e2": 0x0F, "e4": 0xF0}))), 1.0))
    slot = 0x20 * 0.004096
    assert lit_squares(light, 1.0) == {"e4"}
    assert lit_squares(light, 1.0 + 4.5 * slot) == {"e2"}
    assert light.next_change(1.0) == pytest.approx(1.0 + slot)


def test_x_puts_the_leds_out(link):
    link.receive(par(frame(led_command({"d4": 0xFF}))), 0.0)
    events = link.receive(par(frame("X")), 0.5)
    assert replies(events) == [frame("x")]
    (light,) = lights(events)
    assert light.dark


def test_brightness_scales_the_lights(link):
    link.receive(par(frame(led_command({"d4": 0xFF}))), 0.0)
    (light,) = lights(link.receive(par(frame("W0405")), 0.1))
    assert light.brightness == pytest.approx(5 / 15)
    assert replies(link.receive(par(frame("R04")), 0.2)) == [frame("r0405")]


def test_an_l_command_split_over_many_writes_is_read_whole(link):
    """Over BLE an L command (167 characters) arrives in pieces of 20 bytes."""
    data = par(frame(led_command({"a1": 0xFF})))
    assert len(data) == 167
    events = []
    for i in range(0, len(data), 20):
        events += link.receive(data[i:i + 20], 0.0)
    assert replies(events) == [frame("l")]


# -- reset and bad input ------------------------------------------------------------------------

def test_reset_answers_nothing_and_the_board_starts_up_for_three_seconds(link):
    link.receive(par(frame(led_command({"d4": 0xFF}))), 0.0)
    events = link.receive(par(frame("T")), 1.0)
    assert replies(events) == []
    assert lights(events)[0].dark
    assert link.receive(par(frame("V")), 2.0) == []            # starting up
    assert link.next_deadline() == pytest.approx(4.0)
    assert replies(link.receive(par(frame("V")), 4.1)) == ["v010374"]


def test_a_wrong_check_is_ignored_and_the_next_frame_read(link):
    assert link.receive(par("V57"), 0.0) == []
    assert replies(link.receive(par("V56"), 0.0)) == ["v010374"]


def test_a_frame_cut_by_another_command_is_dropped_and_the_other_read(link):
    assert replies(link.receive(par("W02") + par(frame("V")), 0.0)) == ["v010374"]


def test_unknown_letters_are_skipped(link):
    assert replies(link.receive(b"hello\r\nZ" + par(frame("V")), 0.0)) == ["v010374"]


def test_the_block_check_can_be_switched_off_as_the_description_allows(link):
    assert replies(link.receive(par(frame("W0001")), 0.0)) == [frame("w0001")]
    events = link.receive(par("V"), 0.0)
    assert [bytes(b & 0x7F for b in e.data) for e in events if isinstance(e, Send)] == [b"v0103"]


def test_a_flood_of_bytes_keeps_at_most_one_frame(link):
    rng = random.Random(22)
    for _ in range(200):
        link.receive(bytes(rng.randrange(256) for _ in range(997)), 0.0)
        assert len(link._frame) <= MAX_FRAME
    link.receive(b"\r" + par(frame("W0000")), 10.0)            # (the flood may have switched the check off)
    assert replies(link.receive(par(frame("V")), 10.0)) == ["v010374"]


def test_the_modules_examples_hold():
    assert doctest.testmod(firmware.emulation.chesslink).failed == 0
    assert doctest.testmod(firmware.emulation.board).failed == 0
