"""What the other side of the game says, acted on at the board: its moves, offers, ends, chat, refusals and whole-game syncs.

The opponent (an engine, a server) talks to the seat (:mod:`firmware.session.seat`); what
changes the board's game comes here, one method per kind of news, and goes to the referee's
match and the game's :class:`~firmware.session.board_state.play.Play` through the session's public face
(:class:`~firmware.session.session_view.SessionView`). A move to carry out waits in
``play.expected_move``; the other end's result waits in ``play.pending_end`` until its last
move stands on the board.
"""
from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from chess_core import Move, Outcome, Termination

from firmware.config import OpponentKind
from firmware.opponents.base import ChatLine, GameEnd, GameSync, Offer, OfferKind
from firmware.referee.orders import EndAsDecided, Expect, Order, ResignGame
from firmware.session.effects import Keep, Publish
from firmware.session.online_tags import online_tags
from firmware.session.play import Play
from firmware.session.restore import continues, follow_sync, synced_match
from firmware.session.state import Phase
from firmware.words import Message, player, refused_text, void_text

if TYPE_CHECKING:
    from firmware.session.session_view import SessionView

__all__ = ["OtherSide"]

log = logging.getLogger(__name__)


class OtherSide:
    """The other side's news, acted on at the board; see the module docstring."""

    def __init__(self, session: SessionView) -> None:
        self.session = session

    def opponent_moved(self, move: Move, *, trained: bool = False) -> None:
        """The opponent played ``move``: show it and wait for the board to carry it out.
        ``trained``: the trainer's (a puzzle's reply, the right move shown); during a training,
        the opponent's own moves are set aside (a drill's game has no opponent)."""
        session = self.session
        if session.board_state.training is not None and not trained:
            log.info("opponent move %s set aside: a training stands", move.uci())
            return
        if not session.live:
            # Before the pieces stand ready: the game starting tells the opponent again (on_reset).
            log.info("opponent move %s set aside: no game in progress on the board", move.uci())
            return
        try:
            session.referee.step(Expect(move), session.clock())
        except ValueError as exc:
            log.error("opponent move refused (%s): the opponent reads the game again", exc)
            session.seat.reset()
            return
        session.carry_out([Keep(play=replace(session.board_state.play, expected_move=move)), Publish()], session.clock())

    def forget_expected_move(self) -> None:
        """The move awaited is not coming to the board any more (another opponent, a player back)."""
        session, play = self.session, self.session.board_state.play
        if play.expected_move is not None:
            session.carry_out([Keep(play=replace(play, expected_move=None, pending_end=None))], session.clock())
            if self.session.live:
                self.session.referee.step(Expect(None), self.session.clock())

    def offered(self, offer: Offer) -> None:
        """The other side offers (or withdraws) a draw or a takeback (heard during a game only: an
        offer made while the pieces are set up would outlive the game it was made in)."""
        session, play = self.session, self.session.board_state.play
        if not session.live:
            return
        by = offer.by if offer.active else None
        if offer.kind is OfferKind.DRAW:
            sync = session.seat.online_sync
            local = sync.local_colors if sync is not None else ()
            if not offer.active and offer.by in local and play.draw_offer == offer.by:
                who = player(session.board_state.names[offer.by ^ 1], offer.by ^ 1)
                play = play.told(Message.of("offer_declined", who=who), len(session.game.moves))
            session.carry_out([Keep(play=replace(play, draw_offer=by))], session.clock())
        else:
            session.seat.takeback_offered(by)
        session.publish()

    def ended_elsewhere(self, end: GameEnd) -> None:
        """The game ended at the other end (mate, resignation, flag, abort...). When the
        opponent's last move is still to be carried out on the board, the end waits for it, so
        that the move is in the game (a mate then ends it on the board by itself)."""
        session, play = self.session, self.session.board_state.play
        if not session.live:
            return
        now = session.clock()
        if end.outcome is None:   # aborted over there: void; the board's game is no longer an online one
            session.seat.follow(None)
            said = void_text(end.status)
            # (on the page until the next move)
            session.carry_out([Keep(play=play.with_problem(now, said).told(said, len(session.game.moves))),
                               Publish()], now)
            return
        if play.expected_move is not None:
            session.carry_out([Keep(play=replace(play, pending_end=end.outcome))], now)
            return
        self.end(end.outcome, now)
        session.publish()

    def end(self, outcome: Outcome, now: float) -> None:
        """The other end's result, now that its last move (if any) stands on the board."""
        session = self.session
        session.carry_out([Keep(play=replace(session.board_state.play, pending_end=None))], now)
        if not session.live:
            return
        referee = session.referee
        if outcome.termination is Termination.RESIGNATION and outcome.winner is not None:
            session.apply(referee.step(ResignGame(outcome.winner ^ 1), now), now)
        elif outcome.termination is Termination.AGREEMENT:
            session.apply(referee.step(Order.AGREE_DRAW, now), now)
        else:  # a flag, an abort, a claim over there: the other end's word is final
            session.apply(referee.step(EndAsDecided(outcome), now), now)

    def chat_line(self, line: ChatLine) -> None:
        """A chat line of the game (the other player's, or the board's own as the server echoes it)."""
        session = self.session
        session.carry_out([Keep(play=session.board_state.play.chatted(str(line.username), str(line.text))), Publish()],
                          session.clock())

    def move_refused(self, move: Move, reason: str) -> None:
        """The other end refused a move of the board: it is taken back like an illegal move, the
        LEDs showing the squares to put right (the other end's game follows with ``sync_game``)."""
        session, play = self.session, self.session.board_state.play
        now = session.clock()
        game = session.game
        last = game.moves[-1] if game.moves else None
        who = "Lichess" if session.seat.kind is OpponentKind.LICHESS else ""
        before = None
        if session.live and last == move and len(game.moves) > play.restored_plies:
            before = game.position.copy(stack=True)
            before.pop()
            session.apply(session.referee.step(Order.UNDO_MOVE, now), now)
            play = replace(session.board_state.play, takeback_move=move)
        log.warning("%s refused %s: %s", who or "the other end", move.uci(), reason)
        play = play.with_problem(now, refused_text(who, move, reason, before))
        session.carry_out([Keep(play=play), Publish()], now)

    def sync_game(self, sync: GameSync) -> None:
        """The whole game as the other end knows it (joining a game, also one in progress; a
        takeback; a refused move): the session's game becomes it, and the LEDs guide the pieces
        into its position. The same game continued keeps its PGN file, its chat and its notice.

        The server's clocks are the game's: the board's clock does not run and no flag falls here.
        Board-only takebacks are off.
        """
        session = self.session
        now = session.clock()
        seat, play, game = session.seat, session.board_state.play, session.game
        moves, current = list(sync.moves), list(game.moves)
        previous = seat.online_sync
        same_start = (session.board_state.phase is not Phase.SETTING_UP and game.start_fen == sync.start_fen
                      and game.chess960 == sync.chess960)
        seat.follow(sync)
        names = (_name(sync.white, session.board_state.names[0]), _name(sync.black, session.board_state.names[1]))
        record = session.file.record
        if previous is not None and same_start and current == moves and not game.is_over and record:
            session.set_names(names)   # (the board's game is the server's)
            if play.expected_move is not None:   # the opponent's move, not carried out yet, was taken back
                session.referee.step(Expect(None), now)
                session.carry_out([Keep(play=replace(play, expected_move=None, pending_end=None))], now)
                session.apply(session.referee.step(Order.REREAD, now), now)   # the board as it stands, without it
            session.publish()
            return
        continued = continues(record, sync, previous, same_start, current)
        recorder = session.file.recorder
        if not continued:
            if record is not None and not record.moves and not record.is_over:
                recorder.discard(record)   # the board was only set up: no game to keep
            opponent = seat.opponent
            site = (opponent.game_url(sync.game_id) if opponent is not None and sync.game_id else None) \
                or session.config.game.site
            record = recorder.new_record(session.wall(), names[0], names[1], replay=session.replay,
                                         event=session.config.game.event, site=site, online_id=sync.game_id)
        assert record is not None
        follow_sync(record, sync, names, game.rules, now)
        record.tags = online_tags(sync)
        match = synced_match(session.match_config(), sync, now)
        seat.takeback_offered(None)
        session.file.record = record
        session.set_names(names)
        session.referee.resume(match, reread=True)
        session.carry_out([Keep(phase=Phase.OVER if session.game.is_over else Phase.RESUMING,
                                play=Play(restored_plies=len(moves), new_online_game=not continued,
                                          problems=play.problems, chat_lines=play.chat_lines if continued else (),
                                          notice=play.notice if continued else None))], now)
        session.file.dirty = True
        session.apply(session.referee.step(Order.REREAD, now), now)   # the board as it stands, against the new position
        session.publish()


def _name(player: Any, default: str) -> str:
    return player.name if player is not None and player.name else default
