"""The game library: the recorded games in <state>/games/*.pgn, listed, replayed move by move, exported.

The recorder writes one PGN file per game (the game in progress included, rewritten after every
move). A game's id is its file name without ``.pgn``; ids are checked against a strict pattern
and the directory listing, so no request can name a file outside the directory, and a symbolic
link (someone's link to /etc/...) is neither listed nor followed.

Budgets: a file is read up to ``MAX_PGN_BYTES`` (a bigger one, an import of thousands of games, is
listed with what was read and ``cut``), and only its first game is played (``more_games`` says
there are others), up to ``MAX_PLIES`` plies (a longer one is ``cut`` and ``too_long``: listed and
replayed as far as it is read, never analysed). Summaries are kept per file, keyed by its size and
modification time, so a file is read again only when it changes; the replay of a game (every FEN,
the SAN in both languages) is kept for the ``DETAILS_KEPT`` games opened last (``DETAILS_PLIES``
plies at most). A file is read by one thread at a time: a second asking for the same file as it
is (its id and stamp) waits for the first's reading and shares it. The downloads (``pgn``,
``all_pgn``) read the text only, never the moves. Reading is blocking: the page's routes call
these methods in a worker thread, never on the loop (the methods are thread-safe).

A file that is empty, binary or whose first game cannot be played is listed as ``damaged`` with
why in the player's words (``damaged``: a message, said in the page's language). A game is ``in_progress`` only while
its result is ``*``, its moves have not ended it (mate, stalemate) and, when the library knows
which file the board is recording (``playing``), it is that file.
"""
from __future__ import annotations

import re
import stat as stat_module
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from chess_core import Game, PgnError, PgnGame, read_games, san, square_name

from durable.bounded_read import read_bounded
from firmware.words import FALLBACK, Message, message_json, outcome_text, prompt

MAX_PGN_BYTES = 4 * 1024 * 1024   # what is read of one file; the board's own games are a few kB
MAX_ALL_BYTES = 32 * 1024 * 1024  # /games.pgn: the newest files that fit
# The plies of a game read: the longest game played over the board (Nikolić-Arsović, 1989) has 538,
# and the 75-move rule ends the longest ones; 2,000 is nearly four times that, and costs about 0.1 s
# and 5 MB to read and replay here (a Pi Zero 2 W: under a second), 7 minutes to analyse. A legal
# 4 MB file holds 538,164 plies (knights out and back): 19 s and 460 MB to read it all.
MAX_PLIES = 2_000
DETAILS_KEPT = 8                  # replays kept (a long game's is ~100 kB) ...
DETAILS_PLIES = 20_000            # ... and their plies at most; a replay over it is not kept
FLIGHT_WAIT_S = 60.0              # a thread waiting for another's reading of a file (then reads itself)
ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,200}")
_CONTROL = bytes(range(32)).replace(b"\t", b"").replace(b"\n", b"").replace(b"\r", b"").replace(b"\x0c", b"")

Stamp = tuple[int, int]
T = TypeVar("T")


class UnknownGame(LookupError):
    """No game of the library has this id."""


@dataclass(frozen=True)
class _Read:
    """One reading of a file: what was read of it, and its first game (or why there is none)."""

    stamp: Stamp
    text: str
    cut: bool
    game: PgnGame | None
    damaged: str | None                 # the catalogue's key (prompts "file_...")
    values: dict[str, Any]
    problem: str | None                 # the reader's own words (English, for the curious)
    more_games: bool


def _replay(game: Game) -> dict[str, Any]:
    """Every position of ``game`` (FEN before the first move and after each), with their SAN (English letters)."""
    pos = game.start_position()
    fens = [pos.fen()]
    sans, uci, last = [], [], []
    for move in game.moves:
        sans.append(san(pos, move))
        uci.append(move.uci())
        last.append([square_name(move.from_square), square_name(move.to_square)])
        pos.push(move)
        fens.append(pos.fen())
    return {"fens": fens, "san": sans, "uci": uci, "last_moves": last}


