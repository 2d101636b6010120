"""The two-sided chess clock, driven by explicit timestamps, and the clock's display and PGN formats.

The clock never reads the time: every call that depends on it takes ``now_ms``, an int of
milliseconds from any monotonic origin, never going backwards (ClockError otherwise). Sides are
WHITE = 0 and BLACK = 1; booleans are refused, so that python-chess's ``WHITE = True`` cannot
slip in and swap the colours. Time controls and their spelling (``300+3``, ``300d5``,
``300b5``, ``40/5400+30:1800+30``, ``*180``, ``300+3/m30``) are described in
:mod:`chess_core.timecontrol`.

How the clock counts:

* ``start(now_ms, side)`` starts the clock of the side to move first. ``press(now_ms)`` ends
  that side's move: its time is charged, then its bonus is applied (increment after every move
  from move 1; Bronstein gives back the time used, up to the delay), then, if that move
  completed a period, the next period's time is added; the other side's clock starts.
* Simple (US) delay: the main time does not run for the first ``delay`` ms of each move.
  ``remaining()`` shows the main time; ``delay_left()`` shows the delay still to run.
* The flag falls at the instant the running side's time (and its delay) is used up, i.e. when
  ``remaining()`` reaches 0, or when its move has lasted the per-move limit: a move must take
  strictly less than the limit, and a press at the flag instant is too late. The flag is
  sticky: both clocks stop at the flag instant, ``press`` keeps returning the flagged side,
  and only ``undo_press`` (to a state before the flag) revives it.
* ``pause``/``resume`` are the arbiter's stop: no time passes in between, for the main time,
  the delay or the per-move limit.
* Without a game clock (``-``, ``?``) everything works, moves are counted, and ``remaining()``
  returns None; a ``-/m30`` clock still enforces its per-move limit.
* Sandclock: the time one side uses is added to the other side, so ``remaining()`` of the
  waiting side grows while the other side thinks.

>>> clock = Clock("300+3")
>>> clock.start(0, WHITE)
>>> clock.press(10_000)
>>> clock.remaining(WHITE, 10_000), clock.remaining(BLACK, 25_000)
(293000, 285000)
>>> format_clock(clock.remaining(BLACK, 25_000))
'0:04:45'
"""
from __future__ import annotations

import enum
import re
from dataclasses import dataclass, replace

from .squares import BLACK, WHITE
from .timecontrol import Period, TimeControl

TENTHS_BELOW_MS = 20_000   # club clocks switch from H:MM:SS to tenths of a second below 20 s


class ClockError(RuntimeError):
    """The clock was used out of order: not started, paused, flag fallen, time going backwards."""


class ClockFormatError(ValueError):
    """Text that is not a clock time such as ``0:04:59.7``."""


class FlagReason(enum.Enum):
    """Why a flag fell; both lose on time (PGN termination "time forfeit")."""

    TIME = "time"              # the main time (and delay) ran out
    MOVE_LIMIT = "move limit"  # one move lasted the per-move limit


@dataclass(frozen=True)
class _State:
    times: tuple[int, int]       # main time; for the side to move, as it was when its move began
    moves: tuple[int, int]       # moves completed by each side
    to_move: int | None = None   # None until started
    move_ms: int = 0             # time spent on the current move before ``since`` (pauses excluded)
    since: int | None = None     # when the clock last started ticking; None when it does not tick
    paused: bool = False
    flag: int | None = None
    flag_at: int | None = None
    flag_reason: FlagReason | None = None


def _check_side(side: object) -> int:
    if type(side) is not int or side not in (WHITE, BLACK):
        raise ValueError(f"a side is WHITE (0) or BLACK (1), not {side!r}")
    return side


def _check_ms(name: str, ms: object) -> int:
    if type(ms) is not int or ms < 0:
        raise ValueError(f"{name} must be an int of milliseconds, at least 0, not {ms!r}")
    return ms


