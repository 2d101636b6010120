"""The co-processor link's frame codec: pure bytes in, frames out (no I/O, no threads).

A frame on the wire::

    0xA5 | LEN | TYPE | SEQ | PAYLOAD (LEN bytes) | CRC_HI | CRC_LO

* ``0xA5`` starts a frame. It is not escaped: a receiver that meets a bad frame drops that one
  start byte and looks for the next 0xA5, so it resynchronises after garbage or a cut frame.
* ``LEN`` is the payload length, 0..255. ``TYPE`` is a :class:`FrameType`. ``SEQ`` counts the
  sender's frames modulo 256 (each direction has its own count), so a receiver sees gaps.
* ``CRC`` is CRC-16/CCITT-FALSE (polynomial 0x1021, initial value 0xFFFF, no reflection, no
  final XOR; ``crc16(b"123456789") == 0x29B1``) over ``LEN TYPE SEQ PAYLOAD``, most
  significant byte first.
* A receiver checks ``LEN`` against the lengths allowed for ``TYPE`` before waiting for the
  payload, and ignores types it does not expect, so a corrupted header cannot stall the link.

Payloads (integers little-endian):

=============  =========  =====================================================================
type           direction  payload
=============  =========  =====================================================================
READING 0x01   device→    occupied u64 (8 bytes), or white u64 + black u64 (16 bytes)
LEDS 0x02      →device    R G B per pixel in strip order, up to 85 pixels
HEARTBEAT 0x03 device→    uptime ms u32, scans per second u16
HELLO 0x04     →device    empty: "who are you?"; the device answers VERSION
VERSION 0x05   device→    protocol u8, pixel count u8, firmware name (ASCII, up to 62 bytes)
READ 0x06      →device    empty: "send the reading now"; the device answers READING
LEDS_RGBW 0x07 →device    first pixel u8, flags u8 (bit 0: show now), then R G B W per pixel, up
                          to 63 pixels: an RGBW chain's frame goes in two, shown with the last
=============  =========  =====================================================================

The co-processor's copy of this codec is coprocessor/cp_protocol.py; the tests check
that both produce and accept the same bytes.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum

START = 0xA5
HEADER_SIZE = 4
CRC_SIZE = 2
MAX_PAYLOAD = 255
MAX_LED_PIXELS = MAX_PAYLOAD // 3
MAX_RGBW_PIXELS_PER_FRAME = (MAX_PAYLOAD - 2) // 4
SHOW_FLAG = 0x01
PROTOCOL_VERSION = 2
"""2: LEDS_RGBW added (a device of protocol 1 ignores it as an unknown type)."""


class FrameType(IntEnum):
    READING = 0x01
    LEDS = 0x02
    HEARTBEAT = 0x03
    HELLO = 0x04
    VERSION = 0x05
    READ = 0x06
    LEDS_RGBW = 0x07


DEVICE_TO_HOST = frozenset({FrameType.READING, FrameType.HEARTBEAT, FrameType.VERSION})
HOST_TO_DEVICE = frozenset({FrameType.LEDS, FrameType.HELLO, FrameType.READ, FrameType.LEDS_RGBW})


def _valid_length(ftype: int, length: int) -> bool:
    if ftype == FrameType.READING:
        return length in (8, 16)
    if ftype == FrameType.LEDS:
        return length % 3 == 0
    if ftype == FrameType.HEARTBEAT:
        return length == 6
    if ftype in (FrameType.HELLO, FrameType.READ):
        return length == 0
    if ftype == FrameType.VERSION:
        return 2 <= length <= 64
    if ftype == FrameType.LEDS_RGBW:
        return length >= 2 and (length - 2) % 4 == 0
    return False


class FrameError(ValueError):
    """A payload that does not decode (wrong length, contradictory contents)."""


def _make_table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
        table.append(crc & 0xFFFF)
    return table


_CRC_TABLE = _make_table()


def crc16(data: bytes | bytearray | memoryview, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE of ``data``.

    >>> hex(crc16(b"123456789"))
    '0x29b1'
    """
    table = _CRC_TABLE
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[(crc >> 8) ^ byte]
    return crc


@dataclass(frozen=True, slots=True)
class Frame:
    type: int
    seq: int
    payload: bytes = b""


def encode_frame(ftype: int, seq: int, payload: bytes = b"") -> bytes:
    """The bytes of one frame."""
    if len(payload) > MAX_PAYLOAD:
        raise FrameError(f"payload of {len(payload)} bytes exceeds {MAX_PAYLOAD}")
    if not _valid_length(ftype, len(payload)):
        raise FrameError(f"a payload of {len(payload)} bytes is not valid for frame type {ftype:#04x}")
    body = bytes((len(payload), ftype, seq & 0xFF)) + bytes(payload)
    crc = crc16(body)
    return bytes((START,)) + body + bytes((crc >> 8, crc & 0xFF))


@dataclass(slots=True)
class DecoderStats:
    frames: int = 0
    """Frames accepted."""
    bad_crc: int = 0
    """Candidate frames dropped because the CRC did not match."""
    bad_header: int = 0
    """Start bytes dropped because type or length was impossible."""
    skipped_bytes: int = 0
    """Bytes discarded while looking for a start byte (garbage, or parts of bad frames)."""


