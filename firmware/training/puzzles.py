"""Puzzles for training at the board: the puzzle as a value, its JSON lines codec, and the choice of the next one for a player.

Pure: text in, values out (``load`` alone reads a file). A puzzle is the position the solver
faces (``fen``), reached by the opponent's mistake (``blunder``, played from ``before``, so that
the board can play it as the opponent's last move), and the ``solution``: UCI moves, the
solver's first, then the opponent's reply, and so on, ending with the solver's move.

Contract:

* A JSON line holds one object: ``id``, ``fen``, ``blunder``, ``solution`` (a list of UCI moves),
  ``themes`` (Lichess's theme names), ``rating``, ``source``, and optionally ``before`` and
  ``depths``; unknown keys are ignored, so the file may grow fields.
* ``loads`` raises ``PuzzleError`` naming the line of the first bad record.
* ``choose`` never returns a puzzle of ``done_ids`` while another remains; among those left it
  takes one at random within ``RATING_WINDOW`` of the player's rating, widening the window
  until one is found.
"""
from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Puzzle", "PuzzleError", "loads", "load", "dumps", "choose", "puzzle_id", "RATING_WINDOW",
           "DEFAULT_FILE"]

RATING_WINDOW = 100       # ± points around the player's rating first, then widened by as much again
DEFAULT_FILE = Path(__file__).with_name("data") / "puzzles.jsonl"


class PuzzleError(ValueError):
    """A puzzle record that cannot be read."""


@dataclass(frozen=True)
class Puzzle:
    """A puzzle: ``fen`` the position the solver faces, after the opponent's ``blunder`` (UCI);
    ``solution`` the UCI moves from there, the solver's first, alternating, the solver's last;
    ``themes`` Lichess's names ("fork", "mateIn2"); ``rating`` its difficulty (Lichess-like,
    ~600..2600); ``source`` where it was found. ``before``: the position the blunder was played
    from ("" when unknown); ``depths``: the search depth at which the engine settled on each of
    the solver's moves (what the rating was estimated from)."""

    id: str
    fen: str
    blunder: str
    solution: tuple[str, ...]
    themes: tuple[str, ...] = ()
    rating: int = 1500
    source: str = ""
    before: str = ""
    depths: tuple[int, ...] = field(default=())

    @property
    def solver_moves(self) -> tuple[str, ...]:
        """The moves the solver must find (every other move of the solution, from the first)."""
        return self.solution[::2]

    def to_json(self) -> dict[str, Any]:
        record: dict[str, Any] = {"id": self.id, "fen": self.fen, "blunder": self.blunder,
                                  "solution": list(self.solution), "themes": list(self.themes),
                                  "rating": self.rating, "source": self.source}
        if self.before:
            record["before"] = self.before
        if self.depths:
            record["depths"] = list(self.depths)
        return record

    @classmethod
    def from_json(cls, record: Any) -> "Puzzle":
        if not isinstance(record, dict):
            raise PuzzleError("a puzzle is a JSON object")
        try:
            solution = tuple(_strings(record["solution"], "solution"))
            if not solution or len(solution) % 2 == 0:
                raise PuzzleError("the solution is an odd number of moves, the solver's first and last")
            rating = record.get("rating", 1500)
            if not isinstance(rating, int) or isinstance(rating, bool):
                raise PuzzleError("the rating is an integer")
            depths = record.get("depths", [])
            if not isinstance(depths, list) or not all(isinstance(d, int) for d in depths):
                raise PuzzleError("depths is a list of integers")
            return cls(id=_string(record["id"], "id"), fen=_string(record["fen"], "fen"),
                       blunder=_string(record["blunder"], "blunder"), solution=solution,
                       themes=tuple(_strings(record.get("themes", []), "themes")), rating=rating,
                       source=_string(record.get("source", ""), "source"),
                       before=_string(record.get("before", ""), "before"), depths=tuple(depths))
        except KeyError as exc:
            raise PuzzleError(f"a puzzle has no {exc.args[0]!r}") from None


def _string(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise PuzzleError(f"{name} is a string")
    return value


def _strings(value: Any, name: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise PuzzleError(f"{name} is a list of strings")
    return value


def puzzle_id(fen: str, blunder: str) -> str:
    """A short id that the position and the blunder decide (the same puzzle mined twice has one id).

    >>> puzzle_id("8/8/8/8/8/8/8/K6k w - - 0 1", "a2a1")
    '53672c13'
    """
    board = " ".join(fen.split()[:4])     # (the move counters do not make another puzzle)
    return hashlib.blake2s(f"{board} {blunder}".encode(), digest_size=4).hexdigest()


def loads(text: str | Iterable[str]) -> list[Puzzle]:
    """The puzzles of JSON lines (blank lines skipped); PuzzleError names the first bad line."""
    lines = text.splitlines() if isinstance(text, str) else text
    found = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            found.append(Puzzle.from_json(json.loads(line)))
        except json.JSONDecodeError as exc:
            raise PuzzleError(f"line {number}: not JSON: {exc.msg}") from None
        except PuzzleError as exc:
            raise PuzzleError(f"line {number}: {exc}") from None
    return found


def load(path: str | Path = DEFAULT_FILE) -> list[Puzzle]:
    """The puzzles of a JSON lines file (the shipped collection by default)."""
    with open(path, encoding="utf-8") as handle:
        return loads(handle)


def dumps(puzzles: Iterable[Puzzle]) -> str:
    """JSON lines, one puzzle a line, each ending with a newline."""
    return "".join(json.dumps(p.to_json(), ensure_ascii=False) + "\n" for p in puzzles)


def choose(puzzles: Sequence[Puzzle], rating: int, done_ids: Collection[str], rng: random.Random) -> Puzzle:
    """A puzzle near ``rating`` not among ``done_ids`` (all of them once every one is done).

    Those within ``RATING_WINDOW`` of the rating first, the window widened by as much again
    until one is in it; one at random among them (``rng``). ValueError when ``puzzles`` is empty.
    """
    if not puzzles:
        raise ValueError("no puzzles to choose from")
    left = [p for p in puzzles if p.id not in done_ids] or list(puzzles)
    window = RATING_WINDOW
    while True:
        near = [p for p in left if abs(p.rating - rating) <= window]
        if near:
            return rng.choice(near)
        window += RATING_WINDOW
