"""Which Raspberry Pi this is, which libraries it needs, and which pins its kernel and its LED library allow.

Read as the hardware libraries read it: the model string in ``/proc/device-tree/model``
(NUL-terminated; Blinka's platform detection and rpi-lgpio read it), else the ``Model`` line of
``/proc/cpuinfo`` (RPi.GPIO 0.7.1 reads its ``Revision``); the overlays from the boot
``config.txt``. Every reader takes ``root`` (a directory standing in for ``/``) so tests emulate
any model. Run ``python -m board_driver.pi_platform --extras | --check`` (the installer does).
"""
from __future__ import annotations

import argparse
import importlib
import re
import sys
from dataclasses import dataclass
from pathlib import Path

PI_1_TO_4_LED_PINS = frozenset({10, 12, 13, 18, 19, 21})
"""Header pins rpi_ws281x can drive: SPI MOSI (10), PWM0 (12, 18), PWM1 (13, 19), PCM DOUT (21)."""
SPI_LED_PIN = 10
"""The only LED pin the unprivileged service can drive on a Pi 1-4 (/dev/spidev0.0, no root)."""
HAT_EEPROM_PINS = frozenset({0, 1})
I2C_PULLUP_PINS = frozenset({2, 3})
"""GPIO 2/3 carry 1.8 kOhm pull-ups to 3.3 V on the board itself (board_driver.pinmap refuses them as active-high columns)."""
UART_PINS = frozenset({14, 15})


@dataclass(frozen=True, slots=True)
class PiModel:
    """``name`` as the device tree says it; ``generation``: 1-5 (a Zero 2 W is a 3), None if not a Pi."""

    name: str
    generation: int | None

    @property
    def is_pi(self) -> bool:
        return self.generation is not None

    @property
    def extras(self) -> str:
        """The pyproject extras for this model: "pi,pi5" on a Pi 5, "pi,pi4" on a Pi 1-4, "" elsewhere."""
        if self.generation is None:  # not a Pi
            return ""
        return "pi,pi5" if self.generation >= 5 else "pi,pi4"

    @property
    def modules(self) -> tuple[str, ...]:
        """The modules the service imports on this model, checked after installing."""
        if self.generation is None:  # not a Pi
            return ()
        common = ("RPi.GPIO", "board", "neopixel")
        if self.generation >= 5:
            return common + ("lgpio", "gpiod", "adafruit_raspberry_pi5_neopixel_write")
        return common + ("_rpi_ws281x",)

    def led_pin_problem(self, pin: int) -> str | None:
        """Why the LED library cannot drive ``pin`` on this model, or None."""
        if self.generation is None or self.generation >= 5:
            return None  # the Pi 5 package drives any pin through the RP1's PIO
        if pin not in PI_1_TO_4_LED_PINS:
            return (f"GPIO {pin} cannot drive NeoPixels on a {self.name}: rpi_ws281x drives only GPIO "
                    f"{', '.join(map(str, sorted(PI_1_TO_4_LED_PINS)))}; use GPIO {SPI_LED_PIN} (SPI)")
        return None


