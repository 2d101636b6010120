"""LED feedback: a pure function from the session's state and the time to a frame of 64 colours.

What the board shows, most important last (a later layer paints over an earlier one):

1. the last move (from and to squares), and both kings while a draw offer stands;
2. a king in check;
3. a lifted piece, and if it belongs to the side to move its legal destinations (captures in
   another colour); if it is an opponent's piece being captured, the pieces that can take it;
   under touch-move, the touched piece and its destinations;
4. the opponent's move to carry out (engine or online): the from square blinks, the to square
   stays lit;
5. a promoted piece whose type can still be changed (blinks);
6. the king of a side short of time (blinks);
7. the squares to put right (steady, not blinking), alone: after an illegal reading, or to restore a saved game;
   but a result gesture being held (the kings on the centre) shows alone instead: the kings
   blink in the loss colour (1-0, 0-1) or the draw colour, and the ring of squares around the
   centre fills in that colour as the countdown runs;
8. the end of the game, alone: the winner's and loser's kings, or both kings for a draw.

Blinking is derived from ``now``: ``blink_on(now)`` is true for the first half of each period,
and ``next_change`` says when the frame next changes by itself, so the service wakes up then
instead of running a timer.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace

from chess_core import Move, Outcome, Position
from chess_core.squares import BB_SQUARES, scan_squares

from firmware.config import LedConfig
from firmware.leds.compose import Layer, Light, Priority

DARK = 0
BLINK_PERIOD_S = 0.5  # 2 Hz: quick enough to catch the eye, slow enough to read


@dataclass(frozen=True)
class LedStyle:
    """Colours (0xRRGGBB) per role, the brightness applied to all, and the blink period."""

    legal: int = 0x00C000
    capture: int = 0xFF6000
    lifted: int = 0xFFFFFF
    last_move: int = 0x0030FF
    check: int = 0xFF0000
    fix: int = 0xFF00FF
    opponent: int = 0x00FFFF
    promotion: int = 0xFFFF00
    win: int = 0x00FF00
    loss: int = 0xFF0000
    draw: int = 0xFF00FF
    low_time: int = 0x8000FF
    hint: int = 0x00C0FF          # the coach (firmware.session.coach): the engine's move
    good_move: int = 0x00FF00
    inaccuracy: int = 0xFFFF00
    mistake: int = 0xFF6000
    blunder: int = 0xFF0000
    setup_from: int = 0xFFFFFF    # a position set up by hand (firmware.session.setup_guidance): the piece to take
    setup_to: int = 0x00FF00      # ...where it goes
    from_box: int = 0x0040FF      # ...a piece from the box goes here
    to_box: int = 0xFF4000        # ...this piece goes to the box
    brightness: float = 1.0
    blink_period: float = BLINK_PERIOD_S

    @classmethod
    def from_config(cls, leds: LedConfig) -> "LedStyle":
        colours = {role: leds.colours.rgb(role) for role in (
            "legal", "capture", "lifted", "last_move", "check", "fix", "opponent", "promotion",
            "win", "loss", "draw", "low_time", "hint", "good_move", "inaccuracy", "mistake", "blunder",
            "setup_from", "setup_to", "from_box", "to_box")}
        return cls(**colours, brightness=leds.brightness)

    def dim(self, colour: int) -> int:
        if self.brightness >= 1.0:
            return colour
        b = self.brightness
        return (round((colour >> 16) * b) << 16 | round(((colour >> 8) & 0xFF) * b) << 8
                | round((colour & 0xFF) * b))


@dataclass(frozen=True)
class FeedbackState:
    """What the LEDs need to know about the session at one moment.

    ``position`` is the expected position (the game as committed); ``lifted`` the squares of
    that position whose piece is off the board now; ``wrong`` the squares to put right;
    ``low_time`` the side (WHITE/BLACK) whose time is short, if any.
    """

    position: Position
    lifted: int = 0
    wrong: int = 0
    last_move: Move | None = None
    opponent_move: Move | None = None
    promotion_square: int | None = None
    outcome: Outcome | None = None
    low_time: int | None = None
    show_legal: bool = True
    touched: int | None = None
    held: int = 0
    held_kind: str = ""
    held_progress: float = 0.0   # a gesture's countdown, 0..1 (the ring around the centre fills)
    draw_offer: bool = False


def blink_on(now: float, period: float = BLINK_PERIOD_S) -> bool:
    """True in the first half of each blink period (a pure function of the time)."""
    return (now / period) % 1.0 < 0.5


def blinks(state: FeedbackState) -> bool:
    """Whether the frame for ``state`` has blinking squares."""
    if state.outcome is not None:
        return False
    if state.held:
        return True
    if state.wrong:   # shown alone and steadily
        return False
    return state.opponent_move is not None or state.promotion_square is not None or state.low_time is not None


def next_change(state: FeedbackState, now: float, period: float = BLINK_PERIOD_S) -> float | None:
    """When the frame of ``state`` next changes by itself (a blink edge), or None."""
    if not blinks(state):
        return None
    half = period / 2
    return (math.floor(now / half) + 1) * half


def destinations(position: Position, square: int) -> tuple[int, int]:
    """Bitboards of the legal destinations of the piece on ``square``: (quiet, captures)."""
    quiet = captures = 0
    for move in position.legal_moves():
        if move.from_square != square:
            continue
        if position.is_capture(move):
            captures |= BB_SQUARES[move.to_square]
        else:
            quiet |= BB_SQUARES[move.to_square]
    return quiet & ~captures, captures


def takers(position: Position, square: int) -> int:
    """Bitboard of the pieces of the side to move that can legally capture on ``square``."""
    found = 0
    for move in position.legal_moves():
        if move.to_square == square and position.is_capture(move):
            found |= BB_SQUARES[move.from_square]
    return found


def frame(state: FeedbackState, now: float, style: LedStyle = LedStyle()) -> tuple[int, ...]:
    """The 64 colours (0xRRGGBB, a1 first) the board shows for ``state`` at ``now``."""
    (lit,) = _phases(state, (blink_on(now, style.blink_period),))
    colours = _colours(style)
    leds = [DARK] * 64
    for role, squares in lit.items():
        for square in scan_squares(squares):
            leds[square] = colours[role]
    return tuple(leds)


def game_layer(state: FeedbackState, style: LedStyle = LedStyle()) -> Layer:
    """The game's layer of the LEDs (firmware.leds.compose): the frame of ``state``, in two
    phases of half a blink period (on, then off) when some squares blink."""
    phases = _phases(state, (True, False) if blinks(state) else (True,))
    return _layer(tuple(tuple((role, lit[role]) for role in ROLES if lit.get(role)) for lit in phases), style)


@functools.lru_cache(maxsize=32)
def _layer(phases: tuple[tuple[tuple[str, int], ...], ...], style: LedStyle) -> Layer:
    """The game's layer of ``phases`` (the squares of each role): the same value, made once, while
    the board shows the same (most refreshes change nothing on the LEDs)."""
    colours = _colours(style)
    lights = tuple(tuple(Light(role, colours[role], squares) for role, squares in lit) for lit in phases)
    return Layer("game", Priority.GAME, lights, slot_s=style.blink_period / 2 if len(lights) > 1 else 0.0)


ROLES = ("legal", "capture", "lifted", "last_move", "check", "opponent", "promotion", "low_time", "draw", "fix", "win",
         "loss")
"""The game's roles, in the legend's order (firmware.words ``LED_ROLES``)."""

Lit = dict[str, int]
"""The squares (a bitboard) of each role; a square belongs to one role at most, the last painted."""


@functools.lru_cache(maxsize=8)
def _colours(style: LedStyle) -> dict[str, int]:
    """Each role's colour, dimmed (a style is a value: computed once for each)."""
    return {role: style.dim(getattr(style, role)) for role in ROLES}


