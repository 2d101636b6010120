"""Which serial port is the co-processor's data port: by its stable /dev/serial/by-id name, never its console.

A Pico running CircuitPython with ``usb_cdc.enable(console=True, data=True)`` shows two CDC
interfaces: the console (the REPL, USB interface 0, the by-id name ending ``-if00``) and the
data port (interface 2, ``-if02``). ``/dev/ttyACM0`` and ``/dev/ttyACM1`` are numbered in
the order the kernel met them, so the console is usually ttyACM0. The link must never talk
to the console: a 0x03 byte in a frame is Ctrl-C (it interrupts code.py) and 0x04 is Ctrl-D
(it soft-reloads it). The interface of a ttyACM node is read from sysfs
(``/sys/class/tty/ttyACMn/device/bInterfaceNumber``), of a by-id name from its suffix.
Everything is read under ``root`` so tests emulate the device files.
"""
from __future__ import annotations

import re
from pathlib import Path

from .sensors import SensorError

AUTO = "auto"
BY_ID = "dev/serial/by-id"
CONSOLE_INTERFACE = 0
DATA_INTERFACE = 2


def _interface_from_name(name: str) -> int | None:
    found = re.search(r"-if(\d\d)(?:-port\d+)?$", name)
    return int(found.group(1), 16) if found else None


def interface_of(port: str, root: Path = Path("/")) -> int | None:
    """The USB interface number behind ``port`` (a by-id name or /dev/ttyACMn), None if unknown."""
    number = _interface_from_name(port)
    if number is not None:
        return number
    node = Path(port).name
    try:
        text = (root / "sys/class/tty" / node / "device/bInterfaceNumber").read_text().strip()
        return int(text, 16)
    except (OSError, ValueError):
        pass
    # a by-id symlink points at the node: find the by-id name that does
    for entry in by_id(root):
        if Path(entry.resolved).name == node:
            return _interface_from_name(entry.name)
    return None


class ById:
    def __init__(self, name: str, resolved: str):
        self.name, self.resolved = name, resolved


def by_id(root: Path = Path("/")) -> list[ById]:
    """The entries of /dev/serial/by-id (name, the node it points at)."""
    directory = root / BY_ID
    try:
        entries = sorted(directory.iterdir())
    except OSError:
        return []
    result = []
    for entry in entries:
        try:
            target = entry.readlink() if entry.is_symlink() else Path(entry.name)
        except OSError:
            continue
        result.append(ById(str(Path("/") / BY_ID / entry.name), (entry.parent / target).name))
    return result


def data_ports(root: Path = Path("/")) -> list[str]:
    """The by-id names of CDC data interfaces (``-if02``) present now."""
    return [e.name for e in by_id(root) if _interface_from_name(e.name) == DATA_INTERFACE]


def resolve_port(port: str | None, root: Path = Path("/")) -> str:
    """The port to open for ``port`` ("auto" or None: the one data interface present).

    Raises SensorError for the console, or for "auto" with no (or several) data ports.
    """
    if port in (None, "", AUTO):
        found = data_ports(root)
        if len(found) == 1:
            return found[0]
        if not found:
            raise SensorError("no co-processor data port in /dev/serial/by-id (a name ending in -if02): is the Pico "
                              "plugged in, with boot.py enabling usb_cdc data (unplug and replug after copying it)?")
        raise SensorError(f"several co-processor data ports: {', '.join(found)}; set board.port to one of them")
    if interface_of(port, root) == CONSOLE_INTERFACE:
        data = data_ports(root)
        hint = f"use its data port {data[0]}" if data else "enable its data port (boot.py: usb_cdc.enable(data=True))"
        raise SensorError(f"{port} is the co-processor's console (its REPL): a 0x03 byte in a frame would stop "
                          f"code.py and 0x04 reload it; {hint}")
    return port
