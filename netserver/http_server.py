"""A small HTTP/1.1 server on asyncio streams for the page: bounded requests, routes, WebSocket upgrade.

What the web companion needs of HTTP (RFC 9110/9112) and no more, in a few hundred kilobytes
where importing aiohttp's server alone took 14 MB of resident memory (bench/service.py):

* :class:`HTTPServer` reads requests one after the other on each connection (keep-alive and
  pipelining), hands each to the application (an ``async`` function from :class:`Request` to
  :class:`Response`) and writes the answer. Connections are admitted, counted and swept by a
  :class:`~netserver.limits.ConnectionGuard`: a request is "busy" from its head to its answer.
  Each request yields to the loop first: the board shares it. An application's crash is a 500
  in words, logged once a minute per client.
* Requests are bounded before the application sees them: a head of at most ``MAX_HEAD`` bytes
  (431), a request line of ``MAX_LINE`` (414, however long), header lines of ``MAX_LINE`` (431), a body of
  ``max_body`` bytes (413) given by Content-Length only (chunked bodies get 411; both headers, two
  lengths or a coding that does not end with chunked, 400: no request smuggling), within
  ``BODY_S`` (408). A malformed request (RFC 9112 to the letter: no bare CR or LF inside a line,
  ASCII digits, a valid Host) gets a 400 that says what is wrong, and the connection is closed
  after any such error, gently (half-closed, the rest read and dropped: RFC 9112 9.6).
* :class:`Router` maps a method and a path (``/games/{id}.pgn``) to a handler: 501 for a method
  no route takes (RFC 9110 15.6.2: not implemented; ``CONNECT host:port`` and ``OPTIONS *`` are
  well formed, so 501 too), 404 for an unknown path, 405 (with
  ``Allow``) for a method the path does not take; GET routes answer HEAD too.
* An answer to HEAD has no content, errors included (RFC 9110 9.3.2), and a client that resets
  the connection (a TCP reset: gone mid-answer or before the half-close) is no fault of ours: one
  debug line (:func:`peer_gone`), no trace.
* :meth:`Request.upgrade` answers a WebSocket handshake (RFC 6455, 4.2) and returns the
  :class:`~netserver.websocket.WebSocket`; the connection is the socket's from then on.
"""
from __future__ import annotations

import asyncio
import errno
import http
import ipaddress
import json
import logging
import re
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar, overload
from urllib.parse import parse_qsl, unquote

from netserver.limits import BODY_S, ConnectionGuard, LogLimiter
from netserver.websocket import WebSocket, accept_key, valid_key

log = logging.getLogger(__name__)

MAX_HEAD = 16 * 1024     # the request line and every header
MAX_LINE = 4096          # one line of it
MAX_HEADERS = 64
STOP_WAIT_S = 2.0        # how long stop() waits for handlers to end
LINGER_S = 2.0           # after the last answer, how long to wait for more of what the client sends
# Matched with fullmatch: a "$" would let a name or value end in a bare line feed.
TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")              # RFC 9110 5.6.2
FIELD_VALUE = re.compile(r"[\t\x20-\x7e\x80-\xff]*")              # no control characters
TARGET = re.compile(r"/[\x21-\x22\x24-\x7e]*")                      # origin-form: visible ASCII, no "#"
HOST = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~!$&'()*+,;=%]*)(:[0-9]*)?")   # RFC 9112 3.2, RFC 3986 3.2.2
ABSOLUTE = re.compile(r"(?i:https?)://([^/?#]+)(.*)")    # RFC 9112 3.2.2 absolute-form; no empty host (RFC 9110 4.2.1)
AUTHORITY = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~!$&'()*+,;=%]+):[0-9]{1,5}")   # RFC 9112 3.2.3, CONNECT's
DIGITS = re.compile(r"[0-9]{1,12}")                                 # ASCII only: str.isdigit() takes "²"
CONTENT_TYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml",
                 ".png": "image/png", ".ico": "image/x-icon", ".json": "application/json", ".txt": "text/plain"}
