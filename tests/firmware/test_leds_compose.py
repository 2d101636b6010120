"""One owner of the LEDs: the layers composed per square (some alone), their ends and blinking on a time given by hand, the legend, the colours of roles shown together."""
from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from chess_core import WHITE, Move, Outcome, Position, Termination, parse_square
from firmware import words
from firmware.analysis.leds import review_layer
from firmware.config import EmulationConfig, parse_colour
from firmware.emulation.board import Lights
from firmware.emulation.leds import app_layer, frame_of
from firmware.leds.compose import (ALARM_FLASH, ALONE, Layer, Light, Priority, compose, flashing, lit_roles,
                                   next_change, of_frame)
from firmware.referee.feedback import FeedbackState, LedStyle, frame, game_layer
from firmware.session.door import Command
from firmware.session.saving import alarm
from firmware.web.companion import NO_PAGE_COLOUR
from firmware.web.pairing import PATTERN_COLOUR

from .session_support import Table

RED, GREEN, BLUE, WHITE_LIGHT = 0xFF0000, 0x00FF00, 0x0000FF, 0xFFFFFF
ROOT = Path(__file__).resolve().parents[2]


def sq(*names: str) -> int:
    return sum(1 << parse_square(name) for name in names)


def lit(frame_: tuple[int, ...]) -> dict[str, int]:
    from chess_core import square_name
    return {square_name(s): c for s, c in enumerate(frame_) if c}


def steady(name: str, priority: int, *lights: Light, until: float | None = None) -> Layer:
    return Layer(name, priority, (lights,), until=until)


GAME = steady("game", Priority.GAME, Light("last_move", BLUE, sq("e2", "e4")), Light("check", RED, sq("e8")))


# -- per square, some alone ------------------------------------------------------------------------

def test_a_layer_paints_only_the_squares_it_lights_over_those_below():
    mark = steady("save_failed", Priority.ALARM, Light("save_failed", GREEN, sq("a1", "e2")))
    assert lit(compose([GAME, mark], 0.0)) == {"a1": GREEN, "e2": GREEN, "e4": BLUE, "e8": RED}
    assert compose([mark, GAME], 0.0) == compose([GAME, mark], 0.0)        # by priority, not by order given


def test_a_layer_alone_hides_every_layer_below_and_its_dark_squares_stay_dark():
    coach = steady("coach", Priority.COACH, Light("hint", GREEN, sq("g1", "f3")))
    assert lit(compose([GAME, coach], 0.0)) == {"g1": GREEN, "f3": GREEN}
    pairing = steady("pairing", Priority.PAIRING, Light("pairing", RED, sq("a1")))
    app = steady("app", Priority.APP, Light("app", BLUE, sq("d4")))
    assert lit(compose([GAME, coach, app, pairing], 0.0)) == {"a1": RED}  # the highest alone wins
    mark = steady("save_failed", Priority.ALARM, Light("save_failed", GREEN, sq("h1")))
    assert lit(compose([GAME, app, mark], 0.0)) == {"d4": BLUE, "h1": GREEN}  # an alarm paints above an app
    assert lit(compose([GAME, mark, pairing], 0.0)) == {"a1": RED}         # never over the pairing code
    assert {Priority(p).name for p in ALONE} == {"COACH", "SETUP", "REVIEW", "APP", "PAIRING"}


def test_a_later_light_of_a_layer_paints_over_an_earlier_one_and_dark_lights_nothing():
    layer = steady("game", Priority.GAME, Light("legal", GREEN, sq("e3", "e4")), Light("capture", RED, sq("e4")),
                   Light("lifted", 0, sq("e3")))
    assert lit(compose([layer], 0.0)) == {"e3": GREEN, "e4": RED}


# -- time: ends and phases, given by hand -------------------------------------------------------------

def test_a_layer_shows_until_its_end_which_wakes_the_loop():
    code = steady("pairing", Priority.PAIRING, Light("pairing", RED, sq("a1")), until=15.0)
    assert lit(compose([GAME, code], 14.999)) == {"a1": RED}
    assert compose([GAME, code], 15.0) == compose([GAME], 15.0)            # gone at its end
    assert next_change([GAME, code], 3.0) == 15.0
    assert next_change([GAME, code], 3.0, phases=False) == 15.0           # an end is no blinking
    assert next_change([GAME, code], 15.0) is None


def test_phases_show_in_turn_and_name_their_next_change():
    blink = Layer("game", Priority.GAME, ((Light("opponent", BLUE, sq("e7", "e5")),), (Light("opponent", BLUE, sq("e5")),)),
                  slot_s=0.25)
    assert set(lit(compose([blink], 0.1))) == {"e7", "e5"}
    assert set(lit(compose([blink], 0.3))) == {"e5"}
    assert set(lit(compose([blink], 0.5))) == {"e7", "e5"}
    assert next_change([blink], 0.1) == pytest.approx(0.25)
    assert next_change([blink], 0.1, phases=False) is None
    hidden = steady("review", Priority.REVIEW, Light("review_move", GREEN, sq("d2")))
    assert next_change([blink, hidden], 0.1) is None                     # a hidden layer's blinking wakes nothing
    with pytest.raises(ValueError):
        Layer("x", 0, ((), ()))                                            # several phases need a slot time


