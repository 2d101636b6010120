"""Pairing: the code that a LAN client must give before it may change the board's state.

A board on the LAN serves its page to anyone; reading the board is free, but every request that
changes state needs the board's *pairing code*. The code is set in the configuration
(``[web] pairing_code``) or generated once and kept in the state directory, so that a phone
stays paired across reboots. At start the service writes it to the journal and shows it on the
LEDs (:func:`led_pattern`).

After a client gives the right code (``POST /api/pair``) it gets a cookie holding a token
``nonce.mac``, where ``mac`` is an HMAC of the nonce under a key derived from the code *and* a
random secret of the board's (``<state dir>/pairing-secret``, 32 bytes, mode 0600): without the
secret no cookie can be forged, however few codes there are. The server keeps nothing per
client, a token survives restarts, and changing the code (or the secret) revokes every token.
Codes and tokens are compared in constant time. Wrong codes *and bad cookies* are counted
alike and rate-limited per client and overall (:class:`FailureLimiter`), with the time passed
in so that tests never sleep. The overall limit only slows strangers: a client with no wrong
code of its own is still heard, and while the LEDs show the code (``show_until``) the overall
limit is lifted, so the owner at the board is never locked out by others' guesses.

The code alphabet is the digits 1 to 8, eight of them (16.7 million codes): the LEDs show it as
eight bars on files a-h, the height of the bar on a file being the digit (count the lit squares
from rank 1).
"""
from __future__ import annotations

import errno
import hashlib
import logging
import hmac
import os
import secrets
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from durable.atomic_file import PRIVATE_MODE, write_atomically
from durable.bounded_read import BoundedRead, NotRegular, read_bounded
from firmware.leds.compose import Layer, Priority, of_frame

log = logging.getLogger(__name__)

CODE_LENGTH = 8
CODE_DIGITS = "12345678"
COOKIE = "echiquier_pairing"
HEADER = "X-Pairing-Code"
COOKIE_MAX_AGE_S = 400 * 24 * 3600   # the longest lifetime browsers keep
PATTERN_COLOUR = 0x00A0FF
CODE_FILE = "pairing-code"
SECRET_FILE = "pairing-secret"
SECRET_BYTES = 32
MAX_CODE_BYTES = 64                  # the code file read back (a code and a newline)


def generate_code() -> str:
    """A fresh code: eight digits from 1 to 8 (16,777,216 codes), drawn from the OS's randomness."""
    return "".join(secrets.choice(CODE_DIGITS) for _ in range(CODE_LENGTH))


def normalise(code: str) -> str:
    """The code as typed, without spaces and dashes (people copy ``123 456`` or ``123-456``)."""
    return "".join(ch for ch in code if ch not in " -\t")


