"""The seat's Lichess account: the token kept (0600, written atomically, never logged) to play on Lichess, or forgotten."""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from firmware.config import OpponentKind
from firmware.opponents.factory import build_lichess
from firmware.session.commands import SessionError

if TYPE_CHECKING:
    from firmware.session.seat import OpponentSeat

__all__ = ["LichessAccount"]

log = logging.getLogger(__name__)


class LichessAccount:
    """``login(token)``: keep the token and play on Lichess with it; ``logout()``: forget it."""

    def __init__(self, seat: OpponentSeat) -> None:
        self.seat = seat
        self.token_kept = seat.session.config.lichess_token_path.exists()   # a token is on file

    @property
    def session(self) -> Any:
        return self.seat.session

    def login(self, token: str, now: float | None = None) -> None:
        """Keep ``token`` (scope board:play) in the token file (mode 0600, written atomically;
        never logged) and (re)start Lichess as the opponent with it."""
        with self.session.command(now):
            self._login(token)

    def _login(self, token: str) -> None:
        from firmware.opponents.lichess.token import TOKEN_SCOPE, Token, TokenError, write_token
        try:
            secret = Token(token)
        except TokenError:   # empty, or not one word
            raise SessionError("bad_token" if token.strip() else "token_empty", scope=TOKEN_SCOPE) from None
        path = self.session.config.lichess_token_path
        try:
            write_token(path, secret)
        except OSError as exc:
            raise SessionError("token_not_kept", path=str(path), reason=str(exc.strerror or exc)) from None
        log.info("Lichess token stored in %s", path)
        self.token_kept = True
        self.seat.choose(OpponentKind.LICHESS)
        self.seat.use(build_lichess(self.session.config))

    def logout(self, now: float | None = None) -> None:
        """Forget the Lichess token (the file is removed) and stop playing on Lichess."""
        with self.session.command(now):
            self._logout()

    def _logout(self) -> None:
        if self.seat.online_sync is not None and self.session.live:
            raise SessionError("lichess_game_logout")
        path = self.session.config.lichess_token_path
        try:
            path.unlink()
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise SessionError("token_not_removed", path=str(path), reason=str(exc.strerror or exc)) from None
        self.token_kept = False
        if self.seat.kind is OpponentKind.LICHESS:
            self.seat.choose(OpponentKind.NONE)
            self.seat.use(None)
