"""The web companion as a part of the board's service: built from the configuration, run beside the session.

``echiquier run`` passes :func:`serve_web` to :class:`firmware.service.Service` as a companion::

    Service(config, companions=(serve_web,))

It serves the page on ``[web] host``/``port`` for as long as the service runs, to requests
addressed to the board's names (:func:`names_for`: ``[web] hosts`` adds more). Bound beyond the
loopback interface (the default on a real board), every change needs the pairing code: the
configured ``[web] pairing_code``, or one drawn once and kept in the state directory. The code
is written to the journal at start and shown on the LEDs for a while (:func:`show_pairing_code`).
What it shows on the LEDs is a layer (firmware.leds.compose) handed to the session through its
door, with its end: the session shows it and the game's lights again after it, on its own loop.
"""
from __future__ import annotations

import asyncio
import errno
import logging
import time
from collections.abc import Callable
from typing import Any

from firmware.companion import ServiceContext
from firmware.config import Config
from netserver.host_names import HostNames, bind_names, is_loopback
from firmware.library.games import GameLibrary
from firmware.leds.compose import flashing
from firmware.referee.feedback import BLINK_PERIOD_S
from firmware.session.door import Command
from firmware.web.pairing import Pairing, load_or_create_code, load_or_create_secret, pairing_layer
from firmware.web.server import WebCompanion
from firmware.web.session_backend import SessionBackend
from firmware.web.rooms import RoomFactory

log = logging.getLogger(__name__)


def pairing_for(config: Config, code: str | None = None) -> Pairing:
    """The pairing of a page bound to ``[web] host``: none on loopback, else the board's code."""
    if is_loopback(config.web.host):
        return Pairing(None, required=False)
    code = code or config.web.pairing_code or load_or_create_code(config.state_dir)
    return Pairing(code, required=True, secret=load_or_create_secret(config.state_dir))


def names_for(config: Config) -> HostNames:
    """The names the page answers to: its own (localhost, the hostname, ``<hostname>.local``), the
    ``[web] host`` it listens on if that is a name, and ``[web] hosts``."""
    return HostNames((*config.web.hosts, *bind_names(config.web.host)))


def recording(session: Any) -> str | None:
    """The file name of the game the board is playing (in progress in the library), or None."""
    record = session.file.record
    return record.pgn_name if record is not None and session.live else None


def build_companion(session: Any, config: Config, *, pairing: Pairing | None = None, room: RoomFactory | None = None,
                    clock: Callable[[], float] = time.monotonic) -> WebCompanion:
    """The web companion of ``session`` (not yet serving: ``await companion.start(host, port)``)."""
    return WebCompanion(SessionBackend(session), pairing=pairing or pairing_for(config),
                        library=GameLibrary(session.file.recorder.games_dir, playing=lambda: recording(session)),
                        room=room, clock=clock,
                        names=names_for(config), language=config.web.language)


def speak_with(companion: WebCompanion, service: ServiceContext) -> None:
    """The page's voice requests go to the board's voice too, while it has one (firmware.voice);
    the board's buttons ask through the page (its voice offered to the service) while it is served."""
    spoken = getattr(companion.backend, "spoken", None)
    if spoken is not None:
        spoken.board_voice = lambda: getattr(service, "voice", None)
        service.offer(page_voice=spoken)


def page_address(host: str, port: int) -> str:
    shown = "127.0.0.1" if host in ("", "0.0.0.0") else host
    shown = f"[{shown}]" if ":" in shown else shown
    return f"http://{shown}:{port}/"


PATTERN_S = 15.0   # how long the LEDs show the pairing code at start
ASKED_S = 60.0     # how long they show it when others' wrong codes hold the owner back
ASK_GAP_S = 300.0  # ... at most once in this time


def show_pairing_code(service: ServiceContext, code: str, seconds: float = PATTERN_S) -> bool:
    """Show ``code`` on the LEDs for ``seconds`` (the pairing layer, alone on the board above
    the others), then the board's own lights again; False: the board has no LEDs or the code
    cannot be shown."""
    session = service.session
    layer = pairing_layer(code, until=session.clock() + seconds)
    if layer is None or getattr(service, "leds", None) is None:
        return False
    session.door.post(Command("push_layer", (layer,)))
    return True


NO_PAGE_SQUARES = (27, 28, 35, 36)   # d4 e4 d5 e5: the page is not served
NO_PAGE_COLOUR = 0xFF0000
NO_PAGE_S = 5.0    # how long they flash at each attempt that fails
RETRY_S = 10.0


async def listen(service: ServiceContext, companion: WebCompanion, host: str, port: int, *, retry_s: float = RETRY_S) -> int:
    """Serve ``companion`` on ``host:port``, trying again every ``retry_s`` while the port is
    taken (another program, an old instance): the board plays on meanwhile, the journal says
    why at every attempt and the LEDs flash the four centre squares in red for a moment (the
    alarm "no_page", above the board's other lights but the pairing code)."""
    attempts = 0
    session = service.session
    while True:
        try:
            bound = await companion.start(host, port)
        except OSError as exc:
            attempts += 1
            log.error("the web page cannot listen on %s: %s%s; the board plays on without its page, "
                      "trying again every %g s (attempt %d)", page_address(host, port), exc.strerror or exc,
                      " (another program holds the port?)" if exc.errno == errno.EADDRINUSE else "",
                      retry_s, attempts)
            now = session.clock()
            session.door.post(Command("push_layer", (flashing(
                "no_page", "no_page", sum(1 << s for s in NO_PAGE_SQUARES), NO_PAGE_COLOUR, BLINK_PERIOD_S,
                since=now, until=now + NO_PAGE_S),)))
            await asyncio.sleep(retry_s)
            continue
        if attempts:
            session.door.post(Command("remove_layer", ("no_page",)))
        return bound


async def start_web(service: ServiceContext, *, pattern_s: float = PATTERN_S) -> WebCompanion | None:
    """Serve the page of ``service``'s session; None when ``[web] enabled = false``."""
    config: Config = service.config
    if not config.web.enabled:
        return None
    companion = build_companion(service.session, config, clock=service.session.clock)
    speak_with(companion, service)
    port = await listen(service, companion, config.web.host, config.web.port)
    log.info("web companion on %s (listening on %s)", page_address(config.web.host, port), config.web.host)
    if companion.pairing.required:
        pairing, clock = companion.pairing, service.session.clock
        shown = show_pairing_code(service, pairing.code, pattern_s)
        if shown:
            pairing.show(clock() + pattern_s)
        log.warning("pairing code of this board: %s%s", pairing.code,
                    " (on the LEDs now: count the lit squares up each file from a)" if shown else "")
        if len(pairing.code) < 8:
            log.warning("the pairing code has %d characters: eight or more are harder to guess", len(pairing.code))
        last = [float("-inf")]

        def on_show_code() -> None:
            now = clock()
            if now - last[0] < ASK_GAP_S:
                return
            last[0] = now
            if show_pairing_code(service, pairing.code, ASKED_S):
                pairing.show(now + ASKED_S)
                log.warning("many wrong pairing codes from the network: the LEDs show the code for %d s", ASKED_S)

        companion.guard.on_show_code = on_show_code
    return companion


async def serve_web(service: ServiceContext) -> None:
    """Companion coroutine for the service: serve the page until cancelled."""
    companion = await start_web(service)
    if companion is None:
        return
    try:
        await asyncio.Event().wait()
    finally:
        service.offer(page_voice=None)
        await companion.stop()


__all__ = ["serve_web", "start_web", "show_pairing_code", "build_companion", "pairing_for", "names_for",
           "speak_with", "page_address"]
