"""The words of PGN both directions share: tag names and results, termination words, clock text, escaping.

See :mod:`chess_core.pgn` for the format choices.
"""
from __future__ import annotations

import re
from fractions import Fraction

from .clock import format_pgn_clk
from .outcome import DRAWS, Outcome, Termination
from .squares import BLACK, WHITE

SEVEN_TAG_ROSTER = ("Event", "Site", "Date", "Round", "White", "Black", "Result")
ROSTER_DEFAULTS = {"Event": "?", "Site": "?", "Date": "????.??.??", "Round": "?",
                   "White": "?", "Black": "?"}
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")

# The words of the PGN standard (8.2.2.2) for the Termination tag.
PGN_TERMINATIONS = ("abandoned", "adjudication", "death", "emergency", "normal", "rules infraction",
                    "time forfeit", "unterminated")
_TAG_WORD = {
    Termination.TIME_FORFEIT: "time forfeit",
    Termination.TIME_VS_INSUFFICIENT: "time forfeit",
    Termination.ABANDONED: "abandoned",
}

TAG_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_+#=:-]*")
# python-chess's spelling: any number of digits, any decimals; we round to the millisecond.
CLK_RE = re.compile(r"\[%clk\s+(\d+):(\d+):(\d+(?:\.\d*)?)\s*\]")
NAG_SUFFIXES = {"!": 1, "?": 2, "!!": 3, "??": 4, "!?": 5, "?!": 6}


def termination_word(outcome: Outcome | None) -> str:
    """The PGN-standard Termination tag for an outcome: 'normal', 'time forfeit', 'abandoned'...

    >>> termination_word(Outcome(Termination.CHECKMATE, WHITE)), termination_word(None)
    ('normal', 'unterminated')
    """
    if outcome is None:
        return "unterminated"
    return _TAG_WORD.get(outcome.termination, "normal")


def reason_text(outcome: Outcome) -> str:
    """The sentence written after the last move: 'White wins by checkmate.'"""
    return outcome.describe() + "."


_REASON_RE = re.compile(r"(?:(White|Black) wins (?:by (?P<how>[a-z -]+)|(?P<time>on time))"
                        r"|Draw by (?P<draw>[a-z -]+))\.")
_TERMINATION_VALUES = {t.value: t for t in Termination}


def parse_reason(text: str) -> Outcome | None:
    """The outcome that a reason sentence of ours names, or None when it is not one.

    Our spelling only (capital, full stop): "white wins by checkmate" is someone else's.

    >>> parse_reason("Black wins on time.")
    Outcome(termination=<Termination.TIME_FORFEIT: 'time forfeit'>, winner=1)
    """
    m = _REASON_RE.fullmatch(" ".join(text.split()))
    if not m:
        return None
    if m.group("draw"):
        term = _TERMINATION_VALUES.get(m.group("draw").lower())
        return Outcome(term) if term in DRAWS or term == Termination.ABANDONED else None
    winner = WHITE if m.group(1).lower() == "white" else BLACK
    if m.group("time"):
        return Outcome(Termination.TIME_FORFEIT, winner)
    term = _TERMINATION_VALUES.get(m.group("how").lower())
    if term is None or term in DRAWS or term == Termination.TIME_FORFEIT:
        return None
    return Outcome(term, winner)


def clk_text(ms: int) -> str:
    """The time of a ``[%clk]`` command: ``chess_core.clock.format_pgn_clk`` (tenths, cut)."""
    return format_pgn_clk(ms)


def parse_clk(hours: str, minutes: str, seconds: str) -> int:
    """Milliseconds from the three fields of a ``[%clk H:MM:SS.s]``, rounded to the ms."""
    total = (int(hours) * 60 + int(minutes)) * 60 + Fraction(seconds.rstrip(".") or "0")
    return round(total * 1000)


def escape_tag_value(value: str) -> str:
    """A tag value as PGN writes it: one line, with backslash and quote escaped."""
    value = re.sub(r"\r\n|\r|\n", " ", str(value))
    return value.replace("\\", "\\\\").replace('"', '\\"')


def unescape_tag_value(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)
