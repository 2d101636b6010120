"""The LEDs of a reviewed move: the move played and the engine's better move, as a frame of 64 colours."""
from __future__ import annotations

from chess_core import Move

from firmware.referee.feedback import DARK, LedStyle

__all__ = ["review_frame"]


def review_frame(played: Move | None, best: Move | None, style: LedStyle) -> tuple[int, ...]:
    """The squares of ``played`` in the last move's colour and those of ``best`` in the legal
    squares' (green: where the engine would have gone); a move that was the engine's own shows
    green alone. Dimmed as the board's other frames."""
    leds = [DARK] * 64
    if played is not None and played != best:
        for square in (played.from_square, played.to_square):
            leds[square] = style.dim(style.last_move)
    if best is not None:
        for square in (best.from_square, best.to_square):
            leds[square] = style.dim(style.legal)
    return tuple(leds)
