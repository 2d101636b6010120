"""Limits of the web companion against a hostile LAN: connections, slow clients, bad JSON, log floods.

* :class:`ConnectionGuard` wraps the server's protocol factory: at most ``per_client``
  connections from one address and ``total`` in all (so many idle connections cannot take the
  service's file handles: the recorder keeps ``RESERVED_FDS`` of them), and :meth:`sweep`
  closes a connection that has not brought a whole request within ``idle_s`` of opening or of
  its previous answer (slow or idle clients), aborts one whose request is not answered within
  ``busy_s`` (a client that does not read its answer) or that has been closing for ``idle_s``
  (its unread buffer held it). A websocket is bounded by its heartbeat instead, and websockets
  have caps of their own (``sockets`` in all, ``sockets_per_client``), below the connections'
  so that pages and commands still get through. Time is passed in.
* :func:`parse_json` reads a request body: nesting, number sizes and non-standard constants
  bounded, every failure a :class:`ValueError` with a message (never a RecursionError).
* :class:`LogLimiter`: one journal line per client per minute for the same kind of fault.
"""
from __future__ import annotations

import asyncio
import json
import logging
import resource
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)

RESERVED_FDS = 128      # file handles kept for the recorder, the sensors, the LEDs, the engine
MAX_CONNECTIONS = 256
PER_CLIENT = 16
MAX_SOCKETS = 64        # websockets: each holds buffers and tasks for as long as its page is open
SOCKETS_PER_CLIENT = 8
IDLE_S = 10.0           # to send a whole request head, or between two requests
BODY_S = 10.0           # to send a whole body once the head is in
BUSY_S = 60.0           # to answer a request once its head is in, the answer read by the client
MAX_DEPTH = 16
MAX_NUMBER_DIGITS = 30


