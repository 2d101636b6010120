"""Words as keys and values, filled in in any language: what the session's state, the answers and the library carry instead of sentences.

A :class:`Message` names a template of the catalogues (its ``kind``: ``prompts`` or ``refusals``)
and the values that fill it. A value is the same in every language (a name, a square, a number)
or says itself in each (a side, a piece, a SAN in the language's letters, how a game ended,
several things joined with "and", another message). ``render(message, lang)`` fills it in from
the catalogue of ``lang``; ``to_json`` is the form the state and the answers carry, which the page
fills in the same way from ``GET /api/words`` (firmware/web/static's words module), and
``from_json`` reads it back. Nothing here chooses what to say: :mod:`firmware.words.texts` does.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import reduce
from typing import Any, Callable, Union

from chess_core.notation import LETTERS

from .catalogue import Catalogue
from .catalogues import CATALOGUES, FALLBACK

__all__ = ["Message", "Side", "SidePlayed", "Piece", "San", "Ended", "VoidStatus", "And", "Lower", "Then",
           "Steps", "English", "Value", "render", "to_json", "message_json", "from_json", "with_texts", "catalogue_json", "replaced", "catalogue_for", "san_in"]


@dataclass(frozen=True)
class Side:
    """White (0) or Black (1) as the status line names them: "White", "les Blancs"... ."""

    side: int


@dataclass(frozen=True)
class SidePlayed:
    """White (0) or Black (1) as the side someone plays: "White", "les Blancs"."""

    side: int


@dataclass(frozen=True)
class Piece:
    """A piece by type (1 pawn .. 6 king): with its article ("the knight", "le cavalier") or bare."""

    piece_type: int
    article: bool = True


@dataclass(frozen=True)
class San:
    """A move in SAN, given in English letters (K Q R B N) and said in the language's."""

    san: str


@dataclass(frozen=True)
class Ended:
    """How a game ended (a ``chess_core.Termination`` value: "checkmate"), as the outcome says it."""

    termination: str


@dataclass(frozen=True)
class VoidStatus:
    """The other end's word for a voided game ("aborted"), said in the language when it has one."""

    status: str


@dataclass(frozen=True)
class And:
    """Several values in a row, the last joined by the language's "and": "a1, c1 and f1"."""

    items: tuple[Value, ...]


@dataclass(frozen=True)
class Lower:
    """A value whose first letter is made small (a sentence that goes on after a colon)."""

    value: Value


@dataclass(frozen=True)
class Then:
    """Steps in order, each joined to the next by the language's "then" template."""

    items: tuple[Value, ...]


@dataclass(frozen=True)
class Steps:
    """Steps to do, the first as it is and the others with a small first letter, joined by commas,
    and how many more there are (``more``, said as "+N more" when not 0)."""

    items: tuple[Value, ...]
    more: int = 0


@dataclass(frozen=True)
class English:
    """A value that is a machine's English (an exception's message from a part without words):
    English quotes it; another language shows ``otherwise`` (what it names, or nothing)."""

    detail: str
    otherwise: str = ""


@dataclass(frozen=True)
class Message:
    """The template ``key`` of the catalogues' ``kind`` ("prompts", "refusals"), filled in by ``values``."""

    key: str
    values: tuple[tuple[str, Value], ...] = ()
    kind: str = "prompts"

    @classmethod
    def of(cls, key: str, /, **values: Value) -> Message:
        return cls(key, tuple(values.items()))

    def text(self, lang: str = FALLBACK) -> str:
        return render(self, lang)


Value = Union[str, int, Message, Side, SidePlayed, Piece, San, Ended, VoidStatus, And, Lower, Then, Steps, English]


def replaced(value: Any, old: str, new: str) -> Any:
    """``value`` (a message's, at any depth) with ``old`` written ``new`` in every text it holds."""
    if isinstance(value, str):
        return value.replace(old, new)
    if isinstance(value, tuple):
        return tuple(replaced(item, old, new) for item in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.replace(value, **{f.name: replaced(getattr(value, f.name), old, new)
                                             for f in dataclasses.fields(value)})
    return value


def catalogue_for(lang: str) -> tuple[str, Catalogue]:
    """The language a text is said in (English for one without a catalogue) and its catalogue."""
    lang = lang if lang in CATALOGUES else FALLBACK
    return lang, CATALOGUES[lang]


def san_in(text: str, lang: str) -> str:
    """A SAN in English letters said in ``lang``'s (castling and squares are the same everywhere)."""
    theirs = LETTERS.get(lang)
    if theirs is None or lang == FALLBACK:
        return text
    english = LETTERS[FALLBACK]
    table: dict[str, str | int | None] = {english[piece]: letter for piece, letter in theirs.items()}
    return text.translate(str.maketrans(table))


def _lower_first(text: str) -> str:
    return f"{text[0].lower()}{text[1:]}" if text else text


def render(value: Value, lang: str = FALLBACK) -> str:
    """``value`` said in ``lang`` (English for a language without a catalogue)."""
    lang, words = catalogue_for(lang)
    return _render(value, lang, words)


def _render(value: Value, lang: str, words: Catalogue) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Message):
        templates = words.refusals if value.kind == "refusals" else words.prompts
        return templates[value.key].format(**{name: _render(v, lang, words) for name, v in value.values})
    if isinstance(value, Side):
        return words.sides[value.side]
    if isinstance(value, SidePlayed):
        return words.sides_played[value.side]
    if isinstance(value, Piece):
        return (words.the_pieces if value.article else words.pieces)[value.piece_type]
    if isinstance(value, San):
        return san_in(value.san, lang)
    if isinstance(value, Ended):
        return next(text for termination, text in words.terminations.items() if termination.value == value.termination)
    if isinstance(value, VoidStatus):
        return words.void_statuses.get(value.status, value.status)
    if isinstance(value, And):
        items = [_render(item, lang, words) for item in value.items]
        return items[0] if len(items) == 1 else words.prompts["and"].format(items=", ".join(items[:-1]), last=items[-1])
    if isinstance(value, Lower):
        return _lower_first(_render(value.value, lang, words))
    if isinstance(value, Then):
        return reduce(lambda first, next_: words.prompts["then"].format(first=first, next=next_),
                      [_render(item, lang, words) for item in value.items])
    if isinstance(value, Steps):
        items = [_render(item, lang, words) for item in value.items]
        text = ", ".join(items[:1] + [_lower_first(item) for item in items[1:]])
        return text + (f" (+{words.prompts['n_more'].format(n=value.more)})" if value.more else "")
    if isinstance(value, English):
        return value.detail if lang == FALLBACK else value.otherwise
    raise TypeError(f"not a message's value: {value!r}")


