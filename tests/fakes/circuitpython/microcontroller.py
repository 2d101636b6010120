"""Stub of CircuitPython's ``microcontroller``: ``delay_us`` records the waits, ``watchdog`` its feeds, ``reset`` raises Reset."""

delays = []
resets = []


def delay_us(us):
    delays.append(us)


class Reset(BaseException):
    """What the stub's reset() raises: on the chip, reset() does not return."""


def reset():
    resets.append(True)
    raise Reset()


class _WatchDogTimer:
    def __init__(self):
        self.timeout = None
        self.mode = None
        self.feeds = 0

    def feed(self):
        if self.mode is None:
            raise ValueError("WatchDogTimer is not initialized")
        self.feeds += 1

    def deinit(self):
        self.mode = None


watchdog = _WatchDogTimer()
