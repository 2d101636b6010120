"""LED layouts: which pixel of the chain shows which square (one LED per square, or a 9x9 corner grid).

Two geometries:

* ``"square"``: 64 LEDs, one under each square.
* ``"corners"``: 81 LEDs on the 9x9 grid of square corners (Millennium-style). A square is lit
  by its four corners. A corner touches up to four squares and takes the colour of the
  **brightest** lit one among them (brightness = R + G + B; a tie goes to the larger 0xRRGGBB
  value, so the result never depends on order). Dark squares do not count, so a lone lit
  square shows its exact colour on all four corners, and no corner ever shows a colour that
  no square asked for (mixing red and green would invent a yellow that means something else).

Wiring: pixel 0 is where the chain starts; the chain runs along a row of the grid, then the
next row. ``serpentine`` chains run back on every other row. ``mirror`` and ``rotation`` place
the chain on the board (the board seen from White's side, a1 bottom left):

========  =========  =================  ===============================
rotation  mirror     pixel 0 at         the first row runs
========  =========  =================  ===============================
0         false      a1                 along rank 1 towards h1
90        false      h1                 up the h-file towards h8
180       false      h8                 along rank 8 towards a8
270       false      a8                 down the a-file towards a1
0         true       h1                 along rank 1 towards a1
90        true       h8                 down the h-file towards h1
180       true       a8                 along rank 8 towards h8
270       true       a1                 up the a-file towards a8
========  =========  =================  ===============================

(for the corner grid, read "the corner at the outer edge of" each named square).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .pinmap import LedPins

LAYOUT_KINDS = ("square", "corners")


def check_colours(colours: Sequence[int]) -> Sequence[int]:
    """Raise ValueError unless ``colours`` is 64 ints 0..0xFFFFFF."""
    if len(colours) != 64:
        raise ValueError(f"an LED frame has 64 colours (one per square), not {len(colours)}")
    for square, colour in enumerate(colours):
        if not isinstance(colour, int) or not 0 <= colour <= 0xFFFFFF:
            raise ValueError(f"square {square}: colour {colour!r} is not 0xRRGGBB")
    return colours


def _brightness_key(colour: int) -> tuple[int, int]:
    return (colour >> 16) + ((colour >> 8) & 0xFF) + (colour & 0xFF), colour


def _cell(u: int, v: int, n: int, rotation: int) -> tuple[int, int]:
    if rotation == 0:
        return u, v
    if rotation == 90:
        return n - 1 - v, u
    if rotation == 180:
        return n - 1 - u, n - 1 - v
    if rotation == 270:
        return v, n - 1 - u
    raise ValueError(f"rotation must be 0, 90, 180 or 270, not {rotation!r}")


class LedLayout:
    """Maps a frame of 64 square colours onto the pixels of a chain; see the module docstring.

    ``count`` may exceed the grid (extra LEDs after the board stay dark).

    >>> LedLayout("square").render([0xFF0000] + [0] * 63)[0]
    16711680
    """

    def __init__(
        self,
        kind: str = "square",
        *,
        serpentine: bool = False,
        rotation: int = 0,
        mirror: bool = False,
        count: int | None = None,
    ):
        if kind not in LAYOUT_KINDS:
            raise ValueError(f"layout must be one of {LAYOUT_KINDS}, not {kind!r}")
        self.kind = kind
        self.serpentine = serpentine
        self.rotation = rotation
        self.mirror = mirror
        n = 8 if kind == "square" else 9
        self.grid = n
        self.pixel_count = n * n if count is None else count
        if self.pixel_count < n * n:
            raise ValueError(f"a {kind!r} layout needs {n * n} LEDs, not {self.pixel_count}")
        cells = []  # board cell (x + n * y) shown by each pixel of the grid
        for index in range(n * n):
            v, u = divmod(index, n)
            if serpentine and v % 2:
                u = n - 1 - u
            if mirror:
                u = n - 1 - u
            x, y = _cell(u, v, n, rotation)
            cells.append(x + n * y)
        self.cell_of_pixel: tuple[int, ...] = tuple(cells)
        self.pixel_of_cell: tuple[int, ...] = tuple(sorted(range(n * n), key=cells.__getitem__))
        if kind == "corners":
            self._corner_squares = tuple(
                tuple(
                    sx + 8 * sy
                    for sx, sy in ((cx - 1, cy - 1), (cx, cy - 1), (cx - 1, cy), (cx, cy))
                    if 0 <= sx < 8 and 0 <= sy < 8
                )
                for cy in range(9)
                for cx in range(9)
            )

    @classmethod
    def from_pins(cls, leds: LedPins) -> LedLayout:
        """The layout described by a pin map's ``[leds]`` table (:class:`LedPins`)."""
        return cls(leds.layout, serpentine=leds.serpentine, rotation=leds.rotation, mirror=leds.mirror, count=leds.count)

    def pixels_of_square(self, square: int) -> tuple[int, ...]:
        """The pixel indices that light ``square`` (1 for "square", 4 for "corners")."""
        x, y = square % 8, square // 8
        if self.kind == "square":
            return (self.pixel_of_cell[square],)
        return tuple(self.pixel_of_cell[cx + 9 * cy] for cy in (y, y + 1) for cx in (x, x + 1))

    def cell_colours(self, colours: Sequence[int]) -> list[int]:
        """The colour of each grid cell (square or corner) in canonical row-major order."""
        check_colours(colours)
        if self.kind == "square":
            return list(colours)
        result = []
        for squares in self._corner_squares:
            lit = [colours[s] for s in squares if colours[s]]
            result.append(max(lit, key=_brightness_key) if lit else 0)
        return result

    def render(self, colours: Sequence[int]) -> list[int]:
        """The 0xRRGGBB colour of every pixel of the chain, in chain order."""
        cells = self.cell_colours(colours)
        pixels = [cells[c] for c in self.cell_of_pixel]
        pixels.extend([0] * (self.pixel_count - len(pixels)))
        return pixels
