"""WebSocket (RFC 6455) for the page: the handshake's answer, frames read and written, bounded.

The server side of RFC 6455 with no extensions and no subprotocol, as the page needs it:

* :func:`accept_key` answers a client's ``Sec-WebSocket-Key`` (section 4.2.2);
* :func:`encode_frame` and :func:`read_frame` write and read one frame (section 5.2). A frame
  from the client must be masked, use no reserved bit or opcode, and a control frame must be
  whole and at most 125 bytes; otherwise :class:`ProtocolError` carries the close code to send
  (1002, or 1009 for a message larger than the limit, 1007 for text that is not UTF-8, 1008 for
  a message in more than ``MAX_FRAGMENTS`` frames);
* :class:`WebSocket` is one open connection: ``send_str``, ``async for text in ws`` (pings are
  answered, fragmented messages joined, binary messages dropped), ``close``. A heartbeat pings
  the client every ``heartbeat`` seconds and drops a client that has not answered the previous
  ping with its pong (its data, so a client that writes but never reads is dropped too): a
  vanished phone does not hold the connection for ever. At most ``MAX_BUFFER`` bytes wait for a
  slow client, and each frame read yields to the loop (the board shares it).
"""
from __future__ import annotations

import asyncio
import base64
import hashlib
import logging
import os
import struct
from collections.abc import AsyncIterator, Awaitable, Callable

log = logging.getLogger(__name__)

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
OP_CONTINUATION, OP_TEXT, OP_BINARY = 0x0, 0x1, 0x2
OP_CLOSE, OP_PING, OP_PONG = 0x8, 0x9, 0xA
DATA_OPCODES = {OP_CONTINUATION, OP_TEXT, OP_BINARY}
CONTROL_OPCODES = {OP_CLOSE, OP_PING, OP_PONG}

NORMAL, GOING_AWAY, PROTOCOL_ERROR, BAD_DATA, POLICY, TOO_BIG = 1000, 1001, 1002, 1007, 1008, 1009
# Close codes a peer may send (section 7.4): 1004-1006 and 1015 are reserved, 1012-1014 registered since.
VALID_CLOSE_CODES = {1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014}
CLOSE_WAIT_S = 1.0   # how long a close waits for the client's close frame before hanging up
MAX_FRAGMENTS = 128  # frames in one message (10.4: bound what is buffered; a browser sends one)
MAX_BUFFER = 16 * 1024   # what waits for a slow client (asyncio's 64 kB default, times 256 sockets, is too much)


class ProtocolError(Exception):
    """The client broke the protocol: close the connection with ``code``."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


def accept_key(key: str) -> str:
    """``Sec-WebSocket-Accept`` for a client's ``Sec-WebSocket-Key`` (RFC 6455, 4.2.2)."""
    return base64.b64encode(hashlib.sha1(key.encode("ascii") + GUID).digest()).decode("ascii")


def valid_key(key: str | None) -> bool:
    """Whether ``key`` is a base64 nonce of 16 bytes, as section 4.1 requires."""
    if not key or len(key) != 24:
        return False
    try:
        return len(base64.b64decode(key, validate=True)) == 16
    except ValueError:
        return False


