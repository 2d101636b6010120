"""Debouncing: raw sensor readings in, settled readings out, as a pure state machine on explicit times.

Contract
========

``Debouncer(settle_ms)``

* ``feed(reading) -> list[Reading]``: a raw reading (readings hold until the next one, as in
  a capture). Returns the settled readings it releases: the previous raw reading, if it had
  stayed unchanged for ``settle_ms`` before this one arrived. Usually ``[]``.
* ``poll(now) -> list[Reading]``: time has passed; releases the current raw reading once it
  has stayed unchanged for ``settle_ms`` (at ``now >= reading.time + settle_ms``).
* ``next_deadline() -> float | None``: when ``poll`` would release something, if nothing
  changes; None when nothing waits.
* ``unsettled_since() -> float | None``: the time of the first raw change not yet settled
  or dropped. A consumer that runs timers on settled readings must not let its own time pass
  this instant, as the change may still turn out to have happened then.

A settled reading keeps its own time: the instant the board last changed to show it (the last
contact), not the later instant it was found stable. So a move is timed when the hand let go,
and the debouncing delay is charged to nobody. A reading that shows the same squares (and
colours) as the last settled one is never released twice; a flicker that comes back to the
settled reading before ``settle_ms`` releases nothing.

>>> d = Debouncer(30)
>>> d.feed(Reading(1.000, 0b1)), d.feed(Reading(1.004, 0b0)), d.feed(Reading(1.006, 0b1))
([], [], [])
>>> d.poll(1.040)
[Reading(time=1.006, occupied=1, white=None, black=None)]
>>> d.poll(2.0), d.next_deadline()
([], None)
"""
from __future__ import annotations

from .reading import Reading

SETTLE_MS = 30.0  # a few tens of ms: longer than contact bounce, short enough not to be felt
_EPS = 1e-9       # seconds: float times a whole number of ms apart compare as equal


class Debouncer:
    """Releases a raw reading once it has stayed unchanged for ``settle_ms`` milliseconds."""

    def __init__(self, settle_ms: float = SETTLE_MS) -> None:
        if not settle_ms >= 0:
            raise ValueError(f"settle_ms must be at least 0, not {settle_ms!r}")
        self.settle_ms = settle_ms
        self._settle = settle_ms / 1000.0
        self._raw: Reading | None = None       # the current raw reading
        self._settled: Reading | None = None   # the last released reading
        self._since: float | None = None       # first raw change since the last settled state

    @property
    def settled(self) -> Reading | None:
        """The last settled reading, or None before the first."""
        return self._settled

    def feed(self, reading: Reading) -> list[Reading]:
        raw = self._raw
        if raw is not None and reading.same_squares(raw):
            return []
        out = self.poll(reading.time)
        self._raw = reading
        if reading.same_squares(self._settled):
            self._since = None
        elif self._since is None:
            self._since = reading.time
        return out

    def poll(self, now: float) -> list[Reading]:
        raw = self._raw
        if raw is None or self._since is None or now + _EPS < raw.time + self._settle:
            return []
        self._settled = raw
        self._since = None
        return [raw]

    def next_deadline(self) -> float | None:
        if self._raw is None or self._since is None:
            return None
        return self._raw.time + self._settle

    def unsettled_since(self) -> float | None:
        return self._since
