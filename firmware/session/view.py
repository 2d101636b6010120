"""What the session shows and tells: its typed state for the page and the club, the LEDs' state, the clocks as shown, the stage its referee is told.

Functions of the session's parts at a time ``now``; nothing here changes the session.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from chess_core import PAWN, STARTING_FEN, Move, san

from firmware.config import OpponentKind
from firmware.leds.compose import lit_roles
from firmware.referee.feedback import FeedbackState, frame, game_layer
from firmware.referee.referee import Showing, Stage
from firmware.session.setup_guidance import setup_state
from firmware.session.state import Phase, Promotion, SessionState
from firmware.words.message import English, Message

if TYPE_CHECKING:
    from firmware.session.session_view import SessionView

__all__ = ["session_state", "seen", "Seen", "stage", "feedback_state", "clocks"]


@dataclass(frozen=True)
class Seen:
    """What the board shows at a time, built in one pass: the referee's :class:`Showing` (the
    view, the clocks, the gesture's countdown, the corrections), the LEDs' state from it, and when
    the side to move's time will run low (None: not running, or low already)."""

    shown: Showing
    feedback: FeedbackState
    low_time_at: float | None


def seen(session: SessionView, now: float) -> Seen:
    """What the board shows at ``now``, asked of the referee once: the LEDs, the page's state and
    the next wake-up are built from it."""
    state = session.board_state
    shown = session.referee.shows(now, state.live, state.phase is Phase.SETTING_UP)
    remaining, side = clocks(session, now, shown)
    low_time, low_time_at = None, None
    if state.live and side is not None and remaining is not None:   # the side to move's time runs
        low = session.config.leds.low_time_s * 1000
        if remaining[side] <= low:
            low_time = side          # the LEDs warn
        else:
            low_time_at = now + (remaining[side] - low) / 1000
    return Seen(shown, _feedback(session, now, shown, low_time), low_time_at)


def session_state(session: SessionView, now: float, at: Seen | None = None) -> SessionState:
    """The session at ``now``, typed and frozen (see firmware.session.state); ``at``: what the
    board shows at ``now``, when the caller has it already."""
    game, referee, seat, play, record = session.game, session.referee, session.seat, session.board_state.play, session.file.record
    at = at if at is not None else seen(session, now)
    shown, feedback = at.shown, at.feedback
    app = session.board_state.app   # an app attached holds the LEDs: the page shows its lights
    leds = app.leds if app is not None and app.leds is not None else (
        session.leds_frame or frame(feedback, now, session.style))
    remaining, running = clocks(session, now, shown)
    sans = session.file.sans
    sans.update(game)
    g = session.config.game
    over = game.outcome is not None
    opponent = seat.state()
    started = session.board_state.phase is not Phase.SETTING_UP
    engine_sides = opponent.sides if opponent.kind is OpponentKind.ENGINE else frozenset()
    notice = play.current_notice(len(game.moves), over)
    return SessionState(
        time=now, phase=session.board_state.phase, fen=game.fen(), start_fen=game.start_fen, turn=game.turn,
        check=game.position.is_check(), rules=game.rules, moves=tuple(game.moves),
        san=tuple(sans.en), outcome=game.outcome,
        claims=tuple(game.claimable_draws()) if started else (), names=session.board_state.names,
        occupied=session.occupied or 0, lifted=feedback.lifted, wrong=feedback.wrong, touched=feedback.touched,
        leds=tuple(leds), expected_move=play.expected_move, takeback_move=play.takeback_move,
        promotion_square=feedback.promotion_square, promotion=_promotion(session, feedback),
        next_promotion=referee.next_promotion, draw_offer=play.draw_offer,
        takeback_offer=seat.takeback_offer, clocks=remaining if remaining is not None else (None, None),
        running=running, delay_left=_delay_left(session, shown),
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
                  "engine_elo": session.config.engine.elo, "engine_move_time": session.config.engine.move_time,
                  "coach_white": session.config.coach.white, "coach_black": session.config.coach.black,
                  "coach_hints": session.config.coach.hints},
        opponent=opponent, leds_problem=_leds_off(session),
        move_clocks=tuple(record.clocks) if record else (),
        round=record.round if record else g.round,
        event=record.event if record else g.event, save_problem=session.file.saving.message(),
        gesture=shown.gesture, corrections=_corrections(session, shown),
        chess960=game.chess960, new_online_game=play.new_online_game, chat=tuple(play.chat_lines),
        notice=notice,
        first_move_ms=_first_move_ms(session, now),
        opening=session.file.opening.update(game), app=session.board_state.app,
        hint_available=started and not over and session.coach.hint_offered(game.turn),
        failed_helpers=tuple(session.board_state.failed_helpers),
        lit_roles=lit_roles(session.leds_layers or (game_layer(feedback, session.style),), now),
        setup=setup_state(session), training=session.board_state.training,
        progress=(session.board_state.progress or {}).get(session.board_state.training.player)
        if session.board_state.training is not None else None)


