"""Electrical line tests of the sensor matrix for ``hwtest --doctor``: stuck columns, shorted rows, reversed or missing diodes.

Driven through any module with the RPi.GPIO API (the real one, or board_driver.backends.mock_gpio). The
tests never drive two lines against each other: unselected rows are released to inputs, so
a solder bridge or a missing diode cannot short two outputs while a fault is looked for.

* columns, no row selected: a column that reads "occupied" touches GND (3.3 V on an
  active-high board: GPIO 2/3's own 1.8 kOhm pull-ups do that) or a row line;
* rows: each row alone is driven to the select level while the others are inputs pulled the
  other way: a row that follows it is shorted to it; one that reads the select level with
  nothing driven touches GND (3.3 V);
* the empty board, scanned safely: a square that reads occupied has a stuck sensor;
* three pieces on a1, h1 and a8: a missing piece whose column conducts *backwards* (probed
  with the column pulled the other way and its row driven to the release level) has a
  reversed diode, one that conducts neither way an open sensor or joint; a fourth square
  reading occupied (h8) is a ghost: the diode across from it (a1) is missing or shorted;
* the survey, eight pieces at a time (one a rank and a file, so no current sneaks round a
  probe): every square read, and its crossing probed backwards; each square at fault is named,
  the squares of one kind together ("all 64 squares", "rank 1", "the d-file", "a1, c3 and g7").

Each finding is a :class:`Finding`: the fault's kind, the lines or squares, and the fix in
one line.
"""
from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any, Self

from .pinmap import MatrixPins

FILES = "abcdefgh"
THREE_PIECES = (0, 7, 56)
"""a1, h1, a8: with them on the board, a missing diode at a1 lights the ghost h8."""

STUCK_COLUMN = "stuck column"
STUCK_ROW = "stuck row"
SHORTED_ROWS = "shorted rows"
STUCK_SQUARE = "stuck sensor"
REVERSED_DIODE = "reversed diode"
OPEN_SQUARE = "open sensor"
GHOST = "missing diode (ghost)"


SURVEY = tuple(tuple(rank * 8 + (rank + shift) % 8 for rank in range(8)) for shift in range(8))
"""The survey's eight placements of eight pieces, one on each rank and each file (a1 b2 ... h8,
then a2 b3 ... h1, ...): between them every square, and with one piece a line no path can
sneak round a crossing probed backwards through another piece's missing diode."""


def square_name(square: int) -> str:
    return f"{FILES[square % 8]}{square // 8 + 1}"


def squares_text(bb: int) -> str:
    """Squares as a maker says them: "all 64 squares", "rank 1", "the a-file", "a1, c1 and f1"."""
    if bb == (1 << 64) - 1:
        return "all 64 squares"
    parts = []
    for rank in range(8):
        if bb >> (8 * rank) & 0xFF == 0xFF:
            parts.append(f"rank {rank + 1}")
            bb &= ~(0xFF << (8 * rank))
    for file in range(8):
        column = 0x0101010101010101 << file
        if bb & column == column:
            parts.append(f"the {FILES[file]}-file")
            bb &= ~column
    parts += [square_name(s) for s in range(64) if bb >> s & 1]
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"


def _many(bb: int) -> bool:
    return bool(bb & (bb - 1))


@dataclass(frozen=True, slots=True)
class Finding:
    kind: str
    where: str
    fix: str
    line: int | None = None
    """The index of the column (stuck column) or row the finding is about, if one."""

    def __str__(self) -> str:
        return f"{self.kind}: {self.where}"


