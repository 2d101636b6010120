"""The preflight of ``echiquier hwtest --doctor``: model, libraries, groups, /proc and /dev as the service has them, pins, buttons.

Each check reads the machine under ``root`` (``/`` on the Pi; a directory emulating one in
tests) and returns a :class:`Check`: passed or failed, what was seen, and the fix in one line.
"""
from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .buttons import GpioButtons
from .hw_lock import gpio_lock
from .link import SerialLink
from .pi_platform import SPI_LED_PIN, PiModel, boot_config, check_imports, detect, kernel_pins
from .pinmap import ButtonPins, PinMap
from .sensors import SensorError
from .serial_ports import resolve_port

OK, FAIL, WARN, SKIP = "ok", "FAIL", "warn", "skip"
SERVICE_GROUPS = ("gpio", "spi", "dialout")
UNIT_PATHS = ("etc/systemd/system/echiquier.service", "lib/systemd/system/echiquier.service")


@dataclass(frozen=True, slots=True)
class Check:
    status: str
    title: str
    detail: str
    fix: str = ""

    def render(self) -> str:
        line = f"  {self.status:<4}  {self.title}: {self.detail}"
        return line + (f"\n        fix: {self.fix}" if self.fix and self.status in (FAIL, WARN) else "")


@dataclass
class Machine:
    """What the preflight reads: the root of the file system, the service's user, the pin map."""

    root: Path = Path("/")
    user: str = "echiquier"
    pinmap: PinMap | None = None
    sensors: str = "gpio"
    leds: str = "neopixel"
    importer: Callable[[tuple[str, ...]], list[tuple[str, str]]] = check_imports
    lock_dir: Path | None = None
    model: PiModel = field(init=False)

    def __post_init__(self) -> None:
        self.model = detect(self.root)


def _pins_of(pinmap: PinMap) -> dict[int, str]:
    names = {}
    for i, pin in enumerate(pinmap.matrix.rows):
        names[pin] = f"row {i + 1}"
    for i, pin in enumerate(pinmap.matrix.cols):
        names[pin] = f"column {i + 1}"
    if pinmap.leds is not None:
        names[pinmap.leds.data_pin] = "LED data"
    for name, pin in pinmap.buttons.pins:
        names[pin] = f"{name} button"
    return names


def check_model(m: Machine) -> Check:
    if not m.model.is_pi:
        return Check(FAIL, "Pi model", f"{m.model.name} is not a Raspberry Pi",
                     "run the doctor on the Pi (or echiquier hwtest --doctor --fake to see it on a simulated board)")
    return Check(OK, "Pi model", f"{m.model.name} (generation {m.model.generation})")


def check_libraries(m: Machine) -> Check:
    generation = m.model.generation
    if generation is None:
        return Check(SKIP, "libraries", "not a Pi")
    failures = m.importer(m.model.modules)
    if failures:
        names = ", ".join(f"{name} ({why})" for name, why in failures)
        extra = "pi,pi5" if generation >= 5 else "pi,pi4"
        return Check(FAIL, "libraries", f"cannot import {names}",
                     f"sudo systemd/install.sh (installs the [{extra}] libraries for this model and checks them)")
    return Check(OK, "libraries", f"{', '.join(m.model.modules)} import")


def groups_of(root: Path, user: str) -> set[str] | None:
    """The groups ``/etc/group`` (under ``root``) puts ``user`` in; None if it cannot be read."""
    return _groups_of(root, user)


def _groups_of(root: Path, user: str) -> set[str] | None:
    try:
        text = (root / "etc/group").read_text()
    except OSError:
        return None
    groups = set()
    for line in text.splitlines():
        parts = line.split(":")
        if len(parts) >= 4 and user in parts[3].split(","):
            groups.add(parts[0])
    return groups


def check_groups(m: Machine) -> Check:
    groups = _groups_of(m.root, m.user)
    if groups is None:
        return Check(SKIP, "groups", "cannot read /etc/group")
    missing = [g for g in SERVICE_GROUPS if g not in groups]
    if missing:
        return Check(FAIL, "groups", f"user {m.user} is not in {', '.join(missing)}",
                     f"sudo usermod -aG {','.join(SERVICE_GROUPS)} {m.user}")
    return Check(OK, "groups", f"user {m.user} is in {', '.join(SERVICE_GROUPS)}")


