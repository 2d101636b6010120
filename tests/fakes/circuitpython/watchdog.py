"""Stub of CircuitPython's ``watchdog`` module: the modes."""


class WatchDogMode:
    RAW = "raw"
    RESET = "reset"


class WatchDogTimeout(Exception):
    pass
