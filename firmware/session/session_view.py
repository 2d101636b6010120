"""The session as its parts (the seat, the other side, the coach, the reactions) see it: read only, its changes handed over as effects."""
from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, Callable, ContextManager, Protocol

from chess_core import Game

from firmware.config import Config
from firmware.leds.compose import Layer
from firmware.referee.feedback import LedStyle
from firmware.referee.match import MatchConfig
from firmware.referee.referee import Referee
from firmware.session.game_file import GameFile
from firmware.session.board_state import BoardState

if TYPE_CHECKING:
    from firmware.session.effects import Effect
    from firmware.session.door import Door
    from firmware.session.coach import Coach
    from firmware.session.trainer import Trainer
    from firmware.opponents.base import Opponent
    from firmware.session.seat import OpponentSeat
    from firmware.session.other_side import OtherSide

__all__ = ["SessionView"]


class SessionView(Protocol):
    """The session (:class:`firmware.session.session.Session`) as its parts see it: read only
    (mypy refuses an assignment through it); what they decide goes to ``carry_out`` as effects."""

    @property
    def board_state(self) -> BoardState:
        """The board's state: the phase, the game's Play, the names, the app, the LEDs' layers held (one frozen value)."""

    @property
    def config(self) -> Config: ...

    @property
    def referee(self) -> Referee: ...

    @property
    def file(self) -> GameFile: ...

    @property
    def seat(self) -> OpponentSeat: ...

    @property
    def other_side(self) -> OtherSide: ...

    @property
    def coach(self) -> Coach: ...

    @property
    def trainer(self) -> Trainer: ...

    @property
    def clock(self) -> Callable[[], float]: ...

    @property
    def wall(self) -> Callable[[], datetime]: ...

    @property
    def replay(self) -> str | None: ...

    @property
    def occupied(self) -> int | None:
        """The latest raw reading."""

    @property
    def leds(self) -> Any:
        """The LED sink (its ``problem``)."""

    @property
    def leds_frame(self) -> tuple[int, ...] | None:
        """The frame shown last."""

    @property
    def style(self) -> LedStyle: ...

    @property
    def leds_layers(self) -> tuple[Layer, ...]:
        """The layers of the frame shown last."""

    @property
    def door(self) -> Door:
        """The one way in (firmware.session.door)."""

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

    def carry_out(self, effects: list[Effect], now: float) -> None:
        """Carry out what a part decided (firmware.session.effects): the only way it changes the session's values."""

    def publish(self) -> None:
        """Something shown changed: the LEDs, the file and the subscribers are brought up to date."""

    def set_names(self, names: tuple[str, str]) -> None: ...

    def apply_board_rules(self) -> None: ...

    def change_config(self, **sections: dict[str, Any]) -> None: ...

    def new_game(self, now: float | None = None, *, time_control: str | None = None,
                 white: str | None = None, black: str | None = None, rules: str | None = None,
                 fen: str | None = None, opponent: str | None = None, engine_side: str | None = None,
                 engine_level: int | None = None, variant: str | None = None,
                 start_position: int | None = None, coach: dict[str, bool] | None = None) -> None:
        """Begin a new game (the page's form: names, time control, rules, opponent...)."""

    def next_game(self, now: float, names: tuple[str | None, str | None] | None, *,
                  engine_side: str | None = None, fen: str | None = None, arrange: int = 0) -> None:
        """Set up the next game (the match starts it once the board shows the start position)."""