def check_proc(m: Machine) -> Check:
    unreadable = [p for p in ("proc/cpuinfo", "proc/device-tree/model") if not os.access(m.root / p, os.R_OK)]
    for relative in UNIT_PATHS:
        unit = m.root / relative
        if unit.exists():
            text = unit.read_text()
            if any(line.strip() == "ProcSubset=pid" for line in text.splitlines()):
                return Check(FAIL, "/proc as the service sees it",
                             f"/{relative} has ProcSubset=pid: the GPIO and LED libraries cannot read /proc/cpuinfo "
                             "or /proc/device-tree", "sudo systemd/install.sh (installs the current unit)")
            break
    if unreadable:
        return Check(FAIL, "/proc as the service sees it", f"cannot read /{', /'.join(unreadable)}",
                     "the libraries refuse to start without them; check the container or sandbox running this")
    return Check(OK, "/proc as the service sees it", "/proc/cpuinfo and /proc/device-tree/model readable")


def _devices_needed(m: Machine) -> list[tuple[str, str, str]]:
    """(path, why, fix if missing) for the devices this configuration opens."""
    needed = []
    gen = m.model.generation or 0
    buttons = m.pinmap is not None and bool(m.pinmap.buttons.pins)
    if m.sensors == "gpio" or buttons:
        what = "the GPIO matrix" if m.sensors == "gpio" else "the buttons"
        if gen >= 5:
            needed.append(("dev/gpiochip0", f"{what} (rpi-lgpio)", "update Raspberry Pi OS (sudo apt full-upgrade)"))
        else:
            needed.append(("dev/gpiomem", f"{what} (RPi.GPIO)", "update Raspberry Pi OS (sudo apt full-upgrade)"))
    if m.leds == "neopixel" and m.pinmap is not None and m.pinmap.leds is not None:
        if gen >= 5:
            needed.append(("dev/pio0", "the LEDs (RP1 PIO)", "update the Pi 5's kernel and firmware (sudo apt full-upgrade; sudo rpi-eeprom-update -a)"))
        elif m.pinmap.leds.data_pin == SPI_LED_PIN:
            needed.append(("dev/spidev0.0", "the LEDs on SPI", "enable SPI: sudo raspi-config nonint do_spi 0, then reboot"))
    return needed


def _unit_blocks(m: Machine, relative: str) -> str | None:
    """The installed unit's path if its DevicePolicy=closed leaves ``/relative`` out, else None."""
    return unit_blocks(m.root, relative)


def installed_unit(root: Path) -> Path | None:
    """The service's unit installed under ``root``, if any."""
    return next((root / relative for relative in UNIT_PATHS if (root / relative).exists()), None)


def unit_blocks(root: Path, relative: str, driver: str | None = None) -> str | None:
    """The installed unit's path if its DevicePolicy=closed leaves the device ``/relative`` out
    (named in DeviceAllow by its path, or ``char-DRIVER``: by default its name without the
    digits), else None."""
    for unit_relative in UNIT_PATHS:
        unit = root / unit_relative
        if not unit.exists():
            continue
        allow, closed = [], False
        for line in unit.read_text().splitlines():
            key, _, value = line.strip().partition("=")
            if key == "DevicePolicy":
                closed = value.strip() in ("closed", "strict")
            elif key == "DeviceAllow" and value.strip():
                allow.append(value.split()[0])
        node = "/" + relative
        driver = driver or re.sub(r"[\d.]+$", "", Path(relative).name)
        if closed and not any(spec == node or spec == f"char-{driver}" for spec in allow):
            return "/" + unit_relative
        return None
    return None


def check_devices(m: Machine) -> list[Check]:
    checks = []
    for relative, why, fix in _devices_needed(m):
        path = m.root / relative
        unit = _unit_blocks(m, relative)
        if unit is not None:
            checks.append(Check(FAIL, f"/{relative}", f"{unit} does not allow it ({why}): the service cannot open it",
                                "sudo systemd/install.sh (installs the current unit), or add DeviceAllow="
                                f"/{relative} rw with systemctl edit echiquier"))
        elif not path.exists():
            checks.append(Check(FAIL, f"/{relative}", f"missing ({why})", fix))
        elif not os.access(path, os.R_OK | os.W_OK):
            checks.append(Check(FAIL, f"/{relative}", f"no read/write access ({why})",
                                f"sudo usermod -aG {','.join(SERVICE_GROUPS)} $USER, then log in again"))
        else:
            checks.append(Check(OK, f"/{relative}", f"read/write ({why})"))
    return checks


