"""The web companion as a part of the board's service: built from the configuration, run beside the session.

``echiquier run`` passes :func:`serve_web` to :class:`firmware.service.Service` as a companion::

    Service(config, companions=(serve_web,))

It serves the page on ``[web] host``/``port`` for as long as the service runs. Bound beyond the
loopback interface (the default on a real board), every change needs the pairing code: the
configured ``[web] pairing_code``, or one drawn once and kept in the state directory. The code
is written to the journal at start; :func:`firmware.web.pairing.led_pattern` gives the frame
that shows it on the LEDs.
"""
from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

from ..config import Config
from .library import GameLibrary
from .pairing import Pairing, led_pattern, load_or_create_code
from .server import WebCompanion, is_loopback
from .session_backend import SessionBackend
from .simhand import SimHand

log = logging.getLogger(__name__)


def pairing_for(config: Config, code: str | None = None) -> Pairing:
    """The pairing of a page bound to ``[web] host``: none on loopback, else the board's code."""
    if is_loopback(config.web.host):
        return Pairing(None, required=False)
    return Pairing(code or config.web.pairing_code or load_or_create_code(config.state_dir), required=True)


def build_companion(session: Any, config: Config, *, pairing: Pairing | None = None, hand: SimHand | None = None,
                    clock: Callable[[], float] = time.monotonic) -> WebCompanion:
    """The web companion of ``session`` (not yet serving: ``await companion.start(host, port)``)."""
    return WebCompanion(SessionBackend(session), pairing=pairing or pairing_for(config),
                        library=GameLibrary(session.recorder.games_dir), hand=hand, clock=clock)


def page_address(host: str, port: int) -> str:
    shown = "127.0.0.1" if host in ("", "0.0.0.0") else host
    shown = f"[{shown}]" if ":" in shown else shown
    return f"http://{shown}:{port}/"


async def serve_web(service: Any) -> None:
    """Companion coroutine for the service: serve the page until cancelled."""
    config: Config = service.config
    if not config.web.enabled:
        return
    companion = build_companion(service.session, config, clock=service.session.clock)
    port = await companion.start(config.web.host, config.web.port)
    log.info("web companion on %s (listening on %s)", page_address(config.web.host, port), config.web.host)
    if companion.pairing.required:
        log.warning("pairing code of this board: %s (shown on the LEDs as bars on files a-f: %s)",
                    companion.pairing.code, "yes" if led_pattern(companion.pairing.code) else "no")
    try:
        await asyncio.Event().wait()
    finally:
        await companion.stop()


__all__ = ["serve_web", "build_companion", "pairing_for", "page_address"]