def stage(session: SessionView) -> Stage:
    """Where the session stands, as its referee needs to know it."""
    g = session.config.game
    return Stage(live=session.board_state.live, over=session.board_state.phase.over,
                 gestures=session.config.gestures.enabled, restart=not session.seat.online,
                 start_fen=g.fen or STARTING_FEN, chess960=g.chess960)


def feedback_state(session: SessionView, now: float) -> FeedbackState:
    """What the LEDs show at ``now`` (firmware.referee.feedback)."""
    return seen(session, now).feedback


def _feedback(session: SessionView, now: float, shown: Showing, low_time: int | None) -> FeedbackState:
    game, play, state = session.game, session.board_state.play, session.board_state
    view = shown.view
    alarm = 1 << play.alarm[0] if play.alarm is not None and now < play.alarm[1] else 0
    return FeedbackState(
        position=game.position, lifted=view.lifted, wrong=view.wrong | alarm,
        last_move=game.moves[-1] if game.moves else None, opponent_move=play.expected_move,
        promotion_square=view.promotion_square if play.expected_move is None else None,
        outcome=game.outcome if state.phase is not Phase.SETTING_UP or game.is_over else None,
        low_time=low_time, touched=view.touched,
        show_legal=session.config.game.show_legal_squares and session.seat.assisted,
        held=view.held, held_kind=view.held_kind, held_progress=view.held_progress,
        draw_offer=play.draw_offer is not None and state.live)


def clocks(session: SessionView, now: float, shown: Showing) -> tuple[tuple[int, int] | None, int | None]:
    """Both clocks (ms) and the running side: the server's in an online game, else the board's
    (as ``shown``)."""
    server = session.seat.clocks(now)
    if server is not None:
        return server
    if session.board_state.phase is Phase.SETTING_UP:
        return None, None
    board = shown.clocks
    return board.remaining, (board.running if session.board_state.phase is not Phase.PAUSED else None)


def _delay_left(session: SessionView, shown: Showing) -> int:
    if session.seat.server_clock is not None or not session.board_state.live:
        return 0
    return shown.clocks.delay_left


def _corrections(session: SessionView, shown: Showing) -> tuple[tuple[Move, str], ...]:
    """The moves that explain the board as well as the last one, with their SAN."""
    found = shown.corrections
    if not found:
        return ()
    before = session.game.position.copy(stack=True)
    before.pop()
    return tuple((m, san(before, m)) for m in found)


def _first_move_ms(session: SessionView, now: float) -> int | None:
    """Before both first moves of an online game: the time left before the server aborts it."""
    server = session.seat.server_clock
    if server is None or server.first_move_ms is None or not session.board_state.live:
        return None
    return max(0, server.first_move_ms - round((now - server.at) * 1000))


def _promotion(session: SessionView, feedback: FeedbackState) -> Promotion | None:
    """A promotion whose piece may be chosen: one just made, or one on its way (a pawn of the
    side to move lifted from the rank before the last: the piece chosen now is its move's)."""
    game = session.game
    pos = game.position
    if session.board_state.play.expected_move is not None:
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


def _leds_off(session: SessionView) -> Message | None:
    """The LEDs are off: the driver's English (why, and what to run), said in any language."""
    problem = session.leds.problem if session.leds is not None else None
    return Message.of("leds_off", detail=English(problem)) if problem else None
