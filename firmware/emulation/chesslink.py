"""Millennium ChessLink, the board's side: the app's command frames in, replies, status reports and lights out (pure).

The protocol (Millennium eOne and Exclusive; Dave Woodfield's description, carried in
python-mchess as ``mchess/magic-board.md``): 38400 baud, 7 data bits, odd parity, 1 stop bit;
printable ASCII frames, each ending in two upper-case hex digits, the XOR of every character
from the command letter on. The real board answers ``V56`` with ``v010374``.

======================  ================================  =====================================
command                 frame                             reply
======================  ================================  =====================================
``V`` version           ``V`` chk                         ``v`` 2 hex major, 2 hex minor, chk
``S`` status            ``S`` chk                         ``s`` 64 piece letters, chk
``L`` LEDs              ``L`` slot, 81 x 2 hex, chk       ``l`` chk
``X`` LEDs off          ``X`` chk                         ``x`` chk
``T`` reset             ``T`` chk                         none (3 s of start-up, LEDs cleared)
``W`` write memory      ``W`` address, value, chk         ``w`` address, value, chk
``R`` read memory       ``R`` address, chk                ``r`` address, value, chk
======================  ================================  =====================================

The memory (its "E2ROM"): address 00 bit 0 disables the block parity (no check digits either
way); 01 the scan time in units of 2.048 ms (20 by default; under 15 means 20); 02 the automatic
status reports (bits 0-2: 0 every scan, 1 none, 2 every [03] x 4.096 ms, 3 on any change, 4-7
on any change after 2-5 scans of debounce); 03 that report time; 04 the LED brightness (0 dim,
over 14 full). Above 0x10 the app keeps what it likes.

Choices, where the description and the clients differ or say nothing:

* Squares are sent from h1: ``h1 g1 .. a1 h2 .. a8``, the description's order (``a8 .. h8,
  a7 ..``) turned 180 degrees, as python-mchess (``chess_link.py``, its default orientation) and
  PicoChess (``eboard/chesslink``, the same code) read a real board; python-mchess turns its
  view by the start position when it reads it the other way. The 81 LEDs are taken the same way
  round: LED n (from 0) is the corner at column ``8 - n // 9`` and row ``n % 9`` (column 0 the
  a-file's outer edge, row 0 the first rank's), which is how both clients light a square.
* The board reports settled readings (:mod:`board_driver.debounce`): the debounce modes report
  each change at once, "every scan" reports every scan time and at once on a change, so a
  settled reading goes out without waiting for the next scan. A change of the report mode is
  answered, after its ``w``, by a status: an app that asks for reports on change (python-mchess
  writes 02 = 07 at start) learns where the board stands without waiting for a piece to move.
* Input is read with or without the parity bit (bit 7 is dropped); output carries odd parity in
  bit 7, as a 7O1 line would. Hex digits are read in either case and sent in upper case.
* A frame with a wrong check, or cut by a character that cannot be in it, is dropped, as the
  real board does; an unknown letter is skipped. A frame is at most 167 characters: nothing
  the app sends makes the codec keep more.
"""
from __future__ import annotations

from firmware.emulation.board import (EMPTY_BOARD, AppSeen, Event, Light, Lights, Pieces, Send,
                                      corner_patterns_to_squares)

NAME = "ChessLink"
VERSION = (1, 3)           # the real board's reply to V: v 01 03
SCAN_UNIT_S = 0.002048     # memory 01
SLOT_UNIT_S = 0.004096     # the L command's slot time, memory 03
RESET_S = 3.0              # the real board's start-up after T
DEFAULT_SCAN = 20
MIN_SCAN = 15

ADDRESS_SERIAL, ADDRESS_SCAN, ADDRESS_REPORTS, ADDRESS_REPORT_TIME, ADDRESS_BRIGHTNESS = 0, 1, 2, 3, 4
EVERY_SCAN, NO_REPORTS, TIMED, ON_CHANGE = 0, 1, 2, 3   # memory 02; 4..7 on change, debounced

# Payload length of each command (hex digits between the letter and the check).
PAYLOAD = {"V": 0, "S": 0, "X": 0, "T": 0, "L": 2 + 81 * 2, "W": 4, "R": 2}
HEX = "0123456789ABCDEFabcdef"
MAX_FRAME = 1 + PAYLOAD["L"] + 2




