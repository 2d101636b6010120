"""The Pi model as the libraries read it (/proc/device-tree/model, /proc/cpuinfo), its libraries, its pins."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from board_driver.backends.gpio_matrix import GpioMatrixSource, import_rpi_gpio
from board_driver.hw_lock import gpio_lock
from board_driver.backends.mock_gpio import MockGPIO
from board_driver.pinmap import REFERENCE
from board_driver.pi_platform import detect, kernel_pins, main
from board_driver.sensors import BackendUnavailableError, SensorError

ROOT = Path(__file__).resolve().parents[2]

# The device tree's model strings (NUL-terminated, as the firmware writes them).
MODELS = {
    "Raspberry Pi Zero 2 W Rev 1.0": (3, "pi,pi4"),
    "Raspberry Pi 3 Model B Plus Rev 1.3": (3, "pi,pi4"),
    "Raspberry Pi 4 Model B Rev 1.5": (4, "pi,pi4"),
    "Raspberry Pi 400 Rev 1.1": (4, "pi,pi4"),
    "Raspberry Pi Compute Module 4 Rev 1.1": (4, "pi,pi4"),
    "Raspberry Pi 5 Model B Rev 1.0": (5, "pi,pi5"),
    "Raspberry Pi Compute Module 5 Rev 1.0": (5, "pi,pi5"),
    "Raspberry Pi Model B Plus Rev 1.2": (1, "pi,pi4"),
}


def fake_root(tmp_path: Path, model: str | None = None, cpuinfo: str | None = None, config_txt: str | None = None) -> Path:
    if model is not None:
        (tmp_path / "proc/device-tree").mkdir(parents=True)
        (tmp_path / "proc/device-tree/model").write_bytes(model.encode() + b"\0")
    if cpuinfo is not None:
        (tmp_path / "proc").mkdir(parents=True, exist_ok=True)
        (tmp_path / "proc/cpuinfo").write_text(cpuinfo)
    if config_txt is not None:
        (tmp_path / "boot/firmware").mkdir(parents=True)
        (tmp_path / "boot/firmware/config.txt").write_text(config_txt)
    return tmp_path


@pytest.mark.parametrize("name", MODELS)
def test_the_model_string_picks_the_generation_and_the_extras(tmp_path, name):
    model = detect(fake_root(tmp_path, name))
    assert model.name == name
    assert (model.generation, model.extras) == MODELS[name]


def test_without_a_device_tree_the_cpuinfo_model_line_is_read(tmp_path):
    root = fake_root(tmp_path, cpuinfo="processor\t: 0\nHardware\t: BCM2835\nRevision\t: d04170\n"
                                        "Model\t\t: Raspberry Pi 5 Model B Rev 1.0\n")
    assert detect(root).generation == 5


def test_a_pc_is_not_a_pi_and_needs_no_extras(tmp_path):
    model = detect(fake_root(tmp_path, cpuinfo="processor\t: 0\nmodel name\t: Intel(R) Core(TM)\n"))
    assert not model.is_pi and model.extras == "" and model.modules == ()


def test_each_model_checks_the_libraries_it_really_uses(tmp_path):
    pi4 = detect(fake_root(tmp_path / "4", "Raspberry Pi 4 Model B Rev 1.5"))
    pi5 = detect(fake_root(tmp_path / "5", "Raspberry Pi 5 Model B Rev 1.0"))
    assert "_rpi_ws281x" in pi4.modules and "lgpio" not in pi4.modules
    assert {"lgpio", "gpiod", "adafruit_raspberry_pi5_neopixel_write"} <= set(pi5.modules)
    assert "_rpi_ws281x" not in pi5.modules


def test_the_pyproject_extras_exist_and_pi5_does_not_install_rpi_gpio():
    import tomllib
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert not any(r.lower().startswith("rpi.gpio") for r in extras["pi"] + extras["pi5"])
    assert any(r.startswith("rpi-lgpio") for r in extras["pi5"])
    assert any(r.startswith("RPi.GPIO") for r in extras["pi4"]) and any(r.startswith("rpi-ws281x") for r in extras["pi4"])
    assert any("pi5-neopixel" in r for r in extras["pi5"]) and any(r.startswith("gpiod") for r in extras["pi5"])


def test_led_pins_rpi_ws281x_cannot_drive_are_named_with_the_fix(tmp_path):
    pi4 = detect(fake_root(tmp_path / "4", "Raspberry Pi 4 Model B Rev 1.5"))
    pi5 = detect(fake_root(tmp_path / "5", "Raspberry Pi 5 Model B Rev 1.0"))
    for pin in (10, 12, 13, 18, 19, 21):
        assert pi4.led_pin_problem(pin) is None
    assert "use GPIO 10 (SPI)" in pi4.led_pin_problem(17)
    assert pi5.led_pin_problem(17) is None


def test_pins_owned_by_overlays_in_config_txt():
    owned = kernel_pins("dtparam=audio=on\ndtoverlay=w1-gpio\ndtparam=i2s=on\nenable_uart=1\n"
                        "dtoverlay=spi1-2cs  # a display\n[pi4]\ndtparam=spi=on\n")
    assert owned[4].startswith("1-Wire")
    assert {18, 19, 20, 21} <= set(owned) and owned[20].startswith("SPI1")  # spi1 came after i2s
    assert owned[14].startswith("the serial console UART") and owned[15] == owned[14]
    assert {7, 8, 9, 10, 11} <= set(owned)
    assert kernel_pins("dtoverlay=w1-gpio,gpiopin=17\n") == {17: "1-Wire (dtoverlay=w1-gpio)"}
    assert kernel_pins("#dtparam=i2s=on\nenable_uart=0\n") == {}


def test_the_cli_prints_the_extras_and_checks_imports(tmp_path, capsys, monkeypatch):
    root = fake_root(tmp_path, "Raspberry Pi 5 Model B Rev 1.0")
    assert main(["--root", str(root), "--extras"]) == 0
    assert capsys.readouterr().out == "pi,pi5\n"
    assert main(["--root", str(root), "--check"]) == 1  # none of the Pi 5 libraries here
    err = capsys.readouterr().err
    assert "cannot import lgpio on Raspberry Pi 5 Model B Rev 1.0" in err


# -- the installer, with the model emulated ----------------------------------------------------
def dry_install(root: Path) -> str:
    result = subprocess.run(["bash", str(ROOT / "systemd/install.sh"), "--dry-run", "--no-start"],
                            capture_output=True, text=True, timeout=60,
                            env={"PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "SYSROOT": str(root),
                                 "PYTHON": sys.executable, "SERVICE_USER": "echiquier-test-nobody"})
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.parametrize("name, extras", [("Raspberry Pi 5 Model B Rev 1.0", "pi,pi5"),
                                          ("Raspberry Pi Zero 2 W Rev 1.0", "pi,pi4"),
                                          ("Raspberry Pi 4 Model B Rev 1.5", "pi,pi4")])
def test_the_installer_installs_the_libraries_of_the_model_and_checks_them(tmp_path, name, extras):
    out = dry_install(fake_root(tmp_path, name))
    assert f"pip install --quiet --upgrade {ROOT}[{extras}]" in out
    assert f"-m board_driver.pi_platform --root {tmp_path} --check" in out


def test_the_installer_on_a_pc_installs_no_pi_libraries(tmp_path):
    out = dry_install(fake_root(tmp_path, cpuinfo="model name\t: Intel\n"))
    assert f"pip install --quiet --upgrade {ROOT}\n" in out and "--check" not in out


# -- RPi.GPIO's failures name the package to install -------------------------------------------
@pytest.fixture
def rpi_gpio_refusing_at_import(tmp_path, monkeypatch):
    """An RPi.GPIO whose import raises as 0.7.1's does off a Pi (cpuinfo.c finds no Pi revision)."""
    package = tmp_path / "lib/RPi"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "GPIO.py").write_text("raise RuntimeError('This module can only be run on a Raspberry Pi!')\n")
    monkeypatch.syspath_prepend(str(tmp_path / "lib"))
    for name in ("RPi", "RPi.GPIO"):
        monkeypatch.delitem(sys.modules, name, raising=False)


