"""Wiring checks for makers: a matrix monitor (grid, scan rate, flicker), a button monitor and LED test patterns. Pure."""
from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from .buttons import ButtonEvent, ButtonPress, ButtonStuck
from .reading import Reading

if TYPE_CHECKING:
    from .link import SerialLink

FILES = "abcdefgh"
FLICKER_WINDOW = 2.0
"""Seconds over which a square's changes are counted."""
FLICKER_CHANGES = 4
"""A square that changes this often within the window is flickering (bounce, a loose wire)."""


def square_name(square: int) -> str:
    """``square_name(0) == "a1"``, ``square_name(63) == "h8"``."""
    return f"{FILES[square % 8]}{square // 8 + 1}"


def squares_of(bitboard: int) -> list[int]:
    result = []
    while bitboard:
        low = bitboard & -bitboard
        result.append(low.bit_length() - 1)
        bitboard ^= low
    return result


def render_grid(occupied: int, marks: Iterable[int] = (), *, piece: str = "#", empty: str = ".", mark: str = "!") -> str:
    """An 8x8 text grid, rank 8 on top, file a on the left; ``marks`` squares show ``mark``."""
    marks = set(marks)
    lines = []
    for rank in range(7, -1, -1):
        cells = []
        for file in range(8):
            square = file + 8 * rank
            cells.append(mark if square in marks else piece if occupied >> square & 1 else empty)
        lines.append(f"{rank + 1} " + " ".join(cells))
    lines.append("  " + " ".join(FILES))
    return "\n".join(lines)


class MatrixMonitor:
    """Follows raw readings: per-square change counts, flickering squares and the scan rate.

    Feed it every delivered reading with ``update()`` and the source's scan counter with
    ``count_scans()``; times are the readings' own (injected in tests).
    """

    def __init__(self, window: float = FLICKER_WINDOW, threshold: int = FLICKER_CHANGES):
        self.window = window
        self.threshold = threshold
        self.occupied = 0
        self.readings = 0
        self.changes = [0] * 64
        """Total changes of each square since the start."""
        self._recent: list[deque[float]] = [deque() for _ in range(64)]
        self._scans: deque[tuple[float, int]] = deque()
        self._previous: int | None = None

    def update(self, reading: Reading) -> None:
        self.readings += 1
        if self._previous is not None:
            for square in squares_of(self._previous ^ reading.occupied):
                self.changes[square] += 1
                self._recent[square].append(reading.time)
        self._previous = self.occupied = reading.occupied

    def flickering(self, now: float) -> dict[int, int]:
        """``{square: changes within the window}`` for squares at or over the threshold."""
        result = {}
        for square, times in enumerate(self._recent):
            while times and times[0] < now - self.window:
                times.popleft()
            if len(times) >= self.threshold:
                result[square] = len(times)
        return result

    def count_scans(self, now: float, scan_count: int) -> None:
        self._scans.append((now, scan_count))
        while len(self._scans) > 2 and self._scans[1][0] <= now - self.window:
            self._scans.popleft()

    @property
    def scan_rate(self) -> float | None:
        """Scans per second over the window, or None before two samples."""
        if len(self._scans) < 2:
            return None
        (t0, n0), (t1, n1) = self._scans[0], self._scans[-1]
        return (n1 - n0) / (t1 - t0) if t1 > t0 else None

    def render(self, now: float, *, title: str = "", device_rate: int | None = None) -> str:
        """The screen; ``device_rate``: the co-processor's own scans/s (its READING frames are
        sent only on changes and every 250 ms, so counting them says nothing of its scanning)."""
        flicker = self.flickering(now)
        rate = self.scan_rate
        lines = [title] if title else []
        lines.append(render_grid(self.occupied, flicker))
        lines.append(f"occupied {bin(self.occupied).count('1'):2d} squares   {self.occupied:016x}")
        if device_rate is not None:
            lines.append(f"scan rate {device_rate:,} scans/s (the co-processor's count; "
                         f"{rate:,.0f} readings/s reach the Pi)" if rate is not None else
                         f"scan rate {device_rate:,} scans/s (the co-processor's count)")
        else:
            lines.append("scan rate " + (f"{rate:,.0f} scans/s" if rate is not None else "-"))
        if flicker:
            names = ", ".join(f"{square_name(s)} x{n}" for s, n in sorted(flicker.items()))
            lines.append(f"flickering {len(flicker)} squares (! above): {names}")
        else:
            lines.append("flickering 0 squares")
        total = sum(self.changes)
        lines.append(f"changes seen {total}")
        return "\n".join(lines)