def _binary(data: bytes) -> bool:
    """Not a text: a NUL byte, or more than 1 in 20 control characters at its start."""
    head = data[:4096]
    return b"\x00" in data or len(head.translate(None, _CONTROL)) < len(head) * 0.95


def _read_bytes(path: Path) -> tuple[bytes, bool, Stamp]:
    """The first ``MAX_PGN_BYTES`` of ``path``, whether there is more, its stamp (OSError if it is
    not a regular file, a link included)."""
    read = read_bounded(path, MAX_PGN_BYTES)     # (a link put there meanwhile fails, a FIFO too)
    return read.data, read.cut, read.stamp


def read_file(path: Path) -> _Read:
    """Read ``path`` within the budget (OSError if it is not a regular file, a link included)."""
    return parse(*_read_bytes(path))


def read_text(path: Path) -> str:
    """The text of ``path`` within the budget, its moves not read: "" for an empty or binary file."""
    data, _, _ = _read_bytes(path)
    return "" if not data.strip() or _binary(data) else data.decode("utf-8", errors="replace")


def first_game(text: str) -> PgnGame:
    """The first game of a file's ``text``, read as the library reads it (up to ``MAX_PLIES``:
    ``cut`` beyond); PgnError if it cannot be read or there is none."""
    found = next(read_games(_lines(text), max_plies=MAX_PLIES), None)
    if found is None:
        raise PgnError("no game", number=0)
    if isinstance(found, PgnError):
        raise found
    return found


def _lines(text: str) -> Iterator[str]:
    """The lines of ``text`` one after the other (not a list of them all; nor io.StringIO, which
    holds 4 bytes a character)."""
    start = 0
    while start < len(text):
        end = text.find("\n", start)
        if end < 0:
            end = len(text)
        yield text[start:end]
        start = end + 1


