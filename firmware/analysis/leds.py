"""The LEDs of a reviewed move: the move played and the engine's better move, as the review's layer of the board's LEDs."""
from __future__ import annotations

from chess_core import Move

from firmware.leds.compose import Layer, Light, Priority
from firmware.referee.feedback import LedStyle

__all__ = ["review_layer"]


def review_layer(played: Move | None, best: Move | None, style: LedStyle) -> Layer:
    """The squares of ``played`` in the last move's colour and those of ``best`` in the legal
    squares' (green: where the engine would have gone); a move that was the engine's own shows
    green alone. Dimmed as the board's other lights; alone on the board (firmware.leds.compose)."""
    lights = []
    if played is not None and played != best:
        lights.append(Light("review_move", style.dim(style.last_move), 1 << played.from_square | 1 << played.to_square))
    if best is not None:
        lights.append(Light("review_best", style.dim(style.legal), 1 << best.from_square | 1 << best.to_square))
    return Layer("review", Priority.REVIEW, (tuple(lights),))
