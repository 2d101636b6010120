"""Checking request bodies: each field's type and range, and a message naming the field when wrong.

A handler describes its body as a dict of :class:`Field` and gets back a dict of checked values,
or a :class:`BadRequest` whose message the server answers with a 400 (never a stack trace).

>>> spec = {"square": Square(), "piece": Choice("q", "r", "b", "n", default="q")}
>>> check_body({"square": "e4"}, spec)
{'square': 28, 'piece': 'q'}
>>> check_body({"square": "z9"}, spec)
Traceback (most recent call last):
...
firmware.web.validate.BadRequest: square: expected a square such as "e2", got 'z9'
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from chess_core import SQUARE_NAMES, FenError, Position
from chess_core.timecontrol import TimeControl, TimeControlError

from firmware.config import printable_text

_MISSING = object()


class BadRequest(ValueError):
    """A request body that cannot be used; the message says which field and why."""


@dataclass(frozen=True)
class Field:
    """A required field unless ``default`` is given (``optional=True``: absent means None)."""

    default: Any = _MISSING
    optional: bool = False

    def check(self, value: Any) -> Any:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True)
class Text(Field):
    max_length: int = 100
    min_length: int = 0
    strip: bool = True

    def check(self, value: Any) -> str:
        if not isinstance(value, str):
            raise ValueError(f"expected text, got {_show(value)}")
        if len(value) > 4 * self.max_length + 16:   # before any work on a huge text
            raise ValueError(f"expected {self.min_length} to {self.max_length} characters, got {len(value)}")
        if self.strip:
            value = value.strip()
        return printable_text(value, self.min_length, self.max_length)


@dataclass(frozen=True)
class Secret(Field):
    """A secret (an API token): one word of printable characters. No message ever shows the value,
    not even a part of it, so that a mistyped token is not echoed to the page or the journal."""

    max_length: int = 200
    min_length: int = 1

    def check(self, value: Any) -> str:
        if not isinstance(value, str):
            raise ValueError("expected text")
        value = value.strip()
        if not value:
            raise ValueError("required (it is empty)")
        if any(ch.isspace() or not ch.isprintable() for ch in value):
            raise ValueError("expected one word without spaces or control characters")
        if not self.min_length <= len(value) <= self.max_length:
            raise ValueError(f"expected {self.min_length} to {self.max_length} characters")
        return value


@dataclass(frozen=True)
class TimeControlText(Text):
    """A time control in the PGN ``TimeControl`` spelling (``300+3``, ``-``...), checked by chess_core."""

    max_length: int = 60

    def check(self, value: Any) -> str:
        value = super().check(value)
        if not value.strip():   # an empty custom field is a mistake, not "no clock" (that is "-")
            raise ValueError('enter a time control (e.g. "300+3"), or choose "no clock"')
        try:
            TimeControl.parse(value)
        except TimeControlError as exc:
            raise ValueError(f"not a time control ({exc})") from None
        return value


@dataclass(frozen=True)
class Fen(Text):
    """A position in FEN, checked by chess_core (a legal position: one king each, side not to
    move not in check...)."""

    max_length: int = 100

    def check(self, value: Any) -> str:
        value = " ".join(super().check(value).split())
        try:
            Position(value)
        except (FenError, ValueError) as exc:
            try:
                Position(value, chess960=True)   # a Chess960 position: the variant chosen decides
            except (FenError, ValueError):   # neither reads it: no guess at what would
                raise ValueError(f"not a usable FEN ({getattr(exc, 'reason', exc)})") from None
        return value


@dataclass(frozen=True)
class Choice(Field):
    choices: tuple[str, ...] = ()

    def __init__(self, *choices: str, default: Any = _MISSING, optional: bool = False) -> None:
        object.__setattr__(self, "choices", choices)
        object.__setattr__(self, "default", default)
        object.__setattr__(self, "optional", optional)

    def check(self, value: Any) -> str:
        if value not in self.choices or not isinstance(value, str):
            raise ValueError(f"expected one of {', '.join(map(repr, self.choices))}, got {_show(value)}")
        return value


@dataclass(frozen=True)
class Boolean(Field):
    def check(self, value: Any) -> bool:
        if not isinstance(value, bool):
            raise ValueError(f"expected true or false, got {_show(value)}")
        return value


@dataclass(frozen=True)
class Number(Field):
    low: float = float("-inf")
    high: float = float("inf")
    integer: bool = False

    def check(self, value: Any) -> float | int:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
            raise ValueError(f"expected a number, got {_show(value)}")
        if self.integer and not (isinstance(value, int) or float(value).is_integer()):
            raise ValueError(f"expected a whole number, got {_show(value)}")
        if not self.low <= value <= self.high:
            raise ValueError(f"expected a number from {self.low:g} to {self.high:g}, got {_show(value)}")
        return int(value) if self.integer else float(value)


@dataclass(frozen=True)
class Square(Field):
    """A square name ("e2"), returned as its int (a1 = 0 ... h8 = 63)."""

    def check(self, value: Any) -> int:
        if not isinstance(value, str) or value not in SQUARE_NAMES:
            raise ValueError(f'expected a square such as "e2", got {_show(value)}')
        return SQUARE_NAMES.index(value)


@dataclass(frozen=True)
class Squares(Field):
    """A list of square names, at most ``max_items``."""

    max_items: int = 64

    def check(self, value: Any) -> list[int]:
        if not isinstance(value, list):
            raise ValueError(f"expected a list of squares, got {_show(value)}")
        if len(value) > self.max_items:
            raise ValueError(f"expected at most {self.max_items} squares, got {len(value)}")
        return [Square().check(item) for item in value]


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


Spec = dict[str, Field]   # a request body's fields by name


def check_body(body: Any, spec: Spec) -> dict[str, Any]:
    """The checked values of ``body`` (a parsed JSON object) against ``spec``."""
    if not isinstance(body, dict):
        raise BadRequest(f"expected a JSON object, got {_show(body)}")
    unknown = sorted(set(body) - set(spec))
    if unknown:
        known = ", ".join(sorted(spec)) or "none"
        raise BadRequest(f"unknown field {unknown[0]!r} (known fields: {known})")
    values: dict[str, Any] = {}
    for name, field in spec.items():
        if name not in body or (body[name] is None and field.optional):
            if field.default is not _MISSING:
                values[name] = field.default
            elif field.optional:
                values[name] = None
            else:
                raise BadRequest(f"{name}: required")
            continue
        try:
            values[name] = field.check(body[name])
        except ValueError as exc:
            raise BadRequest(f"{name}: {exc}") from None
    return values


__all__ = ["BadRequest", "Field", "Text", "printable_text", "Secret", "TimeControlText", "Fen", "Choice", "Boolean", "Number", "Square",
           "Squares", "Spec", "check_body"]
