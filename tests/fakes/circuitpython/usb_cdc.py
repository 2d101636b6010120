"""Stub of CircuitPython's ``usb_cdc``: tests set ``data`` to a device-side port (fake_serial.DeviceSide)."""

data = None
console = None
enabled = {}


def enable(console=True, data=False):
    enabled.update(console=console, data=data)