TEXT_TYPES = {"text/html", "text/javascript", "text/css", "image/svg+xml", "application/json", "text/plain"}
STATIC_NAME = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9._-]*$")
UPGRADE = {"Upgrade": "websocket", "Connection": "Upgrade"}   # a 426's (RFC 9110 15.5.22, 7.8)
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def http_date(seconds: float) -> str:
    """An IMF-fixdate (RFC 9110, 5.6.7), whatever the locale."""
    t = time.gmtime(seconds)
    return (f"{_DAYS[t.tm_wday]}, {t.tm_mday:02d} {_MONTHS[t.tm_mon - 1]} {t.tm_year} "
            f"{t.tm_hour:02d}:{t.tm_min:02d}:{t.tm_sec:02d} GMT")


_T = TypeVar("_T")


class Headers(dict[str, str]):
    """A request's headers by lower-case name, looked up whatever the case."""

    def __getitem__(self, name: str) -> str:
        return super().__getitem__(name.lower())

    @overload
    def get(self, name: str, default: None = None) -> str | None: ...
    @overload
    def get(self, name: str, default: str) -> str: ...
    @overload
    def get(self, name: str, default: _T) -> str | _T: ...

    def get(self, name: str, default: object = None) -> object:
        return super().get(name.lower(), default)

    def __contains__(self, name: object) -> bool:
        return super().__contains__(name.lower() if isinstance(name, str) else name)

    def tokens(self, name: str) -> set[str]:
        """A list header's tokens in lower case (``Connection: keep-alive, Upgrade``)."""
        return {t.strip().lower() for t in self.get(name, "").split(",")}


