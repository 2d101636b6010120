"""The exact searches a match runs a slice at a time: is the position dead (FIDE 5.2.2), can the side whose flag fell still be mated (6.9).

Contract
========

``Searches(exact)`` holds the game's dead-position rule (:attr:`dead_rule`, given to
:class:`chess_core.Game`) and the searches under way. Material rules answer at once; with
``exact`` the search after a move waits for the next poll (``dead_rule.pending``), so the move
reaches the LEDs before it runs.

* ``drop()``: the position judged is gone (a move, an amend, a takeback): its search is dropped.
* ``start_flag(side, at_ms, position)``: ``side``'s flag fell at ``at_ms``: can the other side
  still mate?
* ``run(game, steps, now_s)``: ``steps`` more steps of each search (0: to its end); returns the
  outcomes decided, each with its time in seconds (the flag's, or ``now_s`` for a dead position).
* ``busy``: a search waits or is under way; ``flagged``: the flag search is under way (the game
  is then no longer live).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chess_core import Game, Outcome, Position, Termination
from chess_core.dead import can_possibly_mate_steps, is_dead, is_dead_steps
from chess_core.dead_search import Steps

__all__ = ["Searches", "DeadRule"]


class DeadRule:
    """The game's dead-position test. Material rules answer at once; once ``defer`` is set, the
    exact search waits for the next poll (``pending``), so a move reaches the LEDs before it runs.
    A restore switches the test off while it pushes moves the game was already judged on."""

    def __init__(self, check: Callable[[Position], bool] | None) -> None:
        self.check = check
        self.enabled = True
        self.defer = False
        self.pending = False

    def __call__(self, position: Position) -> bool:
        if not self.enabled:
            return False
        if self.check is None or position.is_insufficient_material():
            return position.is_insufficient_material()
        if self.defer:
            self.pending = True
            return False
        return self.check(position)


class Searches:
    """The searches of one match; see the module docstring."""

    def __init__(self, exact: bool) -> None:
        self.dead_rule = DeadRule(is_dead if exact else None)
        self._dead: Steps[bool] | None = None                    # the dead-position search under way
        self._flag: tuple[int, int, Steps[bool]] | None = None   # (side, flag ms, search) under way

    @property
    def busy(self) -> bool:
        return self.dead_rule.pending or self._dead is not None or self._flag is not None

    @property
    def flagged(self) -> bool:
        return self._flag is not None

    def drop(self) -> None:
        """A move before the last position's verdict: that search is dropped, the new position is
        judged instead (a dead position stays dead whatever is played: the game still ends drawn,
        a move later), so a quick player never waits for a search."""
        self._dead = None

    def start_flag(self, side: int, at_ms: int, position: Position) -> None:
        self._flag = (side, at_ms, can_possibly_mate_steps(position, side ^ 1))

    def run(self, game: Game, steps: int, now_s: float) -> list[tuple[Outcome, float]]:
        """``steps`` more steps of the searches (0: to their end); the outcomes they decided."""
        decided: list[tuple[Outcome, float]] = []
        rule = self.dead_rule
        if rule.pending:
            rule.pending = False
            if game.outcome is None and rule.check is not None:
                self._dead = (is_dead_steps(game.position) if rule.check is is_dead
                              else _at_once(rule.check, game.position.copy()))
        if self._dead is not None:
            done, dead = _advance(self._dead, steps)
            if done:
                self._dead = None
                if dead and game.outcome is None:
                    decided.append((Outcome(Termination.INSUFFICIENT_MATERIAL), now_s))
        if self._flag is not None:
            side, at_ms, search = self._flag
            done, can = _advance(search, steps)
            if done:
                self._flag = None
                decided.append((Outcome(Termination.TIME_FORFEIT, side ^ 1) if can
                                else Outcome(Termination.TIME_VS_INSUFFICIENT), at_ms / 1000))
        return decided


def _advance(steps: Steps[Any], count: int) -> tuple[bool, Any]:
    """Run ``count`` more steps of a stepwise search (0: all): (finished, its result)."""
    try:
        if count <= 0:
            while True:
                next(steps)
        for _ in range(count):
            next(steps)
    except StopIteration as stop:
        return True, stop.value
    return False, None


def _at_once(check: Callable[[Position], bool], position: Position) -> Steps[bool]:
    """A dead-position test given as a plain function, as a search of one step."""
    return check(position)
    yield  # noqa: unreachable: makes this a generator
