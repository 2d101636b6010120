"""The co-processor's main loop: scan, send readings and heartbeats, obey the host's frames.

Everything it touches is injected (scanner, pixels, port, clock), so the host's tests run it.
"""

import cp_protocol as proto

HEARTBEAT_MS = 250
"""A HEARTBEAT and a refresh READING go out this often, changes or not: the host declares the
link silent after 2 s without them, and a refresh repairs a reading lost to line noise."""
FIRMWARE_NAME = "echiquier-coprocessor 1.1"

TICKS_PERIOD = 1 << 29
"""supervisor.ticks_ms() counts milliseconds modulo 2**29 (it wraps every 6.2 days), as an
int: unlike time.monotonic(), a float that loses resolution with uptime (1 ms after about an
hour, 0.5 s after about twelve days: ``now + 0.25`` then stops advancing)."""
_TICKS_MAX = TICKS_PERIOD - 1
_TICKS_HALF = TICKS_PERIOD // 2


def ticks_add(ticks, delta):
    return (ticks + delta) % TICKS_PERIOD


def ticks_diff(end, start):
    """``end - start`` in ms across the wrap (valid while the two are less than 3.1 days apart)."""
    return ((end - start + _TICKS_HALF) & _TICKS_MAX) - _TICKS_HALF


class Coprocessor:
    """The loop; ``ticks_ms`` is supervisor.ticks_ms (an int clock in ms that wraps at 2**29)."""

    def __init__(self, scanner, pixels, port, ticks_ms, name=FIRMWARE_NAME, heartbeat_ms=HEARTBEAT_MS):
        self.scanner = scanner
        self.pixels = pixels
        self.port = port
        self.ticks_ms = ticks_ms
        self.name = name
        self.heartbeat_ms = heartbeat_ms
        self.decoder = proto.Decoder()
        self.seq = 0
        self.occupied = None
        self.scans = 0
        self.uptime_ms = 0  # summed from tick differences: exact for any uptime
        self._last_tick = ticks_ms()
        self.next_heartbeat = self._last_tick
        self._rate_scans = 0
        self._rate_ms = 0
        self.scan_rate = 0
        self.bpp = getattr(pixels, "bpp", 3)

    def send(self, ftype, payload=b""):
        self.port.write(proto.encode_frame(ftype, self.seq, payload))
        self.seq = (self.seq + 1) & 0xFF

    def send_reading(self):
        self.send(proto.READING, proto.reading_payload(self.occupied or 0))

    def step(self):
        """One turn of the loop: read host frames, scan, send what is due."""
        self.receive()
        occupied = self.scanner.scan()
        self.scans += 1
        if occupied != self.occupied:
            self.occupied = occupied
            self.send_reading()
        now = self.ticks_ms()
        self.uptime_ms += ticks_diff(now, self._last_tick)
        self._last_tick = now
        if ticks_diff(now, self.next_heartbeat) >= 0:
            elapsed = self.uptime_ms - self._rate_ms
            if elapsed > 0:
                self.scan_rate = (self.scans - self._rate_scans) * 1000 // elapsed
            self._rate_scans, self._rate_ms = self.scans, self.uptime_ms
            self.send(proto.HEARTBEAT, proto.heartbeat_payload(self.uptime_ms, self.scan_rate))
            self.send_reading()
            self.next_heartbeat = ticks_add(now, self.heartbeat_ms)

    def receive(self):
        waiting = self.port.in_waiting
        if not waiting:
            return
        for ftype, _seq, payload in self.decoder.feed(self.port.read(waiting)):
            if ftype == proto.LEDS:
                self.show(payload)
            elif ftype == proto.LEDS_RGBW:
                self.show(payload[2:], 4, payload[0], payload[1] & proto.SHOW_FLAG)
            elif ftype == proto.HELLO:
                self.send(proto.VERSION, proto.version_payload(len(self.pixels), self.name))
            elif ftype == proto.READ:
                if self.occupied is None:
                    self.occupied = self.scanner.scan()
                self.send_reading()

    def show(self, payload, channels=3, offset=0, complete=True):
        """Copy ``payload`` (``channels`` bytes a pixel: RGB, or RGBW from LEDS_RGBW frames) to
        the chain from pixel ``offset``; show it when ``complete``. An RGB chain given RGBW adds
        the white to each colour; an RGBW chain given RGB gets no white."""
        pixels = self.pixels
        count = min(len(pixels) - offset, len(payload) // channels)
        rgbw = self.bpp == 4
        for i in range(max(0, count)):
            base = channels * i
            r, g, b = payload[base], payload[base + 1], payload[base + 2]
            w = payload[base + 3] if channels == 4 else 0
            if rgbw:
                pixels[offset + i] = (r, g, b, w)
            else:
                pixels[offset + i] = (min(255, r + w), min(255, g + w), min(255, b + w))
        if complete:
            if channels == 3 and offset == 0:
                dark = (0, 0, 0, 0) if rgbw else (0, 0, 0)
                for i in range(max(0, count), len(pixels)):
                    pixels[i] = dark
            pixels.show()
