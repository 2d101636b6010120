"""The referee's step: a board's readings and the passing time in, the game's events and the board's view out (pure).

Contract
========

``Referee(match, gestures=None)`` owns the :class:`~firmware.referee.match.Match` (debouncing,
inference, game, clock, draw rules), the :class:`~firmware.referee.gestures.GestureTracker`, the
:class:`~firmware.referee.restart_watch.RestartWatch`, the latest settled reading read and the
latest verdict. The conductor (the session, ``echiquier replay``) calls it once per input and
never reaches inside; it says where it stands with a frozen :class:`Stage` and gets frozen events
back, in the order they happened:

* ``feed(reading)``: a raw reading; the match's events (GameStarted, MoveMade, BoardChanged...).
* ``poll(now, stage)``: time has passed; the match's events, then the gestures whose hold time
  ran out, then :class:`NextGameSetUp` when the start position set up mid-game was held long
  enough (the conductor then ends the game unfinished and begins the next).
* ``watch(now, stage)``: after every input, the settled reading not read yet (if any) goes to
  the gesture tracker and the restart watch; gestures completed by it (Resign, DrawGesture,
  GestureUndone) come out, and after a game :class:`StartPosition` (the board shows the next
  game's start position, or has left it).
* ``adopt(events, now)``: the referee's own bookkeeping of the match's events (the verdict shown,
  the promotion still open, gestures reset), returned unchanged; ``feed`` and ``poll`` do it
  themselves, a command's events on ``match`` are handed to it. Noting an event twice changes
  nothing, and events that are not the match's pass through.
* ``begin(config, now)``: the next game's match on the same board (settled reading, verdict,
  gestures and watch anew); ``resume(match)``: a match that continues a game (a restart, a
  server's sync); ``arrange(squares)``: pieces to lift and set anew before the start;
  ``close_promotion()`` / ``make_final()``: the last move's piece, or the move itself, may no
  longer be changed.
* ``view(now, live, setting_up)``: the frozen :class:`BoardView` the LEDs and the page show of the board;
  ``next_deadline(live)``: when ``poll`` must run if no reading comes; ``forming()``: the board
  is on its way to a result gesture (no problem to report); ``board``: the latest settled
  reading; ``gesture(now)``: the countdown of a result gesture, for the page.

``match`` is the referee's game, for the commands (resign, draw, takeback...) that the
conductor applies to it and hands to ``adopt``. Time is always passed in.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Union

from board_driver.reading import Reading
from chess_core import Position
from chess_core.chess960 import rearranged

from firmware.referee.gestures import DrawGesture, GestureProgress, GestureTracker, GestureUndone, Resign, forming
from firmware.referee.inference import Verdict, VerdictKind
from firmware.referee.match import BoardChanged, GameOver, GameStarted, Match, MatchConfig, MatchEvent, MoveMade, TakenBack
from firmware.referee.restart_watch import RestartWatch, at_start

__all__ = ["Referee", "Stage", "BoardView", "NextGameSetUp", "StartPosition", "RefereeEvent"]


@dataclass(frozen=True)
class Stage:
    """Where the conductor stands, as far as the referee must know: a game in progress
    (``live``), the game over (``over``); whether gestures are read; whether the start position set up mid-game begins the next game (``restart``: not
    online, where the server decides); ``start_fen``: the next game's start position (its FEN, read
    only when a settled reading must be held against it; None: the game's own start)."""

    live: bool
    over: bool = False
    gestures: bool = True
    restart: bool = True
    start_fen: str | None = None
    chess960: bool = False


@dataclass(frozen=True)
class NextGameSetUp:
    """The start position stood on the board mid-game for the watch's hold time: the next game."""

    time: float


@dataclass(frozen=True)
class StartPosition:
    """After a game, a settled reading: the board shows the next game's start position or not."""

    time: float
    shown: bool


@dataclass(frozen=True)
class BoardView:
    """What the board shows that is not the game itself: pieces lifted, squares wrong, the
    square touched (touch-move), a gesture held (its squares, kind, progress 0..1), and the
    promotion whose piece may still be chosen."""

    lifted: int = 0
    wrong: int = 0
    touched: int | None = None
    held: int = 0
    held_kind: str = ""
    held_progress: float = 0.0
    promotion_square: int | None = None


RefereeEvent = Union[MatchEvent, Resign, DrawGesture, GestureUndone, NextGameSetUp, StartPosition]


