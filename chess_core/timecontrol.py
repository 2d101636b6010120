"""Time controls: periods, increments, delays and per-move limits, in the PGN ``TimeControl`` syntax.

The spelling is that of the PGN standard (section 9.6.1), extended for what PGN does not name:

==========================  ====================================================================
``-``                       no clock (the game is recorded without one)
``?``                       unknown; a clock treats it as ``-``, and it prints back as ``?``
``300``                     sudden death: 300 s for the whole game
``300+3``                   Fischer increment: 3 s added after every move, from move 1
``300d5``                   simple (US) delay: on every move the main time waits 5 s before it
                            runs, so a move made within the delay costs nothing
``300b5``                   Bronstein delay: after every move the time used is given back, up
                            to 5 s (never more than was used)
``40/5400+30:1800+30``      periods, FIDE style: 90 min for the first 40 moves, then 30 min for
                            the rest; each period has its own bonus (here 30 s from move 1)
``40/9000``                 a last period with a move count repeats: 150 min for every 40 moves
``*180``                    sandclock (hourglass): each side starts with 180 s, and the time
                            one side uses is added to the other side
``300+3/m30``               per-move limit (extension): a move that takes 30 s or more loses on
                            time, however much is left on the main clock; the limit holds for
                            the whole game and is written once, after the last period
``-/m30``                   no game clock, only the per-move limit
==========================  ====================================================================

``d`` (delay), ``b`` (Bronstein) and ``/m`` (per move) are extensions: letters, so they cannot
be mistaken for the numbers and the ``+ / : * - ?`` of PGN, and ``/m`` reads "per move". A
period has at most one of increment, delay and Bronstein delay. Seconds may carry up to three
decimals (``15+0.5``); the canonical form prints decimals only when needed, and drops a zero
bonus (``300+0`` prints as ``300``). Parsing is strict about letters (lower case only) and
lenient about leading zeros and surrounding white space.

A period's move count belongs to each side: a side that completes the move count of a period
gets the next period's time added, right after its bonus for that last move.
"""
from __future__ import annotations

from dataclasses import dataclass

MAX_MS = 10**12 - 1        # every time prints with at most 9 digits of whole seconds
MAX_MOVES = 10**9 - 1
_DIGITS = "0123456789"


class TimeControlError(ValueError):
    """A time control that cannot be parsed or built; the message says what and where."""


def _check_ms(name: str, value: object, *, positive: bool = False) -> None:
    if type(value) is not int:
        raise TimeControlError(f"{name} must be an int of milliseconds, not {value!r}")
    low = 1 if positive else 0
    if not low <= value <= MAX_MS:
        raise TimeControlError(f"{name} must be between {low} and {MAX_MS} ms, not {value}")


def _seconds_text(ms: int) -> str:
    """Milliseconds as PGN seconds: ``3000`` -> ``"3"``, ``500`` -> ``"0.5"``."""
    whole, frac = divmod(ms, 1000)
    return f"{whole}.{frac:03d}".rstrip("0") if frac else str(whole)


def _duration_text(ms: int) -> str:
    """Milliseconds for people: ``"5 min"``, ``"2 min 30 s"``, ``"0.5 s"``."""
    minutes, rest = divmod(ms, 60_000)
    if minutes and not rest:
        return f"{minutes} min"
    if minutes:
        return f"{minutes} min {_seconds_text(rest)} s"
    return f"{_seconds_text(ms)} s"


