"""`echiquier hwtest --calibrate`: learn the matrix's line order and the LED chain's geometry from pieces placed where asked, and write them to the pin map."""
from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

from board_driver.backends import open_leds, open_source
from board_driver.calibration import (
    LED_STEPS,
    MATRIX_STEPS,
    CalibrationError,
    crossing,
    raw_pins,
    solve_leds,
    solve_matrix,
    square_name,
    update_pinmap_text,
)
from board_driver.leds import LedSink
from board_driver.pinmap import PinMap, loads_pinmap
from board_driver.sensors import SensorError


def _asker(out):
    def ask(kind: str, index: int, text: str) -> None:
        out.write(f"  > {text}, then press Enter ")
        out.flush()
        input()
    return ask


def run_calibration(args, pinmap: PinMap, path: Path | None) -> int:
    out = getattr(args, "out", None) or sys.stdout
    place = getattr(args, "place", None) or _asker(out)
    gpio = getattr(args, "gpio", None)
    if gpio is None and args.fake:
        from board_driver.backends.mock_gpio import mock_board
        gpio = mock_board(0, pinmap)

        def place(kind, index, text, _gpio=gpio):  # the simulated hand (the simulated LEDs: pixel p under square p)
            _gpio.matrix.set_bitboard(1 << index, transpose=pinmap.matrix.transpose)
            out.write(f"  > {text} (simulated: done)\n")
    raw = raw_pins(pinmap.matrix)
    source = open_source("gpio", pinmap=PinMap(raw, None, pinmap.source), gpio=gpio)
    try:
        out.write("Matrix order: one piece at a time, every other square empty\n")
        crossings = {}
        for square in MATRIX_STEPS:
            place("square", square, f"put one piece on {square_name(square)}")
            i, j = crossings[square] = crossing(source.read_once().occupied, square)
            out.write(f"    {square_name(square)}: row line {i + 1} (GPIO {raw.rows[i]}), "
                      f"column line {j + 1} (GPIO {raw.cols[j]})\n")
        matrix = solve_matrix(pinmap.matrix, crossings)
        out.write(f"  rows = {list(matrix.rows)} ({'file a' if matrix.transpose else 'rank 1'} first), "
                  f"cols = {list(matrix.cols)}, transpose = {str(matrix.transpose).lower()}\n")
        leds = None
        if pinmap.leds is not None and pinmap.leds.layout == "square" and not args.no_leds:
            identity = dataclasses.replace(pinmap.leds, serpentine=False, rotation=0, mirror=False)
            sink: LedSink | None = getattr(args, "leds", None) or (
                open_leds("sim") if args.fake else open_leds("neopixel", pins=identity, guarded=False))
            if sink is None:   # open_leds gives None for "none" only, never asked for here
                raise CalibrationError("no LED chain to calibrate")
            out.write("LED chain: put a piece on the square above the lit LED\n")
            seen = {}
            try:
                for pixel in LED_STEPS:
                    frame = [0] * 64
                    frame[pixel] = 0xFFFFFF  # the identity layout: square p is pixel p
                    sink.show(frame)
                    place("led", pixel, f"LED {pixel + 1} is lit: put one piece on the square above it")
                    i, j = crossing(source.read_once().occupied, pixel)
                    seen[pixel] = matrix.square(matrix.rows.index(raw.rows[i]), matrix.cols.index(raw.cols[j]))
                    out.write(f"    LED {pixel + 1}: {square_name(seen[pixel])}\n")
            finally:
                sink.clear()
                if getattr(args, "leds", None) is None:
                    sink.close()
            serpentine, rotation, mirror = leds = solve_leds(seen)
            out.write(f"  serpentine = {str(serpentine).lower()}, rotation = {rotation}, mirror = {str(mirror).lower()}\n")
    except CalibrationError as exc:
        out.write(f"Calibration stopped: {exc}\n")
        return 1
    finally:
        source.stop()
    text = path.read_text(encoding="utf-8") if path is not None and path.exists() else ""
    text = update_pinmap_text(text, "matrix", {"rows": matrix.rows, "cols": matrix.cols, "transpose": matrix.transpose})
    if leds is not None:
        text = update_pinmap_text(text, "leds", dict(zip(("serpentine", "rotation", "mirror"), leds)))
    loads_pinmap(text, "the calibrated pin map")  # never write a map that does not load
    target = Path(args.write) if args.write else path
    if target is None:
        out.write(text)
        return 0
    try:
        target.write_text(text, encoding="utf-8")
    except OSError as exc:
        out.write(f"cannot write {target} ({exc.strerror}); the calibrated pin map:\n{text}"
                  f"save it with: sudo tee {target}\n")
        return 1
    out.write(f"Written to {target}: restart the service (sudo systemctl restart echiquier)\n")
    return 0
