"""Frame codec of the Pi link, co-processor side (CircuitPython; mirrors board_driver/framing.py).

Frame: 0xA5 | LEN | TYPE | SEQ | PAYLOAD | CRC_HI | CRC_LO, CRC-16/CCITT-FALSE (poly 0x1021,
init 0xFFFF, no reflection, no final XOR) over LEN TYPE SEQ PAYLOAD. Payload integers are
little-endian. Plain Python that runs on CircuitPython: no dataclasses, enums or annotations,
no bytearray.find; the host tests check it against the host codec byte for byte.
"""

START = 0xA5
MAX_PAYLOAD = 255
PROTOCOL_VERSION = 2

READING = 0x01
LEDS = 0x02
HEARTBEAT = 0x03
HELLO = 0x04
VERSION = 0x05
READ = 0x06
LEDS_RGBW = 0x07  # first pixel, flags (SHOW_FLAG: show now), then R G B W per pixel
SHOW_FLAG = 0x01

HOST_TO_DEVICE = (LEDS, HELLO, READ, LEDS_RGBW)


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE; crc16(b"123456789") == 0x29B1."""
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            if crc & 0x8000:
                crc = ((crc << 1) ^ 0x1021) & 0xFFFF
            else:
                crc = (crc << 1) & 0xFFFF
    return crc


def valid_length(ftype, length):
    if ftype == READING:
        return length == 8 or length == 16
    if ftype == LEDS:
        return length % 3 == 0
    if ftype == HEARTBEAT:
        return length == 6
    if ftype == HELLO or ftype == READ:
        return length == 0
    if ftype == VERSION:
        return 2 <= length <= 64
    if ftype == LEDS_RGBW:
        return length >= 2 and (length - 2) % 4 == 0
    return False


def encode_frame(ftype, seq, payload=b""):
    length = len(payload)
    if length > MAX_PAYLOAD or not valid_length(ftype, length):
        raise ValueError("bad payload length for this frame type")
    body = bytes((length, ftype, seq & 0xFF)) + bytes(payload)
    crc = crc16(body)
    return bytes((START,)) + body + bytes((crc >> 8, crc & 0xFF))


def reading_payload(occupied, white=None, black=None):
    if white is None or black is None:
        return occupied.to_bytes(8, "little")
    return white.to_bytes(8, "little") + black.to_bytes(8, "little")


def heartbeat_payload(uptime_ms, scans_per_s):
    return (uptime_ms & 0xFFFFFFFF).to_bytes(4, "little") + min(scans_per_s, 0xFFFF).to_bytes(2, "little")


def version_payload(pixels, name):
    return bytes((PROTOCOL_VERSION, min(pixels, 255))) + name.encode()[:62]


class Decoder:
    """Bytes in, ``(type, seq, payload)`` tuples out; drops bad frames and resynchronises.

    On a bad header or CRC it drops only the start byte and looks for the next 0xA5, so a
    real frame hidden in garbage is still found.
    """

    def __init__(self, accept=HOST_TO_DEVICE):
        self.accept = accept
        self.buf = b""
        self.frames = 0
        self.bad_crc = 0
        self.bad_header = 0
        self.skipped = 0

    def feed(self, data):
        buf = self.buf + bytes(data)
        frames = []
        while buf:
            start = 0
            n = len(buf)
            while start < n and buf[start] != START:
                start += 1
            if start:
                self.skipped += start
                buf = buf[start:]
                if not buf:
                    break
            if len(buf) < 4:
                break
            length, ftype, seq = buf[1], buf[2], buf[3]
            if ftype not in self.accept or not valid_length(ftype, length):
                self.bad_header += 1
                self.skipped += 1
                buf = buf[1:]
                continue
            end = 4 + length
            if len(buf) < end + 2:
                break
            if crc16(buf[1:end]) != (buf[end] << 8 | buf[end + 1]):
                self.bad_crc += 1
                self.skipped += 1
                buf = buf[1:]
                continue
            frames.append((ftype, seq, buf[4:end]))
            self.frames += 1
            buf = buf[end + 2:]
        self.buf = buf
        return frames