def odd_parity(ch: int) -> int:
    """``ch`` (7 bits) with bit 7 set when that makes the count of ones odd.

    >>> hex(odd_parity(ord("0"))), hex(odd_parity(ord("v")))
    ('0xb0', '0x76')
    """
    ch &= 0x7F
    return ch | (0x80 if bin(ch).count("1") % 2 == 0 else 0)


def check(text: str) -> str:
    """The two upper-case hex digits of the XOR of ``text``'s characters.

    >>> check("v0103")
    '74'
    """
    x = 0
    for ch in text:
        x ^= ord(ch)
    return f"{x:02X}"


def encode(text: str, with_check: bool = True) -> bytes:
    """A frame on the wire: ``text``, its check digits, odd parity on every byte.

    >>> encode("V")      # python-mchess's log of a real exchange: "Sending: <b'\\xd6\\xb5\\xb6'>"
    b'\xd6\xb5\xb6'
    """
    frame = text + check(text) if with_check else text
    return bytes(odd_parity(ord(ch)) for ch in frame)


def status_text(pieces: Pieces) -> str:
    """The 64 status letters as the open clients read them: from h1 (h1 g1 .. a1 h2 .. a8)."""
    return "".join(pieces.at(8 * rank + 7 - col) for rank in range(8) for col in range(8))


