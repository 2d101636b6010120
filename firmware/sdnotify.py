"""systemd's sd_notify protocol over the NOTIFY_SOCKET datagram socket, without a dependency."""
from __future__ import annotations

import os
import socket


class Notifier:
    """Sends ``READY=1``, ``WATCHDOG=1``, ``STATUS=...`` to systemd; does nothing outside systemd.

    ``NOTIFY_SOCKET`` is a path, or an abstract socket name starting with ``@``.
    ``WATCHDOG_USEC`` (set by systemd with WatchdogSec=) gives ``watchdog_interval``: the main
    loop should send ``WATCHDOG=1`` at least that often (half the watchdog timeout).
    """

    def __init__(self, environ: dict[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        address = env.get("NOTIFY_SOCKET", "")
        if address.startswith("@"):
            address = "\0" + address[1:]
        self.address = address or None
        self._socket: socket.socket | None = None
        usec = env.get("WATCHDOG_USEC", "")
        pid = env.get("WATCHDOG_PID", "")
        watched = usec.isdigit() and int(usec) > 0 and (not pid or pid == str(os.getpid()))
        self.watchdog_interval: float | None = int(usec) / 2e6 if watched else None

    @property
    def enabled(self) -> bool:
        return self.address is not None

    def notify(self, *fields: str) -> bool:
        """Send ``fields`` (``"READY=1"`` ...) as one datagram; False if not under systemd or lost."""
        if self.address is None:
            return False
        if self._socket is None:
            self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
        try:
            self._socket.sendto("\n".join(fields).encode("utf-8"), self.address)
        except OSError:
            return False  # systemd gone or socket full: never take the service down for it
        return True

    def ready(self, status: str = "") -> bool:
        return self.notify("READY=1", *([f"STATUS={status}"] if status else []))

    def watchdog(self) -> bool:
        return self.notify("WATCHDOG=1")

    def status(self, text: str) -> bool:
        return self.notify(f"STATUS={text}")

    def stopping(self) -> bool:
        return self.notify("STOPPING=1")

    def close(self) -> None:
        sock, self._socket = self._socket, None
        if sock is not None:
            sock.close()
