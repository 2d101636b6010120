"""Pin maps: which BCM pins scan the matrix, drive the LEDs and read the optional buttons, read from TOML and checked."""
from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, TypeVar

from .sensors import PinMapError

BCM_PINS = range(0, 28)
"""GPIO numbers on the 40-pin header of every Raspberry Pi since the B+ (Pi 5 included)."""
HAT_EEPROM_PINS = (0, 1)
I2C_PULLUP_PINS = (2, 3)
"""GPIO 2/3 carry 1.8 kOhm pull-ups to 3.3 V on the Pi's board (I2C1)."""
LED_LAYOUTS = ("square", "corners")
BUTTON_NAMES = ("resign_white", "resign_black", "draw", "promote", "return", "speak", "describe", "hint")
"""The buttons a pin map may name: the gestures' (firmware.referee.gestures.BUTTONS), the session's
"promote" and "return", the voice's "speak" (the last move and the clocks) and "describe" (the
position), and the coach's "hint"."""
ROTATIONS = (0, 90, 180, 270)


def _fail(key: str, message: str) -> PinMapError:
    return PinMapError(f"{key}: {message}")


def _check_pins(key: str, pins: Any) -> tuple[int, ...]:
    if not isinstance(pins, (list, tuple)):
        raise _fail(key, f"expected a list of 8 BCM pin numbers, got {pins!r}")
    if len(pins) != 8:
        raise _fail(key, f"expected 8 BCM pins, got {len(pins)}")
    for i, pin in enumerate(pins):
        _check_pin(f"{key}[{i}]", pin)
    return tuple(pins)


def _check_pin(key: str, pin: Any) -> int:
    if isinstance(pin, bool) or not isinstance(pin, int):
        raise _fail(key, f"expected a BCM pin number, got {pin!r}")
    if pin not in BCM_PINS:
        raise _fail(key, f"BCM pin {pin} is out of range {BCM_PINS.start}..{BCM_PINS.stop - 1}")
    if pin in HAT_EEPROM_PINS:
        raise _fail(key, f"BCM pin {pin} is the HAT ID EEPROM's I2C line (ID_SD/ID_SC), read by the firmware "
                    "at boot: use another pin")
    return pin


def _check_choice(key: str, value: Any, choices: tuple[object, ...]) -> Any:
    if value not in choices or isinstance(value, bool):
        raise _fail(key, f"expected one of {', '.join(map(repr, choices))}, got {value!r}")
    return value


