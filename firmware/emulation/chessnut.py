"""Chessnut Air, the board's side: the app's commands in, positions with piece identities and the app's lights out (pure).

Written from the maker's published API for developers (chessnutech's chess_move_api) and checked
against PicoChess's Chessnut client (``eboard/chessnut/command.py``, ``parser.py``), which reads a
real board. Over Bluetooth LE only: the app writes its commands to the operation service's
characteristic (``1b7e8272-...``) and reads the position on the FEN service's notifications
(``1b7e8262-...``).

=====================  ============================================================================
command                answer
=====================  ============================================================================
``21 01 00``           real-time mode: the position at once, then after every change (nothing is
                       sent before it)
``0A 08`` + 8 bytes    the LEDs: a bitmap, byte 0 the eighth rank, its bit 7 the a-file; the
                       lights shown are exactly those lit
=====================  ============================================================================

The position: ``01 24`` + 32 bytes, 4 bits a square from h8 (byte 0: h8 in the low nibble, g8 in
the high; byte 31: b1 low, a1 high), then 4 bytes the app ignores (zero here). Piece codes: 0
empty, q 1, k 2, b 3, p 4, n 5, R 6, P 7, r 8, B 9, N 10, Q 11, K 12.

Any other byte is skipped; a LED command is read whole however the writes cut it.
"""
from __future__ import annotations

from chess_core.squares import BB_SQUARES

from firmware.emulation.board import EMPTY_BOARD, AppSeen, Event, Light, Lights, Pieces, Send

NAME = "Chessnut"
CODES = {".": 0, "q": 1, "k": 2, "b": 3, "p": 4, "n": 5, "R": 6, "P": 7, "r": 8, "B": 9, "N": 10, "Q": 11,
         "K": 12}
REALTIME = bytes([0x21, 0x01, 0x00])
LEDS = bytes([0x0A, 0x08])
POSITION = bytes([0x01, 0x24])


def position(pieces: Pieces) -> bytes:
    """The position message of ``pieces``.

    >>> position(Pieces("K" + "." * 62 + "k")).hex(" ")[:8]
    '01 24 02'
    """
    body = bytearray(32)
    for n in range(64):                      # n-th square from h8: h8, g8, .. a8, h7 .. a1
        code = CODES[pieces.at(63 - n)]
        body[n // 2] |= code << (4 if n % 2 else 0)
    return POSITION + bytes(body) + bytes(4)


def lit_squares(bitmap: bytes) -> int:
    """The squares (a bitboard, a1 = 0) the 8 bytes of a LED command light."""
    lit = 0
    for row, byte in enumerate(bitmap):      # row 0: the eighth rank
        for file in range(8):
            if byte & (0x80 >> file):
                lit |= BB_SQUARES[(7 - row) * 8 + file]
    return lit


class Chessnut:
    """One link's Chessnut Air; see the module docstring."""

    def __init__(self, now: float = 0.0) -> None:
        self.pieces = EMPTY_BOARD
        self.realtime = False
        self.lights = Lights()
        self.seen = False
        self._buffer = bytearray()      # a command being read (at most 10 bytes)

    def receive(self, data: bytes, now: float) -> list[Event]:
        events: list[Event] = []
        buffer = self._buffer
        for byte in data:
            buffer.append(byte)
            if not (LEDS.startswith(bytes(buffer[:2])) or REALTIME.startswith(bytes(buffer[:3]))):
                del buffer[0]                 # not the start of a command: skipped
                while buffer and buffer[0] not in (LEDS[0], REALTIME[0]):
                    del buffer[0]
                continue
            if bytes(buffer) == REALTIME:
                buffer.clear()
                self._seen(events, "realtime")
                self.realtime = True
                events.append(Send(position(self.pieces)))
            elif len(buffer) == len(LEDS) + 8 and buffer[:2] == LEDS:
                bitmap = bytes(buffer[2:])
                buffer.clear()
                self._seen(events, "leds")
                lights = Lights.steady(lit_squares(bitmap))
                if lights.patterns != self.lights.patterns:
                    self.lights = lights
                    events.append(Light(lights))
        return events

    def board(self, pieces: Pieces, now: float) -> list[Event]:
        changed, self.pieces = pieces != self.pieces, pieces
        if not self.realtime or not changed:
            return []
        return [Send(position(pieces))]

    def poll(self, now: float) -> list[Event]:
        return []

    def next_deadline(self) -> float | None:
        return None

    def _seen(self, events: list[Event], command: str) -> None:
        if not self.seen:
            self.seen = True
            events.append(AppSeen(command))


__all__ = ["Chessnut", "position", "lit_squares", "CODES", "NAME"]