def check_pins(m: Machine) -> list[Check]:
    if m.pinmap is None:
        return []
    checks = []
    names = _pins_of(m.pinmap)
    path, text = boot_config(m.root)
    owned = kernel_pins(text)
    led_pin = m.pinmap.leds.data_pin if m.pinmap.leds is not None else None
    taken = [(pin, what) for pin, what in sorted(owned.items())
             if pin in names and not (pin == led_pin == SPI_LED_PIN and what.startswith("SPI0"))]  # SPI is the LED route
    where = f"/{path.relative_to(m.root)}" if path else "config.txt"
    if taken and m.sensors == "gpio":
        for pin, what in taken:
            checks.append(Check(FAIL, f"GPIO {pin}", f"the pin map's {names[pin]} is taken by {what}",
                                f"remove that line from {where} and reboot, or move the {names[pin]} in the pin map"))
    else:
        checks.append(Check(OK, "kernel overlays", f"none claims a pin of the map ({where})"))
    # GPIO 0/1 and active-high columns on GPIO 2/3 are refused when the pin map is read (board_driver.pinmap)
    if m.pinmap.leds is not None and m.leds == "neopixel" and m.model.is_pi:
        pin = m.pinmap.leds.data_pin
        problem = m.model.led_pin_problem(pin)
        if problem:
            checks.append(Check(FAIL, "LED pin", problem, f"set data_pin = {SPI_LED_PIN} in the pin map and wire DIN there"))
        elif (m.model.generation or 0) < 5 and pin != SPI_LED_PIN:
            checks.append(Check(FAIL, "LED pin", f"GPIO {pin} is driven by PWM/PCM and DMA through /dev/mem: root only, "
                                "and the service runs as its own user",
                                f"use GPIO {SPI_LED_PIN} (SPI), or install systemd/leds-pwm.conf (the service then runs as root)"))
        else:
            checks.append(Check(OK, "LED pin", f"GPIO {pin} can drive the chain on this {m.model.name}"))
            generation = m.model.generation or 0
            if pin == SPI_LED_PIN and generation in (3, 4):
                checks.append(check_spi_clock(generation, text, where))
    return checks


def _config_value(config_txt: str, key: str) -> str | None:
    value = None
    for raw in config_txt.splitlines():
        line = raw.split("#", 1)[0].strip()
        if line.startswith(key + "="):
            value = line.split("=", 1)[1].strip()
    return value


def check_spi_clock(generation: int, config_txt: str, where: str) -> Check:
    """rpi_ws281x times the LED bits with the SPI clock, which follows the VideoCore's core clock:
    it must not scale (Pi 3: core_freq=250; Pi 4: core_freq_min=500), or the colours flicker."""
    key, wanted = ("core_freq", "250") if generation == 3 else ("core_freq_min", "500")
    if _config_value(config_txt, key) != wanted:
        return Check(FAIL, "SPI clock for the LEDs", f"{key} is not {wanted}: the SPI clock follows the core clock, "
                     "so the LED bits change speed and the colours flicker",
                     f"add {key}={wanted} to {where}" + (" (and core_freq=500)" if generation == 4 else "") + ", then reboot")
    return Check(OK, "SPI clock for the LEDs", f"{key}={wanted} in {where}")


def check_buttons(gpio: Any, buttons: ButtonPins, *, lock_dir: Path | None = None) -> list[Check]:
    """Each button of the pin map reads released (nobody pressing it): one that reads pressed is
    stuck, or its wire touches ground. ``gpio``: the RPi.GPIO module (a MockGPIO in tests)."""
    if not buttons.pins:
        return []
    from .hw_lock import HardwareLock
    reader = GpioButtons(buttons, gpio=gpio, lock=HardwareLock("buttons", "the GPIO buttons", lock_dir))
    try:
        reader.open()
    except SensorError as exc:
        return [Check(FAIL, "buttons", f"cannot read them: {exc}")]
    try:
        pressed = reader.read()
    finally:
        reader.close()
    checks = []
    for name, pin in buttons.pins:
        if pressed[name]:
            checks.append(Check(FAIL, f"{name} button", f"GPIO {pin} reads pressed with nobody pressing it: the "
                                "button is stuck, or its wire touches ground",
                                f"free the button (a jammed key), or look for a bridge to ground on GPIO {pin}'s wire; "
                                f"a normally-open button goes between GPIO {pin} and a GND pin, nothing else"))
    released = [f"{name} (GPIO {pin})" for name, pin in buttons.pins if not pressed[name]]
    if released:
        checks.append(Check(OK, "buttons", f"{', '.join(released)} read released "
                            "(echiquier hwtest shows each press live)"))
    return checks


