"""The match's clock as the game uses it: the presses and their history, the latest time given, the hand's time on the opponent's announced move (pure).

A :class:`Timing` owns the :class:`~chess_core.clock.Clock` of one match and what the match
keeps beside it to apply its timing rules (:mod:`firmware.referee.match`, "Timing rules"): the
latest time given to a clock call (``ms``: times come in late, a move is timed at its landing),
when each move stopped its mover's clock (``presses``), the mover's time after each move
(``after_move``, None when untimed), and the :class:`Handover` (the opponent's clock stopped at
its move's announcement while the player's hand carries it out). Clock times are ms; ``at``
turns seconds into them, never before the clock's last change.
"""
from __future__ import annotations

from chess_core.clock import Clock, ClockError
from chess_core.squares import BLACK, WHITE
from chess_core.timecontrol import TimeControl

__all__ = ["Timing", "Handover", "to_ms", "clock_with_last_press"]


def to_ms(seconds: float) -> int:
    return int(round(seconds * 1000))


class Handover:
    """The opponent's announced move being carried out by the player's hand: the opponent's clock
    stopped at the announcement (``since``, clock ms), the player's time running meanwhile."""

    def __init__(self) -> None:
        self.since: int | None = None

    def end(self, clock: Clock, t: int, live: bool) -> bool:
        """The announced move was withdrawn (or taken back): the opponent's clock runs again from
        ``t`` (if the game is live); the time in between is nobody's. True if one was under way."""
        if self.since is None:
            return False
        self.since = None
        if live:
            clock.resume(t)
        return live

    def settle(self, clock: Clock, t: int, player: int) -> None:
        """Charge ``player`` the time since the announcement (the clock stays stopped)."""
        if self.since is None:
            return
        used = min(t - self.since, clock.remaining(player, t) or 0)
        if used > 0:
            clock.add_time(player, -used)
        self.since = None

    def flag_point(self, clock: Clock, clock_ms: int, player: int) -> tuple[int, int] | None:
        """(the side whose flag falls next, when in clock ms): the side to move's, or, while the hand
        carries out the opponent's announced move, ``player``'s; None when no flag can fall."""
        if self.since is not None:
            return player, self.since + (clock.remaining(player, clock_ms) or 0)
        at = clock.flag_time()
        if at is None:
            return None
        side = clock.side_to_move
        if side is None:   # a clock that has not started has no flag to fall
            return None
        return side, at


class Timing:
    """One match's clock and its bookkeeping; see the module docstring."""

    def __init__(self, time_control: TimeControl) -> None:
        self.time_control = time_control
        self.clock = Clock(time_control)
        self.ms = 0                                 # the latest time given to a clock call that advances it
        self.presses: list[int] = []                # when each move stopped its mover's clock
        self.after_move: list[int | None] = []      # the mover's time after each move (None when untimed)
        self.handover = Handover()                  # the clock stopped for the opponent at its move's announcement

    def at(self, seconds: float) -> int:
        """``seconds`` in clock ms, never before the clock's last change (times pass in
        late: a move is timed at its landing, after the clock was last touched maybe)."""
        last = self.clock.last_time_ms or 0  # also changes made by others
        return max(to_ms(seconds), self.ms, last)

    def press(self, mover: int, t: int) -> None:
        """``mover`` completed a move at ``t``: its clock is pressed, the press and the time left noted."""
        clock = self.clock
        if clock.paused:  # a correction or a claim's move while stopped: no time passes
            clock.resume(t)
            clock.press(t)
            clock.pause(t)
        else:
            clock.press(t)
        self.ms = t
        self.presses.append(t)
        self.after_move.append(clock.remaining(mover, t) if self.time_control.timed else None)

    def unpress(self, now_ms: int, charge_ms: int) -> None:
        """Undo the last press at ``now_ms`` and charge its mover ``charge_ms`` more."""
        clock = self.clock
        self.presses.pop()
        self.after_move.pop()
        clock.undo_press(now_ms)
        self.ms = now_ms
        if charge_ms > 0 and self.time_control.timed:
            side = clock.side_to_move
            assert side is not None   # a press was just undone: the clock has started
            left = clock.remaining(side, now_ms)
            assert left is not None   # timed
            clock.add_time(side, -min(charge_ms, left), now_ms=now_ms)

    def stop(self, t: int) -> None:
        """The clock stops at ``t`` (a pause, the game's end)."""
        self.clock.pause(t)
        self.ms = t

    def run(self, t: int) -> None:
        """The stopped clock runs again from ``t``."""
        self.clock.resume(t)
        self.ms = t

    def withdraw(self, t: int, live: bool) -> None:
        """The opponent's announced move is withdrawn (or taken back): its clock runs again from
        ``t`` if the game is live (see :meth:`Handover.end`)."""
        if self.handover.end(self.clock, t, live):
            self.ms = t

    def settle(self, t: int, player: int) -> None:
        """Charge ``player``, carrying out the opponent's announced move, the time since its
        announcement (see :meth:`Handover.settle`)."""
        self.handover.settle(self.clock, t, player)

    def flag_point(self, turn: int) -> tuple[int, int] | None:
        """(the side whose flag falls next, when in clock ms), ``turn`` being the side to move
        (see :meth:`Handover.flag_point`); None when no flag can fall."""
        return self.handover.flag_point(self.clock, self.ms, turn ^ 1)

    def remaining(self, now: float, turn: int) -> tuple[int, int] | None:
        """Both sides' main time at ``now`` (ms, White first), ``turn`` being the side to move: while
        the hand carries out the opponent's announced move, the player's time runs. None untimed."""
        if not self.time_control.timed:
            return None
        at = self.at(now)
        white, black = self.clock.remaining(WHITE, at), self.clock.remaining(BLACK, at)
        assert white is not None and black is not None   # the clock keeps the match's time control
        times = [white, black]
        since = self.handover.since
        if since is not None:   # the player carries out the opponent's move: the player's time runs
            player = turn ^ 1
            times[player] = max(0, times[player] - max(0, at - since))
        return times[WHITE], times[BLACK]

    def running_side(self, turn: int) -> int | None:
        """The side whose time runs now, ``turn`` being the side to move: the player carrying out the
        opponent's announced move, else the clock's."""
        return turn ^ 1 if self.handover.since is not None else self.clock.running_side


def clock_with_last_press(time_control: TimeControl, made: dict[int, int], times: dict[str, int], mover: int,
                          now_ms: int) -> Clock | None:
    """A clock whose last press (``mover``'s, at ``now_ms``) is in its history, so that it can be
    undone, and whose times after it are ``times``; None if it cannot be built."""
    before = dict(made)
    before[mover] -= 1
    key = "start_ms_white" if mover == WHITE else "start_ms_black"

    def build(shift: int) -> Clock:
        start = dict(times)
        if start:
            start[key] = start[key] - shift
        clock = Clock(time_control, moves_white=before[WHITE], moves_black=before[BLACK], **start)
        clock.start(now_ms, mover)
        clock.press(now_ms)
        return clock
    try:
        if not times:
            return build(0)
        left = build(0).remaining(mover, now_ms)
        if left is None:   # (times are given only for a timed game)
            return None
        shift = left - times[key]   # what the press adds (an increment)
        clock = build(shift)
        if clock.remaining(mover, now_ms) != times[key] or clock.flag_fallen is not None:
            return None
        return clock
    except (ClockError, ValueError):
        return None
