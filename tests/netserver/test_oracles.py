"""The oracles themselves: h11 and wsproto, as wrapped for our tests, fail on bytes a server must not send."""
from __future__ import annotations

import struct

import pytest

from tests.netserver.oracles import OP_CLOSE, OP_PONG, OP_TEXT, HTTPClient, ServerFrames, http_responses

OK = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi"


def test_pipelined_answers_are_split_by_their_lengths():
    assert [a.body for a in http_responses(OK + OK, eof=True)] == [b"hi", b"hi"]


@pytest.mark.parametrize("raw, methods", [
    (OK, ["HEAD"]),                                                        # a body after a HEAD's head
    (b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhi", []),               # cut short by the close
    (b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nhi" + OK, []),   # more after a close
    (b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n", []),  # unasked
    (b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nBad Name: x\r\n\r\nhi", []),
    (b"HTTP/1.1 200 OK\nContent-Length: 2\r\n\r\nhi" + b"HTTP/1.1 2000 OK\r\n\r\n", []),
])
def test_the_http_oracle_fails_on_what_a_client_cannot_read(raw, methods):
    with pytest.raises(AssertionError, match="h11"):
        http_responses(raw, methods, eof=True)


def test_a_101_hands_over_the_bytes_after_it():
    client = HTTPClient(upgrade=True)
    [answer] = client.feed(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n\x81\x00")
    assert answer.status == 101 and client.trailing == b"\x81\x00"


def test_frames_are_joined_into_messages_and_pongs_may_follow_the_close():
    frames = ServerFrames()
    close = bytes([0x88, 0x02]) + struct.pack("!H", 1000)
    got = frames.feed(bytes([0x01, 0x02]) + b"\xc3\xa9" + bytes([0x80, 0x01]) + b"!" + close + bytes([0x8A, 0x00]))
    assert got == [(OP_TEXT, "é!".encode()), (OP_CLOSE, struct.pack("!H", 1000)), (OP_PONG, b"")]


@pytest.mark.parametrize("raw", [
    bytes([0x81, 0x81]) + b"\x00\x00\x00\x00a",                   # masked by the server
    bytes([0x81, 0x01]) + b"\xff",                                 # text that is not UTF-8
    bytes([0xC1, 0x01]) + b"a",                                    # a reserved bit
    bytes([0x83, 0x00]),                                           # a reserved opcode
    bytes([0x88, 0x02]) + struct.pack("!H", 1005),                 # a close code no peer may send
    bytes([0x88, 0x00, 0x81, 0x00]),                               # a message after the close
    bytes([0x81, 0x7E, 0x00, 0x05]) + b"hello",                    # a length not in its shortest form
])
def test_the_websocket_oracle_fails_on_frames_a_client_must_refuse(raw):
    with pytest.raises(AssertionError):
        ServerFrames().feed(raw)
