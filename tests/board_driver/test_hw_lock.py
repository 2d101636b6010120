"""One process at a time on the sensor hardware: the GPIO matrix's lock file and the serial port's flock."""
from __future__ import annotations

import os

import pytest
import serial

from board_driver.backends.gpio_matrix import GpioMatrixSource
from board_driver.hw_lock import HardwareBusyError, gpio_lock
from board_driver.link import SerialLink
from board_driver.pinmap import REFERENCE
from board_driver.backends.serial_link import SerialSource
from firmware.cli import main
from tests.fakes.fake_gpio import wired


def test_a_second_scanner_refuses_while_the_first_holds_the_matrix(tmp_path):
    service = GpioMatrixSource(REFERENCE, gpio=wired(REFERENCE, 1), lock=gpio_lock(tmp_path))
    hwtest = GpioMatrixSource(REFERENCE, gpio=wired(REFERENCE, 1), lock=gpio_lock(tmp_path))
    assert service.read_once().occupied == 1
    with pytest.raises(HardwareBusyError, match=rf"in use by another process \(PID {os.getpid()}\).*systemctl stop echiquier"):
        hwtest.read_once()
    service.stop()
    assert hwtest.read_once().occupied == 1
    hwtest.stop()


def test_hwtest_exits_with_the_reason_while_the_service_scans(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ECHIQUIER_LOCK_DIR", str(tmp_path))
    service = gpio_lock()
    service.acquire()
    assert main(["hwtest", "--fake", "--once"]) == 2
    assert "the GPIO sensor matrix is in use by another process" in capsys.readouterr().err
    service.release()
    assert main(["hwtest", "--fake", "--once"]) == 0


def test_a_read_only_lock_file_still_excludes(tmp_path):
    holder = gpio_lock(tmp_path)
    holder.acquire()
    os.chmod(tmp_path / "gpio.lock", 0o444)   # (root may open it for writing anyway: the flock still excludes)
    with pytest.raises(HardwareBusyError):
        gpio_lock(tmp_path).acquire()


def test_without_the_runtime_directory_there_is_nothing_to_lock_against(tmp_path):
    lock = gpio_lock(tmp_path / "absent")
    lock.acquire()
    assert not lock.held


def test_two_links_on_one_pty_the_second_cannot_open_it():
    """Real pyserial on a real pty: exclusive=True flocks the port (two readers each lost frames)."""
    master, slave = os.openpty()
    name = os.ttyname(slave)
    try:
        first = SerialLink(name, threaded=False, serial_factory=serial.Serial)
        second = SerialLink(name, threaded=False, serial_factory=serial.Serial)
        first.open(), second.open()
        first.poll()
        second.poll()
        assert first.connected and not second.connected
        assert "exclusively lock" in second.last_error
        source = SerialSource(link=second, read_timeout=0.0)
        with pytest.raises(Exception, match="cannot open it .*exclusively lock"):
            source.read_once()
        first.close(), second.close()
    finally:
        os.close(master), os.close(slave)