def parse(data: bytes, cut: bool, stamp: Stamp) -> _Read:
    """What a file's bytes (``cut``: the first ``MAX_PGN_BYTES`` of it) hold: its first game, or why not."""
    def damaged(key: str, problem: str | None = None, text: str = "", **values: Any) -> _Read:
        return _Read(stamp, text, cut, None, key, values, problem, False)

    if not data.strip():
        return damaged("file_empty")
    if _binary(data):
        return damaged("file_binary")
    text = data.decode("utf-8", errors="replace")
    found = read_games(_lines(text), max_plies=MAX_PLIES)   # (lazily: the second game is only looked at)
    first = next(found, None)
    if first is None:
        return damaged("file_empty", text=text)
    if isinstance(first, PgnError):
        if cut:
            return damaged("file_too_big", str(first), text, mb=MAX_PGN_BYTES // (1024 * 1024))
        if first.move is not None:
            return damaged("file_illegal", str(first), text, move=first.label or first.move)
        return damaged("file_unreadable", str(first), text, line=first.line or 1)
    more = next(found, None) is not None
    return _Read(stamp, text, cut, first, None, {}, None, more)


class GameLibrary:
    """The games of one directory; every method reads the files as they are now (blocking: call
    it in a worker thread). ``playing()`` (from any thread) names the game the board is
    recording, None when it plays none; without it every unfinished game counts as in progress."""

    def __init__(self, games_dir: str | Path, *, playing: Callable[[], str | None] | None = None) -> None:
        self.games_dir = Path(games_dir)
        self.playing = playing
        self._lock = threading.Lock()
        self._summaries: dict[str, tuple[Stamp, dict[str, Any]]] = {}
        self._details: OrderedDict[str, tuple[Stamp, dict[str, Any], dict[str, Any]]] = OrderedDict()
        self._flights: dict[tuple[str, str, Stamp], _Flight] = {}

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

    @staticmethod
    def _stamp(path: Path) -> Stamp:
        stat = path.lstat()
        if not stat_module.S_ISREG(stat.st_mode):
            raise OSError(f"{path} is not a regular file")
        return (stat.st_mtime_ns, stat.st_size)

    def _summary(self, game_id: str, path: Path) -> dict[str, Any]:
        """The file's summary, read again only when its size or modification time changed."""
        stamp = self._stamp(path)
        with self._lock:
            kept = self._summaries.get(game_id)
        if kept is not None and kept[0] == stamp:
            return kept[1]
        found = self._read(game_id, path, stamp)
        summary = self._summarise(game_id, found)
        with self._lock:
            self._summaries[game_id] = (found.stamp, summary)
        return summary

    def _read(self, game_id: str, path: Path, stamp: Stamp) -> _Read:
        """The file read (one thread reads it; others asking meanwhile share that reading)."""
        return self._once(("read", game_id, stamp), lambda: read_file(path))

    def _once(self, key: tuple[str, str, Stamp], read: Callable[[], T]) -> T:
        """``read()``, unless another thread is doing it for ``key``: then wait for its result (at
        most ``FLIGHT_WAIT_S``) and share it, so that a file is never read twice at once."""
        with self._lock:
            flight = self._flights.get(key)
            mine = flight is None
            if flight is None:
                flight = self._flights[key] = _Flight()
            else:
                flight.waiting += 1
        if not mine:
            if flight.done.wait(FLIGHT_WAIT_S):
                if flight.error is not None:
                    raise flight.error
                return flight.value    # type: ignore[no-any-return]
            return read()              # (a reading that long: not waited for again)
        try:
            flight.value = read()
            return flight.value        # type: ignore[no-any-return]
        except BaseException as exc:
            flight.error = exc
            raise
        finally:
            with self._lock:
                del self._flights[key]
            flight.done.set()

    @staticmethod
    def _summarise(game_id: str, found: _Read) -> dict[str, Any]:
        first = found.game
        headers: dict[str, str] = dict(first.headers) if first is not None else {}
        too_long = first is not None and first.cut
        outcome = first.game.outcome if first is not None and not too_long else None   # (cut: not known)
        result = first.result if first is not None else "*"
        if result == "*" and outcome is not None:     # no result written, but the moves ended the game
            result = outcome.result()
        abandoned = result == "*" and headers.get("Termination", "").lower() == "abandoned"
        white, black = headers.get("White", "?"), headers.get("Black", "?")
        return {
            "id": game_id,
            "white": white,
            "black": black,
            "date": headers.get("Date", "????.??.??"),
            "time": headers.get("Time", ""),
            "event": headers.get("Event", ""),
            "result": result,
            "ending": message_json(outcome_text(outcome)) if outcome else None,
            "unfinished": result == "*" and not abandoned and first is not None,
            "abandoned": abandoned,
            "plies": len(first.moves) if first is not None else 0,
            "problem": found.problem or (prompt(found.damaged, FALLBACK, **found.values)
                                         if found.damaged else None),
            "damaged": message_json(Message.of(found.damaged, **found.values)) if found.damaged else None,
            "cut": found.cut or too_long,
            "too_long": too_long,                      # (more than MAX_PLIES plies: not analysed)
            "more_games": found.more_games,
            "moves": " ".join(m.uci() for m in first.moves) if first is not None else "",   # (one str: small)
            "mtime_ns": found.stamp[0],
        }

    def _public(self, summary: dict[str, Any], playing: str | None) -> dict[str, Any]:
        out = {k: v for k, v in summary.items() if k not in ("mtime_ns", "unfinished", "moves")}
        out["in_progress"] = summary["unfinished"] and (self.playing is None or playing == summary["id"])
        return out

    def _playing(self) -> str | None:
        name = self.playing() if self.playing is not None else None
        return name.removesuffix(".pgn") if name else None

    def games(self) -> list[dict[str, Any]]:
        """A summary of every game, newest first (names start with the date and time)."""
        files = self._files()
        with self._lock:
            for stale in set(self._summaries) - set(files):
                del self._summaries[stale]
            for stale in set(self._details) - set(files):
                del self._details[stale]
        out = []
        for game_id, path in files.items():
            try:
                out.append(self._summary(game_id, path))
            except OSError:
                continue  # removed or unreadable meanwhile
        out.sort(key=lambda s: (s["id"], s["mtime_ns"]), reverse=True)
        playing = self._playing()
        return [self._public(s, playing) for s in out]

    def _path(self, game_id: str) -> Path:
        if not isinstance(game_id, str) or not ID_RE.fullmatch(game_id):
            raise UnknownGame(game_id)
        path = self._files().get(game_id)
        if path is None:
            raise UnknownGame(game_id)
        return path

    def summary(self, game_id: str) -> dict[str, Any]:
        """One game's summary, as listed (read only if the file changed since it was)."""
        path = self._path(game_id)
        try:
            return self._public(self._summary(game_id, path), self._playing())
        except OSError:
            raise UnknownGame(game_id) from None

    def game(self, game_id: str) -> dict[str, Any]:
        """One game to replay: headers, the FEN of every position, the SAN (en and fr) of every move."""
        path = self._path(game_id)
        try:
            stamp = self._stamp(path)
            with self._lock:
                kept = self._details.get(game_id)
                if kept is not None and kept[0] == stamp:
                    self._details.move_to_end(game_id)
            if kept is None or kept[0] != stamp:
                kept = self._once(("detail", game_id, stamp), lambda: self._read_detail(game_id, path, stamp))
        except OSError:
            raise UnknownGame(game_id) from None
        _, summary, detail = kept
        return {**self._public(summary, self._playing()), **detail}

    def _read_detail(self, game_id: str, path: Path, stamp: Stamp) -> tuple[Stamp, dict[str, Any], dict[str, Any]]:
        found = self._read(game_id, path, stamp)
        summary = self._summarise(game_id, found)
        first = found.game
        if first is None:
            detail: dict[str, Any] = {"headers": {}, "fens": [], "san": [], "uci": [],
                                      "last_moves": [], "start_fen": None}
        else:
            detail = {"headers": dict(first.headers), "start_fen": first.game.start_fen, **_replay(first.game)}
        kept = (found.stamp, summary, detail)
        with self._lock:
            self._summaries[game_id] = (found.stamp, summary)
            self._details.pop(game_id, None)
            if len(detail["uci"]) <= DETAILS_PLIES:      # (a replay over the budget is not kept at all)
                self._details[game_id] = kept
            while len(self._details) > DETAILS_KEPT or sum(
                    len(d["uci"]) for _, _, d in self._details.values()) > DETAILS_PLIES:
                self._details.popitem(last=False)
        return kept

    def moves(self, game_id: str) -> list[str]:
        """The moves (UCI) of one game, from its summary: what an analysis is checked against."""
        path = self._path(game_id)
        try:
            moves: str = self._summary(game_id, path)["moves"]
        except OSError:
            raise UnknownGame(game_id) from None
        return moves.split()

    def pgn(self, game_id: str) -> str:
        """The PGN text of one game, as recorded (its first ``MAX_PGN_BYTES``; its moves not read)."""
        try:
            return read_text(self._path(game_id))
        except OSError:
            raise UnknownGame(game_id) from None

    def all_pgn(self) -> str:
        """Every game in one PGN text, oldest first, separated by a blank line: the newest files
        that fit in ``MAX_ALL_BYTES``, each as far as it is read."""
        chosen, total = [], 0
        for game_id, path in sorted(self._files().items(), reverse=True):   # one listing of the directory
            try:
                size = min(self._stamp(path)[1], MAX_PGN_BYTES)
            except OSError:
                continue
            if total + size > MAX_ALL_BYTES:
                break
            chosen.append(path)
            total += size
        texts = []
        for path in reversed(chosen):
            try:
                text = read_text(path)    # (the text only: the moves are not read)
            except OSError:
                continue  # removed or unreadable meanwhile
            if text.strip():
                texts.append(text.strip() + "\n")
        return "\n".join(texts)


class _Flight:
    """One thread's reading of a file as it is, that others wait for and share."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.value: Any = None
        self.error: BaseException | None = None
        self.waiting = 0          # the threads waiting for it (the tests look)


__all__ = ["GameLibrary", "UnknownGame", "MAX_PGN_BYTES", "MAX_PLIES", "first_game", "read_file", "read_text"]