def led_corner(index: int) -> int:
    """The corner (``cx + 9 * cy``, see board.corner_patterns_to_squares) of LED ``index`` (0..80)."""
    return (8 - index // 9) + 9 * (index % 9)


class ChessLink:
    """One link's ChessLink board; see the module docstring.

    ``receive(data, now)``: bytes from the app; ``board(pieces, now)``: a settled reading's
    pieces; ``poll(now)`` at ``next_deadline()``. Each returns the frozen events that follow.
    """

    def __init__(self, now: float = 0.0, *, version: tuple[int, int] = VERSION) -> None:
        self.version = version
        self.memory = bytearray(256)
        self.memory[ADDRESS_SCAN] = DEFAULT_SCAN
        self.memory[ADDRESS_BRIGHTNESS] = 15
        self.pieces = EMPTY_BOARD
        self.lights = Lights()
        self.reported: str | None = None   # the last status sent unasked
        self.seen = False
        self._frame = ""
        self._next_report: float | None = now
        self._booting_until: float | None = None

    # -- settings --------------------------------------------------------------------------------

    @property
    def with_check(self) -> bool:
        return not self.memory[ADDRESS_SERIAL] & 1

    @property
    def report_mode(self) -> int:
        return self.memory[ADDRESS_REPORTS] & 7

    @property
    def scan_s(self) -> float:
        scan = self.memory[ADDRESS_SCAN]
        return (scan if scan >= MIN_SCAN else DEFAULT_SCAN) * SCAN_UNIT_S

    @property
    def report_s(self) -> float:
        return max(1, self.memory[ADDRESS_REPORT_TIME]) * SLOT_UNIT_S

    @property
    def brightness(self) -> float:
        return min(self.memory[ADDRESS_BRIGHTNESS], 15) / 15

    # -- input -----------------------------------------------------------------------------------

    def receive(self, data: bytes, now: float) -> list[Event]:
        """The app's bytes: every complete, well-formed frame is carried out, in order."""
        events: list[Event] = []
        if self._booting(now):
            return events
        for byte in data:
            ch = chr(byte & 0x7F)
            if not self._frame:
                if ch in PAYLOAD:
                    self._frame = ch
                    self._complete(events, now)
                continue                      # (anything else between frames: skipped)
            if ch in HEX:
                self._frame += ch
                self._complete(events, now)
            else:                             # cut short: dropped; a command letter begins anew
                self._frame = ch if ch in PAYLOAD else ""
                if self._frame:
                    self._complete(events, now)
        return events

    def board(self, pieces: Pieces, now: float) -> list[Event]:
        """A settled reading's pieces: reported at once unless reports are off or unchanged."""
        self.pieces = pieces
        if self._booting(now) or self.report_mode == NO_REPORTS:
            return []
        if status_text(pieces) == self.reported:
            return []
        return self._report(now)

    def poll(self, now: float) -> list[Event]:
        """The timed reports (every scan, every report time) due at ``now``."""
        if self._booting(now):
            return []
        mode = self.report_mode
        if mode not in (EVERY_SCAN, TIMED) or self._next_report is None or now < self._next_report:
            return []
        return self._report(now)

    def next_deadline(self) -> float | None:
        """When ``poll`` must run next (None: only input or a new reading does anything)."""
        if self._booting_until is not None:
            return self._booting_until
        if self.report_mode in (EVERY_SCAN, TIMED):
            return self._next_report
        return None

    # -- the frames ------------------------------------------------------------------------------

    def _booting(self, now: float) -> bool:
        if self._booting_until is None:
            return False
        if now < self._booting_until:
            return True
        self._booting_until = None
        self._next_report = now
        return False

    def _complete(self, events: list[Event], now: float) -> None:
        frame = self._frame
        letter = frame[0]
        needed = 1 + PAYLOAD[letter] + (2 if self.with_check else 0)
        if len(frame) < needed:
            return
        self._frame = ""
        body = frame[:needed - 2] if self.with_check else frame
        if self.with_check and frame[needed - 2:].upper() != check(body):
            return                                          # a wrong check: ignored
        if not self.seen:
            self.seen = True
            events.append(AppSeen(letter))
        events.extend(self._command(letter, body[1:], now))

    def _reply(self, text: str) -> Send:
        return Send(encode(text, self.with_check))

    def _command(self, letter: str, payload: str, now: float) -> list[Event]:
        if letter == "V":
            return [self._reply(f"v{self.version[0]:02X}{self.version[1]:02X}")]
        if letter == "S":
            return [self._reply("s" + status_text(self.pieces))]
        if letter == "X":
            return [self._reply("x"), *self._set_lights(Lights(since=now, brightness=self.brightness))]
        if letter == "L":
            slot = int(payload[:2], 16) * SLOT_UNIT_S
            corners = [0] * 81
            for index in range(81):
                corners[led_corner(index)] = int(payload[2 + 2 * index:4 + 2 * index], 16)
            lights = Lights(corner_patterns_to_squares(tuple(corners)), slot, now, self.brightness)
            return [self._reply("l"), *self._set_lights(lights)]
        if letter == "W":
            address, value = int(payload[:2], 16), int(payload[2:], 16)
            before = self.with_check
            self.memory[address] = value
            events: list[Event] = [Send(encode(f"w{address:02X}{value:02X}", before))]
            if address == ADDRESS_BRIGHTNESS and not self.lights.dark:
                events += self._set_lights(Lights(self.lights.patterns, self.lights.slot_s, self.lights.since,
                                                  self.brightness))
            if address in (ADDRESS_SCAN, ADDRESS_REPORTS, ADDRESS_REPORT_TIME):
                self._next_report = now
            if address == ADDRESS_REPORTS and self.report_mode != NO_REPORTS:
                events += self._report(now)       # where the board stands, to report changes from
            return events
        if letter == "R":
            address = int(payload, 16)
            return [self._reply(f"r{address:02X}{self.memory[address]:02X}")]
        # T: the board restarts: no reply, LEDs out, deaf and silent while it starts up.
        self._booting_until = now + RESET_S
        self._frame = ""
        self.reported = None
        return self._set_lights(Lights(since=now, brightness=self.brightness))

    def _set_lights(self, lights: Lights) -> list[Event]:
        if lights == self.lights or (lights.dark and self.lights.dark):
            return []
        self.lights = lights
        return [Light(lights)]

    def _report(self, now: float) -> list[Event]:
        text = status_text(self.pieces)
        self.reported = text
        mode = self.report_mode
        if mode == EVERY_SCAN:
            self._next_report = now + self.scan_s
        elif mode == TIMED:
            self._next_report = now + self.report_s
        return [self._reply("s" + text)]


__all__ = ["ChessLink", "Send", "Light", "AppSeen", "Event", "encode", "check", "odd_parity", "status_text",
           "led_corner", "NAME", "VERSION"]
