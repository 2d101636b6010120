"""The board's state between two inputs, one frozen value: the phase, the game's Play, the names, the app attached, the LEDs' layers held.

The session holds one :class:`BoardState` and alone replaces it (``Session.carry_out`` with the
:class:`~firmware.session.effects.Keep` its parts decide); everything else reads it. Its
settings (``config``, the LEDs' ``style``) and the parts' own state (the referee's match, the
seat, the coach, the game's file) are beside it, not in it.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from firmware.session.app_link import AppLink
from firmware.session.lights import Lights
from firmware.session.play import Play
from firmware.session.state import Phase
from firmware.training.drill import Training
from firmware.training.progress import Progress
from firmware.training.setup_guide import SetupGuide

__all__ = ["BoardState"]


@dataclass(frozen=True)
class BoardState:
    """Where the board's game stands (``phase``), what the game adds to its match (``play``: the
    opponent's move awaited, offers, notices, problems), the players' ``names``, the names given
    to the next game (``given_names``, None: the configured ones), the ``app`` playing on the board
    through an emulated one, the helpers that failed (``failed_helpers``: "voice", "coach",
    said once on the page), and the layers of LEDs held beside the game's (``lights``: the
    coach's, a review's, an app's, the pairing code..., firmware.session.lights)."""

    names: tuple[str, str]
    phase: Phase = Phase.SETTING_UP
    play: Play = field(default_factory=Play)
    given_names: tuple[str | None, str | None] | None = None
    app: AppLink | None = None
    failed_helpers: tuple[str, ...] = ()
    lights: Lights = field(default_factory=Lights)
    setup: SetupGuide | None = None   # a position being set up by hand, the board leading (firmware.session.setup_guidance)
    training: Training | None = None  # the drills under way (firmware.session.trainer)
    standing: str | None = None       # the last game's position when the next was set up: where its pieces stood
    progress: Mapping[str, Progress] | None = None   # the players' training progress (None: not read yet)

    @property
    def live(self) -> bool:
        """A game in progress (moves count)."""
        return self.phase.live
