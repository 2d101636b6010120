"""Clients of the emulated boards, written from the published descriptions alone (not from the product's codecs).

* ChessLink (Millennium, ``magic-board.md``): 7-bit ASCII with odd parity in bit 7, every frame
  ending in two upper-case hex digits, the XOR of its characters; replies by their letter, of
  known lengths (v 7, s 67, l 3, x 3, w 7, r 7). The status is read from h1, as python-mchess
  reads a real board by default; the client checks that by the start position.
* DGT (``dgtbrd.h``): one-byte commands; messages with the top bit set in their id and a 14-bit
  length; the board dump a8 = 0 .. h1 = 63 with codes 1..6 for white P R N B K Q, 7..12 black.

Both read the port through the event loop (the bytes as they come, never a sleep), each wait
bounded.
"""
from __future__ import annotations

import asyncio
import os

import chess

CHESSLINK_REPLIES = {"v": 7, "s": 67, "l": 3, "x": 3, "w": 7, "r": 7}
DGT_PIECES = ".PRNBKQprnbkq"


class Port:
    """A serial port the app opens (the pseudo-terminal's device), read through the loop."""

    def __init__(self, path: str) -> None:
        self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        self.buffer = bytearray()
        self._more = asyncio.Event()
        asyncio.get_running_loop().add_reader(self.fd, self._readable)

    def _readable(self) -> None:
        try:
            data = os.read(self.fd, 4096)
        except BlockingIOError:
            return
        self.buffer += data
        self._more.set()

    def write(self, data: bytes) -> None:
        os.write(self.fd, data)

    async def take(self, count: int, timeout: float) -> bytes:
        async with asyncio.timeout(timeout):
            while len(self.buffer) < count:
                self._more.clear()
                await self._more.wait()
        out = bytes(self.buffer[:count])
        del self.buffer[:count]
        return out

    def close(self) -> None:
        asyncio.get_running_loop().remove_reader(self.fd)
        os.close(self.fd)


# -- ChessLink --------------------------------------------------------------------------------------

def odd(ch: str) -> int:
    code = ord(ch)
    return code | 0x80 if bin(code).count("1") % 2 == 0 else code


def with_check(text: str) -> str:
    x = 0
    for ch in text:
        x ^= ord(ch)
    return text + f"{x:02X}"


def status_placement(status: str) -> str:
    """The FEN placement of 64 status letters read from h1 (h1 g1 .. a1, h2 .. a8)."""
    board = chess.Board(None)
    for i, letter in enumerate(status):
        if letter != ".":
            board.set_piece_at(chess.square(7 - i % 8, i // 8), chess.Piece.from_symbol(letter))
    return board.board_fen()


def led_frame(squares: list[int], pattern: int = 0xFF, slot: int = 0x20) -> str:
    """An L command framing ``squares`` by their four corners: LED 1 at the h1 corner, up the
    h-file, as the open clients light a real board (the description's a8 corner, turned)."""
    leds = [[0] * 9 for _ in range(9)]
    for sq in squares:
        x, y = chess.square_file(sq), chess.square_rank(sq)
        for row in (7 - x, 8 - x):
            for col in (y, y + 1):
                leds[row][col] = pattern
    return "L" + f"{slot:02X}" + "".join(f"{leds[r][c]:02X}" for r in range(9) for c in range(9))


class ChessLinkClient:
    """An app speaking ChessLink on ``port``."""

    def __init__(self, port: Port) -> None:
        self.port = port
        self.statuses: list[str] = []    # every status read, as FEN placements

    def send(self, text: str) -> None:
        self.port.write(bytes(odd(c) for c in with_check(text)))

    async def frame(self, timeout: float = 5.0) -> str:
        """The next reply or report, its parity and check verified."""
        while True:
            first = (await self.port.take(1, timeout))[0]
            letter = chr(first & 0x7F)
            if letter in CHESSLINK_REPLIES:
                break
        rest = await self.port.take(CHESSLINK_REPLIES[letter] - 1, timeout)
        raw = bytes([first]) + rest
        assert all(bin(b).count("1") % 2 == 1 for b in raw), f"parity: {raw!r}"
        text = "".join(chr(b & 0x7F) for b in raw)
        assert with_check(text[:-2]) == text, f"check: {text!r}"
        if letter == "s":
            self.statuses.append(status_placement(text[1:65]))
        return text

    async def reply(self, letter: str, timeout: float = 5.0) -> str:
        """The next reply to a command (reports that come between are kept in ``statuses``)."""
        while True:
            text = await self.frame(timeout)
            if text[0] == letter:
                return text

    async def status_becomes(self, placement: str, timeout: float = 5.0) -> None:
        """Read reports until one shows ``placement``."""
        async with asyncio.timeout(timeout):
            while not self.statuses or self.statuses[-1] != placement:
                await self.frame(timeout)


# -- DGT ------------------------------------------------------------------------------------------

def dgt_placement(codes: bytes) -> str:
    board = chess.Board(None)
    for number, code in enumerate(codes):
        if code:
            board.set_piece_at(chess.square(number % 8, 7 - number // 8), chess.Piece.from_symbol(DGT_PIECES[code]))
    return board.board_fen()


def dgt_field(sq: int) -> int:
    return (7 - chess.square_rank(sq)) * 8 + chess.square_file(sq)


class DgtClient:
    """An app speaking DGT on ``port``: it keeps the board from dumps and field updates."""

    def __init__(self, port: Port) -> None:
        self.port = port
        self.codes = bytearray(64)
        self.updates = 0
        self.version: tuple[int, int] | None = None

    def send(self, *data: int) -> None:
        self.port.write(bytes(data))

    async def message(self, timeout: float = 5.0) -> tuple[int, bytes]:
        while True:
            first = (await self.port.take(1, timeout))[0]
            if first & 0x80:
                break
        high, low = await self.port.take(2, timeout)
        size = (high << 7) | low
        body = await self.port.take(size - 3, timeout)
        assert not any(b & 0x80 for b in body), f"a data byte with the top bit set: {body!r}"
        if first == 0x86:
            assert size == 67
            self.codes[:] = body
        elif first == 0x8E:
            assert size == 5
            self.codes[body[0]] = body[1]
            self.updates += 1
        elif first == 0x93:
            self.version = (body[0], body[1])
        return first, body

    @property
    def placement(self) -> str:
        return dgt_placement(bytes(self.codes))

    async def reply(self, message_id: int, timeout: float = 5.0) -> bytes:
        while True:
            got, body = await self.message(timeout)
            if got == message_id:
                return body

    async def board_becomes(self, placement: str, timeout: float = 5.0) -> None:
        async with asyncio.timeout(timeout):
            while self.placement != placement:
                await self.message(timeout)
