"""Capture files (format v1): parse them into events and write readings into them.

Format (docs/design.md, "Capture format v1")::

    # comment
    <t_ms> <hex16>             a raw occupancy reading
    <t_ms> <hex16> <hex16>     a colour-sensing reading: white squares, black squares
    <t_ms> promote <q|r|b|n>   the player picks the piece for the next promotion

``t_ms`` is a non-negative integer of milliseconds since the capture began (at most
``MAX_T_DIGITS`` digits: 31 years), never smaller than the previous line's; ``hex16`` is exactly 16 hex digits (either case), bit ``s`` = square
``s``. Blank lines are ignored, and so is anything after a ``#`` (a whole-line comment or a
note after the fields). In :class:`Reading` events times are seconds (``t_ms / 1000``).
"""
from __future__ import annotations

import re
from pathlib import Path
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Protocol, TextIO, runtime_checkable

from .reading import Reading

PROMOTION_PIECES = ("q", "r", "b", "n")
_HEX16 = re.compile(r"[0-9a-fA-F]{16}\Z")
_INT = re.compile(r"[0-9]+\Z")
MAX_T_DIGITS = 12          # 10**12 ms: 31 years; more is not a time but a damaged or hostile line
MAX_LINE = 4096            # characters of one line read; a longer line is an error, not a memory hog


class CaptureError(ValueError):
    """A malformed capture line; ``line`` is its 1-based number."""

    def __init__(self, line: int, message: str):
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.reason = message


@dataclass(frozen=True, slots=True)
class PromoteChoice:
    """The player picked ``piece`` (q, r, b or n) for the next promotion."""

    time: float
    piece: str


CaptureEvent = Reading | PromoteChoice


@runtime_checkable
class LineReader(Protocol):
    """What read_lines needs of an open text file (isinstance checks that it has ``readline``)."""

    def readline(self, size: int = -1, /) -> str: ...


def _lines(source: str | Iterable[str]) -> Iterable[str]:
    if isinstance(source, str):
        return source.splitlines()
    if isinstance(source, LineReader):
        return read_lines(source)   # an open file: bounded lines
    return source


def read_lines(file: LineReader) -> Iterator[str]:
    """The lines of an open capture, each read with a bounded buffer: a line longer than
    ``MAX_LINE`` is yielded cut (and then refused with its number), never read whole."""
    while True:
        line = file.readline(MAX_LINE + 1)
        if not line:
            return
        if len(line) > MAX_LINE and not line.endswith("\n"):
            while True:   # skip the rest of the long line
                rest = file.readline(MAX_LINE)
                if not rest or rest.endswith("\n"):
                    break
        yield line


def stream_capture(path: str | Path) -> Iterator[CaptureEvent]:
    """The events of a capture file, read as they are needed (the file is never held whole);
    a malformed line raises CaptureError when it is reached."""
    with open(path, encoding="utf-8", errors="strict") as file:
        previous = number = 0
        lines = read_lines(file)
        while True:
            try:
                text = next(lines)
            except StopIteration:
                return
            except UnicodeDecodeError as exc:
                raise CaptureError(number + 1, f"not UTF-8 text ({exc.reason})") from None
            number += 1
            parsed = _parse_line(number, text, previous)
            if parsed is not None:
                previous, event = parsed
                yield event


def _short(field: str) -> str:
    text = repr(field)
    return text if len(text) <= 40 else text[:37] + "..."


def _hex16(number: int, field: str, what: str) -> int:
    if not _HEX16.match(field):
        raise CaptureError(number, f"{what} must be 16 hex digits, got {_short(field)}")
    return int(field, 16)


