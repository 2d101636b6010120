"""The referee of one game on the board: raw readings in, moves, clock and result out, free of I/O.

Used by ``echiquier replay`` and by the live service, which wraps it in its asyncio loop. A
:class:`Match` owns the debouncer, the move inference, the game (with the dead-position and
flag rules of :mod:`chess_core.dead`) and the clock. It never reads the time: every call takes
``now`` (seconds, monotonic), and readings carry their own.

Contract
========

``Match(config: MatchConfig, debouncer=None)`` (the debouncer of the match before, to carry the
board's state over to the next game)

* ``feed(reading) -> list[MatchEvent]``: a RAW reading (it is debounced here). Timers due
  before it (settling, waiting moves, flag fall) run first.
* ``poll(now) -> list[MatchEvent]``: time has passed; ``next_deadline()`` says when to call it
  next (None: nothing will happen without a reading or a command). The exact dead-position
  search after a move and the "can the opponent still mate" search after a flag fall run a
  slice per poll (``MatchConfig.analysis_steps``), in a poll that settles no reading and makes
  no move (never in ``feed``: a settled reading's LED frame never waits for a slice); meanwhile
  ``next_deadline()`` is the latest time given (poll again at once), and the GameOver they may
  bring comes from a later poll. A
  move made before the last position's verdict drops that search for the new position's.
* ``finish() -> list[MatchEvent]``: the input has ended (end of a capture): what the hands left
  on the board is final; settles and commits what waits, and records an unresolved board.
* ``promote(piece_type, now)`` (``2..5`` or ``"n" "b" "r" "q"``: for the next promotion),
  ``change_promotion(piece_type, now)`` (the promotion just made), ``resign(color, now)``,
  ``agree_draw(now)``, ``claim_draw(now, move=None)`` (DrawClaimError when not valid),
  ``takeback(now)`` (ValueError unless ``config.takebacks``), ``expect(move)`` (the opponent's
  move, which the board must then carry out), ``new_game(now, fen=None)``: each returns events.
* ``corrections()``: the other legal moves that explain the board as well as the last one (a
  player may pick one); ``correct(move, now)``: the last move replaced by it (MoveMade amended).
  ``amendable()``: the last move may still be amended so (its promotion's piece too): the
  opponent has not started. A game that the position of its last move ended (a mate, a
  stalemate, a dead position) stays so until the opponent lifts a piece: an amended move
  re-opens it (Reopened, then the amended MoveMade, and GameOver again if the new position
  ends it too).
* ``end(outcome, now)``: an outcome decided elsewhere (the other end of an online game);
  ``set_rules(touch_move=, takebacks=)`` changes those rules during the game.
* ``undo(now)``: take back the last move on a decision taken off the board (an online server
  refused it), whatever ``config.takebacks`` says; the LEDs then guide the pieces back.
* ``Match.restore(config, moves, now, ...)``: a match that continues a game played before (a
  restart, or a game decided elsewhere): started, its moves made, its clock running;
  ``reread(now)`` then reads the settled board against it.
* State: ``game``, ``started``, ``last_verdict``, ``problems`` (strings), ``timing`` (the
  clock as the match keeps it, :class:`~firmware.referee.timing.Timing`: ``timing.clock``,
  ``timing.after_move``: ms on the mover's clock after each move, None when untimed;
  ``timing.running_side(turn)``), ``inference.next_promotion`` (the piece type of the next
  promotion), ``remaining(now) -> (white_ms, black_ms) | None``.
* ``echiquier replay`` prints a match (:func:`firmware.commands.replay.game_pgn` and ``game_json``:
  ``moves``, ``san``, ``fen``, ``result``, ``termination``, ``problems``, as docs/design.md says);
  ``gestures`` and ``abandoned`` are its notes.

Events (frozen dataclasses): :class:`GameStarted`, :class:`MoveMade` (``amended=True`` when it
replaces the previous move), :class:`TakenBack`, :class:`BoardChanged` (every verdict of the
inference, for the LEDs), :class:`ProblemFound` (also appended to ``problems``),
:class:`GameOver`, :class:`Reopened`, and :class:`~firmware.referee.sensor_watch.SensorFailed` /
``SensorRecovered`` (a sensor found dead or stuck, the game read on around it; working again).
``Match(config, debouncer=None, sensors=None)``: ``sensors``, the board's
:class:`~firmware.referee.sensor_watch.SensorWatch` carried over like its debouncer.

Timing rules
============

* The game starts at the first settled reading that shows the start position (and colours, on
  a colour-sensing board); the clock of the side to move starts at that reading's time.
* A move stops the mover's clock at the time the board showed it complete (the last contact),
  even when the inference committed it later (a slide that waited); the debouncing and the
  waiting are charged to nobody.
* An amended move is timed at the amended move's completion: the mover is charged the time
  between the first version and the correction; while the clock stood still (a pause, or the
  end the first version made) no time passes, and a game re-opened goes on from the amendment. A takeback gives the move back to its mover
  and charges the mover the time since that move was made.
* A flag falls when the clock says so, except that it waits for a move that the board may
  have completed before the flag instant (a reading still settling, a move waiting to commit).
* Readings after the end of the game are not moves (they only show as nothing at all).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence, Union

from board_driver.debounce import SETTLE_MS, Debouncer
from board_driver.reading import Reading
from chess_core import Game, Move, Outcome, Position, Termination, san
from chess_core.dead import can_possibly_mate
from chess_core.clock import Clock
from chess_core.squares import BISHOP, BLACK, COLOR_NAMES, KNIGHT, QUEEN, ROOK, WHITE, scan_squares, square_name
from chess_core.timecontrol import TimeControl

from firmware.referee.inference import MoveInference, Verdict, VerdictKind
from firmware.referee.searches import Searches
from firmware.referee.sensor_watch import SensorFailed, SensorRecovered, SensorWatch
from firmware.referee.timing import Timing, clock_with_last_press, to_ms


__all__ = ["Match", "MatchConfig", "MatchEvent", "GameStarted", "MoveMade", "TakenBack", "BoardChanged",
           "ProblemFound", "GameOver", "Reopened", "PROMOTION_LETTERS", "promotion_piece"]


@dataclass
class MatchConfig:
    rules: str = "fide"
    time_control: str = "-"
    fen: str | None = None
    touch_move: bool = False
    takebacks: bool = False
    chess960: bool = False  # Chess960 castling (config [game] variant = "chess960"); ``fen`` says which start
    settle_ms: float = SETTLE_MS
    # Dead positions and flag falls judged by chess_core.dead (exact, but a search after every
    # move); False: by material alone (chess_core.game), for bulk replays.
    exact_dead_positions: bool = True
    # The exact searches run in slices, one per poll (next_deadline asks for polls until they are
    # done): at most this many steps of about chess_core.dead_search.STEP_NODES positions each
    # (2 steps: 0.5-1 ms here, rarely up to 4; six times that on a Pi Zero 2 W). A settled
    # reading's frame may wait for the slice under way: 4 steps took 6 % less CPU over a game
    # but doubled that wait (bench/service.py). 0: each search to its end at once.
    analysis_steps: int = 2
    # "at_once": the clock of the side to move starts with the game (an arbiter's start, FIDE 6.5);
    # "first_move": the clocks start when the side to move completes its first move (online servers).
    clock_start: str = "at_once"
    # Squares whose piece must be lifted and set anew before the game begins (a position set up by
    # hand, whose board believes another piece stands there), beside a Chess960 first rank's.
    arrange: int = 0


@dataclass(frozen=True)
class GameStarted:
    time: float


@dataclass(frozen=True)
class MoveMade:
    move: Move
    san: str
    time: float
    amended: bool = False  # True: this move replaces the previous one


@dataclass(frozen=True)
class TakenBack:
    move: Move
    time: float


@dataclass(frozen=True)
class BoardChanged:
    verdict: Verdict


@dataclass(frozen=True)
class ProblemFound:
    message: str     # "12.345 s: no legal move explains the board...", as in ``Match.problems``
    time: float
    text: str = ""   # the same without the time, for people


@dataclass(frozen=True)
class GameOver:
    outcome: Outcome
    time: float


@dataclass(frozen=True)
class Reopened:
    """A result taken back (``Match.reopen``), or the end the last move's position made, that move
    being amended (judged again: a GameOver follows if the new move ends the game too)."""

    time: float


MatchEvent = Union[GameStarted, MoveMade, TakenBack, BoardChanged, ProblemFound, GameOver, Reopened, SensorFailed,
                   SensorRecovered]


def _squares(bb: int) -> str:
    return " ".join(square_name(s) for s in scan_squares(bb)) or "none"


_CLAIMS = (Termination.FIFTY_MOVES, Termination.THREEFOLD_REPETITION)
PROMOTION_LETTERS = {"q": QUEEN, "r": ROOK, "b": BISHOP, "n": KNIGHT}


def promotion_piece(piece: Union[int, str]) -> int:
    """The piece type (KNIGHT..QUEEN) of a promotion given as a letter (q r b n) or a type; ValueError else."""
    if isinstance(piece, str):
        if piece.lower() not in PROMOTION_LETTERS:
            raise ValueError(f"promotion piece must be q, r, b or n, not {piece!r}")
        return PROMOTION_LETTERS[piece.lower()]
    if piece not in PROMOTION_LETTERS.values():
        raise ValueError(f"a promotion is to a knight, bishop, rook or queen, not {piece!r}")
    return piece


class Match:
    """One game refereed from the board; see the module docstring."""

    def __init__(self, config: MatchConfig | None = None, *, debouncer: Debouncer | None = None,
                 sensors: SensorWatch | None = None) -> None:
        """``debouncer``: the board's, carried over from the match before (the pieces stay where
        they are from one game to the next); a new one by default. ``sensors``: likewise, the
        board's faulty sensors found so far."""
        self.config = config = config or MatchConfig()
        self.time_control = TimeControl.parse(config.time_control)
        if config.fen is not None:
            Position(config.fen, chess960=config.chess960)  # FenError names what is wrong
        self.debouncer = debouncer if debouncer is not None else Debouncer(config.settle_ms)
        self.sensors = sensors if sensors is not None else SensorWatch()
        self._setup(config.fen)

    def _setup(self, fen: str | None) -> None:
        cfg = self.config
        self.fen = fen
        exact = cfg.exact_dead_positions
        self.searches = Searches(exact)
        self.game = Game(fen, cfg.rules, dead_position=self.searches.dead_rule,
                         can_mate=can_possibly_mate if exact else None, chess960=cfg.chess960)
        self.searches.dead_rule.defer = True  # judged exactly at construction, deferred to a poll after
        self.timing = Timing(self.time_control)   # the clock, its presses, the hand's time on an announced move
        self.inference = MoveInference(self.game.position, touch_move=cfg.touch_move, takebacks=cfg.takebacks,
                                       blind=self.sensors.blind)
        self.started = False
        self.to_arrange = 0              # squares whose piece must be lifted before the start (new_game)
        self.last_verdict: Verdict | None = None
        self.problems: list[str] = []
        self.gestures: list[str] = []    # gestures acted on, in words (filled by whoever reads them)
        self.abandoned = False           # left unfinished: the start position set up mid-game (replay)
        self._position_ended = False     # the game ended by the position its last move made (mate, stalemate...)
        self._illegal = False            # inside a run of ILLEGAL verdicts (one problem per run)

    # -- input -----------------------------------------------------------------------------

    def feed(self, reading: Reading) -> list[MatchEvent]:
        events = self._poll(reading.time, analyse=False)
        for settled in self.debouncer.feed(reading):
            events += self._settled(settled)
        return events

    def poll(self, now: float) -> list[MatchEvent]:
        return self._poll(now, analyse=True)

    def _poll(self, now: float, analyse: bool) -> list[MatchEvent]:
        # A slice of the searches runs only in a poll that has nothing else to do: never in the
        # one that settles a reading or commits a move (its LED frame is shown right after it),
        # nor with a raw reading (whose settling would wait behind it). The service polls again
        # at once while a search is under way. Searches run to their end (steps 0) come first.
        steps = self.config.analysis_steps
        events: list[MatchEvent] = [] if steps else self._judge(0)
        settled_any = False
        for settled in self.debouncer.poll(now):
            settled_any = True
            events += self._settled(settled)
        if self._live():
            since = self.debouncer.unsettled_since()
            t = now if since is None else min(now, since)
            verdicts = self.inference.poll(t)
            if verdicts:
                self.sensors.note(self.inference, t, self.inference.reading, verdicts)
            events += self._apply(verdicts)
            found = self.sensors.check(self.inference, t) if since is None else None
            if found is not None:   # a sensor found faulty: the board read on around it
                self.inference = found.inference
                name = square_name(found.event.square)
                self.problems.append(f"{found.event.time:.3f} s: the sensor under {name} "
                                     + ("reads a piece that is not there" if found.event.reads_piece
                                        else "no longer sees its piece"))
                events.append(found.event)
                events += self._apply([v for v in found.verdicts if v.kind is not VerdictKind.ILLEGAL])
        if steps and analyse and not settled_any and not events:
            events += self._judge(steps)
        events += self._check_flag(now)
        return events

    def next_deadline(self) -> float | None:
        deadlines = self._timers()
        if self._live():
            point = self.timing.flag_point(self.game.turn)
            if point is not None and not _flag_deferred(self.debouncer, self.inference, point[1]):
                deadlines.append(point[1] / 1000)
        return min(deadlines) if deadlines else None

    def finish(self) -> list[MatchEvent]:
        events: list[MatchEvent] = []
        while True:
            deadlines = self._timers()
            if not deadlines:
                break
            events += self.poll(min(deadlines))
        v = self.last_verdict
        if self._live() and v is not None and v.kind in (VerdictKind.LIFTED, VerdictKind.ILLEGAL):
            lifted = f"; lifted: {_squares(v.lifted)}" if v.lifted else ""
            events += _problem(self.problems, v.time, f"the board is left unresolved ({v.kind.value}{lifted})")
        return events

    # -- commands --------------------------------------------------------------------------

    def promote(self, piece_type: Union[int, str], now: float) -> list[MatchEvent]:
        """The piece for the next promotion (2..5, or n b r q), as a capture's ``promote`` line."""
        piece_type = promotion_piece(piece_type)
        events = self.poll(now)
        self.inference.choose_promotion(piece_type)
        self.sensors.chosen(now, piece_type)
        return events

    def change_promotion(self, piece_type: Union[int, str], now: float) -> list[MatchEvent]:
        """Change the piece of the promotion just made (before the opponent starts): the move is
        amended. ValueError when there is no such promotion. (``promote`` is for the next one.)"""
        piece_type = promotion_piece(piece_type)
        events = self.poll(now)
        verdicts = self.inference.amend_promotion(piece_type, now) if self._live(amending=True) else []
        if not verdicts:
            raise ValueError("there is no promotion just made that may still be changed")
        return events + self._apply(verdicts)

    def amendable(self) -> bool:
        """The last move may still be amended by its mover (``change_promotion``, ``correct``):
        the opponent has not started; also after a mate, a stalemate or a dead position it made."""
        return self._live(amending=True) and self.inference.amendable()

    def corrections(self) -> list[Move]:
        """The other legal moves that explain the board as well as the last one, while it may
        still be corrected (the opponent has not started): for the page to offer."""
        return list(self.inference.alternatives()) if self._live(amending=True) else []

    def correct(self, move: Union[Move, str], now: float) -> list[MatchEvent]:
        """Replace the last move by ``move`` (a player's correction): the amended MoveMade.
        ValueError when the last move may no longer be corrected or ``move`` is not legal there."""
        move = move if isinstance(move, Move) else Move.from_uci(move)
        events = self.poll(now)
        verdicts = self.inference.amend(move, now) if self._live(amending=True) else []
        if not verdicts:
            raise ValueError("the last move can no longer be corrected (the opponent has started)")
        return events + self._apply(verdicts)

    def resign(self, color: int, now: float) -> list[MatchEvent]:
        events = self.poll(now) + self._judge(0)
        return events + self._end(self.game.resign(color), now)

    def agree_draw(self, now: float) -> list[MatchEvent]:
        events = self.poll(now) + self._judge(0)
        return events + self._end(self.game.agree_draw(), now)

    def reopen(self, now: float) -> list[MatchEvent]:
        """Take back a result decided off the board (a resignation or a draw set by a gesture and
        undone in time): the game goes on, the clock of the side to move runs again from ``now``.
        ValueError when the game is not over or ended on the board (mate, flag...)."""
        outcome = self.game.outcome
        if outcome is None or outcome.termination not in (Termination.RESIGNATION, Termination.AGREEMENT) \
                and outcome.termination not in _CLAIMS:
            raise ValueError("only a resignation or a draw by agreement or claim can be taken back")
        self.game.reopen()
        if self.game.outcome is not None:   # (the position itself ends the game)
            return []
        if self.timing.clock.started and self.timing.clock.paused:
            self.timing.run(self.timing.at(now))
        board = self.debouncer.settled
        if board is not None:
            self.inference.reset(self.game.position)
            self.inference.feed(now, board.occupied, board.white, board.black)
        return [Reopened(now)]

    def claim_draw(self, now: float, move: Move | None = None) -> list[MatchEvent]:
        events = self.poll(now) + self._judge(0)
        if move is not None:
            mover = self.game.turn
            text = san(self.game.position, move)
        outcome = self.game.claim_draw(move)  # DrawClaimError when the claim is not valid
        if move is not None:
            events.append(MoveMade(move, text, now))
            if self.timing.clock.started:
                self.timing.press(mover, self.timing.at(now))
            else:
                self.timing.after_move.append(None)
        return events + self._end(outcome, now)

    def end(self, outcome: Outcome, now: float) -> list[MatchEvent]:
        """End the game with an outcome decided elsewhere (the other end of an online game: a
        flag, an abort, a claim over there), whose word is final; nothing when it is over."""
        events = self.poll(now) + self._judge(0)
        if not self._live():
            return events
        return events + self._end(self.game.end(outcome), now)

    def set_rules(self, *, touch_move: bool | None = None, takebacks: bool | None = None) -> None:
        """Change touch-move or board takebacks during the game (the settings, an online game)."""
        if touch_move is not None:
            self.config.touch_move = self.inference.touch_move = touch_move
        if takebacks is not None:
            self.config.takebacks = self.inference.takebacks = takebacks

    def takeback(self, now: float) -> list[MatchEvent]:
        if not self.config.takebacks:
            raise ValueError("takebacks are not allowed in this game (MatchConfig.takebacks)")
        return self.undo(now)

    def undo(self, now: float) -> list[MatchEvent]:
        """Take back the last move, decided off the board: the game and the clock go back at once
        and the board must show the position before it (until then every reading is wrong)."""
        if not self.game.moves:
            raise ValueError("there is no move to take back")
        events = self.poll(now)
        self.timing.withdraw(self.timing.at(now), self._live())   # an announced move withdrawn: nobody's time since
        move = self.game.moves[-1]
        events += self._take_back(move, now)
        self.inference.reset(self.game.position, guide_back=True)
        board = self.debouncer.settled
        if board is not None:
            events += self._apply(self.inference.feed(now, board.occupied, board.white, board.black))
        return events

    def pause(self, now: float) -> list[MatchEvent]:
        """Stop both clocks (a player's or an arbiter's stop): the game stands still until
        ``resume``. A move the board showed complete before is committed first (timed and
        incremented as made); a move made meanwhile is not: its squares are shown to be put back
        (ILLEGAL verdicts, no problem), and it is made again once the clock runs."""
        events = self.poll(now)
        if self._live():
            events += self._apply(self.inference.hold(now))
        timing = self.timing
        if timing.handover.since is not None:   # already stopped: the hand's time so far is the player's
            timing.settle(timing.at(now), self.game.turn ^ 1)
        elif timing.clock.started and timing.clock.flag_fallen is None:
            timing.stop(timing.at(now))
        return events

    def resume(self, now: float) -> list[MatchEvent]:
        """Restart the clock of the side to move after ``pause``; a piece moved meanwhile must
        first go back (the board must show the position) before a move counts."""
        self.inference.release()
        if self.timing.clock.paused and self._live() and self.timing.handover.since is None:
            self.timing.run(self.timing.at(now))
        return self.poll(now)

    def expect(self, move: Move | None, now: float | None = None) -> None:
        """Only ``move`` (the opponent's) may be made next; None: any. ``now``: when it was
        announced: the time the hand then spends carrying it out is the player's, not the opponent's."""
        self.inference.expect(move)
        timing = self.timing
        timing.withdraw(timing.at(now) if now is not None else timing.ms, self._live())   # the one announced before
        if move is None or now is None:
            return
        clock = timing.clock
        if (self.time_control.timed and clock.started and not clock.paused
                and clock.flag_fallen is None and clock.running_side == self.game.turn):
            t = timing.at(now)
            flag = clock.flag_time()
            if flag is None or t < flag:
                clock.pause(t)   # the opponent's time stops as its move is announced; the player's runs (below)
                timing.ms = timing.handover.since = t

    def new_game(self, now: float, fen: str | None = None, *, arrange: int = 0) -> list[MatchEvent]:
        """A new game from ``fen`` (default: the configured start); it starts when the board shows
        it. ``arrange``: squares whose piece must first be lifted (a Chess960 start position:
        occupancy alone cannot tell a rearranged first rank from the one standing there)."""
        if fen is not None:
            Position(fen, chess960=self.config.chess960)
        self._setup(fen if fen is not None else self.config.fen)
        self.to_arrange = arrange
        board = self.debouncer.settled
        return self._settled(Reading(now, board.occupied, board.white, board.black)) if board else []

    @classmethod
    def restore(cls, config: MatchConfig, moves: Sequence[Union[Move, str]], now: float, *,
                outcome: Outcome | None = None, remaining: Sequence[int] | None = None,
                clocks: Sequence[int | None] = (), guide_back: bool = False,
                amend_last: bool = False, debouncer: Debouncer | None = None) -> "Match":
        """A match that continues, at ``now``, the game of ``moves`` from ``config.fen``: started,
        with ``outcome`` if it ended, and the side to move's clock running again.

        ``remaining`` is both clocks (ms, white first) after the last move, ``clocks`` the mover's
        time after each move (as ``timing.after_move``). The time between the last move and
        ``now`` is charged to nobody. The moves are final (the inference starts from the
        position alone), except with ``amend_last`` the last one: a cut while its mover was
        still correcting it (the piece moved on, or put back) must not leave a board that no
        move explains; its press is then rebuilt in the clock, to be undone like any other. With ``guide_back`` the board must
        be brought to the position before anything counts (a game decided elsewhere); without
        it, a board that shows one more legal move (made before a cut) has that move made again.
        """
        match = cls(config, debouncer=debouncer)
        game = match.game
        match.searches.dead_rule.enabled = False   # judged already: the outcome says how it ended
        try:
            for move in moves:
                game.push(move if isinstance(move, Move) else Move.from_uci(move))
        finally:
            match.searches.dead_rule.enabled = True
        if outcome is not None and game.outcome != outcome:
            game.decide(outcome)
        plies = len(game.moves)
        first = game.start_position().turn
        made = {first: (plies + 1) // 2, first ^ 1: plies // 2}
        now_ms = to_ms(now)
        times: dict[str, int] = {}
        if match.time_control.timed and remaining is not None:
            times = {"start_ms_white": remaining[WHITE], "start_ms_black": remaining[BLACK]}
        rebuilt = None
        if amend_last and plies and not game.is_over and not guide_back:
            rebuilt = clock_with_last_press(match.time_control, made, times, game.turn ^ 1, now_ms)
        if rebuilt is not None:
            match.timing.clock = rebuilt
        else:
            match.timing.clock = Clock(match.time_control, moves_white=made[WHITE], moves_black=made[BLACK], **times)
            if plies or config.clock_start != "first_move":   # else it starts with the first move
                match.timing.clock.start(now_ms, game.turn)
        if game.is_over and match.timing.clock.started:
            match.timing.clock.pause(now_ms)
        match.started = True
        match.timing.after_move = list(clocks) if len(clocks) == plies else [None] * plies
        match.timing.ms = now_ms
        match.timing.presses = [now_ms] * plies
        if rebuilt is not None:
            match.inference.reset(game.position, amend_last=True)
        else:
            match.inference.reset(Position(game.fen(), chess960=game.chess960), guide_back=guide_back)
        return match

    def reread(self, now: float) -> list[MatchEvent]:
        """Read the settled board again against the expected position, e.g. after ``restore`` with
        the debouncer of the match it replaces: the verdict says what to put right, if anything."""
        board = self.debouncer.settled
        if board is None or not self._live():
            return []
        return self._apply(self.inference.feed(now, board.occupied, board.white, board.black))

    # -- state -----------------------------------------------------------------------------

    def remaining(self, now: float) -> tuple[int, int] | None:
        """Both sides' main time at ``now`` (ms, White first; None untimed): see ``Timing.remaining``."""
        return self.timing.remaining(now, self.game.turn)

    # -- inside ----------------------------------------------------------------------------

    def _live(self, amending: bool = False) -> bool:
        """A game in progress; ``amending``: or one ended by the position its last move made (a mate,
        a stalemate, a dead position), that move being still its mover's to amend."""
        if not self.started or self.searches.flagged:
            return False
        return not self.game.is_over or (amending and self._position_ended)

    def _settled(self, reading: Reading) -> list[MatchEvent]:
        if not self.started:
            pos, keep = self.game.position, ~self.sensors.blind   # (a faulty sensor stops no game)
            self.to_arrange &= reading.occupied | ~keep   # lifted once: done
            if (reading.occupied ^ pos.occupied) & keep or self.to_arrange:
                return []
            if reading.white is not None and reading.black is not None and (
                    (reading.white ^ pos.bb_color[0]) | (reading.black ^ pos.bb_color[1])) & keep:
                return []
            self.started = True
            self.timing.ms = to_ms(reading.time)
            if self.config.clock_start != "first_move":
                self.timing.clock.start(self.timing.ms, pos.turn)
            self.inference.reset(pos)
            self.inference.feed(reading.time, reading.occupied, reading.white, reading.black)
            return [GameStarted(reading.time)]
        if self.game.is_over:
            if self._live(amending=True):   # no move counts, but the opponent starting makes the last one final
                self.inference.watch(reading.occupied, reading.white, reading.black)
            return []
        events: list[MatchEvent] = list(self.sensors.recovered(self.inference, reading.occupied, reading.time))
        verdicts = self.inference.feed(reading.time, reading.occupied, reading.white, reading.black)
        self.sensors.note(self.inference, reading.time, (reading.occupied, reading.white, reading.black), verdicts)
        return events + self._apply(verdicts)

    def _apply(self, verdicts: list[Verdict]) -> list[MatchEvent]:
        events: list[MatchEvent] = []
        for v in verdicts:
            if self.game.is_over and not (v.kind is VerdictKind.AMEND and self._live(amending=True)):
                break
            self.last_verdict = v
            kind = v.kind
            if kind is VerdictKind.ILLEGAL:
                if not self._illegal and not self.inference.held:   # (a move held by a pause is no misread)
                    side = COLOR_NAMES[self.game.turn]
                    events += _problem(self.problems, v.time, f"no legal move explains the board ({side} to move); "
                                                    f"squares that differ: {_squares(v.wrong)}")
                self._illegal = True
            else:
                self._illegal = False
            events.append(BoardChanged(v))
            if kind is VerdictKind.MOVE:
                events += self._move(v)
            elif kind is VerdictKind.AMEND:
                events += self._amend(v)
            elif kind is VerdictKind.TAKEBACK:
                events += self._take_back(_move_of(v), v.time)
        return events

    def _move(self, v: Verdict) -> list[MatchEvent]:
        # A move before the last position's verdict: that search is dropped, the new position is
        # judged instead (a dead position stays dead whatever is played: the game still ends
        # drawn, a move later), so a quick player never waits for a search.
        self.searches.drop()
        timing = self.timing
        t = timing.at(v.time)
        point = timing.flag_point(self.game.turn)
        if point is not None and t >= point[1]:
            return self._flag(point[1], point[0])
        if timing.handover.since is not None:   # the opponent's move carried out: its clock was stopped at the announcement
            timing.clock.resume(t)
            timing.settle(t, self.game.turn ^ 1)
        mover = self.game.turn
        move = _move_of(v)
        text = san(self.game.position, move)
        outcome = self.game.push(move)
        if not timing.clock.started:   # clock_start "first_move": the first move is free, the opponent's clock starts
            timing.clock.start(t, mover)
        timing.press(mover, t)
        events: list[MatchEvent] = [MoveMade(move, text, v.time)]
        if outcome is not None:
            events += self._end(outcome, v.time, by_position=True)
        return events

    def _amend(self, v: Verdict) -> list[MatchEvent]:
        timing, clock = self.timing, self.timing.clock
        now = timing.at(v.time)
        reopened = self.game.is_over   # the end its position made is judged again with the new move
        events: list[MatchEvent] = [Reopened(v.time)] if reopened else []
        self.searches.drop()  # the position it judged is replaced
        pressed = timing.presses[-1]
        done = max(to_ms(v.time), pressed)
        if clock.paused:   # (a correction from the page while stopped): the stop is nobody's time
            done = min(done, max(clock.last_time_ms or pressed, pressed))
        self.game.pop()
        mover = self.game.turn
        # Timed as if the clock had been pressed when the amended move was complete.
        timing.unpress(now, done - pressed)
        if self.time_control.timed and clock.remaining(mover, now) == 0:
            return events + self._flag(now)
        move = _move_of(v)
        text = san(self.game.position, move)
        outcome = self.game.push(move)
        timing.press(mover, now)
        events.append(MoveMade(move, text, v.time, amended=True))
        if outcome is not None:
            events += self._end(outcome, v.time, by_position=True)
        elif reopened and clock.started and clock.paused:
            clock.resume(now)   # the clock the end stopped runs again (the time in between is nobody's)
        return events

    def _take_back(self, move: Move, time: float) -> list[MatchEvent]:
        timing = self.timing
        now = timing.at(time)
        self.searches.drop()  # the position it judged is taken back
        reopened = self.game.is_over
        self.game.pop()
        if reopened and timing.clock.paused:
            timing.clock.resume(now)
        timing.unpress(now, now - timing.presses[-1])
        return [TakenBack(move, time)]

    def _judge(self, steps: int) -> list[MatchEvent]:
        """``steps`` more of the searches under way (0: to their end): a dead position, or the
        "can the opponent still mate" search after a flag fall, may end the game."""
        events: list[MatchEvent] = []
        for outcome, time in self.searches.run(self.game, steps, self.timing.ms / 1000):
            dead = outcome.termination is Termination.INSUFFICIENT_MATERIAL   # (not a flag's search)
            events += self._end(self.game.end(outcome), time, by_position=dead)
        return events

    def _timers(self) -> list[float]:
        """When the debouncer, the inference or a deferred check may next decide (not the flag)."""
        deadlines = [self.timing.ms / 1000] if self.searches.busy else []
        settle = self.debouncer.next_deadline()
        if settle is not None:
            deadlines.append(settle)
        if self._live() and self.debouncer.unsettled_since() is None:
            # (While a change settles, the inference's time stands still: its deadline waits.)
            commit = self.inference.next_deadline()
            if commit is not None:
                deadlines.append(commit)
            fault = self.sensors.next_deadline(self.inference)
            if fault is not None:
                deadlines.append(fault)
        return deadlines

    def _check_flag(self, now: float) -> list[MatchEvent]:
        if not self._live():
            return []
        point = self.timing.flag_point(self.game.turn)
        if point is None:
            return []
        side, at = point
        if to_ms(now) < at or _flag_deferred(self.debouncer, self.inference, at):
            return []
        return self._flag(at, side)

    def _flag(self, at_ms: int, side: int | None = None) -> list[MatchEvent]:
        timing, clock = self.timing, self.timing.clock
        if side is None:
            side = clock.side_to_move
            assert side is not None   # a flag falls only on a started clock
        timing.settle(at_ms, self.game.turn ^ 1)   # the player's flag, carrying out the opponent's move
        timing.ms = max(timing.ms, at_ms)
        if not self.config.exact_dead_positions:
            return self._end(self.game.flag(side), at_ms / 1000)
        # The clock stops at the flag at once; the search decides win or draw (FIDE 6.9) in slices.
        if clock.started and not clock.paused:
            clock.pause(timing.at(at_ms / 1000))
        self.searches.start_flag(side, at_ms, self.game.position)
        return self._judge(self.config.analysis_steps)

    def _end(self, outcome: Outcome, time: float, by_position: bool = False) -> list[MatchEvent]:
        """The game ends (``by_position``: by the position the last move made, which its mover may
        still amend until the opponent starts)."""
        self._position_ended = by_position
        timing, clock = self.timing, self.timing.clock
        if timing.handover.since is not None:   # the game ends while the hand carries out the opponent's move
            timing.settle(timing.at(time), self.game.turn ^ 1)
        if clock.started and not clock.paused and clock.flag_fallen is None:
            timing.stop(timing.at(time))
        return [GameOver(outcome, time)]


def _flag_deferred(debouncer: Debouncer, inference: MoveInference, at_ms: int) -> bool:
    """A move the board may have completed before the flag is still settling or waiting."""
    return any(t is not None and to_ms(t) < at_ms for t in (debouncer.unsettled_since(), inference.pending_time()))


def _problem(problems: list[str], time: float, message: str) -> list[MatchEvent]:
    """A problem met on the board, kept in words with its time and reported as an event."""
    text = f"{time:.3f} s: {message}"
    problems.append(text)
    return [ProblemFound(text, time, message)]


def _move_of(v: Verdict) -> Move:
    """The move of a MOVE, AMEND or TAKEBACK verdict (the inference always names it)."""
    move = v.move
    assert move is not None, v
    return move
