"""The emulated board at work: the session's settled board to the app, the app's bytes to its codec, its lights to the LEDs.

Contract
========

* ``Emulation(session, port, protocol, leds=, colour=, clock=, on_app=)``; ``start()`` on the
  loop, ``stop()``. ``port`` is a transport (:class:`~firmware.emulation.pty.PtyPort`):
  ``start(on_data, on_hangup)``, ``write(data)``.
* Every state the session publishes (after each settled reading, move or command), and before
  that every LED frame it shows, give the codec the pieces shown
  (:func:`~firmware.emulation.board.pieces_shown`: the game's position where the settled
  reading sees a piece); what the codec sends goes out at once, in that call. The frame comes
  first in the session's step, before the game is saved (an fsync: 27 ms median here), the
  state after it: a move reaches the app as soon as the LEDs show it.
* The app's first well-formed command attaches it: ``on_app(AppLink)`` (the page says so, the
  game's PGN names it) and the LEDs are the app's (:class:`~firmware.emulation.leds.LentLeds`)
  until the app leaves the port: then ``on_app(None)``, the LEDs go back to the session and the
  codec starts afresh for the next app. Each change of the app's lights is one ``on_app`` with
  their frame and, when some blink, their patterns (the page plays the blink itself: a blinking
  frame is not pushed to the page at every phase). The board infers and records the moves all
  along.
* The codec's timed reports and the app's blinking run on the loop's timers, at the deadlines
  the codec and the lights name. The LEDs change at most every ``MIN_SLOT_S``: a faster
  pattern (ChessLink's slot time is 4.096 ms at the least) plays at that pace, page and board
  alike.
"""
from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable
from typing import Any, Protocol

from firmware.emulation.board import EMPTY_BOARD, AppSeen, Event, Light, Lights, Pieces, Send, pieces_shown
from firmware.emulation.chesslink import ChessLink
from firmware.emulation.chessnut import Chessnut
from firmware.emulation.pegasus import Pegasus
from firmware.emulation.dgt import Dgt
from firmware.emulation.leds import LentLeds, frame_of
from firmware.session.app_link import AppLink

log = logging.getLogger(__name__)

MIN_SLOT_S = 0.025       # the LEDs change at most 40 times a second, however fast an app asks


def paced(lights: Lights) -> Lights:
    """``lights`` with a slot time of ``MIN_SLOT_S`` at the least (the same patterns, played slower)."""
    if 0 < lights.slot_s < MIN_SLOT_S:
        return dataclasses.replace(lights, slot_s=MIN_SLOT_S)
    return lights


class Codec(Protocol):
    """What the bridge asks of a protocol's codec (firmware.emulation.chesslink, .dgt)."""

    def receive(self, data: bytes, now: float) -> list[Event]: ...

    def board(self, pieces: Pieces, now: float) -> list[Event]: ...

    def poll(self, now: float) -> list[Event]: ...

    def next_deadline(self) -> float | None: ...


class Port(Protocol):
    """What the bridge asks of a transport (firmware.emulation.pty.PtyPort)."""

    def start(self, on_data: Callable[[bytes], None], on_hangup: Callable[[], None]) -> None: ...

    def write(self, data: bytes) -> None: ...


# protocol -> (its name for players, the codec of one link)
PROTOCOLS: dict[str, tuple[str, Callable[[float], Codec]]] = {
    "chesslink": ("ChessLink", ChessLink),
    "dgt": ("DGT", Dgt),
    "chessnut": ("Chessnut", Chessnut),
    "pegasus": ("DGT Pegasus", Pegasus),
}


