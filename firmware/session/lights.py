"""The layers of LEDs the session holds for its parts and companions, how long each stands, and the layers of a frame.

The session shows one frame, composed (:func:`firmware.leds.compose.compose`) from the layers of
:meth:`Lights.layers`: the game's (firmware.referee.feedback, made anew at every refresh), the
alarm of a game that cannot be saved, and those held here. A part or a companion pushes a layer
(:class:`Held`) or removes one by name, through the session's door (the commands ``push_layer``,
``remove_layer``, ``show_on_board``) or as an effect (the coach: ``Keep(lights=...)``), and
never shows a frame itself. A layer held stands until its ``until``, and, as it asks, until the
settled board changes (``on_board``), a move is made or taken back (``ply``) or a game is
played (``idle``): :meth:`Lights.kept` at every refresh leaves out those that no longer stand.
A value, part of the board's state (``BoardState.lights``, firmware.session.board_state): each
change is a new :class:`Lights`, which the session keeps (``Session._keep``).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from firmware.leds.compose import Layer

__all__ = ["Held", "Lights", "NOT_SEEN"]

NOT_SEEN: object = object()
"""A layer not yet shown: the settled board it stands on is the one it is first shown on."""


@dataclass(frozen=True)
class Held:
    """A layer the session holds, and what ends it besides its ``until``; see the module docstring."""

    layer: Layer
    on_board: bool = False        # gone once the settled board is not the one it was first shown on
    ply: int | None = None        # gone once the moves made are not that many
    idle: bool = False            # gone once a game is played (live, a move made)
    board: object = NOT_SEEN      # the settled board it was first shown on

    def stands(self, now: float, board: object, plies: int, playing: bool) -> bool:
        return not (self.layer.ended(now) or (self.on_board and self.board is not NOT_SEEN and board is not self.board)
                    or (self.ply is not None and plies != self.ply) or (self.idle and playing))


@dataclass(frozen=True)
class Lights:
    """The layers held, one per name."""

    held: tuple[Held, ...] = ()

    def pushed(self, held: Held) -> Lights:
        """``held`` in the place of the layer of its name, if any."""
        return Lights(tuple(h for h in self.held if h.layer.name != held.layer.name) + (held,))

    def removed(self, name: str) -> Lights:
        return Lights(tuple(h for h in self.held if h.layer.name != name)) if self.get(name) is not None else self

    def get(self, name: str) -> Layer | None:
        """The layer held by that name, or None."""
        return next((h.layer for h in self.held if h.layer.name == name), None)

    def kept(self, now: float, board: object, plies: int, playing: bool) -> Lights:
        """The layers that still stand on the settled ``board``, with ``plies`` moves made (``playing``:
        a game is played); each stands on the board it is shown on first. ``self`` when none changes."""
        held = tuple(h if h.board is not NOT_SEEN or not h.on_board else replace(h, board=board)
                     for h in self.held if h.stands(now, board, plies, playing))
        return self if held == self.held else Lights(held)

    def layers(self, game: Layer, alarm: Layer | None = None) -> tuple[Layer, ...]:
        """The layers of the frame: ``game``'s, the ``alarm``, those held."""
        return (game, *((alarm,) if alarm is not None else ()), *(h.layer for h in self.held))

