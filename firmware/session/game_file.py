"""The game's file: the record of the game in progress, noted after each change, saved when due, tried again after a failure.

Contract
========

* ``record``: the :class:`~firmware.session.recorder.GameRecord` of the game (None before a game
  begins); ``chosen``: the :class:`~firmware.session.recorder.NextGame` chosen, saved in the
  record's place until that game begins (``choose``); ``dirty``: it must be saved; ``saving``: a
  failed save's reason and when to try again.
* ``note(referee, time)``: copy the game's moves, clocks and remaining time into the record;
  ``set_names``, ``comment_once``, ``set_outcome``: the same for names, comments and the result.
* ``save(game, now)``: write the PGN and the game in progress, or else the next game chosen (atomically, by the recorder);
  a full disk or a bad record never raises: the moves stay in memory, ``saving`` says why and
  when to try again, and ``save`` returns whether what the players are told changed.
* ``keep_training(training)``: the drills under way (or None), saved with the record or the
  choice (firmware.training.drill_codec), so that a restart goes on with them;
  ``keep_setup(guide)``: the pieces a setup under way believes on the board, saved with the choice.
* ``abandon(referee, now)``: the game is left unfinished (``*``, Termination "abandoned"); one
  without a move leaves no file.
* ``leave(game, now)``: the next game is chosen; the record is saved first if it must be. One a
  full disk keeps from being saved is kept (``behind``) and written whole, ``current.json`` then
  its PGN, before anything else is saved: the choice or the next game never replaces
  ``current.json`` while it is the only copy of a game's last moves.
"""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from chess_core import Game, Outcome
from chess_core.squares import SQUARE_NAMES

from firmware.openings import OpeningCache
from firmware.session.recorder import GameRecord, NextGame, Recorder
from firmware.session.saving import SaveState
from firmware.session.state import SanCache
from firmware.training.drill import Training
from firmware.training.drill_codec import training_json
from firmware.training.setup_guide import SetupGuide

if TYPE_CHECKING:
    from firmware.referee.referee import Referee

__all__ = ["GameFile"]

log = logging.getLogger(__name__)