def test_an_alarm_flashes_its_colour_and_white_from_its_start():
    mark = flashing("no_page", "no_page", sq("d4"), RED, 0.5, since=10.1, until=15.1)
    assert lit(compose([mark], 10.1)) == {"d4": RED}                       # its own colour first
    assert lit(compose([mark], 10.4)) == {"d4": ALARM_FLASH}
    assert next_change([mark], 10.1) == pytest.approx(10.35)


# -- the legend -------------------------------------------------------------------------------------------

def test_the_legend_names_the_roles_lit_in_any_phase_and_not_those_covered():
    blink = Layer("game", Priority.GAME, ((Light("last_move", BLUE, sq("e2")), Light("low_time", GREEN, sq("e1"))),
                                          (Light("last_move", BLUE, sq("e2")), Light("check", RED, sq("e1")))), slot_s=0.25)
    assert lit_roles([blink], 0.0) == (("last_move", BLUE), ("low_time", GREEN), ("check", RED))
    mark = steady("save_failed", Priority.ALARM, Light("save_failed", WHITE_LIGHT, sq("e2")))
    assert lit_roles([blink, mark], 0.0) == (("low_time", GREEN), ("check", RED), ("save_failed", WHITE_LIGHT))
    coach = steady("coach", Priority.COACH, Light("hint", GREEN, sq("g1")))
    assert lit_roles([blink, coach, mark], 0.0) == (("hint", GREEN), ("save_failed", WHITE_LIGHT))
    assert lit_roles([steady("game", Priority.GAME)], 0.0) == ()


def test_the_state_gives_the_legend_of_the_roles_lit(tmp_path):
    table = Table(tmp_path)
    table.setup()
    table.play("e2e4")
    table.board.lift(parse_square("g8"))
    table.wait(0.2)
    page = table.session.snapshot(table.t)
    style = LedStyle()
    assert page["lit_roles"] == [{"role": role, "colour": f"#{getattr(style, role):06x}"}
                                 for role in ("legal", "lifted", "last_move")]


# -- the game's layer is the game's frame ----------------------------------------------------------------

STATES = [
    FeedbackState(Position(), lifted=sq("g1"), last_move=Move.from_uci("e2e4")),
    FeedbackState(Position("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"),
                  opponent_move=Move.from_uci("e7e5"), low_time=WHITE, last_move=Move.from_uci("e2e4")),
    FeedbackState(Position("1Q6/7k/8/8/8/8/8/K7 b - - 0 1"), promotion_square=parse_square("b8")),
    FeedbackState(Position(), wrong=sq("e2", "e4"), lifted=sq("g1")),
    FeedbackState(Position(), held=sq("e1", "e8"), held_kind="resign", held_progress=0.5),
    FeedbackState(Position(), outcome=Outcome(Termination.RESIGNATION, WHITE)),
]


@pytest.mark.parametrize("state", STATES)
def test_the_games_layer_shows_what_the_feedback_frame_shows_at_every_moment(state):
    dim = LedStyle(brightness=0.5)
    for style, now in itertools.product((LedStyle(), dim), (0.0, 0.1, 0.25, 0.3, 100.75, 1234.5)):
        assert compose([game_layer(state, style)], now) == frame(state, now, style), (style.brightness, now)


def test_an_apps_layer_plays_its_patterns_as_its_lights_do():
    lights = Lights(tuple(0xAA if s in (12, 28) else 0xF0 if s == 0 else 0 for s in range(64)), slot_s=0.025,
                    since=100.1, brightness=0.5)
    layer = app_layer(lights, 0x00FFFF)
    for k in range(20):
        now = 100.1 + k * 0.0125
        assert compose([layer], now) == frame_of(lights, now, 0x00FFFF), now
    assert len(app_layer(Lights.steady(sq("e2")), 0x00FFFF).phases) == 1


# -- the session holds the layers, shows them, wakes for their ends ------------------------------------

def test_a_layer_pushed_through_the_door_shows_until_its_end_and_wakes_the_loop(tmp_path):
    table = Table(tmp_path)
    table.setup()
    table.play("e2e4")
    game = table.session.leds_frame
    code = of_frame("pairing", Priority.PAIRING, "pairing", (0x00A0FF,) * 8 + (0,) * 56, until=table.t + 15)
    table.session.door.send(Command("push_layer", (code,)))
    assert table.session.leds_frame == compose([code], table.t)            # alone on the board
    assert table.session.next_deadline(table.t, blink=False) == table.t + 15
    table.wait(15)
    assert table.session.leds_frame == game and table.session.board_state.lights.get("pairing") is None
    table.session.door.send(Command("push_layer", (code,)))                 # ended already: nothing shown
    assert table.session.leds_frame == game


