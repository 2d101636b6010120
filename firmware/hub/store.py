"""The hub's games on disk: one JSON file per game under <state>/games/<board>/, and the ratings."""
from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Iterator, Optional

log = logging.getLogger(__name__)


def write_atomically(path: Path, text: str) -> None:
    """Replace ``path`` by ``text``: a temporary file, fsync, rename (a crash leaves old or new)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o640)
    try:
        os.write(fd, text.encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


class HubStore:
    """``<state>/games/<board>/<game id>.json``: the latest checked message of every game."""

    def __init__(self, state_dir: str | Path) -> None:
        self.dir = Path(state_dir)
        self.games_dir = self.dir / "games"
        self.ratings_path = self.dir / "ratings.json"

    def save_game(self, board: str, game_id: str, body: dict) -> None:
        write_atomically(self.games_dir / board / f"{game_id}.json", json.dumps(body, separators=(",", ":")))

    def games(self) -> Iterator[tuple[str, bytes]]:
        """(board, message) of every game kept; unreadable files are logged and skipped."""
        if not self.games_dir.is_dir():
            return
        for path in sorted(self.games_dir.glob("*/*.json")):
            try:
                yield path.parent.name, path.read_bytes()
            except OSError as exc:
                log.error("cannot read %s: %s", path, exc)

    def load_ratings(self) -> Optional[dict]:
        try:
            return json.loads(self.ratings_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            log.error("cannot read %s (%s): the rating list starts again", self.ratings_path, exc)
            return None

    def save_ratings(self, data: dict) -> None:
        write_atomically(self.ratings_path, json.dumps(data, indent=0))