class Emulation:
    """One emulated board on one port; see the module docstring."""

    def __init__(self, session: Any, port: Port, protocol: str, *, leds: LentLeds | None = None,
                 colour: int = 0x00FFFF, app: str = "", clock: Callable[[], float] | None = None,
                 on_app: Callable[[AppLink | None], None] | None = None) -> None:
        if protocol not in PROTOCOLS:
            raise ValueError(f"no emulation of {protocol!r} (known: {', '.join(PROTOCOLS)})")
        self.session = session
        self.port = port
        self.protocol = protocol
        self.protocol_name, self._make_codec = PROTOCOLS[protocol]
        self.leds = leds
        self.colour = colour
        self.app = app
        self.clock = clock or session.clock
        self.on_app = on_app
        self.codec: Codec = self._make_codec(self.clock())
        self.pieces = EMPTY_BOARD
        self.lights = Lights()
        self.attached: AppLink | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    # -- life ------------------------------------------------------------------------------------

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self.port.start(self._received, self._hangup)
        self._unsubscribe = self.session.subscribe(self._published)
        if self.leds is not None:
            self.leds.on_show = self._frame_shown
        self._show_board(self.clock())

    def stop(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.leds is not None:
            self.leds.on_show = None
        self._detach()

    # -- the board to the app ------------------------------------------------------------------

    def _published(self, state: Any) -> None:
        self._show_board(state.time, state.fen)

    def _frame_shown(self) -> None:
        """The session has shown a frame, mid-step: the game and the settled board are read; only
        bytes go out from here (the codecs' ``board`` sends, it never lights nor attaches)."""
        self._show_board(self.clock())

    def _show_board(self, now: float, fen: str | None = None) -> None:
        settled = self.session.referee.board
        if settled is None:
            pieces = EMPTY_BOARD
        else:
            pieces = pieces_shown(fen if fen is not None else self.session.game.fen(), settled.occupied,
                                  settled.white, settled.black)
        if pieces == self.pieces:
            return
        self.pieces = pieces
        self._carry(self.codec.board(pieces, now), now)

    # -- the app to the board -------------------------------------------------------------------

    def _received(self, data: bytes) -> None:
        now = self.clock()
        self._carry(self.codec.receive(data, now), now)

    def _hangup(self) -> None:
        log.info("the app left the %s port: the board plays on by itself", self.protocol_name)
        self._detach()
        self.codec = self._make_codec(self.clock())
        self.codec.board(self.pieces, self.clock())
        self._schedule()

    def _detach(self) -> None:
        self.lights = Lights()
        if self.leds is not None:
            self.leds.give_back()
        if self.attached is not None:
            self.attached = None
            if self.on_app is not None:
                self.on_app(None)

    def _carry(self, events: list[Event], now: float) -> None:
        for event in events:
            if isinstance(event, Send):
                self.port.write(event.data)
            elif isinstance(event, Light):
                self.lights = paced(event.lights)
                self._show_lights(now)
                self._tell_page()
            elif isinstance(event, AppSeen):
                self._attach(now)
        self._schedule()

    def _attach(self, now: float) -> None:
        if self.attached is not None:
            return
        self.attached = AppLink(self.app, self.protocol_name)
        log.info("an app speaks %s to the board: it holds the LEDs", self.protocol_name)
        self._show_lights(now)
        self._tell_page()

    def _show_lights(self, now: float) -> None:
        """The LEDs as the app's lights are at ``now`` (a blink's phase)."""
        if self.attached is not None and self.leds is not None:
            self.leds.lend(frame_of(self.lights, now, self.colour))

    def _tell_page(self) -> None:
        """The page: the squares the app lights and, when some blink, their patterns (once)."""
        if self.attached is None:
            return
        lights = self.lights
        frame = frame_of(dataclasses.replace(lights, slot_s=0.0), 0.0, self.colour)
        blink = (lights.slot_s, lights.patterns) if lights.next_change(lights.since) is not None else None
        if (frame, blink) != (self.attached.leds, self.attached.blink):
            self.attached = AppLink(self.attached.app, self.attached.protocol, frame, blink)
            if self.on_app is not None:
                self.on_app(self.attached)

    # -- time ----------------------------------------------------------------------------------

    def _schedule(self) -> None:
        if self._loop is None:
            return
        now = self.clock()
        deadlines = [d for d in (self.codec.next_deadline(), self.lights.next_change(now)) if d is not None]
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if deadlines:
            self._timer = self._loop.call_later(max(0.0, min(deadlines) - now), self._tick)

    def _tick(self) -> None:
        self._timer = None
        now = self.clock()
        self._show_lights(now)
        self._carry(self.codec.poll(now), now)


__all__ = ["Emulation", "PROTOCOLS"]
