"""The emulated board as a companion of the board's service: ``[emulation]`` read, the port opened, the app's lights and the page told."""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from firmware.config import parse_colour
from firmware.emulation.bridge import PROTOCOLS, Emulation
from firmware.emulation.pty import PtyPort, SerialDevicePort
from firmware.session.app_link import AppLink
from firmware.companion import ServiceContext
from firmware.session.door import Command

log = logging.getLogger(__name__)

__all__ = ["serve_emulation"]


def open_port(config: Any) -> PtyPort:
    """The transport ``[emulation]`` names, opened (OSError if it cannot be)."""
    port = SerialDevicePort(config.link) if config.transport == "serial" else PtyPort(config.link or None)
    port.open()
    return port


async def open_ble(config: Any) -> Any:
    """The board's GATT service registered with BlueZ (OSError if BlueZ cannot be reached)."""
    from firmware.emulation.ble import PROFILES, BlePort   # (dbus-fast: only for Bluetooth)
    port = BlePort(PROFILES[config.protocol], name=config.name, adapter=f"/org/bluez/{config.adapter}")
    try:
        await port.open()
    except OSError:
        raise
    except Exception as exc:  # noqa: BLE001 - a D-Bus error (no BlueZ, no right to the bus): said, not raised
        await port.close()
        raise OSError(f"BlueZ refused the board's service: {exc}") from None
    return port


async def serve_emulation(service: ServiceContext, announce: Callable[[str], None] | None = None) -> None:
    """Companion coroutine: the board speaks ``[emulation] protocol`` on its port until cancelled;
    ``announce(text)`` once the port is open (says where). A port that cannot be opened is
    logged; the board plays on without it."""
    config = service.config.emulation
    if not config.protocol:
        return
    name = PROTOCOLS[config.protocol][0]
    try:
        port = await open_ble(config) if config.transport == "ble" else open_port(config)
    except OSError as exc:
        log.error("cannot open the %s port %s: %s; the board plays on without it", name, config.link or "",
                  exc.strerror or exc)
        return
    session = service.session

    def on_app(link: AppLink | None) -> None:   # (on the board's loop, in the emulation's task)
        session.door.post(Command("attach_app", (link,)))

    emulation = Emulation(session, port, config.protocol, colour=parse_colour(config.colour),
                          app=config.app, clock=session.clock, on_app=on_app)
    where = f"{port.device}" + (f", linked at {config.link}" if config.link else "")
    log.info("an app can play on this board as a %s board on %s", name, where)
    if announce is not None:
        announce(f"The board answers as a {name} board on {where}: give the app that port")
    try:
        emulation.start()
        await asyncio.Event().wait()
    finally:
        emulation.stop()
        closed = port.close()
        if closed is not None:       # (the Bluetooth port closes with BlueZ's answer)
            await closed