def _phases(state: FeedbackState, ons: tuple[bool, ...]) -> list[Lit]:
    """The squares of each role at each blink phase of ``ons`` (on: the blinking squares lit);
    what does not blink is worked out once."""
    lit: Lit = {}
    pos = state.position
    if state.outcome is not None:
        _paint_outcome(lit, pos, state.outcome)
        return [lit for _ in ons]
    if state.held:
        return [_paint_gesture({}, state, on) for on in ons]
    if state.wrong:   # steady, not blinking: a player looking at the board must see them at once
        _paint(lit, state.wrong, "fix")
        return [lit for _ in ons]
    if state.last_move is not None:
        _paint(lit, BB_SQUARES[state.last_move.from_square] | BB_SQUARES[state.last_move.to_square], "last_move")
    if state.draw_offer:
        _paint(lit, _kings(pos), "draw")
    if pos.is_check():
        _paint(lit, BB_SQUARES[pos.king[pos.turn]], "check")
    if state.lifted:
        _paint_lifted(lit, state)
    elif state.touched is not None:
        _paint_lifted(lit, replace(state, lifted=BB_SQUARES[state.touched]))
    return [_paint_blinking(dict(lit), state, on) for on in ons]


def _paint_blinking(lit: Lit, state: FeedbackState, on: bool) -> Lit:
    """The opponent's move's from square, a promoted piece, a king short of time: lit when ``on``."""
    pos = state.position
    if state.opponent_move is not None:
        move = state.opponent_move
        _paint(lit, BB_SQUARES[move.to_square], "opponent")
        _paint(lit, BB_SQUARES[move.from_square], "opponent" if on else "")
    if state.promotion_square is not None:
        _paint(lit, BB_SQUARES[state.promotion_square], "promotion" if on else "")
    if state.low_time is not None and pos.king[state.low_time] >= 0 and on:
        _paint(lit, BB_SQUARES[pos.king[state.low_time]], "low_time")
    return lit


