"""Engine playing strength: Skill Level, a limited Elo, a move time or depth; presets and their spelling."""
from __future__ import annotations

import logging
import re
from dataclasses import dataclass, replace
from typing import Any, Mapping

from firmware.opponents.base import ClockTimes
from uci.engine import EngineOption, SearchLimit

log = logging.getLogger(__name__)

DEFAULT_MOVETIME_MS = 1000   # a move time for a level that names none, in a game without a clock
MAX_SKILL = 20               # Stockfish's "Skill Level" spans 0..20


class LevelError(ValueError):
    """A level that cannot be read (config file or web page)."""


@dataclass(frozen=True)
class Level:
    """How strong the engine plays.

    ``skill``: Stockfish's ``Skill Level`` (0..20); ``elo``: ``UCI_LimitStrength`` with
    ``UCI_Elo`` (clamped to what the engine allows: Stockfish 15 takes 1350..2850);
    ``movetime_ms``: the time per move without a clock, and a cap with one; ``depth``: a depth cap.
    """

    skill: int | None = None
    elo: int | None = None
    movetime_ms: int | None = None
    depth: int | None = None

    def __post_init__(self) -> None:
        if self.skill is not None and not 0 <= self.skill <= MAX_SKILL:
            raise LevelError(f"skill must be 0..{MAX_SKILL}, not {self.skill}")
        for name in ("elo", "movetime_ms", "depth"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise LevelError(f"{name} must be positive, not {value}")

    def options(self, engine_options: Mapping[str, EngineOption]) -> dict[str, Any]:
        """The UCI options that set this level on an engine announcing ``engine_options``.

        Options the engine does not have are left out (with a warning), so that another UCI
        engine still plays, at its full strength.
        """
        wanted: dict[str, Any] = {"Skill Level": MAX_SKILL if self.skill is None else self.skill,
                                  "UCI_LimitStrength": self.elo is not None}
        if self.elo is not None:
            wanted["UCI_Elo"] = self.elo
        asked = {"Skill Level": self.skill is not None, "UCI_LimitStrength": self.elo is not None,
                 "UCI_Elo": self.elo is not None}
        chosen = {}
        for name, value in wanted.items():
            if name in engine_options:
                chosen[name] = value
            elif asked[name]:
                log.warning("the engine has no option %r: level %s only partly applied", name, self)
        return chosen

    def limit(self, times: ClockTimes | None) -> SearchLimit:
        """The ``go`` limits: the clock's times when there is a clock, the level's caps on top."""
        if times is None:
            return SearchLimit(movetime_ms=self.movetime_ms or (None if self.depth else DEFAULT_MOVETIME_MS),
                               depth=self.depth)
        return SearchLimit(times=times, movetime_ms=self.movetime_ms, depth=self.depth)

    def describe(self) -> str:
        """The spelling ``Level.parse`` reads back, e.g. ``elo=1500 movetime=300``."""
        parts = []
        for key, value in (("skill", self.skill), ("elo", self.elo), ("movetime", self.movetime_ms),
                           ("depth", self.depth)):
            if value is not None:
                parts.append(f"{key}={value}")
        return " ".join(parts) or "full strength"

    def __str__(self) -> str:
        return self.describe()

    @classmethod
    def preset(cls, number: int) -> "Level":
        try:
            return PRESETS[number]
        except (KeyError, TypeError):
            raise LevelError(f"level presets are 1..{len(PRESETS)}, not {number!r}") from None

    @classmethod
    def parse(cls, text: str) -> "Level":
        """Read a level as written on the page or in a setting.

        A bare number or ``level=N`` is Stockfish's Skill Level (0..20, as ``[engine] level`` in
        the config); ``preset=N`` one of the page's presets (1..8); then any of ``skill=N``,
        ``elo=N``, ``movetime=MS``, ``depth=N``, separated by spaces or commas. Later items refine
        earlier ones: ``preset=3 movetime=200``.

        >>> Level.parse("elo=1500, movetime=300")
        Level(skill=None, elo=1500, movetime_ms=300, depth=None)
        >>> Level.parse("preset=2") == Level.preset(2)
        True
        """
        text = (text or "").strip()
        if not text:
            raise LevelError("an empty level: write e.g. 'preset=4', 'skill=10' or 'elo=1600'")
        values: dict[str, int] = {}
        for item in re.split(r"[\s,]+", text):
            key, sep, value = item.partition("=")
            if not sep:
                key, value = "skill", key
            key = key.strip().lower().replace("-", "_")
            key = {"movetime_ms": "movetime", "skill_level": "skill", "uci_elo": "elo", "level": "skill"}.get(key, key)
            if key not in ("preset", "skill", "elo", "movetime", "depth"):
                raise LevelError(f"unknown level setting {key!r} in {text!r}: use preset, skill (or level), "
                                 f"elo, movetime or depth")
            try:
                values[key] = int(value)
            except ValueError:
                raise LevelError(f"{key} must be a whole number, not {value!r}") from None
        return cls.from_mapping(values)

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> "Level":
        """From a table such as ``{preset = 3}`` or ``{skill = 5, elo = 1500, movetime_ms = 300}``."""
        values = dict(values)
        base = cls.preset(int(values.pop("preset"))) if "preset" in values else cls()
        changes = {}
        for key, value in values.items():
            field_name = {"movetime": "movetime_ms", "level": "skill"}.get(key, key)
            if field_name not in ("skill", "elo", "movetime_ms", "depth"):
                raise LevelError(f"unknown level setting {key!r}")
            changes[field_name] = None if value is None else int(value)
        return replace(base, **changes)

    @classmethod
    def from_config(cls, engine: Any) -> "Level":
        """From the config's ``[engine]`` table: ``level`` (Skill Level 0..20), ``move_time`` (s),
        and ``elo`` (0: by level only), which limits the strength too."""
        move_time = engine.move_time
        return cls(skill=engine.level, elo=engine.elo or None,
                   movetime_ms=None if move_time is None else max(1, round(move_time * 1000)))


# Presets for the page, weakest first: a weak level is both a low skill and a short, shallow search.
PRESETS: dict[int, Level] = {
    1: Level(skill=0, movetime_ms=50, depth=1),
    2: Level(skill=3, movetime_ms=100, depth=2),
    3: Level(skill=6, movetime_ms=150, depth=4),
    4: Level(skill=9, movetime_ms=200, depth=6),
    5: Level(skill=12, movetime_ms=300, depth=9),
    6: Level(skill=15, movetime_ms=400, depth=12),
    7: Level(skill=18, movetime_ms=700, depth=16),
    8: Level(skill=20, movetime_ms=1000),
}
DEFAULT_LEVEL = PRESETS[4]

__all__ = ["DEFAULT_LEVEL", "DEFAULT_MOVETIME_MS", "Level", "LevelError", "PRESETS"]
