"""The co-processor's data port by its stable name, its console refused, and what hwtest shows of the link."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from board_driver import framing
from board_driver.diagnostics import MatrixMonitor, render_link
from board_driver.framing import HOST_TO_DEVICE, FrameDecoder, FrameType
from board_driver.link import SerialLink
from board_driver.reading import Reading
from board_driver.sensors import SensorError
from board_driver.serial_ports import interface_of, resolve_port
from firmware.cli import build_parser
from tests.fakes.fake_serial import FakeLine

PICO = "usb-Raspberry_Pi_Pico_E6614C311B4A7C2E-if"


def emulated_usb(root: Path, interfaces=("00", "02")) -> Path:
    """/dev/serial/by-id symlinks and sysfs bInterfaceNumber as a Pico with two CDC ports shows them."""
    (root / "dev/serial/by-id").mkdir(parents=True)
    for n, interface in enumerate(interfaces):
        (root / f"dev/ttyACM{n}").write_bytes(b"")
        (root / f"dev/serial/by-id/{PICO}{interface}").symlink_to(f"../../ttyACM{n}")
        device = root / f"sys/class/tty/ttyACM{n}/device"
        device.mkdir(parents=True)
        (device / "bInterfaceNumber").write_text(f"{interface}\n")
    return root


def test_auto_finds_the_data_interface_by_its_stable_name(tmp_path):
    root = emulated_usb(tmp_path)
    assert resolve_port("auto", root) == f"/dev/serial/by-id/{PICO}02"
    assert resolve_port(None, root) == f"/dev/serial/by-id/{PICO}02"


@pytest.mark.parametrize("console", ["/dev/ttyACM0", f"/dev/serial/by-id/{PICO}00"])
def test_the_console_is_refused_naming_the_data_port(tmp_path, console):
    root = emulated_usb(tmp_path)
    with pytest.raises(SensorError, match=rf"is the co-processor's console .*0x03.*use its data port /dev/serial/by-id/{PICO}02"):
        resolve_port(console, root)
    assert interface_of("/dev/ttyACM1", root) == 2
    assert resolve_port("/dev/ttyACM1", root) == "/dev/ttyACM1"


def test_without_a_data_port_auto_says_what_to_check(tmp_path):
    root = emulated_usb(tmp_path, interfaces=("00",))  # boot.py did not enable usb_cdc data
    with pytest.raises(SensorError, match="no co-processor data port .*boot.py"):
        resolve_port("auto", root)


def test_an_unknown_port_is_used_as_given(tmp_path):
    assert resolve_port("/dev/ttyUSB0", tmp_path) == "/dev/ttyUSB0"


def test_hwtest_refuses_the_console(tmp_path, capsys):
    root = emulated_usb(tmp_path)
    args = build_parser().parse_args(["hwtest", "--once", "--serial", "/dev/ttyACM0", "--root", str(root)])
    args.serial_factory = FakeLine().factory
    assert args.func(args) == 2
    assert "/dev/ttyACM0 is the co-processor's console (its REPL)" in capsys.readouterr().err


def test_the_config_defaults_to_auto():
    from firmware.config import BoardConfig
    assert BoardConfig().port == "auto"


# -- what hwtest shows of the link -----------------------------------------------------------------
def device_on(line: FakeLine):
    seq = iter(range(10_000))

    def answer(data):
        for frame in FrameDecoder(HOST_TO_DEVICE).feed(data):
            if frame.type == FrameType.HELLO:
                line.send(framing.encode_frame(FrameType.VERSION, next(seq) & 255,
                                               bytes((1, 64)) + b"echiquier-coprocessor 1.1"))
            elif frame.type == FrameType.READ:
                line.send(framing.encode_frame(FrameType.READING, next(seq) & 255, framing.encode_reading(0)))
                next(seq)  # a frame lost on the way
                line.send(framing.encode_frame(FrameType.HEARTBEAT, next(seq) & 255, (3_600_000).to_bytes(4, "little")
                                               + (612).to_bytes(2, "little")))
                bad = bytearray(framing.encode_frame(FrameType.READING, next(seq) & 255, framing.encode_reading(1)))
                bad[-1] ^= 0xFF  # line noise
                line.send(bytes(bad))
    return answer


def test_the_link_block_shows_firmware_errors_drops_and_the_device_scan_rate():
    line = FakeLine()
    line.on_host_bytes = device_on(line)
    clock = [0.0]
    link = SerialLink("/dev/serial/by-id/x-if02", serial_factory=line.factory, clock=lambda: clock[0], threaded=False)
    link.open()
    for _ in range(5):
        link.poll()
    text = render_link(link)
    assert "link /dev/serial/by-id/x-if02: connected" in text
    assert "firmware echiquier-coprocessor 1.1 (protocol 1, 64 LEDs)" in text
    assert "1 CRC errors" in text and "1 dropped" in text and "reconnects 0" in text
    monitor = MatrixMonitor()
    monitor.update(Reading(0.0, 0))
    screen = monitor.render(0.0, device_rate=link.device_scan_rate)
    assert "scan rate 612 scans/s (the co-processor's count)" in screen


def test_auto_keeps_looking_until_the_pico_is_plugged_in(tmp_path):
    from board_driver.backends import open_source
    from board_driver.backends.serial_link import SerialSource
    line = FakeLine()
    line.on_host_bytes = device_on(line)
    t = [0.0]

    def clock():  # time passes a little with every look at it
        t[0] += 0.001
        return t[0]
    source = SerialSource("auto", resolve=lambda: resolve_port("auto", tmp_path), serial_factory=line.factory,
                          clock=clock, threaded=False, read_timeout=0.01)
    with pytest.raises(SensorError, match="no reading from the co-processor on its data port .*no co-processor data port"):
        source.read_once()
    assert line.opens == 0
    emulated_usb(tmp_path)  # plugged in
    t[0] = 10.0             # past the backoff
    assert source.read_once().occupied == 0
    assert source.link.port_in_use == f"/dev/serial/by-id/{PICO}02"
    source.stop()
    opened = open_source("serial", port="auto", root=tmp_path, serial_factory=FakeLine().factory)
    assert opened.link.port_name == "auto"


def test_a_port_that_opens_but_never_answers_says_which_port_to_use():
    from board_driver.backends.serial_link import SerialSource
    t = [0.0]

    def clock():
        t[0] += 0.001
        return t[0]
    source = SerialSource("/dev/ttyACM3", serial_factory=FakeLine().factory, clock=clock, threaded=False,
                          read_timeout=0.05)
    with pytest.raises(SensorError, match=r"on /dev/ttyACM3 within 0.05 s: the port opened but nothing answered; "
                                          r"is it the co-processor's data port \(the by-id name ending in -if02\)\?"):
        source.read_once()
    source.stop()