# The squares around the centre, clockwise from c3: a gesture's countdown fills them.
_RING = (18, 19, 20, 21, 29, 37, 45, 44, 43, 42, 34, 26)


def _paint_gesture(lit: Lit, state: FeedbackState, on: bool) -> Lit:
    """A result gesture being held: the kings' squares blink in its colour, the ring around the
    centre fills as the countdown runs (all lit: it fires)."""
    role = "loss" if state.held_kind == "resign" else "draw"
    _paint(lit, state.held, role if on else "")
    _paint(lit, sum(BB_SQUARES[square] for square in _RING[:int(state.held_progress * len(_RING) + 1e-9)]), role)
    return lit


def _kings(pos: Position) -> int:
    return sum(BB_SQUARES[k] for k in pos.king if k >= 0)


def _paint_lifted(lit: Lit, state: FeedbackState) -> None:
    pos = state.position
    own = state.lifted & pos.occupied_by(pos.turn)
    theirs = state.lifted & pos.occupied_by(pos.turn ^ 1)
    if state.show_legal and state.opponent_move is None:
        if own and not own & (own - 1):
            quiet, captures = destinations(pos, own.bit_length() - 1)
            _paint(lit, quiet, "legal")
            _paint(lit, captures, "capture")
        elif theirs and not own and not theirs & (theirs - 1):
            _paint(lit, takers(pos, theirs.bit_length() - 1), "capture")
    _paint(lit, state.lifted, "lifted")


def _paint_outcome(lit: Lit, pos: Position, outcome: Outcome) -> None:
    for color in (0, 1):
        square = pos.king[color]
        if square < 0:
            continue
        if outcome.winner is None:
            _paint(lit, BB_SQUARES[square], "draw")
        else:
            _paint(lit, BB_SQUARES[square], "win" if outcome.winner == color else "loss")


def _paint(lit: Lit, bb: int, role: str) -> None:
    """``bb``'s squares in ``role`` ("": dark), over what they were."""
    if not bb:
        return
    for other, squares in lit.items():
        if squares & bb:
            lit[other] = squares & ~bb
    if role:
        lit[role] = lit.get(role, 0) | bb


__all__ = ["FeedbackState", "LedStyle", "frame", "game_layer", "next_change", "blink_on", "blinks", "destinations",
           "takers", "ROLES"]
