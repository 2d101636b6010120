"""The local serial port an app on the same machine opens: a real pseudo-terminal, its symlink, an app that comes and goes."""
from __future__ import annotations

import asyncio
import os
import termios

import pytest

from firmware.emulation.pty import PtyPort

WAIT_S = 5.0


class App:
    """An app holding the port's device open (non-blocking), as pyserial would."""

    def __init__(self, path) -> None:
        self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)

    def read(self) -> bytes:
        try:
            return os.read(self.fd, 65536)
        except BlockingIOError:
            return b""

    async def read_some(self) -> bytes:
        loop = asyncio.get_running_loop()
        ready = loop.create_future()
        loop.add_reader(self.fd, lambda: ready.done() or ready.set_result(None))
        try:
            async with asyncio.timeout(WAIT_S):
                await ready
        finally:
            loop.remove_reader(self.fd)
        return self.read()

    def close(self) -> None:
        os.close(self.fd)


class Events:
    def __init__(self) -> None:
        self.data = bytearray()
        self.hangups = 0
        self.changed = asyncio.Event()

    def on_data(self, data: bytes) -> None:
        self.data += data
        self.changed.set()

    def on_hangup(self) -> None:
        self.hangups += 1
        self.changed.set()

    async def until(self, condition) -> None:
        async with asyncio.timeout(WAIT_S):
            while not condition():
                self.changed.clear()
                await self.changed.wait()


async def until_present(port: PtyPort, present: bool = True) -> None:
    """The port notices the app (it looks every ``recheck_s``)."""
    async with asyncio.timeout(WAIT_S):
        while port.app_present != present:
            await asyncio.sleep(port.recheck_s)


@pytest.fixture
async def port(tmp_path):
    made = PtyPort(tmp_path / "board", recheck_s=0.01)
    made.open()
    events = Events()
    made.start(events.on_data, events.on_hangup)
    made.events = events
    yield made
    made.close()


async def test_the_link_points_at_the_device_and_goes_with_the_port(tmp_path):
    port = PtyPort(tmp_path / "dev" / "chesslink")
    device = port.open()
    assert os.readlink(tmp_path / "dev" / "chesslink") == device and device.startswith("/dev/pts/")
    assert os.stat(device).st_mode & 0o777 == 0o666                     # an app of another user may open it
    port.close()
    assert not (tmp_path / "dev" / "chesslink").exists() and not os.path.lexists(tmp_path / "dev" / "chesslink")
    port.close()   # idempotent


async def test_an_old_link_is_replaced_and_a_file_is_never_overwritten(tmp_path):
    link = tmp_path / "board"
    link.symlink_to("/dev/pts/9999")
    port = PtyPort(link)
    device = port.open()
    assert os.readlink(link) == device
    port.close()
    link.write_text("precious")
    with pytest.raises(OSError, match="not a symlink"):
        PtyPort(link).open()
    assert link.read_text() == "precious"


async def test_the_app_s_bytes_arrive_and_the_board_s_reach_it_unechoed(port):
    app = App(port.link)
    await until_present(port)
    os.write(app.fd, b"V56")
    await port.events.until(lambda: port.events.data == b"V56")
    port.write(b"v010374")
    assert await app.read_some() == b"v010374"
    port.write(b"\xd6\xb5\xb6")                               # bit 7 set: a 7O1 byte passes as it is
    assert await app.read_some() == b"\xd6\xb5\xb6"
    assert port.events.data == b"V56"                          # raw: nothing the board writes comes back
    assert not termios.tcgetattr(app.fd)[3] & termios.ECHO
    app.close()


async def test_an_app_that_leaves_is_noticed_once_and_the_next_one_starts_clean(port):
    first = App(port.link)
    await until_present(port)
    port.write(b"x" * 100)                                     # left unread
    first.close()
    await port.events.until(lambda: port.events.hangups == 1)
    port.write(b"for nobody")                                  # no app: nothing is kept for the next one
    second = App(port.link)
    await until_present(port)
    assert second.read() == b""                                # neither the unread nor the unsent
    os.write(second.fd, b"S53")
    await port.events.until(lambda: port.events.data.endswith(b"S53"))
    port.write(b"hello")
    assert await second.read_some() == b"hello"
    assert port.events.hangups == 1
    second.close()


async def test_an_app_that_never_reads_holds_back_a_bounded_amount(tmp_path):
    port = PtyPort(tmp_path / "board", max_pending=1000, recheck_s=0.01)
    port.open()
    port.start(lambda data: None, lambda: None)
    app = App(port.link)
    await until_present(port)
    for _ in range(1000):
        port.write(b"s" * 67)                                  # 67 000 bytes, reports the app never reads
    assert len(port._pending) <= 1000
    assert port.dropped > 0
    total = 0
    while chunk := app.read():
        total += len(chunk)
    assert total + len(port._pending) + port.dropped == 1000 * 67
    app.close()
    port.close()


async def test_a_flood_from_the_app_is_read_in_bounded_chunks(port):
    app = App(port.link)
    await until_present(port)
    chunks: list[int] = []
    port._on_data = lambda data: (chunks.append(len(data)), port.events.on_data(data))
    for _ in range(64):
        os.write(app.fd, b"\x00" * 1000)
        await port.events.until(lambda: sum(chunks) >= 1000 * (_ + 1))
    assert max(chunks) <= 4096
    app.close()


# -- a serial device (the USB gadget's /dev/ttyGS0): here a pseudo-terminal's device end, the test
# holding the other end as the computer at the far end of the cable would.

async def test_a_serial_device_carries_the_bytes_both_ways_and_is_left_in_place():
    from firmware.emulation.pty import SerialDevicePort
    host, device = os.openpty()
    path = os.ttyname(device)
    os.close(device)
    os.set_blocking(host, False)
    port = SerialDevicePort(path, recheck_s=0.01)
    assert port.open() == path
    events = Events()
    port.start(events.on_data, events.on_hangup)
    await until_present(port)
    os.write(host, b"\x42")
    await events.until(lambda: events.data == b"\x42")
    port.write(b"\x86\x00\x43")
    loop = asyncio.get_running_loop()
    ready = loop.create_future()
    loop.add_reader(host, lambda: ready.done() or ready.set_result(None))
    async with asyncio.timeout(WAIT_S):
        await ready
    loop.remove_reader(host)
    assert os.read(host, 100) == b"\x86\x00\x43"
    os.close(host)                                  # the cable pulled: noticed once, then tried again
    await events.until(lambda: events.hangups == 1)
    port.close()
    assert events.hangups == 1


def test_a_serial_transport_needs_its_device():
    from firmware.config import ConfigError, loads_config
    with pytest.raises(ConfigError, match='emulation.link: transport = "serial" needs the device'):
        loads_config('[emulation]\nprotocol = "dgt"\ntransport = "serial"\n')
    assert loads_config('[emulation]\nprotocol = "dgt"\ntransport = "serial"\nlink = "/dev/ttyGS0"\n'
                        ).emulation.link == "/dev/ttyGS0"


async def test_a_paused_port_leaves_the_app_s_bytes_waiting_until_it_reads_again(port):
    app = App(port.link)
    await until_present(port)
    port.pause_reading()
    os.write(app.fd, b"V56")
    await asyncio.sleep(0.05)                                  # (nothing may come: a wait for an absence)
    assert port.events.data == b""
    port.resume_reading()
    await port.events.until(lambda: port.events.data == b"V56")
    app.close()
    await port.events.until(lambda: port.events.hangups == 1)
