"""The co-processor's main loop: scan, send readings and heartbeats, obey the host's frames.

Everything it touches is injected (scanner, pixels, port, clock), so the host's tests run it.
"""

import cp_protocol as proto

HEARTBEAT_S = 0.25
"""A HEARTBEAT and a refresh READING go out this often, changes or not: the host declares the
link silent after 2 s without them, and a refresh repairs a reading lost to line noise."""
FIRMWARE_NAME = "echiquier-coprocessor 1.0"


class Coprocessor:
    def __init__(self, scanner, pixels, port, monotonic, name=FIRMWARE_NAME, heartbeat_s=HEARTBEAT_S):
        self.scanner = scanner
        self.pixels = pixels
        self.port = port
        self.monotonic = monotonic
        self.name = name
        self.heartbeat_s = heartbeat_s
        self.decoder = proto.Decoder()
        self.seq = 0
        self.occupied = None
        self.scans = 0
        self.started = monotonic()
        self.next_heartbeat = self.started
        self._rate_scans = 0
        self._rate_time = self.started
        self.scan_rate = 0

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
        now = self.monotonic()
        if now >= self.next_heartbeat:
            elapsed = now - self._rate_time
            if elapsed > 0:
                self.scan_rate = int((self.scans - self._rate_scans) / elapsed)
            self._rate_scans, self._rate_time = self.scans, now
            uptime_ms = int((now - self.started) * 1000)
            self.send(proto.HEARTBEAT, proto.heartbeat_payload(uptime_ms, self.scan_rate))
            self.send_reading()
            self.next_heartbeat = now + self.heartbeat_s

    def receive(self):
        waiting = self.port.in_waiting
        if not waiting:
            return
        for ftype, _seq, payload in self.decoder.feed(self.port.read(waiting)):
            if ftype == proto.LEDS:
                self.show(payload)
            elif ftype == proto.HELLO:
                self.send(proto.VERSION, proto.version_payload(len(self.pixels), self.name))
            elif ftype == proto.READ:
                if self.occupied is None:
                    self.occupied = self.scanner.scan()
                self.send_reading()

    def show(self, payload):
        pixels = self.pixels
        count = min(len(pixels), len(payload) // 3)
        for i in range(count):
            pixels[i] = (payload[3 * i], payload[3 * i + 1], payload[3 * i + 2])
        for i in range(count, len(pixels)):
            pixels[i] = (0, 0, 0)
        pixels.show()
