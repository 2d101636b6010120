"""`hwtest --calibrate`: the line order (swaps, mirroring, transposition) and the LED geometry learnt from placed pieces."""
from __future__ import annotations

import io
import random
from pathlib import Path

import pytest

from board_driver.calibration import CalibrationError, crossing, solve_leds, update_pinmap_text
from board_driver.backends.gpio_matrix import GpioMatrixSource
from board_driver.layout import LedLayout
from board_driver.pinmap import REFERENCE, LedPins, MatrixPins, PinMap, load_pinmap
from board_driver.backends.sim_leds import RecordingLedSink
from firmware.cli import build_parser
from tests.fakes.fake_gpio import wired

REFERENCE_FILE = Path(__file__).resolve().parents[2] / "hardware/reference-board.toml"


def calibrate(tmp_path, true_matrix: MatrixPins, true_leds: LedLayout, file_text: str):
    """Run the calibration on a board wired like ``true_matrix``/``true_leds`` whose pin map says otherwise."""
    path = tmp_path / "pinmap.toml"
    path.write_text(file_text)
    gpio = wired(PinMap(true_matrix), 0)
    leds = RecordingLedSink()
    asked = []

    def place(kind, index, text):  # the maker's hand
        asked.append(text)
        if kind == "led":
            assert leds.last[index] == 0xFFFFFF and sum(1 for c in leds.last if c) == 1  # that LED alone is lit
            index = true_leds.cell_of_pixel[index]  # the piece goes on the square above the lit LED
        gpio.matrix.set_bitboard(1 << index, transpose=true_matrix.transpose)

    args = build_parser().parse_args(["hwtest", "--calibrate", "--pinmap", str(path)])
    args.out, args.gpio, args.place, args.leds = io.StringIO(), gpio, place, leds
    code = args.func(args)
    return code, args.out.getvalue(), path, asked, gpio


def reads_right(pinmap: PinMap, true_matrix: MatrixPins) -> bool:
    rng = random.Random(5)
    for _ in range(50):
        board = rng.getrandbits(64)
        if GpioMatrixSource(pinmap, gpio=wired(PinMap(true_matrix), board)).read_once().occupied != board:
            return False
    return True


def test_swapped_and_mirrored_lines_and_a_snaking_chain_are_learnt_and_written(tmp_path):
    ref = REFERENCE.matrix
    cols = list(reversed(ref.cols))          # the files wired h..a (mirrored)
    rows = list(ref.rows)
    rows[2], rows[5] = rows[5], rows[2]      # ranks 3 and 6 swapped
    true_matrix = MatrixPins(rows=tuple(rows), cols=tuple(cols))
    true_leds = LedLayout("square", serpentine=True, rotation=180, mirror=True)
    text = REFERENCE_FILE.read_text()
    assert not reads_right(load_pinmap(REFERENCE_FILE), true_matrix)
    code, out, path, asked, _ = calibrate(tmp_path, true_matrix, true_leds, text)
    assert code == 0, out
    assert asked[:3] == ["put one piece on a1", "put one piece on h1", "put one piece on b2"]
    assert asked[9] == "LED 1 is lit: put one piece on the square above it"
    written = load_pinmap(path)
    assert written.matrix.rows == true_matrix.rows and written.matrix.cols == true_matrix.cols
    assert not written.matrix.transpose
    assert (written.leds.serpentine, written.leds.rotation, written.leds.mirror) == (True, 180, True)
    assert reads_right(written, true_matrix)
    new_text = path.read_text()
    assert "# Row lines, rank 1 first" in new_text and "max_milliamps = 2000" in new_text  # the rest is kept
    assert f"Written to {path}" in out


def test_row_lines_along_files_come_out_transposed(tmp_path):
    ref = REFERENCE.matrix
    true_matrix = MatrixPins(rows=tuple(reversed(ref.rows)), cols=ref.cols, transpose=True)
    code, out, path, _, _ = calibrate(tmp_path, true_matrix, LedLayout("square"), REFERENCE_FILE.read_text())
    assert code == 0, out
    written = load_pinmap(path)
    assert written.matrix.transpose and reads_right(written, true_matrix)
    assert "transpose = true" in path.read_text()


def test_a_second_piece_stops_the_calibration_with_what_to_do(tmp_path):
    gpio = wired(REFERENCE, 0)
    path = tmp_path / "pinmap.toml"
    path.write_text(REFERENCE_FILE.read_text())
    args = build_parser().parse_args(["hwtest", "--calibrate", "--pinmap", str(path), "--no-leds"])
    args.out, args.gpio = io.StringIO(), gpio
    args.place = lambda kind, index, text: gpio.matrix.set_bitboard((1 << index) | (1 << 40))
    assert args.func(args) == 1
    assert ("Calibration stopped: 2 crossings read occupied with one piece on a1: take every other piece off "
            "and put one on that square") in args.out.getvalue()
    assert path.read_text() == REFERENCE_FILE.read_text()  # nothing written


@pytest.mark.parametrize("serpentine", [False, True])
@pytest.mark.parametrize("rotation", [0, 90, 180, 270])
@pytest.mark.parametrize("mirror", [False, True])
def test_three_leds_fix_any_chain_geometry(serpentine, rotation, mirror):
    layout = LedLayout("square", serpentine=serpentine, rotation=rotation, mirror=mirror)
    seen = {p: layout.cell_of_pixel[p] for p in (0, 1, 8, 63)}
    assert solve_leds(seen) == (serpentine, rotation, mirror)


def test_an_out_of_order_chain_is_refused():
    with pytest.raises(CalibrationError, match="some LEDs are out of order"):
        solve_leds({0: 0, 1: 1, 8: 8, 63: 62})
    with pytest.raises(CalibrationError, match="does not run row by row"):
        solve_leds({0: 0, 1: 20, 8: 8})
    with pytest.raises(CalibrationError, match="nothing reads occupied"):
        crossing(0, 0)


def test_keys_missing_from_the_file_are_added_to_their_table():
    text = "[matrix]\nrows = [1]\n\n[leds]\ndata_pin = 10 # SPI\n"
    out = update_pinmap_text(text, "leds", {"data_pin": 12, "serpentine": True})
    assert out == "[matrix]\nrows = [1]\n\n[leds]\ndata_pin = 12 # SPI\nserpentine = true\n"
    out = update_pinmap_text("[matrix]\nrows = [1]\n", "leds", {"rotation": 90})
    assert out.endswith("[leds]\nrotation = 90\n")
