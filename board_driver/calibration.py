"""Guided calibration, pure: from where single pieces were read, the matrix's row/column order and the LED chain's geometry.

The matrix: a piece on a1, then on h1, then on b2, c3 ... h8, one at a time. Each reading is the
crossing (row line, column line) that closed, counted in the pin map's own order. a1 and h1
share a row line when the row lines run along ranks, a column line when they run along files
(``transpose``); the diagonal then names the line of every rank and file. Swapped, reversed
(mirrored) or transposed wiring all come out as a new ``rows``/``cols``/``transpose``.

The LEDs: pixels 0, 1 and 8 of the chain light in turn and a piece is put on the square
above each; that fixes where the chain starts, which way it runs and whether it snakes
(``rotation``, ``mirror``, ``serpentine``); pixel 63 then checks the answer.

:func:`update_pinmap_text` writes the result into the pin map's TOML, keeping its comments.
"""
from __future__ import annotations

import re
from dataclasses import replace

from .layout import LedLayout
from .pinmap import ROTATIONS, MatrixPins

FILES = "abcdefgh"
MATRIX_STEPS = (0, 7, 9, 18, 27, 36, 45, 54, 63)
"""a1, h1, then the diagonal b2 ... h8."""
LED_STEPS = (0, 1, 8, 63)
"""Pixels lit in turn: 0, 1 and 8 fix the geometry, 63 checks it."""


class CalibrationError(ValueError):
    """The readings contradict each other; the message says what to do again."""


def square_name(square: int) -> str:
    return f"{FILES[square % 8]}{square // 8 + 1}"


def raw_pins(pins: MatrixPins) -> MatrixPins:
    """The pin map's lines read in their listed order, untransposed: bit ``j + 8 * i`` is row line i, column line j."""
    return replace(pins, transpose=False)


def crossing(occupied: int, asked: int) -> tuple[int, int]:
    """(row line, column line) of the single piece in a raw reading, or a CalibrationError."""
    count = bin(occupied).count("1")
    if count != 1:
        seen = "nothing reads occupied" if count == 0 else f"{count} crossings read occupied"
        raise CalibrationError(f"{seen} with one piece on {square_name(asked)}: "
                               "take every other piece off and put one on that square")
    bit = occupied.bit_length() - 1
    return divmod(bit, 8)


def solve_matrix(pins: MatrixPins, crossings: dict[int, tuple[int, int]]) -> MatrixPins:
    """The pin map's matrix rewired from ``{square: (row line, column line)}`` for MATRIX_STEPS."""
    (i0, j0), (i1, j1) = crossings[0], crossings[7]
    if i0 == i1 and j0 != j1:
        transpose = False
    elif j0 == j1 and i0 != i1:
        transpose = True
    else:
        raise CalibrationError("a1 and h1 share no line: check that the piece went on a1, then on h1")
    row_of: dict[int, int] = {}   # rank (or file, transposed) -> row line
    col_of: dict[int, int] = {}   # file (or rank, transposed) -> column line
    for square in MATRIX_STEPS:
        if square == 7:
            continue
        k = square % 8  # on the diagonal rank == file
        i, j = crossings[square]
        row_of[k], col_of[k] = i, j
    for name, mapping in (("row", row_of), ("column", col_of)):
        lines = list(mapping.values())
        for line in set(lines):
            squares = [square_name(k * 9) for k, v in mapping.items() if v == line]
            if len(squares) > 1:
                raise CalibrationError(f"{' and '.join(squares)} read on the same {name} line {line + 1}: "
                                       "two of its lines are joined (run hwtest --doctor)")
    rows = tuple(pins.rows[row_of[k]] for k in range(8))
    cols = tuple(pins.cols[col_of[k]] for k in range(8))
    return replace(pins, rows=rows, cols=cols, transpose=transpose)


def solve_leds(seen: dict[int, int]) -> tuple[bool, int, bool]:
    """(serpentine, rotation, mirror) of a 64-LED chain from ``{pixel: square}`` for LED_STEPS."""
    found = []
    for serpentine in (False, True):
        for rotation in ROTATIONS:
            for mirror in (False, True):
                layout = LedLayout("square", serpentine=serpentine, rotation=rotation, mirror=mirror)
                if all(layout.cell_of_pixel[p] == s for p, s in seen.items() if p != 63):
                    found.append((serpentine, rotation, mirror, layout))
    if not found:
        got = ", ".join(f"LED {p + 1} on {square_name(s)}" for p, s in sorted(seen.items()))
        raise CalibrationError(f"no chain wiring puts {got}: the chain does not run row by row; check the order "
                               "of the LEDs, or put the pieces again")
    serpentine, rotation, mirror, layout = found[0]
    if 63 in seen and layout.cell_of_pixel[63] != seen[63]:
        raise CalibrationError(f"the last LED is under {square_name(seen[63])}, not {square_name(layout.cell_of_pixel[63])} "
                               "as the first ones say: some LEDs are out of order (or the chain is longer)")
    return serpentine, rotation, mirror


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(map(str, value)) + "]"
    return str(value)


def update_pinmap_text(text: str, table: str, values: dict[str, object]) -> str:
    """``text`` with the keys of ``[table]`` set to ``values`` (kept in place with their comments,
    added at the end of the table when missing)."""
    lines = text.splitlines()
    start = next((n for n, line in enumerate(lines) if line.strip() == f"[{table}]"), None)
    if start is None:
        lines += ["", f"[{table}]"]
        start = len(lines) - 1
    end = next((n for n in range(start + 1, len(lines)) if re.match(r"\s*\[", lines[n])), len(lines))
    for key, value in values.items():
        pattern = re.compile(rf"^(\s*{re.escape(key)}\s*=\s*)([^#]*?)(\s*(#.*)?)$")
        for n in range(start + 1, end):
            found = pattern.match(lines[n])
            if found:
                lines[n] = found.group(1) + _toml_value(value) + found.group(3)
                break
        else:
            insert = end
            while insert > start + 1 and not lines[insert - 1].strip():
                insert -= 1
            lines.insert(insert, f"{key} = {_toml_value(value)}")
            end += 1
    return "\n".join(lines) + "\n"
