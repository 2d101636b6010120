"""The systemd unit: it verifies, its hardening keeps the exposure low, the installer is sound."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "systemd" / "echiquier.service"
INSTALL = ROOT / "systemd" / "install.sh"
MAX_EXPOSURE = 3.0

needs_analyze = pytest.mark.skipif(
    shutil.which("systemd-analyze") is None,
    reason="systemd-analyze is missing (scripts/install-system-deps.sh installs systemd)")


def directives(text: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for line in text.splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            key, value = line.split("=", 1)
            found.setdefault(key.strip(), []).append(value.strip())
    return found


@pytest.fixture
def testable_unit(tmp_path) -> Path:
    """The unit with ExecStart pointing at an executable that exists here (verify checks it)."""
    text = UNIT.read_text(encoding="utf-8")
    text = re.sub(r"^ExecStart=\S+", f"ExecStart={sys.executable}", text, flags=re.M)
    path = tmp_path / "echiquier.service"
    path.write_text(text, encoding="utf-8")
    return path


@needs_analyze
def test_the_unit_verifies(testable_unit):
    result = subprocess.run(["systemd-analyze", "verify", str(testable_unit)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "echiquier.service" not in result.stderr, result.stderr


@needs_analyze
def test_the_exposure_is_at_most_3(testable_unit):
    result = subprocess.run(["systemd-analyze", "security", "--offline=yes", str(testable_unit)],
                            capture_output=True, text=True, timeout=60)
    match = re.search(r"Overall exposure level for echiquier\.service: (\d+\.\d+)", result.stdout)
    assert match, result.stdout + result.stderr
    exposure = float(match.group(1))
    print(f"systemd-analyze security exposure: {exposure}")
    assert exposure <= MAX_EXPOSURE


def test_the_unit_notifies_is_watched_and_restarts():
    d = directives(UNIT.read_text(encoding="utf-8"))
    assert d["Type"] == ["notify"]
    assert d["NotifyAccess"] == ["main"]
    assert float(d["WatchdogSec"][0]) > 0
    assert d["Restart"] == ["on-failure"]
    assert d["ExecStart"][0].startswith("/opt/echiquier/venv/bin/echiquier run --config /etc/echiquier/config.toml")


def test_the_unit_runs_as_its_own_user_with_only_the_devices_it_needs():
    d = directives(UNIT.read_text(encoding="utf-8"))
    assert d["User"] == ["echiquier"]
    assert set(d["SupplementaryGroups"][0].split()) == {"gpio", "spi", "dialout", "audio"}
    assert d["StateDirectory"] == ["echiquier"] and d["ConfigurationDirectory"] == ["echiquier"]
    assert d["DevicePolicy"] == ["closed"]
    allowed = {v.split()[0] for v in d["DeviceAllow"]}
    assert allowed == {"/dev/gpiomem", "/dev/pio0", "char-gpiochip", "char-spidev", "char-ttyACM", "char-ttyUSB",
                       "char-ttyAMA", "char-ttyS", "char-alsa"}
    for key, value in [("ProtectSystem", "strict"), ("ProtectHome", "yes"), ("PrivateTmp", "yes"),
                       ("NoNewPrivileges", "yes"), ("CapabilityBoundingSet", ""),
                       ("RestrictAddressFamilies", "AF_UNIX AF_INET AF_INET6")]:
        assert d[key] == [value], key
    assert "@system-service" in d["SystemCallFilter"]
    assert d["StandardOutput"] == ["journal"]


def test_the_installer_is_valid_bash_and_does_what_it_says():
    assert subprocess.run(["bash", "-n", str(INSTALL)]).returncode == 0
    result = subprocess.run(["bash", str(INSTALL), "--dry-run", "--no-start"], capture_output=True,
                            text=True, timeout=30, env={"PATH": "/usr/bin:/bin:/usr/sbin:/sbin",
                                                        "SERVICE_USER": "echiquier-test-nobody"})
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "useradd --system" in out
    assert "-m venv /opt/echiquier/venv" in out
    assert f"pip install --quiet --upgrade {ROOT}" in out
    assert "/etc/systemd/system/echiquier.service" in out
    assert "systemctl enable echiquier.service" in out
    assert "systemctl restart" not in out  # --no-start


# -- what the hardware libraries read, as the unit lets them (issue 13) ------------------------
# Read in their sources: RPi.GPIO 0.7.1 (cpuinfo.c: /proc/device-tree/system/linux,revision, else
# /proc/cpuinfo's Revision; c_gpio.c: /dev/gpiomem, /proc/device-tree/soc/ranges), rpi-lgpio
# (lgpio: /dev/gpiochip*, its .lgd-nfy* pipes in the working directory), Blinka 10's platform
# detection (/proc/device-tree/model and compatible, /proc/cpuinfo), rpi_ws281x (the revision,
# /dev/spidev0.0 for SPI), the Pi 5 NeoPixel package (/dev/pio0), pyserial (/dev/ttyACM*).
LIBRARY_PROC_READS = ["/proc/cpuinfo", "/proc/device-tree/model", "/proc/device-tree/compatible",
                      "/proc/device-tree/system/linux,revision", "/proc/device-tree/soc/ranges"]
LIBRARY_DEVICES = {"/dev/gpiomem": "gpiomem", "/dev/gpiochip0": "gpiochip", "/dev/gpiochip4": "gpiochip",
                   "/dev/spidev0.0": "spidev", "/dev/pio0": "pio", "/dev/ttyACM1": "ttyACM",
                   "/dev/ttyAMA0": "ttyAMA"}


def proc_visible(d: dict[str, list[str]], path: str) -> bool:
    """systemd.exec(5): ProcSubset=pid leaves only the /proc/<pid> directories."""
    subset = d.get("ProcSubset", ["all"])[-1]
    return subset == "all" or path.split("/")[2].isdigit()


def device_allowed(d: dict[str, list[str]], path: str, driver: str) -> bool:
    """DevicePolicy=closed: a node is reachable only if DeviceAllow names it or its driver's class."""
    if d.get("DevicePolicy", ["auto"])[-1] != "closed":
        return True
    for rule in d.get("DeviceAllow", []):
        spec = rule.split()[0]
        if spec == path or (spec.startswith("char-") and spec[5:] == driver):
            return True
    return False


