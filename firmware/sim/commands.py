"""The simulator's commands on the page: the hand's clicks, lifts, placings, the box beside the board and set-ups (``POST /api/sim/...``)."""
from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from firmware.web.backend import Backend
from firmware.web.rooms import Action
from firmware.sim.hand import PIECE_LETTERS, SimHand
from firmware.web.validate import Choice, Number, Spec, Square, Squares, one_of

SIM_CAPTURE_PAUSE_S = 0.15   # the victim's sensor settles empty before the mover lands (settle_ms is 30)

# Request bodies, one spec per command.
SIM_INDEX = Number(low=0, high=1, integer=True, optional=True)   # the held piece chosen to go down
SIM_SQUARE: Spec = {"square": Square(), "index": SIM_INDEX}
# A click on a square, or on a piece of the box beside the board (one of the two).
SIM_CLICK: Spec = {"square": Square(optional=True), "box": Choice(*PIECE_LETTERS, optional=True), "index": SIM_INDEX}
SIM_PASS: Spec = {"squares": Squares(max_items=64)}
SIM_ASIDE: Spec = {"index": SIM_INDEX}
EMPTY: Spec = {}



class SimCommands:
    """The simulated hand as the page drives it, on the session's loop: a
    :class:`~firmware.web.rooms.PageRoom` of the page.

    * ``commands()``: ``{path: (spec, action)}``; the server checks each body against its spec,
      calls ``action(values, now)`` (awaiting it when it is a coroutine) and then reports the
      change. ``click`` answers ``{"did": ...}`` (what the hand did), the others nothing.
    * ``click`` takes ``{"square": ...}`` or ``{"box": letter}`` (a piece of that kind from the box
      into the hand: a position set up by hand); ``aside`` puts a held piece in the box.
    * A movement the hand cannot make raises :class:`~firmware.sim.hand.HandError` (a 409).
    * While a position is set up by hand (``Backend.setting_up``), nothing is captured: a click on
      a piece lifts it (the hand holds two: one to put down, the one in its way).
    * A capture, and a set-up that changes the pieces on squares that stay filled, happen in two
      steps: the pieces go, ``changed()`` is called, and ``SIM_CAPTURE_PAUSE_S`` later (the
      sensors settled on their going) the pieces come down.
    * ``state()`` is the page state's ``"sim"`` (the hand synced with the game's position first,
      but not while a position is set up by hand: the game's position is then the target, and the
      pieces stand where the hand put them until the board sees them right);
      ``set_up()`` sets the pieces of the game's position (after a new game).
    """

    def __init__(self, hand: SimHand, backend: Backend, changed: Callable[[], None]) -> None:
        self.hand = hand
        self.backend = backend
        self.changed = changed

    def commands(self) -> dict[str, tuple[Spec, Action]]:
        return {
            "/api/sim/click": (SIM_CLICK, self.click),
            "/api/sim/lift": (SIM_SQUARE, self.lift),
            "/api/sim/place": (SIM_SQUARE, self.place),
            "/api/sim/pass": (SIM_PASS, self.pass_over),
            "/api/sim/aside": (SIM_ASIDE, self.aside),
            "/api/sim/setup": (EMPTY, self.setup),
        }

    def state(self) -> dict[str, Any]:
        if not self.backend.setting_up():
            self.hand.sync(self.backend.position())
        return self.hand.state()

    def set_up(self) -> None:
        self.hand.setup(self.backend.position())

    def _turn_colour(self) -> str:
        return "white" if self.backend.position().turn == 0 else "black"

    async def click(self, values: dict[str, Any], now: float) -> dict[str, Any]:
        """A click on the page, read here on the hand as it is now (the page's copy may lag): the
        side to move's held piece takes a piece of the other colour, else the click lifts the
        piece there, or puts the held piece down on an empty square. A click on the box takes a
        piece of that kind into the hand."""
        if one_of(values, "square", "box") == "box":
            self.hand.from_box(values["box"])
            return {"did": "from_box"}
        if await self._capture(values, movers_only=True):
            return {"did": "capture"}
        did = self.hand.click(values["square"], self._turn_colour(), values["index"])
        return {"did": did}

    async def _capture(self, values: dict[str, Any], movers_only: bool = False) -> bool:
        """A held piece put down on one of the other colour: the hand takes that piece off, then
        (once the sensors have settled on its going) sets the held piece down: one capture.
        ``movers_only``: only a piece of the side to move takes (a click on the mover's piece with
        the victim in the hand lifts it)."""
        hand, square, turn = self.hand, values["square"], self._turn_colour()
        if self.backend.setting_up() or not hand.captures(square, turn, values["index"]):
            return False   # (a hand setting a position up takes nothing: a click there lifts the piece)
        if movers_only and hand.held[hand.choose(turn, values["index"])].colour != turn:
            return False
        hand.take(square)
        self.changed()
        await asyncio.sleep(SIM_CAPTURE_PAUSE_S)
        if square in hand.pieces or not hand.held:   # another request changed the hand meanwhile
            return True
        hand.place(square, turn, values["index"])
        return True

    def lift(self, values: dict[str, Any], now: float) -> None:
        self.hand.lift(values["square"])

    async def place(self, values: dict[str, Any], now: float) -> None:
        if not await self._capture(values):
            self.hand.place(values["square"], self._turn_colour(), values["index"])

    def pass_over(self, values: dict[str, Any], now: float) -> None:
        for square in values["squares"]:
            self.hand.pass_over(square)

    def aside(self, values: dict[str, Any], now: float) -> None:
        self.hand.put_aside(values["index"])

    async def setup(self, values: dict[str, Any], now: float) -> None:
        """The arbiter sets the pieces up. Pieces that change on a square that stays filled (a
        Chess960 first rank) are lifted off first, and set down once the sensors have settled on
        their going: occupancy alone would not show them set anew, and the game waits for that."""
        changing = self.hand.changing(self.backend.position())
        if changing:
            self.hand.lift_off(changing)
            self.changed()
            await asyncio.sleep(SIM_CAPTURE_PAUSE_S)
        self.hand.setup(self.backend.position())


__all__ = ["SimCommands", "SIM_CAPTURE_PAUSE_S"]
