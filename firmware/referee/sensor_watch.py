"""Dead and stuck sensors told from the game's own evidence, and the game read on around them (pure).

A board that has read a game right knows where every piece stands, so it can tell a sensor that
stopped seeing its piece (a broken reed switch, a piece that lost its magnet) or that sees one
that is not there (a Hall sensor stuck on) from a piece in the hand: the board stays wrong on
that one square while the game goes on around it, every other square showing legal play.

Contract
========

``SensorWatch()`` follows one match's move inference; the match calls it with the time:

* ``known(inference, faults)``: faults found before a restart (square -> reads a piece) are
  blind from the start: a board whose sensor died still starts and restores its game.
* ``recovered(inference, occupied, time) -> list[SensorRecovered]``: before a settled reading is
  fed: a blind square whose sensor reads the other value again works again (it is unmasked).
* ``note(inference, time, reading, verdicts)``: after it was fed, with the verdicts it gave: the
  readings since the board was last understood (a STABLE board or a move) are kept, at most
  ``LOG`` of them, and how long the board has been wrong (ILLEGAL) without a break.
* ``chosen(time, piece_type)``: the piece for the next promotion was chosen (a reading again
  chooses it at the same point).
* ``next_deadline(inference) -> float | None``: when ``check`` may find a fault if nothing
  changes (None while the opponent's move is carried out or the clocks are held).
* ``check(inference, now) -> Finding | None``: once the board has been wrong for ``DEAD_AFTER``
  seconds, each square that was wrong when it became so (at most ``MOST_TRIED``) is tried blind: the readings since
  the board was last understood are read again by a fresh inference that ignores that square.
  Exactly one square that explains them (the board shows the position, or a legal move was
  made) is a fault: the :class:`Finding` carries that inference, to take the place of the
  match's, with its verdicts (the moves read on the way, at the times they were made), and the
  :class:`SensorFailed` event. Each reading is tried once, one square a call (``next_deadline``
  stays due while squares are left, so the caller polls again at once), so a board left wrong
  costs one try, in slices of one replay each.

Not tried while the opponent's announced move is being carried out, while the clocks are held,
nor while the board is guided back to a position (``MoveInference.guided``): the board is then
asked to show a given position, and the game is not going on.
"""
from __future__ import annotations

from dataclasses import dataclass

from chess_core import Position
from chess_core.squares import QUEEN, scan_squares

from firmware.referee.inference import MoveInference, Verdict, VerdictKind

__all__ = ["SensorWatch", "SensorFailed", "SensorRecovered", "Finding", "DEAD_AFTER", "LOG", "MOST_TRIED"]

DEAD_AFTER = 3.0   # s the board stays wrong, one square explaining it, before that sensor is called dead
LOG = 64           # readings kept since the board was last understood (a try reads them again)
MOST_TRIED = 6     # squares tried blind at one check: a board wrong on more is no single fault

_Reading = tuple[int, int | None, int | None]
_UNDERSTOOD = (VerdictKind.STABLE, VerdictKind.MOVE, VerdictKind.AMEND, VerdictKind.TAKEBACK)


@dataclass(frozen=True)
class SensorFailed:
    """The sensor under ``square`` no longer tells the truth: it reads a piece whatever stands
    there (``reads_piece``, stuck on) or nothing (dead, or a piece without its magnet)."""

    square: int
    reads_piece: bool
    time: float


@dataclass(frozen=True)
class SensorRecovered:
    """The sensor under ``square`` reads again: it is trusted once more."""

    square: int
    time: float


@dataclass(frozen=True)
class Finding:
    """A fault found: the inference that reads the board around it, and what it read on the way."""

    inference: MoveInference
    verdicts: list[Verdict]
    event: SensorFailed


