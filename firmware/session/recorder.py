"""The recorder: every game as a PGN file in <state>/games/, and the game in progress (or the next one chosen) in current.json.

Both are written after every committed move by :func:`durable.atomic_file.write_atomically`: a temporary file in the
same directory, every byte written (a short write on a full disk is an error, never a shorter
file), its size checked, fsync, and only then the rename over the old file and the fsync of
the directory. A power cut or a full disk leaves the old file or the new one, never half of
one; on failure the old file stays and the error goes to the caller (the session keeps the
moves and tries again). A saved record the service cannot use (damaged, from another version,
text that cannot be encoded) is set aside as ``current.json.damaged`` with a clear message, and
the board starts. ``current.json`` is written before the PGN: it is
what a restart restores, and the PGN is rewritten whole from it, so a cut between the two
writes loses nothing and never doubles a move.

A new game chosen but not set up yet (:class:`NextGame`: its names, start position, settings and
opponent) replaces the last game's record in ``current.json`` (whose PGN is written already), and
the record of that game, once it begins, replaces the choice: each step is one atomic rename, so a
restart finds the latest of them and nothing older.
"""
from __future__ import annotations

import json
import logging
import os
import re
import unicodedata
from dataclasses import asdict, dataclass, field
from dataclasses import fields as dataclass_fields
from datetime import datetime
from pathlib import Path
from collections.abc import Sequence
from typing import Any

from chess_core import STARTING_FEN, Game, Move, Outcome, Position, Termination
from chess_core.pgn import write_pgn
from chess_core.squares import SQUARE_NAMES

from durable.atomic_file import write_atomically
from durable.bounded_read import read_bounded

log = logging.getLogger(__name__)