def _parse_line(number: int, text: str, previous_ms: int) -> tuple[int, CaptureEvent] | None:
    if len(text) > MAX_LINE:
        raise CaptureError(number, f"a line of {len(text)} characters: at most {MAX_LINE}")
    text = text.split("#", 1)[0].strip()
    if not text:
        return None
    fields = text.split()
    if not _INT.match(fields[0]):
        raise CaptureError(number, f"the time must be a whole number of milliseconds, got {_short(fields[0])}")
    if len(fields[0].lstrip("0")) > MAX_T_DIGITS:
        raise CaptureError(number, f"the time has {len(fields[0].lstrip('0'))} digits: at most {MAX_T_DIGITS} "
                                   f"(milliseconds since the capture began)")
    t_ms = int(fields[0])
    if t_ms < previous_ms:
        raise CaptureError(number, f"time {t_ms} ms goes back before the previous line's {previous_ms} ms")
    if len(fields) == 1:
        raise CaptureError(number, "a time alone: expected a reading ('<t_ms> <hex16>') or 'promote'")
    if fields[1].lower() == "promote":
        if len(fields) != 3:
            raise CaptureError(number, "expected '<t_ms> promote <q|r|b|n>'")
        piece = fields[2].lower()
        if piece not in PROMOTION_PIECES:
            raise CaptureError(number, f"promotion piece must be q, r, b or n, got {_short(fields[2])}")
        return t_ms, PromoteChoice(t_ms / 1000, piece)
    if len(fields) == 2:
        return t_ms, Reading(t_ms / 1000, _hex16(number, fields[1], "the occupancy"))
    if len(fields) == 3:
        white = _hex16(number, fields[1], "the white squares")
        black = _hex16(number, fields[2], "the black squares")
        if white & black:
            raise CaptureError(number, f"squares read both white and black (mask {white & black:016x})")
        return t_ms, Reading(t_ms / 1000, white | black, white, black)
    raise CaptureError(number, f"expected 2 or 3 fields after the time, got {len(fields) - 1}")


def iter_capture(source: str | Iterable[str], errors: list[CaptureError]) -> Iterator[CaptureEvent]:
    """Yield the events of a capture; malformed lines go to ``errors`` and are skipped."""
    previous = 0
    for number, text in enumerate(_lines(source), start=1):
        try:
            parsed = _parse_line(number, text, previous)
        except CaptureError as exc:
            errors.append(exc)
            continue
        if parsed is not None:
            previous, event = parsed
            yield event


def parse_capture(source: str | Iterable[str]) -> list[CaptureEvent]:
    """All events of a capture (text or lines); the first malformed line raises CaptureError."""
    events: list[CaptureEvent] = []
    previous = 0
    for number, text in enumerate(_lines(source), start=1):
        parsed = _parse_line(number, text, previous)
        if parsed is not None:
            previous, event = parsed
            events.append(event)
    return events


class CaptureWriter:
    """Writes readings (and promotion choices) to a capture file, times relative to the first.

    With ``only_changes`` (the default) a reading that shows the same squares as the previous
    one is not written, as the format expects. The writer is a sink: ``source.start(writer)``.
    """

    def __init__(self, file: TextIO | IO[str], *, header: str | None = "echiquier capture v1",
                 only_changes: bool = True, flush: bool = True):
        self.file = file
        self.only_changes = only_changes
        self.flush = flush
        self._t0: float | None = None
        self._last_ms = 0
        self._last: Reading | None = None
        if header:
            for line in header.splitlines():
                file.write(f"# {line}\n")

    def _t_ms(self, time: float) -> int:
        if self._t0 is None:
            self._t0 = time
        t_ms = max(self._last_ms, round((time - self._t0) * 1000))
        self._last_ms = t_ms
        return t_ms

    def _write(self, line: str) -> None:
        self.file.write(line + "\n")
        if self.flush:
            self.file.flush()

    def write(self, reading: Reading) -> None:
        if self.only_changes and reading.same_squares(self._last):
            return
        self._last = reading
        t_ms = self._t_ms(reading.time)
        if reading.white is not None and reading.black is not None:
            self._write(f"{t_ms} {reading.white:016x} {reading.black:016x}")
        else:
            self._write(f"{t_ms} {reading.occupied:016x}")

    __call__ = write

    def write_promote(self, time: float, piece: str) -> None:
        if piece not in PROMOTION_PIECES:
            raise ValueError(f"promotion piece must be one of {PROMOTION_PIECES}, not {piece!r}")
        self._write(f"{self._t_ms(time)} promote {piece}")

    def comment(self, text: str) -> None:
        for line in text.splitlines() or [""]:
            self._write(f"# {line}")
