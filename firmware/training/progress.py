"""Each player's training progress: the puzzle rating, recent attempts, what was solved, and how each theme goes; kept in one file of the state.

Contract
========

* :class:`Progress` is one player's, a frozen value replaced whole by the pure steps
  :func:`after_puzzle` and :func:`after_exercise` (the time, ``when``, is passed in: seconds since
  the epoch, as the shell's wall clock gives them). A new player's is ``Progress()``: the rating
  ``glicko2.DEFAULT``.
* A puzzle rates only the first time the player meets it (Lichess: a puzzle played again is
  casual): not when it is among the ones solved or the recent attempts. Every try counts in the
  puzzle's themes (solved or failed) and in the attempts.
* An exercise (one of the player's own mistakes, ``firmware.training.exercises``) is kept when it
  ends: ``"solved"`` (then (game id, ply) joins the mistakes solved) or ``"shown"``.
* Bounded: ``MAX_PLAYERS`` players (:func:`put` drops those idle the longest), ``MAX_ATTEMPTS``
  recent attempts each, ``MAX_SOLVED_PUZZLES`` and ``MAX_SOLVED_MISTAKES`` solved (the oldest
  go first), ``MAX_THEMES`` themes (a new one past them is not counted), names, ids and themes of
  printable text up to ``MAX_NAME``/``MAX_ID``/``MAX_THEME`` characters; the file is at most
  ``MAX_BYTES``.
* The shell, :func:`load` and :func:`save`: every player's progress is ``<state>/training.json``,
  written whole with the firmware's one atomic write (``durable.atomic_file``): a crash or a power
  cut leaves the old file or the new one. A file that cannot be used (unreadable, damaged, over
  ``MAX_BYTES``, not a regular file, or a symbolic link, which is never followed) is set aside as
  ``training.json.damaged`` with a clear message, and the board starts with no progress. A write
  that fails (a full disk) raises :class:`ProgressNotSaved`, an OSError saying so in words, the
  file before it left as it was.
"""
from __future__ import annotations

import json
import logging
import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from durable.atomic_file import write_atomically
from durable.bounded_read import read_bounded
from firmware.config import printable_text
from firmware.training import glicko2
from firmware.training.exercises import SHOWN, SOLVED
from firmware.training.glicko2 import Rating

log = logging.getLogger(__name__)

__all__ = ["Progress", "PastAttempt", "ProgressNotSaved", "after_puzzle", "after_exercise", "player", "put", "load",
           "save", "FILE", "MAX_PLAYERS", "MAX_ATTEMPTS", "MAX_SOLVED_PUZZLES", "MAX_SOLVED_MISTAKES", "MAX_THEMES",
           "MAX_BYTES"]

FILE = "training.json"
FORMAT_VERSION = 1
MAX_PLAYERS = 20
MAX_ATTEMPTS = 100
MAX_SOLVED_PUZZLES = 3000
MAX_SOLVED_MISTAKES = 1000
MAX_THEMES = 100
MAX_THEMES_A_PUZZLE = 20
MAX_NAME, MAX_ID, MAX_THEME = 100, 200, 60
MAX_BYTES = 4 * 1024 * 1024     # (20 players at their bounds write about 2 MB)
PUZZLE, MISTAKE = "puzzle", "mistake"
FAILED = "failed"
_VERDICTS = {PUZZLE: (SOLVED, FAILED), MISTAKE: (SOLVED, SHOWN)}
DAY_S = 86400.0


class ProgressNotSaved(OSError):
    """The progress could not be written (a full disk, a read-only state): the file before stays."""


@dataclass(frozen=True)
class PastAttempt:
    """One puzzle or exercise tried: ``kind`` ("puzzle", "mistake"), its ``id`` (a puzzle's, or
    "<game id>:<ply>"), ``verdict`` ("solved", "failed" for a puzzle, "shown" for an exercise) and
    ``time`` (seconds since the epoch)."""

    kind: str
    id: str
    verdict: str
    time: float

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "id": self.id, "verdict": self.verdict, "time": self.time}


