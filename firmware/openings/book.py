"""The opening names of Lichess's data set (data/*.tsv): each named position by its EPD, and a game named as the data set says.

Contract
========

* :class:`OpeningBook` reads ``data/a.tsv`` … ``e.tsv`` (ECO code, name, moves as PGN) once, the
  first time it is asked (:meth:`OpeningBook.index`), or in a thread of its own
  (:meth:`OpeningBook.warm`) so that a board never waits for it: until it is built
  :meth:`OpeningBook.ready` is False and the session shows no name rather than stop for a few
  seconds on a Pi Zero 2 W. The moves are played by the board's own rules (``chess_core``), each
  line from the longest prefix it shares with the line before (the lines sorted by their moves):
  every position of the data set is reached once, with one ``Position`` pushed and popped.
* The index maps a position's EPD (placement, side to move, castling rights, the en passant
  square only when a capture there is legal: the first four fields of ``Position.fen()``) to its
  ECO code and name; nothing else is kept (the moves and positions are dropped once read): about
  1.3 MB resident.
* A game is named as the data set's README says: play moves backwards from the current position
  until a named position is found; positions, not move orders, are matched, so transpositions
  count. :func:`classify` does it for a whole game; :class:`OpeningCache` for a game that grows,
  move by move, as the SAN cache does (``firmware.session.state.SanCache``). Chess960 games have
  no opening name.
* The positions a game reaches lose pieces, never gain them: once a position holds fewer pieces
  than the fewest of any named position, no later position can be named, and none is looked up.
"""
from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from chess_core import Game, Position, parse_san

DATA = Path(__file__).resolve().parent / "data"
VOLUMES = tuple(DATA / f"{volume}.tsv" for volume in "abcde")

__all__ = ["Opening", "OpeningBook", "OpeningCache", "BOOK", "classify", "epd", "read_lines"]


@dataclass(frozen=True)
class Opening:
    """A game's opening: its ECO code and name, and the ply of the named position (0: the start)."""

    eco: str
    name: str
    ply: int


def epd(pos: Position) -> str:
    """The EPD of ``pos`` as the data set writes it: the FEN without its two move counters (the
    en passant square only when the capture is legal, as ``Position.fen`` writes it)."""
    return pos.fen().rsplit(" ", 2)[0]


def read_lines(paths: Iterable[Path]) -> list[tuple[str, str, str]]:
    """Every line of the data set's files: (eco, name, its moves as PGN), the header lines left out."""
    lines = []
    for path in paths:
        with path.open(encoding="utf-8") as f:
            header = f.readline().rstrip("\n").split("\t")
            if header != ["eco", "name", "pgn"]:
                raise ValueError(f"{path.name}: expected the columns eco, name, pgn, not {header}")
            for number, row in enumerate(f, start=2):
                fields = row.rstrip("\n").split("\t")
                if len(fields) != 3:
                    raise ValueError(f"{path.name}:{number}: expected 3 columns, not {len(fields)}")
                eco, name, pgn = fields
                lines.append((eco, name, pgn))
    return lines


def sans(pgn: str) -> list[str]:
    """The moves of a line's PGN ("1. e4 e5 2. Nf3"), its move numbers left out."""
    return [token for token in pgn.split() if not token[0].isdigit()]


def build_index(lines: Sequence[tuple[str, str, str]]) -> dict[str, str]:
    """EPD -> "eco<TAB>name" for the position each line reaches, every line played once by the
    board's rules. The lines, sorted by their moves' text, share prefixes: each is played on from
    the longest prefix it shares with the one before, on one position (pushed and popped). One
    string per name (not a pair) keeps the index small: about 1 MB for 3,807 names."""
    index: dict[str, str] = {}
    pos = Position()
    played: list[str] = []
    for eco, name, pgn in sorted(lines, key=lambda line: line[2]):
        moves = sans(pgn)
        shared = 0
        for mine, theirs in zip(moves, played):
            if mine != theirs:
                break
            shared += 1
        for _ in range(len(played) - shared):
            pos.pop()
        for text in moves[shared:]:
            pos.push(parse_san(pos, text, "en"))
        played = moves
        key = epd(pos)
        if key in index:
            raise ValueError(f"{eco} {name}: the position of {index[key]} again")
        index[key] = f"{eco}\t{name}"
    return index


