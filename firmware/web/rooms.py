"""What a room beside the page adds to its API: its commands, its part of the state, its set-up (the simulator's hand is one)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from firmware.web.backend import Backend
from firmware.web.validate import Spec

__all__ = ["Action", "PageRoom", "RoomFactory"]

Action = Callable[[dict[str, Any], float], Any]   # (checked body, now) -> None, a dict for the answer, or a coroutine


class PageRoom(Protocol):
    """A part of the product that adds commands to the page (``firmware/sim/``: the simulated
    hand), known to the page only through this: the page never imports the room.

    * ``commands()``: ``{path: (spec, action)}``; the server checks each body against its spec,
      calls ``action(values, now)`` (awaiting it when it is a coroutine), answers what it returns
      and then reports the change; a :class:`~firmware.web.backend.CommandRefused` it raises is
      a 409 in the player's words.
    * ``state()``: the room's part of the page state (under its name).
    * ``set_up()``: the game changed (a new game): the room follows.
    """

    def commands(self) -> dict[str, tuple[Spec, Action]]: ...

    def state(self) -> dict[str, Any]: ...

    def set_up(self) -> None: ...


# Builds the room for the page's backend; its second argument tells the page that the room changed something.
RoomFactory = Callable[[Backend, Callable[[], None]], PageRoom]
