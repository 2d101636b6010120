"""The page's HTTP/1.1 server byte by byte: what RFC 9112 asks, and what a hostile client on the LAN tries.

Each test speaks raw bytes to a real socket, so nothing is hidden by a client library that would
not send the bad request in the first place; every answer is read by h11, an HTTP/1.1 client
nobody here wrote (tests/netserver/oracles.py), which fails the test on a protocol error.
"""
from __future__ import annotations

import asyncio
import json
import logging
import socket
import struct
import time
from collections.abc import Iterable
from typing import NamedTuple

import pytest

from netserver.http_server import (MAX_HEAD, HTTPError, HTTPServer, Request, Response, Router, body_length,
                                   http_date, json_response, parse_head)
from netserver.limits import ConnectionGuard
from tests.netserver.oracles import Answer, HTTPClient, http_responses, read_answer


async def _echo(request: Request) -> Response:
    return json_response({"method": request.method, "path": request.path, "query": request.query,
                          "body": request.body.decode(), "id": request.match_info.get("id"),
                          "cookies": request.cookies, "host": request.host})


async def _boom(request: Request) -> Response:
    raise HTTPError(409, "not now", headers={"Retry-After": "3"})


@pytest.fixture
async def server():
    router = Router()
    router.add_get("/echo", _echo)
    router.add_post("/echo", _echo)
    router.add_get("/games/{id}.pgn", _echo)
    router.add_get("/boom", _boom)

    async def app(request: Request) -> Response:
        return await router.resolve(request)(request)

    http = HTTPServer(app, ConnectionGuard(time.monotonic), max_body=1024)
    port = await http.start("127.0.0.1", 0)
    yield port
    await http.stop()


class Received(NamedTuple):
    raw: bytes
    closed: bool        # the server closed the connection (otherwise: 2 s of silence)


