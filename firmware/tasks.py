"""Ending a task for sure: the one implementation, in the bottom layer's uci/tasks.py, under the name the firmware uses."""
from __future__ import annotations

from uci.tasks import STOP_GRACE, STOP_TRIES, cancel_and_wait

__all__ = ["STOP_GRACE", "STOP_TRIES", "cancel_and_wait"]
