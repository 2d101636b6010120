"""Tests of the emulated commercial boards (firmware.emulation)."""