async def exchange(port: int, data: bytes) -> Received:
    """Send ``data``; everything the server answers until it closes (or 2 s of silence)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(data)
    await writer.drain()
    chunks = []
    closed = False
    try:
        while True:
            chunk = await asyncio.wait_for(reader.read(65536), 2.0)
            if not chunk:
                closed = True
                break
            chunks.append(chunk)
    except asyncio.TimeoutError:
        pass
    writer.close()
    return Received(b"".join(chunks), closed)


def responses(received: Received, methods: Iterable[str] = ()) -> list[Answer]:
    """The answers in ``received`` as h11 reads them (the oracle), to requests of ``methods`` (GET
    past the end): (status, headers by lower-case name, body)."""
    return http_responses(received.raw, methods, eof=received.closed)


def get(path: str = "/echo", extra: str = "", version: str = "HTTP/1.1") -> bytes:
    return f"GET {path} {version}\r\nHost: board\r\n{extra}\r\n".encode()


# -- the grammar -------------------------------------------------------------------------------------

def test_a_head_is_parsed_into_method_target_version_and_headers_of_any_case():
    method, target, version, headers = parse_head(b"POST /a?b=1 HTTP/1.1\r\nHost: x\r\nX-Thing:  v  \r\n"
                                                  b"cookie: a=1\r\nCookie: b=2\r\n\r\n")
    assert (method, target, version) == ("POST", "/a?b=1", "HTTP/1.1")
    assert headers["x-thing"] == "v" and headers.get("X-THING") == "v" and "X-Thing" in headers
    assert headers["cookie"] == "a=1; b=2"


@pytest.mark.parametrize("head, status", [
    (b"GET /\r\n\r\n", 400),                                            # HTTP/0.9
    (b"GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505),
    (b"GET / HTTP/1.1 extra\r\nHost: x\r\n\r\n", 400),
    (b"G(T / HTTP/1.1\r\nHost: x\r\n\r\n", 400),                       # the method is not a token
    (b"GET http://user@evil/ HTTP/1.1\r\nHost: x\r\n\r\n", 400),       # userinfo (RFC 9110 4.2.4)
    (b"GET ftp://evil/ HTTP/1.1\r\nHost: x\r\n\r\n", 400),             # not http
    (b"GET http:///a HTTP/1.1\r\nHost: x\r\n\r\n", 400),               # an empty host (RFC 9110 4.2.1)
    (b"GET http://evil/ HTTP/1.1\r\n\r\n", 400),                        # absolute form, still needs a Host
    (b"GET / HTTP/1.1\r\n\r\n", 400),                                   # no Host
    (b"GET / HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n", 400),
    (b"GET / HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n folded\r\n\r\n", 400),  # obsolete line folding
    (b"GET / HTTP/1.1\r\nHost: x\r\nBad Name: 1\r\n\r\n", 400),
    (b"GET / HTTP/1.1\r\nHost: x\r\nX-A: a\x00b\r\n\r\n", 400),
    (b"GET /" + b"a" * 5000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414),         # RFC 9112 3: MUST 414
    (b"GET / HTTP/1.1\r\nHost: x\r\nX-Long: " + b"a" * 5000 + b"\r\n\r\n", 431),
    (b"GET / HTTP/1.1\r\nHost: x\r\n" + b"X-A: 1\r\n" * 70 + b"\r\n", 431),
])
def test_malformed_heads_are_refused_with_the_right_status(head, status):
    with pytest.raises(HTTPError) as refused:
        parse_head(head)
    assert refused.value.status == status and refused.value.message


@pytest.mark.parametrize("headers, status", [
    ({"transfer-encoding": "chunked"}, 411),
    ({"transfer-encoding": "gzip"}, 400),                             # RFC 9112 6.1: chunked not last: MUST 400
    ({"transfer-encoding": "chunked, gzip"}, 400),
    ({"transfer-encoding": "gzip, chunked"}, 411),
    ({"transfer-encoding": "chunked", "content-length": "3"}, 400),   # smuggling
    ({"content-length": "-1"}, 400),
    ({"content-length": "1, 1"}, 400),
    ({"content-length": "0x10"}, 400),
    ({"content-length": "2000"}, 413),
])
def test_a_body_length_must_be_one_plain_number_within_the_limit(headers, status):
    with pytest.raises(HTTPError) as refused:
        body_length(headers, 1024)
    assert refused.value.status == status


def test_dates_are_imf_fixdates():
    assert http_date(784111777) == "Sun, 06 Nov 1994 08:49:37 GMT"   # RFC 9110's own example


# -- on the wire -------------------------------------------------------------------------------------

async def test_a_request_is_answered_with_length_date_and_type(server):
    [(status, headers, body)] = responses(await exchange(server, get("/echo?x=1", "Connection: close\r\n")))
    assert status == 200 and headers["content-type"] == "application/json; charset=utf-8"
    assert json.loads(body)["query"] == {"x": "1"}
    assert headers["date"].endswith(" GMT") and headers["connection"] == "close"


async def test_pipelined_requests_are_answered_in_order_on_one_connection(server):
    raw = await exchange(server, get("/echo?n=1") + get("/echo?n=2") + get("/echo?n=3", "Connection: close\r\n"))
    assert [json.loads(body)["query"]["n"] for _, _, body in responses(raw)] == ["1", "2", "3"]


async def test_http_1_0_closes_after_the_answer_unless_asked_to_keep_alive(server):
    received = await exchange(server, get(version="HTTP/1.0") + get(version="HTTP/1.0"))
    assert received.closed and len(responses(received)) == 1


async def test_a_body_is_read_by_its_length_and_the_next_request_follows_it(server):
    post = b"POST /echo HTTP/1.1\r\nHost: b\r\nContent-Length: 5\r\n\r\nhello"
    raw = await exchange(server, post + get("/echo", "Connection: close\r\n"))
    (s1, _, b1), (s2, _, b2) = responses(raw)
    assert json.loads(b1)["body"] == "hello" and json.loads(b2)["method"] == "GET"


async def test_expect_100_continue_is_answered_before_the_body(server):
    reader, writer = await asyncio.open_connection("127.0.0.1", server)
    client = HTTPClient(["POST"])
    writer.write(b"POST /echo HTTP/1.1\r\nHost: b\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n")
    assert await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 2) == b"HTTP/1.1 100 Continue\r\n\r\n"
    client.feed(b"HTTP/1.1 100 Continue\r\n\r\n")
    writer.write(b"hi")
    answer = await read_answer(reader, client)
    assert client.informational == [100] and answer.status == 200 and json.loads(answer.body)["body"] == "hi"
    writer.close()


@pytest.mark.parametrize("request_bytes, status", [
    (b"POST /echo HTTP/1.1\r\nHost: b\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\nGET /boom", 400),
    (b"POST /echo HTTP/1.1\r\nHost: b\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n", 411),
    (b"POST /echo HTTP/1.1\r\nHost: b\r\nContent-Length: 5000\r\n\r\n" + b"x" * 5000, 413),
    (b"GET /%ff%fe HTTP/1.1\r\nHost: b\r\n\r\n", 400),
    (b"GET / HTTP/1.1\r\n" + b"X-Long: " + b"a" * (MAX_HEAD + 10), 431),
])
async def test_a_bad_request_gets_one_json_error_and_the_connection_is_closed(server, request_bytes, status):
    """Nothing after a refused request is read as another request (no smuggling through the error)."""
    raw = await exchange(server, request_bytes + b"\r\n\r\n" + get("/boom"))
    [(got, headers, body)] = responses(raw)
    assert got == status and headers["connection"] == "close"
    message = json.loads(body)["error"]
    assert message and "Traceback" not in message


async def test_unknown_paths_are_404_and_wrong_methods_405_with_allow(server):
    (s404, _, b404), (s405, h405, _) = responses(await exchange(
        server, get("/nothing") + b"POST /games/a.pgn HTTP/1.1\r\nHost: b\r\nConnection: close\r\n\r\n"))
    assert s404 == 404 and json.loads(b404)["error"] == "no such page"
    assert s405 == 405 and h405["allow"] == "GET, HEAD"


async def test_path_parameters_stop_at_a_slash_and_are_decoded(server):
    (ok, _, body), (missing, _, _) = responses(await exchange(
        server, get("/games/a%20b.pgn") + get("/games/..%2Fx.pgn", "Connection: close\r\n")))
    assert ok == 200 and json.loads(body)["id"] == "a b"
    assert missing == 404


async def test_head_answers_the_headers_of_get_without_the_body(server):
    received = await exchange(server, b"HEAD /echo HTTP/1.1\r\nHost: b\r\nConnection: close\r\n\r\n"
                              + get("/echo", "Connection: close\r\n"))
    [(status, headers, body)] = responses(received, ["HEAD"])      # h11 fails on a body after the head
    assert status == 200 and int(headers["content-length"]) > 0 and body == b""
    assert received.raw.endswith(b"\r\n\r\n")


async def test_cookies_are_read_leniently(server):
    [(_, _, body)] = responses(await exchange(server, get("/echo", 'Cookie: a=1; junk; b="2"; a=3\r\n'
                                                                   "Connection: close\r\n")))
    assert json.loads(body)["cookies"] == {"a": "1", "b": "2"}


async def test_stopping_the_server_closes_its_open_connections():
    router = Router()
    router.add_get("/echo", _echo)

    async def app(request: Request) -> Response:
        return await router.resolve(request)(request)

    http = HTTPServer(app, ConnectionGuard(time.monotonic))
    port = await http.start("127.0.0.1", 0)
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(get())
    head = await reader.readuntil(b"\r\n\r\n")
    await http.stop()
    rest = await asyncio.wait_for(reader.read(), 2)                # EOF, not a hang
    [(status, _, _)] = http_responses(head + rest)                  # the answer written before is whole
    assert status == 200 and http.guard.open == 0
    writer.close()


def test_responses_write_cookies_and_their_deletion():
    response = Response("x")
    response.set_cookie("k", "v", max_age=60)
    response.del_cookie("old")
    head = response.head(keep_alive=True, now=0).decode()
    assert "Set-Cookie: k=v; Path=/; Max-Age=60; HttpOnly; SameSite=Strict\r\n" in head
    assert 'Set-Cookie: old=""; Path=/; Max-Age=0' in head
    assert "Content-Type: text/plain; charset=utf-8" in head and "Connection" not in head


# -- review: what a hostile client or a strict reading of RFC 9112 finds --------------------------------

@pytest.mark.parametrize("value", ["\u00b2", "\u00b9\u00b3", "+5", " 5", "5 ", "", "٥"])
def test_a_content_length_is_ascii_digits_only(value):
    """RFC 9112 6.3 / RFC 9110 8.6: Content-Length = 1*DIGIT, and DIGIT is ASCII 0-9 (RFC 5234 B.1).
    Latin-1 superscripts pass str.isdigit() but not int(): they were a ValueError, not a 400."""
    with pytest.raises(HTTPError) as refused:
        body_length({"content-length": value}, 1024)
    assert refused.value.status == 400


def test_leading_zeros_in_a_content_length_are_still_a_number():
    """RFC 9110 8.6: 1*DIGIT; "005" is five."""
    assert body_length({"content-length": "005"}, 1024) == 5


async def test_a_superscript_content_length_gets_a_400_not_a_dropped_connection(server):
    raw = await exchange(server, b"POST /echo HTTP/1.1\r\nHost: b\r\nContent-Length: \xb2\r\n\r\nhi" + get())
    [(status, headers, body)] = responses(raw)
    assert status == 400 and headers["connection"] == "close" and "Content-Length" in json.loads(body)["error"]


@pytest.mark.parametrize("head", [
    b"GET / HTTP/1.1\r\nHost: x\r\nX-A: a\n\r\n\r\n",             # a value ending in a bare LF
    b"GET / HTTP/1.1\r\nHost: x\nX-B: b\r\n\r\n",                 # two fields on one line, split by a bare LF
    b"GET / HTTP/1.1\r\nHost: x\r\nX-A\n: a\r\n\r\n",             # a name ending in a bare LF
    b"GET\n / HTTP/1.1\r\nHost: x\r\n\r\n",                         # a method ending in a bare LF
    b"GET / HTTP/1.1\r\nHost: x\r\nX-A: a\rb\r\n\r\n",             # a bare CR (RFC 9112 2.2: reject)
    b"GET /caf\xe9 HTTP/1.1\r\nHost: x\r\n\r\n",                    # a target that is not ASCII (RFC 9112 3.2)
    b"GET /a#frag HTTP/1.1\r\nHost: x\r\n\r\n",                     # no fragment in a request-target (RFC 9112 3.2)
    b"GET / HTTP/1.1\r\nHost: a b\r\n\r\n",                         # RFC 9112 3.2: an invalid Host is a 400
    b"GET / HTTP/1.1\r\nHost: a/b\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: [:::]\r\n\r\n",                       # an IP-literal must be IPv6 (RFC 3986 3.2.2)
    b"GET / HTTP/1.1\r\nHost: [1.2.3.4]:80\r\n\r\n",
])
def test_bare_line_feeds_and_stray_bytes_inside_a_head_are_refused(head):
    """RFC 9112 2.2: a bare CR must be refused; a bare LF is either a line end or an error, never part
    of a name or value (a `$` in a regular expression matches before a final newline)."""
    with pytest.raises(HTTPError) as refused:
        parse_head(head)
    assert refused.value.status == 400


async def test_an_empty_line_before_a_request_line_is_ignored(server):
    """RFC 9112 2.2: a server SHOULD ignore at least one empty line (CRLF) received before the
    request-line (old clients add one after a POST body)."""
    post = b"POST /echo HTTP/1.1\r\nHost: b\r\nContent-Length: 2\r\n\r\nhi\r\n"
    raw = await exchange(server, post + get("/echo", "Connection: close\r\n"))
    (s1, _, _), (s2, _, b2) = responses(raw)
    assert (s1, s2) == (200, 200) and json.loads(b2)["method"] == "GET"


async def test_an_http_1_0_client_that_asks_to_keep_alive_is_told_so(server):
    """RFC 9112 9.3 / Appendix C.2.2: an HTTP/1.0 connection persists only if the server answers
    Connection: keep-alive; otherwise the client waits for a close."""
    raw = await exchange(server, get(version="HTTP/1.0", extra="Connection: keep-alive\r\n")
                         + get(version="HTTP/1.0"))
    (_, h1, _), (_, h2, _) = responses(raw)
    assert h1["connection"] == "keep-alive" and h2["connection"] == "close"


async def test_a_client_that_never_reads_its_answers_is_cut_off_by_the_sweep():
    """A request is 'busy' from its head to its answer, and the idle sweep spares busy connections;
    a client that pipelines requests for a large answer and never reads kept drain() waiting, so
    the connection (one of 16 per client) was held for ever. Past BUSY_S the sweep aborts it
    (a close would wait for the very buffer the client does not read). Time is driven by hand."""
    from netserver.limits import BUSY_S

    now = [1000.0]
    guard = ConnectionGuard(lambda: now[0], idle_s=10)
    router = Router()
    big = Response(b"x" * 1_000_000, content_type="application/octet-stream")

    async def answer(request: Request) -> Response:
        return big

    router.add_get("/big", answer)

    async def app(request: Request) -> Response:
        return await router.resolve(request)(request)

    http = HTTPServer(app, guard)
    port = await http.start("127.0.0.1", 0)
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(get("/big") * 8)                          # 8 MB of answers, never read

        async def stuck() -> None:
            while not any(c.busy and c.transport.get_write_buffer_size() for c in guard._by_transport.values()):
                await asyncio.sleep(0.01)

        await asyncio.wait_for(stuck(), 2)
        assert guard.sweep(now[0] + 10) == 0                      # busy, not idle
        guard.sweep(now[0] + BUSY_S)

        async def gone() -> None:
            while guard.open:
                await asyncio.sleep(0.01)

        await asyncio.wait_for(gone(), 2)
    finally:
        writer.close()
        await http.stop()


async def _file_server(path):
    from netserver.http_server import file_response

    router = Router()

    async def serve_file(request: Request) -> Response:
        return file_response(path, request, headers={"Cache-Control": "no-cache"})

    router.add_get("/f", serve_file)

    async def app(request: Request) -> Response:
        return await router.resolve(request)(request)

    http = HTTPServer(app, ConnectionGuard(time.monotonic))
    return http, await http.start("127.0.0.1", 0)


async def test_a_304_carries_no_false_content_length_and_keeps_the_validators(tmp_path):
    """RFC 9110 8.6: a server MUST NOT send Content-Length in a 304 unless it equals the length a 200
    would have sent (it said 0 for a file of 5 bytes); 15.4.5: a 304 carries the ETag and
    Cache-Control a 200 would. Nothing follows its head (RFC 9112 6.3), so the next answer is intact."""
    page = tmp_path / "page.js"
    page.write_bytes(b"hello")
    http, port = await _file_server(page)
    try:
        [(status, headers, _)] = responses(await exchange(port, get("/f", "Connection: close\r\n")))
        etag = headers["etag"]
        first, second, third, fourth = responses(await exchange(
            port, get("/f", f"If-None-Match: {etag}\r\n")
            + get("/f", f"If-None-Match: W/{etag}\r\n")          # weak comparison (13.1.2)
            + get("/f", "If-None-Match: *\r\n")                  # any current version
            + get("/f", 'If-None-Match: "other"\r\nConnection: close\r\n')))
        assert [a.status for a in (first, second, third)] == [304, 304, 304]
        assert first.headers.get("content-length") in (None, "5")
        assert first.headers["etag"] == etag and first.headers["cache-control"] == "no-cache"
        assert fourth.status == 200 and fourth.body == b"hello"
    finally:
        await http.stop()


def test_no_content_length_in_a_1xx_or_204():
    """RFC 9110 8.6: a server MUST NOT send Content-Length in a 1xx or 204 response."""
    assert b"Content-Length" not in Response(status=204).head(keep_alive=True, now=0)
    assert b"Content-Length" not in Response(status=101).head(keep_alive=True, now=0)


async def test_an_applications_crash_is_a_500_in_words_and_one_journal_line_per_client(caplog):
    """One connection's fault must not show a trace nor drop the connection without an answer, and a
    client that can trigger it must not fill the journal (the SD card): one line a minute per client."""
    async def crash(request: Request) -> Response:
        raise RuntimeError("secret detail")

    http = HTTPServer(crash, ConnectionGuard(time.monotonic))
    port = await http.start("127.0.0.1", 0)
    try:
        for _ in range(3):
            [(status, headers, body)] = responses(await exchange(port, get()))
            assert status == 500 and headers["connection"] == "close"
            assert "secret" not in body.decode() and json.loads(body)["error"]
    finally:
        await http.stop()
    logged = [r for r in caplog.records if r.levelno >= 40]
    assert len(logged) == 1 and logged[0].exc_info


async def test_a_refused_body_does_not_reset_the_connection_before_its_answer_is_read(server):
    """RFC 9112 9.6: a server that closes at once while the client is still sending risks a TCP reset
    that destroys the answer it just wrote (the client sees "connection reset", not the 413). The
    server half-closes and reads on (bounded) until the client hangs up."""
    reader, writer = await asyncio.open_connection("127.0.0.1", server)
    writer.write(b"POST /echo HTTP/1.1\r\nHost: b\r\nContent-Length: 3000000\r\n\r\n")
    writer.write(b"x" * 3_000_000)                  # the body, sent on whatever the answer
    sending = asyncio.create_task(writer.drain())
    try:
        answer = await read_answer(reader, HTTPClient(["POST"]))
        assert answer.status == 413 and json.loads(answer.body)["error"]
    finally:
        sending.cancel()
        writer.close()


async def test_an_http_1_0_client_gets_no_100_continue(server):
    """RFC 9110 10.1.1: a server that receives a 100-continue expectation in an HTTP/1.0 request MUST
    ignore it (an HTTP/1.0 client reads a 100 as the final answer)."""
    raw = await exchange(server, b"POST /echo HTTP/1.0\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\nhi")
    [(status, _, body)] = responses(raw)
    assert status == 200 and json.loads(body)["body"] == "hi"


async def test_pipelined_requests_let_the_board_run_between_them():
    """The page shares the board's event loop, and a request whose answer fits the buffers is served
    without a suspension: 300 pipelined requests in one packet held the loop until all were
    answered. Each request now yields to the loop first."""
    served = [0]

    async def count(request: Request) -> Response:
        served[0] += 1
        return Response("ok")

    http = HTTPServer(count, ConnectionGuard(time.monotonic))
    port = await http.start("127.0.0.1", 0)
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    turns: list[int] = []
    try:
        writer.write(get("/x") * 299 + get("/x", "Connection: close\r\n"))

        async def board() -> None:
            while True:
                turns.append(served[0])
                if served[0] >= 300:
                    break
                await asyncio.sleep(0)

        await asyncio.wait_for(board(), 5)
        assert len(http_responses(await asyncio.wait_for(reader.read(), 5))) == 300
    finally:
        writer.close()
        await http.stop()
    assert max(b - a for a, b in zip([0] + turns, turns)) <= 2      # served between two of the board's turns


async def test_an_absolute_form_target_is_accepted_and_its_authority_is_the_host(server):
    """RFC 9112 3.2.2: a server MUST accept the absolute-form, and MUST ignore the Host header then,
    using the target's authority instead (what the Origin and Host checks then compare)."""
    [(status, _, body)] = responses(await exchange(
        server, b"GET HTTP://board:8080/echo?x=1 HTTP/1.1\r\nHost: other\r\nConnection: close\r\n\r\n"))
    answer = json.loads(body)
    assert status == 200 and answer["path"] == "/echo" and answer["query"] == {"x": "1"}
    assert answer["host"] == "board:8080"
    [(status, _, body)] = responses(await exchange(
        server, b"GET http://board?x=2 HTTP/1.1\r\nHost: board\r\nConnection: close\r\n\r\n"))
    assert status == 404 and json.loads(body)["error"] == "no such page"          # the path "/"


