"""The emulated board at work: the session's settled board to the app, the app's bytes to its codec, its lights to the LEDs.

Contract
========

* ``Emulation(session, port, protocol, colour=, clock=, on_app=)``; ``start()`` on the
  loop, ``stop()``. ``port`` is a transport (:class:`~firmware.emulation.pty.PtyPort`):
  ``start(on_data, on_hangup)``, ``write(data)``.
* Every state the session publishes (after each settled reading, move or command), and before
  that every change it tells those who watch its board (``Session.watch_board``: right after it
  has shown the LEDs, before it saves the game), give the codec the pieces shown
  (:func:`~firmware.emulation.board.pieces_shown`: the game's position where the settled
  reading sees a piece); what the codec sends goes out at once, in that call. The board comes
  first in the session's step, before the game is saved (an fsync: 27 ms median here), the
  state after it: a move reaches the app as soon as the LEDs show it.
* The app's first well-formed command attaches it: ``on_app(AppLink)`` (the page says so, the
  game's PGN names it) and the LEDs are the app's: its layer (:func:`~firmware.emulation.leds.app_layer`,
  alone on the board) goes to the session through its door (``push_layer``), anew at each change
  of its lights, until the app leaves the port: then ``on_app(None)``, the layer is removed (the
  board's own lights again) and the codec starts afresh for the next app. Each change of the
  app's lights is one ``on_app`` with their frame and, when some blink, their patterns (the page
  plays the blink itself: a blinking frame is not pushed to the page at every phase). The board
  infers and records the moves all along.
* What an app's input may cost is bounded (:class:`InputBudget`): its bytes are carried out
  in slices of ``SLICE`` bytes, each timed; once the app has used its share of the loop's time
  (``RATE`` of it, ``BURST`` at once), the port stops reading (the app's writes wait, as on a
  slow serial line) until the share has come back; the bytes already read wait, at most
  ``MAX_HELD``, the rest dropped (a transport that cannot stop reading: Bluetooth). A local app
  flooding valid requests took the service's whole loop (moves reached it in 1.1-1.4 s instead
  of 50 ms).
* The codec's timed reports run on the loop's timers, at the deadlines the codec names; the
  app's blinking is the session's to play (its layer's slots wake its loop). The LEDs change at
  most every ``MIN_SLOT_S``: a faster pattern (ChessLink's slot time is 4.096 ms at the least)
  plays at that pace, page and board alike.
"""
from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Callable
from typing import Any, Protocol

from firmware.emulation.board import EMPTY_BOARD, AppSeen, Event, Light, Lights, Pieces, Send, pieces_shown
from firmware.emulation.chesslink import ChessLink
from firmware.emulation.chessnut import Chessnut
from firmware.emulation.pegasus import Pegasus
from firmware.emulation.dgt import Dgt
from firmware.emulation.leds import APP_LAYER, app_layer, frame_of
from firmware.leds.compose import Layer
from firmware.session.app_link import AppLink
from firmware.session.door import Command

log = logging.getLogger(__name__)

MIN_SLOT_S = 0.025       # the LEDs change at most 40 times a second, however fast an app asks


RATE = 0.1               # an app's input may take a tenth of the loop's time ...
BURST = 0.05             # ... and 50 ms of it at once
SLICE = 256              # bytes carried out between two looks at the budget
MAX_HELD = 4096          # bytes read and waiting while the budget comes back


class InputBudget:
    """A token bucket of the loop's time an app's input may take (pure: the times are passed in).

    ``charge(cost, now)`` takes ``cost`` seconds from it; ``wait(now)``: how long until it holds
    some again (0: now). It refills at ``rate`` seconds a second up to ``burst``.

    >>> budget = InputBudget(rate=0.1, burst=0.05)
    >>> budget.charge(0.07, now=10.0); round(budget.wait(10.0), 3)
    0.2
    >>> budget.wait(10.21)
    0.0
    """

    def __init__(self, rate: float = RATE, burst: float = BURST) -> None:
        if rate <= 0 or burst <= 0:
            raise ValueError("an input budget needs a rate and a burst above 0")
        self.rate, self.burst = rate, burst
        self.level = burst
        self.at: float | None = None

    def _refill(self, now: float) -> None:
        if self.at is not None and now > self.at:
            self.level = min(self.burst, self.level + (now - self.at) * self.rate)
        self.at = now if self.at is None else max(self.at, now)

    def charge(self, cost: float, now: float) -> None:
        self._refill(now)
        self.level -= max(0.0, cost)

    def wait(self, now: float) -> float:
        self._refill(now)
        return 0.0 if self.level > 0 else -self.level / self.rate + 1e-9


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


class Pausable(Protocol):
    """A transport that can stop reading the app for a while (the pseudo-terminal, a serial device)."""

    def pause_reading(self) -> None: ...

    def resume_reading(self) -> None: ...


# protocol -> (its name for players, the codec of one link)
PROTOCOLS: dict[str, tuple[str, Callable[[float], Codec]]] = {
    "chesslink": ("ChessLink", ChessLink),
    "dgt": ("DGT", Dgt),
    "chessnut": ("Chessnut", Chessnut),
    "pegasus": ("DGT Pegasus", Pegasus),
}


