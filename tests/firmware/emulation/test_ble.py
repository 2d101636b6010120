"""The board as a Bluetooth LE ChessLink board, Chessnut Air and DGT Pegasus, without a radio: bluezoo (a mock of BlueZ's D-Bus API) on a private bus, bleak as the app.

The board's GATT service registers on one mock adapter (hci1) through BlueZ's D-Bus API; the app
scans on the other (hci0), finds "MILLENNIUM CHESS", reads the service, subscribes to the
notifications and writes its commands, an ``L`` command in 20-byte pieces as a phone sends it.
A short game is played on the board: after every move the status notified equals the game.
"""
from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from chess_core import parse_square
from firmware.emulation.bridge import Emulation
from firmware.session.commands import attach_app

from ..session_support import Table
from .clients import CHESSLINK_REPLIES, led_frame, odd, status_placement, with_check

BLUEZOO = Path(sys.executable).with_name("bluezoo")
APP_ADAPTER, BOARD_ADAPTER, CHESSNUT_ADAPTER = "00:00:00:00:00:01", "00:00:00:00:00:02", "00:00:00:00:00:03"
PEGASUS_ADAPTER, LOST_ADAPTER = "00:00:00:00:00:04", "00:00:00:00:00:05"
WAIT_S = 15.0
FOOLS_MATE = [("f2f3", "rnbqkbnr/pppppppp/8/8/8/5P2/PPPPP1PP/RNBQKBNR"),
              ("e7e5", "rnbqkbnr/pppp1ppp/8/4p3/8/5P2/PPPPP1PP/RNBQKBNR"),
              ("g2g4", "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR"),
              ("d8h4", "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR")]