def test_a_higher_minor_version_is_read_as_http_1_1():
    """RFC 9110 6.2: a message of a higher minor version SHOULD be processed as the highest minor
    version the recipient knows; another major version stays a 505."""
    assert parse_head(b"GET / HTTP/1.7\r\nHost: x\r\n\r\n")[2] == "HTTP/1.1"
    with pytest.raises(HTTPError) as refused:
        parse_head(b"GET / HTTP/3.0\r\nHost: x\r\n\r\n")
    assert refused.value.status == 505


async def test_only_whole_empty_lines_are_ignored_before_a_request_line(server):
    """RFC 9112 2.2 ignores empty lines (CRLF); a bare CR is still refused (a recipient MUST treat it
    as invalid or replace it with SP)."""
    [(status, _, _)] = responses(await exchange(server, b"\r\n\r\r\n" + get("/echo", "Connection: close\r\n")))
    assert status == 400


# -- issue 26: what a new user or an attacker still met ---------------------------------------------------

@pytest.mark.parametrize("request_bytes, status", [
    (b"HEAD / HTTP/1.1\r\nHost: b\r\nContent-Length: 99999\r\n\r\n", 413),
    (b"HEAD / HTTP/1.1\r\nHost: b\r\nTransfer-Encoding: chunked\r\n\r\n", 411),
    (b"HEAD /%ff HTTP/1.1\r\nHost: b\r\n\r\n", 400),                       # not UTF-8
    (b"HEAD / HTTP/1.1\r\nHost: b\r\nBad Name: 1\r\n\r\n", 400),            # a malformed header
    (b"HEAD / HTTP/1.1\r\nHost: b\r\nX-Long: " + b"a" * 5000 + b"\r\n\r\n", 431),
    (b"HEAD / HTTP/1.1\r\nHost: b\r\n" + (b"X-Long: " + b"a" * 4000 + b"\r\n") * 5 + b"\r\n", 431),   # past MAX_HEAD
    (b"HEAD /" + b"a" * 20_000 + b" HTTP/1.1\r\nHost: b\r\n\r\n", 414),
])
async def test_an_error_answered_to_a_head_request_carries_no_body(server, request_bytes, status):
    """RFC 9110 9.3.2: the server MUST NOT send content in the response to HEAD, errors included:
    a 413 came with its 48 bytes of JSON, which a client reads as the start of the next answer.
    The head still says the length a GET's answer would have."""
    received = await exchange(server, request_bytes)
    [(got, headers, body)] = responses(received, ["HEAD"])     # h11 fails on bytes after the head
    assert got == status and body == b"" and int(headers["content-length"]) > 0
    assert received.raw.endswith(b"\r\n\r\n") and received.closed


