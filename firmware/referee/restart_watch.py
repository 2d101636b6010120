"""The start position set up in the middle of a game, held long enough to mean "next game" (pure)."""
from __future__ import annotations

from dataclasses import dataclass

HOLD_S = 2.0   # a position on its way to the start (pieces going back one by one) passes in less


@dataclass
class RestartWatch:
    """Watches the settled board during a game: once it has shown the start position (while the
    game's position is another) for ``hold_s`` without a break, the players have set up the next
    game. Time is passed in; ``deadline`` says when ``due`` may first be true."""

    hold_s: float = HOLD_S
    since: float | None = None

    def observe(self, time: float, at_start: bool) -> None:
        """A settled reading at ``time``: the start position (the game being elsewhere) or not."""
        if not at_start:
            self.since = None
        elif self.since is None:
            self.since = time

    def deadline(self) -> float | None:
        return None if self.since is None else self.since + self.hold_s

    def due(self, now: float) -> bool:
        return self.since is not None and now >= self.since + self.hold_s

    def reset(self) -> None:
        self.since = None


def at_start(occupied: int, white: int | None, black: int | None, start_occupied: int,
             start_white: int, start_black: int, game_occupied: int) -> bool:
    """The board shows the start position (colours too, on a board that reads them) and the
    game's position is not it (a game back at the start squares cannot be told from a reset)."""
    if occupied != start_occupied or game_occupied == start_occupied:
        return False
    return white is None or (white == start_white and black == start_black)


__all__ = ["RestartWatch", "at_start", "HOLD_S"]