FORMAT_VERSION = 1
CURRENT = "current.json"
MAX_CURRENT_BYTES = 16 * 1024 * 1024   # current.json read back (the longest legal game's, with clocks, is under 2 MB)
BELIEVED = "PNBRQKpnbrqk?"   # what a setup's belief may hold on a square (NextGame.pieces)
NEXT_GAME = "next_game"     # the key of current.json that holds a new game chosen, not set up yet
GAMES = "games"
_UNSAFE = re.compile(r"[^A-Za-z0-9._+-]+")


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
    side over. ``online_id`` is the server's id of an online game (a Lichess game id); ``tags``
    more PGN tags (an online game's ratings, UTC date, id...), written after the others.
    ``training``: the drills under way on this game's position, if any (as
    firmware.training.drill_codec writes them): a restart goes on with them.
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
    tags: dict[str, str] = field(default_factory=dict)
    variant: str = "standard"          # or "chess960" (castling with the rook of each right)
    # The computer playing a side its player left: side ("0" White, "1" Black) -> [player, engine, from_move]
    takeovers: dict[str, list[Any]] = field(default_factory=dict)
    training: dict[str, Any] | None = None

    @property
    def is_over(self) -> bool:
        return self.outcome is not None

    def headers(self) -> dict[str, str]:
        started = datetime.fromisoformat(self.started)
        return {"Event": self.event, "Site": self.site or "?", "Date": started.strftime("%Y.%m.%d"),
                "Round": self.round, "White": self.white, "Black": self.black,
                "TimeControl": self.time_control, "Time": started.strftime("%H:%M:%S"), **self.tags}

    def get_outcome(self) -> Outcome | None:
        if self.outcome is None:
            return None
        termination, winner = self.outcome
        return Outcome(Termination(termination), winner)

    def set_outcome(self, outcome: Outcome | None) -> None:
        self.outcome = None if outcome is None else [outcome.termination.value, outcome.winner]

    def game(self) -> Game:
        """The game rebuilt from the record, its outcome included."""
        game = Game(self.start_fen, self.rules, chess960=self.variant == "chess960")
        for uci in self.moves:
            game.push(Move.from_uci(uci))
        outcome = self.get_outcome()
        if outcome is not None and game.outcome != outcome:
            game.decide(outcome)
        return game

    def to_json(self) -> str:
        # Written after every move: its fields as they are (no deep copy), one line (json's C
        # encoder; an indented text is encoded in Python, 6 ms for a training of 100 drills).
        fields = {f.name: getattr(self, f.name) for f in dataclass_fields(self)}
        return json.dumps({"version": FORMAT_VERSION, **fields}, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> "GameRecord":
        data = json.loads(text)
        if data.pop("version", None) != FORMAT_VERSION:
            raise ValueError("not a version 1 game record")
        return cls(**data)


@dataclass
class NextGame:
    """A new game chosen but not set up yet, as saved: a restart sets it up again.

    ``white``, ``black``: the names it bears; ``given``: those given with the choice (None: none;
    the engine's side bears the engine's name unless one was given); ``start_fen``: its exact
    start (a Chess960 position drawn at random stays the one drawn); ``game`` and ``engine``: the
    ``[game]`` and ``[engine]`` settings it was chosen with (time control, rules, variant,
    opponent, the engine's level...); ``engine_sides``: the sides the engine plays (0 White, 1 Black);
    ``training``: the drills whose position this is (see :class:`GameRecord`); ``pieces``: while
    the board leads the hand there, the piece it believes on each occupied square (square name ->
    FEN letter, "?" for one it never saw placed), so that a restart leads on from the same belief.
    """

    white: str
    black: str
    start_fen: str
    given: list[str | None] | None = None
    game: dict[str, Any] = field(default_factory=dict)
    engine: dict[str, Any] = field(default_factory=dict)
    engine_sides: list[int] = field(default_factory=list)
    training: dict[str, Any] | None = None
    pieces: dict[str, str] | None = None

    def to_json(self) -> str:
        return json.dumps({"version": FORMAT_VERSION, NEXT_GAME: asdict(self)}, indent=1)

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> "NextGame":
        """The choice saved in ``data`` (current.json's object); ValueError if it cannot be used."""
        from firmware.config import printable
        if data.get("version") != FORMAT_VERSION or set(data) != {"version", NEXT_GAME}:
            raise ValueError("not a version 1 next game")
        fields = data[NEXT_GAME]
        if not isinstance(fields, dict):
            raise ValueError(f"{NEXT_GAME}: expected an object")
        chosen = cls(**fields)
        for name in ("white", "black", "start_fen"):
            value = getattr(chosen, name)
            if not isinstance(value, str):
                raise ValueError(f"{name}: expected text")
            printable(value, 200, name)
        if chosen.given is not None and (not isinstance(chosen.given, list) or len(chosen.given) != 2 or not all(
                name is None or isinstance(name, str) for name in chosen.given)):
            raise ValueError("given: expected two names (or nulls)")
        if not isinstance(chosen.game, dict) or not isinstance(chosen.engine, dict):
            raise ValueError("game, engine: expected settings")
        if not isinstance(chosen.engine_sides, list) or not set(chosen.engine_sides) <= {0, 1}:
            raise ValueError("engine_sides: expected 0 (White) and/or 1 (Black)")
        if chosen.training is not None and not isinstance(chosen.training, dict):
            raise ValueError("training: expected an object")
        if chosen.pieces is not None and not (isinstance(chosen.pieces, dict) and len(chosen.pieces) <= 64 and all(
                isinstance(k, str) and k in SQUARE_NAMES and isinstance(v, str) and len(v) == 1 and v in BELIEVED
                for k, v in chosen.pieces.items())):
            raise ValueError("pieces: expected square names with FEN letters or ?")
        Position(chosen.start_fen, chess960=chosen.game.get("variant") == "chess960")
        return chosen


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
        try:
            self.prepare()
        except OSError as exc:   # the save says it again, and is retried: the game starts anyway
            log.error("cannot create %s (%s)", self.games_dir, exc.strerror or exc)
        stem = f"{started:%Y-%m-%d_%H%M}_{safe_name(white, 'White')}-vs-{safe_name(black, 'Black')}"
        name, n = f"{stem}.pgn", 1
        while (self.games_dir / name).exists():
            n += 1
            name = f"{stem}-{n}.pgn"
        return GameRecord(pgn_name=name, started=started.isoformat(timespec="seconds"), white=white,
                          black=black, **fields)

    def pgn_path(self, record: GameRecord) -> Path:
        return self.games_dir / record.pgn_name

    def pgn_text(self, record: GameRecord, game: Game | None = None, sans: Sequence[str] | None = None) -> str:
        """The game's PGN; ``sans`` (the English SAN of ``game``'s moves) spares replaying it."""
        if game is None:
            game, sans = record.game(), None
        if sans is not None and len(sans) != len(game.moves):
            sans = None
        comments = {int(ply): text for ply, text in record.comments.items() if int(ply) <= len(game.moves)}
        return write_pgn(game, record.headers(), record.clocks, comments=comments, sans=sans)

    def save(self, record: GameRecord, game: Game | None = None, sans: Sequence[str] | None = None) -> None:
        """Write ``current.json``, then the game's PGN; ``game`` spares rebuilding it, ``sans`` (its
        moves' English SAN, kept by the session) replaying it."""
        self.prepare()
        write_atomically(self.current_path, record.to_json())
        write_atomically(self.pgn_path(record), self.pgn_text(record, game, sans))
        self.saves += 1

    def save_next(self, chosen: NextGame) -> None:
        """Write the new game chosen as ``current.json``, in place of the last game's record."""
        self.prepare()
        write_atomically(self.current_path, chosen.to_json())
        self.saves += 1

    def discard(self, record: GameRecord) -> None:
        """Remove the PGN of a game that never had a move (replaced by a game that came from elsewhere)."""
        try:
            os.unlink(self.pgn_path(record))
        except FileNotFoundError:
            pass
        except OSError as exc:
            log.error("cannot remove %s (%s)", self.pgn_path(record), exc.strerror or exc)

    def forget_current(self) -> None:
        """No game in progress any more (a new one was asked for); its PGN stays."""
        try:
            os.unlink(self.current_path)
        except FileNotFoundError:
            pass
        except OSError as exc:
            log.error("cannot remove %s (%s)", self.current_path, exc.strerror or exc)

    def load(self) -> GameRecord | None:
        """The saved game (in progress or just finished), or None. A damaged file is set aside."""
        saved = self.load_saved()
        return saved if isinstance(saved, GameRecord) else None

    def load_saved(self) -> GameRecord | NextGame | None:
        """What a restart continues: the saved game, the new game chosen (not set up yet), or
        None. A damaged file is set aside."""
        try:
            read = read_bounded(self.current_path, MAX_CURRENT_BYTES)   # (no link, no FIFO: see durable)
        except FileNotFoundError:
            return None
        except OSError as exc:
            log.error("%s cannot be read (%s); the board starts without it", self.current_path, exc.strerror or exc)
            return None
        try:
            if read.cut:
                raise ValueError(f"over {MAX_CURRENT_BYTES} bytes")
            text = read.data.decode("utf-8")
            parsed = json.loads(text)
            if isinstance(parsed, dict) and NEXT_GAME in parsed:
                return NextGame.from_data(parsed)
            record = GameRecord.from_json(text)
            check_record(record)
            record.game()  # every move must replay
            return record
        except Exception as exc:  # noqa: BLE001 - no saved state may stop the board from starting
            self.set_aside(f"{type(exc).__name__}: {exc}"[:300])
            return None

    def set_aside(self, why: str) -> None:
        """Move ``current.json`` out of the way (``current.json.damaged``), saying why; the board
        then starts without it."""
        aside = self.current_path.with_suffix(".json.damaged")
        log.error("the saved game %s cannot be restored (%s); it is kept as %s and the board starts afresh",
                  self.current_path, why, aside)
        try:
            os.replace(self.current_path, aside)
        except OSError as exc:
            log.error("cannot set %s aside (%s)", self.current_path, exc.strerror or exc)


def check_record(record: GameRecord) -> None:
    """ValueError unless ``record`` can be written back: every text valid, printable, bounded."""
    from firmware.config import printable
    for name in ("pgn_name", "started", "white", "black", "start_fen", "rules", "time_control", "event", "site",
                 "round"):
        value = getattr(record, name)
        if not isinstance(value, str):
            raise ValueError(f"{name}: expected text")
        printable(value, 200, name)
    if record.variant not in ("standard", "chess960"):
        raise ValueError(f"variant: expected standard or chess960, not {record.variant!r}")
    if record.pgn_name != Path(record.pgn_name).name or not record.pgn_name.endswith(".pgn"):
        raise ValueError(f"pgn_name: not a file name of games/: {record.pgn_name!r}")
    if not isinstance(record.moves, list) or not all(isinstance(m, str) for m in record.moves):
        raise ValueError("moves: expected a list of moves")
    if not isinstance(record.clocks, list) or len(record.clocks) > len(record.moves) or not all(
            c is None or (isinstance(c, int) and not isinstance(c, bool)) for c in record.clocks):
        raise ValueError("clocks: expected a whole number of ms (or null) per move")
    if record.remaining is not None and (not isinstance(record.remaining, list) or len(record.remaining) != 2
                                         or not all(isinstance(c, int) for c in record.remaining)):
        raise ValueError("remaining: expected both clocks in ms")
    if record.event_time is not None and not isinstance(record.event_time, (int, float)):
        raise ValueError("event_time: expected a number")
    if record.outcome is not None:
        record.get_outcome()
    if not isinstance(record.comments, dict) or not all(str(k).isdigit() for k in record.comments):
        raise ValueError("comments: expected texts by ply")
    for text in record.comments.values():
        printable(str(text), 2000, "comment")
    datetime.fromisoformat(record.started)
