"""A Mosquitto set-up for a club: users, passwords and the ACL that keeps each board to its topics.

The broker is the trust boundary. Every board logs in as its number (user "12" for board 12)
and the ACL lets a user write only under ``echiquier/<club>/board/<its number>/`` (``game`` and
``status``) and read only its own ``pairing``; the hub (user "hub") reads every board and writes
only the pairings. Nobody else gets in (no anonymous access). See docs/club.md.
"""
from __future__ import annotations

import os
import secrets
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

HUB_USER = "hub"
MOSQUITTO_PASSWD = "mosquitto_passwd"


def acl_text(club: str) -> str:
    """The ACL file: the hub's topics by name, each board's by pattern (%u is the user name)."""
    base = f"echiquier/{club}/board"
    return (f"# Échiquier club night ({club}): see docs/club.md\n"
            f"user {HUB_USER}\n"
            f"topic read {base}/+/game\n"
            f"topic read {base}/+/status\n"
            f"topic write {base}/+/pairing\n"
            f"\n# every board logs in as its number and writes only its own topics\n"
            f"pattern write {base}/%u/game\n"
            f"pattern write {base}/%u/status\n"
            f"pattern read {base}/%u/pairing\n")


def config_text(directory: Path, port: int, host: str = "", *, log_dest: str = "syslog") -> str:
    listen = f"listener {port} {host}".rstrip()
    return (f"# Échiquier club night broker (written by `echiquier hub --broker-config`)\n"
            f"per_listener_settings false\n"
            f"{listen}\n"
            f"allow_anonymous false\n"
            f"password_file {directory / 'passwd'}\n"
            f"acl_file {directory / 'acl'}\n"
            f"persistence true\n"
            f"persistence_location {directory / 'data'}/\n"
            f"autosave_interval 30\n"
            f"log_dest {log_dest}\n"
            f"log_type error\nlog_type warning\nlog_type notice\nlog_type information\n")


@dataclass(frozen=True)
class BrokerFiles:
    directory: Path
    config: Path
    users: dict[str, str]      # user -> password

    def credentials(self, user: str) -> Path:
        return self.directory / "credentials" / f"{user}.credentials"


def write_broker_files(directory: str | Path, *, club: str, boards: Iterable[str], port: int = 1883, host: str = "",
                       log_dest: str = "syslog", passwords: dict[str, str] | None = None) -> BrokerFiles:
    """mosquitto.conf, acl, passwd (hashed by mosquitto_passwd) and one 0600 credentials file per
    user (``credentials/<user>.credentials``: ``user:password``, for ``[club] credentials_file``)."""
    directory = Path(directory).resolve()
    (directory / "data").mkdir(parents=True, exist_ok=True)
    (directory / "credentials").mkdir(mode=0o700, exist_ok=True)
    users = {user: (passwords or {}).get(user) or secrets.token_urlsafe(12) for user in [HUB_USER, *boards]}
    passwd = directory / "passwd"
    passwd.write_text("".join(f"{u}:{p}\n" for u, p in users.items()))
    os.chmod(passwd, 0o600)
    tool = shutil.which(MOSQUITTO_PASSWD) or "/usr/bin/mosquitto_passwd"
    subprocess.run([tool, "-U", str(passwd)], check=True, capture_output=True)
    for user, password in users.items():
        path = directory / "credentials" / f"{user}.credentials"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(f"{user}:{password}\n")
    (directory / "acl").write_text(acl_text(club))
    config = directory / "mosquitto.conf"
    config.write_text(config_text(directory, port, host, log_dest=log_dest))
    return BrokerFiles(directory, config, users)


def parse_boards(text: str) -> list[str]:
    """Board names from "1-64" or "1,2,7" or "A1,A2".

    >>> parse_boards("1-3,7")
    ['1', '2', '3', '7']
    """
    found: list[str] = []
    for part in text.split(","):
        part = part.strip()
        low, dash, high = part.partition("-")
        if dash and low.isdigit() and high.isdigit():
            found.extend(str(n) for n in range(int(low), int(high) + 1))
        elif part:
            found.append(part)
    return found
