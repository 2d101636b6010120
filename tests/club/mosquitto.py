"""A real Mosquitto for the tests: its own config, ACL, passwords and data dir, on a free loopback port."""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import threading
from pathlib import Path

from club_hub.broker import BrokerFiles, write_broker_files

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
CLUB = "testclub"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Mosquitto:
    """``start()``/``stop()``/``restart()`` a broker on ``port``; ``log`` holds its lines."""

    def __init__(self, directory: Path, boards=("1", "2", "3", "4"), club: str = CLUB) -> None:
        self.port = free_port()
        self.club = club
        self.files: BrokerFiles = write_broker_files(directory, club=club, boards=boards, port=self.port,
                                                     host="127.0.0.1", log_dest="stderr")
        if os.geteuid() == 0:   # as root, mosquitto would become "mosquitto", who cannot read a test's files
            with open(self.files.config, "a") as conf:
                conf.write("user root\n")
        self.url = f"mqtt://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None
        self.log: list[str] = []

    def credentials(self, user: str) -> tuple[str, str]:
        return user, self.files.users[user]

    def start(self, timeout: float = 10.0) -> None:
        self.process = subprocess.Popen([MOSQUITTO, "-c", str(self.files.config)], stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True)
        running = threading.Event()

        def read(stream) -> None:
            for line in stream:
                self.log.append(line.rstrip())
                if " running" in line:
                    running.set()
        threading.Thread(target=read, args=(self.process.stdout,), daemon=True).start()
        if not running.wait(timeout):
            self.stop()
            raise RuntimeError("mosquitto did not start:\n" + "\n".join(self.log[-20:]))

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)
        self.process = None

    def restart(self) -> None:
        self.stop()
        self.start()
