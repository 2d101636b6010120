"""The simulator: the board's service on a simulated board, driven from the web page.

Everything a real board runs runs here: the :class:`~firmware.service.Service` shell (readings
handed over to the loop, the session polled at its deadlines) and its
:class:`~firmware.session.session.Session` (debouncer, inference, clock, draw rules, recorder, LED
feedback). Only the ends differ: the sensors are a :class:`~board_driver.backends.sim.SimulatedBoard`
whose pieces the page moves through a :class:`~firmware.sim.hand.SimHand`, and the LEDs a
:class:`~board_driver.backends.sim_leds.RecordingLedSink` that the page draws. The opponent (Stockfish,
Lichess) is the one the configuration names, built as for a real board
(:func:`firmware.opponents.factory.build_opponent`), or the one chosen in the page's new-game dialog.
"""
from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from board_driver.backends.sim import SimulatedBoard
from board_driver.backends.sim_leds import RecordingLedSink
from chess_core import STARTING_FEN, Position

from firmware.companion import ServiceContext
from firmware.config import Config, parse_config, with_overrides
from firmware.session.recorder import Recorder
from firmware.web.companion import build_companion, page_address, pairing_for, speak_with
from firmware.web.server import WebCompanion
from firmware.sim.commands import SimCommands
from firmware.sim.hand import SimHand

log = logging.getLogger(__name__)


def simulator_config(base: Config | None, state_dir: str | Path, *, time_control: str | None = None,
                     rules: str | None = None, fen: str | None = None, settle_ms: int | None = None,
                     host: str = "127.0.0.1", port: int = 8080, pairing_code: str | None = None,
                     opponent: str | None = None, engine_side: str | None = None,
                     engine_level: int | None = None, variant: str | None = None,
                     start_position: int | None = None) -> Config:
    """``base`` (or the defaults) for the simulator: simulated sensors and LEDs, ``state_dir``;
    ``opponent`` ("none", "engine", "lichess"), ``engine_side`` and ``engine_level`` as in the
    configuration's ``[game] opponent`` and ``[engine]``."""
    config = base if base is not None else parse_config({"board": {"sensors": "sim"}}, "echiquier sim")
    game: dict[str, Any] = {}
    if opponent is not None:
        game["opponent"] = opponent
    engine: dict[str, Any] = {}
    if engine_side is not None:
        engine["side"] = engine_side
    if engine_level is not None:
        engine["level"] = engine_level
    if time_control is not None:
        game["time_control"] = time_control
    if rules is not None:
        game["rules"] = rules
    if fen is not None:
        game["fen"] = fen
    if variant is not None:
        game["variant"] = variant
    if start_position is not None:
        game["start_position"] = start_position
    board: dict[str, Any] = {"sensors": "sim"}
    if settle_ms is not None:
        board["settle_ms"] = settle_ms
    web: dict[str, Any] = {"host": host, "enabled": True}
    if port:  # 0 (any free port) is for Simulator(port=0): the configuration names a real port
        web["port"] = port
    if pairing_code is not None:
        web["pairing_code"] = pairing_code
    sections: dict[str, dict[str, Any]] = {"board": board, "storage": {"dir": str(state_dir)}, "web": web}
    if game:
        sections["game"] = game
    if engine:
        sections["engine"] = engine
    config = with_overrides(config, **sections)
    return dataclasses.replace(config, leds=dataclasses.replace(config.leds, sink="sim"))


def saved_position(config: Config) -> Position:
    """Where the pieces stand when the simulator starts: the saved game's position, else the start."""
    record = Recorder(config.storage.dir).load()
    if record is not None:
        return record.game().position
    return Position(config.game.start_fen() or STARTING_FEN, chess960=config.game.chess960)


class Simulator:
    """The service on a simulated board, with the web companion driving it.

    ``await run()`` runs until ``stop()`` (or SIGINT/SIGTERM); ``await started()`` returns the
    page's address once it is served. ``companions``: the service's others (the club publisher).
    """

    def __init__(self, config: Config, *, port: int | None = None, clock: Callable[[], float] = time.monotonic,
                 announce: Callable[[str], None] | None = None, opponent: Any = None,
                 companions: tuple[Callable[[Any], Coroutine[Any, Any, None]], ...] = ()) -> None:
        from firmware.service import Service  # the service imports the whole game stack: only when used

        self.config = config
        self.port = config.web.port if port is None else port
        self.clock = clock
        self.announce = announce
        position = saved_position(config)
        self.board = SimulatedBoard(position.occupied, clock=clock)
        self.hand = SimHand(self.board, position)
        self.leds = RecordingLedSink(max_frames=8)
        self.service = Service(config, source=self.board, leds=self.leds, clock=clock,
                               companions=(self._serve, *companions), opponent=opponent)
        self.session = self.service.session
        self.pairing = pairing_for(config)
        self.companion: WebCompanion | None = None
        self.url: str | None = None
        self.listen_error: OSError | None = None   # why the page could not listen, if it could not
        self._started: asyncio.Future | None = None

    @property
    def backend(self):
        return self.companion.backend if self.companion is not None else None

    async def run(self) -> int:
        self._started = asyncio.get_running_loop().create_future()
        try:
            return await self.service.run()
        finally:
            if not self._started.done():
                self._started.set_exception(RuntimeError("the simulator stopped before serving its page"))

    def _room(self, backend: Any, changed: Callable[[], None]) -> SimCommands:
        """The page's commands that move the simulated hand (a room of the page)."""
        return SimCommands(self.hand, backend, changed)

    async def started(self) -> str:
        while self._started is None:
            await asyncio.sleep(0)
        return await asyncio.shield(self._started)

    def stop(self) -> None:
        self.service.stop()

    async def _serve(self, service: ServiceContext) -> None:
        started = self._started
        if started is None:
            raise RuntimeError("the simulator serves its page only while it runs (run())")
        web = self.config.web
        self.companion = build_companion(self.session, self.config, pairing=self.pairing, room=self._room,
                                         clock=self.clock)
        speak_with(self.companion, service)
        try:
            port = await self.companion.start(web.host, self.port)
        except OSError as exc:
            self.listen_error = exc
            started.set_exception(exc)
            service.stop()
            return
        self.url = page_address(web.host, port)
        if self.announce is not None:
            self.announce(self.url)
        started.set_result(self.url)
        try:
            await asyncio.Event().wait()
        finally:
            await self.companion.stop()


__all__ = ["Simulator", "simulator_config", "saved_position"]
