"""The names a server answers to, checked on each request's Host against DNS rebinding (RFC 9110 15.5.20: 421)."""
from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Iterable

LOOPBACK_NAMES = ("localhost", "ip6-localhost")
# WHATWG URL: a host whose last label is a number is an IPv4 address (127.1, 0x7f.1, 2130706433),
# or no valid host at all (evil.example.0x): never a name DNS could resolve, so no page is served under it.
_NUMERIC_LABEL = re.compile(r"(0[xX][0-9A-Fa-f]*|[0-9]+)")


def host_name(host: str) -> str:
    """The name in a ``Host`` header: no port, no brackets, lower case, no final dot.

    >>> host_name("Board.Local.:8080"), host_name("[::1]:80"), host_name("127.0.0.1")
    ('board.local', '::1', '127.0.0.1')
    """
    if host.startswith("["):
        name = host[1:host.find("]")] if "]" in host else host[1:]
    else:
        name = host.rpartition(":")[0] if ":" in host else host
    name = name.lower()
    return name[:-1] if name.endswith(".") else name


def is_ip_literal(name: str) -> bool:
    """Whether ``name`` (as :func:`host_name` gives it) is an address, not a name DNS resolves."""
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        pass
    labels = name.split(".")
    return 0 < len(labels) <= 4 and all(_NUMERIC_LABEL.fullmatch(label) for label in labels)


def bind_names(bind: str) -> tuple[str, ...]:
    """The address a server listens on, among the names it answers to if it is a name (not an
    address, nor "" or "0.0.0.0" for every interface)."""
    name = bind.strip("[]").lower()
    return () if not name or ":" in name or is_ip_literal(name) else (name,)


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or "localhost") is reachable from this machine only."""
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class HostNames:
    """The names a server answers to, besides any IP literal: ``localhost``, the machine's hostname
    (and the first label of a dotted one), ``<hostname>.local`` (mDNS), and ``extra`` (a setting, a
    bind name). A request addressed to any other name was sent there by DNS rebinding (a page whose
    name now points at the server), or reached the wrong server: RFC 9110 15.5.20, a 421.

    >>> names = HostNames(["chess.home.arpa"], hostname="echiquier")
    >>> [h in names for h in ("echiquier.local:8080", "[::1]", "Chess.Home.Arpa", "evil.example")]
    [True, True, True, False]
    """

    def __init__(self, extra: Iterable[str] = (), *, hostname: str | None = None) -> None:
        hostname = (socket.gethostname() if hostname is None else hostname).lower().rstrip(".")
        names = {*LOOPBACK_NAMES, *(host_name(name) for name in extra if name)}
        short = hostname.split(".", 1)[0]
        if hostname:
            names |= {hostname, short, f"{short}.local"}
        self.names = frozenset(names)
        # Avahi renames the machine "<hostname>-2.local" when the name is taken on the LAN (two
        # boards at a club night); only the LAN answers .local, so no remote page rebinds through it.
        self._renamed = re.compile(re.escape(short) + r"-[0-9]+\.local") if short else None

    def __contains__(self, host: object) -> bool:
        """Whether a ``Host`` header (a name or an address, with or without a port) is the server's.
        No Host at all (HTTP/1.0) passes: a browser always sends one, so no page rebinds through it."""
        if not isinstance(host, str):
            return False
        name = host_name(host)
        renamed = self._renamed is not None and self._renamed.fullmatch(name) is not None
        return not host or name in self.names or renamed or is_ip_literal(name)


__all__ = ["HostNames", "LOOPBACK_NAMES", "bind_names", "host_name", "is_ip_literal", "is_loopback"]
