"""What the session's parts (the seat, the other side, the reactions to the referee's events) may ask of the session."""
from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, Callable, ContextManager, Protocol

from chess_core import Game

from firmware.config import Config
from firmware.referee.feedback import LedStyle
from firmware.referee.match import MatchConfig
from firmware.referee.referee import Referee
from firmware.session.game_file import GameFile
from firmware.session.play import Play
from firmware.session.state import Phase

if TYPE_CHECKING:
    from firmware.session.door import Door
    from firmware.session.app_link import AppLink
    from firmware.session.coach import Coach
    from firmware.opponents.base import Opponent
    from firmware.session.seat import OpponentSeat
    from firmware.session.other_side import OtherSide

__all__ = ["Conductor"]


class Conductor(Protocol):
    """The session (:class:`firmware.session.session.Session`) as its parts see it: its parts,
    where it stands, and the few calls that change it as a whole."""

    config: Config
    referee: Referee
    play: Play
    file: GameFile
    seat: OpponentSeat
    other_side: OtherSide
    coach: Coach
    names: tuple[str, str]
    given_names: tuple[str | None, str | None] | None
    phase: Phase
    clock: Callable[[], float]
    wall: Callable[[], datetime]
    replay: str | None
    occupied: int | None                      # the latest raw reading
    leds: Any                                 # the LED sink (its ``problem``)
    leds_frame: tuple[int, ...] | None        # the frame shown last
    style: LedStyle
    app: AppLink | None                       # an app attached through an emulated board
    failed_helpers: list[str]                 # the helpers that failed ("voice", "coach"): the page says it
    door: Door                                # the one way in (firmware.session.door)

    @property
    def game(self) -> Game: ...

    @property
    def live(self) -> bool: ...

    @property
    def opponent(self) -> Opponent | None: ...

    def match_config(self, **changes: Any) -> MatchConfig: ...

    def apply(self, events: list[Any], now: float) -> None:
        """Carry out the referee's events (the match's, the gestures', the next game's)."""

    def command(self, now: float | None, *, live: bool = False) -> ContextManager[float]:
        """A player's command: its time, the check that a game is in progress, the update after it."""

    def publish(self) -> None:
        """Something shown changed: the LEDs, the file and the subscribers are brought up to date."""

    def set_names(self, names: tuple[str, str]) -> None: ...

    def apply_board_rules(self) -> None: ...

    def change_config(self, **sections: dict[str, Any]) -> None: ...

    def next_game(self, now: float, names: tuple[str | None, str | None] | None, *,
                  engine_side: str | None = None, fen: str | None = None) -> None:
        """Set up the next game (the match starts it once the board shows the start position)."""
