"""The referee's step: a board's readings, the passing time and the conductor's orders in, the game's events and the board's view out (pure).

Contract
========

``Referee(match, gestures=None, *, faults=None)`` owns the :class:`~firmware.referee.match.Match`
(debouncing, inference, game, clock, draw rules), the
:class:`~firmware.referee.gestures.GestureTracker`, the
:class:`~firmware.referee.restart_watch.RestartWatch`, the latest settled reading read and the
latest verdict; ``faults``: the board's sensors found faulty before (a restart), masked until
they read again. The conductor (the session, ``echiquier replay``) never reaches inside: the match
is private, and a match handed over (here, to ``begin`` or ``resume``) is the referee's from then
on (the replay keeps its games' matches as the record it annotates and prints). The conductor says where
it stands with a frozen :class:`Stage` and gets frozen events back, in the order they happened;
the referee notes them itself (the verdict shown, the promotion still open, gestures reset)
before handing them out.

Input:

* ``step(input, now)``: every input, one at a time, with its time:

  - a raw :class:`~board_driver.reading.Reading` (``now``: its time): the match's events
    (GameStarted, MoveMade, BoardChanged...);
  - a :class:`Tick` (time has passed; the stage with it): the match's events, then the gestures
    whose hold time ran out, then :class:`NextGameSetUp` when the start position set up mid-game
    was held long enough (the conductor then ends the game unfinished and begins the next);
  - an order (:mod:`firmware.referee.orders`: an :class:`~firmware.referee.orders.Order` or a
    value such as ``ResignGame(color)``: resign, draw, takeback, pause, the opponent's move
    expected, a promotion's piece, a correction, the rules...): what the match does with it. An
    order the match refuses raises as the match does (``ValueError``, ``DrawClaimError``,
    ``ClockError``).
* ``watch(now, stage)``: after every input, once the conductor has carried out its events (its
  stage may have changed), the settled reading not read yet (if any) goes to the gesture tracker
  and the restart watch; gestures completed by it (Resign, DrawGesture, GestureUndone) come out,
  and after a game :class:`StartPosition` (the board shows the next game's start position, or has
  left it).
* ``begin(match, now)``: the next game's match on the same board (its debouncer and faulty
  sensors carried over; settled reading, verdict, gestures and watch anew), its first events;
  ``resume(match, reread=False)``: a match that continues a game (a restart, a server's sync);
  ``arrange(squares)``: pieces to lift and set anew before the start. These replace the match or
  prepare it rather than feed it, so they are methods of their own.

Output (read-only; nothing here changes the referee):

* ``view(now, live, setting_up)``: the frozen :class:`BoardView` the LEDs and the page show of the
  board; ``clocks(now)``: the frozen :class:`Clocks`; ``gesture(now)``: the countdown of a result
  gesture, for the page; ``next_deadline(live)``: when a :class:`Tick` must come if no reading
  does; ``forming()``: the board is on its way to a result gesture (no problem to report);
  ``corrections()`` and ``amendable()``: the last move may still be put right, and into what.
* State: ``board`` (the latest settled reading), ``game``, ``started``, ``time_control``,
  ``takebacks`` (board takebacks allowed in this game), ``promotion_square`` (the promotion whose
  piece may still be changed), ``next_promotion``, ``last_verdict`` (the inference's latest),
  ``faults`` (the sensors found faulty).

Time is always passed in.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence, Union

from board_driver.reading import Reading
from chess_core import Game, Move, Position
from chess_core.chess960 import rearranged
from chess_core.squares import BLACK, WHITE
from chess_core.timecontrol import TimeControl

from firmware.referee.gestures import DrawGesture, GestureProgress, GestureTracker, GestureUndone, Resign, forming
from firmware.referee.inference import Verdict, VerdictKind
from firmware.referee.match import BoardChanged, GameOver, GameStarted, Match, MatchEvent, MoveMade, TakenBack
from firmware.referee.orders import AnyOrder, Order, SetGestureTimes, carry_out
from firmware.referee.restart_watch import RestartWatch, at_start
from firmware.referee.timing import to_ms

__all__ = ["Referee", "Stage", "Tick", "BoardView", "Clocks", "NextGameSetUp", "StartPosition", "RefereeEvent",
           "RefereeInput"]


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
class Tick:
    """Time has passed (no reading came): the timers due run; ``stage``: where the conductor stands."""

    stage: Stage


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


@dataclass(frozen=True)
class Clocks:
    """The board's clocks at a time: both sides' main time left (ms, White first; None untimed),
    the side whose time runs (the player carrying out the opponent's announced move, else the
    clock's; None: none), the simple delay still to run before the clock's running side's main time
    runs (ms), the moves each side has completed, and the mover's time after each move (None when
    untimed)."""

    remaining: tuple[int, int] | None
    running: int | None
    delay_left: int
    moves_made: tuple[int, int]
    after_move: tuple[int | None, ...]


@dataclass(frozen=True)
class Showing:
    """What the board shows at a time, in one value: the :class:`BoardView` beside the game, the
    :class:`Clocks`, the countdown of a gesture (held, or its time left to undo), and the other
    moves that explain the board as well as the last one (while it may be corrected)."""

    view: BoardView
    clocks: Clocks
    gesture: GestureProgress | None
    corrections: tuple[Move, ...]


RefereeEvent = Union[MatchEvent, Resign, DrawGesture, GestureUndone, NextGameSetUp, StartPosition]
RefereeInput = Union[Reading, Tick, AnyOrder]


class Referee:
    """One board's referee step; see the module docstring."""

    def __init__(self, match: Match, gestures: GestureTracker | None = None, *,
                 faults: dict[int, bool] | None = None) -> None:
        self._match = match
        self._gestures = gestures if gestures is not None else GestureTracker()
        self._restart = RestartWatch()
        self._settled: Reading | None = None    # the latest settled reading read by watch()
        self._verdict: Verdict | None = None    # the latest verdict of the inference, for the LEDs
        self._promotion_square: int | None = None   # the promotion just made, its piece still open
        if faults:
            match.sensors.known(match.inference, faults)

    # -- input ---------------------------------------------------------------------------------

    def step(self, given: RefereeInput, now: float) -> list[RefereeEvent]:
        """One input at ``now`` (see the module docstring): a reading, a tick or an order."""
        if isinstance(given, Reading):
            return self._note(self._match.feed(given), now)
        if isinstance(given, Tick):
            return self._tick(now, given.stage)
        if self._keep(given):
            return []
        return self._note(carry_out(self._match, given, now), now)

    def watch(self, now: float, stage: Stage) -> list[RefereeEvent]:
        settled = self._match.debouncer.settled
        if settled is None or settled is self._settled:
            return []
        self._settled = settled
        events: list[RefereeEvent] = []
        game = self._match.game
        if stage.gestures and (stage.live or self._gestures.undoable(now)):
            pos = game.position
            events += self._gestures.observe(settled.time, settled.occupied, pos.occupied, (pos.king[0], pos.king[1]),
                                             pos.turn, settled.white, settled.black)
        if stage.live or stage.over:
            start = (Position(stage.start_fen, chess960=stage.chess960) if stage.start_fen is not None
                     else game.start_position())
            if stage.live:
                self._restart.observe(settled.time, stage.restart and at_start(
                    settled.occupied, settled.white, settled.black, start.occupied, start.bb_color[0],
                    start.bb_color[1], game.position.occupied))
            else:
                events.append(StartPosition(settled.time, settled.occupied == start.occupied))
        return events

    def begin(self, match: Match, now: float) -> list[RefereeEvent]:
        """The next game, ``match`` (new, from its config): it takes over the board (the debouncer:
        the pieces stay where they are; the faulty sensors), nothing seen of it yet. In Chess960
        the first-rank pieces that differ from the last game's start must first be lifted
        (occupancy alone cannot tell them apart; ``Match.new_game``). Its first events
        (GameStarted at once if the board already shows the start position)."""
        previous = self._match
        match.debouncer, match.sensors = previous.debouncer, previous.sensors
        arrange = (rearranged(previous.game.start_position(), match.game.start_position())
                   if match.config.chess960 else 0) | match.config.arrange
        self._match = match
        self._settled = None
        self._verdict = None
        self._promotion_square = None
        self._gestures.reset()
        self._restart.reset()
        return self._note(match.new_game(now, arrange=arrange), now)

    def resume(self, match: Match, *, reread: bool = False) -> None:
        """A match that continues a game (a restart, a server's sync): no promotion open, no
        gesture under way. The board's faulty sensors carry over to it, as to the next game's.
        ``reread``: it continues on the board as it stands (the board's debouncer, its settled
        reading, carries over) and the verdict is read anew (``Order.REREAD``)."""
        match.sensors = self._match.sensors
        match.inference.set_blind(match.sensors.blind)
        if reread:
            match.debouncer = self._match.debouncer
            self._verdict = None
        self._match = match
        self._promotion_square = None
        self._gestures.reset()

    def arrange(self, squares: int) -> None:
        """Before the start, the pieces on ``squares`` must be lifted and set anew (a Chess960 start
        on sensors that see no piece types: the usual first ranks are assumed at power-on)."""
        self._match.to_arrange = squares

    # -- output --------------------------------------------------------------------------------

    def next_deadline(self, live: bool) -> float | None:
        """When a :class:`Tick` must come if no reading does; ``live``: a game in progress (gestures, watch)."""
        found = [self._match.next_deadline()]
        if live:
            found += [self._gestures.next_deadline(), self._restart.deadline()]
        deadlines = [d for d in found if d is not None]
        return min(deadlines) if deadlines else None

    def shows(self, now: float, live: bool, setting_up: bool = False) -> Showing:
        """Everything the board shows at ``now`` beside the game (see :class:`Showing`), in one pass:
        ``live``, a game in progress; ``setting_up``, none yet."""
        return Showing(self.view(now, live, setting_up), self.clocks(now), self._gestures.progress(now),
                       tuple(self._match.corrections()))

    def view(self, now: float, live: bool, setting_up: bool = False) -> BoardView:
        """What the board shows beside the game: ``live``, a game in progress; ``setting_up``, none yet."""
        game = self._match.game
        lifted = wrong = 0
        touched = None
        verdict = self._verdict
        if setting_up:
            if self._settled is not None:
                wrong = (self._settled.occupied ^ game.position.occupied) | self._match.to_arrange
        elif not game.is_over and verdict is not None:
            kind = verdict.kind
            if kind is VerdictKind.LIFTED:
                lifted = verdict.lifted
            elif kind is VerdictKind.ILLEGAL:
                wrong = verdict.wrong
            elif kind is VerdictKind.TOUCHED:
                touched = verdict.square
        hold = self._gestures.hold if live else None
        # (a promotion that mated or stalemated is still its mover's to change until the opponent starts)
        promotion = self._promotion_square if live or self._match.amendable() else None
        if hold is None or hold.fired:
            return BoardView(lifted, wrong, touched, promotion_square=promotion)
        progress = self._gestures.progress(now)
        return BoardView(lifted, wrong, touched, hold.squares, hold.kind, progress.fraction if progress else 0.0,
                         promotion)

    def clocks(self, now: float) -> Clocks:
        """The board's clocks at ``now`` (see :class:`Clocks`)."""
        match = self._match
        timing, turn = match.timing, match.game.turn
        clock = timing.clock
        delay = 0 if clock.running_side is None else clock.delay_left(max(to_ms(now), clock.last_time_ms or 0))
        return Clocks(timing.remaining(now, turn), timing.running_side(turn), delay,
                      (clock.moves_made(WHITE), clock.moves_made(BLACK)), tuple(timing.after_move))

    def gesture(self, now: float) -> GestureProgress | None:
        """The countdown of the gesture held, or of the time left to undo one fired, for the page."""
        return self._gestures.progress(now)

    def forming(self) -> bool:
        """The settled board is on its way to a result gesture (both kings lifted, a piece on the
        centre): the board explains no move, but that is no problem to report."""
        board, pos = self._match.debouncer.settled, self._match.game.position
        return board is not None and forming(board.occupied, pos.occupied, (pos.king[0], pos.king[1]))

    def corrections(self) -> list[Move]:
        """The other legal moves that explain the board as well as the last one, while it may still
        be corrected (the opponent has not started): for the page to offer (``Correct``)."""
        return self._match.corrections()

    def amendable(self) -> bool:
        """The last move may still be amended by its mover (its promotion's piece, a correction)."""
        return self._match.amendable()

    @property
    def board(self) -> Reading | None:
        """The board as it stands: the latest settled reading (None before the first)."""
        return self._match.debouncer.settled

    @property
    def game(self) -> Game:
        """The game refereed (read it; it changes through inputs only)."""
        return self._match.game

    @property
    def started(self) -> bool:
        """The game has begun: the board showed its start position (or it continues one)."""
        return self._match.started

    @property
    def time_control(self) -> TimeControl:
        return self._match.time_control

    @property
    def takebacks(self) -> bool:
        """Board takebacks are allowed in this game (``SetRules``)."""
        return self._match.config.takebacks

    @property
    def promotion_square(self) -> int | None:
        """The square of the promotion just made whose piece may still be changed (None: none)."""
        return self._promotion_square

    @property
    def next_promotion(self) -> int:
        """The piece type (2..5) the next promotion makes, unless the player chooses another."""
        return self._match.inference.next_promotion

    @property
    def last_verdict(self) -> Verdict | None:
        """The inference's latest verdict on the game (None before one)."""
        return self._match.last_verdict

    @property
    def faults(self) -> dict[int, bool]:
        """The sensors found faulty: square -> what it reads (True: a piece); a copy."""
        return dict(self._match.sensors.faults)

    # -- inside --------------------------------------------------------------------------------

    def _tick(self, now: float, stage: Stage) -> list[RefereeEvent]:
        events = self._note(self._match.poll(now), now)
        if stage.live and stage.gestures:
            events += self._gestures.poll(now)
        if stage.live and self._restart.due(now):
            self._restart.reset()
            events.append(NextGameSetUp(now))
        return events

    def _keep(self, order: AnyOrder) -> bool:
        """The orders about the referee's own bookkeeping, carried out (True), or not its own (False)."""
        if isinstance(order, SetGestureTimes):
            self._gestures.resign_s, self._gestures.draw_s = order.resign_s, order.draw_s
        elif order is Order.CLOSE_PROMOTION or order is Order.MAKE_FINAL:
            self._promotion_square = None
            if order is Order.MAKE_FINAL:
                self._match.inference.make_final()
        else:
            return False
        return True

    def _note(self, events: Sequence[MatchEvent], now: float) -> list[RefereeEvent]:
        """The referee's own bookkeeping of the match's events (the verdict shown, the promotion
        still open, gestures reset), before they go out unchanged."""
        for event in events:
            if isinstance(event, BoardChanged):
                self._verdict = event.verdict
            elif isinstance(event, MoveMade):
                self._promotion_square = event.move.to_square if event.move.promotion else None
            elif isinstance(event, (TakenBack, GameStarted)):
                self._promotion_square = None
                if isinstance(event, GameStarted):
                    self._gestures.reset()
            elif isinstance(event, GameOver) and not self._gestures.undoable(now):
                self._gestures.reset()   # (a result set by a gesture may be taken back a while)
        return list(events)
