# mypy: disable-error-code="name-defined,valid-type,no-untyped-def"
# (dbus-fast reads the D-Bus signatures from the annotations: "ay", "a{sv}" are not Python types)
"""The board as a Bluetooth LE peripheral: a GATT service through BlueZ's D-Bus API (dbus-fast), its writes in, its notifications out.

An app on a phone or a computer finds the board by its advertised name and service, connects,
subscribes to the notifying characteristic and writes its commands to the other: the same bytes
a serial line carries, cut into pieces (an ATT value of 20 bytes by default; a ChessLink ``L``
command, 167 characters, arrives over several writes; the codecs read pieces as they come).

* :class:`GattProfile`: what one protocol's board shows: the name, the service, the write and
  notify characteristics (:data:`CHESSLINK_BLE`, the Millennium board's).
* :class:`BlePort`: ``await open()`` exports the service on the system bus and registers it and
  its advertisement with BlueZ on ``adapter`` (``/org/bluez/hci0``); ``start(on_data,
  on_hangup)`` and ``write(data)`` as a serial port's (the bridge's ``Port``); an app that stops
  its notifications has left (``on_hangup``), and so has one whose link BlueZ sees go: its
  device's ``Connected`` turned false, or the device removed (an app killed, or gone out of
  range: BlueZ notices at the link's supervision timeout, 5-6 s from phones; StopNotify never
  comes then). ``await close()`` unregisters and disconnects.

BlueZ itself (Debian's ``bluez``) runs the radio; the board needs the right to use it on the
system bus (the ``bluetooth`` group on Raspberry Pi OS). Tests use bluezoo, a mock of BlueZ's
D-Bus API, on a private bus, with bleak as the app.
"""
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dbus_fast import BusType, Message, MessageType, Variant
from dbus_fast.aio import MessageBus
from dbus_fast.service import ServiceInterface, dbus_property, method
from dbus_fast.constants import PropertyAccess

log = logging.getLogger(__name__)

BLUEZ = "org.bluez"
ROOT_PATH = "/org/echiquier/board"
DEVICE = "org.bluez.Device1"
DEFAULT_MTU = 23            # an ATT value carries MTU - 3 bytes


@dataclass(frozen=True)
class GattProfile:
    """The face a commercial board shows over Bluetooth LE: its name, the service it advertises
    (which holds the notifying characteristic), the characteristic the app writes to (in
    ``write_service`` when another), and characteristics the app subscribes to that this board
    never sends on (``silent``: (service, characteristic) pairs)."""

    name: str
    service: str
    write: str
    notify: str
    write_service: str = ""
    silent: tuple[tuple[str, str], ...] = ()


# Millennium ChessLink over BLE (python-mchess's chess_link_bluepy.py; the figures).
CHESSLINK_BLE = GattProfile("MILLENNIUM CHESS", "49535343-fe7d-4ae5-8fa9-9fafd205e455",
                            "49535343-8841-43f4-a8d4-ecbe34729bb3", "49535343-1e4d-4bd9-ba61-23c647249616")
# Chessnut Air (chessnutech's chess_move_api): the FEN service notifies the position; the operation
# service takes the commands and notifies their answers (none sent here).
_CHESSNUT_OP = "1b7e8271-2877-41c3-b46e-cf057c562023"
CHESSNUT_AIR = GattProfile("Chessnut Air", "1b7e8261-2877-41c3-b46e-cf057c562023",
                           "1b7e8272-2877-41c3-b46e-cf057c562023", "1b7e8262-2877-41c3-b46e-cf057c562023",
                           write_service=_CHESSNUT_OP,
                           silent=((_CHESSNUT_OP, "1b7e8273-2877-41c3-b46e-cf057c562023"),))
# DGT Pegasus: DGT's framing over the Nordic UART service (DGTCentaurMods' PegasusClient); apps look
# for a name beginning "DGT_PEGASUS" (BearChess, Universal-Chess); the real board adds its own number.
PEGASUS_BLE = GattProfile("DGT_PEGASUS_0001", "6e400001-b5a3-f393-e0a9-e50e24dcca9e",
                          "6e400002-b5a3-f393-e0a9-e50e24dcca9e", "6e400003-b5a3-f393-e0a9-e50e24dcca9e")
PROFILES = {"chesslink": CHESSLINK_BLE, "chessnut": CHESSNUT_AIR, "pegasus": PEGASUS_BLE}