@pytest.mark.parametrize("length, status", [(5_000, 414), (20_000, 414), (MAX_HEAD - 100, 414)])
async def test_a_request_line_too_long_is_a_414_however_long(server, length, status):
    """RFC 9112 3: a request-target longer than the server parses MUST be answered 414. A target of
    20,000 bytes overran the whole head's limit first and was answered 431 (headers too large),
    while one of 5,000 got its 414."""
    [(got, headers, body)] = responses(await exchange(server, get("/" + "a" * length)))
    assert got == status and "address" in json.loads(body)["error"] and headers["connection"] == "close"


async def test_headers_past_the_head_limit_after_a_short_request_line_stay_a_431(server):
    [(got, _, _)] = responses(await exchange(server, get("/echo", ("X-Long: " + "a" * 4000 + "\r\n") * 5)))
    assert got == 431


@pytest.mark.parametrize("method", ["FOO", "TRACE", "DELETE", "OPTIONS"])
async def test_a_method_no_route_implements_is_a_501(server, method):
    """RFC 9110 9.1, 15.6.2: a method the server does not implement for any resource is a 501; 405 is
    for a method it knows, on a resource that does not take it (and then Allow says which do: see
    test_unknown_paths_are_404_and_wrong_methods_405_with_allow)."""
    for path in ("/echo", "/nothing"):
        [(got, headers, body)] = responses(await exchange(
            server, f"{method} {path} HTTP/1.1\r\nHost: b\r\nConnection: close\r\n\r\n".encode()))
        assert got == 501 and method in json.loads(body)["error"] and "allow" not in headers


