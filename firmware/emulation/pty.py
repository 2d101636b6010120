"""The serial ports an app reaches the board by: a pseudo-terminal for an app on the same machine (a symlink at a path the app is given), or a serial device (the USB gadget's).

The app (PicoChess's ``dgt-port``, python-mchess's ``address``, Lucas Chess's port) opens the
pseudo-terminal's device as it would a USB board's ``/dev/ttyACM0``; the board keeps its other
end. Whatever speed, parity and size the app sets on its side, the bytes pass unchanged (the
codecs read 7O1 input with or without its parity bit).

* ``open()``: the pseudo-terminal made, its device in raw mode (no echo: the board's replies
  never come back to it as commands) and open to every local user (an app may run as another
  user, as a USB board's port is open to the dialout group), the symlink ``link`` made to it (an
  old symlink replaced; anything else at that path is an error). ``close()`` removes both.
* ``start(on_data, on_hangup)``: the bytes the app writes go to ``on_data`` on the loop; when
  the app closes the port, ``on_hangup()`` (once), what was left unread is dropped, and the port
  waits for the next app (checked every ``recheck_s``).
* ``pause_reading()`` / ``resume_reading()``: the app's bytes are left in the port meanwhile (its
  writes wait once the kernel's buffer is full, as on a slow serial line); the bridge pauses an
  app over its budget of the loop's time.
* ``write(data)``: to the app, at once if it can take it; at most ``max_pending`` bytes wait for
  an app that does not read (the rest is dropped, never the board's loop held); nothing is
  written while no app has the port open.
"""
from __future__ import annotations

import asyncio
import errno
import logging
import os
import select
import termios
import tty
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger(__name__)

READ_CHUNK = 4096
MAX_PENDING = 64 * 1024
RECHECK_S = 0.2


