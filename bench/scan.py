"""Benchmark: CPU cost of one full matrix scan through the RPi.GPIO calls, beside the mock's own cost.

Prints, per scan of the reference board (8 rows x 8 columns = 16 output + 64 input calls):

* scanner + mock GPIO   -- GpioMatrixSource.read_once() on board_driver.backends.mock_gpio;
* mock GPIO alone       -- the same 80 calls made straight-line on the mock (its own cost);
* scanner overhead      -- the difference: the scanner's own Python per scan;
* scanner + null GPIO   -- the scanner on C-level stand-ins (dict methods) for a direct check;

then scans per second without the settling delay and with a realistic one (10 us x 8 rows),
and the same scan with the real busy-wait settle. Goal: <= 1 ms of Python per scan on the Pi
(a Pi 4 runs Python ~5-8x slower than a desktop core, so aim for well under 200 us here).
Run: .venv/bin/python bench/scan.py
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from board_driver.backends.gpio_matrix import GpioMatrixSource  # noqa: E402
from board_driver.backends.mock_gpio import mock_board  # noqa: E402
from board_driver.pinmap import REFERENCE  # noqa: E402

START = 0xFFFF00000000FFFF
SCANS = 20_000
SETTLE_US = 10.0
GOAL_US = 1000.0


def timed(fn, n: int = SCANS) -> tuple[float, float]:
    """Median and 99th percentile of ``fn()`` in microseconds."""
    for _ in range(200):
        fn()
    samples = []
    clock = time.perf_counter_ns
    for _ in range(n):
        t0 = clock()
        fn()
        samples.append(clock() - t0)
    samples.sort()
    return statistics.median(samples) / 1000, samples[int(len(samples) * 0.99)] / 1000


def straight_line_calls(gpio):
    """A function making exactly the scanner's GPIO calls, unrolled: the mock's own cost."""
    rows, cols = REFERENCE.matrix.rows, REFERENCE.matrix.cols
    lines = ["def calls():"]
    for row in rows:
        lines.append(f"    out({row}, 0)")
        lines.extend(f"    inp({col})" for col in cols)
        lines.append(f"    out({row}, 1)")
    namespace = {"out": gpio.output, "inp": gpio.input}
    exec("\n".join(lines), namespace)
    return namespace["calls"]


class NullGPIO:
    """RPi.GPIO stand-in whose input/output are C functions: almost free to call."""

    BCM, BOARD, IN, OUT, LOW, HIGH = 11, 10, 1, 0, 0, 1
    PUD_OFF, PUD_DOWN, PUD_UP = 20, 21, 22

    def __init__(self):
        self.levels = dict.fromkeys(range(28), 1)
        self.output = self.levels.__setitem__
        self.input = self.levels.__getitem__

    def getmode(self):
        return None

    def setmode(self, mode):
        pass

    def setup(self, *args, **kwargs):
        pass

    def cleanup(self, *args):
        pass


def main() -> None:
    gpio = mock_board(START)
    scanner = GpioMatrixSource(REFERENCE, gpio=gpio, settle_us=0)
    assert scanner.read_once().occupied == START
    scan_med, scan_p99 = timed(scanner.read_once)

    calls = straight_line_calls(gpio)
    before = gpio.call_count
    calls()
    assert gpio.call_count - before == 80
    mock_med, mock_p99 = timed(calls)

    null_scanner = GpioMatrixSource(REFERENCE, gpio=NullGPIO(), settle_us=0)
    null_med, null_p99 = timed(null_scanner.read_once)

    settled = GpioMatrixSource(REFERENCE, gpio=mock_board(START), settle_us=SETTLE_US)
    settled_med, settled_p99 = timed(settled.read_once, 5000)
    for source in (scanner, null_scanner, settled):
        source.stop()

    overhead = scan_med - mock_med
    print(f"matrix scan, reference board (16 output + 64 input calls), {SCANS} scans, Python {sys.version.split()[0]}")
    print(f"  scanner + mock GPIO      median {scan_med:7.1f} us   p99 {scan_p99:7.1f} us")
    print(f"  mock GPIO alone (peer)   median {mock_med:7.1f} us   p99 {mock_p99:7.1f} us")
    print(f"  scanner overhead         median {overhead:7.1f} us   ({scan_med / mock_med:.2f}x the mock alone)")
    print(f"  scanner + null GPIO      median {null_med:7.1f} us   p99 {null_p99:7.1f} us")
    print(f"  scan rate, no settle     {1e6 / scan_med:9,.0f} scans/s (scanner alone: {1e6 / null_med:,.0f} scans/s)")
    print(f"  scan rate, settle {SETTLE_US:.0f} us x 8 {1e6 / (scan_med + 8 * SETTLE_US):9,.0f} scans/s (computed)")
    print(f"  measured with busy-wait  median {settled_med:7.1f} us   p99 {settled_p99:7.1f} us"
          f"   -> {1e6 / settled_med:,.0f} scans/s")
    verdict = "within" if overhead <= GOAL_US else "OVER"
    print(f"  goal <= {GOAL_US:.0f} us of Python per scan: {verdict} ({overhead:.1f} us here; "
          f"~{overhead * 8:.0f} us at an 8x slower Pi)")


if __name__ == "__main__":
    main()