def test_the_save_alarm_marks_the_corners_and_leaves_the_games_lights_elsewhere(tmp_path):
    table = Table(tmp_path)
    mark = alarm("the storage is full", table.session.style)
    game = steady("game", Priority.GAME, Light("last_move", BLUE, sq("a1", "e4")))
    shown = lit(compose([game, mark], 0.0))
    assert set(shown) == {"a1", "h1", "a8", "h8", "e4"} and shown["e4"] == BLUE and shown["a1"] != BLUE
    assert alarm(None, table.session.style) is None


# -- roles shown together stay apart -------------------------------------------------------------------------

def _distance(a: int, b: int) -> int:
    """The largest difference of one channel (0..255): the house's measure (tests/firmware/test_words.py)."""
    return max(abs((a >> s & 0xFF) - (b >> s & 0xFF)) for s in (16, 8, 0))


# Two colours shown side by side are told apart on a NeoPixel when one channel differs by 0x60 (96
# of 255) at least: the pairs that look alike on the board are nearer (legal 00c000 and win 00ff00,
# 0x3f apart; hint 00c0ff and opponent 00ffff, 0x3f), the nearest pair of the game's roles that
# players tell apart is 0x60 (check ff0000 and capture ff6000). Dimmed to the default brightness
# (0.5) they keep half of it, as every colour of the frame does.
APART = 0x60


def default_colours() -> dict[str, tuple[int, ...]]:
    """Each role's colours as the layers light them by default (two for an alarm, which flashes)."""
    style = LedStyle()
    colours: dict[str, tuple[int, ...]] = {role: (getattr(style, role),) for role in
                                           words.LED_LAYERS["game"] + words.LED_LAYERS["coach"]
                                           + words.LED_LAYERS["setup"]}
    review = review_layer(Move.from_uci("e2e4"), Move.from_uci("d2d4"), style)
    colours.update({light.role: (light.colour,) for light in review.phases[0]})
    colours["app"] = (parse_colour(EmulationConfig().colour),)
    colours["pairing"] = (PATTERN_COLOUR,)
    save = alarm("full", style)
    colours["save_failed"] = tuple(phase[0].colour for phase in save.phases)
    colours["no_page"] = (NO_PAGE_COLOUR, ALARM_FLASH)
    return colours


def shown_together() -> list[tuple[str, ...]]:
    """The roles of the layers that may show at once: a layer alone (or the game's, at the
    bottom) with every layer above it that is not alone (nothing below a layer alone shows)."""
    kinds = sorted(Priority, key=int)
    return [tuple(role for k in (kind, *(k for k in kinds[i + 1:] if k not in ALONE))
                  for role in words.LED_LAYERS[k.name.lower()])
            for i, kind in enumerate(kinds) if kind is Priority.GAME or kind in ALONE]


def test_every_layer_names_its_roles_and_the_legend_and_the_schema_name_them_all():
    assert list(words.LED_LAYERS) == [p.name.lower() for p in sorted(Priority, key=int)]
    roles = [role for layer in words.LED_LAYERS.values() for role in layer]
    assert sorted(roles) == sorted(words.LED_ROLES["en"]) and len(set(roles)) == len(roles)
    schema = json.loads((ROOT / "docs" / "state.schema.json").read_text(encoding="utf-8"))
    assert set(schema["properties"]["lit_roles"]["items"]["properties"]["role"]["enum"]) == set(roles)
    assert set(default_colours()) == set(roles)


def test_the_roles_shown_together_are_far_apart_or_flash():
    """Steady or blinking roles shown at once differ by APART; an alarm flashes its colour and
    white in turn, which no other role does (a blinking one goes dark, or shows what is under it),
    so it is told by its flashing on the board whatever the colours around."""
    colours = default_colours()
    flashing_roles = {role for role, pair in colours.items() if len(pair) == 2}
    assert flashing_roles == set(words.LED_LAYERS["alarm"])
    for role in flashing_roles:
        assert _distance(*colours[role]) >= APART, role                   # its two colours apart too
    groups = shown_together()
    assert ("legal", "capture", "lifted", "last_move", "check", "opponent", "promotion", "low_time", "draw", "fix",
            "win", "loss", "save_failed", "no_page") in groups
    assert ("pairing",) in groups                                            # alone, above the alarms
    layer_of = {role: layer for layer, roles in words.LED_LAYERS.items() for role in roles}
    checked = 0
    for group in groups:
        steady_roles = [role for role in group if role not in flashing_roles]
        for first, second in itertools.combinations(steady_roles, 2):
            if layer_of[first] == layer_of[second] and not any(
                    first in one and second in one for one in words.LED_GROUPS):
                continue      # (one layer's pictures that never show at once: the end of a game, the squares to put right)
            assert _distance(colours[first][0], colours[second][0]) >= APART, (first, second)
            checked += 1
    assert checked > 40