class PtyPort:
    """A pseudo-terminal the app opens as its board's serial port; see the module docstring."""

    def __init__(self, link: str | Path | None = None, *, max_pending: int = MAX_PENDING,
                 recheck_s: float = RECHECK_S) -> None:
        self.link = Path(link) if link else None
        self.max_pending = max_pending
        self.recheck_s = recheck_s
        self.device: str | None = None
        self.dropped = 0          # bytes an app that did not read never got
        self._master: int | None = None
        self._pending = bytearray()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._on_data: Callable[[bytes], None] | None = None
        self._on_hangup: Callable[[], None] | None = None
        self._open_by_app = False
        self._recheck: asyncio.TimerHandle | None = None
        self._writing = False
        self._paused = False

    # -- life --------------------------------------------------------------------------------------

    def open(self) -> str:
        """Make the pseudo-terminal and its symlink; the device's path. OSError if it cannot."""
        master, slave = os.openpty()
        try:
            tty.setraw(slave)
            self.device = os.ttyname(slave)
            os.chmod(self.device, 0o666)   # the app may run as another user (PicoChess, a desktop app)
        finally:
            os.close(slave)
        os.set_blocking(master, False)
        self._master = master
        if self.link is not None:
            try:
                self._make_link(self.link, self.device)
            except OSError:
                self.close()
                raise
        return self.device

    @staticmethod
    def _make_link(link: Path, device: str) -> None:
        if link.is_symlink():
            link.unlink()
        elif link.exists():
            raise OSError(errno.EEXIST, f"{link} exists and is not a symlink: choose another path", str(link))
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(device)

    def start(self, on_data: Callable[[bytes], None], on_hangup: Callable[[], None]) -> None:
        """Hand the app's bytes to ``on_data`` on the running loop; ``on_hangup`` when it leaves."""
        if self._master is None:
            raise RuntimeError("open() the port first")
        self._loop = asyncio.get_running_loop()
        self._on_data, self._on_hangup = on_data, on_hangup
        self._watch()

    def close(self) -> None:
        """Stop, remove the symlink (if it is still ours) and the pseudo-terminal. Idempotent."""
        if self._recheck is not None:
            self._recheck.cancel()
            self._recheck = None
        master, self._master = self._master, None
        if master is not None:
            if self._loop is not None and not self._loop.is_closed():
                self._loop.remove_reader(master)
                self._loop.remove_writer(master)
            os.close(master)
        if self.link is not None and self.link.is_symlink() and self.device is not None:
            try:
                if os.readlink(self.link) == self.device:
                    self.link.unlink()
            except OSError as exc:
                log.warning("cannot remove %s: %s", self.link, exc.strerror or exc)
        self._open_by_app = False

    @property
    def app_present(self) -> bool:
        """An app has the port open."""
        return self._open_by_app

    # -- reading -------------------------------------------------------------------------------

    def _hung_up(self) -> bool:
        """No app has the device open (the master end then polls as hung up)."""
        assert self._master is not None
        poller = select.poll()
        poller.register(self._master, select.POLLIN | select.POLLHUP)
        return any(flags & select.POLLHUP for _, flags in poller.poll(0))

    def _watch(self) -> None:
        """Read while an app has the port open, else look again in a moment."""
        self._recheck = None
        loop, master = self._loop, self._master
        if loop is None or master is None:
            return
        if self._hung_up():
            self._recheck = loop.call_later(self.recheck_s, self._watch)
            return
        self._open_by_app = True
        if not self._paused:
            loop.add_reader(master, self._readable)

    def pause_reading(self) -> None:
        """Leave the app's bytes in the port until ``resume_reading()``."""
        if self._paused:
            return
        self._paused = True
        if self._loop is not None and self._master is not None and self._open_by_app:
            self._loop.remove_reader(self._master)

    def resume_reading(self) -> None:
        if not self._paused:
            return
        self._paused = False
        if self._loop is not None and self._master is not None and self._open_by_app:
            self._loop.add_reader(self._master, self._readable)

    def _readable(self) -> None:
        master = self._master
        if master is None:
            return
        try:
            data = os.read(master, READ_CHUNK)
        except BlockingIOError:
            return
        except OSError as exc:
            if exc.errno != errno.EIO:
                log.warning("reading the app's port: %s", exc.strerror or exc)
            self._hangup()
            return
        if not data:
            self._hangup()
            return
        if self._on_data is not None:
            self._on_data(data)

    def _hangup(self) -> None:
        loop, master = self._loop, self._master
        if loop is None or master is None:
            return
        loop.remove_reader(master)
        loop.remove_writer(master)
        self._writing = False
        self._pending.clear()
        self._drop_unread()
        was_open, self._open_by_app = self._open_by_app, False
        if was_open and self._on_hangup is not None:
            self._on_hangup()
        self._recheck = loop.call_later(self.recheck_s, self._watch)

    def _drop_unread(self) -> None:
        """What the app left unread would greet the next app: dropped (on the device's side)."""
        if self.device is None:
            return
        try:
            fd = os.open(self.device, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        except OSError:
            return
        try:
            termios.tcflush(fd, termios.TCIFLUSH)
        except termios.error:
            pass
        finally:
            os.close(fd)

    # -- writing -------------------------------------------------------------------------------

    def write(self, data: bytes) -> None:
        """Send ``data`` to the app; see the module docstring."""
        master = self._master
        if master is None or not self._open_by_app:
            return
        if not self._pending:
            try:
                sent = os.write(master, data)
            except BlockingIOError:
                sent = 0
            except OSError:
                self._hangup()
                return
            data = data[sent:]
            if not data:
                return
        room = self.max_pending - len(self._pending)
        if room < len(data):
            self.dropped += len(data) - max(room, 0)
            data = data[:max(room, 0)]
        self._pending += data
        if self._pending and not self._writing and self._loop is not None:
            self._writing = True
            self._loop.add_writer(master, self._writable)

    def _writable(self) -> None:
        master = self._master
        if master is None:
            return
        try:
            sent = os.write(master, self._pending)
        except BlockingIOError:
            return
        except OSError:
            self._hangup()
            return
        del self._pending[:sent]
        if not self._pending and self._loop is not None:
            self._loop.remove_writer(master)
            self._writing = False


class SerialDevicePort(PtyPort):
    """A serial device the board answers on, for an app on another machine: the USB gadget's
    ``/dev/ttyGS0`` (the computer or phone sees a ``/dev/ttyACM0``; scripts/usb-gadget-serial.sh)
    or a Bluetooth serial port. The app is taken as present while the device can be read; a
    device that fails (the cable pulled) is opened again every ``recheck_s``. The device is the
    board's: ``close()`` leaves it where it is."""

    def __init__(self, device: str | Path, *, max_pending: int = MAX_PENDING, recheck_s: float = RECHECK_S) -> None:
        super().__init__(None, max_pending=max_pending, recheck_s=recheck_s)
        self.path = str(device)

    def open(self) -> str:
        """Open the device in raw mode; its path. OSError if it cannot be opened."""
        fd = os.open(self.path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        try:
            tty.setraw(fd)
        except termios.error:
            pass                     # (not a terminal: a test's pipe, a FIFO) the bytes pass as they are
        self._master = fd
        self.device = self.path
        return self.path

    def _hung_up(self) -> bool:
        if self._master is None:
            try:
                self.open()
            except OSError:
                return True
        return False

    def _watch(self) -> None:
        self._recheck = None
        if self._loop is None:
            return
        if self._hung_up():
            self._recheck = self._loop.call_later(self.recheck_s, self._watch)
            return
        super()._watch()

    def _hangup(self) -> None:
        loop, fd = self._loop, self._master
        if loop is None or fd is None:
            return
        loop.remove_reader(fd)
        loop.remove_writer(fd)
        os.close(fd)
        self._master = None
        self._writing = False
        self._pending.clear()
        was_open, self._open_by_app = self._open_by_app, False
        if was_open and self._on_hangup is not None:
            self._on_hangup()
        self._recheck = loop.call_later(self.recheck_s, self._watch)

    def _drop_unread(self) -> None:
        pass


__all__ = ["PtyPort", "SerialDevicePort"]