@dataclass(frozen=True)
class Period:
    """A stretch of the game: ``time_ms`` for ``moves`` moves (None: the rest of the game).

    At most one of ``increment_ms`` (Fischer), ``delay_ms`` (simple/US) and ``bronstein_ms``
    is non-zero; it applies to every move of the period.
    """

    time_ms: int
    moves: int | None = None
    increment_ms: int = 0
    delay_ms: int = 0
    bronstein_ms: int = 0

    def __post_init__(self) -> None:
        _check_ms("time_ms", self.time_ms)
        if self.moves is not None and (type(self.moves) is not int or not 1 <= self.moves <= MAX_MOVES):
            raise TimeControlError(f"moves must be None or an int from 1 to {MAX_MOVES}, not {self.moves!r}")
        for name in ("increment_ms", "delay_ms", "bronstein_ms"):
            _check_ms(name, getattr(self, name))
        if sum(1 for v in (self.increment_ms, self.delay_ms, self.bronstein_ms) if v) > 1:
            raise TimeControlError("a period has at most one of increment, delay and Bronstein delay")

    @property
    def engine_increment_ms(self) -> int:
        """What a UCI engine is told as ``winc``/``binc``; UCI has no word for a delay.

        A move that takes at least the delay is charged exactly as under an increment of the
        delay's length (simple or Bronstein: the first ``d`` seconds of it are free), so the delay
        is told as an increment; a faster move loses the rest of the delay, which an engine
        thinking that long never meets.
        """
        return self.increment_ms or self.delay_ms or self.bronstein_ms

    def __str__(self) -> str:
        text = f"{self.moves}/" if self.moves is not None else ""
        return text + _seconds_text(self.time_ms) + self._bonus_suffix()

    def _bonus_suffix(self) -> str:
        if self.increment_ms:
            return "+" + _seconds_text(self.increment_ms)
        if self.delay_ms:
            return "d" + _seconds_text(self.delay_ms)
        if self.bronstein_ms:
            return "b" + _seconds_text(self.bronstein_ms)
        return ""

    def _bonus_text(self) -> str:
        if self.increment_ms:
            return f"+ {_duration_text(self.increment_ms)}"
        if self.delay_ms:
            return f"+ {_duration_text(self.delay_ms)} delay"
        if self.bronstein_ms:
            return f"+ {_duration_text(self.bronstein_ms)} Bronstein delay"
        return ""

    def _time_text(self, *, repeats: bool = False) -> str:
        text = _duration_text(self.time_ms)
        if self.moves is not None:
            every = "every " if repeats else ""
            text += f" for {every}{self.moves} move" + ("s" if self.moves > 1 else "")
        return text