@pytest.fixture(scope="module")
def bluez(tmp_path_factory):
    """A private bus with bluezoo's two adapters on it, as the system bus of this process."""
    assert shutil.which("dbus-daemon"), "dbus-daemon is missing (scripts/install-system-deps.sh installs it)"
    tmp = tmp_path_factory.mktemp("bus")
    daemon = subprocess.Popen(["dbus-daemon", "--session", f"--address=unix:path={tmp}/bus", "--nofork",
                               "--print-address"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    address = daemon.stdout.readline().strip()
    before = os.environ.get("DBUS_SYSTEM_BUS_ADDRESS")
    os.environ["DBUS_SYSTEM_BUS_ADDRESS"] = address
    zoo = subprocess.Popen([str(BLUEZOO), "--auto-enable", "--scan-interval", "1", "-a", APP_ADAPTER,
                            "-a", BOARD_ADAPTER, "-a", CHESSNUT_ADAPTER, "-a", PEGASUS_ADAPTER, "-a", LOST_ADAPTER], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        for line in zoo.stderr:                 # bluezoo says when each adapter is there
            if LOST_ADAPTER in line and "Adding adapter" in line:
                break
        else:
            raise RuntimeError("bluezoo stopped before its adapters were there")
        yield address
    finally:
        zoo.terminate()
        daemon.terminate()
        zoo.wait(10)
        daemon.wait(10)
        if before is None:
            os.environ.pop("DBUS_SYSTEM_BUS_ADDRESS", None)
        else:
            os.environ["DBUS_SYSTEM_BUS_ADDRESS"] = before


def with_link_mtu(port, mtu: int) -> None:
    """Make bluezoo give ``port``'s link an ATT MTU of ``mtu``: bluezoo takes a link's MTU from the
    written characteristic's ``MTU`` property (512 without one), where BlueZ would negotiate it
    with the phone; 23 is what a phone that never asks for more gets."""
    from dbus_fast.constants import PropertyAccess
    from dbus_fast.service import dbus_property

    from firmware.emulation import ble

    def mtu_value(self):
        return mtu

    mtu_value.__annotations__ = {"return": "q"}        # (dbus-fast reads the D-Bus type from it
    mtu_value.__name__ = "MTU"                         # and the attribute by the function's name)

    class WithMtu(ble._Characteristic):
        MTU = dbus_property(access=PropertyAccess.READ, name="MTU")(mtu_value)

    old = port._write
    new = WithMtu(old._uuid, old._service, old._flags, port)
    port._write = new
    port._paths = tuple((path, new if iface is old else iface) for path, iface in port._paths)


@contextlib.asynccontextmanager
async def board_over_ble(tmp_path: Path, profile, adapter: str, protocol: str, app: str,
                         named: Callable[[str], bool], mtu: int | None = None) -> AsyncIterator[tuple[Table, Any, Any]]:
    """The board on ``adapter`` as ``protocol``, found by the app: ``(table, device, advertisement)``
    once a device ``named`` is heard on hci0; the emulation stopped and the port closed after.
    ``mtu``: the link's ATT MTU (bluezoo's 512 by default).

    The app scans, then the board advertises (bluezoo announces a device once; bleak hears of it
    only if it listens already)."""
    from bleak import BleakScanner

    from firmware.emulation.ble import BlePort

    table = Table(tmp_path)
    port = BlePort(profile, adapter=adapter)
    if mtu is not None:
        with_link_mtu(port, mtu)
    seen: asyncio.Future = asyncio.get_running_loop().create_future()

    def detected(device, advertisement) -> None:
        if named(advertisement.local_name or "") and not seen.done():
            seen.set_result((device, advertisement))

    scanner = BleakScanner(detected, bluez={"adapter": "hci0"})
    await scanner.start()
    await port.open()
    emulation = Emulation(table.session, port, protocol, app=app, clock=lambda: table.t,
                          on_app=lambda link: attach_app(table.session, link))
    emulation.start()
    table.setup()
    try:
        try:
            async with asyncio.timeout(WAIT_S):
                device, advertisement = await seen
        finally:
            await scanner.stop()
        yield table, device, advertisement
    finally:
        emulation.stop()
        await port.close()


async def until(changed: asyncio.Event, condition: Callable[[], object], what: str) -> None:
    """Wait, at most WAIT_S, until ``condition()`` holds, looking again each time the app's
    notifications set ``changed``; ``what`` names the wait for the reader."""
    async with asyncio.timeout(WAIT_S):
        while not condition():
            changed.clear()
            await changed.wait()


class Notes:
    """The app's side of the notifications: bytes as they come, read back into ChessLink frames."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.frames: list[str] = []
        self.changed = asyncio.Event()

    def received(self, _characteristic, data: bytearray) -> None:
        self.buffer += data
        while self.buffer:
            letter = chr(self.buffer[0] & 0x7F)
            size = CHESSLINK_REPLIES.get(letter)
            if size is None:
                del self.buffer[0]
                continue
            if len(self.buffer) < size:
                break
            raw = bytes(self.buffer[:size])
            del self.buffer[:size]
            assert all(bin(b).count("1") % 2 == 1 for b in raw)
            text = "".join(chr(b & 0x7F) for b in raw)
            assert with_check(text[:-2]) == text
            self.frames.append(text)
        self.changed.set()

    async def until(self, condition, what: str) -> None:
        await until(self.changed, condition, what)

    def statuses(self) -> list[str]:
        return [status_placement(f[1:65]) for f in self.frames if f[0] == "s"]


async def test_an_app_finds_the_board_over_ble_reads_its_service_and_plays_a_game(bluez, tmp_path):
    from bleak import BleakClient

    from firmware.emulation.ble import CHESSLINK_BLE

    notes = Notes()
    async with board_over_ble(tmp_path, CHESSLINK_BLE, "/org/bluez/hci1", "chesslink", "Tester", lambda name: name == "MILLENNIUM CHESS") as (table, device, seen):
        assert CHESSLINK_BLE.service in seen.service_uuids
        async with BleakClient(device, bluez={"adapter": "hci0"}) as client:
            service = client.services.get_service(CHESSLINK_BLE.service)
            assert service is not None
            assert "notify" in service.get_characteristic(CHESSLINK_BLE.notify).properties
            assert "write" in service.get_characteristic(CHESSLINK_BLE.write).properties

            async def send(text: str) -> None:
                data = bytes(odd(c) for c in with_check(text))
                for i in range(0, len(data), 20):           # an ATT write carries 20 bytes
                    await client.write_gatt_char(CHESSLINK_BLE.write, data[i:i + 20], response=True)

            await client.start_notify(CHESSLINK_BLE.notify, notes.received)
            await send("V")
            await notes.until(lambda: "v010374" in notes.frames, "the version")
            await send("W0203")
            await notes.until(lambda: notes.statuses(), "the status that answers the report mode")
            assert notes.statuses()[-1] == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
            assert table.session.board_state.app is not None and table.session.board_state.app.protocol == "ChessLink"

            for uci, placement in FOOLS_MATE:
                table.play(uci)
                await notes.until(lambda: notes.statuses()[-1] == placement, f"the status after {uci}")
            assert table.session.game.outcome is not None and table.session.game.outcome.winner == 1

            command = led_frame([parse_square("d8"), parse_square("h4")])
            assert len(command) + 2 == 167
            await send(command)
            await notes.until(lambda: notes.frames[-1] == with_check("l"), "the LEDs' answer")
            assert set(table.leds.lit()) == {parse_square("d8"), parse_square("h4")}

            await client.stop_notify(CHESSLINK_BLE.notify)   # the app leaves
            async with asyncio.timeout(WAIT_S):
                while table.session.board_state.app is not None:
                    await asyncio.sleep(0.01)
            assert table.leds.last == table.session.leds_frame   # the board's own LEDs again


def read_chessnut(message: bytes) -> str:
    """The position as an app reads it (the maker's API): 4 bits a square from h8, low nibble first."""
    import chess
    stones = {1: "q", 2: "k", 3: "b", 4: "p", 5: "n", 6: "R", 7: "P", 8: "r", 9: "B", 10: "N", 11: "Q", 12: "K"}
    board = chess.Board(None)
    for n in range(64):
        byte = message[2 + n // 2]
        code = (byte >> 4) if n % 2 else (byte & 0x0F)
        if code:
            board.set_piece_at(63 - n, chess.Piece.from_symbol(stones[code]))
    return board.board_fen()


async def test_an_app_plays_on_the_board_as_a_chessnut_air_over_ble(bluez, tmp_path):
    """On a link of the least MTU (23: 20 bytes a notification, a phone that never asks for
    more), each 38-byte position comes in two notifications, 20 and 18 bytes, and reads whole."""
    from bleak import BleakClient

    from firmware.emulation.ble import CHESSNUT_AIR

    positions: list[str] = []
    changed = asyncio.Event()
    buffer = bytearray()
    pieces: list[int] = []

    def received(_characteristic, data: bytearray) -> None:
        pieces.append(len(data))
        buffer.extend(data)
        while len(buffer) >= 38:                     # 01 24, 32 bytes of squares, 4 more
            assert buffer[:2] == bytes([0x01, 0x24])
            positions.append(read_chessnut(bytes(buffer[:38])))
            del buffer[:38]
        changed.set()

    async with board_over_ble(tmp_path, CHESSNUT_AIR, "/org/bluez/hci2", "chessnut", "Tester",
                              lambda name: name.startswith("Chessnut"), mtu=23) as (table, device, seen):
        async with BleakClient(device, bluez={"adapter": "hci0"}) as client:
            fen_service = client.services.get_service("1b7e8261-2877-41c3-b46e-cf057c562023")
            op_service = client.services.get_service("1b7e8271-2877-41c3-b46e-cf057c562023")
            assert fen_service is not None and op_service is not None
            assert op_service.get_characteristic("1b7e8272-2877-41c3-b46e-cf057c562023") is not None
            await client.start_notify("1b7e8262-2877-41c3-b46e-cf057c562023", received)
            await client.start_notify("1b7e8273-2877-41c3-b46e-cf057c562023", lambda c, d: None)
            await client.write_gatt_char("1b7e8272-2877-41c3-b46e-cf057c562023", bytes([0x21, 0x01, 0x00]),
                                         response=True)
            await until(changed, lambda: positions, "the position in real-time mode")
            assert positions[-1] == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
            for uci, placement in FOOLS_MATE:
                table.play(uci)
                await until(changed, lambda: positions[-1] == placement, f"the position after {uci}")
            assert set(pieces) == {20, 18} and len(pieces) == 2 * len(positions)   # every position split
            bitmap = bytearray(8)
            for name in ("d8", "h4"):
                s = parse_square(name)
                index = (7 - s // 8) * 8 + s % 8
                bitmap[index // 8] |= 0x80 >> (index % 8)
            await client.write_gatt_char("1b7e8272-2877-41c3-b46e-cf057c562023", bytes([0x0A, 0x08]) + bitmap,
                                         response=True)
            async with asyncio.timeout(WAIT_S):
                while set(table.leds.lit()) != {parse_square("d8"), parse_square("h4")}:
                    await asyncio.sleep(0.01)
            assert table.session.board_state.app is not None and table.session.board_state.app.protocol == "Chessnut"
            await client.stop_notify("1b7e8262-2877-41c3-b46e-cf057c562023")
            async with asyncio.timeout(WAIT_S):
                while table.session.board_state.app is not None:
                    await asyncio.sleep(0.01)


def read_pegasus_dump(message: bytes) -> int:
    """The occupied squares (a bitboard, a1 = bit 0) of a Pegasus dump, as an app reads it: a8..h8 first."""
    assert message[:3] == bytes([0x86, 0x00, 0x43])
    return sum(1 << ((7 - n // 8) * 8 + n % 8) for n in range(64) if message[3 + n])


async def test_an_app_plays_on_the_board_as_a_dgt_pegasus_over_ble(bluez, tmp_path):
    import chess
    from bleak import BleakClient

    from firmware.emulation.ble import PEGASUS_BLE

    dumps: list[int] = []
    changed = asyncio.Event()
    buffer = bytearray()

    def received(_characteristic, data: bytearray) -> None:
        buffer.extend(data)
        while len(buffer) >= 3 and len(buffer) >= (buffer[1] << 7 | buffer[2]):
            size = buffer[1] << 7 | buffer[2]
            if buffer[0] == 0x86:
                dumps.append(read_pegasus_dump(bytes(buffer[:size])))
            del buffer[:size]
        changed.set()

    nus_write, nus_notify = "6e400002-b5a3-f393-e0a9-e50e24dcca9e", "6e400003-b5a3-f393-e0a9-e50e24dcca9e"
    async with board_over_ble(tmp_path, PEGASUS_BLE, "/org/bluez/hci3", "pegasus", "DGT app", lambda name: name.startswith("DGT_PEGASUS")) as (table, device, seen):
        assert PEGASUS_BLE.service in seen.service_uuids
        async with BleakClient(device, bluez={"adapter": "hci0"}) as client:
            service = client.services.get_service("6e400001-b5a3-f393-e0a9-e50e24dcca9e")
            assert service is not None
            assert "notify" in service.get_characteristic(nus_notify).properties
            assert "write-without-response" in service.get_characteristic(nus_write).properties
            await client.start_notify(nus_notify, received)
            # DGT's app's opening, as recorded: reset, lights out, developer key, trademark, dump, updates
            await client.write_gatt_char(nus_write, bytes.fromhex("40 60 02 00 00 63 07 8e 87 b0 18 b6 f4 00 5a 47"),
                                         response=False)
            await client.write_gatt_char(nus_write, bytes.fromhex("42 44"), response=False)
            await until(changed, lambda: dumps, "the first dump")
            assert dumps[-1] == chess.Board().occupied
            assert table.session.board_state.app is not None and table.session.board_state.app.protocol == "DGT Pegasus"
            game = chess.Board()
            for uci, _placement in FOOLS_MATE:
                table.play(uci)
                game.push_uci(uci)
                await client.write_gatt_char(nus_write, bytes([0x42]), response=False)
                await until(changed, lambda: dumps[-1] == game.occupied, f"the dump after {uci}")
            assert table.session.game.outcome is not None and table.session.game.outcome.winner == 1
            d8, h4 = parse_square("d8"), parse_square("h4")
            fields = [(7 - s // 8) * 8 + s % 8 for s in (d8, h4)]
            await client.write_gatt_char(nus_write, bytes([0x60, 7, 5, 1, 0, 9, *fields, 0]), response=False)
            async with asyncio.timeout(WAIT_S):
                while set(table.leds.lit()) != {d8, h4}:
                    await asyncio.sleep(0.01)
            await client.stop_notify(nus_notify)
            async with asyncio.timeout(WAIT_S):
                while table.session.board_state.app is not None:
                    await asyncio.sleep(0.01)


LINK_LOST_S = 10.0      # an app that vanished gives the LEDs back within this, once BlueZ says so


async def test_an_app_whose_link_is_lost_gives_the_leds_and_the_page_back(bluez, tmp_path):
    """A killed app, or one gone out of range, never stops its notifications: BlueZ only sees the
    link go (the supervision timeout) and turns the device's Connected false. Here the link is
    cut from BlueZ's side (Device1.Disconnect on the app's device, as the timeout does) while the
    app still believes itself subscribed."""
    from bleak import BleakClient
    from dbus_fast import BusType, Message
    from dbus_fast.aio import MessageBus

    from firmware.emulation.ble import CHESSLINK_BLE

    notes = Notes()
    async with board_over_ble(tmp_path, CHESSLINK_BLE, "/org/bluez/hci4", "chesslink", "Tester",
                              lambda name: name == "MILLENNIUM CHESS") as (table, device, seen):
        client = BleakClient(device, bluez={"adapter": "hci0"})
        await client.connect()
        try:
            await client.start_notify(CHESSLINK_BLE.notify, notes.received)
            data = bytes(odd(c) for c in with_check(led_frame([parse_square("e2"), parse_square("e4")])))
            for i in range(0, len(data), 20):
                await client.write_gatt_char(CHESSLINK_BLE.write, data[i:i + 20], response=True)
            await notes.until(lambda: with_check("l") in notes.frames, "the LEDs' answer")
            assert set(table.leds.lit()) == {parse_square("e2"), parse_square("e4")}
            assert table.session.board_state.app is not None

            bus = await MessageBus(bus_type=BusType.SYSTEM).connect()
            try:
                await bus.call(Message(destination="org.bluez", path=device.details["path"],
                                       interface="org.bluez.Device1", member="Disconnect"))
            finally:
                bus.disconnect()
            async with asyncio.timeout(LINK_LOST_S):
                while table.session.board_state.app is not None:
                    await asyncio.sleep(0.01)
            assert table.leds.last == table.session.leds_frame          # the board's own LEDs again
        finally:
            with contextlib.suppress(Exception):
                await client.disconnect()
