"""Stub of CircuitPython's ``microcontroller``: ``delay_us`` records the waits instead of waiting."""

delays = []


def delay_us(us):
    delays.append(us)
