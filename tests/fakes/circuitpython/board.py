"""Stub of CircuitPython's ``board`` for a Raspberry Pi Pico: pins GP0..GP28 named by strings."""

for _n in range(29):
    globals()[f"GP{_n}"] = f"GP{_n}"
LED = "GP25"
