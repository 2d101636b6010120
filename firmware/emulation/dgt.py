"""DGT e-board serial, the board's side: one-byte commands in, board dumps, field updates and lights out (pure).

This is an open-source, non-commercial implementation written from the published description
(DGT's ``dgtbrd.h``, as carried in PicoChess's ``test/dgtbrd-ruud.h``), whose header says the
protocol may not be used commercially without DGT's written permission.

The line: 9600 baud, 8 data bits, no parity, 1 stop bit. Commands are one byte, two of them
followed by a size byte and that many more; every message to the app starts with its id (top
bit set) and its total length in two 7-bit bytes, high first.

=========================  =========================================================
command                    answer
=========================  =========================================================
0x40 reset                 none: IDLE mode, no more field updates
0x41 clock                 0x8D BWTIME, 10 bytes, all zero: no clock (apps ignore it)
0x42 board dump            0x86 0x00 0x43 + 64 piece codes, a8 = 0, b8 .. h1 = 63
0x43 / 0x44 / 0x4B         UPDATE / UPDATE_BOARD / UPDATE_NICE mode: a 0x8E field update
                           (0x00 0x05, square, piece code) for every square that changes
0x45 serial number         0x91 0x00 0x08 + 5 ASCII digits
0x46 bus address           0x90 0x00 0x05 + the serial number's value in 14 bits, high 7 first
0x47 trademark             0x92 + ASCII lines naming this board (see below), no DGT mark
0x49 stored moves          0x8F 0x00 0x04 0x6B: the storage holds nothing, EE_EOF alone
0x4C battery               0xA0 0x00 0x0C + 100 (percent), 0x7F 0x7F (time left: not known),
                           5 zeros (on and standby times), status 0 (neither charging nor
                           discharging: the board runs on mains)
0x4D version               0x93 0x00 0x05 + major, minor
0x55 long serial number    0xA2 0x00 0x0D + 10 ASCII digits
0x60 size ... (Rev. II)    LEDs: size 4, pattern (0 off, 1 on), start field, end field, 0x00
0x2B size ... (clock)      none: no clock is attached
=========================  =========================================================

Piece codes: 0 empty; white pawn, rook, knight, bishop, king, queen 1..6; black 7..12.

Choices: the trademark message has the shape of a DGT board's identification ("... Vs 1.07.
Serial nr. 00001 1.0") but names Échiquier: the description forbids carrying DGT's registered
marks over the protocol, and this board is not DGT's. The battery message follows the
description's byte list (twelve bytes, as the Pegasus sends; the description's size constant,
7, contradicts its own list). Nothing is stored on the board: the moves are in the game library.
A field update reports the squares emptied before those filled (a hand lifts before it
puts down). The Revelation II's LED command lights its start and end fields (a move; one square
when they are the same) beside those already lit, as PicoChess lights a move or a square;
pattern 0 puts every LED out, as both open clients' "clear" commands expect (fields 0..63, or
64 and 64). An unknown byte is ignored; a size byte bounds what a long command can hold.
"""
from __future__ import annotations

from chess_core.squares import BB_SQUARES

from firmware.emulation.board import EMPTY_BOARD, AppSeen, Event, Light, Lights, Pieces, Send

NAME = "DGT"
VERSION = (1, 7)
CODES = {".": 0, "P": 1, "R": 2, "N": 3, "B": 4, "K": 5, "Q": 6, "p": 7, "r": 8, "n": 9, "b": 10, "k": 11, "q": 12}

RESET, CLOCK, DUMP, UPDATE, UPDATE_BOARD, SERIAL, UPDATE_NICE, VERSION_CMD, LONG_SERIAL = (
    0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x4B, 0x4D, 0x55)
BUS_ADDRESS, TRADEMARK, STORED_MOVES, BATTERY_STATUS = 0x46, 0x47, 0x49, 0x4C
SET_LEDS, CLOCK_MESSAGE = 0x60, 0x2B
SIZED = (SET_LEDS, CLOCK_MESSAGE)    # followed by a size byte and that many bytes
SIMPLE = (RESET, CLOCK, DUMP, UPDATE, UPDATE_BOARD, SERIAL, UPDATE_NICE, VERSION_CMD, LONG_SERIAL,
          BUS_ADDRESS, TRADEMARK, STORED_MOVES, BATTERY_STATUS)

MSG_BOARD_DUMP, MSG_BWTIME, MSG_FIELD_UPDATE, MSG_SERIALNR, MSG_VERSION, MSG_LONG_SERIALNR = (
    0x86, 0x8D, 0x8E, 0x91, 0x93, 0xA2)
MSG_EE_MOVES, MSG_BUSADRES, MSG_TRADEMARK, MSG_BATTERY_STATUS = 0x8F, 0x90, 0x92, 0xA0
EE_EOF = 0x6B                        # the end of the stored moves' stream
NOT_KNOWN = 0x7F                     # the battery message's "N/A"


def message(message_id: int, body: bytes) -> bytes:
    """A message to the app: its id, its total length (14 bits, two 7-bit bytes) and ``body``.

    >>> message(0x93, bytes([1, 7])).hex(" ")
    '93 00 05 01 07'
    """
    size = 3 + len(body)
    return bytes([message_id, (size >> 7) & 0x7F, size & 0x7F]) + body


