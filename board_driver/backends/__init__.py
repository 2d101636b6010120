"""Opening the board's parts by name: the sensor source and the LED sink, each backend imported only when chosen.

As gpiozero chooses its pin factory, the service and ``echiquier hwtest`` name a backend and get
an object of the common interface (:class:`~board_driver.sensors.SensorSource`,
:class:`~board_driver.leds.LedSink`); the vendor libraries are imported by the backend module
chosen, never here.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from ..pinmap import LedPins, PinMap
from ..leds import LedSink
from ..sensors import SensorError, SensorSource

SOURCES = ("gpio", "serial", "replay", "sim")
SINKS = ("neopixel", "serial", "sim", "none")


def open_source(name: str, *, pinmap: PinMap | None = None, port: str | None = None,
                capture: Path | None = None, speed: float | None = None,
                on_promote: Callable[[Any], None] | None = None, gpio: Any = None,
                serial_factory: Any = None, root: Path | str = "/") -> SensorSource:
    """The sensor source called ``name`` (one of SOURCES), not yet started.

    ``gpio``: the pin map's matrix (``pinmap``), through the RPi.GPIO-compatible module ``gpio``
    (default: the real one); ``serial``: the co-processor on ``port`` ("auto": its data port by
    its /dev/serial/by-id name; its console is refused, see board_driver.serial_ports, read
    under ``root``); ``replay``: ``capture``
    at ``speed`` (None: as fast as it can be read), promotion lines to ``on_promote``; ``sim``:
    a board driven by code.
    """
    if name == "replay":
        from .replay import ReplaySource
        if capture is None:
            raise SensorError("the replay source needs a capture file")
        return ReplaySource(Path(capture), speed=speed, on_promote=on_promote)
    if name == "sim":
        from .sim import SimulatedBoard
        return SimulatedBoard()
    if name == "serial":
        from .serial_link import SerialSource
        from ..serial_ports import AUTO, resolve_port
        options = {"serial_factory": serial_factory} if serial_factory else {}
        if port in (None, "", AUTO):  # found at each connection attempt: the Pico may be plugged in later
            return SerialSource(AUTO, resolve=lambda: resolve_port(AUTO, Path(root)), **options)
        return SerialSource(resolve_port(port, Path(root)), **options)
    if name == "gpio":
        from .gpio_matrix import GpioMatrixSource
        if pinmap is None:
            raise SensorError("the GPIO matrix needs a pin map")
        return GpioMatrixSource(pinmap, gpio=gpio) if gpio is not None else GpioMatrixSource(pinmap)
    raise SensorError(f"unknown sensor source {name!r}: one of {', '.join(SOURCES)}")


def open_leds(name: str, *, pins: LedPins | None = None, source: Any = None, max_frames: int = 8,
              guarded: bool = True, neopixel_options: dict[str, Any] | None = None) -> LedSink | None:
    """The LED sink called ``name`` (one of SINKS), or None for "none".

    ``neopixel``: the chain ``pins`` describes, on the Pi's own pin, ``guarded`` (a
    :class:`~board_driver.guarded_leds.GuardedLedSink`: a missing library or a failing
    ``show()`` turns the LEDs off with a ``problem`` instead of raising; ``neopixel_options``
    inject the libraries in tests); ``serial``: the chain of the
    co-processor that ``source`` (a SerialSource) talks to, with ``pins``' geometry and power
    (its defaults without); ``sim``: a sink that records the last ``max_frames`` frames.
    """
    if name == "none":
        return None
    if name == "sim":
        from .sim_leds import RecordingLedSink
        return RecordingLedSink(max_frames=max_frames)
    if name == "serial":
        sink: LedSink  # source is a SerialSource (typed Any: any source may be passed for the other sinks)
        if pins is None:
            sink = source.led_sink()
            return sink
        from ..layout import LedLayout
        sink = source.led_sink(layout=LedLayout.from_pins(pins), brightness=pins.brightness,
                               max_milliamps=pins.max_milliamps, channels=len(pins.order))
        return sink
    if name == "neopixel":
        from .neopixel_sink import NeoPixelSink

        def opened() -> NeoPixelSink:
            return NeoPixelSink.from_pins(pins or LedPins(), **(neopixel_options or {}))
        if guarded:
            from ..guarded_leds import GuardedLedSink
            return GuardedLedSink(opened)
        return opened()
    raise SensorError(f"unknown LED sink {name!r}: one of {', '.join(SINKS)}")
