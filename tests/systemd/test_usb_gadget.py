"""The board as a USB serial device: the gadget script, its unit and the service's drop-in (docs/emulation.md)."""
from __future__ import annotations

import re
import subprocess
import sys

from .test_unit import MAX_EXPOSURE, ROOT, UNIT, directives, needs_analyze

SCRIPT = ROOT / "scripts" / "usb-gadget-serial.sh"
GADGET_UNIT = ROOT / "systemd" / "echiquier-usb-gadget.service"
DROP_IN = ROOT / "systemd" / "usb-gadget.conf"


def test_the_script_is_valid_bash_and_makes_one_acm_function_bound_to_the_controller():
    assert subprocess.run(["bash", "-n", str(SCRIPT)]).returncode == 0
    out = subprocess.run(["bash", str(SCRIPT), "up", "--dry-run"], capture_output=True, text=True, timeout=30,
                         check=True).stdout
    assert "+ modprobe libcomposite" in out
    assert "functions/acm.usb0" in out and re.search(r"ln -s \S+/functions/acm\.usb0 \S+/configs/c\.1/", out)
    assert re.search(r"> /sys/kernel/config/usb_gadget/echiquier/UDC$", out, re.M)
    assert out.index("acm.usb0") < out.index("/UDC")          # the function is there before it binds
    down = subprocess.run(["bash", str(SCRIPT), "down", "--dry-run"], capture_output=True, text=True, timeout=30,
                          check=True).stdout
    assert "echo '' > /sys/kernel/config/usb_gadget/echiquier/UDC" in down and "rmdir" in down
    bad = subprocess.run(["bash", str(SCRIPT), "sideways"], capture_output=True, text=True, timeout=30)
    assert bad.returncode == 2 and "usage" in bad.stderr


@needs_analyze
def test_the_gadget_unit_verifies_and_comes_before_the_service(tmp_path):
    text = GADGET_UNIT.read_text(encoding="utf-8").replace("/usr/local/sbin/echiquier-usb-gadget", str(SCRIPT))
    path = tmp_path / "echiquier-usb-gadget.service"
    path.write_text(text, encoding="utf-8")
    result = subprocess.run(["systemd-analyze", "verify", str(path)], capture_output=True, text=True, timeout=60)
    assert "echiquier-usb-gadget.service" not in result.stderr, result.stderr
    d = directives(text)
    assert d["Type"] == ["oneshot"] and d["RemainAfterExit"] == ["yes"] and d["Before"] == ["echiquier.service"]


def test_the_drop_in_lets_the_service_open_the_gadget_s_port_and_wait_for_it():
    d = directives(DROP_IN.read_text(encoding="utf-8"))
    assert d["DeviceAllow"] == ["char-ttyGS rw"]
    assert d["After"] == ["echiquier-usb-gadget.service"] and d["Wants"] == ["echiquier-usb-gadget.service"]


@needs_analyze
def test_with_the_drop_in_the_exposure_stays_at_most_3(tmp_path):
    unit = re.sub(r"^ExecStart=\S+", f"ExecStart={sys.executable}", UNIT.read_text(encoding="utf-8"), flags=re.M)
    head, install = unit.split("[Install]")
    service_lines = DROP_IN.read_text().split("[Service]")[1].splitlines()
    extra = [line for line in service_lines if line and not line.startswith("#")]
    path = tmp_path / "echiquier.service"
    path.write_text(head + "\n".join(extra) + "\n\n[Install]" + install, encoding="utf-8")
    result = subprocess.run(["systemd-analyze", "security", "--offline=yes", str(path)],
                            capture_output=True, text=True, timeout=60)
    match = re.search(r"Overall exposure level for echiquier\.service: (\d+\.\d+)", result.stdout)
    assert match, result.stdout + result.stderr
    assert float(match.group(1)) <= MAX_EXPOSURE
