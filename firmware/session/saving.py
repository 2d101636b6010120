"""When saving the game fails (a full disk, no file handles left): the words for the players, the LED mark, the retries.

The session keeps the moves in memory and its record dirty; :class:`SaveState` says when to try
again (time passed in; the wait doubles from ``first_s`` to ``max_s``) and what to tell the
players until a save succeeds. :func:`alarm` is the mark on the LEDs (a layer above the others,
firmware.leds.compose): the four corner squares flashing, the check colour and white in turn, for
as long as the game is not safely on disk.
"""
from __future__ import annotations

import errno
import logging
from typing import TYPE_CHECKING

from firmware.leds.compose import Layer, flashing

if TYPE_CHECKING:
    from firmware.referee.feedback import LedStyle

from firmware.words.message import English, Message

log = logging.getLogger(__name__)

CORNERS = (0, 7, 56, 63)   # a1, h1, a8, h8

_WORDS = {
    errno.ENOSPC: "the storage is full",
    errno.EDQUOT: "the storage quota is used up",
    errno.EFBIG: "a file may not grow any more (file-size limit)",
    errno.EMFILE: "too many open files",
    errno.ENFILE: "too many open files in the system",
    errno.EROFS: "the storage is read-only",
    errno.EACCES: "no permission to write the game",
    errno.EIO: "the storage reports an input/output error",
}


def describe(exc: BaseException) -> str:
    """The reason a save failed, in words for the page and the journal."""
    if isinstance(exc, OSError) and exc.errno in _WORDS:
        return _WORDS[exc.errno]
    if isinstance(exc, OSError):
        return exc.strerror or str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {exc}"[:200]


class SaveState:
    """Whether the last save failed, why, and when to try again."""

    def __init__(self, first_s: float = 1.0, max_s: float = 30.0) -> None:
        self.first_s = first_s
        self.max_s = max_s
        self.error: str | None = None
        self.failures = 0
        self._next: float | None = None

    def due(self, now: float | None) -> bool:
        return self._next is None or now is None or now >= self._next

    def deadline(self) -> float | None:
        """When to try again (None: no failure pending)."""
        return self._next

    def failed(self, exc: BaseException, now: float | None) -> None:
        reason = describe(exc)
        if reason != self.error:
            log.error("cannot save the game: %s (%s); the moves are kept in memory and saving is retried",
                      reason, exc)
        self.error = reason
        self.failures += 1
        wait = min(self.max_s, self.first_s * 2 ** min(self.failures - 1, 10))
        self._next = (now if now is not None else 0.0) + wait

    def succeeded(self) -> None:
        if self.error is not None:
            log.warning("the game is saved again (after %d failed attempts)", self.failures)
        self.error = None
        self.failures = 0
        self._next = None

    def message(self) -> Message | None:
        """What the page says while the game is not safely saved."""
        if self.error is None:
            return None
        return Message.of("cannot_save", error=English(self.error))


def alarm(error: str | None, style: LedStyle) -> Layer | None:
    """The mark on the LEDs while the game cannot be saved (``error``: why; None: it is saved)."""
    if error is None:
        return None
    return flashing("save_failed", "save_failed", sum(1 << s for s in CORNERS), style.dim(style.check),
                    style.blink_period, flash=style.dim(0xFFFFFF))


__all__ = ["SaveState", "describe", "alarm", "CORNERS"]