class Clock:
    """A two-sided chess clock for ``time_control`` (a TimeControl or its text).

    ``start_ms_white``/``start_ms_black`` override the starting times (odds games, or a clock
    restored after a restart); ``moves_white``/``moves_black`` are the moves already made, which
    fix the period each side is in.
    """

    def __init__(self, time_control: TimeControl | str, *, start_ms_white: int | None = None,
                 start_ms_black: int | None = None, moves_white: int = 0, moves_black: int = 0) -> None:
        if isinstance(time_control, str):
            time_control = TimeControl.parse(time_control)
        if not isinstance(time_control, TimeControl):
            raise TypeError(f"a time control is a TimeControl or its text, not {time_control!r}")
        self.time_control = time_control
        initial = time_control.initial_ms
        times = []
        for name, ms in (("start_ms_white", start_ms_white), ("start_ms_black", start_ms_black)):
            if ms is not None and initial is None:
                raise ValueError(f"{name}: time control {time_control} has no game clock")
            times.append(_check_ms(name, ms) if ms is not None else initial or 0)
        for name, moves in (("moves_white", moves_white), ("moves_black", moves_black)):
            if type(moves) is not int or moves < 0:
                raise ValueError(f"{name} must be an int, at least 0, not {moves!r}")
        self._state = _State(times=(times[0], times[1]), moves=(moves_white, moves_black))
        self._history: list[_State] = []
        self._last_ms: int | None = None

    def __repr__(self) -> str:
        s = self._state
        return (f"<Clock {self.time_control} times={s.times} moves={s.moves} to_move={s.to_move} "
                f"paused={s.paused} flag={s.flag}>")

    # -- state -------------------------------------------------------------------------------

    @property
    def started(self) -> bool:
        return self._state.to_move is not None

    @property
    def paused(self) -> bool:
        return self._state.paused

    @property
    def side_to_move(self) -> int | None:
        """The side whose clock runs, or would run if not paused or stopped by a flag."""
        return self._state.to_move

    @property
    def running_side(self) -> int | None:
        """The side whose clock is running now: None before start, while paused, after a flag."""
        return self._state.to_move if self._ticking else None

    @property
    def flag_fallen(self) -> int | None:
        """The side whose flag fell, as recorded by a call at or after the flag instant."""
        return self._state.flag

    @property
    def flag_reason(self) -> FlagReason | None:
        return self._state.flag_reason

    @property
    def last_time_ms(self) -> int | None:
        """The latest ``now_ms`` the clock was given (None before any): earlier times are refused."""
        return self._last_ms

    @property
    def can_undo(self) -> bool:
        return bool(self._history)

    def moves_made(self, side: int) -> int:
        """The moves (presses) that ``side`` has completed."""
        return self._state.moves[_check_side(side)]

    def period_index(self, side: int) -> int | None:
        """The index of the period ``side``'s next move belongs to; None without periods."""
        if not self.time_control.periods:
            return None
        return self.time_control.period_index(self._state.moves[_check_side(side)] + 1)

    # -- queries -----------------------------------------------------------------------------

    def remaining(self, side: int, now_ms: int) -> int | None:
        """``side``'s main time at ``now_ms`` in ms, never negative; None without a game clock."""
        _check_side(side)
        self._check_time(now_ms)
        if not self.time_control.timed:
            return None
        return max(0, self._left(side, self._move_ms(now_ms)))

    def flagged(self, now_ms: int) -> int | None:
        """The side whose flag has fallen by ``now_ms`` (time or per-move limit), or None."""
        self._check_time(now_ms)
        if self._state.flag is not None:
            return self._state.flag
        at = self.flag_time()
        return self._state.to_move if at is not None and now_ms >= at else None

    def flag_time(self) -> int | None:
        """The instant the running side's flag falls if nothing happens (or fell); None if it cannot.

        A service schedules its next check for this instant. None before start, while paused,
        and when neither a game clock nor a per-move limit can make a flag fall.
        """
        s = self._state
        if s.flag is not None:
            return s.flag_at
        deadline = self._deadline()
        since = self._ticking_since()
        if since is None or deadline is None:
            return None
        return since + deadline[0] - s.move_ms

    def move_time(self, now_ms: int) -> int:
        """How long the current move has lasted (pauses excluded); 0 before start."""
        self._check_time(now_ms)
        return self._move_ms(now_ms)

    def move_time_left(self, now_ms: int) -> int | None:
        """Time left on the per-move limit for the current move; None without a limit."""
        limit = self.time_control.move_limit_ms
        return None if limit is None else max(0, limit - self.move_time(now_ms))

    def delay_left(self, now_ms: int) -> int:
        """Simple (US) delay still to run before the side to move's main time runs; else 0."""
        used = self.move_time(now_ms)
        period = self._period()
        return max(0, period.delay_ms - used) if period is not None else 0

    # -- actions -----------------------------------------------------------------------------

    def start(self, now_ms: int, side: int = WHITE) -> None:
        """Start the clock of ``side``, the side to move first."""
        _check_side(side)
        if self.started:
            raise ClockError("the clock has already been started")
        self._advance(now_ms)
        self._state = replace(self._state, to_move=side, move_ms=0, since=now_ms)

    def press(self, now_ms: int) -> int | None:
        """The side to move ends its move at ``now_ms``; its opponent's clock starts.

        Returns None, or the side whose flag has fallen: then nothing changes (the flag is sticky,
        and a late press does not revive the flagged side).
        """
        side = self._started_side()
        self._advance(now_ms)
        s = self._state
        if s.flag is not None:
            return s.flag
        if s.paused:
            raise ClockError("the clock is paused: resume it before pressing")
        other = 1 - side
        times, used = list(s.times), s.move_ms
        tc = self.time_control
        if tc.periods:
            period = tc.period_for_move(s.moves[side] + 1)
            times[side] += (period.increment_ms + min(used, period.bronstein_ms) - self._charged(used, period)
                            + tc.time_added_after(s.moves[side] + 1))
        elif tc.sandclock_ms is not None:
            times[side] -= used
            times[other] += used
        moves = list(s.moves)
        moves[side] += 1
        self._history.append(s)
        self._state = replace(s, times=(times[0], times[1]), moves=(moves[0], moves[1]), to_move=other,
                              move_ms=0, since=now_ms)
        return None

    def pause(self, now_ms: int) -> None:
        """Stop both clocks (an arbiter's stop); does nothing if already stopped."""
        if not self.started:
            raise ClockError("the clock has not been started")
        self._advance(now_ms)
        if self._ticking:
            self._state = replace(self._state, paused=True, since=None)

    def resume(self, now_ms: int) -> None:
        """Restart the clock of the side to move after ``pause``; does nothing if not paused."""
        if not self.started:
            raise ClockError("the clock has not been started")
        self._advance(now_ms)
        if self._state.flag is not None:
            raise ClockError("the flag has fallen: the clock cannot resume")
        if self._state.paused:
            self._state = replace(self._state, paused=False, since=now_ms)

    def undo_press(self, now_ms: int) -> None:
        """Take back the last press: the state before it returns, flag included.

        The side that pressed is to move again, with its time and move time as they were at the
        press; the time between the press and ``now_ms`` is charged to nobody. Its clock runs from
        ``now_ms``, unless the clock is paused. Arbiter changes made after the press are undone too.
        """
        if not self._history:
            raise ClockError("there is no press to undo")
        self._advance(now_ms)
        paused = self._state.paused
        self._state = replace(self._history.pop(), paused=paused, since=None if paused else now_ms)

    def set_time(self, side: int, ms: int, *, now_ms: int | None = None) -> None:
        """Set ``side``'s main time to ``ms``: ``remaining(side, now_ms)`` becomes ``ms``.

        ``now_ms`` is needed while that side's time runs (the side to move, or either side of a
        running sandclock). Refused after a flag fall (see undo_press).
        """
        _check_side(side)
        _check_ms("ms", ms)
        self._prepare_adjust(side, now_ms)
        self._set(side, ms)

    def add_time(self, side: int, ms: int, *, now_ms: int | None = None) -> None:
        """Add ``ms`` (negative: take away) to ``side``'s main time; ``now_ms`` as for set_time."""
        _check_side(side)
        if type(ms) is not int:
            raise ValueError(f"ms must be an int of milliseconds, not {ms!r}")
        self._prepare_adjust(side, now_ms)
        left = max(0, self._left(side, self._state.move_ms))
        if left + ms < 0:
            raise ValueError(f"cannot take {-ms} ms from a side that has {left} ms")
        self._set(side, left + ms)

    # -- inside --------------------------------------------------------------------------------

    def _set(self, side: int, ms: int) -> None:
        s = self._state
        if side == s.to_move:
            base = ms + self._charged(s.move_ms, self._period())
        elif self.time_control.sandclock_ms is not None and s.to_move is not None:
            base = ms - s.move_ms
        else:
            base = ms
        times = list(s.times)
        times[side] = base
        self._state = replace(s, times=(times[0], times[1]))

    @property
    def _ticking(self) -> bool:
        s = self._state
        return s.to_move is not None and not s.paused and s.flag is None

    def _ticking_since(self) -> int | None:
        """When the running clock last started ticking; None when it does not tick."""
        return self._state.since if self._ticking else None

    def _started_side(self) -> int:
        """The side to move; a ClockError before start."""
        side = self._state.to_move
        if side is None:
            raise ClockError("the clock has not been started")
        return side

    def _check_time(self, now_ms: object) -> None:
        if type(now_ms) is not int:
            raise ValueError(f"now_ms must be an int of milliseconds, not {now_ms!r}")
        if self._last_ms is not None and now_ms < self._last_ms:
            raise ClockError(f"time went backwards: {now_ms} ms after {self._last_ms} ms")

    def _period(self) -> Period | None:
        s = self._state
        if not self.time_control.periods or s.to_move is None:
            return None
        return self.time_control.period_for_move(s.moves[s.to_move] + 1)

    @staticmethod
    def _charged(used: int, period: Period | None) -> int:
        """The main time that ``used`` ms of a move cost: all of it, less any simple delay."""
        return max(0, used - period.delay_ms) if period is not None else used

    def _deadline(self) -> tuple[int, FlagReason] | None:
        """The move time at which the side to move's flag falls, and why; None if it cannot."""
        s, tc = self._state, self.time_control
        if s.to_move is None:
            return None
        candidates: list[tuple[int, FlagReason]] = []
        period = self._period()  # None only without periods, the side to move being known
        if period is not None:
            candidates.append((s.times[s.to_move] + period.delay_ms, FlagReason.TIME))
        elif tc.sandclock_ms is not None:
            candidates.append((s.times[s.to_move], FlagReason.TIME))
        if tc.move_limit_ms is not None:
            candidates.append((tc.move_limit_ms, FlagReason.MOVE_LIMIT))
        return min(candidates, key=lambda c: c[0]) if candidates else None

    def _move_ms(self, now_ms: int) -> int:
        """Time spent on the current move at ``now_ms``; it stops at the flag instant."""
        s = self._state
        since = self._ticking_since()
        if since is None:
            return s.move_ms
        used = s.move_ms + max(0, now_ms - since)
        deadline = self._deadline()
        return min(used, deadline[0]) if deadline is not None else used

    def _left(self, side: int, used: int) -> int:
        """``side``'s main time (maybe negative) once the current move has lasted ``used`` ms."""
        s = self._state
        if side == s.to_move:
            return s.times[side] - self._charged(used, self._period())
        if self.time_control.sandclock_ms is not None and s.to_move is not None:
            return s.times[side] + used
        return s.times[side]

    def _advance(self, now_ms: int) -> None:
        """Bring the state to ``now_ms``, recording a flag that has fallen by then."""
        self._check_time(now_ms)
        self._last_ms = now_ms
        since = self._ticking_since()
        if since is None:
            return
        s = self._state
        at = self.flag_time()
        deadline = self._deadline()  # while ticking, None exactly when ``at`` is
        if at is not None and deadline is not None and now_ms >= at:
            self._state = replace(s, move_ms=deadline[0], since=None, flag=s.to_move, flag_at=at,
                                  flag_reason=deadline[1])
        else:
            self._state = replace(s, move_ms=s.move_ms + now_ms - since, since=now_ms)

    def _prepare_adjust(self, side: int, now_ms: int | None) -> None:
        if not self.time_control.timed:
            raise ClockError(f"time control {self.time_control} has no game clock to adjust")
        if now_ms is not None:
            self._advance(now_ms)
        elif self._ticking and (side == self._state.to_move or self.time_control.sandclock_ms is not None):
            raise ClockError("that side's time is running: pass now_ms, or pause the clock first")
        if self._state.flag is not None:
            raise ClockError("the flag has fallen: undo_press, or start a new Clock")


