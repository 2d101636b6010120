"""Fixtures of the club night tests: a real Mosquitto with the club's ACL."""
from __future__ import annotations

import pytest

from .mosquitto import Mosquitto


@pytest.fixture
def broker(tmp_path):
    found = Mosquitto(tmp_path / "broker")
    found.start()
    yield found
    found.stop()
