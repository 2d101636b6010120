"""The computer playing a side for a player who had to leave (a take-over), and giving it back: the seat's part that names the players and keeps the record.

A :class:`Takeovers` is the seat's take-overs of the game in progress, by side (a dict of the
engine's ``Takeover`` records, which the seat reads as it names the engine), with the commands
that change them: ``take_over``, ``give_back`` (``give_back_to_mover``: the ``return`` button),
and what a restart needs: ``saved`` (as the game's record keeps them), ``restore``, ``resume``
(the engine plays those sides again once it runs); ``comment``: the engine's first move for a
side it took over says so in the PGN.
"""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from firmware.config import OpponentKind
from firmware.opponents.base import ActionNotSupported
from firmware.opponents.factory import build_engine
from firmware.session.commands import SessionError, colour, rename, side_played
from firmware.session.state import SIDE_WORDS

if TYPE_CHECKING:
    from firmware.session.seat import OpponentSeat

__all__ = ["Takeovers"]

log = logging.getLogger(__name__)


class Takeovers(dict[int, Any]):
    """The take-overs of one board's game, by side; see the module docstring."""

    def __init__(self, seat: OpponentSeat) -> None:
        super().__init__()
        self.seat = seat

    @property
    def session(self) -> Any:
        return self.seat.session

    def take_over(self, side: Any, now: float | None = None) -> None:
        """The computer plays ``side`` for the rest of the game (its player has to leave). The PGN
        names the player "Name (Stockfish from move N)" and says so at the engine's first move."""
        session = self.session
        with session.command(now, live=True):
            side = colour(side)
            if not self.seat.assisted:
                raise SessionError("takeover_online")
            opponent = self.seat.opponent
            if self.seat.kind is OpponentKind.ENGINE and opponent is not None and side in opponent.sides:
                raise SessionError("takeover_already", side=side_played(side))
            player = session.board_state.names[side]
            if opponent is None:
                game = session.game
                engine = build_engine(session.config, side, start_fen=game.start_fen, moves=game.moves)
                self.seat.use(engine, sides=frozenset())
                takeover = engine.take_over(side, player)
            else:
                try:
                    takeover = opponent.take_over(side, player)
                except ActionNotSupported:
                    raise SessionError("opponent_no_takeover", who=opponent.name) from None
            self[side] = takeover
            rename(self.session, side, takeover.player_tag())
            session.file.keep_takeovers(self.saved())
            log.info("%s takes %s over from %s at move %d", takeover.engine, SIDE_WORDS[side], player,
                     takeover.from_move)

    def give_back(self, side: Any, now: float | None = None) -> None:
        """The player of ``side``, taken over by the computer, is back and plays on themselves
        (their name again on the side, a comment in the PGN)."""
        session = self.session
        with session.command(now, live=True):
            side = colour(side)
            takeover = self.get(side)
            if takeover is None:
                raise SessionError("giveback_none", side=side_played(side))
            if self.seat.opponent is not None:
                try:
                    self.seat.opponent.give_back(side)
                except ActionNotSupported:
                    raise SessionError("opponent_no_giveback", who=self.seat.opponent.name) from None
            del self[side]
            rename(self.session, side, takeover.player or SIDE_WORDS[side])
            session.file.comment_once(len(session.game.moves),
                                      f"{takeover.player or SIDE_WORDS[side]} plays {SIDE_WORDS[side]} again from here")
            if session.board_state.play.expected_move is not None and session.game.turn == side:
                session.other_side.forget_expected_move()   # the computer's move not carried out: the player chooses
            session.file.keep_takeovers(self.saved())
            log.info("%s plays %s again", takeover.player, SIDE_WORDS[side])

    def give_back_to_mover(self, now: float | None = None) -> None:
        """The ``return`` button: the player back at the board takes their side back (the side to
        move's when the computer plays both)."""
        sides = sorted(self)
        if not sides:
            raise SessionError("giveback_nobody")
        self.give_back(self.session.game.turn if len(sides) > 1 else sides[0], now)

    def saved(self) -> dict[str, list[Any]]:
        """The take-overs as the game's record keeps them (they survive a restart)."""
        return {str(side): [t.player, t.engine, t.from_move] for side, t in sorted(self.items())}

    def restore(self, saved: dict[str, list[Any]]) -> None:
        """The take-overs of a restored game: the engine plays those sides again once it runs."""
        from firmware.opponents.engine.opponent import Takeover as TakeoverRecord
        self.clear()
        self.update({int(side): TakeoverRecord(int(side), str(player), str(engine), int(from_move))
                     for side, (player, engine, from_move) in saved.items()})
        if self.seat.opponent is not None:
            self.resume()

    def resume(self) -> None:
        opponent = self.seat.opponent
        if opponent is None:
            return
        for side, takeover in self.items():
            if side not in opponent.sides:
                try:
                    opponent.take_over(side, takeover.player)   # (its record is the saved one)
                except ActionNotSupported:
                    log.warning("%s cannot play %s for %s again", opponent.name, SIDE_WORDS[side], takeover.player)

    def comment(self, mover: int) -> None:
        """The engine's first move for a side it took over says so in the PGN."""
        takeover = self.get(mover)
        if takeover is not None:
            self.session.file.comment_once(len(self.session.game.moves), takeover.comment())