def check_service(m: Machine) -> Check:
    lock = gpio_lock(m.lock_dir)
    if m.sensors == "gpio" and lock.busy():
        holder = lock.holder()
        return Check(FAIL, "the service", f"is scanning the matrix{f' (PID {holder})' if holder else ''}",
                     "sudo systemctl stop echiquier, run the doctor, then sudo systemctl start echiquier")
    return Check(OK, "the service", "not scanning: the doctor may use the hardware")


def check_coprocessor(port: str | None, root: Path = Path("/"), *, serial_factory: Callable[..., Any] | None = None,
                      clock: Callable[[], float] = time.monotonic, listen_s: float = 3.0) -> list[Check]:
    """The co-processor: its data port (never the console), opened exclusively, its firmware, the link's quality."""
    try:
        name = resolve_port(port, root)
    except SensorError as exc:
        return [Check(FAIL, "co-processor port", str(exc), "ls -l /dev/serial/by-id/ lists the ports; set board.port "
                      "to the one ending in -if02, or leave it \"auto\"")]
    checks = [Check(OK, "co-processor port", name)]
    link = SerialLink(name, serial_factory=serial_factory, clock=clock, threaded=False)
    link.open()
    start = clock()
    try:
        while clock() - start < listen_s and not (link.device_version and link.stats.heartbeats >= 4):
            link.poll()
        elapsed = max(clock() - start, 1e-9)
        decoder = link.decoder.stats
        if link.last_error and not link.connected:
            checks.append(Check(FAIL, "co-processor link", f"cannot open {name}: {link.last_error}",
                                "if the service holds it: sudo systemctl stop echiquier; else check the dialout group"))
        elif link.device_version is None:
            checks.append(Check(FAIL, "co-processor firmware", f"no answer to HELLO within {listen_s:g} s",
                                "copy boot.py, code.py and cp_*.py to CIRCUITPY, then unplug and replug the Pico "
                                "(coprocessor/README.md)"))
        else:
            protocol, leds, firmware = link.device_version
            checks.append(Check(OK, "co-processor firmware", f"{firmware} (protocol {protocol}, {leds} LEDs)"))
            rate = link.device_scan_rate
            checks.append(Check(OK if rate else WARN, "co-processor scanning",
                                f"{rate:,} scans/s" if rate else "no heartbeat with a scan rate yet",
                                "wait for its heartbeats (4 a second); restart the Pico if none come"))
            bad = decoder.bad_crc + decoder.bad_header + link.stats.missed_frames
            checks.append(Check(OK if not bad else WARN, "link quality",
                                f"{decoder.frames:,} frames in {elapsed:.1f} s, {decoder.bad_crc} CRC errors, "
                                f"{decoder.bad_header} bad headers, {link.stats.missed_frames} dropped",
                                "a shorter USB cable, away from the LED supply wires; a powered hub if the Pi is short of current"))
    finally:
        link.close()
    return checks


def preflight(m: Machine) -> list[tuple[str, list[Check]]]:
    """The sections of checks, in the order a maker fixes them."""
    return [
        ("Raspberry Pi and libraries", [check_model(m), check_libraries(m)]),
        ("Permissions, /proc and /dev as the service has them", [check_groups(m), check_proc(m), *check_devices(m)]),
        ("Pins", check_pins(m)),
        ("Hardware in use", [check_service(m)]),
    ]


def render(sections: Iterable[tuple[str, list[Check]]]) -> str:
    lines = []
    for title, checks in sections:
        if not checks:
            continue
        lines.append(title)
        lines.extend(c.render() for c in checks)
    return "\n".join(lines)
