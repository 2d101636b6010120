"""The game library: the recorded games in <state>/games/*.pgn, listed, replayed move by move, exported.

The recorder writes one PGN file per game (the game in progress included, rewritten after every
move). A game's id is its file name without ``.pgn``; ids are checked against a strict pattern
and the directory listing, so no request can name a file outside the directory, and a symbolic
link (someone's link to /etc/...) is neither listed nor followed. Files are read again only
when their size or modification time changes.
"""
from __future__ import annotations

import os
import re
import stat as stat_module
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chess_core import Game, san, square_name

from chess_core.pgn import read_pgn
from firmware.words import outcome_text, player_name

MAX_PGN_BYTES = 4 * 1024 * 1024   # one game's file; more is not a game this board wrote
ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,200}")


class UnknownGame(LookupError):
    """No game of the library has this id."""


@dataclass
class _Entry:
    stamp: tuple[int, int]
    summary: dict[str, Any]
    detail: dict[str, Any] | None
    text: str


def _replay(game: Game) -> dict[str, Any]:
    """Every position of ``game`` (FEN before the first move and after each), with SAN en/fr."""
    pos = game.start_position()
    fens = [pos.fen()]
    en, fr, uci, last = [], [], [], []
    for move in game.moves:
        en.append(san(pos, move, "en"))
        fr.append(san(pos, move, "fr"))
        uci.append(move.uci())
        last.append([square_name(move.from_square), square_name(move.to_square)])
        pos.push(move)
        fens.append(pos.fen())
    return {"fens": fens, "san": {"en": en, "fr": fr}, "uci": uci, "last_moves": last}


class GameLibrary:
    """The games of one directory; every method reads the files as they are now."""

    def __init__(self, games_dir: str | Path) -> None:
        self.games_dir = Path(games_dir)
        self._cache: dict[str, _Entry] = {}

    def _files(self) -> dict[str, Path]:
        try:
            paths = list(self.games_dir.iterdir())
        except (FileNotFoundError, NotADirectoryError):
            return {}
        found = {}
        for path in paths:
            if path.suffix == ".pgn" and ID_RE.fullmatch(path.stem) and path.is_file() and not path.is_symlink():
                found[path.stem] = path
        return found

    def _entry(self, game_id: str, path: Path) -> _Entry:
        stat = path.lstat()
        if not stat_module.S_ISREG(stat.st_mode):
            raise OSError(f"{path} is not a regular file")
        stamp = (stat.st_mtime_ns, stat.st_size)
        entry = self._cache.get(game_id)
        if entry is not None and entry.stamp == stamp:
            return entry
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)   # a link put there meanwhile fails
        with os.fdopen(fd, "rb") as fh:
            text = fh.read(MAX_PGN_BYTES).decode("utf-8", errors="replace")
        errors: list = []
        games = read_pgn(text, errors)
        headers: dict[str, str] = {}
        detail = None
        plies = 0
        problem = None
        if games:
            first = games[0]
            headers = dict(first.headers)
            plies = len(first.moves)
            detail = {"headers": headers, "start_fen": first.game.start_fen, **_replay(first.game),
                      "result": headers.get("Result", first.result),
                      "ending": first.game.outcome.describe() if first.game.outcome else None,
                      "ending_fr": outcome_text(first.game.outcome, "fr") if first.game.outcome else None}
        elif errors:
            problem = str(errors[0])
        result = headers.get("Result", "*")
        abandoned = result == "*" and headers.get("Termination", "").lower() == "abandoned"
        summary = {
            "id": game_id,
            "white": headers.get("White", "?"),
            "black": headers.get("Black", "?"),
            "white_fr": player_name(headers.get("White", "?"), 0, "fr"),   # a side's default name in French
            "black_fr": player_name(headers.get("Black", "?"), 1, "fr"),
            "date": headers.get("Date", "????.??.??"),
            "time": headers.get("Time", ""),
            "event": headers.get("Event", ""),
            "result": result,
            "ending": detail["ending"] if detail else None,
            "ending_fr": detail["ending_fr"] if detail else None,
            "in_progress": result == "*" and not abandoned,
            "abandoned": abandoned,
            "plies": plies,
            "problem": problem,
            "mtime_ns": stat.st_mtime_ns,
        }
        entry = _Entry(stamp, summary, detail, text)
        self._cache[game_id] = entry
        return entry

    def games(self) -> list[dict[str, Any]]:
        """A summary of every game, newest first (names start with the date and time)."""
        files = self._files()
        for stale in set(self._cache) - set(files):
            del self._cache[stale]
        out = []
        for game_id, path in files.items():
            try:
                out.append(self._entry(game_id, path).summary)
            except OSError:
                continue  # removed or unreadable meanwhile
        out.sort(key=lambda s: (s["id"], s["mtime_ns"]), reverse=True)
        return [{k: v for k, v in s.items() if k != "mtime_ns"} for s in out]

    def _lookup(self, game_id: str) -> _Entry:
        if not isinstance(game_id, str) or not ID_RE.fullmatch(game_id):
            raise UnknownGame(game_id)
        path = self._files().get(game_id)
        if path is None:
            raise UnknownGame(game_id)
        try:
            return self._entry(game_id, path)
        except OSError:
            raise UnknownGame(game_id) from None

    def game(self, game_id: str) -> dict[str, Any]:
        """One game to replay: headers, the FEN of every position, the SAN (en and fr) of every move."""
        entry = self._lookup(game_id)
        if entry.detail is None:
            return {**entry.summary, "headers": {}, "fens": [], "san": {"en": [], "fr": []}, "uci": [],
                    "last_moves": []}
        summary = {k: v for k, v in entry.summary.items() if k != "mtime_ns"}
        return {**summary, **entry.detail}

    def pgn(self, game_id: str) -> str:
        """The PGN text of one game, as recorded."""
        return self._lookup(game_id).text

    def all_pgn(self) -> str:
        """Every game in one PGN text, oldest first, separated by a blank line."""
        entries = []
        for game_id, path in self._files().items():   # one listing of the directory, not one per game
            try:
                entries.append(self._entry(game_id, path))
            except OSError:
                continue  # removed or unreadable meanwhile
        entries.sort(key=lambda e: (e.summary["id"], e.summary["mtime_ns"]))
        return "\n".join(e.text.strip() + "\n" for e in entries)


__all__ = ["GameLibrary", "UnknownGame"]
