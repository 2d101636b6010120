"""Échiquier co-processor: scans the sensor matrix and drives the LEDs for the Pi (CircuitPython, Pico).

Copy this file with cp_protocol.py, cp_matrix.py, cp_device.py and boot.py to the CIRCUITPY
drive (see README.md). Pins below are the reference wiring; change them here.
"""
import time

import board
import digitalio
import microcontroller
import neopixel
import supervisor

import cp_device
import cp_matrix

ROW_PINS = ("GP2", "GP3", "GP4", "GP5", "GP6", "GP7", "GP8", "GP9")  # rank 1 first
COL_PINS = ("GP10", "GP11", "GP12", "GP13", "GP14", "GP15", "GP16", "GP17")  # file a first
ACTIVE_LOW = True  # reed switches to ground / open-collector Hall sensors, diodes to the rows
SELECT_HIGH = None  # True with an N-MOSFET per row grounding Hall sensors (None: follow ACTIVE_LOW)
SETTLE_US = 10
LED_PIN = "GP22"
LED_COUNT = 64  # 81 for a corner grid; the Pi decides what each pixel shows
LED_ORDER = "GRB"  # WS2812B; "GRBW" for SK6812 RGBW
UART_TX, UART_RX = "GP0", "GP1"  # used when boot.py did not enable the USB data port
BAUDRATE = 115200
WATCHDOG_S = 4.0  # the RP2040 resets if the loop stalls this long (its limit is 8.3 s)


def delay_function():
    try:
        import microcontroller

        return microcontroller.delay_us
    except (ImportError, AttributeError):
        return lambda us: time.sleep(us / 1000000)


def open_port():
    """The USB CDC data port enabled by boot.py, else the UART on GP0/GP1."""
    import usb_cdc

    if usb_cdc.data is not None:
        usb_cdc.data.timeout = 0
        return usb_cdc.data
    import busio

    return busio.UART(getattr(board, UART_TX), getattr(board, UART_RX), baudrate=BAUDRATE, timeout=0)


def build():
    scanner = cp_matrix.MatrixScanner(
        [getattr(board, name) for name in ROW_PINS],
        [getattr(board, name) for name in COL_PINS],
        digitalio,
        active_low=ACTIVE_LOW,
        settle_us=SETTLE_US,
        delay_us=delay_function(),
        select_high=SELECT_HIGH,
    )
    pixels = neopixel.NeoPixel(
        getattr(board, LED_PIN), LED_COUNT, bpp=len(LED_ORDER), brightness=1.0,
        auto_write=False, pixel_order=getattr(neopixel, LED_ORDER),
    )
    return cp_device.Coprocessor(scanner, pixels, open_port(), supervisor.ticks_ms)


def start_watchdog():
    from watchdog import WatchDogMode

    dog = microcontroller.watchdog
    dog.timeout = WATCHDOG_S
    dog.mode = WatchDogMode.RESET
    return dog


def main():
    # Deployed on a board: a file written to CIRCUITPY (a maker browsing it) must not restart
    # the scanner in the middle of a game.
    supervisor.runtime.autoreload = False
    try:
        device = build()
        dog = start_watchdog()
        while True:
            device.step()
            dog.feed()
    except KeyboardInterrupt:  # Ctrl-C on the console: the maker wants the REPL
        try:
            microcontroller.watchdog.deinit()
        except Exception:  # noqa: BLE001 - a port that cannot stop it resets soon: the REPL is short-lived
            pass
        raise
    except Exception as exc:  # noqa: BLE001 - anything else: start again clean rather than stop scanning
        print("echiquier: reset after", repr(exc))
        microcontroller.reset()


if __name__ == "__main__":
    main()
