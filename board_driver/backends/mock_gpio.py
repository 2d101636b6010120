"""A mock RPi.GPIO module wired to an electrical model of a sensor matrix, for tests and `hwtest --fake`.

The model is electrical, not logical: a column input reads the level of its net, and a net is
pulled low (or high) only through a closed sensor and its diode to a row that is *driven*
low (or high). Without a pull resistor an undriven input floats and reads noise. So a scanner
reads the right squares only if it configures its pins the way real hardware needs.
"""
from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..pinmap import MatrixPins, PinMap

# The constants of RPi.GPIO, with its values.
LOW, HIGH = 0, 1
OUT, IN = 0, 1
BOARD, BCM = 10, 11
PUD_OFF, PUD_DOWN, PUD_UP = 20, 21, 22
VALID_BCM = range(0, 28)

Channel = int | list[int] | tuple[int, ...]
"""A pin or several, as RPi.GPIO's setup(), output() and cleanup() take them."""

COL_TO_ROW = "col_to_row"
"""Diode anode on the column, cathode on the row: the active-low build (rows driven low)."""
ROW_TO_COL = "row_to_col"
"""Diode anode on the row: the active-high build (rows driven high, columns pulled down)."""
NMOS = "nmos"
"""A low-side N-MOSFET per row: gate high grounds the row (its Hall sensors' ground)."""
PMOS = "pmos"
"""A high-side P-MOSFET per row: gate low pulls the row high."""


class ElectricalFault(RuntimeError):
    """Two outputs drive one net to opposite levels: on real hardware, a short circuit."""


