"""The hub's games on disk: one JSON file per game under <state>/games/<board>/, and the ratings.

Files are written by a writer thread, each with fsync and a rename (a crash leaves the old file
or the new one), so that the hub's loop never waits for the disk (an fsync takes milliseconds:
at a hundred moves a second, in the loop, it would hold up every page). Writes of the same file
that pile up are coalesced: only the latest text is written. What a crash could lose (the last
few milliseconds), the broker's retained messages bring back when the hub starts again.
"""
from __future__ import annotations

import json
import logging
import threading
from pathlib import Path
from typing import Iterator

from durable.atomic_file import write_atomically

log = logging.getLogger(__name__)


def keep(path: Path, text: str) -> None:
    """Replace ``path`` by ``text``, its directory made if needed (:mod:`durable.atomic_file`: old or new)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, text)


class HubStore:
    """``<state>/games/<board>/<game id>.json``: the latest checked message of every game."""

    def __init__(self, state_dir: str | Path) -> None:
        self.dir = Path(state_dir)
        self.games_dir = self.dir / "games"
        self.ratings_path = self.dir / "ratings.json"
        self.writes = 0
        self._pending: dict[Path, str] = {}
        self._busy = False
        self._closing = False
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None

    def save_game(self, board: str, game_id: str, body: dict) -> None:
        """Queue the game's latest message for the disk (written by the writer thread)."""
        self._put(self.games_dir / board / f"{game_id}.json", json.dumps(body, separators=(",", ":")))

    def _put(self, path: Path, text: str) -> None:
        with self._cond:
            self._pending[path] = text
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="hub-store", daemon=True)
                self._thread.start()
            self._cond.notify_all()

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._pending or self._closing)
                if not self._pending:
                    return
                batch, self._pending = self._pending, {}
                self._busy = True
            for path, text in batch.items():
                try:
                    keep(path, text)
                    self.writes += 1
                except OSError as exc:
                    log.error("cannot keep %s: %s", path, exc)
            with self._cond:
                self._busy = False
                self._cond.notify_all()

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until everything queued is on disk; False if ``timeout`` passed first."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._pending and not self._busy, timeout)

    def close(self) -> None:
        """Write what is queued, then stop the writer thread."""
        with self._cond:
            self._closing = True
            self._cond.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join()

    def games(self) -> Iterator[tuple[str, bytes]]:
        """(board, message) of every game kept; unreadable files are logged and skipped."""
        if not self.games_dir.is_dir():
            return
        for path in sorted(self.games_dir.glob("*/*.json")):
            try:
                yield path.parent.name, path.read_bytes()
            except OSError as exc:
                log.error("cannot read %s: %s", path, exc)

    def load_ratings(self) -> dict | None:
        try:
            return json.loads(self.ratings_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            log.error("cannot read %s (%s): the rating list starts again", self.ratings_path, exc)
            return None

    def save_ratings(self, data: dict) -> None:
        self._put(self.ratings_path, json.dumps(data, indent=0))