def _mask(payload: bytes, key: bytes) -> bytes:
    if not payload:
        return payload
    n = len(payload)
    repeated = (key * (n // 4 + 1))[:n]
    return (int.from_bytes(payload, "big") ^ int.from_bytes(repeated, "big")).to_bytes(n, "big")


def encode_frame(opcode: int, payload: bytes = b"", *, fin: bool = True, mask: bytes | None = None) -> bytes:
    """One frame; ``mask`` (4 bytes) masks it as a client must, the server sends unmasked ones."""
    first = (0x80 if fin else 0) | opcode
    mask_bit = 0x80 if mask is not None else 0
    n = len(payload)
    if n < 126:
        head = struct.pack("!BB", first, mask_bit | n)
    elif n < 1 << 16:
        head = struct.pack("!BBH", first, mask_bit | 126, n)
    else:
        head = struct.pack("!BBQ", first, mask_bit | 127, n)
    if mask is None:
        return head + payload
    return head + mask + _mask(payload, mask)


async def read_frame(reader: asyncio.StreamReader, max_size: int) -> tuple[bool, int, bytes]:
    """(fin, opcode, unmasked payload) of the client's next frame; ProtocolError if it breaks the
    rules, asyncio.IncompleteReadError if the connection ends."""
    first, second = await reader.readexactly(2)
    fin, opcode = bool(first & 0x80), first & 0x0F
    if first & 0x70:
        raise ProtocolError(PROTOCOL_ERROR, "a reserved bit is set (no extension was agreed)")
    if opcode not in DATA_OPCODES and opcode not in CONTROL_OPCODES:
        raise ProtocolError(PROTOCOL_ERROR, f"unknown opcode {opcode:#x}")
    if not second & 0x80:
        raise ProtocolError(PROTOCOL_ERROR, "a client's frame must be masked")
    length = second & 0x7F
    if opcode in CONTROL_OPCODES and (length > 125 or not fin):
        raise ProtocolError(PROTOCOL_ERROR, "a control frame must be whole and at most 125 bytes")
    if length == 126:
        (length,) = struct.unpack("!H", await reader.readexactly(2))
    elif length == 127:
        (length,) = struct.unpack("!Q", await reader.readexactly(8))
        if length >> 63:
            raise ProtocolError(PROTOCOL_ERROR, "the frame's length has its top bit set")
    if length > max_size:
        raise ProtocolError(TOO_BIG, f"a frame of {length} bytes (at most {max_size})")
    key = await reader.readexactly(4)
    return fin, opcode, _mask(await reader.readexactly(length), key)


def _close_payload(code: int, reason: str = "") -> bytes:
    text = reason.encode("utf-8")[:123].decode("utf-8", errors="ignore")   # whole characters only (5.5.1)
    return struct.pack("!H", code) + text.encode("utf-8")


def _peer_close_code(payload: bytes) -> int:
    """The code to answer a client's close frame with (section 5.5.1, 7.4)."""
    if not payload:
        return NORMAL
    if len(payload) == 1:
        return PROTOCOL_ERROR
    code: int
    (code,) = struct.unpack("!H", payload[:2])
    if code not in VALID_CLOSE_CODES and not 3000 <= code <= 4999:
        return PROTOCOL_ERROR
    try:
        payload[2:].decode("utf-8")
    except UnicodeDecodeError:
        return PROTOCOL_ERROR
    return code


class WebSocket:
    """One open WebSocket, once the 101 answer is sent; see the module docstring."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *, max_msg_size: int = 4096,
                 heartbeat: float | None = 30.0, sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self.reader = reader
        self.writer = writer
        self.max_msg_size = max_msg_size
        self.heartbeat = heartbeat
        self.closed = False           # no more sending: a close frame went out or the connection ended
        self.close_code: int | None = None
        self._awaited: bytes | None = None   # the data of the ping whose pong has not come
        self._sleep = sleep
        self._pinger: asyncio.Task[None] | None = None
        self._peer_closed = asyncio.Event()
        if hasattr(writer.transport, "set_write_buffer_limits"):
            writer.transport.set_write_buffer_limits(high=MAX_BUFFER)   # send_str waits beyond it
        if heartbeat:
            self._pinger = asyncio.get_running_loop().create_task(self._ping_loop(), name="websocket-heartbeat")

    async def _write(self, frame: bytes) -> None:
        if self.writer.is_closing():
            raise ConnectionResetError("the connection is closed")
        self.writer.write(frame)
        await self.writer.drain()

    async def send_str(self, text: str) -> None:
        """Send one text message; ConnectionError once the connection is closing."""
        if self.closed:
            raise ConnectionResetError("the websocket is closed")
        await self._write(encode_frame(OP_TEXT, text.encode("utf-8")))

    async def close(self, code: int = NORMAL, reason: str = "") -> None:
        """Send a close frame (once), wait briefly for the client's, and hang up."""
        if not self.closed:
            self.closed = True
            self.close_code = code
            try:
                async with asyncio.timeout(CLOSE_WAIT_S):
                    await self._write(encode_frame(OP_CLOSE, _close_payload(code, reason)))
                async with asyncio.timeout(CLOSE_WAIT_S):
                    await self._peer_closed.wait()
            except (ConnectionError, asyncio.TimeoutError):
                pass
        self._hang_up()

    def _hang_up(self) -> None:
        self.closed = True
        if self._pinger is not None and self._pinger is not asyncio.current_task():
            self._pinger.cancel()
        self.writer.close()

    def __aiter__(self) -> AsyncIterator[str]:
        return self._messages()

    async def _messages(self) -> AsyncIterator[str]:
        """The client's text messages until the connection closes."""
        parts: list[bytes] = []
        size = 0                  # of the parts
        kind: int | None = None   # the opcode of the fragmented message being joined
        try:
            while True:
                try:
                    fin, opcode, payload = await read_frame(self.reader, self.max_msg_size)
                except (asyncio.IncompleteReadError, ConnectionError):
                    return
                await asyncio.sleep(0)   # the board shares the loop: a buffer of tiny frames must not hold it
                if opcode == OP_PING:   # answered even after our close (5.5.2: only a received one ends it)
                    if not self.writer.is_closing():
                        await self._write(encode_frame(OP_PONG, payload))
                    continue
                if opcode == OP_PONG:
                    if payload == self._awaited:
                        self._awaited = None
                    continue
                if opcode == OP_CLOSE:
                    self._peer_closed.set()
                    if not self.closed:
                        self.closed = True
                        self.close_code = _peer_close_code(payload)
                        await self._write(encode_frame(OP_CLOSE, _close_payload(self.close_code)))
                    return
                if opcode == OP_CONTINUATION:
                    if kind is None:
                        raise ProtocolError(PROTOCOL_ERROR, "a continuation frame with no message to continue")
                elif kind is not None:
                    raise ProtocolError(PROTOCOL_ERROR, "a new message before the last one ended")
                else:
                    kind = opcode
                parts.append(payload)
                size += len(payload)
                if size > self.max_msg_size:
                    raise ProtocolError(TOO_BIG, f"a message of more than {self.max_msg_size} bytes")
                if len(parts) > MAX_FRAGMENTS:
                    raise ProtocolError(POLICY, f"a message in more than {MAX_FRAGMENTS} frames")
                if not fin:
                    continue
                data, parts, size, done_kind, kind = b"".join(parts), [], 0, kind, None
                if done_kind != OP_TEXT:
                    continue   # the page sends text only
                try:
                    text = data.decode("utf-8")
                except UnicodeDecodeError:
                    raise ProtocolError(BAD_DATA, "a text message that is not UTF-8") from None
                yield text
        except ProtocolError as exc:
            log.debug("websocket closed: %s", exc)
            self._peer_closed.set()   # nothing more is read from this client
            await self.close(exc.code, str(exc))
        except ConnectionError:
            pass
        finally:
            self._hang_up()

    async def _ping_loop(self) -> None:
        assert self.heartbeat
        while not self.closed and not self.writer.is_closing():
            self._awaited = os.urandom(4)
            # No drain(): a client that does not read must not stall the heartbeat that drops it.
            self.writer.write(encode_frame(OP_PING, self._awaited))
            await self._sleep(self.heartbeat)
            if self._awaited is not None:
                log.debug("websocket client has not answered a ping in %.0f s: dropped", self.heartbeat)
                self.writer.transport.abort()   # a drain blocked on a dead client ends too
                break
        self.closed = True


__all__ = ["WebSocket", "ProtocolError", "accept_key", "valid_key", "encode_frame", "read_frame"]