@dataclass(frozen=True)
class Progress:
    """One player's training (see the module docstring): ``themes`` holds (theme, solved, failed)
    sorted by theme; ``attempts`` and the solved ones the oldest first."""

    rating: Rating = glicko2.DEFAULT
    rated: int = 0                           # puzzles that changed the rating
    last_rated: float | None = None          # when the last one did
    attempts: tuple[PastAttempt, ...] = ()
    solved_puzzles: tuple[str, ...] = ()
    solved_mistakes: tuple[tuple[str, int], ...] = ()
    themes: tuple[tuple[str, int, int], ...] = ()

    @property
    def last_active(self) -> float | None:
        """When the player last tried something."""
        return self.attempts[-1].time if self.attempts else None

    def theme_counts(self) -> dict[str, tuple[int, int]]:
        """Each theme's (solved, failed)."""
        return {theme: (solved, failed) for theme, solved, failed in self.themes}

    def to_json(self) -> dict[str, Any]:
        return {"rating": self.rating.to_json(), "rated": self.rated, "last_rated": self.last_rated,
                "attempts": [a.to_json() for a in self.attempts], "solved_puzzles": list(self.solved_puzzles),
                "solved_mistakes": [[game, ply] for game, ply in self.solved_mistakes],
                "themes": {theme: [solved, failed] for theme, solved, failed in self.themes}}

    @classmethod
    def from_json(cls, data: Any) -> "Progress":
        """The progress ``to_json`` wrote (cut to the bounds); ValueError if it is not one."""
        if not isinstance(data, dict):
            raise ValueError("a player's progress is an object")
        rating = data.get("rating")
        if not isinstance(rating, dict):
            raise ValueError("a rating is an object")
        found = Rating(_number(rating.get("rating")), _number(rating.get("deviation")), _number(rating.get("volatility")))
        if not (0 < found.rating < 4000 and 0 < found.deviation <= 1000 and 0 < found.volatility < 1):
            raise ValueError(f"not a rating: {found}")
        last = data.get("last_rated")
        attempts = tuple(_past(a) for a in _list(data.get("attempts"))[-MAX_ATTEMPTS:])
        mistakes = []
        for pair in _list(data.get("solved_mistakes"))[-MAX_SOLVED_MISTAKES:]:
            if not (isinstance(pair, list) and len(pair) == 2):
                raise ValueError("a mistake solved is [game id, ply]")
            mistakes.append((_text(pair[0], MAX_ID), _count(pair[1])))
        themes = data.get("themes")
        if not isinstance(themes, dict):
            raise ValueError("the themes are an object")
        counts = []
        for theme, pair in sorted(themes.items())[:MAX_THEMES]:
            if not (isinstance(pair, list) and len(pair) == 2):
                raise ValueError("a theme's counts are [solved, failed]")
            counts.append((_text(theme, MAX_THEME), _count(pair[0]), _count(pair[1])))
        return cls(found, _count(data.get("rated")), None if last is None else _number(last), attempts,
                   tuple(_text(p, MAX_ID) for p in _list(data.get("solved_puzzles"))[-MAX_SOLVED_PUZZLES:]),
                   tuple(mistakes), tuple(counts))


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"not a number: {value!r}")
    return float(value)


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"not a count: {value!r}")
    return value


def _text(value: Any, most: int) -> str:
    if not isinstance(value, str):
        raise ValueError(f"not text: {value!r}")
    return printable_text(value, 1, most)


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise ValueError(f"not a list: {type(value).__name__}")
    return value


def _past(data: Any) -> PastAttempt:
    if not isinstance(data, dict):
        raise ValueError("an attempt is an object")
    kind, verdict = data.get("kind"), data.get("verdict")
    if kind not in _VERDICTS or verdict not in _VERDICTS[kind]:
        raise ValueError(f"not an attempt: {kind!r} {verdict!r}")
    return PastAttempt(kind, _text(data.get("id"), MAX_ID), verdict, _number(data.get("time")))


def _added(items: tuple[Any, ...], item: Any, most: int) -> tuple[Any, ...]:
    """``items`` with ``item`` last (once), the oldest dropped past ``most``."""
    return items if item in items else (items + (item,))[-most:]


def after_puzzle(progress: Progress, puzzle_id: str, puzzle_rating: float | Rating, themes: Iterable[str],
                 solved: bool, when: float) -> Progress:
    """The progress after ``puzzle_id`` (of ``puzzle_rating`` and ``themes``) was ``solved`` or
    failed at ``when``; the rating changes on the first meeting only (see the module docstring)."""
    puzzle_id, when = _text(puzzle_id, MAX_ID), _number(when)
    strength = puzzle_rating.rating if isinstance(puzzle_rating, Rating) else _number(puzzle_rating)
    if not 0 < strength < 4000:
        raise ValueError(f"not a puzzle's rating: {puzzle_rating!r}")
    met = puzzle_id in progress.solved_puzzles or any(
        a.kind == PUZZLE and a.id == puzzle_id for a in progress.attempts)
    rating, rated, last = progress.rating, progress.rated, progress.last_rated
    if not met:
        idle_days = 0.0 if last is None else max(0.0, when - last) / DAY_S
        rating = glicko2.after_puzzle(rating, puzzle_rating, solved, days_idle=idle_days)
        rated, last = rated + 1, when
    counts = progress.theme_counts()
    for theme in list(dict.fromkeys(_text(t, MAX_THEME) for t in themes))[:MAX_THEMES_A_PUZZLE]:
        if theme in counts or len(counts) < MAX_THEMES:
            won, lost = counts.get(theme, (0, 0))
            counts[theme] = (won + 1, lost) if solved else (won, lost + 1)
    attempt = PastAttempt(PUZZLE, puzzle_id, SOLVED if solved else FAILED, when)
    return replace(progress, rating=rating, rated=rated, last_rated=last,
                   attempts=(progress.attempts + (attempt,))[-MAX_ATTEMPTS:],
                   solved_puzzles=_added(progress.solved_puzzles, puzzle_id, MAX_SOLVED_PUZZLES) if solved
                   else progress.solved_puzzles,
                   themes=tuple((t, w, lost) for t, (w, lost) in sorted(counts.items())))