def _write_private(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` (mode 0600), atomically (:func:`durable.atomic_file.write_atomically`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, data, mode=PRIVATE_MODE)


def _weak(code: str) -> bool:
    """A code drawn by an older version (six digits) or otherwise unusable for the LEDs."""
    return len(code) < CODE_LENGTH or led_pattern(code) is None


def _read_kept(path: Path, most: int, what: str) -> BoundedRead | None:
    """The file of ours at ``path``; None when there is none, or when a link, a FIFO or a folder
    took its place (then replaced, said in the journal). Any other error (EACCES, EIO) is raised:
    a new secret would unpair every device."""
    try:
        return read_bounded(path, most)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if not isinstance(exc, NotRegular) and exc.errno != errno.ELOOP:
            raise
        log.warning("%s is not a file of ours (%s): a new %s replaces it", path, exc.strerror or exc, what)
        return None


def load_or_create_code(state_dir: str | Path) -> str:
    """The code kept in ``<state_dir>/pairing-code``, created (mode 0600) on first use.

    A code drawn by an older version (six digits) is replaced by a new, longer one: the LEDs
    and the journal show the new code at start.
    """
    path = Path(state_dir) / CODE_FILE
    read = _read_kept(path, MAX_CODE_BYTES, "pairing code")
    code = normalise(read.data.decode("utf-8", errors="replace").strip()) if read is not None else ""
    if code and not _weak(code):
        return code
    code = generate_code()
    _write_private(path, (code + "\n").encode())
    return code


def load_or_create_secret(state_dir: str | Path) -> bytes:
    """The board's pairing secret, ``<state_dir>/pairing-secret`` (mode 0600), created on first use.

    A file that is not exactly 32 bytes (damaged, cut short) is replaced: the cookies issued
    under the old one are then revoked, which costs a new pairing and nothing else.
    """
    path = Path(state_dir) / SECRET_FILE
    read = _read_kept(path, SECRET_BYTES, "pairing secret")
    if read is not None and len(read.data) == SECRET_BYTES and not read.cut:
        if os.stat(path).st_mode & 0o077:
            os.chmod(path, 0o600)
        return read.data
    secret = secrets.token_bytes(SECRET_BYTES)
    _write_private(path, secret)
    return secret


def pairing_layer(code: str, until: float | None = None) -> Layer | None:
    """The layer of the LEDs that shows ``code`` (:func:`led_pattern`), alone on the board until
    ``until`` (firmware.leds.compose); None if the code cannot be shown."""
    pattern = led_pattern(code)
    return None if pattern is None else of_frame("pairing", Priority.PAIRING, "pairing", pattern, until=until)


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
class Throttled:
    """Why a code was not even compared: too many wrong codes; retry after ``retry_after`` s.

    ``everyone``: the overall limit refused it (others' wrong codes), not the client's own.
    """

    retry_after: float
    everyone: bool = False


class FailureLimiter:
    """Counts wrong codes (and bad cookies) in a sliding window, per client and for all clients.

    A client may get ``per_client`` codes wrong in ``window_s`` seconds; after that its
    attempts are refused until the oldest failure leaves the window. ``overall`` bounds the
    failures of all clients together, against guessing from many addresses; it refuses only
    clients that have failed themselves, so a client with no wrong code is always heard, up
    to ``hard`` failures in all (then only while ``open_until``: the LEDs show the code).
    With the defaults (5 per client, 30 overall per 10 minutes) and eight-digit codes, trying
    half the codes from one address takes about 30 years; from 250 addresses, two months.
    """

    def __init__(self, per_client: int = 5, overall: int = 30, window_s: float = 600.0,
                 max_clients: int = 1024, hard: int | None = None) -> None:
        self.per_client = per_client
        self.overall = overall
        self.hard = hard if hard is not None else overall * 10
        self.window_s = window_s
        self.max_clients = max_clients
        self.open_until = float("-inf")   # while now < open_until the overall limits are lifted
        self._open_failures = 0
        self._clients: dict[str, deque[float]] = {}
        self._all: deque[float] = deque()

    def _expire(self, times: deque[float], now: float) -> None:
        while times and times[0] <= now - self.window_s:
            times.popleft()

    def check(self, client: str, now: float) -> Throttled | None:
        """None if ``client`` may try a code at ``now``, else how long it must wait."""
        self._expire(self._all, now)
        times = self._clients.get(client)
        if times is not None:
            self._expire(times, now)
            if len(times) >= self.per_client:
                return Throttled(times[0] + self.window_s - now)
        if now < self.open_until:
            return None
        if len(self._all) >= self.hard or (len(self._all) >= self.overall and times):
            index = len(self._all) - (self.hard if len(self._all) >= self.hard else self.overall)
            return Throttled(self._all[index] + self.window_s - now, everyone=True)
        return None

    def failed(self, client: str, now: float) -> None:
        if client not in self._clients and len(self._clients) >= self.max_clients:
            # Forget clients whose failures have all expired; if none, the oldest one.
            for key in [k for k, t in self._clients.items() if not t or t[-1] <= now - self.window_s]:
                del self._clients[key]
            if len(self._clients) >= self.max_clients:
                del self._clients[next(iter(self._clients))]
        self._clients.setdefault(client, deque()).append(now)
        self._all.append(now)
        if now < self.open_until:
            self._open_failures += 1
            if self._open_failures >= self.hard:   # a flood while the code shows: close the window
                self.open_until = now

    def open(self, until: float) -> None:
        """Lift the overall limits until ``until`` (the LEDs show the code meanwhile)."""
        if until > self.open_until:
            self.open_until = until
            self._open_failures = 0

    def succeeded(self, client: str) -> None:
        self._clients.pop(client, None)


def client_key(address: str | None) -> str:
    """The identity the limiter counts: the address, an IPv4-mapped IPv6 address as IPv4.

    >>> client_key("192.168.1.20"), client_key("::ffff:10.0.0.2"), client_key(None)
    ('192.168.1.20', '10.0.0.2', '?')
    """
    import ipaddress
    try:
        ip = ipaddress.ip_address((address or "?").split("%")[0])
    except ValueError:
        return address or "?"
    if ip.version == 6 and ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ip)


class Pairing:
    """The board's pairing code, the tokens derived from it and the board's secret, and the limiter.

    ``required`` is False for a server bound to the loopback interface (the simulator): then
    every client counts as paired. ``secret`` keys the tokens (see :func:`load_or_create_secret`);
    without one, a random secret for this process (tokens then end with it).
    """

    def __init__(self, code: str | None, *, required: bool = True,
                 limiter: FailureLimiter | None = None, secret: bytes | None = None) -> None:
        if required and not code:
            raise ValueError("a pairing code is needed when pairing is required")
        self.required = required
        self.code = normalise(code) if code else ""
        self.limiter = limiter or FailureLimiter()
        self._bad_tokens: dict[bytes, None] = {}   # bad cookies already counted (insertion order: oldest first)
        secret = secret if secret is not None else secrets.token_bytes(SECRET_BYTES)
        self._key = hmac.new(secret, b"echiquier pairing token\0" + self.code.encode(), hashlib.sha256).digest()

    def code_matches(self, attempt: str) -> bool:
        """Constant-time comparison of ``attempt`` with the code."""
        return hmac.compare_digest(normalise(attempt).encode(), self.code.encode())

    def show(self, until: float) -> None:
        """The LEDs show the code until ``until``: codes entered meanwhile pass the overall limit."""
        self.limiter.open(until)

    def attempt(self, client: str, code: str, now: float) -> str | Throttled | None:
        """Try ``code`` for ``client``: a token if right, None if wrong, Throttled if limited."""
        refusal = self.limiter.check(client, now)
        if refusal is not None:
            return refusal
        if not self.code_matches(code):
            self.limiter.failed(client, now)
            return None
        self.limiter.succeeded(client)
        return self.new_token()

    def check_token(self, client: str, token: str | None, now: float) -> bool | Throttled:
        """A cookie, counted like a code: True if valid, False if absent or bad (a bad one is a
        failure of ``client``), Throttled if ``client`` is limited (then it is not even checked)."""
        if not token:
            return False
        refusal = self.limiter.check(client, now)
        if refusal is not None and not refusal.everyone:
            return refusal
        if self.token_valid(token):
            return True
        # The same bad cookie again (a phone paired before the code changed, reloading its page)
        # is counted once: guessing needs new values, and each new one counts.
        seen = hashlib.sha256(f"{client}\0{token}".encode("utf-8", "replace")).digest()
        if seen in self._bad_tokens:
            return False
        self._bad_tokens[seen] = None
        if len(self._bad_tokens) > 4096:
            del self._bad_tokens[next(iter(self._bad_tokens))]
        self.limiter.failed(client, now)
        return False

    def new_token(self) -> str:
        nonce = secrets.token_hex(16)
        return f"{nonce}.{self._mac(nonce)}"

    def token_valid(self, token: str | None) -> bool:
        if not token or len(token) > 200 or token.count(".") != 1:
            return False
        nonce, mac = token.split(".")
        if len(nonce) != 32:
            return False
        return hmac.compare_digest(mac.encode("utf-8", "replace"), self._mac(nonce).encode())

    def _mac(self, nonce: str) -> str:
        return hmac.new(self._key, nonce.encode("utf-8", "replace"), hashlib.sha256).hexdigest()

    def authorised(self, *, cookie: str | None, header: str | None) -> bool:
        """Whether a request with this cookie / ``X-Pairing-Code`` header may change state."""
        if not self.required:
            return True
        if self.token_valid(cookie):
            return True
        return header is not None and self.code_matches(header)


__all__ = ["Pairing", "FailureLimiter", "Throttled", "generate_code", "load_or_create_code", "load_or_create_secret",
           "led_pattern", "pairing_layer", "normalise", "client_key", "COOKIE", "HEADER"]