class LineTester:
    """The line tests of one matrix ``pins`` through ``gpio`` (RPi.GPIO API); see the module docstring."""

    def __init__(self, gpio: Any, pins: MatrixPins):  # gpio: RPi.GPIO (untyped) or a stand-in
        self.gpio = gpio
        self.pins = pins
        g = gpio
        self.occupied = g.LOW if pins.active == "low" else g.HIGH
        self.idle = g.HIGH if self.occupied == g.LOW else g.LOW
        self.col_pull = g.PUD_UP if self.occupied == g.LOW else g.PUD_DOWN
        self.select = g.LOW if pins.select_level == "low" else g.HIGH
        self.release = g.HIGH if self.select == g.LOW else g.LOW
        self.row_pull = g.PUD_UP if self.release == g.HIGH else g.PUD_DOWN
        self.stuck = 0   # the squares the empty board read occupied (empty_board): no ghost later

    # -- naming lines ------------------------------------------------------------------------
    def _row_name(self, index: int) -> str:
        what = f"file {FILES[index]}" if self.pins.transpose else f"rank {index + 1}"
        return f"row {index + 1} ({what}, GPIO {self.pins.rows[index]})"

    def _col_name(self, index: int) -> str:
        what = f"rank {index + 1}" if self.pins.transpose else f"file {FILES[index]}"
        return f"column {index + 1} ({what}, GPIO {self.pins.cols[index]})"

    def _lines_of(self, square: int) -> tuple[int, int]:
        rank, file = divmod(square, 8)
        return (file, rank) if self.pins.transpose else (rank, file)

    # -- set-up -----------------------------------------------------------------------------
    def __enter__(self) -> Self:
        g = self.gpio
        if g.getmode() not in (None, g.BCM):
            raise RuntimeError("GPIO numbering is already set to BOARD in this process")
        g.setmode(g.BCM)
        self._release_rows()
        for col in self.pins.cols:
            g.setup(col, g.IN, pull_up_down=self.col_pull)
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.gpio.cleanup(list(self.pins.rows + self.pins.cols))

    def _release_rows(self, pull: int | None = None) -> None:
        g = self.gpio
        for row in self.pins.rows:
            g.setup(row, g.IN, pull_up_down=g.PUD_OFF if pull is None else pull)

    def scan(self) -> int:
        """One safe scan: each row driven alone, the others released (no ghost-path shorts)."""
        g, pins = self.gpio, self.pins
        occupied = 0
        for r, row in enumerate(pins.rows):
            g.setup(row, g.OUT, initial=self.select)
            for c, col in enumerate(pins.cols):
                if g.input(col) == self.occupied:
                    occupied |= 1 << pins.square(r, c)
            g.setup(row, g.IN, pull_up_down=g.PUD_OFF)
        return occupied

    # -- the tests --------------------------------------------------------------------------
    def columns(self) -> list[Finding]:
        g = self.gpio
        self._release_rows()
        findings = []
        level = "GND" if self.occupied == g.LOW else "3.3 V"
        for c, col in enumerate(self.pins.cols):
            if g.input(col) == self.occupied:
                extra = (" (GPIO 2/3 have 1.8 kOhm pull-ups to 3.3 V on the Pi: move this column)"
                         if col in (2, 3) and self.occupied == g.HIGH else "")
                findings.append(Finding(
                    STUCK_COLUMN, f"{self._col_name(c)} reads occupied with no row selected{extra}",
                    f"look for a bridge from column {c + 1} to {level} or to a row line (a solder splash, a pinched wire)",
                    line=c))
        return findings

    def rows(self) -> list[Finding]:
        g = self.gpio
        pins = self.pins
        findings = []
        self._release_rows(self.row_pull)
        level = "GND" if self.select == g.LOW else "3.3 V"
        stuck = set()
        for r, row in enumerate(pins.rows):
            if g.input(row) == self.select:
                stuck.add(r)
                findings.append(Finding(STUCK_ROW, f"{self._row_name(r)} reads selected with nothing driving it",
                                        f"look for a bridge from that row line to {level}"))
        pairs = set()
        for r, row in enumerate(pins.rows):
            if r in stuck:
                continue
            g.setup(row, g.OUT, initial=self.select)
            for o, other in enumerate(pins.rows):
                if o != r and o not in stuck and g.input(other) == self.select:
                    pairs.add((min(r, o), max(r, o)))
            g.setup(row, g.IN, pull_up_down=self.row_pull)
        for a, b in sorted(pairs):
            findings.append(Finding(SHORTED_ROWS, f"{self._row_name(a)} and {self._row_name(b)} are joined",
                                    "look for a solder bridge or a pinched wire between those two row lines"))
        self._release_rows()
        return findings

    def empty_board(self, skip_columns: Collection[int] = frozenset()) -> list[Finding]:
        """The squares that read occupied on an empty board, named together in one finding."""
        occupied = self.scan()
        stuck = sum(1 << s for s in range(64) if occupied >> s & 1 and self._lines_of(s)[1] not in skip_columns)
        self.stuck = stuck
        if not stuck:
            return []
        where, many = squares_text(stuck), _many(stuck)
        return [Finding(STUCK_SQUARE, f"{where} read{'' if many else 's'} occupied on an empty board",
                        f"the sensor{'s' if many else ''} of {where} {'are' if many else 'is'} stuck closed, "
                        f"or {'their columns touch their rows' if many else 'its column touches its row'}")]

    def conducts_backwards(self, square: int) -> bool:
        """Whether the crossing of ``square`` passes current against its diode's direction."""
        g, pins = self.gpio, self.pins
        r, c = self._lines_of(square)
        row, col = pins.rows[r], pins.cols[c]
        reverse_pull = g.PUD_DOWN if self.col_pull == g.PUD_UP else g.PUD_UP
        self._release_rows()
        g.setup(col, g.IN, pull_up_down=reverse_pull)
        g.setup(row, g.OUT, initial=self.release)
        backwards: bool = g.input(col) == self.release
        g.setup(row, g.IN, pull_up_down=g.PUD_OFF)
        g.setup(col, g.IN, pull_up_down=self.col_pull)
        return backwards

    def three_pieces(self, squares: Sequence[int] = THREE_PIECES,
                     skip_columns: Collection[int] = frozenset()) -> list[Finding]:
        """With pieces on ``squares`` (a1, h1, a8) and nothing else: missing pieces and ghosts.

        ``skip_columns`` (indexes of columns found stuck) are left out: they read occupied anyway.
        """
        occupied = self.scan()
        for square in range(64):
            if self._lines_of(square)[1] in skip_columns:
                occupied &= ~(1 << square)
        expected = sum(1 << s for s in squares)
        occupied &= ~self.stuck | expected   # a sensor stuck closed reads anyway: named already, no ghost
        findings = []
        reversed_at = []
        for square in squares:
            if occupied >> square & 1:
                continue
            if self.pins.select_level == self.pins.active and self.conducts_backwards(square):
                reversed_at.append(square)
                findings.append(Finding(REVERSED_DIODE, f"the diode of {square_name(square)} conducts the wrong way",
                                        f"turn the diode of {square_name(square)} round: its bar goes to the "
                                        f"{'row' if self.pins.active == 'low' else 'column'}"))
            else:
                findings.append(Finding(OPEN_SQUARE, f"{square_name(square)} reads empty with a piece on it",
                                        f"check the sensor, the diode and the joints of {square_name(square)} "
                                        "(a reed switch turned along the magnet's axis, or a magnet too weak)"))
        for square in range(64):
            if occupied >> square & 1 and not expected >> square & 1:
                opposite = self._opposite(square, squares)
                bar = "row" if self.pins.active == "low" else "column"
                bridge = f"(bar to the {bar}), or clear the solder bridge across it"
                if opposite is None:
                    cause, fix = "a diode is missing or shorted", f"fit a diode at every square {bridge}"
                elif opposite in reversed_at:
                    cause = f"the reversed diode of {square_name(opposite)} lets current back"
                    fix = f"turn the diode of {square_name(opposite)} round (bar to the {bar})"
                else:
                    cause = f"the diode of {square_name(opposite)} is missing or shorted"
                    fix = f"fit a diode at {square_name(opposite)} {bridge}"
                findings.append(Finding(GHOST, f"{square_name(square)} reads occupied with pieces on "
                                        f"{', '.join(square_name(s) for s in squares)} only: {cause}", fix))
        return findings

    @property
    def can_probe(self) -> bool:
        """Whether a crossing can be probed backwards (the row's release level opposes the column's pull)."""
        return self.pins.select_level == self.pins.active

    def survey(self, squares: Sequence[int], skip_columns: Collection[int] = frozenset()) -> tuple[int, int, int]:
        """With pieces on ``squares`` only, each square read and (``can_probe``) its crossing probed
        backwards: the bitboards of the squares with no working diode (read, and conducting
        backwards: missing or shorted), with a reversed diode (not read, conducting backwards) and
        with an open sensor (not read, not conducting)."""
        occupied = self.scan()
        missing = reversed_ = opened = 0
        for square in squares:
            if self._lines_of(square)[1] in skip_columns:
                continue
            backwards = self.can_probe and self.conducts_backwards(square)
            if occupied >> square & 1:
                missing |= backwards << square
            elif backwards:
                reversed_ |= 1 << square
            else:
                opened |= 1 << square
        return missing, reversed_, opened

    def surveyed(self, findings: list[Finding], missing: int, reversed_: int, opened: int,
                 squares: Sequence[int] = THREE_PIECES) -> list[Finding]:
        """The three-piece findings with every square the survey found at fault named, one finding
        per kind: the open sensors, the reversed diodes, the missing ones (with the ghosts they make)."""
        bar = "row" if self.pins.active == "low" else "column"
        kept = [f for f in findings if f.kind not in (OPEN_SQUARE, REVERSED_DIODE, GHOST) or
                (f.kind == GHOST and not missing) or (f.kind == REVERSED_DIODE and not self.can_probe)]
        added = []
        if opened:
            where, many = squares_text(opened), _many(opened)
            added.append(Finding(OPEN_SQUARE, f"{where} read{'' if many else 's'} empty with "
                                 f"{'pieces on them' if many else 'a piece on it'}",
                                 f"check the sensor{'s' if many else ''}, the diode{'s' if many else ''} and "
                                 f"the joints of {where} (a reed switch turned along the magnet's axis, or a "
                                 "magnet too weak)"))
        if reversed_:
            where, many = squares_text(reversed_), _many(reversed_)
            added.append(Finding(REVERSED_DIODE, f"the diode{'s' if many else ''} of {where} "
                                 f"conduct{'' if many else 's'} the wrong way",
                                 f"turn the diode{'s' if many else ''} of {where} round: "
                                 f"{'their' if many else 'its'} bar goes to the {bar}"))
        if missing:
            ghosts = [f.where.split(" reads occupied")[0] for f in findings if f.kind == GHOST]
            where, many = squares_text(missing), _many(missing)
            read = (f"{', '.join(ghosts)} read{'s' if len(ghosts) == 1 else ''} occupied with pieces on "
                    f"{', '.join(square_name(s) for s in squares)} only: " if ghosts else "")
            cause = (f"the diodes of {where} are missing or shorted" if many
                     else f"the diode of {where} is missing or shorted")
            fit = "every square" if missing == (1 << 64) - 1 else where
            added.append(Finding(GHOST, read + cause, f"fit a diode at {fit} (bar to the {bar}), or clear the "
                                 f"solder bridge{'s' if many else ''} across {'them' if many else 'it'}"))
        ghosts_kept = [f for f in kept if f.kind == GHOST]
        return [f for f in kept if f.kind != GHOST] + added + ghosts_kept

    def _opposite(self, ghost: int, squares: Sequence[int]) -> int | None:
        """The piece across the rectangle from ``ghost``: the one sharing neither its row nor its column."""
        gr, gc = self._lines_of(ghost)
        for square in squares:
            r, c = self._lines_of(square)
            if r != gr and c != gc:
                return square
        return None