def after_exercise(progress: Progress, game_id: str, ply: int, verdict: str, when: float) -> Progress:
    """The progress after the exercise of the mistake at ``ply`` of ``game_id`` ended at ``when``,
    ``verdict`` being its ``Attempt.last``: ``"solved"`` or ``"shown"`` (else ValueError)."""
    if verdict not in _VERDICTS[MISTAKE]:
        raise ValueError(f"an exercise ends solved or shown, not {verdict!r}")
    game_id, ply, when = _text(game_id, MAX_ID), _count(ply), _number(when)
    attempt = PastAttempt(MISTAKE, f"{game_id}:{ply}", verdict, when)
    solved = progress.solved_mistakes
    if verdict == SOLVED:
        solved = _added(solved, (game_id, ply), MAX_SOLVED_MISTAKES)
    return replace(progress, attempts=(progress.attempts + (attempt,))[-MAX_ATTEMPTS:], solved_mistakes=solved)


def player(progresses: Mapping[str, Progress], name: str) -> Progress:
    """``name``'s progress, a new one if there is none."""
    return progresses.get(name) or Progress()


def put(progresses: Mapping[str, Progress], name: str, progress: Progress) -> dict[str, Progress]:
    """The players' progress with ``name``'s replaced by ``progress``; past ``MAX_PLAYERS`` those
    idle the longest (never ``name``) are dropped. ValueError for a name that is not printable text."""
    name = _text(name, MAX_NAME)
    found = {**progresses, name: progress}
    others = sorted((n for n in found if n != name), key=lambda n: found[n].last_active or float("-inf"))
    for dropped in others[:max(0, len(found) - MAX_PLAYERS)]:
        del found[dropped]
    return found


# -- the shell ---------------------------------------------------------------------------------------------


def _set_aside(path: Path, why: str) -> None:
    aside = path.with_name(FILE + ".damaged")
    log.error("the training progress %s cannot be used (%s); it is kept as %s and the board starts without it",
              path, why, aside)
    try:
        os.replace(path, aside)
    except OSError as exc:
        log.error("cannot set %s aside (%s)", path, exc.strerror or exc)


def _read(path: Path) -> bytes:
    """The file's bytes, never through a link; OSError (ELOOP for a link, NotRegular), or
    ValueError when it has more than ``MAX_BYTES``."""
    read = read_bounded(path, MAX_BYTES)
    if read.cut:
        raise ValueError(f"over {MAX_BYTES} bytes")
    return read.data


def load(state_dir: str | os.PathLike[str]) -> dict[str, Progress]:
    """Every player's progress kept in ``state_dir`` (blocking: in a worker thread); none when there
    is no file, and none when it cannot be used (it is set aside, see the module docstring)."""
    path = Path(state_dir) / FILE
    try:
        data = _read(path)
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        _set_aside(path, getattr(exc, "strerror", None) or str(exc))
        return {}
    try:
        saved = json.loads(data.decode("utf-8"))
        if not isinstance(saved, dict) or saved.get("version") != FORMAT_VERSION or not isinstance(
                saved.get("players"), dict):
            raise ValueError(f"not the progress of version {FORMAT_VERSION}")
        found: dict[str, Progress] = {}
        for name, kept in saved["players"].items():
            found = put(found, name, Progress.from_json(kept))
        return found
    except Exception as exc:  # noqa: BLE001 - no saved progress may stop the board from starting
        _set_aside(path, f"{type(exc).__name__}: {exc}"[:300])
        return {}


def save(state_dir: str | os.PathLike[str], progresses: Mapping[str, Progress]) -> None:
    """Write every player's progress to ``state_dir`` whole (blocking: in a worker thread).
    ValueError past the bounds (``put`` keeps them); ProgressNotSaved if it cannot be written."""
    if len(progresses) > MAX_PLAYERS:
        raise ValueError(f"{len(progresses)} players: at most {MAX_PLAYERS} are kept")
    text = json.dumps({"version": FORMAT_VERSION,
                       "players": {_text(name, MAX_NAME): p.to_json() for name, p in progresses.items()}},
                      ensure_ascii=False, allow_nan=False, separators=(",", ":")) + "\n"
    if len(text.encode("utf-8")) > MAX_BYTES:
        raise ValueError(f"the progress is over {MAX_BYTES} bytes")
    path = Path(state_dir) / FILE
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, text)
    except OSError as exc:
        raise ProgressNotSaved(exc.errno, f"the training progress could not be saved: {exc.strerror or exc}",
                               str(path)) from exc