class Emulation:
    """One emulated board on one port; see the module docstring."""

    def __init__(self, session: Any, port: Port, protocol: str, *, colour: int = 0x00FFFF, app: str = "",
                 clock: Callable[[], float] | None = None, on_app: Callable[[AppLink | None], None] | None = None,
                 meter: Callable[[], float] = time.perf_counter, budget: InputBudget | None = None) -> None:
        if protocol not in PROTOCOLS:
            raise ValueError(f"no emulation of {protocol!r} (known: {', '.join(PROTOCOLS)})")
        self.session = session
        self.port = port
        self.protocol = protocol
        self.protocol_name, self._make_codec = PROTOCOLS[protocol]
        self.colour = colour
        self.app = app
        self.clock = clock or session.clock
        self.on_app = on_app
        self.codec: Codec = self._make_codec(self.clock())
        self.pieces = EMPTY_BOARD
        self.lights = Lights()
        self.attached: AppLink | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._unwatch: Callable[[], None] | None = None
        self._lit: Layer | None = None       # the app's layer handed to the session, while it is on the board
        self._timer: asyncio.TimerHandle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.meter = meter                   # the loop's time an app's input takes, measured
        self.budget = budget or InputBudget()
        self.held = bytearray()              # read, waiting for the budget to come back
        self.dropped = 0                     # bytes of an app over its budget beyond MAX_HELD
        self._resume: asyncio.TimerHandle | None = None

    # -- life ------------------------------------------------------------------------------------

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self.port.start(self._received, self._hangup)
        self._unsubscribe = self.session.subscribe(self._published)
        self._unwatch = self.session.watch_board(self._board_seen)
        self._show_board(self.clock())

    def stop(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self._unwatch is not None:
            self._unwatch()
            self._unwatch = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._forget_held()
        self._detach()

    # -- the board to the app ------------------------------------------------------------------

    def _published(self, state: Any) -> None:
        self._show_board(state.time, state.fen)

    def _board_seen(self, board: Any, fen: str) -> None:
        """The session has shown the LEDs of a change, mid-step (before it saves the game): only
        bytes go out from here (the codecs' ``board`` sends, it never lights nor attaches)."""
        self._show_board(self.clock(), fen, board)

    def _show_board(self, now: float, fen: str | None = None, board: Any = None) -> None:
        settled = board if board is not None else self.session.referee.board
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
        if self._resume is not None:            # over its budget: held (the port stops reading)
            self._hold(data)
            return
        self._take(data)

    def _take(self, data: bytes) -> None:
        """Carry out ``data`` slice by slice while the budget lasts; hold the rest."""
        for start in range(0, len(data), SLICE):
            wait = self.budget.wait(self.meter())
            if wait > 0:
                self._hold(data[start:])
                self._pause(wait)
                return
            began = self.meter()
            now = self.clock()
            self._carry(self.codec.receive(data[start:start + SLICE], now), now)
            ended = self.meter()
            self.budget.charge(ended - began, ended)
        wait = self.budget.wait(self.meter())
        if wait > 0:
            self._pause(wait)

    def _hold(self, data: bytes) -> None:
        room = MAX_HELD - len(self.held)
        if len(data) > room:
            self.dropped += len(data) - max(room, 0)
            data = data[:max(room, 0)]
        self.held += data

    def _pause(self, wait: float) -> None:
        if self._resume is not None or self._loop is None:
            return
        pause = getattr(self.port, "pause_reading", None)
        if pause is not None:
            pause()
        self._resume = self._loop.call_later(wait, self._resumed)

    def _resumed(self) -> None:
        self._resume = None
        held, self.held = bytes(self.held), bytearray()
        self._take(held)
        if self._resume is None:
            resume = getattr(self.port, "resume_reading", None)
            if resume is not None:
                resume()

    def _forget_held(self) -> None:
        self.held.clear()
        if self._resume is not None:
            self._resume.cancel()
            self._resume = None
            resume = getattr(self.port, "resume_reading", None)
            if resume is not None:
                resume()

    def _hangup(self) -> None:
        log.info("the app left the %s port: the board plays on by itself", self.protocol_name)
        self._forget_held()
        self._detach()
        self.codec = self._make_codec(self.clock())
        self.codec.board(self.pieces, self.clock())
        self._schedule()

    def _detach(self) -> None:
        self.lights = Lights()
        if self._lit is not None:
            self._lit = None
            self.session.door.post(Command("remove_layer", (APP_LAYER,)))
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
                self._show_lights()
                self._tell_page()
            elif isinstance(event, AppSeen):
                self._attach(now)
        self._schedule()

    def _attach(self, now: float) -> None:
        if self.attached is not None:
            return
        self.attached = AppLink(self.app, self.protocol_name)
        log.info("an app speaks %s to the board: it holds the LEDs", self.protocol_name)
        self._show_lights()
        self._tell_page()

    def _show_lights(self) -> None:
        """The app's lights to the session, as its layer (the session plays their slots)."""
        layer = app_layer(self.lights, self.colour)
        if self.attached is not None and layer != self._lit:
            self._lit = layer
            self.session.door.post(Command("push_layer", (layer,)))

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
        deadline = self.codec.next_deadline()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if deadline is not None:
            self._timer = self._loop.call_later(max(0.0, deadline - now), self._tick)

    def _tick(self) -> None:
        self._timer = None
        now = self.clock()
        self._carry(self.codec.poll(now), now)


__all__ = ["Emulation", "InputBudget", "PROTOCOLS", "MIN_SLOT_S"]
