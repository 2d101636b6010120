"""An LED sink that never stops the board: a missing library or a failing show() turns the LEDs off and says why.

rpi_ws281x fails at the first ``show()``, not when the chain is made (Blinka's bcm283x
``neopixel_write`` calls ``ws2811_init`` then: "NeoPixel support requires running with sudo");
an unplugged chain or a changed permission can fail any later one. The game must go on
without LEDs: :class:`GuardedLedSink` catches every exception of the sink it wraps (or of
opening it), logs it once, stops calling it and keeps the reason in ``problem`` for the page.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from .leds import LedSink

log = logging.getLogger(__name__)


def problem_text(exc: BaseException, when: str) -> str:
    """What a player reads: the LEDs are off, why, and what to run."""
    return (f"LEDs off: {when} failed ({type(exc).__name__}: {exc}). The game goes on without them; "
            "run echiquier hwtest --doctor on the Pi")


class GuardedLedSink(LedSink):
    """Wraps the sink ``open_sink()`` returns; see the module docstring.

    ``problem`` is None while the LEDs work, else the sentence saying why they are off.
    ``inner`` is the wrapped sink (None if opening it failed).
    """

    def __init__(self, open_sink: Callable[[], LedSink]):
        self.problem: str | None = None
        self.inner: LedSink | None = None
        try:
            self.inner = open_sink()
        except Exception as exc:  # noqa: BLE001 - ImportError, RuntimeError, OSError, ValueError: all mean no LEDs
            self._fail(exc, "opening the LED chain")

    @property
    def working(self) -> bool:
        return self.inner is not None and self.problem is None

    @property
    def milliamps(self) -> float | None:
        return getattr(self.inner, "milliamps", None)

    def _fail(self, exc: BaseException, when: str) -> None:
        self.problem = problem_text(exc, when)
        log.error("%s", self.problem, exc_info=(type(exc), exc, exc.__traceback__))

    def show(self, colours: Sequence[int]) -> None:
        if self.closed:
            raise RuntimeError("show() on a closed LED sink")
        inner = self.inner
        if inner is None or self.problem is not None:  # not working
            return
        try:
            inner.show(colours)
        except ValueError:
            raise  # a bad frame is the caller's bug, not the chain's
        except Exception as exc:  # noqa: BLE001
            self._fail(exc, "showing a frame")

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        if self.inner is not None:
            try:
                self.inner.close()
            except Exception:  # noqa: BLE001
                log.exception("closing the LED chain")