class GameFile:
    """The record of one board's game and its saving; see the module docstring."""

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder
        self.record: GameRecord | None = None
        self.chosen: NextGame | None = None
        self.behind: list[GameRecord] = []   # games left that a full disk kept from being saved, oldest first
        self.dirty = False
        self.saving = SaveState()
        self.sans = SanCache()   # the game's SAN, extended move by move (English and French)
        self.opening = OpeningCache()   # the game's opening (ECO, name), looked up move by move
        self.training: dict[str, Any] | None = None   # the drills under way, as saved
        self.pieces: dict[str, str] | None = None     # a setup's belief, as saved

    def note(self, referee: Referee, time: float) -> None:
        """Copy the referee's game into the record; it is saved once the LEDs are out."""
        record = self.record
        if record is None:
            return
        record.moves = [m.uci() for m in referee.game.moves]
        if any(int(ply) > len(record.moves) for ply in record.comments):   # after a takeback
            record.comments = {ply: text for ply, text in record.comments.items() if int(ply) <= len(record.moves)}
        clocks = referee.clocks(time)
        record.clocks = list(clocks.after_move)
        remaining = clocks.remaining
        record.remaining = list(remaining) if remaining is not None else None
        record.event_time = time
        self.dirty = True

    def set_names(self, names: tuple[str, str]) -> None:
        if self.record is not None:
            self.record.white, self.record.black = names
            self.dirty = True

    def set_outcome(self, outcome: Outcome | None) -> None:
        if self.record is not None:
            self.record.set_outcome(outcome)

    def keep_takeovers(self, saved: dict[str, list[Any]]) -> None:
        """The sides the computer plays for players who left, kept for a restart."""
        if self.record is not None:
            self.record.takeovers = saved
            self.dirty = True

    def keep_training(self, training: Training | None) -> None:
        """The drills under way (None: no training), saved with the game or the choice."""
        kept = None if training is None else training_json(training)
        if kept != self.training:
            self.training = kept
            self.dirty = True

    def keep_setup(self, guide: SetupGuide | None) -> None:
        """The pieces the setup under way believes on the board (None: none under way)."""
        kept = None if guide is None or guide.done else {SQUARE_NAMES[sq]: piece for sq, piece in guide.board}
        if kept != self.pieces:
            self.pieces = kept
            self.dirty = True

    def comment_once(self, ply: int, text: str) -> None:
        """A comment after move ``ply``, in the PGN, unless the game has it already."""
        record = self.record
        key = str(ply)
        if record is not None and text not in record.comments.values():
            record.comments[key] = f"{record.comments[key]}; {text}" if key in record.comments else text
            self.dirty = True

    def choose(self, chosen: NextGame) -> None:
        """A new game chosen, not set up yet: saved until its record replaces it (a restart sets it up again)."""
        self.chosen = chosen
        self.dirty = True

    def save(self, game: Game, now: float) -> bool:
        """Save the record (see the module docstring); True when the save's failure began or ended."""
        self.dirty = False
        if self.record is None and self.chosen is None and not self.behind:
            return False
        had_error = self.saving.error is not None
        try:
            while self.behind:       # (a game left unsaved first: current.json is its only full copy)
                try:
                    self.recorder.save(self.behind[0])
                except OSError:
                    raise            # (a full disk: tried again, the next ones wait for it)
                except Exception as exc:  # noqa: BLE001 - a record that cannot be written never blocks the others
                    log.error("the game %s cannot be written (%s): left out", self.behind[0].pgn_name, exc)
                self.behind.pop(0)
            if self.record is None and self.chosen is None:
                self.recorder.forget_current()   # (an abandoned game's, written above: not to be restored)
            elif self.record is None:
                assert self.chosen is not None
                self.chosen.training, self.chosen.pieces = self.training, self.pieces
                self.recorder.save_next(self.chosen)
            else:
                self.chosen = None   # (the game chosen has begun: its record replaces the choice)
                self.record.training = self.training
                self.sans.update(game)   # extended by the moves since the last change: no replay
                self._name_opening(game)
                self.recorder.save(self.record, game, self.sans.en)
        except Exception as exc:  # noqa: BLE001 - a full disk or a bad record must not stop the board
            self.dirty = True
            self.saving.failed(exc, now)
            return True
        if had_error:
            self.saving.succeeded()
            return True
        return False

    def _name_opening(self, game: Game) -> None:
        """The record's ECO and Opening tags: the game's opening now (none before one is named)."""
        record = self.record
        assert record is not None
        opening = self.opening.update(game)
        tags = {name: value for name, value in record.tags.items() if name not in ("ECO", "Opening")}
        if opening is not None:
            tags.update(ECO=opening.eco, Opening=opening.name)
        record.tags = tags

    def leave(self, game: Game, now: float) -> None:
        """The next game is chosen: the record is saved now if it must be, else (a full disk) kept
        to be saved before anything replaces ``current.json``; the file has no record then."""
        record = self.record
        if record is None:
            return
        if self.dirty:
            self.save(game, now)
        if self.dirty and record not in self.behind:
            self.behind.append(record)
        self.record = None

    def abandon(self, referee: Referee, now: float) -> None:
        """The game in progress is left unfinished: "*" with its moves so far, marked abandoned
        (PGN Termination "abandoned") for the library; one without a move leaves no file."""
        record = self.record
        if record is None:
            return
        if record.moves:
            record.tags = {**record.tags, "Termination": "abandoned"}
            self.note(referee, now)
            self.leave(referee.game, now)
        else:
            self.recorder.discard(record)
            self.record = None
        if not self.behind:      # (else current.json is kept: a restart continues the game, none lost)
            self.recorder.forget_current()