class _ResetAfterTheAnswer(ConnectionGuard):
    """A connection guard whose ``end()`` (called once an answer is written, before the half-close) is
    the moment a client reads 10 bytes of its answer and resets the connection (SO_LINGER 0): the
    reset is in the server's kernel before its write_eof(), as when a real client raced it (it did
    294 times in 300 from another thread), and no time is waited on."""

    def __init__(self) -> None:
        super().__init__(time.monotonic)
        self.client: socket.socket | None = None
        self.reset = asyncio.Event()

    def end(self, transport) -> None:
        super().end(transport)
        if self.client is not None:
            assert len(self.client.recv(10)) == 10                 # written: in the client's buffer
            self.client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.client.close()                                    # a TCP reset
            self.client = None
            self.reset.set()


@pytest.mark.parametrize("request_bytes", [
    b"GET /echo HTTP/1.1\r\nHost: b\r\nConnection: close\r\n\r\n",       # reset before the half-close
    b"POST /echo HTTP/1.1\r\nHost: b\r\nContent-Length: 99999\r\n\r\n",    # after an error's answer
    b"GET /echo HTTP/1.1\r\nHost: b\r\n\r\n",                               # between two requests
])
async def test_a_client_that_resets_after_reading_part_of_its_answer_is_no_fault(request_bytes, caplog):
    """A client that reads 10 bytes of its answer and closes with SO_LINGER 0 (a TCP reset) made the
    half-close raise OSError 107 (ENOTCONN), logged as an ERROR "the page's connection ... failed"
    with a stack trace. A client that goes away is normal life: one debug line, no trace."""
    router = Router()
    router.add_get("/echo", _echo)
    router.add_post("/echo", _echo)

    async def app(request: Request) -> Response:
        return await router.resolve(request)(request)

    guard = _ResetAfterTheAnswer()
    http = HTTPServer(app, guard, max_body=1024)
    port = await http.start("127.0.0.1", 0)
    caplog.set_level(logging.DEBUG, logger="netserver")
    try:
        guard.client = socket.create_connection(("127.0.0.1", port))
        guard.client.sendall(request_bytes)
        await asyncio.wait_for(guard.reset.wait(), 2)

        async def ended() -> None:
            while guard.open:
                await asyncio.sleep(0.01)

        await asyncio.wait_for(ended(), 2)
        [(status, _, _)] = responses(await exchange(port, get("/echo", "Connection: close\r\n")))
        assert status == 200                                       # and the server serves on
    finally:
        await http.stop()
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING or r.exc_info]
    said = [r.getMessage() for r in caplog.records if r.name.startswith("netserver")]
    assert len(said) == 1 and "127.0.0.1" in said[0] and "\n" not in said[0], said