class OpeningBook:
    """The data set's named positions, read once when first needed; see the module docstring."""

    def __init__(self, paths: Sequence[Path] = VOLUMES) -> None:
        self.paths = tuple(paths)
        self._index: dict[str, str] | None = None
        self._fewest = 32          # the fewest pieces of any named position
        self._lock = threading.Lock()
        self._warming: threading.Thread | None = None

    def ready(self) -> bool:
        """Whether the index is built (a lookup then never waits)."""
        return self._index is not None

    def index(self) -> dict[str, str]:
        """EPD -> "eco<TAB>name", built the first time (about 0.3 s here, a few seconds on a Pi
        Zero 2 W: the session calls :meth:`warm` instead and names nothing until it is ready)."""
        index = self._index
        if index is None:
            with self._lock:
                if self._index is None:
                    built = build_index(read_lines(self.paths))
                    self._fewest = min(sum(c.isalpha() for c in key.split(" ", 1)[0]) for key in built)
                    self._index = built
                index = self._index
        return index

    def warm(self) -> threading.Thread | None:
        """Build the index in a thread of its own, once; returns at once: that thread (None when
        the index is built already)."""
        with self._lock:
            if self._index is not None:
                return None
            if self._warming is None:
                self._warming = threading.Thread(target=self.index, name="opening-names", daemon=True)
                self._warming.start()   # (it waits for this lock, then builds)
            return self._warming

    def named(self, pos: Position, ply: int = 0) -> Opening | None:
        """The opening ``pos`` is if the data set names it (``ply``: the ply it was reached at);
        the index is built if it is not yet."""
        index = self.index()
        if bin(pos.occupied).count("1") < self._fewest:
            return None
        found = index.get(epd(pos))
        if found is None:
            return None
        eco, name = found.split("\t")
        return Opening(eco, name, ply)

    def could_name(self, pos: Position) -> bool:
        """Whether ``pos`` or a later position of its game could have a name: False once it holds
        fewer pieces than any named position (pieces are taken, never added)."""
        self.index()
        return bin(pos.occupied).count("1") >= self._fewest


BOOK = OpeningBook()


def classify(game: Game, book: OpeningBook = BOOK) -> Opening | None:
    """The opening of ``game`` as the data set's README says (the latest named position of the
    game, searching back from the current one), or None (no position named, or Chess960)."""
    if game.chess960:
        return None
    pos = game.start_position()
    found = book.named(pos)
    for ply, move in enumerate(game.moves, start=1):
        pos.push(move)
        if not book.could_name(pos):
            break
        found = book.named(pos, ply) or found
    return found


class OpeningCache:
    """A game's opening, kept up to date move by move: an update looks up only the positions
    reached (or taken back) since the last one. Until the book is ready it names nothing and
    asks the book to :meth:`~OpeningBook.warm` (the board never waits for the data set)."""

    def __init__(self, book: OpeningBook = BOOK) -> None:
        self.book = book
        self._marks: list[object] = []        # game.ply_mark(i) for the positions known
        self._named: list[Opening | None] = []  # the opening as of each known position
        self._pos = Position()                # the position after the known moves
        self._ready = False                   # whether the known positions were looked up in the book

    def update(self, game: Game) -> Opening | None:
        """The opening of ``game`` now (see :func:`classify`), or None."""
        if game.chess960:
            return None
        if not self.book.ready():
            self.book.warm()
            return None
        marks, named = self._marks, self._named
        if not self._ready or not marks or game.ply_mark(0) is not marks[0]:
            self._ready = True
            self._pos = game.start_position()
            marks[:], named[:] = [game.ply_mark(0)], [self.book.named(self._pos)]
        moves, pos = game.moves, self._pos
        known = len(marks) - 1
        while known and (known > len(moves) or game.ply_mark(known) is not marks[known]):
            known -= 1   # taken back or replaced since the last update
            marks.pop()
            named.pop()
            pos.pop()
        for ply in range(known, len(moves)):
            pos.push(moves[ply])
            marks.append(game.ply_mark(ply + 1))
            named.append(self.book.named(pos, ply + 1) or named[-1])
        return named[-1]
