"""The recorder: every game as a PGN file in <state>/games/, and the game in progress in current.json.

Both are written after every committed move by :func:`atomic_write`: a temporary file in the
same directory, fsync, rename over the old file, fsync of the directory. A power cut leaves the
old file or the new one, never half of one. ``current.json`` is written before the PGN: it is
what a restart restores, and the PGN is rewritten whole from it, so a cut between the two
writes loses nothing and never doubles a move.
"""
from __future__ import annotations

import json
import logging
import os
import re
import unicodedata
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from chess_core import STARTING_FEN, Game, Move, Outcome, Termination
from chess_core.pgn import write_pgn

log = logging.getLogger(__name__)

FORMAT_VERSION = 1
CURRENT = "current.json"
GAMES = "games"
_UNSAFE = re.compile(r"[^A-Za-z0-9._+-]+")


def atomic_write(path: Path, text: str) -> None:
    """Replace ``path`` by ``text`` so that a crash at any instant leaves the old or the new file."""
    directory = path.parent
    tmp = directory / f".{path.name}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o640)
    try:
        os.write(fd, text.encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    dir_fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def safe_name(text: str, fallback: str = "Player") -> str:
    """A player's name as a file-name part: ASCII letters, digits and ``._+-``; spaces to ``_``.

    >>> safe_name("Anna Müller / club"), safe_name("../..")
    ('Anna_Muller_club', 'Player')
    """
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    name = _UNSAFE.sub("_", ascii_text.strip()).strip("._-")
    return name[:40] or fallback


@dataclass
class GameRecord:
    """A game as saved: enough to write its PGN and to restore it after a restart.

    ``clocks[i]`` is the mover's time (ms) after move i+1, or None without a clock; ``outcome``
    is ``[termination value, winner]`` once the game is over; ``swapped`` says whether the
    configured names were swapped for this game (colours alternate from game to game).
    ``remaining`` is both clocks (ms, white first) after the last move; ``event_time`` the
    session time (s) of the last saved event, and ``replay`` the capture being replayed, if
    any: a replay restarted on the same capture resumes there. ``comments`` are PGN comments by
    ply (the key, a string for JSON: "12" goes after the 12th move), e.g. where an engine took a
    side over. ``online_id`` is the server's id of an online game (a Lichess game id).
    """

    pgn_name: str
    started: str                       # local date and time the game began, ISO 8601
    white: str = "White"
    black: str = "Black"
    start_fen: str = STARTING_FEN
    rules: str = "fide"
    time_control: str = "-"
    moves: list[str] = field(default_factory=list)
    clocks: list[int | None] = field(default_factory=list)
    outcome: list[Any] | None = None
    swapped: bool = False
    event: str = "Casual game"
    site: str = ""
    round: str = "-"
    remaining: list[int] | None = None
    event_time: float | None = None
    replay: str | None = None
    comments: dict[str, str] = field(default_factory=dict)
    online_id: str | None = None

    @property
    def is_over(self) -> bool:
        return self.outcome is not None

    def headers(self) -> dict[str, str]:
        started = datetime.fromisoformat(self.started)
        return {"Event": self.event, "Site": self.site or "?", "Date": started.strftime("%Y.%m.%d"),
                "Round": self.round, "White": self.white, "Black": self.black,
                "TimeControl": self.time_control, "Time": started.strftime("%H:%M:%S")}

    def get_outcome(self) -> Outcome | None:
        if self.outcome is None:
            return None
        termination, winner = self.outcome
        return Outcome(Termination(termination), winner)

    def set_outcome(self, outcome: Outcome | None) -> None:
        self.outcome = None if outcome is None else [outcome.termination.value, outcome.winner]

    def game(self) -> Game:
        """The game rebuilt from the record, its outcome included."""
        game = Game(self.start_fen, self.rules)
        for uci in self.moves:
            game.push(Move.from_uci(uci))
        outcome = self.get_outcome()
        if outcome is not None and game.outcome != outcome:
            game.outcome = outcome
        return game

    def to_json(self) -> str:
        return json.dumps({"version": FORMAT_VERSION, **asdict(self)}, indent=1)

    @classmethod
    def from_json(cls, text: str) -> "GameRecord":
        data = json.loads(text)
        if data.pop("version", None) != FORMAT_VERSION:
            raise ValueError("not a version 1 game record")
        return cls(**data)


class Recorder:
    """Writes games under ``state_dir``: ``games/<date>_<time>_<White>-vs-<Black>.pgn`` and
    ``current.json``."""

    def __init__(self, state_dir: str | Path) -> None:
        self.state_dir = Path(state_dir)
        self.games_dir = self.state_dir / GAMES
        self.current_path = self.state_dir / CURRENT
        self.saves = 0

    def prepare(self) -> None:
        self.games_dir.mkdir(parents=True, exist_ok=True)

    def new_record(self, started: datetime, white: str, black: str, **fields: Any) -> GameRecord:
        """A record for a game starting at ``started`` (local time), with a PGN name of its own."""
        self.prepare()
        stem = f"{started:%Y-%m-%d_%H%M}_{safe_name(white, 'White')}-vs-{safe_name(black, 'Black')}"
        name, n = f"{stem}.pgn", 1
        while (self.games_dir / name).exists():
            n += 1
            name = f"{stem}-{n}.pgn"
        return GameRecord(pgn_name=name, started=started.isoformat(timespec="seconds"), white=white,
                          black=black, **fields)

    def pgn_path(self, record: GameRecord) -> Path:
        return self.games_dir / record.pgn_name

    def pgn_text(self, record: GameRecord, game: Game | None = None) -> str:
        game = game if game is not None else record.game()
        comments = {int(ply): text for ply, text in record.comments.items() if int(ply) <= len(game.moves)}
        return write_pgn(game, record.headers(), record.clocks, comments=comments)

    def save(self, record: GameRecord, game: Game | None = None) -> None:
        """Write ``current.json``, then the game's PGN; ``game`` spares rebuilding it."""
        self.prepare()
        atomic_write(self.current_path, record.to_json())
        atomic_write(self.pgn_path(record), self.pgn_text(record, game))
        self.saves += 1

    def discard(self, record: GameRecord) -> None:
        """Remove the PGN of a game that never had a move (replaced by a game that came from elsewhere)."""
        try:
            os.unlink(self.pgn_path(record))
        except FileNotFoundError:
            pass

    def forget_current(self) -> None:
        """No game in progress any more (a new one was asked for); its PGN stays."""
        try:
            os.unlink(self.current_path)
        except FileNotFoundError:
            pass

    def load(self) -> GameRecord | None:
        """The saved game (in progress or just finished), or None. A damaged file is set aside."""
        try:
            text = self.current_path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        try:
            record = GameRecord.from_json(text)
            record.game()  # every move must replay
            return record
        except (ValueError, TypeError, KeyError) as exc:
            aside = self.current_path.with_suffix(".json.damaged")
            log.error("%s cannot be restored (%s); kept as %s", self.current_path, exc, aside)
            os.replace(self.current_path, aside)
            return None
