"""The players' commands on the game at the board: resign, draws, promotion, corrections, the clock, takebacks, buttons, settings, a club's pairing.

Each takes the session (read through :class:`~firmware.session.session_view.SessionView`) and
the time ``now`` (default: the session's clock), runs in the session's command frame
(``session.command``: the check that a game is in progress, the update after success) and
raises :class:`~firmware.session.commands.SessionError`, a message for the player, when it
cannot be carried out. They reach the session through its door (firmware.session.door.COMMANDS).
"""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from chess_core import Move, parse_move
from chess_core.clock import ClockError
from chess_core.game import DrawClaimError

from firmware.opponents.base import Action
from firmware.referee.feedback import LedStyle
from firmware.referee.gestures import BUTTONS
from firmware.referee.orders import ClaimDraw, Order, ResignGame, SetGestureTimes
from firmware.referee.round_rules import draw_offer_refused
from firmware.session import amends
from firmware.session.amends import ended_by_last_move
from firmware.session.commands import (SessionError, claim_refused, colour, require_live, settings_sections,
                                       takeback_refused)
from firmware.session.effects import Keep
from firmware.session.state import Phase

if TYPE_CHECKING:
    from firmware.session.session_view import SessionView

__all__ = ["set_round", "resign", "offer_draw", "accept_draw", "decline_draw", "claim_draw", "choose_promotion",
           "correct", "pause", "resume", "takeback", "update_settings", "button"]


def set_round(session: SessionView, white: str, black: str, now: float | None = None, **game: Any) -> None:
    """A club hub's pairing: the players' names (on this game at once, unless it is over) and
    the round's ``[game]`` settings (``time_control``, ``rules``, ``round``, ``event``,
    ``draw_offers_from_move``), which apply from the next game, or to this one while it has
    no move yet. Colours stop alternating: the pairing says who has White."""
    now = session.clock() if now is None else now
    if session.seat.online and session.live:
        raise SessionError("lichess_game_pairing")
    session.change_config(game={"white": white, "black": black, "alternate_colours": False, **game})
    record = session.file.record
    if session.live and session.game.moves:
        with session.command(now):
            session.set_names((white, black))
            if record is not None:
                record.round = session.config.game.round
    elif session.board_state.phase is not Phase.SETTING_UP and not session.game.is_over and record is not None:
        session.file.recorder.discard(record)   # no move yet: begin again with the round's clock and rules
        session.new_game(now, white=white, black=black)
    else:
        with session.command(now):
            session.next_game(now, names=(white, black))


def resign(session: SessionView, color: int, now: float | None = None) -> None:
    with session.command(now, live=True) as now:
        session.apply(session.referee.step(ResignGame(colour(color)), now), now)
        session.seat.tell(Action.RESIGN)


def offer_draw(session: SessionView, color: int, now: float | None = None) -> None:
    """``color`` offers a draw; an offer already made by the other side is accepted."""
    with session.command(now, live=True) as now:
        color = colour(color)
        if session.board_state.play.draw_offer == color ^ 1:
            session.apply(session.referee.step(Order.AGREE_DRAW, now), now)
            session.seat.tell(Action.ACCEPT_DRAW)
            return
        number, first = session.game.position.fullmove_number, session.config.game.draw_offers_from_move
        if draw_offer_refused(number, first):
            raise SessionError("draw_offer_refused", why=lambda lang: draw_offer_refused(number, first, lang) or "")
        session.carry_out([Keep(play=replace(session.board_state.play, draw_offer=color))], now)
        session.seat.tell(Action.OFFER_DRAW)


def accept_draw(session: SessionView, color: int, now: float | None = None) -> None:
    with session.command(now, live=True) as now:
        if session.board_state.play.draw_offer != colour(color) ^ 1:
            raise SessionError("no_draw_offer")
        session.apply(session.referee.step(Order.AGREE_DRAW, now), now)
        session.seat.tell(Action.ACCEPT_DRAW)


def decline_draw(session: SessionView, color: int, now: float | None = None) -> None:
    with session.command(now) as now:
        if session.board_state.play.draw_offer == colour(color) ^ 1:
            session.carry_out([Keep(play=replace(session.board_state.play, draw_offer=None))], now)
            session.seat.tell(Action.DECLINE_DRAW)


def claim_draw(session: SessionView, now: float | None = None, move: str | Move | None = None) -> None:
    """Claim a draw (threefold, fifty moves), by the move that brings it about if given."""
    with session.command(now, live=True) as now:
        if isinstance(move, str):
            try:
                move = parse_move(session.game.position, move)
            except ValueError:
                raise SessionError("claim_move", move=repr(move)) from None
        try:
            events = session.referee.step(ClaimDraw(move), now)
        except DrawClaimError:
            raise claim_refused(session.game, move) from None
        session.apply(events, now)