class SensorWatch:
    """Faulty sensors of one match; see the module docstring."""

    def __init__(self) -> None:
        self.faults: dict[int, bool] = {}   # blind square -> what its sensor reads (True: a piece)
        self._anchor: Position | None = None   # the position when the board was last understood
        # The readings since (the first: that board), and the promotions chosen meanwhile (a piece type).
        self._log: list[tuple[float, _Reading | int]] = []
        self._wrong_since: float | None = None   # the board ILLEGAL since then, without a break
        self._suspects = 0   # the squares wrong when it became so: one of them is the faulty sensor
        self._choice = QUEEN          # the piece chosen for a promotion when the board was last understood
        self._overflowed = False      # more readings than LOG since: no anchor until it is understood
        self._tried: _Reading | None = None      # the last reading whose squares were all tried
        self._queue_for: _Reading | None = None  # the reading whose squares are being tried,
        self._queue: list[int] = []              # one a poll: those left,
        self._found: list[tuple[int, MoveInference, list[Verdict]]] = []   # those that explain it

    @property
    def blind(self) -> int:
        """The squares whose sensor is not trusted."""
        return _bits(self.faults)

    def known(self, inference: MoveInference, faults: dict[int, bool]) -> None:
        """Faults found before (a restart): their squares are blind from now on, until they read again."""
        self.faults.update(faults)
        inference.set_blind(_bits(self.faults))

    def recovered(self, inference: MoveInference, occupied: int, time: float) -> list[SensorRecovered]:
        back = [sq for sq, piece in self.faults.items() if bool(occupied >> sq & 1) != piece]
        for sq in back:
            del self.faults[sq]
        if back:
            inference.set_blind(_bits(self.faults))
        return [SensorRecovered(sq, time) for sq in back]

    def note(self, inference: MoveInference, time: float, reading: _Reading, verdicts: list[Verdict]) -> None:
        if any(v.kind in _UNDERSTOOD for v in verdicts) or (self._anchor is None and not self._overflowed):
            self._anchor = inference.position.copy(stack=True)
            self._choice = inference.next_promotion   # (a choice made before, kept through an adjustment)
            self._log = [(time, reading)]
            self._overflowed = False
        elif self._anchor is not None and len(self._log) < LOG:
            self._log.append((time, reading))
        else:   # too long wrong to read again: nothing is tried until the board is understood
            self._anchor = None
            self._overflowed = True
        if verdicts:
            if verdicts[-1].kind is VerdictKind.ILLEGAL and not inference.guided:
                if self._wrong_since is None:
                    self._wrong_since = time
                    self._suspects = verdicts[-1].wrong
            else:
                self._wrong_since = None

    def chosen(self, time: float, piece_type: int) -> None:
        """The piece for the next promotion was chosen: a reading again keeps the choice."""
        if self._anchor is not None and len(self._log) < LOG:
            self._log.append((time, piece_type))

    def next_deadline(self, inference: MoveInference) -> float | None:
        if self._wrong_since is None or self._anchor is None or self._tried == self._latest():
            return None
        if inference.guided:
            return None   # the board is asked to show a given position: no game goes on around it
        return self._wrong_since + DEAD_AFTER

    def check(self, inference: MoveInference, now: float) -> Finding | None:
        due = self.next_deadline(inference)
        if due is None or now < due:
            return None
        latest = self._latest()
        if self._queue_for != latest:   # a new board to explain: its squares tried anew
            suspects = self._suspects & ~inference.blind
            self._queue = list(scan_squares(suspects)) if suspects.bit_count() <= MOST_TRIED else []
            self._queue_for, self._found = latest, []
        if self._queue and len(self._found) < 2:
            sq = self._queue.pop(0)
            tried = self._try(inference, sq, now)
            if tried is not None:
                self._found.append((sq, *tried))
            if self._queue and len(self._found) < 2:
                return None   # one square a poll: the next one at the next poll, at once
        self._tried, self._queue_for = latest, None
        if len(self._found) != 1:
            return None
        sq, trial, verdicts = self._found[0]
        reads_piece = bool(latest[0] >> sq & 1)
        self.faults[sq] = reads_piece
        self._wrong_since = None
        return Finding(trial, verdicts, SensorFailed(sq, reads_piece, now))

    def _try(self, inference: MoveInference, square: int, now: float) -> tuple[MoveInference, list[Verdict]] | None:
        """The readings since the board was last understood, read again blind on ``square``:
        the inference and its verdicts if that explains the board (shown as the position, or a
        legal move made and nothing illegal left), else None."""
        anchor = self._anchor
        assert anchor is not None   # next_deadline() says None without one
        trial = MoveInference(anchor, touch_move=inference.touch_move, takebacks=inference.takebacks,
                              blind=inference.blind | 1 << square)
        if self._choice != QUEEN:
            trial.choose_promotion(self._choice)
        verdicts: list[Verdict] = []
        for t, reading in self._log:
            verdicts += trial.poll(t)
            if isinstance(reading, int):
                trial.choose_promotion(reading)
            else:
                verdicts += trial.feed(t, *reading)
        verdicts += trial.poll(now)
        last = verdicts[-1].kind if verdicts else VerdictKind.STABLE
        moved = any(v.kind is VerdictKind.MOVE for v in verdicts)
        if last is VerdictKind.STABLE or (moved and last is not VerdictKind.ILLEGAL):
            return trial, verdicts
        return None

    def _latest(self) -> _Reading:
        return next(r for _, r in reversed(self._log) if not isinstance(r, int))


def _bits(squares: dict[int, bool]) -> int:
    out = 0
    for sq in squares:
        out |= 1 << sq
    return out
