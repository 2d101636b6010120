"""Stub of CircuitPython's ``supervisor``: ``ticks_ms`` (tests set ``ticks``; it wraps at 2**29) and ``runtime``."""

ticks = 0


def ticks_ms():
    return ticks % (1 << 29)


class _Runtime:
    autoreload = True
    serial_connected = False


runtime = _Runtime()