class HTTPError(Exception):
    """Answer ``status`` with ``message`` (the application turns it into its own error body)."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


class Response:
    """An answer: status, headers (as written), body bytes, and cookies to set."""

    def __init__(self, body: bytes | str = b"", *, status: int = 200, content_type: str = "text/plain",
                 charset: str | None = "utf-8", headers: dict[str, str] | None = None) -> None:
        self.status = status
        self.body = body.encode(charset or "utf-8") if isinstance(body, str) else body
        self.content_type = content_type
        self.charset = charset if content_type in TEXT_TYPES or content_type.startswith("text/") or \
            content_type == "application/x-chess-pgn" else None
        self.headers: dict[str, str] = dict(headers or {})
        self.cookies: list[str] = []

    def set_cookie(self, name: str, value: str, *, max_age: int | None = None, path: str = "/",
                   httponly: bool = True, samesite: str = "Strict") -> None:
        parts = [f"{name}={value}", f"Path={path}"]
        if max_age is not None:
            parts.append(f"Max-Age={max_age}")
        if httponly:
            parts.append("HttpOnly")
        parts.append(f"SameSite={samesite}")
        self.cookies.append("; ".join(parts))

    def del_cookie(self, name: str, *, path: str = "/") -> None:
        self.cookies.append(f'{name}=""; Path={path}; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT')

    @property
    def has_body(self) -> bool:
        """Whether the answer has content and says its length: not a 1xx, 204 or 304 (RFC 9110 8.6,
        RFC 9112 6.3: a 304 may only repeat the 200's length, so it says none)."""
        return self.status >= 200 and self.status not in (204, 304)

    def head(self, *, keep_alive: bool, now: float, say_keep_alive: bool = False) -> bytes:
        """The status line and headers, ending with the blank line. ``say_keep_alive``: an HTTP/1.0
        client keeps the connection only if told ``Connection: keep-alive`` (RFC 9112 C.2.2)."""
        reason = http.HTTPStatus(self.status).phrase if self.status in http.HTTPStatus._value2member_map_ else ""
        content_type = self.content_type + (f"; charset={self.charset}" if self.charset else "")
        lines = [f"HTTP/1.1 {self.status} {reason}", f"Date: {http_date(now)}"]
        if self.has_body:
            lines.append(f"Content-Type: {content_type}")
            lines.append(f"Content-Length: {len(self.body)}")
        lines.extend(f"{name}: {value}" for name, value in self.headers.items())
        lines.extend(f"Set-Cookie: {cookie}" for cookie in self.cookies)
        if not keep_alive:
            lines.append("Connection: close")
        elif say_keep_alive:
            lines.append("Connection: keep-alive")
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def json_response(data: Any, *, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(json.dumps(data), status=status, content_type="application/json", headers=headers)


def file_response(path: Path, request: "Request", headers: dict[str, str] | None = None) -> Response:
    """A small file, with an ETag; 304 when the client holds this version. HTTPError(404) if absent."""
    try:
        stat = path.stat()
        if not path.is_file():
            raise FileNotFoundError(path)
        body = path.read_bytes()
    except OSError:
        raise HTTPError(404, "no such file") from None
    etag = f'"{stat.st_mtime_ns:x}-{stat.st_size:x}"'
    content_type = CONTENT_TYPES.get(path.suffix.lower(), "application/octet-stream")
    response = Response(body, content_type=content_type, headers={"ETag": etag, **(headers or {})})
    if _none_match(request.headers.get("if-none-match"), etag):
        response.status, response.body = 304, b""
    return response


def _none_match(header: str | None, etag: str) -> bool:
    """Whether If-None-Match fails for ``etag``: "*" or a weakly equal tag (RFC 9110 13.1.2, 8.8.3.2)."""
    if header is None:
        return False
    tags = [t.strip() for t in header.split(",")]
    return "*" in tags or etag.removeprefix("W/") in (t.removeprefix("W/") for t in tags)


def static_file(directory: Path, name: str) -> Path:
    """The file ``name`` in ``directory`` (no sub-folder, no dot file); HTTPError(404) otherwise."""
    if not STATIC_NAME.match(name):
        raise HTTPError(404, "no such file")
    return directory / name


class Request:
    """One request, its body read and bounded."""

    def __init__(self, method: str, target: str, version: str, headers: Headers, *, remote: str,
                 transport: asyncio.BaseTransport, reader: asyncio.StreamReader | None = None,
                 writer: asyncio.StreamWriter | None = None, on_upgrade: Callable[[], None] | None = None,
                 may_upgrade: Callable[[], bool] | None = None) -> None:
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers                   # lower-case names
        self.remote = remote
        self.transport = transport
        self.body = b""
        self.match_info: dict[str, str] = {}
        self.state: dict[str, Any] = {}          # what the application notes about the request
        self.websocket: WebSocket | None = None
        self._reader, self._writer = reader, writer
        self._on_upgrade = on_upgrade            # told once the connection is a websocket
        self._may_upgrade = may_upgrade          # asked before: under the websockets' caps
        raw_path, _, self.query_string = target.partition("?")
        self.path = unquote(raw_path, errors="strict")

    @property
    def host(self) -> str:
        return self.headers.get("host", "")

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "").split(";", 1)[0].strip().lower()

    @property
    def query(self) -> dict[str, str]:
        return dict(parse_qsl(self.query_string))

    @property
    def cookies(self) -> dict[str, str]:
        """The Cookie header's pairs (a malformed pair is skipped, not an error)."""
        found: dict[str, str] = {}
        for pair in self.headers.get("cookie", "").split(";"):
            name, sep, value = pair.strip().partition("=")
            if sep and name and name not in found:
                found[name] = value.strip().strip('"')
        return found

    @property
    def keep_alive(self) -> bool:
        tokens = self.headers.tokens("connection")
        if self.version == "HTTP/1.0":
            return "keep-alive" in tokens
        return "close" not in tokens

    def wants_websocket(self) -> bool:
        """An HTTP/1.1 request to upgrade to WebSocket (RFC 6455 4.2.1; RFC 9110 7.8: an HTTP/1.0
        request's Upgrade is ignored)."""
        return (self.version == "HTTP/1.1" and "websocket" in self.headers.tokens("upgrade")
                and "upgrade" in self.headers.tokens("connection"))

    async def upgrade(self, response_headers: Response | None = None, *, max_msg_size: int = 4096,
                      heartbeat: float | None = 30.0) -> WebSocket:
        """Answer the WebSocket handshake (101) and return the socket; HTTPError if it is not one.
        ``response_headers``' headers and cookies go with the 101."""
        if self.method != "GET" or not self.wants_websocket():
            raise HTTPError(426, "this address speaks WebSocket only (Upgrade: websocket)", headers=dict(UPGRADE))
        if self.headers.get("sec-websocket-version") != "13":
            raise HTTPError(426, "WebSocket version 13 only",
                            headers={**UPGRADE, "Sec-WebSocket-Version": "13"})
        key = self.headers.get("sec-websocket-key")
        if not valid_key(key):
            raise HTTPError(400, "Sec-WebSocket-Key must be a base64 nonce of 16 bytes")
        if self._may_upgrade is not None and not self._may_upgrade():
            raise HTTPError(503, "too many live pages are open on this board: close one, or try again soon",
                            headers={"Retry-After": "10"})
        assert self._writer is not None and self._reader is not None and key is not None
        switching = response_headers if response_headers is not None else Response()
        switching.status = 101
        switching.headers = {**UPGRADE, "Sec-WebSocket-Accept": accept_key(key), **switching.headers}
        self._writer.write(switching.head(keep_alive=True, now=time.time()))
        await self._writer.drain()
        self.websocket = WebSocket(self._reader, self._writer, max_msg_size=max_msg_size, heartbeat=heartbeat)
        if self._on_upgrade is not None:
            self._on_upgrade()
        return self.websocket


def parse_head(head: bytes) -> tuple[str, str, str, Headers]:
    """(method, target, version, headers by lower-case name) of a request head; HTTPError(400/414/431/505)."""
    try:
        text = head.decode("latin-1")
    except UnicodeDecodeError:  # pragma: no cover - latin-1 decodes every byte
        raise HTTPError(400, "the request head is not text") from None
    lines = text[:-4].split("\r\n") if text.endswith("\r\n\r\n") else text.split("\r\n")
    request_line, fields = lines[0], lines[1:]
    if len(request_line) > MAX_LINE:     # RFC 9112 3: a target too long to parse MUST be a 414
        raise _too_long()
    if any(len(line) > MAX_LINE for line in fields):
        raise HTTPError(431, f"a line of the request is longer than {MAX_LINE} bytes")
    if len(fields) > MAX_HEADERS:
        raise HTTPError(431, f"more than {MAX_HEADERS} headers")
    parts = request_line.split(" ")
    if len(parts) != 3 or not TOKEN.fullmatch(parts[0]) or not parts[1]:
        raise HTTPError(400, "the request line must be METHOD /path HTTP/1.1")
    method, target, version = parts
    if re.fullmatch(r"HTTP/1\.[2-9]", version):
        version = "HTTP/1.1"             # RFC 9110 6.2: the highest minor version known
    if version not in ("HTTP/1.1", "HTTP/1.0"):
        if re.fullmatch(r"HTTP/\d\.\d", version):
            raise HTTPError(505, "HTTP/1.1 only")
        raise HTTPError(400, "the request line must end with HTTP/1.1")
    authority = None
    absolute = ABSOLUTE.fullmatch(target)
    if absolute:   # RFC 9112 3.2.2: accepted, and its authority is the host
        authority, target = absolute.group(1), absolute.group(2) or "/"
        target = "/" + target if target.startswith("?") else target
    # RFC 9112 3.2.3-3.2.4: CONNECT's authority and OPTIONS * are well formed (a router that takes
    # neither method answers 501); any other target is a path.
    if not (TARGET.fullmatch(target) or (method == "CONNECT" and AUTHORITY.fullmatch(target))
            or (method == "OPTIONS" and target == "*")):
        raise HTTPError(400, "the request target must be a path (/...) in visible ASCII")
    headers = Headers()
    for line in fields:
        name, colon, value = line.partition(":")
        if not colon or not TOKEN.fullmatch(name):
            raise HTTPError(400, "a header line is malformed (or folded over two lines)")
        value = value.strip(" \t")
        if not FIELD_VALUE.fullmatch(value):
            raise HTTPError(400, f"the header {name} holds control characters")
        key = name.lower()
        if key in headers:
            if key in ("host", "content-length", "transfer-encoding", "content-type"):
                raise HTTPError(400, f"the header {name} is given twice")
            dict.__setitem__(headers, key, headers[key] + ("; " if key == "cookie" else ", ") + value)
        else:
            dict.__setitem__(headers, key, value)
    if version == "HTTP/1.1" and "host" not in headers:
        raise HTTPError(400, "an HTTP/1.1 request needs a Host header")
    if authority is not None:
        dict.__setitem__(headers, "host", authority)
    host = HOST.fullmatch(headers.get("host", ""))
    if not host or not _ip_literal(host.group(1)):
        raise HTTPError(400, "the Host header must be a host name or address, and a port")
    return method, target, version, headers


def _too_long() -> HTTPError:
    return HTTPError(414, f"the address is longer than {MAX_LINE} bytes")


def _overrun(start: bytes) -> HTTPError:
    """The error for a head longer than ``MAX_HEAD``, from its first bytes: a 414 if its request line
    alone is too long (RFC 9112 3: however long it is), else a 431."""
    line_end = start.lstrip(b"\r\n").find(b"\n")
    if line_end == -1 or line_end > MAX_LINE + 1:
        return _too_long()
    return HTTPError(431, f"the request head is larger than {MAX_HEAD} bytes")


def _is_head(start: bytes) -> bool:
    """Whether the request that begins with ``start`` is a HEAD, even one refused before it is parsed:
    its answer must have no content (RFC 9110 9.3.2)."""
    return start.lstrip(b"\r\n").startswith(b"HEAD ")


PEER_GONE = {errno.ENOTCONN, errno.ECONNRESET, errno.EPIPE, errno.ECONNABORTED, errno.ESHUTDOWN, errno.ETIMEDOUT}


def peer_gone(exc: BaseException) -> bool:
    """Whether ``exc`` says the client went away (hung up mid-request, reset the connection: ENOTCONN
    from a half-close after a reset, ECONNRESET, EPIPE...) rather than that something here failed."""
    return isinstance(exc, (ConnectionError, asyncio.IncompleteReadError)) or \
        (isinstance(exc, OSError) and exc.errno in PEER_GONE)


def _ip_literal(host: str) -> bool:
    """Whether a bracketed host is an IPv6 address (anything else passes: a name, IPv4)."""
    if not host.startswith("["):
        return True
    try:
        ipaddress.IPv6Address(host[1:-1])
    except ValueError:
        return False
    return True


def body_length(headers: dict[str, str], max_body: int) -> int:
    """The body's length from Content-Length; HTTPError for chunked, smuggling or too large."""
    if "transfer-encoding" in headers:
        if "content-length" in headers:
            raise HTTPError(400, "Content-Length and Transfer-Encoding together")
        if headers["transfer-encoding"].rsplit(",", 1)[-1].strip().lower() != "chunked":
            # RFC 9112 6.1: the length cannot be known; MUST be a 400 and a close.
            raise HTTPError(400, "a Transfer-Encoding must end with chunked")
        raise HTTPError(411, "send the body with a Content-Length (no chunked bodies here)")
    text = headers.get("content-length")
    if text is None:
        return 0
    if not DIGITS.fullmatch(text):
        raise HTTPError(400, "Content-Length must be a number of bytes")
    length = int(text)
    if length > max_body:
        raise HTTPError(413, f"the body is larger than {max_body} bytes")
    return length


Application = Callable[[Request], Awaitable[Response]]


class Router:
    """Handlers by method and path pattern (``{name}`` matches one path segment)."""

    def __init__(self) -> None:
        self._exact: dict[str, dict[str, Application]] = {}
        self._patterns: list[tuple[re.Pattern[str], dict[str, Application]]] = []
        self.methods: set[str] = set()          # those some route takes; any other is a 501

    def add(self, method: str, path: str, handler: Callable[[Request], Awaitable[Response]]) -> None:
        methods = ("GET", "HEAD") if method == "GET" else (method,)
        if "{" in path:
            regex = re.compile("^" + re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^{}/]+)", re.escape(path)) + "$")
            table = next((t for r, t in self._patterns if r.pattern == regex.pattern), None)
            if table is None:
                table = {}
                self._patterns.append((regex, table))
        else:
            table = self._exact.setdefault(path, {})
        for m in methods:
            table[m] = handler
        self.methods.update(methods)

    def add_get(self, path: str, handler: Callable[[Request], Awaitable[Response]]) -> None:
        self.add("GET", path, handler)

    def add_post(self, path: str, handler: Callable[[Request], Awaitable[Response]]) -> None:
        self.add("POST", path, handler)

    def resolve(self, request: Request) -> Callable[[Request], Awaitable[Response]]:
        """The handler of ``request`` (its ``match_info`` filled in); HTTPError(501/404/405) if none."""
        if request.method not in self.methods:
            raise HTTPError(501, f"{request.method} is not a method this server implements")
        table = self._exact.get(request.path)
        if table is None:
            for regex, candidate in self._patterns:
                found = regex.match(request.path)
                if found:
                    table = candidate
                    request.match_info = found.groupdict()
                    break
        if table is None:
            raise HTTPError(404, "no such page")
        handler = table.get(request.method)
        if handler is None:
            raise HTTPError(405, f"{request.method} is not allowed here", headers={"Allow": ", ".join(sorted(table))})
        return handler