def field(square: int) -> int:
    """DGT's field number of ``square`` (a1 = 0): a8 = 0, b8 = 1 .. h1 = 63.

    >>> field(0), field(56), field(7)
    (56, 0, 63)
    """
    return (7 - square // 8) * 8 + square % 8


def square_of(number: int) -> int:
    """The square (a1 = 0) of DGT's field ``number``; it is its own inverse."""
    return field(number)


def dump(pieces: Pieces, codes: dict[str, int] = CODES) -> bytes:
    """The board dump message of ``pieces``, each square's piece as ``codes`` names it."""
    return message(MSG_BOARD_DUMP, bytes(codes[pieces.at(square_of(n))] for n in range(64)))


class Dgt:
    """One link's DGT board; see the module docstring.

    ``receive(data, now)``: bytes from the app; ``board(pieces, now)``: a settled reading's
    pieces. Each returns the frozen events that follow. Nothing happens with time alone.
    A board that speaks DGT's framing with other commands or codes (the Pegasus) sets the
    class's ``codes``, ``simple`` and ``sized`` and extends ``_command`` and ``_sized``.
    """

    codes: dict[str, int] = CODES
    simple: tuple[int, ...] = SIMPLE
    sized: tuple[int, ...] = SIZED

    def __init__(self, now: float = 0.0, *, version: tuple[int, int] = VERSION, serial: str = "00001",
                 long_serial: str = "0000000001") -> None:
        if not (len(serial) == 5 and serial.isdigit() and len(long_serial) == 10 and long_serial.isdigit()):
            raise ValueError("a DGT serial number is 5 digits, its long form 10")
        self.version = version
        self.serial = serial
        self.long_serial = long_serial
        self.pieces = EMPTY_BOARD
        self.updating = False
        self.lights = Lights()
        self.seen = False
        self._pending = bytearray()    # a sized command being read: its first byte, size, data

    def receive(self, data: bytes, now: float) -> list[Event]:
        """The app's bytes: every complete command is carried out, in order."""
        events: list[Event] = []
        for byte in data:
            pending = self._pending
            if pending:
                pending.append(byte)
                if len(pending) >= 2 and len(pending) == 2 + pending[1]:
                    self._pending = bytearray()
                    self._sized(bytes(pending), events, now)
                continue
            if byte in self.sized:
                self._pending = bytearray([byte])
                continue
            if byte in self.simple:
                self._seen(byte, events)
                events.extend(self._command(byte))
        return events

    def board(self, pieces: Pieces, now: float) -> list[Event]:
        """A settled reading's pieces: in an update mode, a field update for every square changed."""
        before, self.pieces = self.pieces, pieces
        if not self.updating:
            return []
        emptied = [s for s in range(64) if before.at(s) != pieces.at(s) and pieces.at(s) == "."]
        filled = [s for s in range(64) if before.at(s) != pieces.at(s) and pieces.at(s) != "."]
        return [Send(message(MSG_FIELD_UPDATE, bytes([field(s), self.codes[pieces.at(s)]]))) for s in emptied + filled]

    def poll(self, now: float) -> list[Event]:
        return []

    def next_deadline(self) -> float | None:
        return None

    def trademark(self) -> str:
        """The text of the trademark message: this board, in the shape of a DGT board's."""
        major, minor = self.version
        return (f"Echiquier - an open-source board answering in DGT's published protocol; not a DGT product.\n"
                f"Vs {major}.{minor:02d}. Serial nr. {self.serial} 1.0")

    # -- commands ------------------------------------------------------------------------------

    def _seen(self, byte: int, events: list[Event]) -> None:
        if not self.seen:
            self.seen = True
            events.append(AppSeen(f"0x{byte:02x}"))

    def _command(self, byte: int) -> list[Event]:
        if byte == DUMP:
            return [Send(dump(self.pieces, self.codes))]
        if byte in (UPDATE, UPDATE_BOARD, UPDATE_NICE):
            self.updating = True
            return []
        if byte == RESET:
            self.updating = False
            return []
        if byte == SERIAL:
            return [Send(message(MSG_SERIALNR, self.serial.encode("ascii")))]
        if byte == LONG_SERIAL:
            return [Send(message(MSG_LONG_SERIALNR, self.long_serial.encode("ascii")))]
        if byte == VERSION_CMD:
            return [Send(message(MSG_VERSION, bytes(self.version)))]
        if byte == BUS_ADDRESS:
            address = int(self.serial) & 0x3FFF
            return [Send(message(MSG_BUSADRES, bytes([address >> 7, address & 0x7F])))]
        if byte == TRADEMARK:
            return [Send(message(MSG_TRADEMARK, self.trademark().encode("ascii")))]
        if byte == STORED_MOVES:
            return [Send(message(MSG_EE_MOVES, bytes([EE_EOF])))]
        if byte == BATTERY_STATUS:
            return [Send(message(MSG_BATTERY_STATUS, bytes([100, NOT_KNOWN, NOT_KNOWN, 0, 0, 0, 0, 0, 0])))]
        return [Send(message(MSG_BWTIME, bytes(7)))]          # CLOCK: no clock attached

    def _sized(self, command: bytes, events: list[Event], now: float) -> None:
        self._seen(command[0], events)
        if command[0] != SET_LEDS or len(command) < 5:
            return                                           # a clock message: no clock here
        pattern, start, end = command[2], command[3], command[4]
        if pattern == 0:
            lit = 0
        else:
            lit = self.lights.lit(now)
            for number in (start, end):
                if 0 <= number < 64:
                    lit |= BB_SQUARES[square_of(number)]
        lights = Lights.steady(lit)
        if lights.patterns != self.lights.patterns:
            self.lights = lights
            events.append(Light(lights))


__all__ = ["Dgt", "dump", "message", "field", "square_of", "CODES", "NAME", "VERSION"]
