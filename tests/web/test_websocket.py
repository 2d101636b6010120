"""The page's WebSocket against RFC 6455: its own examples, its rules for bad frames, the close, the heartbeat.

The examples of sections 1.3 and 5.7 are the RFC's bytes, copied from the text; the live tests
speak raw frames to a real socket, the handshake tests go through the companion's ``/ws``. What
the server sends is read by independent implementations (tests/netserver/oracles.py): every
frame by wsproto, every HTTP answer (the 101 included) by h11; a protocol error fails the test.
"""
from __future__ import annotations

import asyncio
import base64
import json
import logging
import os
import socket
import struct
import weakref

import pytest

from netserver.websocket import (OP_BINARY, OP_CLOSE, OP_CONTINUATION, OP_PING, OP_PONG, OP_TEXT, ProtocolError,
                                 WebSocket, accept_key, encode_frame, read_frame, valid_key)
from tests.netserver.oracles import Answer, Frame, FrameReader, HTTPClient, read_answer

MASK = bytes([0x37, 0xFA, 0x21, 0x3D])   # the RFC's example key


def reader_of(data: bytes) -> asyncio.StreamReader:
    reader = asyncio.StreamReader()
    reader.feed_data(data)
    reader.feed_eof()
    return reader


# -- the RFC's examples ------------------------------------------------------------------------------

