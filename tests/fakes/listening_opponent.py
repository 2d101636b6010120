"""An opponent that only listens: the test (or the bench) tells the session what the other side says through its listener."""
from __future__ import annotations

from typing import Any

from firmware.opponents.base import Opponent


class ListeningOpponent(Opponent):
    """Started, it keeps the session's listener (``listener``) and does nothing else."""

    name = "Script"

    async def start(self, listener: Any) -> None:
        self.listener = listener

    def on_move(self, move: Any) -> None:
        pass

    async def stop(self) -> None:
        pass