def _check_number(key: str, value: Any, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise _fail(key, f"expected a number from {low:g} to {high:g}, got {value!r}")
    return value


def _check_bool(key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise _fail(key, f"expected true or false, got {value!r}")
    return value


@dataclass(frozen=True, slots=True)
class MatrixPins:
    """The sensor matrix: 8 row outputs (rank 1 first) and 8 column inputs (file a first).

    ``active`` is the level that means "occupied" on a column, and by default also the level
    that selects a row: ``"low"`` for reed switches (or open-collector Hall sensors) with
    diodes to the rows, columns pulled up; ``"high"`` for the inverted build (rows driven
    high, columns pulled down, diodes reversed). ``select`` overrides the row level when the
    rows go through transistor drivers, e.g. ``select = "high"`` for an N-MOSFET per row that
    grounds the row's Hall sensors. ``idle`` says what an unselected row does: ``"drive"``
    (driven to the inactive level, the diodes block it) or ``"input"`` (high impedance).
    ``transpose`` is for boards whose row lines run along files: then ``rows`` is file a
    first and ``cols`` rank 1 first.
    """

    rows: tuple[int, ...]
    cols: tuple[int, ...]
    active: str = "low"
    settle_us: float = 10.0
    idle: str = "drive"
    transpose: bool = False
    select: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "rows", _check_pins("matrix.rows", self.rows))
        object.__setattr__(self, "cols", _check_pins("matrix.cols", self.cols))
        _check_choice("matrix.active", self.active, ("low", "high"))
        _check_number("matrix.settle_us", self.settle_us, 0, 100_000)
        _check_choice("matrix.idle", self.idle, ("drive", "input"))
        _check_bool("matrix.transpose", self.transpose)
        if self.select is not None:
            _check_choice("matrix.select", self.select, ("low", "high"))
        seen: dict[int, str] = {}
        for key, pins in (("matrix.rows", self.rows), ("matrix.cols", self.cols)):
            for i, pin in enumerate(pins):
                where = f"{key}[{i}]"
                if pin in seen:
                    raise _fail(where, f"BCM pin {pin} is already used by {seen[pin]}")
                seen[pin] = where
        for i, pin in enumerate(self.cols):
            if pin in I2C_PULLUP_PINS and self.active == "high":
                raise _fail(f"matrix.cols[{i}]", f"BCM pin {pin} has a 1.8 kOhm pull-up to 3.3 V on the Pi itself: "
                            "an active-high column there always reads occupied; use another pin")

    @property
    def select_level(self) -> str:
        """The level that selects a row: ``select`` if given, else ``active``."""
        return self.select or self.active

    def square(self, row_index: int, col_index: int) -> int:
        """The square sensed where row line ``row_index`` crosses column line ``col_index``."""
        if self.transpose:
            return row_index + 8 * col_index
        return col_index + 8 * row_index


@dataclass(frozen=True, slots=True)
class LedPins:
    """The LED chain: data pin, length, geometry (see ``board_driver.layout``) and power."""

    data_pin: int = 18
    count: int = 64
    layout: str = "square"
    order: str = "GRB"
    serpentine: bool = False
    rotation: int = 0
    mirror: bool = False
    brightness: float = 0.5
    max_milliamps: float | None = None

    def __post_init__(self) -> None:
        _check_pin("leds.data_pin", self.data_pin)
        _check_choice("leds.layout", self.layout, LED_LAYOUTS)
        needed = 64 if self.layout == "square" else 81
        if isinstance(self.count, bool) or not isinstance(self.count, int) or self.count < needed:
            raise _fail("leds.count", f"layout {self.layout!r} needs at least {needed} LEDs, got {self.count!r}")
        order = self.order.upper() if isinstance(self.order, str) else self.order
        if not isinstance(order, str) or sorted(order) not in (sorted("RGB"), sorted("RGBW")):
            raise _fail("leds.order", f"expected a pixel order such as 'GRB', 'RGB' or 'GRBW', got {self.order!r}")
        object.__setattr__(self, "order", order)
        _check_bool("leds.serpentine", self.serpentine)
        _check_choice("leds.rotation", self.rotation, ROTATIONS)
        _check_bool("leds.mirror", self.mirror)
        _check_number("leds.brightness", self.brightness, 0.0, 1.0)
        if self.max_milliamps is not None:
            _check_number("leds.max_milliamps", self.max_milliamps, 1, 1_000_000)


@dataclass(frozen=True, slots=True)
class ButtonPins:
    """Optional push buttons: ``(name, BCM pin)`` pairs in the file's order, names from
    :data:`BUTTON_NAMES`. Each button joins its pin to ground when pressed; the pin is an input
    with the Pi's internal pull-up, so it reads low while pressed (active low)."""

    pins: tuple[tuple[str, int], ...] = ()

    def __post_init__(self) -> None:
        seen: dict[int, str] = {}
        for name, pin in self.pins:
            key = f"buttons.{name}"
            if name not in BUTTON_NAMES:
                raise _fail(key, f"unknown button (known: {', '.join(sorted(BUTTON_NAMES))})")
            if any(other == name for other in seen.values()):
                raise _fail(key, "listed twice")
            _check_pin(key, pin)
            if pin in seen:
                raise _fail(key, f"BCM pin {pin} is already used by buttons.{seen[pin]}")
            seen[pin] = name

    @property
    def by_name(self) -> dict[str, int]:
        """Each button's BCM pin, by name."""
        return dict(self.pins)


@dataclass(frozen=True, slots=True)
class PinMap:
    """A whole pin map; ``source`` names the file it came from (for messages)."""

    matrix: MatrixPins
    leds: LedPins | None = None
    source: str = field(default="<pinmap>", compare=False)
    buttons: ButtonPins = field(default_factory=ButtonPins)

    def __post_init__(self) -> None:
        used = {pin: f"{key}[{i}]" for key, pins in (("matrix.rows", self.matrix.rows), ("matrix.cols", self.matrix.cols))
                for i, pin in enumerate(pins)}
        if self.leds is not None:
            pin = self.leds.data_pin
            if pin in used:
                raise PinMapError(f"{self.source}: leds.data_pin: BCM pin {pin} is already used by {used[pin]}")
            used[pin] = "leds.data_pin"
        for name, pin in self.buttons.pins:
            if pin in used:
                raise PinMapError(f"{self.source}: buttons.{name}: BCM pin {pin} is already used by {used[pin]}")


REFERENCE = PinMap(
    matrix=MatrixPins(
        rows=(4, 17, 27, 22, 5, 6, 13, 19),
        cols=(12, 16, 20, 21, 23, 24, 25, 26),
        active="low",
        settle_us=10.0,
    ),
    leds=LedPins(
        data_pin=10, count=64, layout="square", order="GRB", serpentine=True,
        brightness=0.4, max_milliamps=2000,
    ),
    source="<reference board>",
)
"""The reference build described in hardware/ (hardware/reference-board.toml)."""


_Table = TypeVar("_Table", "MatrixPins", "LedPins")


def _build(cls: type[_Table], table: Any, key: str) -> _Table:
    if not isinstance(table, dict):
        raise _fail(key, f"expected a table, got {table!r}")
    known = {f.name for f in fields(cls)}
    for name in table:
        if name not in known:
            raise _fail(f"{key}.{name}", f"unknown key (known: {', '.join(sorted(known))})")
    missing = [f.name for f in fields(cls) if f.name not in table and f.name in ("rows", "cols")]
    if missing:
        raise _fail(f"{key}.{missing[0]}", "missing")
    return cls(**table)


def _build_buttons(table: Any) -> ButtonPins:
    if not isinstance(table, dict):
        raise _fail("buttons", f"expected a table of button = BCM pin, got {table!r}")
    return ButtonPins(tuple(table.items()))


def parse_pinmap(data: dict[str, Any], source: str = "<pinmap>") -> PinMap:
    """Build a :class:`PinMap` from parsed TOML; errors name ``source`` and the key."""
    try:
        for name in data:
            if name not in ("matrix", "leds", "buttons"):
                raise _fail(name, "unknown table (known: buttons, leds, matrix)")
        if "matrix" not in data:
            raise _fail("matrix", "missing table")
        matrix = _build(MatrixPins, data["matrix"], "matrix")
        leds = _build(LedPins, data["leds"], "leds") if "leds" in data else None
        buttons = _build_buttons(data["buttons"]) if "buttons" in data else ButtonPins()
    except PinMapError as exc:
        raise PinMapError(f"{source}: {exc}") from None
    except TypeError as exc:  # a dataclass refused the arguments
        raise PinMapError(f"{source}: {exc}") from None
    return PinMap(matrix, leds, source, buttons)


def loads_pinmap(text: str, source: str = "<string>") -> PinMap:
    """Parse a pin map from TOML text."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PinMapError(f"{source}: not valid TOML: {exc}") from None
    return parse_pinmap(data, source)


def load_pinmap(path: str | Path) -> PinMap:
    """Read and check a pin map file."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise PinMapError(f"{path}: cannot read the pin map: {exc.strerror or exc}") from None
    return loads_pinmap(text, str(path))
