"""The club's MQTT topic tree, the broker URL and the credentials file (shared by boards and hub).

    echiquier/<club>/board/<board>/game      board -> hub, retained, QoS 1: the whole game (JSON)
    echiquier/<club>/board/<board>/status    board -> hub, retained, QoS 1: "online" / "offline" (will)
    echiquier/<club>/board/<board>/pairing   hub -> board, retained, QoS 1: names and round rules (JSON)
"""
from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

ROOT = "echiquier"
NAME = re.compile(r"[A-Za-z0-9_-]{1,32}")
QOS = 1
FORMAT = 1   # the "v" of every message


def game_topic(club: str, board: str) -> str:
    return f"{ROOT}/{club}/board/{board}/game"


def status_topic(club: str, board: str) -> str:
    return f"{ROOT}/{club}/board/{board}/status"


def pairing_topic(club: str, board: str) -> str:
    return f"{ROOT}/{club}/board/{board}/pairing"


def all_boards(club: str, leaf: str) -> str:
    """The subscription to ``leaf`` ("game", "status") of every board of ``club``."""
    return f"{ROOT}/{club}/board/+/{leaf}"


def parse_topic(club: str, topic: str) -> tuple[str, str] | None:
    """(board, leaf) of a board topic of ``club``, or None for any other topic.

    >>> parse_topic("c", "echiquier/c/board/12/game")
    ('12', 'game')
    >>> parse_topic("c", "echiquier/c/board/../game") is None
    True
    """
    parts = topic.split("/")
    if len(parts) != 5 or parts[0] != ROOT or parts[1] != club or parts[2] != "board":
        return None
    if not NAME.fullmatch(parts[3]) or parts[4] not in ("game", "status", "pairing"):
        return None
    return parts[3], parts[4]


@dataclass(frozen=True)
class Broker:
    """Where the broker is: ``mqtt://host:1883`` or ``mqtts://host:8883`` (TLS)."""

    host: str
    port: int
    tls: bool

    @classmethod
    def parse(cls, url: str) -> "Broker":
        """The broker of ``url``.

        >>> Broker.parse("mqtt://10.0.0.2:1884")
        Broker(host='10.0.0.2', port=1884, tls=False)
        """
        parts = urlsplit(url)
        if parts.scheme not in ("mqtt", "mqtts") or not parts.hostname:
            raise ValueError(f'a broker is "mqtt://host:port" or "mqtts://host:port", not {url!r}')
        tls = parts.scheme == "mqtts"
        try:
            port = parts.port or (8883 if tls else 1883)
        except ValueError:
            raise ValueError(f"{url!r}: the port is a number from 1 to 65535") from None
        return cls(parts.hostname, port, tls)

    def url(self) -> str:
        return f"{'mqtts' if self.tls else 'mqtt'}://{self.host}:{self.port}"


def read_credentials(path: str | Path) -> tuple[str, str]:
    """(user, password) from a file holding ``user:password``; it must be readable by its owner only."""
    path = Path(path)
    mode = os.stat(path).st_mode
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise ValueError(f"{path}: the broker's password file must be readable by its owner only "
                         f"(chmod 600 {path})")
    text = path.read_text(encoding="utf-8").strip()
    user, sep, password = text.partition(":")
    if not sep or not user:
        raise ValueError(f"{path}: expected one line user:password")
    return user, password
