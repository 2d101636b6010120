"""Test oracles: independent HTTP/1.1 (h11) and WebSocket (wsproto) parsers that judge what our server sends.

Our tests used to split the server's bytes with a few lines of their own, which accept whatever
the server writes the way it writes it. Here two implementations nobody here wrote read the same
bytes as a client would, and a test fails on anything they call a protocol error:

* :class:`HTTPClient` is h11's client side of one connection. It is told the method of each
  request (a HEAD answer has a length but no body, RFC 9112 6.3) and whether a request asks to
  upgrade (only then may a 101 come); it hands back every complete answer, and the bytes after
  a 101. :func:`http_responses` reads a whole exchange in one call.
* :class:`ServerFrames` is wsproto's ``FrameProtocol`` on the client side: unmasked frames,
  no reserved bit or opcode, control frames whole and short, text that is UTF-8, close frames
  whose code and reason a peer may send. It hands back whole messages and control frames.
"""
from __future__ import annotations

import asyncio
import collections
import struct
from collections.abc import Iterable
from typing import NamedTuple

import h11
from wsproto.frame_protocol import FrameProtocol, Opcode, ParseFailed

OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG = 0x1, 0x2, 0x8, 0x9, 0xA
NO_STATUS = 1005     # what wsproto reports for a close frame with no code (RFC 6455 7.1.5)


class Answer(NamedTuple):
    """One response: status, headers by lower-case name (a repeated name keeps its last value), body."""

    status: int
    headers: dict[str, str]
    body: bytes


class HTTPClient:
    """h11's client side of one connection, fed the server's bytes; see the module docstring."""

    def __init__(self, methods: Iterable[str] = (), *, upgrade: bool = False) -> None:
        self._methods = list(methods)     # of the requests in order; GET past the end
        self._upgrade = upgrade
        self._connection = h11.Connection(h11.CLIENT)
        self._status = 0
        self._headers: dict[str, str] = {}
        self._body = bytearray()
        self.informational: list[int] = []   # the 1xx answers seen (100 Continue, 101)
        self.switched = False                # a 101 came: the connection speaks another protocol
        self.closed = False                  # the server ended the connection (at a message boundary)
        self._request()

    def _request(self) -> None:
        method = self._methods.pop(0) if self._methods else "GET"
        headers = [("Host", "board")]
        if self._upgrade:
            headers += [("Connection", "Upgrade"), ("Upgrade", "websocket")]
        self._connection.send(h11.Request(method=method, target="/", headers=headers))
        self._connection.send(h11.EndOfMessage())

    def feed(self, data: bytes, *, eof: bool = False) -> list[Answer]:
        """The answers completed by ``data`` (and by the end of the connection if ``eof``);
        AssertionError if h11 finds the server's bytes wrong (a truncated body counts)."""
        answers: list[Answer] = []
        if data:
            self._connection.receive_data(data)
        if eof:
            self._connection.receive_data(b"")
        while True:
            try:
                event = self._connection.next_event()
            except h11.RemoteProtocolError as exc:
                raise AssertionError(f"h11: the server broke HTTP/1.1: {exc}") from exc
            if event is h11.NEED_DATA:
                return answers
            if event is h11.PAUSED:      # an answer is done and more bytes wait: the next request's answer
                if self.switched or self._connection.their_state is not h11.DONE:
                    return answers
                self._connection.start_next_cycle()
                self._request()
            if isinstance(event, h11.InformationalResponse):
                self.informational.append(event.status_code)
                if event.status_code == 101:
                    self.switched = True
                    self._status, self._headers = 101, _headers(event.headers)
                    answers.append(Answer(101, self._headers, b""))
                    return answers
            elif isinstance(event, h11.Response):
                self._status, self._headers, self._body = event.status_code, _headers(event.headers), bytearray()
            elif isinstance(event, h11.Data):
                self._body += event.data
            elif isinstance(event, h11.EndOfMessage):
                answers.append(Answer(self._status, self._headers, bytes(self._body)))
            elif isinstance(event, h11.ConnectionClosed):
                self.closed = True
                return answers

    @property
    def trailing(self) -> bytes:
        """What came after a 101's head: the first bytes of the new protocol."""
        return bytes(self._connection.trailing_data[0])


def _headers(headers: Iterable[tuple[bytes, bytes]]) -> dict[str, str]:
    return {name.decode("latin-1"): value.decode("latin-1") for name, value in headers}


def http_responses(raw: bytes, methods: Iterable[str] = (), *, eof: bool = True) -> list[Answer]:
    """Every answer in ``raw``, read by h11 as the answers to requests of ``methods`` (GET past the
    end). ``eof``: the server closed the connection after ``raw`` (the body of an answer that ends
    at the close must be whole); otherwise the client stopped reading first."""
    return HTTPClient(methods).feed(raw, eof=eof)