def _read(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8", "replace")
    except OSError:
        return None


def generation_of(name: str) -> int | None:
    """1-5 from a model string ("Raspberry Pi Zero 2 W Rev 1.0" -> 3, "Raspberry Pi 400" -> 4)."""
    if "Raspberry Pi" not in name:
        return None
    if "Zero 2" in name:
        return 3
    if re.search(r"Raspberry Pi Zero|Raspberry Pi Model [AB]|Compute Module Rev|Raspberry Pi Compute Module 1", name):
        return 1
    found = re.search(r"Raspberry Pi (?:Compute Module )?(\d)", name)
    return int(found.group(1)) if found else None


def detect(root: Path = Path("/")) -> PiModel:
    """The model the device tree (else /proc/cpuinfo) names; not a Pi when neither does."""
    text = _read(root / "proc/device-tree/model")
    if text is None:
        cpuinfo = _read(root / "proc/cpuinfo") or ""
        found = re.search(r"^Model\s*:\s*(.+)$", cpuinfo, re.M)
        text = found.group(1) if found else ""
    name = text.strip("\x00\n ")
    return PiModel(name or "unknown machine", generation_of(name))


# -- pins the kernel owns (boot config.txt) ----------------------------------------------------
BOOT_CONFIGS = ("boot/firmware/config.txt", "boot/config.txt")


def boot_config(root: Path = Path("/")) -> tuple[Path | None, str]:
    """The boot configuration (Bookworm: /boot/firmware/config.txt) and its text."""
    for relative in BOOT_CONFIGS:
        text = _read(root / relative)
        if text is not None:
            return root / relative, text
    return None, ""


def kernel_pins(config_txt: str) -> dict[int, str]:
    """``{GPIO: what owns it}`` for the overlays and parameters of a config.txt (the last wins).

    Covers what a chessboard build meets: 1-Wire (w1-gpio, GPIO 4 unless gpiopin=), I2S
    (dtparam=i2s=on: 18-21), SPI0 (dtparam=spi=on: 7-11), SPI1 (spi1-Ncs: 19-21 and 18/17/16
    for its chip selects), the UART (enable_uart=1: 14/15), I2C (dtparam=i2c_arm=on: 2/3).
    """
    owned: dict[int, str] = {}
    for raw in config_txt.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line or line.startswith("["):
            continue
        key, _, value = line.partition("=")
        key, value = key.strip(), value.strip()
        if key == "dtoverlay":
            name, *params = [p.strip() for p in value.split(",")]
            args = {arg: value for arg, _, value in (p.partition("=") for p in params)}
            if name == "w1-gpio":
                owned[int(args.get("gpiopin", 4))] = "1-Wire (dtoverlay=w1-gpio)"
            elif name.startswith("spi1-"):
                cs = {"spi1-1cs": (18,), "spi1-2cs": (18, 17), "spi1-3cs": (18, 17, 16)}.get(name, (18,))
                for pin in (19, 20, 21, *cs):
                    owned[pin] = f"SPI1 (dtoverlay={name})"
            elif name in ("hifiberry-dac", "i2s-mmap", "googlevoicehat-soundcard", "max98357a"):
                for pin in (18, 19, 20, 21):
                    owned[pin] = f"I2S (dtoverlay={name})"
        elif key == "dtparam":
            for param in value.split(","):
                name, _, setting = param.partition("=")
                on = setting.strip() in ("on", "true", "yes", "1", "")
                pins = {"i2s": ((18, 19, 20, 21), "I2S"), "spi": ((7, 8, 9, 10, 11), "SPI0"),
                        "i2c_arm": ((2, 3), "I2C"), "i2c": ((2, 3), "I2C")}.get(name.strip())
                if pins:
                    for pin in pins[0]:
                        if on:
                            owned[pin] = f"{pins[1]} (dtparam={param.strip()})"
                        else:
                            owned.pop(pin, None)
        elif key == "enable_uart":
            for pin in UART_PINS:
                if value == "1":
                    owned[pin] = "the serial console UART (enable_uart=1)"
                else:
                    owned.pop(pin, None)
    return owned


def check_imports(modules: tuple[str, ...]) -> list[tuple[str, str]]:
    """``[(module, why it failed)]``: each import tried as the service will (RuntimeError included)."""
    failures = []
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception as exc:  # noqa: BLE001 - the libraries raise RuntimeError, OSError, ... off a Pi
            failures.append((name, f"{type(exc).__name__}: {exc}"))
    return failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m board_driver.pi_platform", description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path("/"), help=argparse.SUPPRESS)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--model", action="store_true", help="print the model")
    group.add_argument("--extras", action="store_true", help="print the pyproject extras this model needs")
    group.add_argument("--check", action="store_true", help="import the libraries this model needs")
    args = parser.parse_args(argv)
    model = detect(args.root)
    if args.model:
        print(model.name)
    elif args.extras:
        print(model.extras)
    else:
        failures = check_imports(model.modules)
        for name, why in failures:
            print(f"cannot import {name} on {model.name}: {why}", file=sys.stderr)
        if failures:
            return 1
        print(f"{model.name}: {', '.join(model.modules) or 'no hardware libraries needed'} import")
    return 0


if __name__ == "__main__":
    sys.exit(main())
