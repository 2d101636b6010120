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
    assert set(d["SupplementaryGroups"][0].split()) == {"gpio", "spi", "dialout"}
    assert d["StateDirectory"] == ["echiquier"] and d["ConfigurationDirectory"] == ["echiquier"]
    assert d["DevicePolicy"] == ["closed"]
    allowed = {v.split()[0] for v in d["DeviceAllow"]}
    assert allowed == {"/dev/gpiomem", "char-gpiochip", "char-spidev", "char-ttyACM", "char-ttyUSB",
                       "char-ttyAMA", "char-ttyS"}
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