def test_rpi_gpio_refusing_at_import_says_on_what(tmp_path, rpi_gpio_refusing_at_import):
    root = fake_root(tmp_path / "root", cpuinfo="model name\t: Intel\n")
    with pytest.raises(SensorError, match="cannot run on this unknown machine: This module can only be run on a Raspberry Pi!"):
        import_rpi_gpio(root)


class RPiGPIO071(MockGPIO):
    """RPi.GPIO 0.7.1 where its first setup() cannot map the registers (py_gpio.c, mmap_gpio_mem)."""

    def __init__(self, message):
        super().__init__()
        self.message = message

    def setup(self, *args, **kwargs):
        raise RuntimeError(self.message)


def test_rpi_gpio_on_a_pi_5_fails_at_setup_and_the_error_names_rpi_lgpio(tmp_path):
    root = fake_root(tmp_path, "Raspberry Pi 5 Model B Rev 1.0")
    source = GpioMatrixSource(REFERENCE, gpio=RPiGPIO071("Cannot determine SOC peripheral base address"),
                              root=root, lock=gpio_lock(tmp_path / "none"))
    with pytest.raises(BackendUnavailableError, match=r"cannot drive the Raspberry Pi 5 Model B Rev 1.0's RP1 "
                                                      r"\(Cannot determine SOC peripheral base address\): "
                                                      r"pip uninstall RPi.GPIO, then pip install rpi-lgpio"):
        source.read_once()


def test_no_access_to_gpiomem_is_not_told_to_run_as_root(tmp_path):
    root = fake_root(tmp_path, "Raspberry Pi 4 Model B Rev 1.5")
    source = GpioMatrixSource(REFERENCE, gpio=RPiGPIO071("No access to /dev/mem.  Try running as root!"),
                              root=root, lock=gpio_lock(tmp_path / "none"))
    with pytest.raises(SensorError, match="cannot open /dev/gpiomem .*add the user to the gpio group"):
        source.read_once()
