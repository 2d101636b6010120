"""Move inference: a pure state machine that turns settled sensor readings into moves.

It is fed *settled* readings (see :mod:`board_driver.debounce`) with their times, and the
passing of time; it never reads a clock, never sleeps, and does no I/O. Each call returns the
verdicts it reached, in order.

Contract
========

``MoveInference(position, *, touch_move=False, takebacks=False)``

* ``position``: the expected position, after every committed move (a copy; read-only for you).
* ``feed(time, occupied, white=None, black=None) -> list[Verdict]``: a settled reading at
  ``time`` (seconds). ``white``/``black`` are the colour bitboards of a colour-sensing board.
  A reading equal to the previous one returns ``[]``.
* ``poll(time) -> list[Verdict]``: time has passed; commits a move that was waiting.
* ``next_deadline() -> float | None``: when ``poll`` may commit something, if nothing changes.
* ``pending_time() -> float | None``: the time of a move that is complete on the board but
  still waiting, for its timer or for a reading that tells it from another (a clock must not
  let a flag fall over it before it is decided).
* ``expect(move | None)``: the opponent's move (engine, online) that the board must carry out;
  only it is accepted, and the last move can no longer be amended.
* ``choose_promotion(piece_type)``: the piece for the promotion of the move being made (queen by
  default). The choice lasts until a promotion is made, a pawn that could promote is lifted and
  put back unmoved, or the turn passes (any move committed), so that a choice for a pawn put
  back never promotes a later pawn, nor the other side's; another piece straightened meanwhile
  keeps it. ``next_promotion`` reads it. ``amend_promotion(piece_type, time)``: change the piece of
  the promotion just made, before the opponent starts (``[AMEND]``, or ``[]``).
* ``alternatives()``: the other legal moves that explain the board as well as the last move,
  while it may be amended (``amendable()``); ``amend(move, time)``: a player's correction
  (``[AMEND]`` or ``[]``). ``watch(occupied, white, black)``: a reading after the game ended by
  the position the last move made: nothing is a move, but the last one stays amendable until
  the opponent lifts a piece; ``make_final()``: the last move may no longer be amended.
  On the board, a move recorded wrong is put right before the opponent starts by putting the
  pieces back (the move is taken back: TAKEBACK) and making the right one, or by moving the
  piece on to where it should be (AMEND).
* ``reset(position, *, guide_back=False)``: start again from ``position`` (its move stack
  allows takebacks); ``guide_back``: the board must first be brought to it (see ``reset``).
* ``hold(time)`` / ``release()``: the clocks stopped by a player or an arbiter: no move counts
  (``held``). ``hold`` first commits a move the board showed complete before it (``[MOVE]``,
  or ``[ILLEGAL]`` when pieces are off their squares); then every reading that is not the
  expected position is ILLEGAL, its squares to be put back, and lifting a piece and putting it
  back is no touch. After ``release`` the board must show the expected position again before a
  move counts (as after ``reset(guide_back=True)``), unless it already does.

Verdicts (``Verdict.kind``, a :class:`VerdictKind`) and their fields:

* STABLE: the board shows the expected position, nothing in hand.
* LIFTED: pieces in hand, or a move on its way; ``lifted`` = expected squares now empty;
  ``candidates`` = the legal moves consistent with the board (the LEDs may show them);
  ``move`` = the move the board shows when it is complete but waits (see below).
* MOVE: ``move`` is committed; ``time`` is when the board showed it complete (earlier than the
  call when it waited), which is when the mover's clock should stop.
* AMEND: the last committed move is replaced by ``move`` (a piece set down, then moved on
  before the opponent started).
* TAKEBACK: the board is back at the position before the last move (``move``, now undone):
  always while that move could still be amended (the mover put the piece back), and after
  that only with ``takebacks=True``.
* ILLEGAL: no legal move explains the board; ``wrong`` = the squares that differ from the
  expected position (occupancy, and colour on a colour-sensing board). Pieces that are only
  missing (in the hand) are LIFTED, even if they cannot move or are the wrong side's: nothing is
  wrong until something is set down where no legal move puts it.
* TOUCHED (``touch_move=True``): a piece of the side to move was lifted and put back; it must
  move (``square``). Until it does, a move of another piece is ILLEGAL.

How a move is recognised
========================

Readings are matched against every legal move's *shape* (:mod:`firmware.referee.inference_frame`):
what it empties, fills and replaces (and against the expected position itself:
:mod:`firmware.referee.reading_check`). The history since the last stable board tells a finished
capture (the victim's square emptied, then filled after the mover was lifted) from a piece in
the hand. Captures (victim first or mover first), castling (king first, rook first, both
lifted), en passant (victim before or after), promotions and slides all reduce to that.

Latency: a complete move is committed as soon as its reading arrives, unless the reading is
also a partial state of *another* legal move, i.e. the move could still be extended: a slider,
king or pawn that could continue along its line (``WAIT_SLIDE`` without change), or a rook
move that is the first half of castling (``WAIT_CASTLE``: the king lifted next makes it
castling). A capture, a knight move, a move against one's own blocker or the edge, a
promotion commit at once. A capture whose victim was swept off as the mover landed (its square
never read empty) looks like a piece still in hand: when only one capture from that square is
legal it is committed after ``WAIT_SWEPT`` without change, or at once when the next reading
shows the opponent starting a move; with several, the LEDs show them and the next reading that
touches one resolves it. A piece seen sliding over every square up to a victim, then gone, went
on onto it: that capture commits after ``WAIT_SWEPT_SLID`` (even with other captures possible).
The opponent lifting a piece that the piece in hand could take is the mover still capturing
(mover first), not the opponent starting: a lift adds no unseen event, a swept capture one, and
the explanation with the fewest unseen events wins while both fit; one dropped only later (the
opponent moved on meanwhile) is taken up again and the readings since read from after it.
On a colour-sensing board the victim's square changes colour, so a
swept capture is committed at once.

A waiting move is also committed as soon as a reading shows the opponent beginning a move from
the position after it (lifting one of their own pieces; that reading is then interpreted from
there). While the opponent has not started, a reading that shows a different legal move from
the position before the last move amends it (a player who paused mid-slide, or set a piece
down and moved it on); the piece put back on its square takes the move back.

Ambiguity is resolved by keeping the hypotheses that fit, one frame each: the expected position
(the mover still at work), the position before the last move (a correction), and, for each
complete but uncommitted move, the position after it (the opponent at work; these wait in
:mod:`firmware.referee.inference_pending`, the likeliest first). A hypothesis is
dropped as soon as a reading does not fit it; when two remain (a slide that stopped, then the
piece left again: the opponent taking it, or the slide going on to sweep a capture?) the next
readings decide. One rule of thumb: the board changing within ``WAIT_SLIDE`` of a piece landing,
by that piece's square emptying, is the mover's hand going on, never the opponent's (a hand does
not take a piece the other hand is just leaving).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass

from chess_core import Move, Position
from chess_core.squares import QUEEN, ROOK

from firmware.referee.inference_frame import CASTLE, FULL, Evaluation, Fit, Frame, Shape
from firmware.referee.inference_pending import Candidate, Pending, added, continues, due
from firmware.referee.reading_check import Sensed, exchanging, gone, only_lifted, shows, wrong

WAIT_SLIDE = 0.2    # s without change before a move that could be extended (a slide) commits
WAIT_CASTLE = 1.5   # s before a rook move that begins castling commits as a rook move
HISTORY = 64       # readings kept to read again from a candidate chosen late
WAIT_SWEPT = 2.5    # s before the only capture from a lifted square is taken as swept off
WAIT_SWEPT_SLID = 0.3  # s, the same when the piece was seen sliding all the way to the victim
# (Longer than a piece is usually held in the air: a hesitation held longer is first taken for
# the capture, then undone when the piece comes back. The clock does not mind: the move is
# timed at the lift either way.)

__all__ = ["MoveInference", "Verdict", "VerdictKind", "WAIT_SLIDE", "WAIT_CASTLE", "WAIT_SWEPT", "WAIT_SWEPT_SLID"]


class VerdictKind(enum.Enum):
    STABLE = "stable"      # the board shows the expected position, nothing in hand
    LIFTED = "lifted"      # pieces in hand / a move on its way, consistent with legal move(s)
    MOVE = "move"          # a move committed
    AMEND = "amend"        # the last committed move replaced by ``move``
    TAKEBACK = "takeback"  # the board is back at the position before the last move
    ILLEGAL = "illegal"    # no legal move explains the board: ``wrong`` squares differ
    TOUCHED = "touched"    # touch-move: a piece lifted and put back must move (``square``)


@dataclass(frozen=True)
class Verdict:
    """What the board shows at ``time`` (see the module docstring for each kind)."""

    kind: VerdictKind
    time: float
    move: Move | None = None
    lifted: int = 0
    wrong: int = 0
    candidates: tuple[Move, ...] = ()
    square: int | None = None


class MoveInference:
    """Settled readings in, verdicts out; see the module docstring."""

    def __init__(self, position: Position, *, touch_move: bool = False, takebacks: bool = False,
                 blind: int = 0) -> None:
        self.touch_move = touch_move
        self.takebacks = takebacks
        self.held = False   # the clocks are stopped: no move counts (``hold``); kept across ``reset``
        self.blind = blind  # squares whose sensor is not trusted (``set_blind``); kept across ``reset``
        self.reset(position)

    # -- public API ------------------------------------------------------------------------

    def reset(self, position: Position, *, guide_back: bool = False, amend_last: bool = False) -> None:
        """Start again from ``position``. With ``guide_back`` (a takeback or a restore decided
        off the board), the board need not show it yet: until it does, every reading is
        ILLEGAL, naming the squares to put right (none is taken for a move). With
        ``amend_last`` (a restore after a cut), the last move of ``position`` may still be
        amended or put back, as it could before the cut."""
        self.position = position.copy(stack=True)
        self._guide_back = guide_back
        self._expected: Move | None = None
        self._promotion = QUEEN
        self._promotion_side = self.position.turn   # the side ``_promotion`` was chosen for
        # The hypotheses about whose hand is at work, a frame each: the side to move, reading its
        # move from the expected position; the last mover again, reading a correction of its move
        # from the position before it (while that move may still be amended).
        self._to_move = Frame(self.position, None, self.blind)
        self._last_mover: Frame | None = None
        self._last: Move | None = None       # the move that ``_last_mover`` may amend
        # Moves complete on the board but not committed: competing hypotheses, the likeliest
        # first (a move seen on the board before a swept capture that was not, the newest first).
        self._pendings: list[Pending] = []
        self._touched: int | None = None
        self._reading: Sensed = (self.position.occupied, None, None)
        if amend_last and not guide_back and self.position.move_stack():
            before = self.position.copy(stack=True)
            self._last = before.pop()
            self._last_mover = Frame(before, None, self.blind)
            self._last_mover.update(self.position.occupied)

    def hold(self, time: float) -> list[Verdict]:
        """The clocks are stopped: no move counts until ``release``. A move the board showed
        complete before (its timer running) is committed first, as of when it was complete;
        other hypotheses are dropped, and a board that does not show the position is ILLEGAL."""
        out: list[Verdict] = []
        p = due(self._pendings, self._reading)
        if p is not None:
            c = p.candidates[0]
            out = self._commit(p.amend, c.move, p.time, c.frame)
        self._pendings = []
        self.held = True
        if not shows(self._reading, self.position, self.blind):
            out.append(self._illegal(time))
        return out

    def release(self) -> None:
        """The clocks run again: moves count once the board shows the expected position."""
        self.held = False
        if not shows(self._reading, self.position, self.blind):
            self._guide_back = True

    def expect(self, move: Move | None) -> None:
        """Accept only ``move`` (a legal move of the side to move) next; None accepts any."""
        if move is not None and not self.position.is_legal(move):
            raise ValueError(f"expected move {move.uci()} is not legal in {self.position.fen()}")
        self._expected = move
        self._last_mover = None
        self._last = None
        self._pendings = []
        self._to_move = self._new_frame(self.position)
        self._to_move.update(self._reading[0])

    def set_blind(self, squares: int) -> None:
        """Ignore the readings of ``squares`` (sensors found dead or stuck) from now on: a move
        to or from one is read from the other squares (see :mod:`firmware.referee.inference_frame`)."""
        self.blind = squares
        for frame in [self._to_move, self._last_mover, *(c.frame for p in self._pendings for c in p.candidates)]:
            if frame is not None:
                frame.blind, frame.keep = squares, ~squares & FULL

    def choose_promotion(self, piece_type: int) -> None:
        """The piece for the next promotion (also one complete on the board but not committed)."""
        if piece_type not in (2, 3, 4, 5):
            raise ValueError(f"a promotion is to a knight, bishop, rook or queen, not {piece_type!r}")
        self._promotion = piece_type
        # Whose promotion it is: the side to move's, unless a move of that side stands complete on
        # the board, waiting, and is no promotion (the choice is then the next side's, made early).
        waiting = [c.move for p in self._pendings if not p.amend for c in p.candidates]
        ahead = bool(waiting) and not any(m.promotion for m in waiting)
        self._promotion_side = self.position.turn ^ ahead
        for p in self._pendings:
            for c in p.candidates:
                if c.move.promotion and c.move != self._expected:
                    before = c.frame.pos.copy(stack=True)
                    before.pop()
                    c.move = Move(c.move.from_square, c.move.to_square, piece_type)
                    c.frame = self._new_frame(_after(before, c.move))
                    c.frame.update(self._reading[0])

    def amend_promotion(self, piece_type: int, time: float) -> list[Verdict]:
        """Change the piece of the promotion just made, while it may still be amended (the
        opponent has not started): ``[AMEND]``, or ``[]`` when there is no such promotion.

        (A ``promote`` choice is for the *next* promotion; this is the UI's "oops, a knight".)
        """
        if piece_type not in (2, 3, 4, 5):
            raise ValueError(f"a promotion is to a knight, bishop, rook or queen, not {piece_type!r}")
        last = self._last
        if not self.amendable() or last is None or not last.promotion:
            return []
        if last.promotion == piece_type:
            return []
        self._pendings = []
        return self._commit(True, Move(last.from_square, last.to_square, piece_type), time, None)

    def alternatives(self) -> tuple[Move, ...]:
        """The other legal moves that leave the board as it reads now, while the last move may
        still be amended (the opponent has not started): what a player may pick to correct a
        move the board recorded wrong (the same squares filled, other pieces: a swept capture).
        A promotion is offered with the piece of the last move's (the player's choice stands)."""
        frame, last = self._last_mover, self._last
        if frame is None or last is None or not self.amendable():
            return ()
        occ, white, black = self._reading
        found = []
        keep = ~self.blind
        for s in frame.shapes:
            if (s.after ^ occ) & keep or (s.frm, s.to) == (last.from_square, last.to_square):
                continue
            if white is not None and black is not None and ((s.after_white ^ white) | (s.after_black ^ black)) & keep:
                continue
            if s.move.promotion and last.promotion:   # the square misread, not the piece the player chose
                found.append(Move(s.frm, s.to, last.promotion))
            else:
                found.append(self._with_promotion(s))
        return tuple(found)

    def amend(self, move: Move, time: float) -> list[Verdict]:
        """Replace the last move by ``move`` (a player's correction, e.g. picked among
        ``alternatives``), while it may still be amended: ``[AMEND]``, or ``[]`` when it may not
        (the opponent has started, or there is no last move). ValueError: ``move`` is not legal."""
        frame, last = self._last_mover, self._last
        if frame is None or last is None or not self.amendable():
            return []
        if not frame.pos.is_legal(move):
            raise ValueError(f"{move.uci()} is not legal in {frame.pos.fen()}")
        if move == last:
            return []
        self._pendings = []
        return self._commit(True, move, time, None)

    def amendable(self) -> bool:
        """The last move may still be amended: its mover's, the opponent not started."""
        return self._last_mover is not None and self._last is not None and not self._to_move.started()

    def watch(self, occupied: int, white: int | None = None, black: int | None = None) -> None:
        """A settled reading after the game ended by the position the last move made: no move
        counts, but the last one may still be amended (``amend``, ``amend_promotion``) until the
        opponent lifts a piece; from then on it is final (``make_final``)."""
        self._reading = (occupied, white, black)
        self._to_move.update(occupied)
        if self._last_mover is not None:
            self._last_mover.update(occupied)
        if self._to_move.started():
            self.make_final()

    def make_final(self) -> None:
        """The last move may no longer be amended nor put back (its window closed)."""
        self._last_mover = None
        self._last = None
        self._pendings = []

    def feed(self, time: float, occupied: int, white: int | None = None, black: int | None = None) -> list[Verdict]:
        reading: Sensed = (occupied, white, black)
        if reading == self._reading and not self._guide_back:
            return []   # (while guiding back, the same reading still says whether the board is there)
        self._reading = reading
        for p in self._pendings:
            if p.history is not None:
                p.history.append((time, reading))
                if len(p.history) > HISTORY:
                    p.history = None
        self._to_move.update(occupied)
        to_move = self._to_move.evaluate(occupied, white, black)
        last_mover = None
        if self._last_mover is not None:
            self._last_mover.update(occupied)
            last_mover = self._last_mover.evaluate(occupied, white, black)
        early = []
        for p in self._pendings:
            for c in p.candidates:
                c.frame.update(occupied)
            if p.fresh:
                p.fresh = False
                # The piece left its square again within WAIT_SLIDE of landing there: the mover's
                # hand is still at work (the opponent does not take a piece the other hand is
                # just leaving).
                c = p.candidates[0]
                if (not p.swept and time < p.time + WAIT_SLIDE and not occupied >> c.move.to_square & 1
                        and not c.frame.started()):
                    early.append(p)
        if early:
            self._pendings = [p for p in self._pendings if p not in early]
        for p in self._pendings:
            for c in p.candidates:
                c.prev, c.fit = c.fit, c.frame.evaluate(occupied, white, black)
        return self._dispatch(time, to_move, last_mover)

    def poll(self, time: float) -> list[Verdict]:
        p = due(self._pendings, self._reading)
        if p is None:
            return []
        assert p.deadline is not None   # due() gives only a pending move whose timer runs
        if time < p.deadline:
            return []
        self._pendings = []
        c = p.candidates[0]
        return self._commit(p.amend, c.move, p.time, c.frame)

    def next_deadline(self) -> float | None:
        p = due(self._pendings, self._reading)
        return p.deadline if p is not None else None

    def pending_time(self) -> float | None:
        # Any move complete on the board, waiting for its timer or for a reading to tell it
        # from another (a swept capture the LEDs ask to touch): a flag must not fall over it.
        return min((p.time for p in self._pendings), default=None)

    @property
    def reading(self) -> Sensed:
        """The latest settled reading fed: occupancy, and the colours of a colour-sensing board."""
        return self._reading

    @property
    def guided(self) -> bool:
        """The board is asked to show a given position: the clocks held, a position to be guided
        back to (``reset(guide_back=True)``, ``release``), or the opponent's move to carry out."""
        return self.held or self._guide_back or self._expected is not None

    @property
    def next_promotion(self) -> int:
        """The piece type (2..5) of the next promotion: queen unless ``choose_promotion`` said."""
        return self._promotion

    @property
    def touched(self) -> int | None:
        """The square of the piece that must move (touch-move), or None."""
        return self._touched

    # -- decisions -------------------------------------------------------------------------

    def _dispatch(self, time: float, to_move: Evaluation, last_mover: Evaluation | None) -> list[Verdict]:
        fit = to_move.fit
        if fit is Fit.STABLE:
            guided = self._guide_back or self.held   # a piece put back as asked is no touch
            self._guide_back = False
            return self._stable(time, touch=not guided)
        if self._guide_back or self.held:
            return [self._illegal(time)]
        if self._pendings:
            resolved = self._resolve_pending(fit, to_move, time)
            if resolved is not None:
                return resolved
        if fit is Fit.COMPLETE:
            return self._complete(False, to_move, time)
        if fit is Fit.SWEPT:
            return self._swept(False, to_move, time)
        if fit is Fit.PARTIAL:
            if last_mover is not None and last_mover.fit is Fit.COMPLETE and self._other_than_last(last_mover):
                return self._complete(True, last_mover, time)
            if last_mover is not None and not last_mover.consistent:
                self._last_mover = None
                self._last = None
            return [self._lifted(time, to_move)]
        # Nothing from the expected position explains the board.
        if last_mover is not None:
            if last_mover.fit is Fit.COMPLETE and self._other_than_last(last_mover):
                return self._complete(True, last_mover, time)
            if last_mover.fit is Fit.SWEPT:
                return self._swept(True, last_mover, time)
            if last_mover.fit is Fit.PARTIAL:
                return [self._lifted(time, last_mover)]
            if last_mover.fit is Fit.STABLE:
                return self._revoke(time)
        if self.takebacks:
            verdict = self._takeback(time)
            if verdict is not None:
                return [verdict]
        if only_lifted(self._reading, self.position, self.blind):
            return [self._lifted(time, to_move)]  # pieces in hand that cannot move: not wrong yet
        return [self._illegal(time)]

    def _resolve_pending(self, fit: Fit, to_move: Evaluation, time: float) -> list[Verdict] | None:
        """Commit a pending move if this reading shows the opponent going on from after it."""
        # Explanations that fitted until this reading, the opponent having begun from them: if
        # nothing else is left, one of them is read again from its start (a move made by the
        # opponent while the mover could still have been capturing).
        late = [(p, c) for p in self._pendings for c in p.candidates
                if not c.fit.consistent and c.prev.consistent and c.frame.started()
                and p.history is not None]
        for p in self._pendings:
            p.candidates = [c for c in p.candidates if c.fit.consistent]
        self._pendings = [p for p in self._pendings if p.candidates]
        if not self._pendings:
            if late and fit is Fit.NONE:
                return self._read_again(*late[0])
            return None
        done = [(p, c) for p in self._pendings for c in p.candidates
                if c.fit.fit is Fit.COMPLETE and c.frame.started() and not continues(p, c, to_move)]
        if done and fit is not Fit.COMPLETE:
            return self._resolve(*done[0], to_move, time)  # the opponent even finished a move
        # The opponent began a move from the position after a pending one. (Or the mover,
        # resting on the way, removes a victim: then a later reading amends.) After a swept
        # capture the mover may still hold its piece, and lifting a piece it can capture is
        # more likely that capture going on (mover first). While two hypotheses both fit, the
        # next readings tell them apart.
        if len(self._pendings) > 1:
            return [self._undecided(time)] if fit is not Fit.COMPLETE else None
        p = self._pendings[0]
        started = [c for c in p.candidates if c.frame.started()]
        if len(started) == 1 and not continues(p, started[0], to_move):
            return self._resolve(p, started[0], to_move, time)
        if fit is Fit.NONE:
            if len(p.candidates) == 1:
                return self._resolve(p, p.candidates[0], to_move, time)
            return [self._undecided(time)]
        return None

    def _stable(self, time: float, touch: bool = True) -> list[Verdict]:
        self._pendings = []
        first = self._to_move.first_lift
        if any(s.move.promotion and self._to_move.lifted >> s.frm & 1 for s in self._to_move.shapes):
            # A pawn that could promote lifted and put back unmoved: the piece chosen for it is
            # for no later pawn. (Another piece straightened keeps the choice.)
            self._promotion = QUEEN
        self._to_move.reset()
        if self._last_mover is not None:
            # A correction starts again from this board; forget lifts that were put back
            # (an opponent's hesitation must not read as the victim of a correction).
            self._last_mover.reset()
            self._last_mover.update(self._reading[0])
        if self.touch_move and touch and self._touched is None and first is not None and self._expected is None:
            if any(s.frm == first for s in self._to_move.shapes):
                self._touched = first
        if self._touched is not None:
            return [Verdict(VerdictKind.TOUCHED, time, square=self._touched)]
        return [Verdict(VerdictKind.STABLE, time)]

    def _complete(self, amend: bool, e: Evaluation, time: float) -> list[Verdict]:
        s = e.complete[0]
        if any((o.frm, o.to) != (s.frm, s.to) for o in e.complete):
            return [self._lifted(time, e)]  # two moves leave the same board (not in chess, kept safe)
        if not amend and self._touched is not None and s.frm != self._touched:
            return [self._illegal(time)]
        frame = self._before_last() if amend else self._to_move
        move = self._with_promotion(s)
        extensions: tuple[Move, ...] = ()
        if s.dst:  # a piece set down on an empty square may still be on its way (captures may not)
            extensions = tuple(o.move for o in e.partial if (o.frm, o.to) != (s.frm, s.to))
        if extensions:
            castle = s.piece == ROOK and any(o.kind == CASTLE for o in e.partial)
            wait = WAIT_CASTLE if castle else WAIT_SLIDE
            after = self._new_frame(s.play(frame.pos, move.promotion))
            pending = Pending(amend, [Candidate(move, after)], time, self._reading, time + wait)
            self._pendings = added(self._pendings, pending)
            lifted = gone(self._reading, self.position, self.blind)
            return [Verdict(VerdictKind.LIFTED, time, move=move, lifted=lifted, candidates=(move,) + extensions)]
        self._pendings = []
        return self._commit(amend, move, time, None)

    def _swept(self, amend: bool, e: Evaluation, time: float) -> list[Verdict]:
        if amend and exchanging(self._last, self._reading, self.position, self.blind):
            return [self._lifted(time, e)]
        frame = self._before_last() if amend else self._to_move
        candidates = []
        for s in e.swept:
            if not amend and self._touched is not None and s.frm != self._touched:
                continue
            move = self._with_promotion(s)
            candidates.append(Candidate(move, self._new_frame(s.play(frame.pos, move.promotion))))
        if candidates:
            # A piece slid along the whole way to a victim, then gone from the board: it went on
            # onto the victim (a hand does not lift a sliding piece short of its capture).
            slid = [c for c, s in zip(candidates, e.swept) if frame.slid_to(s)]
            deadline: float | None
            if len(slid) == 1:
                candidates.remove(slid[0])
                candidates.insert(0, slid[0])
                deadline = time + WAIT_SWEPT_SLID
            else:
                deadline = time + WAIT_SWEPT if len(candidates) == 1 else None
            pending = Pending(amend, candidates, time, self._reading, deadline, swept=True)
            self._pendings = added(self._pendings, pending)
        return [self._lifted(time, e)]

    def _resolve(self, p: Pending, c: Candidate, to_move: Evaluation, time: float) -> list[Verdict]:
        """Commit the pending candidate ``c``; then this reading is seen from after it."""
        self._pendings = []
        out = self._commit(p.amend, c.move, p.time, c.frame)
        # (committed, the side to move's frame is the last mover's: its evaluation too)
        last_mover = to_move if not p.amend else (
            self._last_mover.evaluate(*self._reading) if self._last_mover is not None else None)
        return out + self._dispatch(time, c.fit, last_mover)

    def _read_again(self, p: Pending, c: Candidate) -> list[Verdict]:
        """Commit the pending candidate ``c`` as of when the board showed it, then read the
        readings since again from after it (the opponent's move among them gets its own time)."""
        history = p.history
        assert history is not None   # a candidate is read again only while its history is kept
        self._pendings = []
        self._reading = p.reading
        out = self._commit(p.amend, c.move, p.time, None)
        if self._last_mover is not None:
            self._last_mover = Frame(self._last_mover.pos, self._last_mover.allowed, self.blind)
            self._last_mover.update(p.reading[0])
        for t, reading in history:
            out += self.poll(t)
            out += self.feed(t, *reading)
        return out

    def _commit(self, amend: bool, move: Move, time: float, frame: Frame | None) -> list[Verdict]:
        if amend:
            base = self._before_last().pos
            kind = VerdictKind.AMEND
        else:
            base = self.position
            self._last_mover = self._to_move
            kind = VerdictKind.MOVE
        self._last = move
        self._touched = None
        self._expected = None
        self.position = frame.pos if frame is not None else _after(base, move)
        if frame is None:
            frame = self._new_frame(self.position)
            frame.update(self._reading[0])
        self._to_move = frame
        if move.promotion or base.turn == self._promotion_side:
            self._promotion = QUEEN   # the promotion made, or the chooser's turn passed without one
        return [Verdict(kind, time, move=move)]

    def _revoke(self, time: float) -> list[Verdict]:
        """The last mover put the piece back before the opponent started: the move is undone."""
        move = self._last
        frame = self._last_mover
        assert frame is not None   # called when the frame from before the last move reads STABLE
        self.position = frame.pos
        self._to_move = frame
        self._to_move.reset()
        self._last_mover = None
        self._last = None
        self._pendings = []
        return [Verdict(VerdictKind.TAKEBACK, time, move=move)]

    def _takeback(self, time: float) -> Verdict | None:
        if not self.position.move_stack():
            return None
        before = self.position.copy(stack=True)
        move = before.pop()
        if not shows(self._reading, before, self.blind):
            return None
        self.position = before
        self._to_move = self._new_frame(before)
        self._last_mover = None
        self._last = None
        self._pendings = []
        self._touched = None
        return Verdict(VerdictKind.TAKEBACK, time, move=move)

    # -- helpers ---------------------------------------------------------------------------

    def _before_last(self) -> Frame:
        """The frame from before the last move, which a move amending it is made from."""
        if self._last_mover is None:
            raise RuntimeError("no last move to amend: the frame from before it is gone")
        return self._last_mover

    def _other_than_last(self, last_mover: Evaluation) -> bool:
        """Does ``last_mover`` (COMPLETE, from before the last move) show another move than the last one?"""
        last = self._last
        assert last is not None   # the frame from before the last move lives only with that move
        return last_mover.complete[0].move[:2] != last[:2]

    def _new_frame(self, pos: Position) -> Frame:
        allowed = self._expected if pos is self.position else None
        return Frame(pos, allowed, self.blind)

    def _with_promotion(self, s: Shape) -> Move:
        if s.move.promotion:
            expected = self._expected
            if expected is not None and (expected.from_square, expected.to_square) == (s.frm, s.to):
                return expected   # the opponent's promotion carried out: its piece, nobody chooses
            return Move(s.frm, s.to, self._promotion)
        return s.move

    def _lifted(self, time: float, e: Evaluation) -> Verdict:
        return Verdict(VerdictKind.LIFTED, time, lifted=gone(self._reading, self.position, self.blind),
                       candidates=tuple(self._with_promotion(s) for s in e.shapes()))

    def _undecided(self, time: float) -> Verdict:
        """Several pending moves still fit the board: LIFTED, with all of them as candidates."""
        moves = tuple(c.move for p in self._pendings for c in p.candidates)
        return Verdict(VerdictKind.LIFTED, time, lifted=gone(self._reading, self.position, self.blind), candidates=moves)

    def _illegal(self, time: float) -> Verdict:
        reading, pos, blind = self._reading, self.position, self.blind
        return Verdict(VerdictKind.ILLEGAL, time, lifted=gone(reading, pos, blind), wrong=wrong(reading, pos, blind))


def _after(pos: Position, move: Move) -> Position:
    """The position after ``move`` (a copy, its move stack kept)."""
    after = pos.copy(stack=True)
    after.push(move)
    return after