class HTTPServer:
    """Serves an application on a host and port; see the module docstring."""

    def __init__(self, app: Application, guard: ConnectionGuard, *, max_body: int = 16 * 1024,
                 on_error: Callable[[HTTPError], Response] | None = None) -> None:
        self.app = app
        self.guard = guard
        self.max_body = max_body
        self.on_error = on_error or (lambda exc: json_response({"error": exc.message}, status=exc.status,
                                                               headers=exc.headers))
        self._server: asyncio.AbstractServer | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._log_limiter = LogLimiter()         # a fault a client can repeat must not fill the journal

    async def start(self, host: str, port: int) -> int:
        """Listen on ``host:port`` (0: a free port); the port."""
        loop = asyncio.get_running_loop()

        def protocol() -> asyncio.Protocol:
            reader = asyncio.StreamReader(limit=MAX_HEAD, loop=loop)
            return asyncio.StreamReaderProtocol(reader, self._connected, loop=loop)

        self._server = await loop.create_server(self.guard.factory(protocol), host, port, reuse_address=True,
                                                backlog=128)
        bound: int = self._server.sockets[0].getsockname()[1]
        return bound

    async def stop(self) -> None:
        """Stop listening, close every connection and end their handlers (within STOP_WAIT_S)."""
        if self._server is not None:
            self._server.close()
            self._server = None
        self.guard.close_all()
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=STOP_WAIT_S)

    def _connected(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.get_running_loop().create_task(self._serve(reader, writer), name="http-connection")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _write(self, writer: asyncio.StreamWriter, response: Response, *, keep_alive: bool,
                     head_only: bool = False, http10: bool = False) -> None:
        head = response.head(keep_alive=keep_alive, now=time.time(), say_keep_alive=http10)
        writer.write(head if head_only or not response.has_body else head + response.body)   # one segment
        await writer.drain()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        transport = writer.transport
        peer = writer.get_extra_info("peername")
        remote = str(peer[0]) if isinstance(peer, tuple) and peer else ""
        try:
            while not transport.is_closing():
                await asyncio.sleep(0)   # the board shares the loop: pipelined requests must not hold it
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except asyncio.IncompleteReadError:
                    return                       # the client hung up between requests (or mid-head)
                except asyncio.LimitOverrunError:
                    start = await reader.read(MAX_LINE + 8)   # left in the buffer: what the head began with
                    await self._write(writer, self.on_error(_overrun(start)), keep_alive=False,
                                      head_only=_is_head(start))
                    break
                if head.startswith(b"\r\n"):
                    # RFC 9112 2.2: empty lines (CRLF) before a request-line are ignored (old clients
                    # send one after a POST body); the idle sweep still bounds a stream of them.
                    while head.startswith(b"\r\n"):
                        head = head[2:]
                    if not head:
                        continue
                self.guard.begin(transport)
                try:
                    if not await self._one(head, reader, writer, remote, transport):
                        break
                finally:
                    self.guard.end(transport)
            if not transport.is_closing():
                await self._linger(reader, writer)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - one connection's fault must not stop the server
            if peer_gone(exc):    # a phone that closes its page, a client that resets: normal life
                log.debug("the connection from %s ended abruptly (%s: %s)", remote, type(exc).__name__, exc)
            else:
                self._log_fault("the page's connection from %s failed (once a minute per client)", remote)
        finally:
            writer.close()

    @staticmethod
    async def _linger(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Close gently (RFC 9112 9.6): a close with unread input resets the connection, and the reset
        can destroy the answer before the client reads it. Half-close, then drop what the client
        still sends until it hangs up or pauses LINGER_S (the guard's idle sweep bounds the whole)."""
        if writer.can_write_eof():
            writer.write_eof()      # OSError ENOTCONN if the client reset the connection since its answer
        try:
            while True:
                async with asyncio.timeout(LINGER_S):
                    if not await reader.read(65536):
                        break
        except (asyncio.TimeoutError, ConnectionError):
            pass

    def _log_fault(self, message: str, remote: str) -> None:
        if self._log_limiter.allow(remote, "fault", time.monotonic()):
            log.exception(message, remote)

    async def _one(self, head: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, remote: str,
                   transport: asyncio.BaseTransport) -> bool:
        """Read, answer and write one request; whether the connection stays open."""
        head_only = _is_head(head)                 # known before the head is parsed, for its errors too
        try:
            method, target, version, headers = parse_head(head)
            request = Request(method, target, version, headers, remote=remote, transport=transport,
                              reader=reader, writer=writer, on_upgrade=lambda: self.guard.upgraded(transport),
                              may_upgrade=lambda: self.guard.may_upgrade(transport))
            length = body_length(headers, self.max_body)
            if length:
                if headers.get("expect", "").lower() == "100-continue" and version == "HTTP/1.1":
                    writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
                try:
                    async with asyncio.timeout(BODY_S):
                        request.body = await reader.readexactly(length)
                except asyncio.TimeoutError:
                    raise HTTPError(408, "the body came too slowly") from None
        except UnicodeDecodeError:
            await self._write(writer, self.on_error(HTTPError(400, "the path is not UTF-8")), keep_alive=False,
                              head_only=head_only)
            return False
        except HTTPError as exc:
            await self._write(writer, self.on_error(exc), keep_alive=False, head_only=head_only)
            return False
        try:
            response = await self.app(request)
        except HTTPError as exc:
            response = self.on_error(exc)
        except asyncio.CancelledError:
            raise
        except (ConnectionError, asyncio.IncompleteReadError):
            return False                         # the client went away mid-answer
        except Exception:  # noqa: BLE001 - the client gets words, the journal the trace
            self._log_fault("the page's application failed on a request from %s (once a minute per client)",
                            remote)
            if request.websocket is not None:
                return False
            response = self.on_error(HTTPError(500, "internal error (see the board's journal)"))
        if request.websocket is not None:
            return False                         # the socket's handler has ended: hang up
        keep_alive = request.keep_alive and response.status < 500
        await self._write(writer, response, keep_alive=keep_alive, head_only=head_only,
                          http10=version == "HTTP/1.0")
        return keep_alive


__all__ = ["HTTPServer", "HTTPError", "Request", "Response", "Router", "json_response", "file_response",
           "static_file", "parse_head", "body_length", "http_date", "peer_gone"]
