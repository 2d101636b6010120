"""The LEDs' one frame, composed from named layers: the game, the coach, a review, an app, an alarm, the pairing code.

Contract
========

* A :class:`Layer` is a value: its ``name`` (one layer per name), its ``priority``
  (:class:`Priority`: a higher one paints over a lower one), its ``phases`` and an optional end
  ``until`` (it shows while ``now < until``). A phase is a tuple of :class:`Light`: a role (the
  legend's word, firmware.words ``LED_ROLES``), its colour and its squares; a later light paints
  over an earlier one. One phase is steady; more are shown in turn, each for ``slot_s`` from
  ``since`` (the game's blinking squares: two phases of half a blink period; an app's patterns:
  eight slots).
* Per square, with some layers alone: :func:`compose` paints the layers that have not ended from
  the lowest priority up, each on the squares it lights (a dark square of a layer shows what
  lies below it), except that nothing below the highest layer that is *alone* (:data:`ALONE`:
  the coach, a setup's step, a review, an app, the pairing code) shows at all: each of those is a picture of
  its own that the game's lights would falsify (the pairing code is read by counting lit
  squares, an app drives every LED of its protocol). Above them only the alarms paint, on their
  own squares: the game cannot be saved (the corners), the page cannot be served (the centre).
  An alarm flashes (:func:`flashing`: its colour and white in turn), a look no other role has,
  so a corner lit by it is never taken for the game's square beneath.
* :func:`lit_roles`: the roles lit, each with its colour (the page's legend): a role counts when
  one of its squares shows in any phase of its layer, not covered by a layer above.
* :func:`next_change`: when the frame next changes by itself (a layer's end; with ``phases``,
  the next phase of a layer that shows), for the loop to wake up then rather than run a timer.

Pure: the time is an argument; nothing here reads a clock or shows a frame.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum

from chess_core.squares import scan_squares

__all__ = ["Priority", "ALONE", "Light", "Layer", "compose", "lit_roles", "next_change", "steady", "visible", "flashing",
           "of_frame", "ALARM_FLASH"]

Frame = tuple[int, ...]
DARK = 0
ALARM_FLASH = 0xFFFFFF   # an alarm's second colour: white, in turn with its own


class Priority(IntEnum):
    """Which layer paints over which (higher over lower)."""

    GAME = 0       # the game's feedback (firmware.referee.feedback), always there
    COACH = 10     # a hint, a coached move judged, for a moment (firmware.session.coach)
    SETUP = 15     # the next step of a position set up by hand (firmware.session.setup_guidance)
    REVIEW = 20    # a reviewed game's move from the library, while no game is played (firmware.analysis.leds)
    APP = 30       # an app's lights through an emulated board, while it is attached (firmware.emulation)
    ALARM = 40     # the game cannot be saved, the page cannot be served
    PAIRING = 50   # the pairing code, for a moment (firmware.web.pairing)


ALONE = frozenset({Priority.COACH, Priority.SETUP, Priority.REVIEW, Priority.APP, Priority.PAIRING})
"""The layers that take the whole board: nothing below them shows."""


@dataclass(frozen=True)
class Light:
    """The squares (a bitboard) of one role, in one colour (0xRRGGBB; dark lights nothing)."""

    role: str
    colour: int
    squares: int


@dataclass(frozen=True)
class Layer:
    """What one owner lights; see the module docstring."""

    name: str
    priority: int
    phases: tuple[tuple[Light, ...], ...] = ((),)
    slot_s: float = 0.0
    since: float = 0.0
    until: float | None = None

    def __post_init__(self) -> None:
        if not self.phases:
            raise ValueError("a layer has one phase at least")
        if len(self.phases) > 1 and self.slot_s <= 0:
            raise ValueError("a layer of several phases needs a slot time")

    @property
    def alone(self) -> bool:
        return self.priority in ALONE

    def ended(self, now: float) -> bool:
        return self.until is not None and now >= self.until

    def _slot(self, now: float) -> int:
        return int((now - self.since) // self.slot_s)

    def phase(self, now: float) -> tuple[Light, ...]:
        """The lights of the phase shown at ``now``."""
        if len(self.phases) == 1:
            return self.phases[0]
        return self.phases[self._slot(now) % len(self.phases)]

    def next_phase(self, now: float) -> float | None:
        """When the next phase begins (None: steady)."""
        if len(self.phases) == 1:
            return None
        at = self.since + (self._slot(now) + 1) * self.slot_s
        return at if at > now else at + self.slot_s   # (a float rounded down)


def of_frame(name: str, priority: int, role: str, frame: Sequence[int], *, until: float | None = None) -> Layer:
    """A steady layer that lights ``frame`` (64 colours, a1 first) in one ``role``."""
    squares: dict[int, int] = {}
    for square, colour in enumerate(frame):
        if colour:
            squares[colour] = squares.get(colour, 0) | 1 << square
    return Layer(name, priority, (tuple(Light(role, colour, bb) for colour, bb in squares.items()),), until=until)


def flashing(name: str, role: str, squares: int, colour: int, period: float, *, since: float = 0.0,
             until: float | None = None, flash: int = ALARM_FLASH) -> Layer:
    """An alarm: ``squares`` in ``colour`` and in ``flash`` (white) in turn, each for half of
    ``period``, from ``since`` (its own colour first)."""
    return Layer(name, Priority.ALARM, ((Light(role, colour, squares),), (Light(role, flash, squares),)),
                 slot_s=period / 2, since=since, until=until)


def visible(layers: Iterable[Layer], now: float) -> list[Layer]:
    """The layers that show at ``now``, lowest first: those not ended, from the highest one alone up."""
    shown = sorted((layer for layer in layers if not layer.ended(now)), key=lambda layer: (layer.priority, layer.name))
    for i in range(len(shown) - 1, -1, -1):
        if shown[i].alone:
            return shown[i:]
    return shown


def compose(layers: Iterable[Layer], now: float) -> Frame:
    """The 64 colours (a1 first) the board shows at ``now``."""
    leds = [DARK] * 64
    for layer in visible(layers, now):
        if layer.alone:
            leds = [DARK] * 64
        for light in layer.phase(now):
            if light.colour:
                for square in scan_squares(light.squares):
                    leds[square] = light.colour
    return tuple(leds)


def lit_roles(layers: Iterable[Layer], now: float) -> tuple[tuple[str, int], ...]:
    """The roles lit at ``now`` (in any phase of their layer), each with its colour (the first
    met): the lowest layer's first, each layer's in the order of its lights."""
    shown = visible(layers, now)
    covered = 0          # the squares the layers above light, in some phase
    lit: list[set[str]] = []
    for layer in reversed(shown):
        roles: set[str] = set()
        squares = 0
        for phase in layer.phases:
            painted = 0
            for light in reversed(phase):
                if light.colour:
                    if light.squares & ~painted & ~covered:
                        roles.add(light.role)
                    painted |= light.squares
            squares |= painted
        covered |= squares
        lit.append(roles)
    found: dict[str, int] = {}
    for layer, roles in zip(shown, reversed(lit)):
        for phase in layer.phases:
            for light in phase:
                if light.role in roles and light.colour:
                    found.setdefault(light.role, light.colour)
    return tuple(found.items())


def steady(layers: Iterable[Layer]) -> bool:
    """The frame of ``layers`` is the same at any time: none ends, none has phases."""
    return all(layer.until is None and len(layer.phases) == 1 for layer in layers)


def next_change(layers: Iterable[Layer], now: float, *, phases: bool = True) -> float | None:
    """When the frame next changes by itself: a layer's end, or (``phases``) the next phase of a
    layer that shows; None: not before the layers change."""
    layers = list(layers)
    found = [layer.until for layer in layers if layer.until is not None and layer.until > now]
    if phases:
        found += [at for layer in visible(layers, now) if (at := layer.next_phase(now)) is not None]
    return min(found) if found else None
