"""Checking request bodies: each field's type and range, and a message naming the field when wrong.

A handler describes its body as a dict of :class:`Field` and gets back a dict of checked values,
or a :class:`BadRequest` that the server answers with a 400 (never a stack trace): a refusal of
firmware/words, so in English ("error") and as a message for any language ("message"); a field's check raises one too,
which ``check_body`` puts after the field's name.

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
from firmware.words import Refusal, in_english

_MISSING = object()


class BadRequest(Refusal, ValueError):
    """A request body that cannot be used (a 400): ``BadRequest(key, **values)``, a refusal of
    firmware/words that says which field and why in each language; ``str()`` is the English."""


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
            raise BadRequest("expected_text", got=_show(value))
        if len(value) > 4 * self.max_length + 16:   # before any work on a huge text
            raise BadRequest("text_length", low=self.min_length, high=self.max_length, count=len(value))
        if self.strip:
            value = value.strip()
        try:
            return printable_text(value, self.min_length, self.max_length)
        except ValueError:
            raise _unprintable(value, self.min_length, self.max_length) from None


@dataclass(frozen=True)
class Secret(Field):
    """A secret (an API token): one word of printable characters. No message ever shows the value,
    not even a part of it, so that a mistyped token is not echoed to the page or the journal."""

    max_length: int = 200
    min_length: int = 1

    def check(self, value: Any) -> str:
        if not isinstance(value, str):
            raise BadRequest("secret_not_text")
        value = value.strip()
        if not value:
            raise BadRequest("secret_empty")
        if any(ch.isspace() or not ch.isprintable() for ch in value):
            raise BadRequest("secret_not_a_word")
        if not self.min_length <= len(value) <= self.max_length:
            raise BadRequest("secret_length", low=self.min_length, high=self.max_length)
        return value


@dataclass(frozen=True)
class TimeControlText(Text):
    """A time control in the PGN ``TimeControl`` spelling (``300+3``, ``-``...), checked by chess_core."""

    max_length: int = 60

    def check(self, value: Any) -> str:
        value = super().check(value)
        if not value.strip():   # an empty custom field is a mistake, not "no clock" (that is "-")
            raise BadRequest("time_control_needed")
        try:
            TimeControl.parse(value)
        except TimeControlError as exc:   # (the parser's English: the French says how to write one)
            raise BadRequest("not_a_time_control", detail=in_english(str(exc))) from None
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
                raise BadRequest("not_a_fen", detail=in_english(str(getattr(exc, "reason", exc)))) from None
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
            raise BadRequest("expected_choice", choices=", ".join(map(repr, self.choices)), got=_show(value))
        return value


@dataclass(frozen=True)
class Boolean(Field):
    def check(self, value: Any) -> bool:
        if not isinstance(value, bool):
            raise BadRequest("expected_boolean", got=_show(value))
        return value


@dataclass(frozen=True)
class Number(Field):
    low: float = float("-inf")
    high: float = float("inf")
    integer: bool = False

    def check(self, value: Any) -> float | int:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
            raise BadRequest("expected_number", got=_show(value))
        if self.integer and not (isinstance(value, int) or float(value).is_integer()):
            raise BadRequest("expected_whole_number", got=_show(value))
        if not self.low <= value <= self.high:
            raise BadRequest("number_range", low=f"{self.low:g}", high=f"{self.high:g}", got=_show(value))
        return int(value) if self.integer else float(value)


@dataclass(frozen=True)
class Square(Field):
    """A square name ("e2"), returned as its int (a1 = 0 ... h8 = 63)."""

    def check(self, value: Any) -> int:
        if not isinstance(value, str) or value not in SQUARE_NAMES:
            raise BadRequest("expected_square", got=_show(value))
        return SQUARE_NAMES.index(value)


@dataclass(frozen=True)
class Squares(Field):
    """A list of square names, at most ``max_items``."""

    max_items: int = 64

    def check(self, value: Any) -> list[int]:
        if not isinstance(value, list):
            raise BadRequest("expected_squares", got=_show(value))
        if len(value) > self.max_items:
            raise BadRequest("too_many_squares", most=self.max_items, count=len(value))
        return [Square().check(item) for item in value]


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _unprintable(value: str, low: int, high: int) -> BadRequest:
    """What firmware.config.printable_text found wrong with ``value``, in a player's words."""
    for index, ch in enumerate(value, start=1):
        if "\ud800" <= ch <= "\udfff":
            return BadRequest("lone_surrogate", index=index)
        if ord(ch) < 32 or ord(ch) == 127:
            return BadRequest("control_character")
        if not ch.isprintable() and ch != " ":
            return BadRequest("unshowable_character", index=index, code=f"U+{ord(ch):04X}")
    return BadRequest("text_length", low=low, high=high, count=len(value))


Spec = dict[str, Field]   # a request body's fields by name


def one_of(values: dict[str, Any], *names: str) -> str:
    """The one field of ``names`` given in the checked ``values`` (each optional in its spec): a
    body names one of them, never none nor two.

    >>> one_of({"square": 12, "box": None}, "square", "box")
    'square'
    >>> one_of({"square": 12, "box": "N"}, "square", "box")
    Traceback (most recent call last):
    ...
    firmware.web.validate.BadRequest: give one of square, box, not 2
    """
    given = [name for name in names if values.get(name) is not None]
    if len(given) != 1:
        fields = ", ".join(names)
        raise BadRequest("one_field_needed", fields=fields) if not given else BadRequest(
            "one_field_only", fields=fields, count=len(given))
    return given[0]


def check_body(body: Any, spec: Spec) -> dict[str, Any]:
    """The checked values of ``body`` (a parsed JSON object) against ``spec``."""
    if not isinstance(body, dict):
        raise BadRequest("not_an_object", got=_show(body))
    unknown = sorted(set(body) - set(spec))
    if unknown:
        if not spec:
            raise BadRequest("unknown_field_none", field=repr(unknown[0]))
        raise BadRequest("unknown_field", field=repr(unknown[0]), known=", ".join(sorted(spec)))
    values: dict[str, Any] = {}
    for name, field in spec.items():
        if name not in body or (body[name] is None and field.optional):
            if field.default is not _MISSING:
                values[name] = field.default
            elif field.optional:
                values[name] = None
            else:
                raise BadRequest("field_required", field=name)
            continue
        try:
            values[name] = field.check(body[name])
        except BadRequest as exc:
            raise BadRequest("bad_field", field=name, problem=exc.message) from None
        except ValueError as exc:   # (a field without words: its English only)
            raise BadRequest("bad_field", field=name, problem=in_english(str(exc))) from None
    return values


__all__ = ["BadRequest", "Field", "Text", "printable_text", "Secret", "TimeControlText", "Fen", "Choice", "Boolean", "Number", "Square",
           "Squares", "Spec", "check_body", "one_of"]