class _Service(ServiceInterface):
    def __init__(self, uuid: str) -> None:
        super().__init__("org.bluez.GattService1")
        self._uuid = uuid

    @dbus_property(access=PropertyAccess.READ)
    def UUID(self) -> "s":
        return self._uuid

    @dbus_property(access=PropertyAccess.READ)
    def Primary(self) -> "b":
        return True


class _Characteristic(ServiceInterface):
    def __init__(self, uuid: str, service: str, flags: list[str], port: "BlePort") -> None:
        super().__init__("org.bluez.GattCharacteristic1")
        self._uuid, self._service, self._flags, self._port = uuid, service, flags, port
        self._value = b""

    @dbus_property(access=PropertyAccess.READ)
    def UUID(self) -> "s":
        return self._uuid

    @dbus_property(access=PropertyAccess.READ)
    def Service(self) -> "o":
        return self._service

    @dbus_property(access=PropertyAccess.READ)
    def Flags(self) -> "as":
        return self._flags

    @dbus_property(access=PropertyAccess.READ)
    def Value(self) -> "ay":
        return self._value

    @method()
    def ReadValue(self, options: "a{sv}") -> "ay":
        return self._value

    @method()
    def WriteValue(self, value: "ay", options: "a{sv}"):
        self._port._written(bytes(value), options)

    @method()
    def StartNotify(self):
        if self is self._port._notify:
            self._port._notifying(True)

    @method()
    def StopNotify(self):
        if self is self._port._notify:
            self._port._notifying(False)

    @method()
    def Confirm(self):
        pass                   # an indication confirmed: nothing waits for it

    def notify(self, value: bytes) -> None:
        self._value = value
        self.emit_properties_changed({"Value": value})


class _Advertisement(ServiceInterface):
    def __init__(self, profile: GattProfile, name: str) -> None:
        super().__init__("org.bluez.LEAdvertisement1")
        self._profile, self._name = profile, name

    @dbus_property(access=PropertyAccess.READ)
    def Type(self) -> "s":
        return "peripheral"

    @dbus_property(access=PropertyAccess.READ)
    def ServiceUUIDs(self) -> "as":
        return [self._profile.service]

    @dbus_property(access=PropertyAccess.READ)
    def LocalName(self) -> "s":
        return self._name

    @dbus_property(access=PropertyAccess.READ)
    def Discoverable(self) -> "b":
        return True            # (the adapter need not be: the app finds the board by this advertisement)

    @method()
    def Release(self):
        log.info("BlueZ released the board's advertisement")


