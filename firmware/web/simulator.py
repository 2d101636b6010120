"""The simulator: the game session on a simulated board, driven from the web page.

Everything a real board runs runs here: the :class:`~firmware.session.Session` (debouncer,
inference, clock, draw rules, recorder, LED feedback), fed with the readings of a
:class:`~board_driver.sim.SimulatedBoard` whose pieces the page moves through a
:class:`~firmware.web.simhand.SimHand`. The LEDs go to a
:class:`~board_driver.sim_leds.RecordingLedSink`, and the page draws them.

:class:`SessionPump` is the thin async shell between a sensor source and the session (feed each
reading on the loop, poll at the session's next deadline); it is what ``firmware.service`` does
for ``echiquier run``.
"""
from __future__ import annotations

import asyncio
import dataclasses
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from board_driver.reading import Reading
from board_driver.sim import SimulatedBoard
from board_driver.sim_leds import RecordingLedSink

from ..config import Config, parse_config, with_overrides
from ..recorder import Recorder
from .library import GameLibrary
from .pairing import Pairing, led_pattern, load_or_create_code
from .server import WebCompanion, is_loopback
from .session_backend import SessionBackend
from .simhand import SimHand

log = logging.getLogger(__name__)


class SessionPump:
    """Feeds a session with a sensor source's readings and polls it at its deadlines.

    Readings may arrive on any thread; they are fed on the loop, in order. After each input the
    next ``poll`` is scheduled at ``session.next_deadline`` (blinking LEDs included), so nothing
    runs on a fixed tick. ``after_input`` is called after each feed and poll (the web companion
    uses it to push the new state).
    """

    def __init__(self, session: Any, *, clock: Callable[[], float] = time.monotonic,
                 after_input: Callable[[], None] | None = None) -> None:
        self.session = session
        self.clock = clock
        self.after_input = after_input
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._thread: int | None = None
        self.fed = 0

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._thread = threading.get_ident()
        self._schedule()

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._loop = None

    def sink(self, reading: Reading) -> None:
        """The sensor source's sink: feed now if on the loop's thread, else hand over."""
        loop = self._loop
        if loop is None:
            return
        if threading.get_ident() == self._thread:
            self._feed(reading)
        else:
            loop.call_soon_threadsafe(self._feed, reading)

    def _feed(self, reading: Reading) -> None:
        if self._loop is None:
            return
        try:
            self.session.feed(reading)
        except Exception:  # noqa: BLE001 - one bad reading must not stop the board
            log.exception("the session failed on a reading")
        self.fed += 1
        self._done()

    def _poll(self) -> None:
        self._timer = None
        if self._loop is None:
            return
        try:
            self.session.poll(self.clock())
        except Exception:  # noqa: BLE001 - keep polling: the clock and the LEDs depend on it
            log.exception("the session failed to poll")
        self._done()

    def _done(self) -> None:
        if self.after_input is not None:
            self.after_input()
        self._schedule()

    def _schedule(self) -> None:
        if self._loop is None:
            return
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        now = self.clock()
        deadline = self.session.next_deadline(now)
        if deadline is not None:
            self._timer = self._loop.call_later(max(0.0, deadline - now), self._poll)


def simulator_config(base: Config | None, state_dir: str | Path, *, time_control: str | None = None,
                     rules: str | None = None, fen: str | None = None, settle_ms: int | None = None) -> Config:
    """``base`` (or the defaults) for the simulator: simulated sensors and LEDs, ``state_dir``."""
    config = base if base is not None else parse_config({"board": {"sensors": "sim"}}, "echiquier sim")
    game: dict[str, Any] = {}
    if time_control is not None:
        game["time_control"] = time_control
    if rules is not None:
        game["rules"] = rules
    if fen is not None:
        game["fen"] = fen
    board: dict[str, Any] = {"sensors": "sim"}
    if settle_ms is not None:
        board["settle_ms"] = settle_ms
    sections: dict[str, dict[str, Any]] = {"board": board, "storage": {"dir": str(state_dir)}}
    if game:
        sections["game"] = game
    config = with_overrides(config, **sections)
    return dataclasses.replace(config, leds=dataclasses.replace(config.leds, sink="sim"))


class Simulator:
    """A session on a simulated board with its web companion; ``await start()``, ``await stop()``."""

    def __init__(self, config: Config, *, host: str = "127.0.0.1", port: int = 8080,
                 pairing_code: str | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        from ..session import Session  # the session imports the whole game stack: only when used

        self.config = config
        self.host = host
        self.port = port
        self.clock = clock
        self.state_dir = Path(config.storage.dir)
        self.leds = RecordingLedSink(max_frames=8)
        self.recorder = Recorder(self.state_dir)
        self.session = Session(config, recorder=self.recorder, leds=self.leds, clock=clock)
        self.session.restore(clock())
        position = self.session.game.position
        self.board = SimulatedBoard(position.occupied, clock=clock)
        self.hand = SimHand(self.board, position)
        self.backend = SessionBackend(self.session)
        required = not is_loopback(host)
        code = None
        if required:
            code = pairing_code or config.web.pairing_code or load_or_create_code(self.state_dir)
        self.pairing = Pairing(code, required=required)
        self.companion = WebCompanion(self.backend, pairing=self.pairing,
                                      library=GameLibrary(self.recorder.games_dir), hand=self.hand, clock=clock)
        self.pump = SessionPump(self.session, clock=clock)
        self.companion.on_sim_change = self.companion.changed
        self.url: str | None = None

    @property
    def pairing_pattern(self) -> tuple[int, ...] | None:
        return led_pattern(self.pairing.code) if self.pairing.required else None

    async def start(self) -> str:
        """Serve the page and start the board; returns the page's address."""
        self.recorder.prepare()
        self.pump.start()
        self.board.start(self.pump.sink)
        port = await self.companion.start(self.host, self.port)
        shown = f"[{self.host}]" if ":" in self.host else self.host
        self.url = f"http://{shown}:{port}/"
        return self.url

    async def stop(self) -> None:
        """Stop the page, the board and the session (saving the game). Idempotent."""
        await self.companion.stop()
        self.pump.stop()
        self.board.stop()
        self.backend.close()
        await self.session.aclose()


__all__ = ["Simulator", "SessionPump", "simulator_config"]
