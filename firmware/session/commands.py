"""The words and checks of the session's commands: their error, the settings that may change, colours and sides."""
from __future__ import annotations

from typing import Any

from firmware.config import ENGINE_SIDES

# The settings a command may change, by section of the configuration.
SETTINGS = {"game": ("white", "black", "time_control", "rules", "alternate_colours", "show_legal_squares",
                     "touch_move", "takebacks", "event", "site"),
            "leds": ("brightness", "low_time_s"),
            "gestures": ("enabled", "resign_s", "draw_s"),
            "engine": ("level", "elo", "move_time", "side")}


class SessionError(ValueError):
    """A command that cannot be carried out now; the message says why (for the web page)."""


def colour(value: Any) -> int:
    """WHITE (0) or BLACK (1) from 0/1 or "white"/"w"/"black"/"b"; SessionError else."""
    if value in ("white", "w"):
        return 0
    if value in ("black", "b"):
        return 1
    if type(value) is int and value in (0, 1):
        return value
    raise SessionError(f"a colour is 0/'white' or 1/'black', not {value!r}")


def engine_side_choice(side: Any) -> None:
    """SessionError unless ``side`` is a side the engine may be asked to play."""
    if side is not None and side not in ENGINE_SIDES:
        raise SessionError(f"the engine plays one of {', '.join(ENGINE_SIDES)}, not {side!r}")


def settings_sections(changes: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """``update_settings`` keywords as configuration sections: a key (``brightness=0.3``) goes to
    its section; a section (``engine={"level": 5}``) is taken whole, its keys checked."""
    sections: dict[str, dict[str, Any]] = {}
    for key, value in changes.items():
        if key in SETTINGS:
            if not isinstance(value, dict):
                raise SessionError(f"{key}: expected a table of settings, e.g. {key}={{...}}")
            unknown = sorted(set(value) - set(SETTINGS[key]))
            if unknown:
                raise SessionError(f"{key}.{unknown[0]}: not a setting that can be changed here")
            sections.setdefault(key, {}).update(value)
            continue
        section = next((s for s, keys in SETTINGS.items() if key in keys), None)
        if section is None:
            raise SessionError(f"{key}: not a setting that can be changed here")
        sections.setdefault(section, {})[key] = value
    return sections


__all__ = ["SETTINGS", "SessionError", "colour", "engine_side_choice", "settings_sections"]