def choose_promotion(session: SessionView, piece: str | int, now: float | None = None) -> None:
    """The piece of the promotion just made (until the opponent starts, even after the mate or
    stalemate it made: the end is judged again), or of the next one (firmware.session.amends)."""
    with session.command(now) as now:
        amends.choose_promotion(session, piece, now)


def correct(session: SessionView, move: str | Move, now: float | None = None) -> None:
    """The last move was recorded wrong: replace it by ``move``, one of the other moves that
    explain the board as well (``SessionState.corrections``), while the opponent has not started."""
    with session.command(now) as now:
        amends.correct(session, move, now)


def pause(session: SessionView, now: float | None = None) -> None:
    """Stop both clocks (a player's or an arbiter's stop): no move counts until ``resume``."""
    with session.command(now, live=True) as now:
        if session.seat.server_clock is not None or session.seat.online:
            raise SessionError("online_clock")
        session.apply(session.referee.step(Order.PAUSE_CLOCKS, now), now)
        if session.live:   # (the pause's poll may have ended the game: a flag that fell meanwhile)
            session.carry_out([Keep(phase=Phase.PAUSED)], now)


def resume(session: SessionView, now: float | None = None) -> None:
    """Restart the clock of the side to move."""
    with session.command(now) as now:
        if session.board_state.phase is Phase.PAUSED:
            session.carry_out([Keep(phase=Phase.PLAYING)], now)
            session.apply(session.referee.step(Order.RESUME_CLOCKS, now), now)


def takeback(session: SessionView, now: float | None = None) -> None:
    """Take back the last move (needs ``takebacks``): the game and the clock go back at once,
    and the LEDs show the pieces to put back until the board shows the position before it.

    Online (no assistance allowed) the takeback is proposed to the other side instead; if it
    agrees, its game comes back without the move (``sync_game``).
    """
    with session.command(now) as now:
        if not session.seat.assisted:
            require_live(session)
            if not session.game.moves:
                raise SessionError("no_move_to_take_back")
            session.seat.tell(Action.PROPOSE_TAKEBACK)
            return
        require_live(session, over_ok=ended_by_last_move(session.game))
        if len(session.game.moves) <= session.board_state.play.restored_plies:
            raise SessionError("restored_final")
        move = session.game.moves[-1]
        try:
            events = session.referee.step(Order.TAKE_BACK, now)
        except (ValueError, ClockError) as exc:
            raise takeback_refused(session.referee.takebacks, exc) from None
        session.apply(events, now)
        session.carry_out([Keep(play=replace(session.board_state.play, takeback_move=move))], now)


def update_settings(session: SessionView, now: float | None = None, **changes: Any) -> None:
    """Change settings: ``game`` keys (names, time control...), ``leds`` and ``gestures`` keys,
    one by one or as a section (``leds={...}``), and ``engine={"level": 0..20, "elo": 0 or
    500..4000, "move_time": s, "side": "white"|"black"|"alternate"}``.

    Names apply to the current game; time control, rules, the start position and the engine's
    side to the next; touch-move, takebacks, the LED settings at once, and the engine's
    strength from its next move.
    """
    with session.command(now) as now:
        sections = settings_sections(changes)
        session.change_config(**sections)
        session.apply_board_rules()
        if "engine" in sections:
            session.seat.set_engine_level()
        session.carry_out([Keep(style=LedStyle.from_config(session.config.leds))], now)
        session.referee.step(SetGestureTimes(session.config.gestures.resign_s, session.config.gestures.draw_s), now)
        game = sections.get("game", {})
        if "white" in game or "black" in game:
            session.set_names((game.get("white", session.board_state.names[0]), game.get("black", session.board_state.names[1])))


def button(session: SessionView, name: str, now: float | None = None) -> None:
    """A press of the GPIO button ``name`` (see firmware.referee.gestures.BUTTONS): the same as
    the gesture; "promote" changes the piece of the promotion just made (queen -> rook ->
    bishop -> knight -> queen); "return": a player back at the board takes their side back; "hint":
    the coach's hint for the side to move (SessionError if it is not coached)."""
    with session.command(now) as now:
        if name == "return":
            session.seat.takeovers.give_back_to_mover(now)
            return
        if name == "promote":
            amends.cycle_promotion(session, now)
            return
        if name == "hint":        # the coach's: the engine's best move lit (firmware.session.coach)
            require_live(session)
            session.coach.hint(now)
            return
        if name not in BUTTONS:
            raise SessionError("bad_button", name=repr(name), known=", ".join(sorted(BUTTONS)))
        if session.live:
            session.apply([BUTTONS[name]], now)
