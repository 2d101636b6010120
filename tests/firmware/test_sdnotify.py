"""sd_notify over NOTIFY_SOCKET: readiness, watchdog, and silence outside systemd."""
from __future__ import annotations

import os
import socket

import pytest

from firmware.sdnotify import Notifier


@pytest.fixture
def listener(tmp_path):
    path = str(tmp_path / "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(2)
    yield path, sock
    sock.close()


def test_ready_and_watchdog_reach_the_socket(listener):
    path, sock = listener
    notifier = Notifier({"NOTIFY_SOCKET": path})
    assert notifier.enabled
    assert notifier.ready("board read")
    assert sock.recv(4096) == b"READY=1\nSTATUS=board read"
    assert notifier.watchdog()
    assert sock.recv(4096) == b"WATCHDOG=1"
    assert notifier.stopping()
    assert sock.recv(4096) == b"STOPPING=1"
    notifier.close()


def test_abstract_socket_names_start_with_at():
    name = f"echiquier-test-{os.getpid()}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind("\0" + name)
    sock.settimeout(2)
    try:
        notifier = Notifier({"NOTIFY_SOCKET": "@" + name})
        assert notifier.ready()
        assert sock.recv(100) == b"READY=1"
        notifier.close()
    finally:
        sock.close()


def test_outside_systemd_nothing_is_sent():
    notifier = Notifier({})
    assert not notifier.enabled and not notifier.ready() and notifier.watchdog_interval is None


def test_a_vanished_socket_does_not_raise(tmp_path):
    notifier = Notifier({"NOTIFY_SOCKET": str(tmp_path / "gone")})
    assert notifier.ready() is False


def test_the_watchdog_interval_is_half_the_timeout():
    assert Notifier({"WATCHDOG_USEC": "10000000"}).watchdog_interval == 5.0
    assert Notifier({"WATCHDOG_USEC": "10000000", "WATCHDOG_PID": "1"}).watchdog_interval is None
    assert Notifier({"WATCHDOG_USEC": "10000000", "WATCHDOG_PID": str(os.getpid())}).watchdog_interval == 5.0
