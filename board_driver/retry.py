"""Links that come and go (the co-processor's port, an engine, Lichess): their states, and the capped backoff between tries."""
from __future__ import annotations

import enum
from dataclasses import dataclass


class LinkState(enum.Enum):
    """The health of a link, as the page and the logs show it."""

    CONNECTING = "connecting"      # first connection under way (or the next try is due)
    CONNECTED = "connected"        # open; data flows
    RECONNECTING = "reconnecting"  # a drop, an error, silence or a 429: waiting before trying again
    FAILED = "failed"              # given up (engine crashed twice, token refused): needs a person
    CLOSED = "closed"              # not opened, or stopped on purpose


@dataclass(frozen=True)
class Backoff:
    """Capped exponential backoff with jitter; ``delay`` is pure (the random draw is passed in).

    >>> Backoff(first=1, factor=2, cap=10, jitter=0.5).delay(3, 0.0)
    8.0
    >>> Backoff(first=1, factor=2, cap=10, jitter=0.5).delay(9, 0.5)
    7.5
    """

    first: float = 1.0      # s before the first new try
    factor: float = 2.0     # each failure in a row multiplies the wait...
    cap: float = 60.0       # ...up to this many seconds
    jitter: float = 0.5     # each wait is drawn from [(1 - jitter) * d, d], so that many clients do not retry in step

    def delay(self, attempt: int, draw: float = 0.0) -> float:
        """The wait after ``attempt`` failures in a row (0 = the first); ``draw`` is in [0, 1)."""
        exponent = min(attempt, 64)   # past the cap anyway; keeps the float finite
        return min(self.cap, self.first * self.factor ** exponent) * (1.0 - self.jitter * draw)


__all__ = ["Backoff", "LinkState"]