@pytest.mark.parametrize("request_line", [b"CONNECT board:443 HTTP/1.1", b"CONNECT [::1]:8080 HTTP/1.1",
                                          b"OPTIONS * HTTP/1.1"])
async def test_connect_and_options_for_the_whole_server_are_501_not_400(server, request_line):
    """RFC 9112 3.2.3 and 3.2.4: CONNECT's target is an authority and ``OPTIONS *`` asks about the
    server itself; both are well-formed requests for methods this server does not implement (RFC
    9110 15.6.2: 501), not malformed ones (they got a 400)."""
    [(status, headers, body)] = responses(await exchange(server, request_line + b"\r\nHost: b\r\n\r\n"))
    assert status == 501 and request_line.split(b" ")[0].decode() in json.loads(body)["error"]


@pytest.mark.parametrize("head", [b"GET board:443 HTTP/1.1\r\nHost: b\r\n\r\n", b"GET * HTTP/1.1\r\nHost: b\r\n\r\n",
                                  b"CONNECT board HTTP/1.1\r\nHost: b\r\n\r\n", b"CONNECT * HTTP/1.1\r\nHost: b\r\n\r\n",
                                  b"OPTIONS board:443 HTTP/1.1\r\nHost: b\r\n\r\n"])
def test_the_authority_and_asterisk_forms_belong_to_connect_and_options_alone(head):
    with pytest.raises(HTTPError) as refused:
        parse_head(head)
    assert refused.value.status == 400

