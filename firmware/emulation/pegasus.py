"""DGT Pegasus over Bluetooth LE, the board's side: DGT's framing, occupancy-only dumps and the Pegasus's LED command (pure).

The Pegasus speaks DGT's e-board protocol (:mod:`firmware.emulation.dgt`, whose framing this
reuses) over the Nordic UART service (:data:`firmware.emulation.ble.PEGASUS_BLE`). Written from
the open descriptions of it in DGTCentaurMods / Universal-Chess (Adrian Dybwad's
``pegasus.py`` emulator and ``PegasusClient``, GPL: read, not copied), which record a real
board's and DGT's app's bytes; an open-source, non-commercial implementation (see dgt.py).

=========================  =========================================================
command                    answer
=========================  =========================================================
0x42 board dump            0x86 0x00 0x43 + 64 bytes, a8 = 0 .. h1 = 63: 1 where a piece
                           stands, 0 where none (the Pegasus does not tell pieces apart)
0x43 / 0x44 / 0x4B         field updates 0x8E 0x00 0x05, square, 0 (emptied) or 1 (filled)
0x4D version               0x93 0x00 0x05 1 0
0x47 trademark             0x92 + four lines ending in CR LF, as the recorded board's: two naming
                           the board, then "software version: 1.00, build: 000000" and
                           "hardware version: 1.00, serial no: <long serial>" (no CR LF after it)
0x45 / 0x55 serial         0x91 / 0xA2, as dgt.py
0x32 battery               0xA0 0x00 0x0C + level (percent), 7 zeros, 2 (as recorded;
                           the last bytes' meaning is not described)
0x60 size mode ... 0x00    LEDs: mode 0 (or 2 0 0): all out; mode 5, speed, flash mode,
                           intensity, then the fields to light (a8 = 0): those alone lit
0x63 size key ... 0x00     DGT's app's "developer key": taken, no answer
0x40 reset                 none
0x46 / 0x49 / 0x4C         as dgt.py: bus address, no stored moves, battery in DGT's layout
=========================  =========================================================

A sized command's size byte counts what follows it, its closing 0x00 included (``60 02 00 00``:
lights out). The recorded board's first two trademark lines carry DGT's name and copyright:
here they name Échiquier (the protocol's description forbids carrying DGT's marks), the
version and serial lines keep the recorded layout. Not confirmed: whether DGT's app reads those
lines; the flash mode, speed and intensity are not rendered (the squares are lit steadily).
"""
from __future__ import annotations

from chess_core.squares import BB_SQUARES

from firmware.emulation.board import Event, Light, Lights, Send
from firmware.emulation.dgt import CODES, SET_LEDS, SIMPLE, SIZED, Dgt, message, square_of

NAME = "DGT Pegasus"
VERSION = (1, 0)
OCCUPIED = 1                     # the code of every piece in a Pegasus's dump and field updates
OCCUPANCY = {piece: (0 if piece == "." else OCCUPIED) for piece in CODES}
BATTERY, DEVELOPER_KEY = 0x32, 0x63
MSG_BATTERY = 0xA0
LEDS_OFF, LEDS_ON = 0, 5          # the LED command's modes (2 followed by 0 0 is off too)


class Pegasus(Dgt):
    """One link's DGT Pegasus; see the module docstring. ``battery``: the level reported (percent)."""

    codes = OCCUPANCY
    simple = SIMPLE + (BATTERY,)
    sized = SIZED + (DEVELOPER_KEY,)

    def __init__(self, now: float = 0.0, *, battery: int = 100) -> None:
        super().__init__(now, version=VERSION)
        if not 0 <= battery <= 100:
            raise ValueError("a battery level is a percentage")
        self.battery = battery

    def trademark(self) -> str:
        """The recorded Pegasus's four lines, the first two naming this board instead of DGT."""
        major, minor = self.version
        return (f"Echiquier open-source chessboard\r\nNot a DGT product\r\n"
                f"software version: {major}.{minor:02d}, build: 000000\r\n"
                f"hardware version: 1.00, serial no: {self.long_serial}")

    def _command(self, byte: int) -> list[Event]:
        if byte == BATTERY:
            return [Send(message(MSG_BATTERY, bytes([self.battery, 0, 0, 0, 0, 0, 0, 0, 2])))]
        return super()._command(byte)

    def _sized(self, command: bytes, events: list[Event], now: float) -> None:
        self._seen(command[0], events)
        if command[0] != SET_LEDS or len(command) < 4:
            return                    # the developer key, a clock message: nothing to answer
        payload = command[2:-1]       # the mode and what follows, without the closing 0x00
        lit = 0
        if payload[0] == LEDS_ON and len(payload) >= 4:
            for number in payload[4:]:
                if number < 64:
                    lit |= BB_SQUARES[square_of(number)]
        elif not (payload[0] == LEDS_OFF or payload[:3] == bytes([2, 0, 0])):
            return                    # a mode not described: left as it is
        lights = Lights.steady(lit)
        if lights.patterns != self.lights.patterns:
            self.lights = lights
            events.append(Light(lights))


__all__ = ["Pegasus", "NAME", "VERSION", "OCCUPIED"]