class ButtonMonitor:
    """Follows the pin map's buttons for the live view: each one's level now, its presses counted
    (board_driver.buttons: held 30 ms counts once), and whether it is held stuck."""

    def __init__(self, pins: Mapping[str, int]) -> None:
        self.pins = dict(pins)
        self.presses = {name: 0 for name in self.pins}
        self.levels: dict[str, bool] = {}
        self.stuck: set[str] = set()

    def update(self, event: ButtonEvent) -> None:
        if isinstance(event, ButtonPress):
            self.presses[event.name] += 1
        elif isinstance(event, ButtonStuck):
            self.stuck.add(event.name)

    def sample(self, levels: Mapping[str, bool]) -> None:
        """The buttons' levels now (name -> pressed): a stuck one released is stuck no more."""
        self.levels = dict(levels)
        self.stuck = {name for name in self.stuck if self.levels.get(name)}

    def render(self) -> str:
        width = max(len(name) for name in self.pins)
        lines = ["buttons (press each; a press counts when held 30 ms)"]
        for name, pin in self.pins.items():
            level = self.levels.get(name)
            state = ("STUCK: held over 10 s, stuck or shorted to ground" if name in self.stuck
                     else "-" if level is None else "pressed" if level else "released")
            count = self.presses[name]
            lines.append(f"  {name:<{width}}  GPIO {pin:<2}  {count} press{'es' if count != 1 else ''}  {state}")
        return "\n".join(lines)


# -- LED test patterns: step -> 64 colours -----------------------------------------------------
RED, GREEN, BLUE, WHITE = 0xFF0000, 0x00FF00, 0x0000FF, 0xFFFFFF
PATTERNS = ("follow", "walk", "colours", "brightness", "off")


def walk_frame(step: int, colour: int = WHITE) -> list[int]:
    """Each square in turn: a1, b1, ... h8 (square ``step % 64`` lit)."""
    frame = [0] * 64
    frame[step % 64] = colour
    return frame


def colours_frame(step: int) -> list[int]:
    """The whole board red, green, blue, then white."""
    return [(RED, GREEN, BLUE, WHITE)[step % 4]] * 64


def brightness_frame(step: int, levels: int = 8) -> list[int]:
    """The whole board white, from dim to full in ``levels`` steps."""
    level = (step % levels + 1) * 255 // levels
    return [level * 0x010101] * 64


def follow_frame(occupied: int, colour: int = GREEN) -> list[int]:
    """The squares that read occupied lit: a piece put down lights the LED under it."""
    return [colour if occupied >> s & 1 else 0 for s in range(64)]


def pattern_frame(name: str, step: int, occupied: int = 0) -> list[int]:
    """The frame of test pattern ``name`` (one of PATTERNS) at ``step``."""
    if name == "follow":
        return follow_frame(occupied)
    if name == "walk":
        return walk_frame(step)
    if name == "colours":
        return colours_frame(step)
    if name == "brightness":
        return brightness_frame(step)
    if name == "off":
        return [0] * 64
    raise ValueError(f"unknown pattern {name!r} (known: {', '.join(PATTERNS)})")


def describe_pattern(name: str, step: int) -> str:
    """What the pattern shows at ``step``, for the screen."""
    if name == "walk":
        return f"walk: {square_name(step % 64)} lit"
    if name == "colours":
        return "colours: " + ("red", "green", "blue", "white")[step % 4]
    if name == "brightness":
        return f"brightness: {(step % 8 + 1) * 255 // 8}/255"
    if name == "follow":
        return "follow: occupied squares lit green"
    return name


def render_link(link: SerialLink) -> str:
    """The co-processor link in one block: firmware, port state, errors (a SerialLink's attributes)."""
    version = link.device_version
    firmware = f"{version[2]} (protocol {version[0]}, {version[1]} LEDs)" if version else "not heard yet"
    stats, decoder = link.stats, link.decoder.stats
    state = link.state.value + (f" ({link.last_error})" if getattr(link, "last_error", None) else "")
    return "\n".join([
        f"link {link.port_name}: {state}",
        f"firmware {firmware}",
        f"frames {decoder.frames:,} good, {decoder.bad_crc} CRC errors, {decoder.bad_header} bad headers, "
        f"{stats.missed_frames} dropped; reconnects {max(0, stats.connects - 1)}, silences {stats.silences}",
    ])
