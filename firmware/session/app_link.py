"""An app attached to the board through an emulated commercial board's protocol: the line the page shows and the PGN tags of its games."""
from __future__ import annotations

from dataclasses import dataclass

import firmware.words as words

__all__ = ["AppLink"]


@dataclass(frozen=True)
class AppLink:
    """An app playing on the board: its name as the settings give it ("" when not known), the
    protocol it speaks ("ChessLink", "DGT"), the LEDs' frame its lights make (64 colours, every
    square it lights at some moment; None before it lights any) and, when some blink, how:
    ``blink`` = (the slot time in seconds, 64 patterns a1 first, one bit a slot, bit 7 first),
    given once for the page to play, not pushed at every phase."""

    app: str
    protocol: str
    leds: tuple[int, ...] | None = None
    blink: tuple[float, tuple[int, ...]] | None = None

    def text(self, lang: str = words.FALLBACK) -> str:
        """"Playing in PicoChess over DGT", in ``lang``."""
        if self.app:
            return words.prompt("playing_in_app", lang, app=self.app, protocol=self.protocol)
        return words.prompt("playing_in_an_app", lang, protocol=self.protocol)

    def tags(self) -> dict[str, str]:
        """The PGN tags of a game played while the app is attached."""
        return {"App": self.app or "?", "AppProtocol": self.protocol}