class MatrixModel:
    """Rows x columns of sensors, each in series with a diode (or a bare wire, ``diodes=None``).

    ``closed`` holds the (row pin, column pin) pairs whose sensor is closed. ``levels(pins)``
    gives the level of every column given the state of every pin.
    """

    def __init__(self, rows: Sequence[int], cols: Sequence[int], *, diodes: str | None = COL_TO_ROW,
                 row_drivers: str | None = None):
        if diodes not in (COL_TO_ROW, ROW_TO_COL, None):
            raise ValueError(f"diodes must be {COL_TO_ROW!r}, {ROW_TO_COL!r} or None")
        if row_drivers not in (None, NMOS, PMOS):
            raise ValueError(f"row_drivers must be None, {NMOS!r} or {PMOS!r}")
        self.rows = tuple(rows)
        self.cols = tuple(cols)
        self.diodes = diodes
        self.row_drivers = row_drivers
        self.closed: frozenset[tuple[int, int]] = frozenset()
        self._rows_of: dict[int, tuple[int, ...]] = {}
        self.version = 0  # bumped on every change so pin readers know to recompute
        # Wiring faults a maker can build (``echiquier hwtest --doctor`` names each):
        self.shorts: list[tuple[int, int]] = []   # two lines joined (a solder bridge)
        self.ties: dict[int, int] = {}             # a line stuck to GND (LOW) or 3.3 V (HIGH)
        self.square_diodes: dict[tuple[int, int], str | None] = {}  # (row, col) -> orientation, None: none

    def short(self, a: int, b: int) -> None:
        """Join lines ``a`` and ``b`` (a solder bridge between two row lines, say)."""
        self.shorts.append((a, b))
        self.version += 1

    def tie(self, pin: int, level: int) -> None:
        """Stick line ``pin`` to GND (LOW) or 3.3 V (HIGH)."""
        self.ties[pin] = level
        self.version += 1

    def set_diode(self, row: int, col: int, orientation: str | None) -> None:
        """The diode at one crossing: COL_TO_ROW, ROW_TO_COL (reversed on an active-low board), None (missing)."""
        self.square_diodes[(row, col)] = orientation
        self.version += 1

    @property
    def faulty(self) -> bool:
        return bool(self.shorts or self.ties or self.square_diodes)

    def pin_levels(self, outputs: dict[int, int]) -> dict[int, int]:
        """The level of every matrix line some source drives, given the pins driven as outputs.

        The general model, for faulty wiring: lines joined by shorts or by closed sensors
        without a diode form one net; outputs and ties drive nets; a closed sensor's diode
        carries a LOW from its cathode to its anode and a HIGH from its anode to its cathode.
        Two sources driving one net to opposite levels raise :class:`ElectricalFault`.
        """
        pins = self.rows + self.cols
        parent = {p: p for p in pins}

        def find(p: int) -> int:
            while parent[p] != p:
                parent[p] = parent[parent[p]]
                p = parent[p]
            return p

        diodes = []
        for a, b in self.shorts:
            parent[find(a)] = find(b)
        for row, col in self.closed:
            orientation = self.square_diodes.get((row, col), self.diodes)
            if orientation is None:
                parent[find(row)] = find(col)
            else:
                diodes.append((col, row) if orientation == COL_TO_ROW else (row, col))  # (anode, cathode)
        row_outputs = self.row_nets({p: v for p, v in outputs.items() if p in self.rows})
        sources = [(p, v, f"GPIO {p}") for p, v in row_outputs.items()]
        sources += [(p, v, f"GPIO {p}") for p, v in outputs.items() if p in self.cols]
        sources += [(p, v, f"GPIO {p} stuck to {'3.3 V' if v else 'GND'}") for p, v in self.ties.items() if p in parent]
        level: dict[int, int] = {}
        who: dict[int, str] = {}

        def drive(net: int, value: int, name: str) -> bool:
            if net in level:
                if level[net] != value:
                    raise ElectricalFault(f"short circuit: {who[net]} and {name} drive one line to opposite levels")
                return False
            level[net], who[net] = value, name
            return True

        for pin, value, name in sources:
            drive(find(pin), value, name)
        changed = True
        while changed:
            changed = False
            for anode, cathode in diodes:
                a, k = find(anode), find(cathode)
                if level.get(k) == LOW:
                    changed |= drive(a, LOW, who[k] + " through a diode")
                if level.get(a) == HIGH:
                    changed |= drive(k, HIGH, who[a] + " through a diode")
        return {p: level[find(p)] for p in pins if find(p) in level}

    def set_closed(self, pairs: Iterable[tuple[int, int]]) -> None:
        self.closed = frozenset(pairs)
        self._rows_of = {c: tuple(r for r, cc in self.closed if cc == c) for c in self.cols}
        self.version += 1

    def set_bitboard(self, bitboard: int, *, transpose: bool = False) -> None:
        """Close the sensor of every square set in ``bitboard`` (row i = rank i, col j = file j)."""
        pairs = []
        for square in range(64):
            if bitboard >> square & 1:
                rank, file = divmod(square, 8)
                r, c = (file, rank) if transpose else (rank, file)
                pairs.append((self.rows[r], self.cols[c]))
        self.set_closed(pairs)

    def row_nets(self, pins: dict[int, int]) -> dict[int, int]:
        """The level of each row net, given the levels of the row pins driven as outputs.

        Without drivers a pin drives its row directly. An N-MOSFET driver grounds the row
        while its gate pin is high and leaves it floating otherwise; a P-MOSFET driver pulls
        the row high while its gate is low.
        """
        if self.row_drivers is None:
            return pins
        if self.row_drivers == NMOS:
            return {row: LOW for row, level in pins.items() if level == HIGH}
        return {row: HIGH for row, level in pins.items() if level == LOW}

    def driven_level(self, col: int, driven: dict[int, int]) -> int | None:
        """The level forced onto column ``col`` by the driven row nets, or None if nothing drives it."""
        if self.diodes == COL_TO_ROW:
            low = any(driven.get(r) == LOW for r in self._rows_of.get(col, ()))
            return LOW if low else None
        if self.diodes == ROW_TO_COL:
            high = any(driven.get(r) == HIGH for r in self._rows_of.get(col, ()))
            return HIGH if high else None
        return self._net_level(col, driven)

    def _net_level(self, col: int, driven: dict[int, int]) -> int | None:
        # Without diodes every closed sensor is a wire: find the whole net of this column.
        net, todo = {("c", col)}, [("c", col)]
        while todo:
            kind, pin = todo.pop()
            for r, c in self.closed:
                if kind == "c" and c == pin and ("r", r) not in net:
                    net.add(("r", r))
                    todo.append(("r", r))
                elif kind == "r" and r == pin and ("c", c) not in net:
                    net.add(("c", c))
                    todo.append(("c", c))
        levels = {driven[pin] for kind, pin in net if kind == "r" and pin in driven}
        if len(levels) > 1:
            raise ElectricalFault(f"short circuit: rows driven high and low are joined through column {col}")
        return levels.pop() if levels else None


