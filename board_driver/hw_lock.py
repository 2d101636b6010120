"""An exclusive lock on the sensor hardware (a file under /run/echiquier), so hwtest refuses while the service scans.

Two processes scanning one matrix, or reading one serial port, each lose what the other
reads. The service and ``echiquier hwtest`` take ``flock(LOCK_EX | LOCK_NB)`` on
``/run/echiquier/<name>.lock`` (the unit's RuntimeDirectory, readable by all: flock works on a
read-only descriptor, so a maker's hwtest can test a lock the service's user created). Without
that directory no service runs, and there is nothing to lock against.
"""
from __future__ import annotations

import fcntl
import os
from pathlib import Path

from .sensors import SensorError

LOCK_DIR = Path("/run/echiquier")


class HardwareBusyError(SensorError):
    """Another process holds the hardware (the service, or another hwtest)."""


class HardwareLock:
    """``acquire()`` or raise :class:`HardwareBusyError` naming the holder; ``release()``; reentrant-safe."""

    def __init__(self, name: str, what: str, directory: Path | None = None):
        self.path = Path(directory if directory is not None else os.environ.get("ECHIQUIER_LOCK_DIR", LOCK_DIR)) / f"{name}.lock"
        self.what = what
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self) -> None:
        if self._fd is not None:
            return
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            writable = True
        except FileNotFoundError:
            return  # no /run/echiquier: the service is not running
        except PermissionError:
            try:
                fd = os.open(self.path, os.O_RDONLY)
                writable = False
            except OSError:
                return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = self.holder()
            os.close(fd)
            raise HardwareBusyError(
                f"{self.what} is in use by another process{f' (PID {holder})' if holder else ''}, "
                "the echiquier service probably: sudo systemctl stop echiquier, then try again"
            ) from None
        if writable:
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd

    def holder(self) -> int | None:
        """The PID written by the holder, if any."""
        try:
            text = self.path.read_text().strip()
        except OSError:
            return None
        return int(text) if text.isdigit() else None

    def busy(self) -> bool:
        """Whether another process holds the lock now (the lock is not kept)."""
        if self._fd is not None:
            return False
        try:
            self.acquire()
        except HardwareBusyError:
            return True
        self.release()
        return False

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)  # closing the descriptor drops the flock


def gpio_lock(directory: Path | None = None) -> HardwareLock:
    return HardwareLock("gpio", "the GPIO sensor matrix", directory)


def port_lock(port: str, directory: Path | None = None) -> HardwareLock:
    return HardwareLock("serial-" + Path(port).name, f"the serial port {port}", directory)
