"""What runs beside the board's session (the page, the voice, the club, an emulated board): the service as it sees it.

A companion is a coroutine function given the service's context once the service runs, and
cancelled when it stops. It reads the context and never writes it: what it asks of the session
goes through the session's door (:mod:`firmware.session.door`), what it lends the board (a voice)
through ``offer``. It never shows a frame on the LEDs: what it lights (the pairing code, an app's
lights) is a layer handed to the session through the door, which the session composes and shows.
"""
from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Callable, Coroutine, Protocol

if TYPE_CHECKING:
    from firmware.config import Config
    from firmware.session.session import Session

__all__ = ["ServiceContext", "Companion", "KEEP"]

KEEP: Any = object()
"""``offer``'s default: that part is not changed."""


class ServiceContext(Protocol):
    """The service as a companion sees it; see the module docstring."""

    @property
    def config(self) -> Config: ...

    @property
    def session(self) -> Session:
        """The board's session: read it (``state``, ``subscribe``, ``clock``), change it through ``session.door``."""

    @property
    def ready(self) -> asyncio.Event:
        """Set once the board has been read."""

    @property
    def leds(self) -> Any:
        """The board's LED sink (None: no LEDs); the session alone shows frames on it."""

    def offer(self, *, voice: Any = KEEP, page_voice: Any = KEEP) -> None:
        """What the companion lends the board, None when it takes it back: the board's voice (the
        buttons ask it), the page's voice (the buttons ask it while the page is served)."""

    def stop(self) -> None:
        """Stop the service (a companion the board cannot do without has failed)."""


Companion = Callable[[ServiceContext], Coroutine[Any, Any, None]]
"""A coroutine function run beside the session; see the module docstring."""