class Referee:
    """One board's referee step; see the module docstring."""

    def __init__(self, match: Match, gestures: GestureTracker | None = None) -> None:
        self.match = match
        self.gestures = gestures if gestures is not None else GestureTracker()
        self.restart = RestartWatch()
        self.settled: Reading | None = None    # the latest settled reading read by watch()
        self.verdict: Verdict | None = None    # the latest verdict of the inference, for the LEDs
        self.promotion_square: int | None = None   # the promotion just made, its piece still open

    # -- input ---------------------------------------------------------------------------------

    def feed(self, reading: Reading) -> list[MatchEvent]:
        return self.adopt(self.match.feed(reading), reading.time)

    def poll(self, now: float, stage: Stage) -> list[RefereeEvent]:
        events: list[RefereeEvent] = list(self.adopt(self.match.poll(now), now))
        if stage.live and stage.gestures:
            events += self.gestures.poll(now)
        if stage.live and self.restart.due(now):
            self.restart.reset()
            events.append(NextGameSetUp(now))
        return events

    def watch(self, now: float, stage: Stage) -> list[RefereeEvent]:
        settled = self.match.debouncer.settled
        if settled is None or settled is self.settled:
            return []
        self.settled = settled
        events: list[RefereeEvent] = []
        if stage.gestures and (stage.live or self.gestures.undoable(now)):
            pos = self.match.game.position
            events += self.gestures.observe(settled.time, settled.occupied, pos.occupied, (pos.king[0], pos.king[1]),
                                            pos.turn, settled.white, settled.black)
        if stage.live or stage.over:
            start = (Position(stage.start_fen, chess960=stage.chess960) if stage.start_fen is not None
                     else self.match.game.start_position())
            if stage.live:
                self.restart.observe(settled.time, stage.restart and at_start(
                    settled.occupied, settled.white, settled.black, start.occupied, start.bb_color[0],
                    start.bb_color[1], self.match.game.position.occupied))
            else:
                events.append(StartPosition(settled.time, settled.occupied == start.occupied))
        return events

    def adopt(self, events: list[Any], now: float) -> list[Any]:
        for event in events:
            if isinstance(event, BoardChanged):
                self.verdict = event.verdict
            elif isinstance(event, MoveMade):
                self.promotion_square = event.move.to_square if event.move.promotion else None
            elif isinstance(event, (TakenBack, GameStarted)):
                self.promotion_square = None
                if isinstance(event, GameStarted):
                    self.gestures.reset()
            elif isinstance(event, GameOver) and not self.gestures.undoable(now):
                self.gestures.reset()   # (a result set by a gesture may be taken back a while)
        return events

    def begin(self, config: MatchConfig, now: float) -> list[MatchEvent]:
        """The next game, from ``config``: a new match on the same board (its debouncer carried
        over: the pieces stay where they are), nothing seen of it yet. In Chess960 the first-rank
        pieces that differ from the last game's start must first be lifted (occupancy alone cannot
        tell them apart; ``Match.new_game``). Its first events (GameStarted at once if the board
        already shows the start position)."""
        previous = self.match
        match = Match(config, debouncer=previous.debouncer, sensors=previous.sensors)
        arrange = rearranged(previous.game.start_position(), match.game.start_position()) if config.chess960 else 0
        self.match = match
        self.settled = None
        self.verdict = None
        self.promotion_square = None
        self.gestures.reset()
        self.restart.reset()
        return self.adopt(match.new_game(now, arrange=arrange), now)

    def close_promotion(self) -> None:
        """The promotion just made was the opponent's, its piece chosen over there: nobody changes it."""
        self.promotion_square = None

    def make_final(self) -> None:
        """The last move is final (an online game's end: the server's word): no promotion changed, no correction."""
        self.promotion_square = None
        self.match.inference.make_final()

    def arrange(self, squares: int) -> None:
        """Before the start, the pieces on ``squares`` must be lifted and set anew (a Chess960 start
        on sensors that see no piece types: the usual first ranks are assumed at power-on)."""
        self.match.to_arrange = squares

    def set_gesture_times(self, resign_s: float, draw_s: float) -> None:
        self.gestures.resign_s, self.gestures.draw_s = resign_s, draw_s

    def resume(self, match: Match, *, reread: bool = False) -> None:
        """A match that continues a game (a restart, a server's sync): no promotion open, no
        gesture under way; ``reread``: the verdict is read anew (the board against its position).
        The board's faulty sensors carry over to it, as to the next game's."""
        match.sensors = self.match.sensors
        match.inference.set_blind(match.sensors.blind)
        self.match = match
        self.promotion_square = None
        self.gestures.reset()
        if reread:
            self.verdict = None

    # -- output --------------------------------------------------------------------------------

    def next_deadline(self, live: bool) -> float | None:
        """When ``poll`` must run if no reading comes; ``live``: a game in progress (gestures, watch)."""
        found = [self.match.next_deadline()]
        if live:
            found += [self.gestures.next_deadline(), self.restart.deadline()]
        deadlines = [d for d in found if d is not None]
        return min(deadlines) if deadlines else None

    def view(self, now: float, live: bool, setting_up: bool = False) -> BoardView:
        """What the board shows beside the game: ``live``, a game in progress; ``setting_up``, none yet."""
        game = self.match.game
        lifted = wrong = 0
        touched = None
        if setting_up:
            if self.settled is not None:
                wrong = (self.settled.occupied ^ game.position.occupied) | self.match.to_arrange
        elif not game.is_over and self.verdict is not None:
            kind = self.verdict.kind
            if kind is VerdictKind.LIFTED:
                lifted = self.verdict.lifted
            elif kind is VerdictKind.ILLEGAL:
                wrong = self.verdict.wrong
            elif kind is VerdictKind.TOUCHED:
                touched = self.verdict.square
        hold = self.gestures.hold if live else None
        # (a promotion that mated or stalemated is still its mover's to change until the opponent starts)
        promotion = self.promotion_square if live or self.match.amendable() else None
        if hold is None or hold.fired:
            return BoardView(lifted, wrong, touched, promotion_square=promotion)
        progress = self.gestures.progress(now)
        return BoardView(lifted, wrong, touched, hold.squares, hold.kind, progress.fraction if progress else 0.0,
                         promotion)

    @property
    def board(self) -> Reading | None:
        """The board as it stands: the latest settled reading (None before the first)."""
        return self.match.debouncer.settled

    def gesture(self, now: float) -> GestureProgress | None:
        """The countdown of the gesture held, or of the time left to undo one fired, for the page."""
        return self.gestures.progress(now)

    def forming(self) -> bool:
        """The settled board is on its way to a result gesture (both kings lifted, a piece on the
        centre): the board explains no move, but that is no problem to report."""
        board, pos = self.match.debouncer.settled, self.match.game.position
        return board is not None and forming(board.occupied, pos.occupied, (pos.king[0], pos.king[1]))