def test_the_libraries_see_the_proc_entries_they_read_at_import():
    d = directives(UNIT.read_text(encoding="utf-8"))
    hidden = [p for p in LIBRARY_PROC_READS if not proc_visible(d, p)]
    assert hidden == []


def test_the_libraries_reach_their_devices():
    d = directives(UNIT.read_text(encoding="utf-8"))
    blocked = [p for p, driver in LIBRARY_DEVICES.items() if not device_allowed(d, p, driver)]
    assert blocked == []


def test_the_voice_reaches_the_sound_card():
    """Issue 23: espeak-ng, started by the service, opens ALSA's /dev/snd/* (group audio on
    Raspberry Pi OS, major 116 'alsa'): the unit closed them and its user was not in the group."""
    d = directives(UNIT.read_text(encoding="utf-8"))
    assert device_allowed(d, "/dev/snd/pcmC0D0p", "alsa") and device_allowed(d, "/dev/snd/controlC0", "alsa")
    assert "audio" in d["SupplementaryGroups"][0].split()
    result = subprocess.run(["bash", str(INSTALL), "--dry-run", "--no-start"], capture_output=True, text=True,
                            timeout=30, env={"PATH": "/usr/bin:/bin:/usr/sbin:/sbin",
                                             "SERVICE_USER": "echiquier-test-nobody"})
    assert "usermod --append --groups audio echiquier-test-nobody" in result.stdout


def test_lgpio_can_write_its_pipes_in_the_working_directory():
    d = directives(UNIT.read_text(encoding="utf-8"))
    assert d["RuntimeDirectory"] == ["echiquier"]
    assert d["WorkingDirectory"] == ["/run/echiquier"]
    assert "LG_WD=/run/echiquier" in " ".join(d["Environment"])


def test_the_pwm_drop_in_gives_rpi_ws281x_dev_mem_and_vcio():
    d = directives((ROOT / "systemd" / "leds-pwm.conf").read_text(encoding="utf-8"))
    allowed = {v.split()[0] for v in d["DeviceAllow"]}
    assert {"/dev/mem", "/dev/vcio"} <= allowed
    assert d["User"] == ["root"] and d["CapabilityBoundingSet"] == ["CAP_SYS_RAWIO"]


def test_the_file_handle_limit_leaves_room_for_the_recorder_beside_every_connection():
    """Issue 12: 1,100 idle connections exhausted the file handles and the next save failed."""
    from netserver.limits import MAX_CONNECTIONS, RESERVED_FDS
    limit = directives(UNIT.read_text(encoding="utf-8")).get("LimitNOFILE")
    assert limit is not None, "the unit sets no LimitNOFILE"
    assert int(limit[-1]) >= MAX_CONNECTIONS + RESERVED_FDS


def test_the_connection_cap_follows_the_file_handle_limit():
    import resource

    from netserver.limits import connection_cap
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (200, hard))
        assert connection_cap(256, 128) == 72
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


@needs_analyze
def test_with_the_pwm_drop_in_the_exposure_stays_at_most_3(tmp_path):
    """systemd merges a drop-in's [Service] lines into the unit's: emulate that for --offline."""
    unit = re.sub(r"^ExecStart=\S+", f"ExecStart={sys.executable}", UNIT.read_text(encoding="utf-8"), flags=re.M)
    head, install = unit.split("[Install]")
    drop_in = [line for line in (ROOT / "systemd" / "leds-pwm.conf").read_text().splitlines()
               if line and not line.startswith(("#", "["))]
    path = tmp_path / "echiquier.service"
    path.write_text(head + "\n".join(drop_in) + "\n\n[Install]" + install, encoding="utf-8")
    result = subprocess.run(["systemd-analyze", "security", "--offline=yes", str(path)],
                            capture_output=True, text=True, timeout=60)
    match = re.search(r"Overall exposure level for echiquier\.service: (\d+\.\d+)", result.stdout)
    assert match, result.stdout + result.stderr
    print(f"exposure with leds-pwm.conf: {match.group(1)}")
    assert "User=root" in drop_in and float(match.group(1)) <= MAX_EXPOSURE


def test_a_stop_leaves_time_to_send_the_last_move_to_lichess():
    """Issue 26 (5): the stop waits up to STOP_SEND_S for the board's last move; systemd must not
    kill the service (TimeoutStopSec) nor call it hung (the watchdog, pinged every WatchdogSec/2) first."""
    from firmware.opponents.lichess.game import STOP_SEND_S
    from firmware.tasks import STOP_GRACE
    d = directives(UNIT.read_text(encoding="utf-8"))
    watchdog = float(d["WatchdogSec"][0])
    assert watchdog / 2 + STOP_SEND_S + STOP_GRACE < watchdog
    assert STOP_SEND_S + 2 * STOP_GRACE < float(d["TimeoutStopSec"][0])
