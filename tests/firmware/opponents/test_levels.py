"""Engine levels: presets, their spelling in the config and on the page, options and go limits."""
from __future__ import annotations

import logging

import pytest

from firmware.opponents.base import ClockTimes
from uci.engine import EngineOption, SearchLimit
from firmware.opponents.engine.levels import DEFAULT_MOVETIME_MS, PRESETS, Level, LevelError

STOCKFISH_OPTIONS = {
    "Skill Level": EngineOption("Skill Level", "spin", "20", 0, 20),
    "UCI_LimitStrength": EngineOption("UCI_LimitStrength", "check", "false"),
    "UCI_Elo": EngineOption("UCI_Elo", "spin", "1350", 1350, 2850),
}


def test_presets_grow_stronger_and_slower():
    skills = [PRESETS[n].skill for n in sorted(PRESETS)]
    times = [PRESETS[n].movetime_ms for n in sorted(PRESETS)]
    assert skills == sorted(skills) and times == sorted(times)
    assert len(PRESETS) == 8


@pytest.mark.parametrize("text, level", [
    ("3", Level(skill=3)),
    ("level=3", Level(skill=3)),
    ("preset=3", PRESETS[3]),
    ("skill=5", Level(skill=5)),
    ("elo=1500, movetime=300", Level(elo=1500, movetime_ms=300)),
    ("preset=2 movetime=500", Level(skill=3, movetime_ms=500, depth=2)),
    ("Skill-Level=7 depth=4", Level(skill=7, depth=4)),
])
def test_levels_are_read_as_written_in_the_config_or_on_the_page(text, level):
    assert Level.parse(text) == level


@pytest.mark.parametrize("text, message", [
    ("", "empty level"),
    ("preset=9", "presets are 1..8"),
    ("21", "skill must be 0..20"),
    ("skill=25", "skill must be 0..20"),
    ("speed=3", "unknown level setting 'speed'"),
    ("elo=strong", "elo must be a whole number"),
    ("movetime=0", "movetime_ms must be positive"),
])
def test_a_wrong_level_says_what_is_wrong(text, message):
    with pytest.raises(LevelError, match=message):
        Level.parse(text)


def test_a_config_table_is_read_too():
    assert Level.from_mapping({"preset": 5, "movetime_ms": 100}) == Level(skill=12, movetime_ms=100, depth=9)
    assert Level.parse(Level(elo=1600, movetime_ms=250).describe()) == Level(elo=1600, movetime_ms=250)


def test_skill_level_sets_skill_and_lifts_the_elo_limit():
    assert Level(skill=3).options(STOCKFISH_OPTIONS) == {"Skill Level": 3, "UCI_LimitStrength": False}


def test_an_elo_level_limits_strength():
    assert Level(elo=1500).options(STOCKFISH_OPTIONS) == {"Skill Level": 20, "UCI_LimitStrength": True,
                                                         "UCI_Elo": 1500}


def test_an_engine_without_the_options_gets_a_warning_not_an_error(caplog):
    caplog.set_level(logging.WARNING)
    assert Level(skill=3).options({}) == {}
    assert "no option 'Skill Level'" in caplog.text


def test_without_a_clock_the_level_move_time_is_used():
    assert Level(skill=3, movetime_ms=200).limit(None) == SearchLimit(movetime_ms=200)
    assert Level(skill=3).limit(None) == SearchLimit(movetime_ms=DEFAULT_MOVETIME_MS)
    assert Level(depth=4).limit(None) == SearchLimit(depth=4)


def test_with_a_clock_its_times_are_used_and_the_level_caps_them():
    times = ClockTimes(300_000, 300_000, 3_000, 3_000)
    assert Level(skill=3, movetime_ms=200, depth=2).limit(times) == SearchLimit(movetime_ms=200, depth=2,
                                                                               times=times)
    assert Level().limit(times) == SearchLimit(times=times)


def test_the_engine_table_of_the_config_gives_a_level():
    from firmware.config import loads_config
    engine = loads_config("[engine]\nlevel = 8\nmove_time = 1.5\n").engine   # level: Skill Level; move_time: s
    assert Level.from_config(engine) == Level(skill=8, movetime_ms=1500)