@dataclass(frozen=True, repr=False)
class TimeControl:
    """A whole time control: periods (or a sandclock, or nothing) and an optional per-move limit.

    ``TimeControl()`` is no clock at all. Build one with :meth:`parse`, or from parts:

    >>> TimeControl([Period(300_000, increment_ms=3_000)])
    TimeControl.parse('300+3')
    >>> str(TimeControl.parse("40/5400+30:1800+30"))
    '40/5400+30:1800+30'
    >>> TimeControl.parse("300+3").describe()
    '5 min + 3 s'
    """

    periods: tuple[Period, ...] = ()
    move_limit_ms: int | None = None
    sandclock_ms: int | None = None
    unknown: bool = False

    def __post_init__(self) -> None:
        try:
            periods = tuple(self.periods)
        except TypeError:
            raise TimeControlError(f"periods must be a sequence of Period, not {self.periods!r}") from None
        object.__setattr__(self, "periods", periods)
        for period in periods:
            if not isinstance(period, Period):
                raise TimeControlError(f"periods must hold Period objects, not {period!r}")
        for number, period in enumerate(periods[:-1], 1):
            if period.moves is None:
                raise TimeControlError(f"period {number} is followed by another, so it needs a move count")
        if periods and periods[0].time_ms == 0 and not periods[0].delay_ms:
            raise TimeControlError("the first period has no time: the flag would fall at once")
        if self.sandclock_ms is not None:
            _check_ms("sandclock_ms", self.sandclock_ms, positive=True)
            if periods:
                raise TimeControlError("a sandclock stands alone: it has no periods")
        if self.move_limit_ms is not None:
            _check_ms("move_limit_ms", self.move_limit_ms, positive=True)
        if type(self.unknown) is not bool:
            raise TimeControlError(f"unknown must be True or False, not {self.unknown!r}")
        if self.unknown and (periods or self.sandclock_ms is not None or self.move_limit_ms is not None):
            raise TimeControlError("an unknown time control ('?') has nothing else")

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """Read a PGN ``TimeControl`` value (with the extensions of this module).

        Raises TimeControlError, naming the problem and its position, and nothing else.
        """
        if not isinstance(text, str):
            raise TimeControlError(f"a time control is text, not {type(text).__name__}")
        return _Parser(text).parse()

    def __str__(self) -> str:
        if self.unknown:
            return "?"
        if self.sandclock_ms is not None:
            text = "*" + _seconds_text(self.sandclock_ms)
        elif self.periods:
            text = ":".join(str(period) for period in self.periods)
        else:
            text = "-"
        if self.move_limit_ms is not None:
            text += "/m" + _seconds_text(self.move_limit_ms)
        return text

    def __repr__(self) -> str:
        return f"TimeControl.parse({str(self)!r})"

    @property
    def timed(self) -> bool:
        """Whether there is a game clock (periods or a sandclock); ``-`` and ``?`` have none."""
        return bool(self.periods) or self.sandclock_ms is not None

    @property
    def initial_ms(self) -> int | None:
        """Each side's time at the start, or None without a game clock."""
        if self.sandclock_ms is not None:
            return self.sandclock_ms
        return self.periods[0].time_ms if self.periods else None

    def period_index(self, move_number: int) -> int:
        """The index of the period that a side's ``move_number``-th move (from 1) belongs to."""
        self._check_move_number(move_number)
        start = 0
        for index, period in enumerate(self.periods):
            if period.moves is None or move_number <= start + period.moves:
                return index
            start += period.moves
        return len(self.periods) - 1   # the last period repeats

    def period_for_move(self, move_number: int) -> Period:
        """The period that a side's ``move_number``-th move (from 1) belongs to."""
        return self.periods[self.period_index(move_number)]

    def time_added_after(self, move_number: int) -> int:
        """The ms added to a side when it completes its ``move_number``-th move: a period's roll-over.

        >>> fide = TimeControl.parse("40/5400+30:1800+30")
        >>> fide.time_added_after(39), fide.time_added_after(40), fide.time_added_after(80)
        (0, 1800000, 0)
        """
        self._check_move_number(move_number)
        start = 0
        for index, period in enumerate(self.periods):
            if period.moves is None or move_number < start + period.moves:
                return 0
            if move_number == start + period.moves:
                following = self.periods[index + 1] if index + 1 < len(self.periods) else period
                return following.time_ms
            start += period.moves
        last = self.periods[-1]
        assert last.moves is not None  # a period for the rest of the game has returned above
        return last.time_ms if (move_number - start) % last.moves == 0 else 0

    def _check_move_number(self, move_number: int) -> None:
        if not self.periods:
            raise ValueError(f"{self} has no periods")
        if type(move_number) is not int or move_number < 1:
            raise ValueError(f"a move number is an int from 1, not {move_number!r}")

    def describe(self) -> str:
        """The time control in words, e.g. ``"5 min + 3 s"`` or ``"90 min for 40 moves, then 30 min"``."""
        if self.unknown:
            return "unknown time control"
        if self.sandclock_ms is not None:
            text = f"{_duration_text(self.sandclock_ms)} sandclock"
        elif self.periods:
            text = self._describe_periods()
        else:
            text = "no game clock" if self.move_limit_ms is not None else "no clock"
        if self.move_limit_ms is not None:
            text += f", at most {_duration_text(self.move_limit_ms)} per move"
        return text

    def _describe_periods(self) -> str:
        last = len(self.periods) - 1
        times = [p._time_text(repeats=i == last and p.moves is not None) for i, p in enumerate(self.periods)]
        bonuses = [p._bonus_text() for p in self.periods]
        if len(set(bonuses)) == 1:
            text = ", then ".join(times)
            if not bonuses[0]:
                return text
            if len(times) == 1:
                return f"{text} {bonuses[0]}"
            from_move_1 = " from move 1" if self.periods[0].increment_ms else ""
            return f"{text}; {bonuses[0]} per move{from_move_1}"
        return ", then ".join(f"{t} {b}".rstrip() for t, b in zip(times, bonuses))


UNTIMED = TimeControl()