def connection_cap(wanted: int = MAX_CONNECTIONS, reserved: int = RESERVED_FDS) -> int:
    """How many connections the server may hold: ``wanted``, fewer if the process's file-handle
    limit (RLIMIT_NOFILE, systemd's LimitNOFILE) would not leave ``reserved`` for the rest."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(8, min(wanted, soft - reserved))


@dataclass
class _Connection:
    client: str
    transport: asyncio.Transport
    since: float            # opened, the start of the request being handled, or the end of the last one
    busy: int = 0           # requests being handled (a websocket stays busy while open)
    upgraded: bool = False  # a websocket: its heartbeat bounds it, not busy_s
    closing_since: float | None = None   # when the sweep first saw it closing


class _Proxy(asyncio.Protocol):
    """The server's protocol behind the guard: counted when made, forgotten when lost."""

    def __init__(self, guard: "ConnectionGuard", inner: asyncio.Protocol) -> None:
        self.guard = guard
        self.inner = inner
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # A stream server (loop.create_server) always hands its protocol a Transport, TCP or TLS.
        assert isinstance(transport, asyncio.Transport)
        if not self.guard.admit(transport):
            transport.abort()
            return
        self.transport = transport
        self.inner.connection_made(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.transport is not None:
            self.guard.forget(self.transport)
            self.inner.connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received()

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()


class ConnectionGuard:
    """Counts and bounds the server's connections; see the module docstring."""

    def __init__(self, clock: Callable[[], float], *, total: int | None = None, per_client: int = PER_CLIENT,
                 idle_s: float = IDLE_S, busy_s: float = BUSY_S, sockets: int = MAX_SOCKETS,
                 sockets_per_client: int = SOCKETS_PER_CLIENT) -> None:
        self.clock = clock
        self.total = total if total is not None else connection_cap()
        self.per_client = per_client
        self.idle_s = idle_s
        self.busy_s = busy_s
        self.sockets = sockets
        self.sockets_per_client = sockets_per_client
        self.refused = 0
        self.closed_idle = 0
        self._by_transport: dict[int, _Connection] = {}
        self._per_client: dict[str, int] = {}
        self._warned: dict[str, float] = {}

    def factory(self, inner: Callable[[], asyncio.Protocol]) -> Callable[[], asyncio.Protocol]:
        return lambda: _Proxy(self, inner())

    @property
    def open(self) -> int:
        return len(self._by_transport)

    def admit(self, transport: asyncio.Transport) -> bool:
        peer = transport.get_extra_info("peername")
        client = str(peer[0]) if isinstance(peer, tuple) and peer else "?"
        now = self.clock()
        if len(self._by_transport) >= self.total or self._per_client.get(client, 0) >= self.per_client:
            self.refused += 1
            if now - self._warned.get(client, float("-inf")) >= 60.0:
                self._warned[client] = now
                if len(self._warned) > 1024:
                    self._warned.clear()
                log.warning("too many connections (%s from %s, %d in all): refusing more",
                            self._per_client.get(client, 0), client, len(self._by_transport))
            return False
        self._by_transport[id(transport)] = _Connection(client, transport, now)
        self._per_client[client] = self._per_client.get(client, 0) + 1
        return True

    def forget(self, transport: asyncio.Transport) -> None:
        conn = self._by_transport.pop(id(transport), None)
        if conn is None:
            return
        left = self._per_client.get(conn.client, 1) - 1
        if left > 0:
            self._per_client[conn.client] = left
        else:
            self._per_client.pop(conn.client, None)

    def begin(self, transport: Any) -> None:
        """A request arrived on ``transport`` (called by the server's middleware)."""
        conn = self._by_transport.get(id(transport))
        if conn is not None:
            conn.busy += 1
            if conn.busy == 1:
                conn.since = self.clock()

    def may_upgrade(self, transport: Any) -> bool:
        """Whether ``transport`` may become a websocket: under both of their caps, and half the connections."""
        conn = self._by_transport.get(id(transport))
        if conn is None:
            return True
        upgraded = [c for c in self._by_transport.values() if c.upgraded]
        return len(upgraded) < min(self.sockets, max(1, self.total // 2)) and \
            sum(c.client == conn.client for c in upgraded) < self.sockets_per_client

    def upgraded(self, transport: Any) -> None:
        """``transport`` is a websocket now: busy for as long as it is open, bounded by its heartbeat."""
        conn = self._by_transport.get(id(transport))
        if conn is not None:
            conn.upgraded = True

    def end(self, transport: Any) -> None:
        conn = self._by_transport.get(id(transport))
        if conn is not None:
            conn.busy = max(0, conn.busy - 1)
            conn.since = self.clock()

    def close_all(self) -> None:
        """Close every connection (the server is stopping)."""
        for conn in list(self._by_transport.values()):
            if not conn.transport.is_closing():
                conn.transport.close()

    def sweep(self, now: float) -> int:
        """Close every connection idle (no request being handled) for ``idle_s``, abort those busy
        for ``busy_s`` (not websockets); how many. Abort those closing for ``idle_s``."""
        closed = 0
        for conn in list(self._by_transport.values()):
            if conn.transport.is_closing():
                if conn.closing_since is None:
                    conn.closing_since = now
                elif now - conn.closing_since >= self.idle_s:
                    conn.transport.abort()   # counted when it was closed
            elif conn.busy == 0 and now - conn.since >= self.idle_s:
                conn.transport.close()
                conn.closing_since = now
                closed += 1
            elif conn.busy and not conn.upgraded and now - conn.since >= self.busy_s:
                conn.transport.abort()   # close() would wait on its buffer
                closed += 1
        self.closed_idle += closed
        return closed


class _Bounded(ValueError):
    pass


def _number(text: str) -> int:
    if len(text.lstrip("-")) > MAX_NUMBER_DIGITS:
        raise _Bounded(f"a number of {len(text.lstrip('-'))} digits")
    return int(text)


def _float(text: str) -> float:
    if len(text) > MAX_NUMBER_DIGITS + 10:
        raise _Bounded(f"a number of {len(text)} characters")
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise _Bounded(f"a number too large ({text[:20]})")
    return value


def _constant(name: str) -> Any:
    raise _Bounded(f"{name} is not JSON")


def _depth(text: str) -> int:
    """The deepest nesting of brackets in ``text``, outside strings."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_DEPTH:
                    return deepest
        elif ch in "]}":
            depth -= 1
    return deepest


def parse_json(text: str) -> Any:
    """A request body parsed, or ValueError saying why not (in words, with the position)."""
    if _depth(text) > MAX_DEPTH:
        raise ValueError(f"the body is nested more than {MAX_DEPTH} levels deep")
    try:
        return json.loads(text, parse_int=_number, parse_float=_float, parse_constant=_constant)
    except _Bounded as exc:
        raise ValueError(f"the body holds {exc}") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"the body is not valid JSON ({exc.msg}, at character {exc.pos})") from None
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"the body is not usable JSON ({type(exc).__name__})") from None


class LogLimiter:
    """Whether to write a journal line: once per (client, kind) per ``period_s``."""

    def __init__(self, period_s: float = 60.0, max_keys: int = 4096) -> None:
        self.period_s = period_s
        self.max_keys = max_keys
        self.suppressed = 0
        self._last: dict[tuple[str, str], float] = {}

    def allow(self, client: str, kind: str, now: float) -> bool:
        key = (client, kind)
        last = self._last.get(key)
        if last is not None and now - last < self.period_s:
            self.suppressed += 1
            return False
        if len(self._last) >= self.max_keys:
            self._last = {k: t for k, t in self._last.items() if now - t < self.period_s}
            if len(self._last) >= self.max_keys:
                self._last.clear()
        self._last[key] = now
        return True


__all__ = ["ConnectionGuard", "LogLimiter", "parse_json", "connection_cap", "RESERVED_FDS", "IDLE_S", "BODY_S",
           "BUSY_S"]