class Frame(NamedTuple):
    """A whole message or a control frame from the server: its opcode and payload (a close
    frame's payload as sent: the code, then the reason; empty if it had no code)."""

    opcode: int
    payload: bytes


class ServerFrames:
    """wsproto's client-side frame parser, fed the server's bytes; see the module docstring."""

    def __init__(self) -> None:
        self._protocol = FrameProtocol(client=True, extensions=[])
        self._message = bytearray()   # the message being joined
        self._in_message = False
        self.close: Frame | None = None

    def feed(self, data: bytes) -> list[Frame]:
        """The messages and control frames completed by ``data``; AssertionError if wsproto finds a
        frame wrong. After the server's close frame only pings and pongs may follow (RFC 6455 5.5.1:
        no data frame, and one close)."""
        self._protocol.receive_bytes(data)
        frames: list[Frame] = []
        try:
            for frame in self._protocol.received_frames():
                if frame.opcode is Opcode.CLOSE:
                    if self.close is not None:
                        raise AssertionError("the server sent a second close frame")
                    assert isinstance(frame.payload, tuple)        # wsproto's (code, reason)
                    code, reason = frame.payload
                    payload = b"" if code == NO_STATUS else struct.pack("!H", int(code)) + str(reason).encode("utf-8")
                    self.close = Frame(OP_CLOSE, payload)
                    frames.append(self.close)
                    return frames + self._after_close(data)
                if frame.opcode in (Opcode.PING, Opcode.PONG):
                    assert isinstance(frame.payload, (bytes, bytearray))
                    frames.append(Frame(int(frame.opcode), bytes(frame.payload)))
                    continue
                if self.close is not None:
                    raise AssertionError("the server sent a data frame after its close frame")
                part = frame.payload
                assert not isinstance(part, tuple)
                self._message += part.encode("utf-8") if isinstance(part, str) else part
                self._in_message = not frame.message_finished
                if frame.message_finished:
                    frames.append(Frame(int(frame.opcode), bytes(self._message)))
                    self._message = bytearray()
        except ParseFailed as exc:
            raise AssertionError(f"wsproto: the server sent a bad frame ({exc.code}): {exc}") from exc
        return frames

    def _after_close(self, data: bytes) -> list[Frame]:
        """wsproto stops at a close frame: what follows it goes to a new parser. The close frame
        ended within ``data`` (it would have been read before otherwise), so the bytes left in the
        parser's buffer are the end of ``data`` (wsproto has no public way to hand them back)."""
        left = len(self._protocol._frame_decoder.buffer)
        self._protocol = FrameProtocol(client=True, extensions=[])
        return self.feed(data[len(data) - left:]) if left else []

    @property
    def partial(self) -> bool:
        """Whether a frame or a message has begun and not ended."""
        return self._in_message or len(self._protocol._frame_decoder.buffer) > 0 or \
            self._protocol._frame_decoder.header is not None


# -- reading from a live connection ----------------------------------------------------------------------

async def read_answer(reader: asyncio.StreamReader, client: HTTPClient, *, timeout: float = 2.0) -> Answer:
    """Read until ``client`` (h11) has a whole answer (a 101 included): the first one."""
    while True:
        data = await asyncio.wait_for(reader.read(65536), timeout)
        answers = client.feed(data, eof=not data)
        if answers:
            return answers[0]
        if not data:
            raise AssertionError("the server closed the connection before a whole answer")


class FrameReader:
    """The server's frames on one live connection, each read by wsproto (:class:`ServerFrames`)."""

    def __init__(self, reader: asyncio.StreamReader, first: bytes = b"") -> None:
        self.reader = reader
        self.frames = ServerFrames()
        self._queue: collections.deque[Frame] = collections.deque(self.frames.feed(first) if first else ())

    async def next(self, *, timeout: float = 2.0) -> Frame:
        """The next message or control frame; AssertionError if the connection ends first."""
        while not self._queue:
            data = await asyncio.wait_for(self.reader.read(65536), timeout)
            if not data:
                raise AssertionError("the server closed the connection")
            self._queue.extend(self.frames.feed(data))
        return self._queue.popleft()

    async def end(self, *, timeout: float = 2.0) -> list[Frame]:
        """Read until the server closes the connection: the frames it sent meanwhile, none left half-sent."""
        while data := await asyncio.wait_for(self.reader.read(65536), timeout):
            self._queue.extend(self.frames.feed(data))
        assert not self.frames.partial, "the connection ended in the middle of a frame or message"
        rest, self._queue = list(self._queue), collections.deque()
        return rest
