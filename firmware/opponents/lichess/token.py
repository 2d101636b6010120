"""The Lichess API token (scope board:play): kept in a file of mode 0600, never printed or logged."""
from __future__ import annotations

import stat
from pathlib import Path

from durable.atomic_file import PRIVATE_MODE, write_atomically

TOKEN_MODE = PRIVATE_MODE
DEFAULT_TOKEN_FILE = "/etc/echiquier/lichess.token"   # as [lichess] token_file in firmware.config
TOKEN_SCOPE = "board:play"
MAX_TOKEN_LENGTH = 200


class TokenError(Exception):
    """The token file is missing, unsafe (readable by others) or holds no token."""


class Token:
    """A secret that shows itself only through ``reveal()``: str(), repr() and f-strings hide it.

    >>> t = Token("lip_secret123")
    >>> f"{t}", repr(t)
    ('<token>', '<token>')
    """

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        value = (value or "").strip()
        if not value:
            raise TokenError("the Lichess token is empty")
        if len(value) > MAX_TOKEN_LENGTH or any(c.isspace() or not c.isprintable() for c in value):
            raise TokenError("that does not look like a Lichess token (one word, no spaces); "
                             f"create one with the {TOKEN_SCOPE} scope at https://lichess.org/account/oauth/token")
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "<token>"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Token) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)


def check_mode(path: str | Path) -> None:
    """TokenError unless ``path`` is a regular file that only its owner can read or write."""
    path = Path(path)
    try:
        info = path.stat()
    except FileNotFoundError:
        raise TokenError(f"no Lichess token at {path}: run `echiquier lichess login`") from None
    if not stat.S_ISREG(info.st_mode):
        raise TokenError(f"{path} is not a regular file")
    loose = stat.S_IMODE(info.st_mode) & 0o077
    if loose:
        raise TokenError(f"refusing to read the Lichess token from {path}: its mode is "
                         f"{stat.S_IMODE(info.st_mode):04o}, so other users can read it. "
                         f"Run `chmod 600 {path}` (and consider revoking the token on lichess.org).")


def read_token(path: str | Path) -> Token:
    """The token in ``path``, which must have mode 0600 (or stricter)."""
    check_mode(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise TokenError(f"cannot read the Lichess token at {path}: {exc.strerror}") from None
    except UnicodeDecodeError:   # a damaged file must not stop the board from starting
        raise TokenError(f"{path} does not hold a token (not text): log in again") from None
    try:
        return Token(text)
    except TokenError as exc:
        raise TokenError(f"{path}: {exc}") from None


def write_token(path: str | Path, token: Token) -> None:
    """Write ``token`` to ``path`` with mode 0600, atomically (:func:`durable.atomic_file.write_atomically`)."""
    path = Path(path)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    write_atomically(path, token.reveal() + "\n", mode=TOKEN_MODE)


__all__ = ["DEFAULT_TOKEN_FILE", "TOKEN_MODE", "TOKEN_SCOPE", "Token", "TokenError", "check_mode", "read_token",
           "write_token"]