class BlePort:
    """The board's GATT service on one adapter; see the module docstring."""

    def __init__(self, profile: GattProfile, *, name: str = "", adapter: str = "/org/bluez/hci0",
                 bus_address: str | None = None) -> None:
        self.profile = profile
        self.name = name or profile.name
        self.adapter = adapter
        self.bus_address = bus_address
        self.device: str | None = None
        self.mtu = DEFAULT_MTU
        self._bus: MessageBus | None = None
        self._on_data: Callable[[bytes], None] | None = None
        self._on_hangup: Callable[[], None] | None = None
        self._subscribed = False
        self._app_device: str | None = None   # the app's device (BlueZ's path), from its writes
        services: dict[str, str] = {}        # service UUID -> its object path
        paths: list[tuple[str, ServiceInterface]] = []

        def service_path(uuid: str) -> str:
            if uuid not in services:
                services[uuid] = f"{ROOT_PATH}/service{len(services)}"
                paths.append((services[uuid], _Service(uuid)))
            return services[uuid]

        def characteristic(service: str, uuid: str, flags: list[str]) -> _Characteristic:
            parent = service_path(service)
            made = _Characteristic(uuid, parent, flags, self)
            paths.append((f"{parent}/char{sum(1 for p, _ in paths if p.startswith(parent + '/'))}", made))
            return made

        self._notify = characteristic(profile.service, profile.notify, ["notify"])
        self._write = characteristic(profile.write_service or profile.service, profile.write,
                                     ["write", "write-without-response"])
        self._silent = [characteristic(service, uuid, ["notify"]) for service, uuid in profile.silent]
        self._advert = _Advertisement(profile, self.name)
        self._paths = tuple(paths)

    async def open(self) -> str:
        """Export the service and register it and the advertisement with BlueZ; OSError (and
        dbus errors) if it cannot be."""
        bus = await MessageBus(bus_address=self.bus_address, bus_type=BusType.SYSTEM).connect()
        self._bus = bus
        for path, interface in self._paths:
            bus.export(path, interface)
        bus.export(f"{ROOT_PATH}/advert0", self._advert)
        bus.add_message_handler(self._bluez_signal)
        for rule in (f"type='signal',sender='{BLUEZ}',interface='org.freedesktop.DBus.Properties',"
                     f"member='PropertiesChanged',path_namespace='{self.adapter}'",
                     f"type='signal',sender='{BLUEZ}',interface='org.freedesktop.DBus.ObjectManager',"
                     f"member='InterfacesRemoved'"):
            await bus.call(Message(destination="org.freedesktop.DBus", path="/org/freedesktop/DBus",
                                   interface="org.freedesktop.DBus", member="AddMatch", signature="s", body=[rule]))
        introspection = await bus.introspect(BLUEZ, self.adapter)
        adapter = bus.get_proxy_object(BLUEZ, self.adapter, introspection)
        gatt: Any = adapter.get_interface("org.bluez.GattManager1")
        advertising: Any = adapter.get_interface("org.bluez.LEAdvertisingManager1")
        await gatt.call_register_application(ROOT_PATH, {})
        await advertising.call_register_advertisement(f"{ROOT_PATH}/advert0", {})
        self.device = f"{self.adapter} as {self.name!r}"
        return self.device

    def start(self, on_data: Callable[[bytes], None], on_hangup: Callable[[], None]) -> None:
        self._on_data, self._on_hangup = on_data, on_hangup

    @property
    def app_present(self) -> bool:
        return self._subscribed

    def write(self, data: bytes) -> None:
        """Notify ``data`` to the app, in pieces of MTU - 3 bytes; nothing while none listens."""
        if not self._subscribed or self._bus is None:
            return
        size = max(1, self.mtu - 3)
        for i in range(0, len(data), size):
            self._notify.notify(data[i:i + size])

    def _written(self, value: bytes, options: dict[str, Variant]) -> None:
        device = options.get("device")
        if device is not None and isinstance(device.value, str):
            self._app_device = device.value
        mtu = options.get("mtu")
        if mtu is not None and isinstance(mtu.value, int) and mtu.value > 3:
            self.mtu = mtu.value
        if self._on_data is not None:
            self._on_data(value)

    def _notifying(self, on: bool) -> None:
        was, self._subscribed = self._subscribed, on
        if was and not on and self._on_hangup is not None:
            self._on_hangup()

    def _bluez_signal(self, message: Message) -> None:
        """BlueZ's word on a device of this adapter: disconnected (``Connected`` false) or removed."""
        if message.message_type is not MessageType.SIGNAL:
            return
        if message.member == "PropertiesChanged" and message.body and message.body[0] == DEVICE:
            connected = message.body[1].get("Connected")
            if connected is not None and connected.value is False:
                self._device_lost(message.path or "")
        elif message.member == "InterfacesRemoved" and len(message.body) == 2 and DEVICE in message.body[1]:
            self._device_lost(message.body[0])

    def _device_lost(self, path: str) -> None:
        """The link to a device is gone: if it is the app's (or, before the app wrote, any of this
        adapter's: the board serves one app at a time), the app has left."""
        if not path.startswith(self.adapter + "/"):
            return
        if self._app_device is not None and path != self._app_device:
            return
        present = self._subscribed or self._app_device is not None
        self._subscribed, self._app_device = False, None
        if present:
            log.info("BlueZ lost the link to the app (%s)", path)
            if self._on_hangup is not None:
                self._on_hangup()

    async def close(self) -> None:
        bus, self._bus = self._bus, None
        if bus is None:
            return
        try:
            introspection = await bus.introspect(BLUEZ, self.adapter)
            adapter = bus.get_proxy_object(BLUEZ, self.adapter, introspection)
            gatt: Any = adapter.get_interface("org.bluez.GattManager1")
            advertising: Any = adapter.get_interface("org.bluez.LEAdvertisingManager1")
            await advertising.call_unregister_advertisement(f"{ROOT_PATH}/advert0")
            await gatt.call_unregister_application(ROOT_PATH)
        except Exception as exc:  # noqa: BLE001 - BlueZ gone already: nothing more to undo
            log.info("unregistering from BlueZ: %s", exc)
        bus.disconnect()


__all__ = ["BlePort", "GattProfile", "CHESSLINK_BLE", "CHESSNUT_AIR", "PEGASUS_BLE", "PROFILES"]
