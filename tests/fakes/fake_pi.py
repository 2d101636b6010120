"""An emulated Raspberry Pi file system: the /proc, /dev, /etc and /boot entries the libraries and the doctor read."""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REVISIONS = {3: "a22082", 4: "c03115", 5: "d04170"}


def emulated_pi(root: Path, model: str = "Raspberry Pi 4 Model B Rev 1.5", *, generation: int = 4,
                user: str = "echiquier", groups=("gpio", "spi", "dialout"),
                config_txt: str = "dtparam=spi=on\ncore_freq=500\ncore_freq_min=500\n",
                devices: tuple[str, ...] | None = None, unit: str | None = None) -> Path:
    """A directory laid out like a Pi's ``/``: the device tree's model string (NUL-terminated),
    /proc/cpuinfo, /etc/group, /boot/firmware/config.txt, the device nodes (plain files here:
    the doctor checks they exist and are read/writable) and the installed unit."""
    (root / "proc/device-tree").mkdir(parents=True)
    (root / "proc/device-tree/model").write_bytes(model.encode() + b"\0")
    (root / "proc/cpuinfo").write_text(f"processor\t: 0\nHardware\t: BCM2835\nRevision\t: {REVISIONS.get(generation, 'c03115')}\n"
                                       f"Model\t\t: {model}\n")
    (root / "etc/systemd/system").mkdir(parents=True)
    lines = ["root:x:0:"] + [f"{g}:x:{900 + i}:{user}" for i, g in enumerate(groups)]
    (root / "etc/group").write_text("\n".join(lines) + "\n")
    (root / "etc/systemd/system/echiquier.service").write_text(
        unit if unit is not None else (ROOT / "systemd/echiquier.service").read_text())
    (root / "boot/firmware").mkdir(parents=True)
    (root / "boot/firmware/config.txt").write_text(config_txt)
    if devices is None:
        devices = ("gpiochip0", "gpiochip4", "pio0", "ttyACM0", "ttyACM1") if generation >= 5 else \
                  ("gpiomem", "gpiochip0", "spidev0.0", "spidev0.1", "ttyACM0", "ttyACM1")
    (root / "dev").mkdir()
    for name in devices:
        (root / "dev" / name).write_bytes(b"")
    return root
