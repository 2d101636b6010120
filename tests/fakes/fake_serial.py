"""A fake serial line for the co-processor link: bytes both ways, a device that can be unplugged."""
from __future__ import annotations

import threading

import serial


class FakePort:
    """What ``serial.Serial(...)`` returns: reads what the device sent, records what the host wrote."""

    def __init__(self, line: FakeLine, timeout: float | None):
        self.line = line
        self.timeout = timeout
        self.is_open = True
        self.dead = False

    def _check(self) -> None:
        if self.dead:
            raise serial.SerialException("device reports readiness to read but returned no data (device disconnected?)")
        if not self.is_open:
            raise serial.PortNotOpenError()

    @property
    def in_waiting(self) -> int:
        self._check()
        return len(self.line.to_host)

    def read(self, size: int = 1) -> bytes:
        self._check()
        line = self.line
        with line.cond:
            if not line.to_host and line.blocking and self.timeout:
                line.cond.wait_for(lambda: line.to_host or self.dead or not self.is_open, timeout=self.timeout)
            self._check()
            data = bytes(line.to_host[:size])
            del line.to_host[:size]
        return data

    def write(self, data: bytes) -> int:
        self._check()
        self.line.host_wrote(bytes(data))
        return len(data)

    def close(self) -> None:
        self.is_open = False
        with self.line.cond:
            self.line.cond.notify_all()


class FakeLine:
    """The cable and the device behind one port name.

    ``factory`` stands in for ``serial.Serial``. ``send(data)`` is the device talking;
    ``from_host`` collects what the host wrote, and ``on_host_bytes`` (if set) gets it too.
    ``unplug()`` makes the open port raise and new opens fail until ``plug()``.
    ``blocking=True`` makes reads wait (up to the port timeout) for data, as a real port does.
    """

    def __init__(self, *, blocking: bool = False):
        self.blocking = blocking
        self.plugged = True
        self.to_host = bytearray()
        self.from_host = bytearray()
        self.port: FakePort | None = None
        self.opens = 0
        self.open_attempts = 0
        self.on_host_bytes = None
        self.cond = threading.Condition()

    def factory(self, name: str, baudrate: int = 9600, timeout: float | None = None, **_options) -> FakePort:
        self.open_attempts += 1
        if not self.plugged:
            raise serial.SerialException(f"[Errno 2] could not open port {name}: No such file or directory")
        self.opens += 1
        self.port = FakePort(self, timeout)
        return self.port

    def send(self, data: bytes) -> None:
        """The device sends ``data`` (lost if unplugged or no port is open)."""
        if not self.plugged or self.port is None or not self.port.is_open:
            return
        with self.cond:
            self.to_host += data
            self.cond.notify_all()

    def host_wrote(self, data: bytes) -> None:
        self.from_host += data
        if self.on_host_bytes is not None:
            self.on_host_bytes(data)

    def unplug(self) -> None:
        self.plugged = False
        with self.cond:
            self.to_host.clear()
            if self.port is not None:
                self.port.dead = True
            self.cond.notify_all()

    def plug(self) -> None:
        self.plugged = True


class DeviceSide:
    """The device's view of a FakeLine, shaped like CircuitPython's ``usb_cdc.data``."""

    def __init__(self, line: FakeLine):
        self.line = line
        self.inbox = bytearray()
        self.timeout = 0
        line.on_host_bytes = self.inbox.extend

    @property
    def in_waiting(self) -> int:
        return len(self.inbox)

    def read(self, size: int = 1) -> bytes:
        data = bytes(self.inbox[:size])
        del self.inbox[:size]
        return data

    def write(self, data: bytes) -> int:
        self.line.send(bytes(data))
        return len(data)