_HINTS = {
    ":": " (after a sandclock, a per-move limit or an open-ended period, nothing more can follow)",
    "+": " (a period has at most one of increment, delay and Bronstein delay)",
    "d": " (a period has at most one of increment, delay and Bronstein delay)",
    "b": " (a period has at most one of increment, delay and Bronstein delay)",
    "D": " (letters are lower case: d, b, /m)",
    "B": " (letters are lower case: d, b, /m)",
    "M": " (letters are lower case: d, b, /m)",
    "*": " (a sandclock, *SECONDS, stands alone)",
    "/": " (the per-move limit, /mSECONDS, comes once, at the end)",
}


class _Parser:
    """A recursive-descent reader over one time control string; errors carry a 1-based position."""

    def __init__(self, text: str) -> None:
        self.text = text.strip()
        self.i = 0

    def error(self, problem: str, at: int | None = None) -> TimeControlError:
        at = self.i if at is None else at
        where = f"character {at + 1}" if at < len(self.text) else "at the end"
        return TimeControlError(f"time control {self.text!r}, {where}: {problem}")

    def at(self, token: str) -> bool:
        return self.text.startswith(token, self.i)

    def parse(self) -> TimeControl:
        text = self.text
        if not text:
            raise TimeControlError("empty time control: write '-' for none")
        if text[0] == "?":
            if text != "?":
                raise self.error("'?' (unknown) stands alone", 1)
            return TimeControl(unknown=True)
        periods: list[Period] = []
        sandclock = None
        if self.at("-"):
            self.i = 1
        elif self.at("*"):
            self.i = 1
            sandclock = self.seconds("sandclock seconds")
            if sandclock == 0:
                raise self.error("a sandclock needs time", 1)
        else:
            periods.append(self.period())
            while self.at(":"):
                if periods[-1].moves is None:
                    raise self.error("only the last period can be open-ended: put a move count "
                                     "before it, like 40/5400")
                self.i += 1
                periods.append(self.period())
        limit = None
        if self.at("/m"):
            start = self.i
            self.i += 2
            limit = self.seconds("seconds of the per-move limit")
            if limit == 0:
                raise self.error("a per-move limit needs time", start)
        if self.i < len(text):
            raise self.error(f"unexpected {text[self.i]!r}" + _HINTS.get(text[self.i], ""))
        try:
            return TimeControl(tuple(periods), limit, sandclock)
        except TimeControlError as exc:
            raise TimeControlError(f"time control {text!r}: {exc}") from None

    def period(self) -> Period:
        start = self.i
        time_ms = self.seconds("seconds")
        moves = None
        if self.at("/") and not self.at("/m"):
            if time_ms % 1000 or time_ms == 0:
                raise self.error("a move count is a whole number from 1", start)
            moves = time_ms // 1000
            self.i += 1
            time_ms = self.seconds(f"seconds for the {moves} moves")
        bonus = {"+": "increment_ms", "d": "delay_ms", "b": "bronstein_ms"}
        kwargs = {}
        if self.i < len(self.text) and self.text[self.i] in bonus:
            name = bonus[self.text[self.i]]
            self.i += 1
            kwargs[name] = self.seconds(name[:-3].replace("_", " ") + " seconds")
        return Period(time_ms, moves, **kwargs)

    def seconds(self, what: str) -> int:
        """Seconds with up to three decimals, as ms."""
        start = self.i
        whole = self.digits()
        if not whole:
            raise self.error(f"expected {what}")
        if len(whole) > 9 and whole.lstrip("0")[9:]:
            raise self.error("too many digits (at most 9 before the point)", start)
        ms = int(whole.lstrip("0") or "0") * 1000
        if self.at("."):
            self.i += 1
            frac_at = self.i
            frac = self.digits()
            if not frac:
                raise self.error("expected digits after '.'")
            if len(frac) > 3:
                raise self.error("at most three decimals (milliseconds)", frac_at + 3)
            ms += int(frac.ljust(3, "0"))
        return ms

    def digits(self) -> str:
        start = self.i
        while self.i < len(self.text) and self.text[self.i] in _DIGITS:
            self.i += 1
        return self.text[start:self.i]