# -- the JSON form: {"key", "values"} (and "kind" for a refusal); a value that says itself in each
# language is an object of one kind: {"side": 0}, {"piece": 2, "article": true}, {"san": "Nf3"}...

def message_json(message: Message, lang: str | None = None) -> dict[str, Any]:
    """A message as plain JSON (``{"key", "values"}``), with its ``text`` in ``lang`` if given."""
    out: dict[str, Any] = to_json(message, lang)
    return out


def with_texts(data: Any, lang: str) -> Any:
    """A JSON document (the state, an answer) with every message in it (an object with "key" and
    "values") also carrying its ``text`` in ``lang``: for API clients that want sentences."""
    if isinstance(data, list):
        return [with_texts(item, lang) for item in data]
    if not isinstance(data, dict):
        return data
    if "key" in data and "values" in data:
        return {**data, "text": render(from_json(data), lang)}
    return {name: with_texts(value, lang) for name, value in data.items()}


def to_json(value: Value, lang: str | None = None) -> Any:
    """``value`` as plain JSON; ``lang``: a message also carries its ``text`` in that language."""
    if isinstance(value, (str, int)):
        return value
    if isinstance(value, Message):
        out: dict[str, Any] = {"key": value.key, "values": {name: to_json(v) for name, v in value.values}}
        if value.kind != "prompts":
            out["kind"] = value.kind
        if lang is not None:
            out["text"] = render(value, lang)
        return out
    if isinstance(value, Side):
        return {"side": value.side}
    if isinstance(value, SidePlayed):
        return {"side_played": value.side}
    if isinstance(value, Piece):
        return {"piece": value.piece_type, "article": value.article}
    if isinstance(value, San):
        return {"san": value.san}
    if isinstance(value, Ended):
        return {"ended": value.termination}
    if isinstance(value, VoidStatus):
        return {"void": value.status}
    if isinstance(value, And):
        return {"and": [to_json(item) for item in value.items]}
    if isinstance(value, Lower):
        return {"lower": to_json(value.value)}
    if isinstance(value, Then):
        return {"then": [to_json(item) for item in value.items]}
    if isinstance(value, Steps):
        return {"steps": [to_json(item) for item in value.items], "more": value.more}
    if isinstance(value, English):
        return {"english": value.detail, "otherwise": value.otherwise}
    raise TypeError(f"not a message's value: {value!r}")


def from_json(data: Any) -> Value:
    """A value from its JSON form (``to_json``); ValueError for anything else."""
    if isinstance(data, bool):
        raise ValueError("a message's value is not a boolean")
    if isinstance(data, (str, int)):
        return data
    if not isinstance(data, dict):
        raise ValueError(f"not a message's value: {data!r}")
    if "key" in data:
        values = data.get("values", {})
        if not isinstance(values, dict):
            raise ValueError("a message's values are an object")
        return Message(str(data["key"]), tuple((str(k), from_json(v)) for k, v in values.items()),
                       str(data.get("kind", "prompts")))
    kinds: dict[str, Callable[[dict[str, Any]], Value]] = {"side": lambda d: Side(int(d["side"])), "side_played": lambda d: SidePlayed(int(d["side_played"])),
             "piece": lambda d: Piece(int(d["piece"]), bool(d.get("article", True))),
             "san": lambda d: San(str(d["san"])), "ended": lambda d: Ended(str(d["ended"])),
             "void": lambda d: VoidStatus(str(d["void"])),
             "and": lambda d: And(tuple(from_json(i) for i in d["and"])), "lower": lambda d: Lower(from_json(d["lower"])),
             "then": lambda d: Then(tuple(from_json(i) for i in d["then"])),
             "steps": lambda d: Steps(tuple(from_json(i) for i in d["steps"]), int(d.get("more", 0))),
             "english": lambda d: English(str(d["english"]), str(d.get("otherwise", "")))}
    for name, make in kinds.items():
        if name in data:
            made: Value = make(data)
            return made
    raise ValueError(f"not a message's value: {data!r}")


def catalogue_json(lang: str) -> dict[str, Any]:
    """What the page needs to say a message in ``lang`` (``GET /api/words``): the templates, the
    sides, the pieces, the endings, the other ends' words, and the SAN letters (K Q R B N in order)."""
    lang, words = catalogue_for(lang)
    letters = LETTERS.get(lang, LETTERS[FALLBACK])
    english = LETTERS[FALLBACK]
    return {"prompts": words.prompts, "refusals": words.refusals, "sides": list(words.sides),
            "sides_played": list(words.sides_played), "pieces": {str(k): v for k, v in words.pieces.items()},
            "the_pieces": {str(k): v for k, v in words.the_pieces.items()},
            "terminations": {t.value: text for t, text in words.terminations.items()},
            "void_statuses": words.void_statuses,
            "letters": {english[piece]: letter for piece, letter in letters.items()}}
