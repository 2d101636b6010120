"""Pairing: the code that a LAN client must give before it may change the board's state.

A board on the LAN serves its page to anyone; reading the board is free, but every request that
changes state needs the board's *pairing code*. The code is set in the configuration
(``[web] pairing_code``) or generated once and kept in the state directory, so that a phone
stays paired across reboots. At start the service writes it to the journal and shows it on the
LEDs (:func:`led_pattern`).

After a client gives the right code (``POST /api/pair``) it gets a cookie holding a token
``nonce.mac``, where ``mac`` is an HMAC of the nonce under a key derived from the code: the
server keeps nothing per client, a token survives restarts, and changing the code revokes every
token. Codes and tokens are compared in constant time. Wrong codes are rate-limited per client
and overall (:class:`FailureLimiter`), with the time passed in so that tests never sleep.

The code alphabet is the digits 1 to 8, six of them: the LEDs show it as six bars on files a-f,
the height of the bar on a file being the digit (count the lit squares from rank 1).
"""
from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from collections import deque
from dataclasses import dataclass
from pathlib import Path

CODE_LENGTH = 6
CODE_DIGITS = "12345678"
COOKIE = "echiquier_pairing"
HEADER = "X-Pairing-Code"
COOKIE_MAX_AGE_S = 400 * 24 * 3600   # the longest lifetime browsers keep
PATTERN_COLOUR = 0x00A0FF
CODE_FILE = "pairing-code"


def generate_code() -> str:
    """A fresh code: six digits from 1 to 8 (262,144 codes), drawn from the OS's randomness."""
    return "".join(secrets.choice(CODE_DIGITS) for _ in range(CODE_LENGTH))


def normalise(code: str) -> str:
    """The code as typed, without spaces and dashes (people copy ``123 456`` or ``123-456``)."""
    return "".join(ch for ch in code if ch not in " -\t")


def load_or_create_code(state_dir: str | Path) -> str:
    """The code kept in ``<state_dir>/pairing-code``, created (mode 0600) on first use."""
    path = Path(state_dir) / CODE_FILE
    try:
        code = normalise(path.read_text(encoding="utf-8").strip())
        if code:
            return code
    except FileNotFoundError:
        pass
    code = generate_code()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(code + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    return code


def led_pattern(code: str, colour: int = PATTERN_COLOUR) -> tuple[int, ...] | None:
    """The LED frame that shows ``code``: on file i, ranks 1..digit i lit; None if not showable.

    >>> frame = led_pattern("312345")
    >>> [s for s in range(64) if frame[s]][:5]   # a1, b1, c1, d1, e1 ...
    [0, 1, 2, 3, 4]
    >>> sum(1 for s in range(0, 64, 8) if frame[s])   # file a: 3 squares
    3
    """
    if len(code) > 8 or not code or any(ch not in CODE_DIGITS for ch in code):
        return None
    leds = [0] * 64
    for file, digit in enumerate(code):
        for rank in range(int(digit)):
            leds[file + 8 * rank] = colour
    return tuple(leds)


@dataclass(frozen=True)
class Refusal:
    """Why a code was not even compared: too many wrong codes; retry after ``retry_after`` s."""

    retry_after: float


class FailureLimiter:
    """Counts wrong codes in a sliding window, per client and for all clients together.

    A client may get ``per_client`` codes wrong in ``window_s`` seconds; after that its
    attempts are refused until the oldest failure leaves the window. ``overall`` bounds the
    failures of all clients together, against guessing from many addresses. With the defaults
    (5 per client and 30 overall per 10 minutes), trying every code takes about two months.
    """

    def __init__(self, per_client: int = 5, overall: int = 30, window_s: float = 600.0,
                 max_clients: int = 1024) -> None:
        self.per_client = per_client
        self.overall = overall
        self.window_s = window_s
        self.max_clients = max_clients
        self._clients: dict[str, deque[float]] = {}
        self._all: deque[float] = deque()

    def _expire(self, times: deque[float], now: float) -> None:
        while times and times[0] <= now - self.window_s:
            times.popleft()

    def check(self, client: str, now: float) -> Refusal | None:
        """None if ``client`` may try a code at ``now``, else how long it must wait."""
        self._expire(self._all, now)
        waits = []
        if len(self._all) >= self.overall:
            waits.append(self._all[0] + self.window_s - now)
        times = self._clients.get(client)
        if times is not None:
            self._expire(times, now)
            if len(times) >= self.per_client:
                waits.append(times[0] + self.window_s - now)
        return Refusal(max(waits)) if waits else None

    def failed(self, client: str, now: float) -> None:
        if client not in self._clients and len(self._clients) >= self.max_clients:
            # Forget clients whose failures have all expired; if none, the oldest one.
            for key in [k for k, t in self._clients.items() if not t or t[-1] <= now - self.window_s]:
                del self._clients[key]
            if len(self._clients) >= self.max_clients:
                del self._clients[next(iter(self._clients))]
        self._clients.setdefault(client, deque()).append(now)
        self._all.append(now)

    def succeeded(self, client: str) -> None:
        self._clients.pop(client, None)


class Pairing:
    """The board's pairing code, the tokens derived from it, and the wrong-code limiter.

    ``required`` is False for a server bound to the loopback interface (the simulator): then
    every client counts as paired.
    """

    def __init__(self, code: str | None, *, required: bool = True,
                 limiter: FailureLimiter | None = None) -> None:
        if required and not code:
            raise ValueError("a pairing code is needed when pairing is required")
        self.required = required
        self.code = normalise(code) if code else ""
        self.limiter = limiter or FailureLimiter()
        self._key = hashlib.sha256(b"echiquier pairing token\0" + self.code.encode()).digest()

    def code_matches(self, attempt: str) -> bool:
        """Constant-time comparison of ``attempt`` with the code."""
        return hmac.compare_digest(normalise(attempt).encode(), self.code.encode())

    def attempt(self, client: str, code: str, now: float) -> str | Refusal | None:
        """Try ``code`` for ``client``: a token if right, None if wrong, Refusal if limited."""
        refusal = self.limiter.check(client, now)
        if refusal is not None:
            return refusal
        if not self.code_matches(code):
            self.limiter.failed(client, now)
            return None
        self.limiter.succeeded(client)
        return self.new_token()

    def new_token(self) -> str:
        nonce = secrets.token_hex(16)
        return f"{nonce}.{self._mac(nonce)}"

    def token_valid(self, token: str | None) -> bool:
        if not token or token.count(".") != 1:
            return False
        nonce, mac = token.split(".")
        if len(nonce) != 32:
            return False
        return hmac.compare_digest(mac.encode(), self._mac(nonce).encode())

    def _mac(self, nonce: str) -> str:
        return hmac.new(self._key, nonce.encode(), hashlib.sha256).hexdigest()

    def authorised(self, *, cookie: str | None, header: str | None) -> bool:
        """Whether a request with this cookie / ``X-Pairing-Code`` header may change state."""
        if not self.required:
            return True
        if self.token_valid(cookie):
            return True
        return header is not None and self.code_matches(header)


__all__ = ["Pairing", "FailureLimiter", "Refusal", "generate_code", "load_or_create_code", "led_pattern",
           "normalise", "COOKIE", "HEADER"]
