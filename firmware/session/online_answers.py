"""The player's answers to the other side of an online game: its takeback offer accepted or declined, its absence claimed."""
from __future__ import annotations

from typing import TYPE_CHECKING

from firmware.opponents.base import Action
from firmware.session.commands import SessionError

if TYPE_CHECKING:
    from firmware.session.session_view import SessionView

__all__ = ["accept_takeback", "decline_takeback", "claim_when_gone"]


def accept_takeback(session: SessionView, now: float | None = None) -> None:
    """Accept the other side's takeback offer (online): its game comes back with the moves undone."""
    _answer_takeback(session, Action.ACCEPT_TAKEBACK, "no_takeback_offer_accept", now)


def decline_takeback(session: SessionView, now: float | None = None) -> None:
    _answer_takeback(session, Action.DECLINE_TAKEBACK, "no_takeback_offer_decline", now)


def _answer_takeback(session: SessionView, action: Action, none: str, now: float | None) -> None:
    """Answer the offer with ``action``; ``none``: the refusal when there is no offer."""
    seat = session.seat
    with session.command(now, live=True):
        by = seat.takeback_offer
        if by is None:
            raise SessionError(none)
        if seat.online_sync is not None and by in seat.online_sync.local_colors:
            raise SessionError("own_takeback_offer")
        seat.takeback_offered(None)
        seat.tell(action)


def claim_when_gone(session: SessionView, what: str, now: float | None = None) -> None:
    """The other player left the game: claim the win (``what`` "victory") or a draw ("draw")."""
    with session.command(now, live=True):
        if what not in ("victory", "draw"):
            raise ValueError(f"claim 'victory' or 'draw', not {what!r}")
        away = session.seat.away
        if away is None:
            raise SessionError("nothing_to_claim")
        if away.claim_win_in_seconds:
            raise SessionError("claim_later", s=away.claim_win_in_seconds)
        session.seat.tell(Action.CLAIM_VICTORY if what == "victory" else Action.CLAIM_DRAW)