class FrameDecoder:
    """Turns a byte stream into frames, resynchronising after garbage, cuts and bad CRCs.

    ``accept`` is the set of frame types this end expects (others are treated as garbage).
    """

    def __init__(self, accept: Iterable[int] = DEVICE_TO_HOST):
        self.accept = frozenset(int(t) for t in accept)
        self.stats = DecoderStats()
        self._buf = bytearray()

    @property
    def pending(self) -> int:
        """Bytes held while waiting for the rest of a frame."""
        return len(self._buf)

    def reset(self) -> None:
        """Forget any partial frame (after a reconnect, no frame spans two connections)."""
        self.stats.skipped_bytes += len(self._buf)
        self._buf.clear()

    def feed(self, data: bytes | bytearray) -> list[Frame]:
        """Add received bytes; return the frames completed by them."""
        buf = self._buf
        buf += data
        frames: list[Frame] = []
        stats = self.stats
        while buf:
            start = buf.find(START)
            if start < 0:
                stats.skipped_bytes += len(buf)
                buf.clear()
                break
            if start:
                stats.skipped_bytes += start
                del buf[:start]
            if len(buf) < HEADER_SIZE:
                break
            length, ftype, seq = buf[1], buf[2], buf[3]
            if ftype not in self.accept or not _valid_length(ftype, length):
                stats.bad_header += 1
                stats.skipped_bytes += 1
                del buf[:1]
                continue
            end = HEADER_SIZE + length
            if len(buf) < end + CRC_SIZE:
                break
            if crc16(memoryview(buf)[1:end]) != (buf[end] << 8 | buf[end + 1]):
                stats.bad_crc += 1
                stats.skipped_bytes += 1
                del buf[:1]
                continue
            frames.append(Frame(ftype, seq, bytes(buf[HEADER_SIZE:end])))
            stats.frames += 1
            del buf[: end + CRC_SIZE]
        return frames


# -- payloads ---------------------------------------------------------------------------------
def encode_reading(occupied: int, white: int | None = None, black: int | None = None) -> bytes:
    if white is None and black is None:
        return occupied.to_bytes(8, "little")
    if white is None or black is None or white | black != occupied:
        raise FrameError("a colour reading needs white and black with white | black == occupied")
    return white.to_bytes(8, "little") + black.to_bytes(8, "little")


def decode_reading(payload: bytes) -> tuple[int, int | None, int | None]:
    """``(occupied, white, black)``; white and black are None for a plain reading."""
    if len(payload) == 8:
        return int.from_bytes(payload, "little"), None, None
    if len(payload) == 16:
        white = int.from_bytes(payload[:8], "little")
        black = int.from_bytes(payload[8:], "little")
        if white & black:
            raise FrameError("a square reads both white and black")
        return white | black, white, black
    raise FrameError(f"a reading has 8 or 16 bytes, not {len(payload)}")


def encode_heartbeat(uptime_ms: int, scans_per_s: int) -> bytes:
    return (uptime_ms & 0xFFFFFFFF).to_bytes(4, "little") + min(scans_per_s, 0xFFFF).to_bytes(2, "little")


def decode_heartbeat(payload: bytes) -> tuple[int, int]:
    """``(uptime_ms, scans_per_s)``."""
    if len(payload) != 6:
        raise FrameError(f"a heartbeat has 6 bytes, not {len(payload)}")
    return int.from_bytes(payload[:4], "little"), int.from_bytes(payload[4:], "little")


def encode_version(protocol: int, pixels: int, name: str) -> bytes:
    return bytes((protocol & 0xFF, min(pixels, 255))) + name.encode("ascii", "replace")[:62]


def decode_version(payload: bytes) -> tuple[int, int, str]:
    """``(protocol, pixel count, firmware name)``."""
    if len(payload) < 2:
        raise FrameError("a version frame has at least 2 bytes")
    return payload[0], payload[1], payload[2:].decode("ascii", "replace")


def encode_leds(pixels: Sequence[Sequence[int]]) -> bytes:
    """RGB pixels (strip order) as a LEDS payload."""
    if len(pixels) > MAX_LED_PIXELS:
        raise FrameError(f"a LEDS frame carries at most {MAX_LED_PIXELS} pixels, not {len(pixels)}")
    return bytes(v for pixel in pixels for v in pixel[:3])


def encode_leds_rgbw(pixels: Sequence[Sequence[int]]) -> list[bytes]:
    """RGBW pixels (strip order) as LEDS_RGBW payloads, the last one flagged to show."""
    chunks = [list(pixels[i : i + MAX_RGBW_PIXELS_PER_FRAME])
              for i in range(0, len(pixels), MAX_RGBW_PIXELS_PER_FRAME)] or [[]]
    if len(pixels) > 255:
        raise FrameError(f"LEDS_RGBW addresses at most 255 pixels, not {len(pixels)}")
    payloads = []
    for n, chunk in enumerate(chunks):
        flags = SHOW_FLAG if n == len(chunks) - 1 else 0
        payloads.append(bytes((n * MAX_RGBW_PIXELS_PER_FRAME, flags)) + bytes(v for p in chunk for v in p[:4]))
    return payloads


def decode_leds(payload: bytes) -> list[tuple[int, int, int]]:
    if len(payload) % 3:
        raise FrameError("a LEDS payload is a multiple of 3 bytes")
    return [(payload[i], payload[i + 1], payload[i + 2]) for i in range(0, len(payload), 3)]