class MockGPIO:
    """Stands in for the ``RPi.GPIO`` module (BCM or BOARD numbering, the calls a scanner makes).

    Pins listed in a :class:`MatrixModel` read through it; any other input reads its pull.
    ``settle_ns`` models the RC delay of long matrix wires: a column read sooner than that
    after a row changed still reads the level from before the change. ``clock_ns`` is the
    time source for it (``time.perf_counter_ns`` unless injected).
    """

    LOW, HIGH, OUT, IN = LOW, HIGH, OUT, IN
    BOARD, BCM = BOARD, BCM
    PUD_OFF, PUD_DOWN, PUD_UP = PUD_OFF, PUD_DOWN, PUD_UP
    VERSION = "mock"
    RPI_INFO = {"P1_REVISION": 3, "TYPE": "mock", "PROCESSOR": "mock"}

    def __init__(
        self,
        matrix: MatrixModel | None = None,
        *,
        seed: int = 0,
        settle_ns: int = 0,
        clock_ns: Callable[[], int] = time.perf_counter_ns,
    ):
        self.matrix = matrix
        self.mode: int | None = None
        self.direction: dict[int, int] = {}
        self.pull: dict[int, int] = {}
        self.out_level: dict[int, int] = {}
        self.setup_calls: list[tuple[int, int, int]] = []
        self.cleanup_calls: list[tuple[int, ...] | None] = []
        self.call_count = 0
        self.warnings = True
        self.settle_ns = settle_ns
        self._clock_ns = clock_ns
        self._rng = random.Random(seed)
        self._cache: dict[int, int] = {}
        self._stale: dict[int, int] = {}
        self._changed_at = -(1 << 62)
        self._cache_key: object = None
        self.grounded: set[int] = set()
        """Pins joined to ground by a closed push button (``press_button``): they read LOW."""

    # -- RPi.GPIO API ---------------------------------------------------------------------
    def setmode(self, mode: int) -> None:
        if mode not in (BOARD, BCM):
            raise ValueError("An invalid mode was passed to setmode()")
        if self.mode is not None and self.mode != mode:
            raise ValueError("A different mode has already been set!")
        self.mode = mode

    def getmode(self) -> int | None:
        return self.mode

    def setwarnings(self, flag: bool) -> None:
        self.warnings = bool(flag)

    def setup(self, channel: Channel, direction: int, pull_up_down: int = PUD_OFF, initial: int = -1) -> None:
        self.call_count += 1
        self._before_change()
        for pin in self._channels(channel):
            if direction not in (IN, OUT):
                raise ValueError("An invalid direction was passed to setup()")
            if direction == OUT and pull_up_down != PUD_OFF:
                raise ValueError("pull_up_down parameter is not valid for outputs")
            self.setup_calls.append((pin, direction, pull_up_down))
            self.direction[pin] = direction
            self.pull[pin] = pull_up_down
            if direction == OUT:
                self.out_level[pin] = HIGH if initial == HIGH else LOW
            else:
                self.out_level.pop(pin, None)
        self._touch()

    def output(self, channel: Channel, value: int | bool | Sequence[int | bool]) -> None:
        self.call_count += 1
        pins = self._channels(channel)
        values = list(value) if isinstance(value, (list, tuple)) else [value] * len(pins)
        if len(values) != len(pins):
            raise RuntimeError("Number of channels != number of values")
        self._before_change()
        for pin, level in zip(pins, values):
            if self.direction.get(pin) != OUT:
                raise RuntimeError("The GPIO channel has not been set up as an OUTPUT")
            self.out_level[pin] = HIGH if level else LOW
        self._touch()

    def input(self, channel: int) -> int:
        self.call_count += 1
        if self.mode is None:
            raise RuntimeError("Please set pin numbering mode using GPIO.setmode(GPIO.BOARD) or GPIO.setmode(GPIO.BCM)")
        if channel not in self.direction:
            raise RuntimeError("You must setup() the GPIO channel first")
        if self.direction[channel] == OUT:
            return self.out_level[channel]
        if channel in self.grounded:
            return LOW
        if self.matrix is None or (channel not in self.matrix.cols and channel not in self.matrix.rows):
            return self._pull_level(channel)   # (a button's pin: never the matrix's cache, read by another thread)
        if self._cache_key is None or (self.matrix is not None and self._cache_key != self.matrix.version):
            self._recompute()
        if self.settle_ns and self._clock_ns() - self._changed_at < self.settle_ns:
            levels = self._stale
        else:
            levels = self._cache
        level = levels.get(channel)
        if level is None:
            return self._pull_level(channel)
        return level

    def cleanup(self, channel: Channel | None = None) -> None:
        self.call_count += 1
        if channel is None:
            pins = list(self.direction)
            self.cleanup_calls.append(None)
            self.mode = None
        else:
            pins = self._channels(channel, check=False)
            self.cleanup_calls.append(tuple(pins))
        for pin in pins:
            self.direction.pop(pin, None)
            self.pull.pop(pin, None)
            self.out_level.pop(pin, None)
        if not self.direction:
            self.mode = None
        self._touch()

    def gpio_function(self, channel: int) -> int:
        return self.direction.get(channel, IN)

    # -- test helpers ---------------------------------------------------------------------
    def press_button(self, pin: int) -> None:
        """Close the push button wired from ``pin`` to ground (the pin reads LOW, whatever its pull)."""
        self.grounded.add(pin)

    def release_button(self, pin: int) -> None:
        """Open the push button on ``pin`` again (the pin reads its pull)."""
        self.grounded.discard(pin)

    def driven_rows(self) -> dict[int, int]:
        """Row pins of the matrix currently driven as outputs, with their level."""
        rows = self.matrix.rows if self.matrix else ()
        return {pin: self.out_level[pin] for pin in rows if self.direction.get(pin) == OUT}

    # -- internals ------------------------------------------------------------------------
    def _channels(self, channel: Channel, check: bool = True) -> list[int]:
        if self.mode is None and check:
            raise RuntimeError("Please set pin numbering mode using GPIO.setmode(GPIO.BOARD) or GPIO.setmode(GPIO.BCM)")
        pins = list(channel) if isinstance(channel, (list, tuple)) else [channel]
        for pin in pins:
            if isinstance(pin, bool) or not isinstance(pin, int) or (check and pin not in VALID_BCM):
                raise ValueError("The channel sent is invalid on a Raspberry Pi")
        return pins

    def _before_change(self) -> None:
        # The settling model: until settle_ns after a change, columns keep the levels they had
        # settled to before it (a change during settling keeps the older levels).
        if self.settle_ns and self._clock_ns() - self._changed_at >= self.settle_ns:
            if self._cache_key is None or (self.matrix is not None and self._cache_key != self.matrix.version):
                self._recompute()
            self._stale = dict(self._cache)

    def _touch(self) -> None:
        if self.settle_ns:
            self._changed_at = self._clock_ns()
        self._cache_key = None

    def _recompute(self) -> None:
        self._cache = {}
        if self.matrix is not None and self.matrix.faulty:
            outputs = {p: self.out_level[p] for p in self.matrix.rows + self.matrix.cols
                       if self.direction.get(p) == OUT}
            for pin, level in self.matrix.pin_levels(outputs).items():
                if self.direction.get(pin) == IN:
                    self._cache[pin] = level
        elif self.matrix is not None:
            driven = self.matrix.row_nets(
                {p: self.out_level[p] for p in self.matrix.rows if self.direction.get(p) == OUT}
            )
            for col in self.matrix.cols:
                if self.direction.get(col) == IN:
                    col_level = self.matrix.driven_level(col, driven)
                    if col_level is not None:
                        self._cache[col] = col_level
        self._cache_key = self.matrix.version if self.matrix else 0

    def _pull_level(self, pin: int) -> int:
        pull = self.pull.get(pin, PUD_OFF)
        if pull == PUD_UP:
            return HIGH
        if pull == PUD_DOWN:
            return LOW
        return self._rng.getrandbits(1)  # a floating input reads noise


def row_drivers_for(matrix_pins: MatrixPins) -> str | None:
    """The row drivers a pin map implies: none when rows are selected at the active level."""
    if matrix_pins.select_level == matrix_pins.active:
        return None
    return NMOS if matrix_pins.select_level == "high" else PMOS


def mock_board(bitboard: int = 0, pinmap: PinMap | None = None, *, seed: int = 0,
               diodes: str | None = None) -> MockGPIO:
    """A MockGPIO wired like ``pinmap`` (the reference board by default) holding ``bitboard``."""
    from ..pinmap import REFERENCE

    matrix_pins = (pinmap or REFERENCE).matrix
    if diodes is None:
        diodes = COL_TO_ROW if matrix_pins.active == "low" else ROW_TO_COL
    model = MatrixModel(matrix_pins.rows, matrix_pins.cols, diodes=diodes, row_drivers=row_drivers_for(matrix_pins))
    model.set_bitboard(bitboard, transpose=matrix_pins.transpose)
    return MockGPIO(model, seed=seed)
