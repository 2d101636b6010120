"""Serial backend: the link to a co-processor that scans the matrix and drives the LEDs.

The co-processor (coprocessor, a Raspberry Pi Pico running CircuitPython) streams
READING frames when the board changes and a HEARTBEAT plus a refresh READING every 250 ms;
it shows LEDS frames the host sends. The frame codec is ``board_driver.framing``.

One :class:`SerialLink` owns the port; a :class:`SerialSource` (sensor source) and a
:class:`SerialLedSink` (LED sink) share it. The link:

* drops frames with a bad CRC or an impossible header, counting them, and resynchronises on
  the next start byte (garbage and cut frames cost only the frames they touch);
* never invents a reading: only a READING frame that passed its CRC is delivered, stamped
  with the host's clock when it arrived;
* notices a silent link (no READING or HEARTBEAT for ``silence_timeout`` seconds), closes the
  port and reconnects, as it does when the port raises (USB cable pulled): attempts follow a
  capped exponential backoff until the device is back, then it asks for the version and the
  current reading, and the LED sink sends its last frame again.

Time comes from ``clock`` and the port from ``serial_factory`` (``serial.Serial`` by default,
imported on first use), so tests run the link by hand with ``poll()``.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from .. import framing
from ..framing import Frame, FrameType
from ..layout import LedLayout
from ..leds import LedSink, PixelPipeline
from ..link import DEFAULT_BAUDRATE, LinkStats, SerialLink
from ..retry import Backoff, LinkState
from ..reading import Reading
from ..sensors import SensorError, Sink, SensorSource

__all__ = ["Backoff", "LinkState", "LinkStats", "SerialLedSink", "SerialLink", "SerialSource"]


class SerialSource(SensorSource):
    """Readings from the co-processor; see the module docstring.

    Give ``port_name`` (e.g. ``/dev/ttyACM1``) or an existing ``link`` to share.
    ``read_once()`` asks the device for a reading and waits up to ``read_timeout`` seconds.
    """

    def __init__(
        self,
        port_name: str | None = None,
        *,
        baudrate: int = DEFAULT_BAUDRATE,
        serial_factory: Callable[..., Any] | None = None,
        clock: Callable[[], float] = time.monotonic,
        link: SerialLink | None = None,
        read_timeout: float = 1.0,
        **link_options: Any,
    ):
        super().__init__()
        if link is None:
            if port_name is None:
                raise ValueError("give a port name or a link")
            link = SerialLink(port_name, baudrate=baudrate, serial_factory=serial_factory, clock=clock, **link_options)
        self.link = link
        self._clock = clock
        self.read_timeout = read_timeout
        self._latest: Reading | None = None
        self._received = threading.Condition()
        self._unsubscribe = link.subscribe(FrameType.READING, self._on_frame)
        self._acquired = False

    def _on_frame(self, frame: Frame, now: float) -> None:
        occupied, white, black = framing.decode_reading(frame.payload)
        reading = Reading(now, occupied, white, black)
        with self._received:
            self._latest = reading
            self.scan_count += 1
            self._received.notify_all()
        self._deliver(reading)

    def _open(self) -> None:
        if not self._acquired:
            self._acquired = True
            self.link.acquire()

    def _close(self) -> None:
        if self._acquired:
            self._acquired = False
            self.link.release()

    def start(self, sink: Sink) -> None:
        if self.running:
            raise SensorError("SerialSource is already started")
        self._ensure_open()
        self._last = None
        self._sink = sink  # readings arrive on the link's thread, through _on_frame

    def stop(self) -> None:
        self._sink = None
        super().stop()

    close = stop

    def read_once(self) -> Reading:
        self._ensure_open()
        with self._received:
            before = self.scan_count
        self.link.send(FrameType.READ)
        deadline = self._clock() + self.read_timeout
        if self.link.threaded:
            with self._received:
                if not self._received.wait_for(lambda: self.scan_count != before, timeout=self.read_timeout):
                    raise SensorError(self._no_reading())
                return self._received_reading()
        while self.scan_count == before:
            self.link.poll()
            if self.scan_count == before and self._clock() > deadline:
                raise SensorError(self._no_reading())
        return self._received_reading()

    def _received_reading(self) -> Reading:
        """The latest reading, once ``scan_count`` has moved (``_on_frame`` sets it first)."""
        latest = self._latest
        assert latest is not None
        return latest

    def _no_reading(self) -> str:
        link = self.link
        where = link.port_in_use or ("its data port" if link.port_name == "auto" else link.port_name)
        text = f"no reading from the co-processor on {where} within {self.read_timeout} s"
        if link.last_error:
            return f"{text}: cannot open it ({link.last_error})"
        if link.connected and link.device_version is None:
            return (f"{text}: the port opened but nothing answered; is it the co-processor's data port "
                    "(the by-id name ending in -if02)? echiquier hwtest --doctor lists the ports")
        return text

    def led_sink(self, **options: Any) -> SerialLedSink:
        """An LED sink on the same link."""
        return SerialLedSink(self.link, **options)


class SerialLedSink(LedSink):
    """Shows frames through the co-processor's LED chain (strip order; RGB up to 85 pixels, or RGBW
    with ``channels=4``: LEDS_RGBW frames carry the white channel the pipeline computes).

    Layout, brightness and the power budget are applied on the host; the device only copies
    the pixels to its chain. Frames shown while the link is down are not queued: the last
    one is sent again when the link comes back.
    """

    def __init__(
        self,
        link: SerialLink,
        *,
        layout: LedLayout | None = None,
        brightness: float = 0.5,
        max_milliamps: float | None = None,
        channels: int = 3,
    ):
        self.link = link
        self.layout = layout or LedLayout("square")
        if channels not in (3, 4):
            raise ValueError("channels is 3 (RGB) or 4 (RGBW)")
        if self.layout.pixel_count > (framing.MAX_LED_PIXELS if channels == 3 else 255):
            raise ValueError(f"the serial link carries at most {framing.MAX_LED_PIXELS} RGB pixels")
        self.channels = channels
        self.pipeline = PixelPipeline(self.layout, brightness=brightness, max_milliamps=max_milliamps,
                                      channels=channels)
        self._frames: list[tuple[int, bytes]] | None = None
        self._unsubscribe = link.on_state(self._on_state)
        link.acquire()

    def show(self, colours: Sequence[int]) -> None:
        if self.closed:
            raise RuntimeError("show() on a closed LED sink")
        pixels = self.pipeline(colours)
        if self.channels == 4:  # the white channel travels too (SK6812 RGBW chains)
            self._frames = [(FrameType.LEDS_RGBW, p) for p in framing.encode_leds_rgbw(pixels)]
        else:
            self._frames = [(FrameType.LEDS, framing.encode_leds(pixels))]
        self._send()

    def _send(self) -> None:
        for ftype, payload in self._frames or ():
            self.link.send(ftype, payload)

    def _on_state(self, state: LinkState) -> None:
        if state is LinkState.CONNECTED and self._frames is not None:
            self._send()

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self._unsubscribe()
        self.link.release()