def test_the_handshake_answer_is_the_rfcs_example():
    assert accept_key("dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="   # section 1.3
    assert valid_key("dGhlIHNhbXBsZSBub25jZQ==")
    assert not valid_key(None) and not valid_key("short") and not valid_key(base64.b64encode(b"x" * 15).decode())


def test_frames_are_written_as_in_the_rfcs_examples():
    assert encode_frame(OP_TEXT, b"Hello") == bytes([0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])
    assert encode_frame(OP_TEXT, b"Hello", mask=MASK) == bytes([0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F,
                                                                0x4D, 0x51, 0x58])
    assert encode_frame(OP_TEXT, b"Hel", fin=False) == bytes([0x01, 0x03, 0x48, 0x65, 0x6C])
    assert encode_frame(OP_CONTINUATION, b"lo") == bytes([0x80, 0x02, 0x6C, 0x6F])
    assert encode_frame(OP_PING, b"Hello") == bytes([0x89, 0x05]) + b"Hello"
    assert encode_frame(OP_BINARY, bytes(256))[:4] == bytes([0x82, 0x7E, 0x01, 0x00])
    assert encode_frame(OP_BINARY, bytes(65536))[:10] == bytes([0x82, 0x7F, 0, 0, 0, 0, 0, 0x01, 0x00, 0x00])


async def test_the_rfcs_masked_frames_are_read():
    assert await read_frame(reader_of(bytes([0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])),
                            4096) == (True, OP_TEXT, b"Hello")
    pong = bytes([0x8A, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])     # "masked Pong"
    assert await read_frame(reader_of(pong), 4096) == (True, OP_PONG, b"Hello")
    long = encode_frame(OP_BINARY, os.urandom(300), mask=MASK)
    fin, opcode, payload = await read_frame(reader_of(long), 4096)
    assert opcode == OP_BINARY and len(payload) == 300


@pytest.mark.parametrize("frame, code", [
    (encode_frame(OP_TEXT, b"Hello"), 1002),                            # not masked
    (bytes([0xC1]) + encode_frame(OP_TEXT, b"x", mask=MASK)[1:], 1002),  # RSV1 with no extension
    (bytes([0x83]) + encode_frame(OP_TEXT, b"x", mask=MASK)[1:], 1002),  # reserved opcode
    (encode_frame(OP_PING, b"x", fin=False, mask=MASK), 1002),            # a fragmented control frame
    (encode_frame(OP_PING, bytes(126), mask=MASK), 1002),                 # a control frame over 125 bytes
    (encode_frame(OP_TEXT, bytes(5000), mask=MASK), 1009),                # over the limit
    (bytes([0x81, 0xFF]) + struct.pack("!Q", 1 << 63) + MASK, 1002),      # a length with its top bit set
])
async def test_frames_that_break_the_rules_are_refused_with_their_close_code(frame, code):
    with pytest.raises(ProtocolError) as refused:
        await read_frame(reader_of(frame), 4096)
    assert refused.value.code == code


# -- a live socket -----------------------------------------------------------------------------------

class Hand:
    """The heartbeat's sleep, ended by the test: time driven by hand."""

    def __init__(self) -> None:
        self.tick = asyncio.Event()
        self.asleep = asyncio.Event()

    async def sleep(self, seconds: float) -> None:
        self.asleep.set()
        await self.tick.wait()
        self.tick.clear()


@pytest.fixture
async def socket_pair():
    """``await socket_pair(heartbeat=...)`` -> (server WebSocket, its received texts, client reader, writer)."""
    made = []

    async def make(*, heartbeat=None, sleep=asyncio.sleep, max_msg_size=4096):
        ready: asyncio.Future = asyncio.get_running_loop().create_future()
        texts: list[str] = []

        async def serve(reader, writer):
            ws = WebSocket(reader, writer, max_msg_size=max_msg_size, heartbeat=heartbeat, sleep=sleep)
            ready.set_result(ws)
            async for text in ws:
                texts.append(text)
                if text == "echo":
                    await ws.send_str("echoed")

        server = await asyncio.start_server(serve, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        ws = await asyncio.wait_for(ready, 2)
        made.append((server, writer))
        return ws, texts, reader, writer

    yield make
    for server, writer in made:
        writer.close()
        server.close()


_FRAMES: weakref.WeakKeyDictionary[asyncio.StreamReader, FrameReader] = weakref.WeakKeyDictionary()


def frames_of(reader: asyncio.StreamReader, first: bytes = b"") -> FrameReader:
    """The server's frames on ``reader``, read by wsproto (the oracle); ``first``: bytes already read."""
    if reader not in _FRAMES:
        _FRAMES[reader] = FrameReader(reader, first)
    return _FRAMES[reader]


async def next_frame(reader: asyncio.StreamReader) -> Frame:
    """The server's next message or control frame: (opcode, payload)."""
    return await frames_of(reader).next()


async def hang_up(reader: asyncio.StreamReader) -> list[Frame]:
    """Until the server closes the connection: the frames it sent meanwhile."""
    return await frames_of(reader).end()


async def answer_of(reader: asyncio.StreamReader, request: bytes) -> Answer:
    """The server's HTTP answer to ``request``, read by h11 (the oracle); after a 101, the frames follow."""
    client = HTTPClient(upgrade=b"\r\nUpgrade:" in request)
    answer = await read_answer(reader, client)
    if answer.status == 101:
        frames_of(reader, client.trailing)
    return answer


async def test_a_fragmented_message_is_joined_and_a_ping_between_its_parts_answered(socket_pair):
    ws, texts, reader, writer = await socket_pair()
    writer.write(encode_frame(OP_TEXT, b"ec", fin=False, mask=MASK) + encode_frame(OP_PING, b"are you there", mask=MASK)
                 + encode_frame(OP_CONTINUATION, b"ho", mask=MASK))
    assert await next_frame(reader) == (OP_PONG, b"are you there")
    assert await next_frame(reader) == (OP_TEXT, b"echoed")
    assert texts == ["echo"]


async def test_binary_messages_are_dropped_and_text_goes_on(socket_pair):
    ws, texts, reader, writer = await socket_pair()
    writer.write(encode_frame(OP_BINARY, b"\x00\x01", mask=MASK) + encode_frame(OP_TEXT, "échec".encode(), mask=MASK)
                 + encode_frame(OP_TEXT, b"echo", mask=MASK))
    assert await next_frame(reader) == (OP_TEXT, b"echoed")
    assert texts == ["échec", "echo"]


@pytest.mark.parametrize("frames, code", [
    (encode_frame(OP_TEXT, b"\xff\xfe", mask=MASK), 1007),                       # text that is not UTF-8
    (encode_frame(OP_CONTINUATION, b"x", mask=MASK), 1002),                      # nothing to continue
    (encode_frame(OP_TEXT, b"a", fin=False, mask=MASK) + encode_frame(OP_TEXT, b"b", mask=MASK), 1002),
    (encode_frame(OP_TEXT, b"a" * 3000, fin=False, mask=MASK)
     + encode_frame(OP_CONTINUATION, b"a" * 3000, mask=MASK), 1009),             # parts under, the whole over
    (encode_frame(OP_TEXT, b"unmasked"), 1002),
])
async def test_a_bad_message_is_answered_with_a_close_frame_and_the_connection_ends(socket_pair, frames, code):
    ws, texts, reader, writer = await socket_pair()
    writer.write(frames)
    opcode, payload = await next_frame(reader)
    assert opcode == OP_CLOSE and struct.unpack("!H", payload[:2])[0] == code and payload[2:]
    assert await hang_up(reader) == []                             # then the server hangs up
    assert texts == [] and ws.closed


@pytest.mark.parametrize("payload, answer", [
    (struct.pack("!H", 1000) + b"bye", 1000),
    (struct.pack("!H", 4001), 4001),                # an application's code is echoed
    (b"", 1000),
    (struct.pack("!H", 1005), 1002),                # must never be sent
    (b"\x03", 1002),                                # one byte
    (struct.pack("!H", 1000) + b"\xff", 1002),      # a reason that is not UTF-8
])
async def test_the_clients_close_is_answered_with_its_code_or_a_protocol_error(socket_pair, payload, answer):
    ws, texts, reader, writer = await socket_pair()
    writer.write(encode_frame(OP_CLOSE, payload, mask=MASK))
    opcode, reply = await next_frame(reader)
    assert opcode == OP_CLOSE and struct.unpack("!H", reply[:2])[0] == answer
    assert await hang_up(reader) == []


async def test_the_servers_close_waits_for_the_clients_close_then_hangs_up(socket_pair):
    ws, texts, reader, writer = await socket_pair()
    closing = asyncio.create_task(ws.close())
    opcode, payload = await next_frame(reader)
    assert opcode == OP_CLOSE and struct.unpack("!H", payload[:2])[0] == 1000
    assert not closing.done()
    writer.write(encode_frame(OP_CLOSE, struct.pack("!H", 1000), mask=MASK))
    await asyncio.wait_for(closing, 2)
    assert await hang_up(reader) == []
    with pytest.raises(ConnectionError):
        await ws.send_str("too late")


async def test_a_silent_client_is_dropped_at_the_next_heartbeat_and_a_live_one_kept(socket_pair):
    hand = Hand()
    ws, texts, reader, writer = await socket_pair(heartbeat=30, sleep=hand.sleep)
    opcode, data = await next_frame(reader)
    assert opcode == OP_PING
    await asyncio.wait_for(hand.asleep.wait(), 2)
    writer.write(encode_frame(OP_PONG, data, mask=MASK))      # it answers with the ping's data: kept
    for _ in range(10_000):
        if ws._awaited is None:
            break
        await asyncio.sleep(0)
    hand.asleep.clear()
    hand.tick.set()                                           # 30 s pass
    assert (await next_frame(reader))[0] == OP_PING           # pinged again
    await asyncio.wait_for(hand.asleep.wait(), 2)
    hand.tick.set()                                           # 30 s more, no answer
    assert await hang_up(reader) == []                        # dropped
    assert ws.closed


# -- the handshake, through the companion's /ws --------------------------------------------------------

def handshake(key: str = "dGhlIHNhbXBsZSBub25jZQ==", version: str = "13", upgrade: bool = True,
              http: str = "HTTP/1.1", upgrade_value: str = "websocket") -> bytes:
    lines = [f"GET /ws {http}", "Host: 127.0.0.1", f"Sec-WebSocket-Version: {version}", f"Sec-WebSocket-Key: {key}"]
    if upgrade:
        lines += [f"Upgrade: {upgrade_value}", "Connection: keep-alive, Upgrade"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


async def test_the_page_socket_answers_the_handshake_then_says_hello(serve):
    client, companion, backend = await serve()
    reader, writer = await asyncio.open_connection(client.server.host, client.server.port)
    writer.write(handshake())
    answer = await answer_of(reader, handshake())
    assert answer.status == 101 and answer.headers["sec-websocket-accept"] == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
    opcode, payload = await next_frame(reader)
    assert opcode == OP_TEXT and json.loads(payload)["type"] == "hello"
    writer.close()


@pytest.mark.parametrize("request_bytes, status, words", [
    (handshake(version="8"), 426, "version 13"),
    (handshake(key="not a key"), 400, "Sec-WebSocket-Key"),
    (handshake(upgrade=False), 426, "WebSocket"),
])
async def test_a_bad_handshake_is_refused_in_words(serve, request_bytes, status, words):
    client, companion, backend = await serve()
    reader, writer = await asyncio.open_connection(client.server.host, client.server.port)
    writer.write(request_bytes)
    answer = await answer_of(reader, request_bytes)
    assert answer.status == status and words in json.loads(answer.body)["error"]
    assert not companion.clients
    writer.close()


# -- review: a client that does not play fair ----------------------------------------------------------

async def test_a_message_in_endless_empty_fragments_is_closed_not_joined_for_ever(socket_pair):
    """RFC 6455 5.4 lets a message come in any number of fragments, and 10.4 asks an endpoint to
    bound what it buffers: 10,000 empty continuation frames (60 kB on the wire) were 10,000 list
    entries summed again at every frame (quadratic). A message in too many frames is closed (1008)."""
    ws, texts, reader, writer = await socket_pair()
    writer.write(encode_frame(OP_TEXT, b"a", fin=False, mask=MASK)
                 + encode_frame(OP_CONTINUATION, b"", fin=False, mask=MASK) * 10_000)
    opcode, payload = await next_frame(reader)
    assert opcode == OP_CLOSE and struct.unpack("!H", payload[:2])[0] == 1008
    assert texts == []


async def test_a_message_in_a_few_fragments_is_still_joined(socket_pair):
    ws, texts, reader, writer = await socket_pair()
    parts = [encode_frame(OP_TEXT, b"e", fin=False, mask=MASK)] + \
        [encode_frame(OP_CONTINUATION, b"", fin=False, mask=MASK)] * 50 + \
        [encode_frame(OP_CONTINUATION, b"cho", mask=MASK)]
    writer.write(b"".join(parts))
    assert await next_frame(reader) == (OP_TEXT, b"echoed")


async def test_a_client_that_never_reads_is_dropped_even_if_it_keeps_talking(socket_pair):
    """A socket stays 'busy' for the ConnectionGuard, so the heartbeat is its only bound. A client
    that writes (unsolicited pongs are allowed, RFC 6455 5.5.3) but never reads filled the server's
    buffers, the heartbeat's ping waited in drain() for ever, and the client was never dropped.
    Only a pong that carries the ping's own data (5.5.3: "identical Application data") proves that
    the client reads; the heartbeat must not wait on a full buffer to find out."""
    hand = Hand()
    ws, texts, reader, writer = await socket_pair(heartbeat=30, sleep=hand.sleep)
    await asyncio.wait_for(hand.asleep.wait(), 2)
    for end, option in ((writer, socket.SO_RCVBUF), (ws.writer, socket.SO_SNDBUF)):   # small kernel buffers
        end.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, option, 4096)
    flood = asyncio.create_task(ws.send_str("x" * 1_000_000))      # more than the buffers hold, never read
    for _ in range(100):
        await asyncio.sleep(0)
    assert ws.writer.transport.get_write_buffer_size() > 0 and not flood.done()   # the kernel's buffers are full
    for beat in range(3):                                          # three heartbeats, each "answered"
        hand.asleep.clear()
        writer.write(encode_frame(OP_PONG, b"", mask=MASK) + encode_frame(OP_TEXT, b"still here", mask=MASK))
        async def read_by_server() -> None:
            while len(texts) <= beat:
                await asyncio.sleep(0.001)

        await asyncio.wait_for(read_by_server(), 2)                # the server has read both
        hand.tick.set()                                            # 30 s pass
        for _ in range(10_000):                                    # until it pings again, or drops it
            if hand.asleep.is_set() or ws.writer.transport.is_closing():
                break
            await asyncio.sleep(0)
        if ws.writer.transport.is_closing():
            break
    assert ws.writer.transport.is_closing() and ws.closed
    try:
        await asyncio.wait_for(flood, 2)     # the blocked send ends too (aborted: returns or raises)
    except ConnectionError:
        pass


async def clients(companion, n: int) -> None:
    """Until the companion holds ``n`` page sockets (under a bounded wait)."""
    while len(companion.clients) < n:
        await asyncio.sleep(0.01)


async def test_stopping_the_page_closes_every_socket_at_once_not_one_after_the_other(serve, monkeypatch):
    """stop() closed the sockets in turn, each waiting up to CLOSE_WAIT_S for its client's close:
    16 clients that never answer held the service's stop for 16 s per address (systemd then kills
    it). Every socket gets its close frame at once; the waits overlap."""
    import netserver.websocket as websocket

    monkeypatch.setattr(websocket, "CLOSE_WAIT_S", 30.0)     # a wait no test could sit through in turn
    client, companion, backend = await serve()
    sockets = []
    for _ in range(3):
        reader, writer = await asyncio.open_connection(client.server.host, client.server.port)
        writer.write(handshake())
        assert (await answer_of(reader, handshake())).status == 101
        sockets.append((reader, writer))
    await asyncio.wait_for(clients(companion, 3), 2)
    stopping = asyncio.create_task(companion.stop())
    try:
        for reader, writer in sockets:                        # no client has answered yet
            while True:
                opcode, payload = await next_frame(reader)
                if opcode == OP_CLOSE:
                    break
        for reader, writer in sockets:
            writer.write(encode_frame(OP_CLOSE, payload, mask=MASK))
        await asyncio.wait_for(stopping, 2)
    finally:
        stopping.cancel()
        for reader, writer in sockets:
            writer.close()


async def test_an_http_1_0_request_is_not_upgraded(serve):
    """RFC 6455 4.2.1: the handshake is an HTTP/1.1 (or higher) GET; RFC 9110 7.8: a server MUST
    ignore an Upgrade header field received in an HTTP/1.0 request. /ws then answers 426, and says so."""
    client, companion, backend = await serve()
    reader, writer = await asyncio.open_connection(client.server.host, client.server.port)
    writer.write(handshake(http="HTTP/1.0"))
    answer = await answer_of(reader, handshake(http="HTTP/1.0"))
    writer.close()
    assert answer.status == 426 and answer.headers["upgrade"] == "websocket"
    assert not companion.clients


async def test_a_426_for_a_wrong_version_names_the_protocol_to_upgrade_to(serve):
    """RFC 9110 15.5.22: a server MUST send an Upgrade header field in a 426 response; RFC 6455 4.4:
    with the Sec-WebSocket-Version it speaks."""
    client, companion, backend = await serve()
    reader, writer = await asyncio.open_connection(client.server.host, client.server.port)
    writer.write(handshake(version="8"))
    answer = await answer_of(reader, handshake(version="8"))
    writer.close()
    assert answer.status == 426 and answer.headers["upgrade"] == "websocket"
    assert answer.headers["sec-websocket-version"] == "13" and answer.headers["connection"] == "Upgrade"   # 7.8


async def test_upgrade_is_a_list_of_protocols_of_any_case(serve):
    """RFC 9110 7.8: Upgrade is a comma-separated list; RFC 6455 4.2.1: one of them "websocket",
    compared case-insensitively."""
    client, companion, backend = await serve()
    reader, writer = await asyncio.open_connection(client.server.host, client.server.port)
    writer.write(handshake(upgrade_value="foo/2, WebSocket"))
    answer = await answer_of(reader, handshake(upgrade_value="foo/2, WebSocket"))
    writer.close()
    assert answer.status == 101


@pytest.mark.parametrize("when", ["before the handshake's answer", "before the hello"])
async def test_a_socket_lost_during_the_handshake_is_no_internal_error(serve, caplog, when):
    """The sweep aborts a connection whose client does not read (BUSY_S), the heartbeat one that does
    not answer: the handler's next write then raises ConnectionError. That is the client gone, not
    a fault of the board: no 500, no stack trace in the journal, nothing left among the clients."""
    from netserver.http_server import Request, parse_head
    from netserver.websocket import WebSocket

    client, companion, backend = await serve()
    accepted: asyncio.Future = asyncio.get_running_loop().create_future()
    server = await asyncio.start_server(lambda r, w: accepted.set_result((r, w)), "127.0.0.1", 0)
    _, peer = await asyncio.open_connection("127.0.0.1", server.sockets[0].getsockname()[1])
    reader, writer = await asyncio.wait_for(accepted, 2)
    request = Request(*parse_head(handshake()), remote="127.0.0.1", transport=writer.transport, reader=reader,
                      writer=writer)
    if when == "before the handshake's answer":
        writer.transport.abort()
        await asyncio.sleep(0)
    else:
        upgrade = request.upgrade

        async def upgrade_then_lose(*args, **kwargs) -> WebSocket:
            ws = await upgrade(*args, **kwargs)
            writer.transport.abort()
            return ws

        request.upgrade = upgrade_then_lose
    try:
        await companion.handle(request)
    finally:
        peer.close()
        server.close()
    assert not companion.clients
    assert not any(r.levelno >= logging.ERROR for r in caplog.records), [r.getMessage() for r in caplog.records]


def test_a_long_close_reason_is_cut_on_a_character_boundary():
    """RFC 6455 5.5: a control frame's payload is at most 125 bytes; 5.5.1: the reason is UTF-8, and a
    client fails the connection on one that is not (cutting "é" in half at byte 123 made one)."""
    from netserver.websocket import _close_payload

    payload = _close_payload(1008, "é" * 100)
    assert len(payload) <= 125 and payload[2:].decode("utf-8") == "é" * 61


class _QuietWriter:
    """A writer for a socket that is only read from."""

    def __init__(self) -> None:
        self.transport = self

    def is_closing(self) -> bool:
        return False

    def close(self) -> None:
        pass

    abort = close


async def test_a_flood_of_small_frames_lets_the_board_run_between_them():
    """The page shares the board's event loop. Frames already in the buffer were read and handed
    over without a single suspension, so one client's 32 kB of tiny frames held the loop (the
    sensors, the LEDs, the clock) until all were handled. Each frame now yields to the loop."""
    frames = encode_frame(OP_TEXT, b"x", mask=MASK) * 1000
    ws = WebSocket(reader_of(frames), _QuietWriter(), heartbeat=None)
    seen: list[str] = []
    turns: list[int] = []

    async def consume() -> None:
        async for text in ws:
            seen.append(text)

    async def board() -> None:
        while True:
            turns.append(len(seen))
            if len(seen) >= 1000:
                break
            await asyncio.sleep(0)

    await asyncio.wait_for(asyncio.gather(consume(), board()), 5)
    assert len(seen) == 1000
    assert max(b - a for a, b in zip([0] + turns, turns)) <= 2     # served between two of the board's turns


async def test_a_slow_reader_holds_little_of_the_boards_memory(serve):
    """A page that reads slowly (or not at all) gets the latest state only, so what waits for it is
    bounded by the transport's buffer: asyncio's default high-water mark of 64 kB made 16 MB over
    256 sockets, half of what a Pi Zero 2 W can spare. A socket buffers at most 16 kB and a message."""
    from netserver.websocket import MAX_BUFFER

    client, companion, backend = await serve()
    reader, writer = await asyncio.open_connection(client.server.host, client.server.port)
    writer.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    writer.write(handshake())
    assert (await answer_of(reader, handshake())).status == 101
    await asyncio.wait_for(clients(companion, 1), 2)
    [page] = companion.clients
    transport = page.ws.writer.transport
    transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    for _ in range(300):                                      # 300 changes, never read
        companion.changed()
        for _ in range(5):
            await asyncio.sleep(0)
    message = len(json.dumps({"type": "state", "state": companion.last_state}, separators=(",", ":"))) + 10
    assert MAX_BUFFER <= 16 * 1024
    assert 0 < transport.get_write_buffer_size() <= MAX_BUFFER + message
    writer.close()


async def test_a_ping_during_the_servers_close_is_still_answered(socket_pair):
    """RFC 6455 5.5.2: an endpoint MUST answer a Ping with a Pong unless it has *received* a Close;
    having sent one only forbids data frames (5.5.1)."""
    ws, texts, reader, writer = await socket_pair()
    closing = asyncio.create_task(ws.close())
    assert (await next_frame(reader))[0] == OP_CLOSE
    writer.write(encode_frame(OP_PING, b"still?", mask=MASK))
    assert await next_frame(reader) == (OP_PONG, b"still?")
    writer.write(encode_frame(OP_CLOSE, struct.pack("!H", 1000), mask=MASK))
    await asyncio.wait_for(closing, 2)
