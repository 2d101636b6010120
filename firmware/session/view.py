"""What the session shows and tells: its typed state for the page and the club, the LEDs' state, the clocks as shown, the stage its referee is told.

Functions of the session's parts at a time ``now``; nothing here changes the session.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from chess_core import PAWN, STARTING_FEN, Move, san

from firmware.config import OpponentKind
from firmware.leds.compose import lit_roles
from firmware.referee.feedback import FeedbackState, frame, game_layer
from firmware.referee.referee import Stage
from firmware.session.state import Phase, Promotion, SessionState

if TYPE_CHECKING:
    from firmware.session.session_view import SessionView

__all__ = ["session_state", "stage", "feedback_state", "clocks", "low_time_deadline"]


def session_state(session: SessionView, now: float, feedback: FeedbackState | None = None) -> SessionState:
    """The session at ``now``, typed and frozen (see firmware.session.state); ``feedback``: the
    LEDs' state at ``now`` when the caller has it already."""
    game, referee, seat, play, record = session.game, session.referee, session.seat, session.play, session.file.record
    feedback = feedback if feedback is not None else feedback_state(session, now)
    app = session.app   # an app attached holds the LEDs: the page shows its lights
    leds = app.leds if app is not None and app.leds is not None else (
        session.leds_frame or frame(feedback, now, session.style))
    remaining, running = clocks(session, now)
    sans = session.file.sans
    sans.update(game)
    g = session.config.game
    over = game.outcome is not None
    opponent = seat.state()
    started = session.phase is not Phase.SETTING_UP
    engine_sides = opponent.sides if opponent.kind is OpponentKind.ENGINE else frozenset()
    notice = play.current_notice(len(game.moves), over)
    return SessionState(
        time=now, phase=session.phase, fen=game.fen(), start_fen=game.start_fen, turn=game.turn,
        check=game.position.is_check(), rules=game.rules, moves=tuple(game.moves),
        san_en=tuple(sans.en), san_fr=tuple(sans.fr), outcome=game.outcome,
        claims=tuple(game.claimable_draws()) if started else (), names=session.names,
        occupied=session.occupied or 0, lifted=feedback.lifted, wrong=feedback.wrong, touched=feedback.touched,
        leds=tuple(leds), expected_move=play.expected_move, takeback_move=play.takeback_move,
        promotion_square=feedback.promotion_square, promotion=_promotion(session, feedback),
        next_promotion=referee.next_promotion, draw_offer=play.draw_offer,
        takeback_offer=seat.takeback_offer, clocks=remaining if remaining is not None else (None, None),
        running=running, delay_left=_delay_left(session, now),
        time_control=str(referee.time_control) if seat.online_sync is None else (seat.online_sync.time_control or "-"),
        problems=tuple(play.problems.entries), game_file=record.pgn_name if record else None,
        link_text=seat.link_text, restored_moves=play.restored_plies,
        can_takeback=started and g.takebacks and len(game.moves) > play.restored_plies and seat.assisted,
        take_over=tuple(side for side in (0, 1) if side not in engine_sides)
        if started and not over and seat.assisted else (),
        settings={"show_legal_squares": g.show_legal_squares, "touch_move": g.touch_move,
                  "takebacks": g.takebacks, "alternate_colours": g.alternate_colours,
                  "time_control": g.time_control, "rules": g.rules, "opponent": seat.choice.value,
                  "brightness": session.config.leds.brightness, "engine_level": session.config.engine.level,
                  "engine_elo": session.config.engine.elo, "engine_move_time": session.config.engine.move_time},
        opponent=opponent, leds_problem=session.leds.problem if session.leds is not None else None,
        move_clocks=tuple(record.clocks) if record else (),
        round=record.round if record else g.round,
        event=record.event if record else g.event, save_problem=session.file.saving.message(),
        gesture=session.referee.gesture(now), corrections=_corrections(session),
        chess960=game.chess960, new_online_game=play.new_online_game, chat=tuple(play.chat_lines),
        notice=notice[0] if notice else None, notice_fr=notice[1] if notice else None,
        first_move_ms=_first_move_ms(session, now), problems_fr=play.problems.in_french(),
        opening=session.file.opening.update(game), app=session.app,
        hint_available=started and not over and session.coach.coached(game.turn),
        failed_helpers=tuple(session.failed_helpers),
        lit_roles=lit_roles(session.leds_layers or (game_layer(feedback, session.style),), now))