# -- display and PGN ---------------------------------------------------------------------------

def format_clock(ms: int | None) -> str:
    """A clock face: ``H:MM:SS`` from 20 s up, ``0:SS.t`` (tenths) below; ``-:--:--`` for None.

    Digits are cut, not rounded, as on club clocks: 20.000 s shows ``0:00:20``, 19.999 s
    shows ``0:19.9``, and 0.099 s shows ``0:00.0`` although the flag has not yet fallen.

    >>> format_clock(5_400_000), format_clock(299_700), format_clock(19_999)
    ('1:30:00', '0:04:59', '0:19.9')
    """
    if ms is None:
        return "-:--:--"
    _check_ms("ms", ms)
    if ms >= TENTHS_BELOW_MS:
        minutes, seconds = divmod(ms // 1000, 60)
        hours, minutes = divmod(minutes, 60)
        return f"{hours}:{minutes:02d}:{seconds:02d}"
    tenths = ms // 100
    return f"0:{tenths // 10:02d}.{tenths % 10}"


def format_pgn_clk(ms: int, *, tenths: bool | None = None) -> str:
    """The time of a PGN ``[%clk 0:04:59.7]`` comment: ``H:MM:SS`` or ``H:MM:SS.t`` (cut, not rounded).

    ``tenths``: None (the default) writes the tenth only when it is not zero; True always; False never.

    >>> format_pgn_clk(299_700), format_pgn_clk(300_000), format_pgn_clk(300_000, tenths=True)
    ('0:04:59.7', '0:05:00', '0:05:00.0')
    """
    _check_ms("ms", ms)
    seconds, rest = divmod(ms, 1000)
    minutes, seconds = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    text = f"{hours}:{minutes:02d}:{seconds:02d}"
    if tenths or (tenths is None and rest >= 100):
        text += f".{rest // 100}"
    return text


_CLK = re.compile(r"(\d{1,6}):(\d\d):(\d\d)(?:\.(\d{1,3}))?", re.ASCII)


def parse_pgn_clk(text: str) -> int:
    """The ms of a PGN clock time: ``H:MM:SS`` with up to three decimals (``0:04:59.7``).

    >>> parse_pgn_clk("0:04:59.7"), parse_pgn_clk("1:30:00")
    (299700, 5400000)
    """
    if not isinstance(text, str):
        raise ClockFormatError(f"a clock time is text, not {type(text).__name__}")
    match = _CLK.fullmatch(text.strip())
    if match is None:
        raise ClockFormatError(f"not a clock time: {text!r} (expected H:MM:SS or H:MM:SS.t, e.g. 0:04:59.7)")
    hours, minutes, seconds, fraction = match.groups()
    if int(minutes) > 59 or int(seconds) > 59:
        raise ClockFormatError(f"not a clock time: {text!r} (minutes and seconds go up to 59)")
    return ((int(hours) * 60 + int(minutes)) * 60 + int(seconds)) * 1000 + int((fraction or "0").ljust(3, "0"))
