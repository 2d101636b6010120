"""An app's lights on the board's LEDs: the app's layer (alone on the board while it is attached), and its frame for the page.

The emulation never shows a frame: it hands the session the app's layer (:func:`app_layer`,
firmware.leds.compose) through the session's door when the app's lights change, and removes it
when the app leaves; the session composes and shows the LEDs, and plays a blinking pattern's
slots on its own loop. ``frame_of`` turns an app's :class:`~firmware.emulation.board.Lights`
into a frame at a moment (the page's: every square lit at some slot), in the colour set for
apps and at the app's brightness.
"""
from __future__ import annotations

from board_driver.leds import DARK
from chess_core.squares import BB_SQUARES

from firmware.emulation.board import Lights
from firmware.leds.compose import Layer, Light, Priority

Frame = tuple[int, ...]
APP_LAYER = "app"


def _dimmed(colour: int, brightness: float) -> int:
    b = brightness
    return (round((colour >> 16) * b) << 16) | (round(((colour >> 8) & 0xFF) * b) << 8) | round((colour & 0xFF) * b)


def frame_of(lights: Lights, now: float, colour: int) -> Frame:
    """The 64 colours the app's ``lights`` ask for at ``now``: ``colour`` at their brightness."""
    lit = lights.lit(now)
    if not lit:
        return DARK
    dimmed = _dimmed(colour, lights.brightness)
    return tuple(dimmed if lit & BB_SQUARES[s] else 0 for s in range(64))


def app_layer(lights: Lights, colour: int) -> Layer:
    """The app's layer: its squares in ``colour`` at their brightness, in the eight slots of
    their patterns (one phase when none blinks), from the moment they were set."""
    dimmed = _dimmed(colour, lights.brightness)
    if lights.next_change(lights.since) is None:
        return Layer(APP_LAYER, Priority.APP, ((Light("app", dimmed, lights.lit(lights.since)),),))
    phases = tuple((Light("app", dimmed, sum(BB_SQUARES[s] for s, pattern in enumerate(lights.patterns)
                                             if pattern & 0x80 >> slot)),) for slot in range(8))
    return Layer(APP_LAYER, Priority.APP, phases, slot_s=lights.slot_s, since=lights.since)


__all__ = ["frame_of", "app_layer", "APP_LAYER"]