def stage(session: SessionView) -> Stage:
    """Where the session stands, as its referee needs to know it."""
    g = session.config.game
    return Stage(live=session.live, over=session.phase.over,
                 gestures=session.config.gestures.enabled, restart=not session.seat.online,
                 start_fen=g.fen or STARTING_FEN, chess960=g.chess960)


def feedback_state(session: SessionView, now: float) -> FeedbackState:
    """What the LEDs show at ``now`` (firmware.referee.feedback)."""
    game, play, live = session.game, session.play, session.live
    view = session.referee.view(now, live, session.phase is Phase.SETTING_UP)
    alarm = 1 << play.alarm[0] if play.alarm is not None and now < play.alarm[1] else 0
    return FeedbackState(
        position=game.position, lifted=view.lifted, wrong=view.wrong | alarm,
        last_move=game.moves[-1] if game.moves else None, opponent_move=play.expected_move,
        promotion_square=view.promotion_square if play.expected_move is None else None,
        outcome=game.outcome if session.phase is not Phase.SETTING_UP or game.is_over else None,
        low_time=_low_time(session, now), touched=view.touched,
        show_legal=session.config.game.show_legal_squares and session.seat.assisted,
        held=view.held, held_kind=view.held_kind, held_progress=view.held_progress,
        draw_offer=play.draw_offer is not None and live)


def clocks(session: SessionView, now: float) -> tuple[tuple[int, int] | None, int | None]:
    """Both clocks (ms) and the running side: the server's in an online game, else the board's."""
    server = session.seat.clocks(now)
    if server is not None:
        return server
    if session.phase is Phase.SETTING_UP:
        return None, None
    board = session.referee.clocks(now)
    return board.remaining, (board.running if session.phase is not Phase.PAUSED else None)


def low_time_deadline(session: SessionView, now: float) -> float | None:
    """When the side to move's time will run low (the LEDs then warn), if it runs and is not low yet."""
    remaining, side = clocks(session, now)
    threshold = session.config.leds.low_time_s * 1000
    if side is None or remaining is None or remaining[side] <= threshold:
        return None
    return now + (remaining[side] - threshold) / 1000


def _low_time(session: SessionView, now: float) -> int | None:
    if not session.live:
        return None
    remaining, side = clocks(session, now)
    if side is None or remaining is None or remaining[side] > session.config.leds.low_time_s * 1000:
        return None
    return side


def _delay_left(session: SessionView, now: float) -> int:
    if session.seat.server_clock is not None or not session.live:
        return 0
    return session.referee.clocks(now).delay_left


def _corrections(session: SessionView) -> tuple[tuple[Move, str, str], ...]:
    """The moves that explain the board as well as the last one, with their SAN (en, fr)."""
    found = session.referee.corrections()
    if not found:
        return ()
    before = session.game.position.copy(stack=True)
    before.pop()
    return tuple((m, san(before, m, "en"), san(before, m, "fr")) for m in found)


def _first_move_ms(session: SessionView, now: float) -> int | None:
    """Before both first moves of an online game: the time left before the server aborts it."""
    server = session.seat.server_clock
    if server is None or server.first_move_ms is None or not session.live:
        return None
    return max(0, server.first_move_ms - round((now - server.at) * 1000))


def _promotion(session: SessionView, feedback: FeedbackState) -> Promotion | None:
    """A promotion whose piece may be chosen: one just made, or one on its way (a pawn of the
    side to move lifted from the rank before the last: the piece chosen now is its move's)."""
    game = session.game
    pos = game.position
    if session.play.expected_move is not None:
        return None   # the opponent's move to carry out (its piece chosen over there), or its reply
    if feedback.promotion_square is not None:
        piece = pos.piece_at(feedback.promotion_square)
        return Promotion(feedback.promotion_square, piece.piece_type, piece.color) if piece else None
    if game.outcome is not None:
        return None
    seventh = 6 if pos.turn == 0 else 1
    bb = feedback.lifted
    while bb:
        sq = (bb & -bb).bit_length() - 1
        bb &= bb - 1
        piece = pos.piece_at(sq)
        if piece is not None and piece.piece_type == PAWN and piece.color == pos.turn and sq // 8 == seventh:
            return Promotion(None, session.referee.next_promotion, pos.turn)
    return None
