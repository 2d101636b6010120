"""The game session: the referee, the recorder, the LEDs and the opponent of one board, behind one object.

Contract
========

* Input: ``feed(reading)`` (a raw reading), ``poll(now)`` at ``next_deadline(now)``, ``finish(now)``
  at the end of a replay, and the commands below. Everything takes the time ``now`` (seconds, the
  readings' clock); a command's ``now`` defaults to ``session.clock()``. Nothing here sleeps or
  reads the sensors: the async shell is :mod:`firmware.service`.
* Commands raise :class:`SessionError` (a message for the player) when they cannot be carried out:
  ``new_game``, ``resign``, ``offer_draw`` / ``accept_draw`` / ``decline_draw`` / ``claim_draw``,
  ``choose_promotion``, ``pause`` / ``resume``, ``takeback``, ``update_settings``, ``button``,
  ``take_over`` / ``give_back``, ``accept_takeback`` / ``decline_takeback``, ``lichess_login`` /
  ``lichess_logout``. The start position set up mid-game and held 2 s ends the game unfinished
  and begins the next (:mod:`firmware.referee.restart_watch`).
* Output, after each input, in this order: the LED frame (pure, :mod:`firmware.referee.feedback`)
  is shown; the game is saved if a move or a result was committed; then subscribers get the new
  :class:`~firmware.session.state.SessionState` (built once per change; ``snapshot()`` is its
  JSON form).
* State: ``phase`` (:class:`~firmware.session.state.Phase`), ``match`` (the referee), ``record``
  (the game's file), ``names``, ``seat`` (the opponent's side: :mod:`firmware.session.opponent`).

Events from the match and from the gesture tracker go through dispatch tables. The opponent talks
to the seat; what changes the board's game comes here through the public methods
``opponent_moved``, ``offered``, ``sync_game``, ``move_refused`` and ``ended_elsewhere``.
"""
from __future__ import annotations

import contextlib
import logging
import random
import time
from datetime import datetime
from typing import Any, Callable, Iterator, Optional, Sequence

from board_driver.reading import Reading
from chess_core import PAWN, STARTING_FEN, Move, Outcome, Position, Termination, parse_move, san
from chess_core.chess960 import rearranged
from chess_core.clock import ClockError
from chess_core.game import DrawClaimError

from firmware.config import SIMULATED, Config, OpponentKind, with_overrides
from firmware.opponents.base import Action, ChatLine, GameEnd, GameSync, Offer, OfferKind, Opponent
from firmware.referee.feedback import FeedbackState, LedStyle, frame, next_change
from firmware.referee.gestures import (BUTTONS, DrawGesture, GestureTracker, GestureUndone, Resign,
                                       draw_decision, next_promotion)
from firmware.referee.gestures import forming as gesture_forming
from firmware.referee.inference import Verdict, VerdictKind
from firmware.referee.round_rules import draw_offer_refused
from firmware.referee.restart_watch import RestartWatch, at_start
from firmware.referee.words import illegal_text, refused_text, void_text
from firmware.referee.match import (BoardChanged, GameOver, GameStarted, Match, MatchConfig, MoveMade, ProblemFound,
                                    Reopened, TakenBack, promotion_piece)
from firmware.session.commands import SessionError, colour, engine_side_choice, settings_sections
from firmware.session.online_tags import online_tags
from firmware.session.opponent import OpponentSeat
from firmware.session.recorder import GameRecord, Recorder
from firmware.session.restore import continues, follow_sync, restore_match, synced_match
from firmware.session.saving import SaveState, mark_leds
from firmware.session.state import SIDE_WORDS, Phase, Promotion, SanCache, SessionState, to_json

log = logging.getLogger(__name__)

CHAT_KEPT = 30   # chat lines kept for the page
# Endings the last move brought about on the board (a takeback of that move undoes them).
BOARD_ENDINGS = frozenset({Termination.CHECKMATE, Termination.STALEMATE, Termination.INSUFFICIENT_MATERIAL,
                           Termination.FIVEFOLD_REPETITION, Termination.SEVENTYFIVE_MOVES})
CASUAL_ENDINGS = frozenset({Termination.THREEFOLD_REPETITION, Termination.FIFTY_MOVES})   # automatic in "casual"


class Session:
    """One board's game session; see the module docstring.

    ``opponent``: the engine or Lichess opponent (firmware.opponents.base), started by
    ``start_opponent``; None: two players over the board.
    """

    def __init__(self, config: Config, *, recorder: Optional[Recorder] = None, leds: Any = None,
                 opponent: Optional[Opponent] = None, clock: Callable[[], float] = time.monotonic,
                 wall: Callable[[], datetime] = datetime.now, replay: Optional[str] = None) -> None:
        self.config = config
        self.recorder = recorder or Recorder(config.storage.dir)
        self.leds = leds
        self.clock = clock
        self.wall = wall
        self.replay = replay
        self.style = LedStyle.from_config(config.leds)
        self.gestures = GestureTracker(config.gestures.resign_s, config.gestures.draw_s)
        self.record: Optional[GameRecord] = None   # (the seat asks whether it is an online game's)
        self.seat = OpponentSeat(self, opponent)
        self.restart_watch = RestartWatch()     # the start position set up mid-game: the next game
        self.match = Match(self._match_config())
        if self.match.game.chess960 and config.board.sensors not in SIMULATED:
            # Sensors that see no piece types cannot tell which first ranks stand on the board at
            # power-on: the usual ones are assumed, and the pieces that differ are lifted and set anew.
            self.match.to_arrange = rearranged(Position(), self.match.game.start_position())
        self.phase = Phase.SETTING_UP
        self.names = (config.game.white, config.game.black)
        self.occupied: Optional[int] = None     # the latest raw reading
        self.settled: Optional[Reading] = None  # the latest settled reading seen
        self.verdict: Optional[Verdict] = None
        self.expected_move: Optional[Move] = None   # the opponent's move, to be carried out on the board
        self.takeback_move: Optional[Move] = None   # taken back: the board must show the position before it
        self.draw_offer: Optional[int] = None
        self.pending_end: Optional[Outcome] = None  # the other end's result, once its last move is on the board
        self.restored_plies = 0                 # moves made before a restart, or online: final
        self.new_online_game = False   # what is being set up is a game new to the board, from the other end
        self.chat_lines: list[tuple[str, str]] = []   # the online game's chat: (username, text)
        self.notice: Optional[tuple[str, str, int]] = None   # (English, French, the ply it stands for) until a move
        self.problems: list[tuple[float, str]] = []   # (time, words) of this game
        self._problems_fr: dict[tuple[float, str], str] = {}   # a problem's words in French
        self._board_problem: Optional[tuple[float, str]] = None   # the wrong board's problem, while it lasts
        self.leds_frame: Optional[tuple[int, ...]] = None
        self.frames_shown = 0
        self.saving = SaveState()               # a failed save: why, and when to try again
        # Called after every change (the service: an opponent's move or a command may bring the
        # next deadline forward while its loop sleeps).
        self.on_change: Optional[Callable[[], None]] = None
        self._given_names: Optional[tuple[Optional[str], Optional[str]]] = None
        self._sans = SanCache()
        self._subscribers: list[Callable[[SessionState], None]] = []
        self._dirty = False      # the record must be saved
        self._changed = True     # subscribers must hear of it
        self._match_handlers = {GameStarted: self._on_started, MoveMade: self._on_move,
                                TakenBack: self._on_taken_back, BoardChanged: self._on_board,
                                ProblemFound: self._on_problem, GameOver: self._on_game_over,
                                Reopened: self._on_reopened}
        self._gesture_handlers = {Resign: self._on_resign_gesture, DrawGesture: self._on_draw_gesture,
                                  GestureUndone: self._on_gesture_undone}

    # -- state -----------------------------------------------------------------------------

    @property
    def game(self):
        return self.match.game

    @property
    def live(self) -> bool:
        return self.phase.live

    @property
    def opponent(self) -> Optional[Opponent]:
        return self.seat.opponent

    def _match_config(self, **changes: Any) -> MatchConfig:
        g = self.config.game
        values = dict(rules=g.rules, time_control=g.time_control, fen=g.start_fen(random), chess960=g.chess960,
                      touch_move=g.touch_move, takebacks=g.takebacks and self.seat.assisted,
                      settle_ms=self.config.board.settle_ms, clock_start=g.clock_start)
        values.update(changes)
        return MatchConfig(**values)

    def apply_board_rules(self) -> None:
        """Touch-move as set; takebacks on the board alone only where assistance is allowed."""
        g = self.config.game
        self.match.set_rules(touch_move=g.touch_move, takebacks=g.takebacks and self.seat.assisted)

    def change_config(self, **sections: dict[str, Any]) -> None:
        try:
            self.config = with_overrides(self.config, **sections)
        except ValueError as exc:
            raise SessionError(str(exc)) from None

    # -- input from the board and the passing of time --------------------------------------

    def feed(self, reading: Reading) -> None:
        """A raw reading from the sensors (any thread's reading, handed over on the loop)."""
        self.occupied = reading.occupied
        self._changed = True
        self._handle(self.match.feed(reading), reading.time)
        self._after(reading.time)

    def poll(self, now: float) -> None:
        """Time has passed: settle readings, commit waiting moves, flags, gestures, blinking."""
        self._handle(self.match.poll(now), now)
        if self.live and self.config.gestures.enabled:
            self._gestures(self.gestures.poll(now), now)
        if self.live and self.restart_watch.due(now):
            log.info("the start position set up mid-game: the game is left unfinished, the next one begins")
            self._abandon(now)
            self._begin(now, names=None)
        self._after(now)

    def next_deadline(self, now: float, *, blink: bool = True) -> Optional[float]:
        """When ``poll`` should run next if no reading comes (None: not before a reading)."""
        found = [self.match.next_deadline()]
        if self._dirty:
            found.append(self.saving.deadline())   # a failed save is tried again
        if self.live:
            found.append(self.gestures.next_deadline())
            found.append(self.restart_watch.deadline())
            found.append(self._low_time_deadline(now))
        if blink:
            found.append(next_change(self.feedback_state(now), now, self.style.blink_period))
        found = [d for d in found if d is not None]
        return min(found) if found else None

    def finish(self, now: float) -> None:
        """The input has ended (end of a replay): commit what waits, then save."""
        self._handle(self.match.finish(), now)
        self._after(now)

    def restore(self, now: float) -> bool:
        """Continue the saved game, if any; the LEDs then guide the pieces back. True if restored."""
        record = self.recorder.load()
        if record is None:
            return False
        try:
            match = restore_match(self._match_config(), record, now)
        except Exception as exc:  # noqa: BLE001 - no saved state may stop the board from starting
            self.recorder.set_aside(f"{type(exc).__name__}: {exc}"[:300])
            return False
        self.match = match
        self.record = record
        self.names = (record.white, record.black)
        self.restored_plies = len(record.moves)
        # A finished game: setting up the start position begins the next one.
        self.phase = Phase.CLEARED if self.game.is_over else Phase.RESUMING
        self.problems = []
        self.gestures.reset()
        if not self.game.is_over:
            self.seat.restore_takeovers(record.takeovers)   # the computer plays on for who left
        self.seat.reset()  # it plays on from the restored game
        self._changed = True
        self._dirty = True  # the PGN is written again from the record: a cut may have left it behind
        log.info("restored %s: %d moves%s", record.pgn_name, len(record.moves),
                 f", {record.get_outcome().describe()}" if record.is_over else "")
        self._after(now)
        return True

    # -- what goes out -----------------------------------------------------------------------

    def subscribe(self, callback: Callable[[SessionState], None]) -> Callable[[], None]:
        """Call ``callback(state)`` after every change; returns the function that unsubscribes."""
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            if callback in self._subscribers:
                self._subscribers.remove(callback)
        return unsubscribe

    def snapshot(self, now: Optional[float] = None) -> dict[str, Any]:
        """The whole state as JSON values (firmware.session.state.to_json)."""
        return to_json(self.state(now))

    def state(self, now: Optional[float] = None) -> SessionState:
        """The session at ``now``, typed and frozen (see firmware.session.state)."""
        now = self._now(now)
        game, match, seat = self.game, self.match, self.seat
        feedback = self.feedback_state(now)
        leds = self.leds_frame or frame(feedback, now, self.style)
        remaining, running = self._clocks(now)
        self._sans.update(game)
        g = self.config.game
        over = game.outcome is not None
        opponent = seat.state()
        started = self.phase is not Phase.SETTING_UP
        engine_sides = opponent.sides if opponent.kind is OpponentKind.ENGINE else frozenset()
        notice = self.notice if self.notice is not None and self.notice[2] == len(game.moves) and not over else None
        return SessionState(
            time=now, phase=self.phase, fen=game.fen(), start_fen=game.start_fen, turn=game.turn,
            check=game.position.is_check(), rules=game.rules, moves=tuple(game.moves),
            san_en=tuple(self._sans.en), san_fr=tuple(self._sans.fr), outcome=game.outcome,
            claims=tuple(game.claimable_draws()) if started else (), names=self.names,
            occupied=self.occupied or 0, lifted=feedback.lifted, wrong=feedback.wrong, touched=feedback.touched,
            leds=tuple(leds), expected_move=self.expected_move, takeback_move=self.takeback_move,
            promotion_square=feedback.promotion_square, promotion=self._promotion(feedback),
            next_promotion=match.next_promotion, draw_offer=self.draw_offer,
            takeback_offer=seat.takeback_offer, clocks=remaining if remaining is not None else (None, None),
            running=running, delay_left=self._delay_left(now),
            time_control=str(match.time_control) if seat.online_sync is None else (seat.online_sync.time_control or "-"),
            problems=tuple(self.problems), game_file=self.record.pgn_name if self.record else None,
            link_text=seat.link_text, restored_moves=self.restored_plies,
            can_takeback=started and g.takebacks and len(game.moves) > self.restored_plies and seat.assisted,
            take_over=tuple(side for side in (0, 1) if side not in engine_sides)
            if started and not over and seat.assisted else (),
            settings={"show_legal_squares": g.show_legal_squares, "touch_move": g.touch_move,
                      "takebacks": g.takebacks, "alternate_colours": g.alternate_colours,
                      "time_control": g.time_control, "rules": g.rules, "opponent": seat.choice.value},
            opponent=opponent, leds_problem=self.leds.problem if self.leds is not None else None,
            move_clocks=tuple(self.record.clocks) if self.record else (),
            round=self.record.round if self.record else g.round,
            event=self.record.event if self.record else g.event, save_problem=self.saving.message(),
            gesture=self.gestures.progress(now), corrections=self._corrections(),
            chess960=game.chess960, new_online_game=self.new_online_game, chat=tuple(self.chat_lines),
            notice=notice[0] if notice else None, notice_fr=notice[1] if notice else None,
            first_move_ms=self._first_move_ms(now),
            problems_fr=tuple(self._problems_fr.get(p, p[1]) for p in self.problems))

    def _corrections(self) -> tuple[tuple[Move, str, str], ...]:
        """The moves that explain the board as well as the last one, with their SAN (en, fr)."""
        found = self.match.corrections()
        if not found:
            return ()
        before = self.game.position.copy(stack=True)
        before.pop()
        return tuple((m, san(before, m, "en"), san(before, m, "fr")) for m in found)

    def _first_move_ms(self, now: float) -> Optional[int]:
        """Before both first moves of an online game: the time left before the server aborts it."""
        server = self.seat.server_clock
        if server is None or server.first_move_ms is None or not self.live:
            return None
        return max(0, server.first_move_ms - round((now - server.at) * 1000))

    def _promotion(self, feedback: FeedbackState) -> Optional[Promotion]:
        """A promotion whose piece may be chosen: one just made, or one on its way (a pawn of the
        side to move lifted from the rank before the last: the piece chosen now is its move's)."""
        pos = self.game.position
        if feedback.promotion_square is not None:
            piece = pos.piece_at(feedback.promotion_square)
            return Promotion(feedback.promotion_square, piece.piece_type, piece.color) if piece else None
        if self.game.outcome is not None:
            return None
        seventh = 6 if pos.turn == 0 else 1
        bb = feedback.lifted
        while bb:
            sq = (bb & -bb).bit_length() - 1
            bb &= bb - 1
            piece = pos.piece_at(sq)
            if piece is not None and piece.piece_type == PAWN and piece.color == pos.turn and sq // 8 == seventh:
                return Promotion(None, self.match.next_promotion, pos.turn)
        return None

    # -- lifecycle ----------------------------------------------------------------------------

    async def start_opponent(self, opponent: Optional[Opponent] = None) -> None:
        """Start the opponent (``opponent`` first becomes the session's); failures show as its link."""
        await self.seat.start(opponent)

    async def wait_idle(self) -> None:
        """Wait for the work handed to the loop: an opponent stopping or starting, decisions sent."""
        await self.seat.wait_idle()

    async def aclose(self) -> None:
        """Stop the opponent, wait for the messages sent to it, save. Idempotent."""
        await self.seat.stop()
        if self.record is not None and self._dirty:
            self._save(None)

    # -- commands ------------------------------------------------------------------------------

    @contextlib.contextmanager
    def _command(self, now: Optional[float]) -> Iterator[float]:
        """Run a command at ``now`` (default: the clock); once it succeeds, the LEDs, the saved
        game and the subscribers are brought up to date."""
        now = self._now(now)
        yield now
        self._changed = True
        self._after(now)

    def new_game(self, now: Optional[float] = None, *, time_control: Optional[str] = None,
                 white: Optional[str] = None, black: Optional[str] = None, rules: Optional[str] = None,
                 fen: Optional[str] = None, opponent: Optional[str] = None, engine_side: Optional[str] = None,
                 engine_level: Optional[int] = None, variant: Optional[str] = None,
                 start_position: Optional[int] = None) -> None:
        """Start a new game (abandoning one in progress); it begins when the pieces stand ready.

        ``opponent``: "none" (two players over the board), "engine" or "lichess"; None keeps the
        session's. Against the engine, ``engine_side`` ("white", "black", "alternate") and
        ``engine_level`` (Skill Level 0..20) change ``[engine] side`` and ``level``; a name left
        None for the engine's side is the engine's. The opponent is stopped and started on the
        loop (``await wait_idle()`` waits for it).
        """
        with self._command(now) as now:
            try:
                kind = OpponentKind(opponent) if opponent is not None else None
            except ValueError:
                raise SessionError(f"the opponent is one of {', '.join(k.value for k in OpponentKind)}, "
                                   f"not {opponent!r}") from None
            engine_side_choice(engine_side)
            if time_control is not None and not time_control.strip():
                raise SessionError('enter a time control (e.g. "300+3"), or choose "no clock"')
            if self.seat.online and self.live:
                raise SessionError("a Lichess game is in progress: resign (or finish) it first")
            changes = {k: v for k, v in (("time_control", time_control), ("rules", rules), ("fen", fen),
                                         ("opponent", opponent), ("variant", variant),
                                         ("start_position", start_position)) if v is not None}
            if variant is not None and variant != self.config.game.variant and fen is None:
                changes["fen"] = ""   # a start position of the other variant does not carry over
            engine = {k: v for k, v in (("side", engine_side), ("level", engine_level)) if v is not None}
            sections = {name: values for name, values in (("game", changes), ("engine", engine)) if values}
            if sections:
                self.change_config(**sections)
            if self.live:
                self._abandon(now)
            if kind is not None:
                self.seat.choice = kind
            side = engine_side if engine_side in ("white", "black") else None
            self._begin(now, names=(white, black) if white is not None or black is not None else None,
                        engine_side=side)
            if engine_level is not None:
                self.seat.set_engine_level()

    def set_round(self, white: str, black: str, now: Optional[float] = None, **game: Any) -> None:
        """A club hub's pairing: the players' names (on this game at once, unless it is over) and
        the round's ``[game]`` settings (``time_control``, ``rules``, ``round``, ``event``,
        ``draw_offers_from_move``), which apply from the next game, or to this one while it has
        no move yet. Colours stop alternating: the pairing says who has White."""
        now = self._now(now)
        if self.seat.online and self.live:
            raise SessionError("a Lichess game is in progress: the pairing applies once it is over")
        self.change_config(game={"white": white, "black": black, "alternate_colours": False, **game})
        if self.live and self.game.moves:
            with self._command(now):
                self._set_names((white, black))
                if self.record is not None:
                    self.record.round = self.config.game.round
        elif self.phase is not Phase.SETTING_UP and not self.game.is_over and self.record is not None:
            self.recorder.discard(self.record)   # no move yet: begin again with the round's clock and rules
            self.new_game(now, white=white, black=black)
        else:
            with self._command(now):
                self._begin(now, names=(white, black))

    def resign(self, color: int, now: Optional[float] = None) -> None:
        with self._command(now) as now:
            self._require_live()
            self._handle(self.match.resign(colour(color), now), now)
            self.seat.tell(Action.RESIGN)

    def offer_draw(self, color: int, now: Optional[float] = None) -> None:
        """``color`` offers a draw; an offer already made by the other side is accepted."""
        with self._command(now) as now:
            self._require_live()
            color = colour(color)
            if self.draw_offer == color ^ 1:
                self._agree_draw(now)
                return
            refused = draw_offer_refused(self.game.position.fullmove_number, self.config.game.draw_offers_from_move)
            if refused:
                raise SessionError(refused)
            self.draw_offer = color
            self.seat.tell(Action.OFFER_DRAW)

    def accept_draw(self, color: int, now: Optional[float] = None) -> None:
        with self._command(now) as now:
            self._require_live()
            if self.draw_offer != colour(color) ^ 1:
                raise SessionError("there is no draw offer from the other side to accept")
            self._agree_draw(now)

    def _agree_draw(self, now: float) -> None:
        self._handle(self.match.agree_draw(now), now)
        self.seat.tell(Action.ACCEPT_DRAW)

    def decline_draw(self, color: int, now: Optional[float] = None) -> None:
        with self._command(now):
            if self.draw_offer == colour(color) ^ 1:
                self.draw_offer = None
                self.seat.tell(Action.DECLINE_DRAW)

    def claim_draw(self, now: Optional[float] = None, move: Optional[str | Move] = None) -> None:
        """Claim a draw (threefold, fifty moves), by the move that brings it about if given."""
        with self._command(now) as now:
            self._require_live()
            if isinstance(move, str):
                try:
                    move = parse_move(self.game.position, move)
                except ValueError as exc:
                    raise SessionError(f"cannot claim with {move!r}: {exc}") from None
            try:
                events = self.match.claim_draw(now, move)
            except DrawClaimError as exc:
                raise SessionError(str(exc)) from None
            self._handle(events, now)

    def choose_promotion(self, piece: str | int, now: Optional[float] = None) -> None:
        """The piece of the promotion just made (until the opponent moves), or of the next one."""
        with self._command(now) as now:
            try:
                piece = promotion_piece(piece)
            except ValueError as exc:
                raise SessionError(str(exc)) from None
            if self.live and self.gestures.promotion_square is not None:
                self._change_promotion(piece, now)
            else:
                self._handle(self.match.promote(piece, now), now)

    def _change_promotion(self, piece: int, now: float) -> None:
        try:
            self._handle(self.match.change_promotion(piece, now), now)
        except ValueError:   # the same piece, or the opponent has started: nothing to change
            pass

    def correct(self, move: str | Move, now: Optional[float] = None) -> None:
        """The last move was recorded wrong: replace it by ``move``, one of the other moves that
        explain the board as well (``SessionState.corrections``), while the opponent has not started."""
        with self._command(now) as now:
            self._require_live()
            candidates = self.match.corrections()
            try:
                move = move if isinstance(move, Move) else Move.from_uci(str(move))
            except ValueError:
                move = None
            if move not in candidates:
                names = ", ".join(m.uci() for m in candidates) or "none now"
                raise SessionError(f"that move does not explain the board (the moves that do: {names})")
            try:
                self._handle(self.match.correct(move, now), now)
            except ValueError as exc:
                raise SessionError(str(exc)) from None

    def pause(self, now: Optional[float] = None) -> None:
        """Stop both clocks (an arbiter's stop); moves made meanwhile count, untimed."""
        with self._command(now) as now:
            self._require_live()
            if self.seat.server_clock is not None or self.seat.online:
                raise SessionError("the clocks of an online game are the server's: they cannot be paused here")
            self._handle(self.match.pause(now), now)
            if self.live:   # (the pause's poll may have ended the game: a flag that fell meanwhile)
                self.phase = Phase.PAUSED

    def resume(self, now: Optional[float] = None) -> None:
        """Restart the clock of the side to move."""
        with self._command(now) as now:
            if self.phase is Phase.PAUSED:
                self.phase = Phase.PLAYING
                self._handle(self.match.resume(now), now)

    def takeback(self, now: Optional[float] = None) -> None:
        """Take back the last move (needs ``takebacks``): the game and the clock go back at once,
        and the LEDs show the pieces to put back until the board shows the position before it.

        Online (no assistance allowed) the takeback is proposed to the other side instead; if it
        agrees, its game comes back without the move (``sync_game``).
        """
        with self._command(now) as now:
            if not self.seat.assisted:
                self._require_live()
                if not self.game.moves:
                    raise SessionError("no move to take back")
                self.seat.tell(Action.PROPOSE_TAKEBACK)
                return
            self._require_live(over_ok=self._ended_by_last_move())
            if len(self.game.moves) <= self.restored_plies:
                raise SessionError("no move to take back (moves made before a restart are final)")
            move = self.game.moves[-1]
            try:
                events = self.match.takeback(now)
            except (ValueError, ClockError) as exc:
                raise SessionError(str(exc)) from None
            self._handle(events, now)
            self.takeback_move = move

    def update_settings(self, now: Optional[float] = None, **changes: Any) -> None:
        """Change settings: ``game`` keys (names, time control...), ``leds`` and ``gestures`` keys,
        one by one or as a section (``leds={...}``), and ``engine={"level": 0..20, "elo": 0 or
        500..4000, "move_time": s, "side": "white"|"black"|"alternate"}``.

        Names apply to the current game; time control, rules, the start position and the engine's
        side to the next; touch-move, takebacks, the LED settings at once, and the engine's
        strength from its next move.
        """
        with self._command(now):
            sections = settings_sections(changes)
            self.change_config(**sections)
            self.apply_board_rules()
            if "engine" in sections:
                self.seat.set_engine_level()
            self.style = LedStyle.from_config(self.config.leds)
            self.gestures.resign_s, self.gestures.draw_s = self.config.gestures.resign_s, self.config.gestures.draw_s
            game = sections.get("game", {})
            if "white" in game or "black" in game:
                self._set_names((game.get("white", self.names[0]), game.get("black", self.names[1])))

    def button(self, name: str, now: Optional[float] = None) -> None:
        """A press of the GPIO button ``name`` (see firmware.referee.gestures.BUTTONS): the same as
        the gesture; "promote" changes the piece of the promotion just made."""
        with self._command(now) as now:
            if name == "return":   # a player back at the board takes their side back
                sides = sorted(self.seat.takeovers)
                if not sides:
                    raise SessionError("the computer is not playing for anyone")
                side = self.game.turn if len(sides) > 1 else sides[0]
                self.seat.give_back(side)
                self._keep_takeovers()
                return
            if name == "promote":
                last = self.game.moves[-1] if self.game.moves else None
                if self.live and self.gestures.promotion_square is not None and last is not None and last.promotion:
                    self._change_promotion(next_promotion(last.promotion), now)
                return
            if name not in BUTTONS:
                raise SessionError(f"no button {name!r} (known: {', '.join(sorted(BUTTONS))}, promote, return)")
            if self.live:
                self._gestures([BUTTONS[name]], now)

    def take_over(self, side: Any, now: Optional[float] = None) -> None:
        """The computer plays ``side`` for the rest of the game (its player has to leave). The PGN
        names the player "Name (Stockfish from move N)" and says so at the engine's first move."""
        with self._command(now):
            side = colour(side)
            self._require_live()
            self.seat.take_over(side)
            self._keep_takeovers()

    def give_back(self, side: Any, now: Optional[float] = None) -> None:
        """The player of ``side``, taken over by the computer, is back and plays on themselves
        (their name again on the side, a comment in the PGN)."""
        with self._command(now):
            side = colour(side)
            self._require_live()
            self.seat.give_back(side)
            self._keep_takeovers()

    def _keep_takeovers(self) -> None:
        if self.record is not None:
            self.record.takeovers = self.seat.saved_takeovers()
            self._dirty = True

    def accept_takeback(self, now: Optional[float] = None) -> None:
        """Accept the other side's takeback offer (online): its game comes back with the moves undone."""
        with self._command(now):
            self._require_live()
            self.seat.answer_takeback(Action.ACCEPT_TAKEBACK, "accept")

    def decline_takeback(self, now: Optional[float] = None) -> None:
        with self._command(now):
            self._require_live()
            self.seat.answer_takeback(Action.DECLINE_TAKEBACK, "decline")

    def claim_when_gone(self, what: str, now: Optional[float] = None) -> None:
        """The other player left the game: claim the win (``what`` "victory") or a draw ("draw")."""
        with self._command(now):
            self._require_live()
            if what not in ("victory", "draw"):
                raise ValueError(f"claim 'victory' or 'draw', not {what!r}")
            away = self.seat.away
            if away is None:
                raise SessionError("the other player has not left the game: nothing to claim")
            if away.claim_win_in_seconds:
                raise SessionError(f"the other player may still come back: claim in {away.claim_win_in_seconds} s")
            self.seat.tell(Action.CLAIM_VICTORY if what == "victory" else Action.CLAIM_DRAW)

    def lichess_login(self, token: str, now: Optional[float] = None) -> None:
        """Keep the Lichess API token (scope board:play) and play on Lichess with it."""
        with self._command(now):
            self.seat.lichess_login(token)

    def lichess_logout(self, now: Optional[float] = None) -> None:
        """Forget the Lichess token and stop playing on Lichess."""
        with self._command(now):
            self.seat.lichess_logout()

    def _ended_by_last_move(self) -> bool:
        """The game is over by what the last move made on the board (a mate, a stalemate, a dead
        position, a repetition or move count the rules end by themselves): a takeback undoes it.
        A flag, a resignation or a draw agreed or claimed stands."""
        outcome = self.game.outcome
        if outcome is None:
            return False
        automatic = BOARD_ENDINGS | (CASUAL_ENDINGS if self.game.rules == "casual" else frozenset())
        return outcome.termination in automatic

    def _now(self, now: Optional[float]) -> float:
        return self.clock() if now is None else now

    def _require_live(self, over_ok: bool = False) -> None:
        if self.phase is Phase.SETTING_UP:
            raise SessionError("no game in progress: set up the pieces first")
        if self.game.is_over and not over_ok:
            raise SessionError(f"the game is over ({self.game.outcome.describe()})")

    # -- what the opponent's seat passes on ----------------------------------------------------

    def touch(self) -> None:
        """Something shown changed (the opponent's link, clocks...): publish it."""
        self._changed = True
        self._after(self.clock())

    def add_problem(self, time: float, text: str, fr: Optional[str] = None) -> None:
        """A problem found by the session (a move refused online...), shown like the board's;
        ``fr``: its words in French, when they differ."""
        self.problems.append((time, text))
        if fr is not None:
            self._problems_fr[(time, text)] = fr
        self.touch()

    def forget_expected_move(self) -> None:
        if self.expected_move is not None:
            self.expected_move = self.pending_end = None
            if self.live:
                self.match.expect(None)

    def rename(self, side: int, name: str) -> None:
        names = list(self.names)
        names[side] = name
        self._set_names((names[0], names[1]))

    def comment_once(self, text: str) -> None:
        """A comment after the last move, in the PGN, unless the game has it already."""
        record = self.record
        ply = str(len(self.game.moves))
        if record is not None and text not in record.comments.values():
            record.comments[ply] = f"{record.comments[ply]}; {text}" if ply in record.comments else text
            self._dirty = True

    def opponent_moved(self, move: Move) -> None:
        """The opponent played ``move``: show it and wait for the board to carry it out."""
        if not self.live:
            # Before the pieces stand ready: the game starting tells the opponent again (on_reset).
            log.info("opponent move %s set aside: no game in progress on the board", move.uci())
            return
        try:
            self.match.expect(move, self.clock())
        except ValueError as exc:
            log.error("opponent move refused (%s): the opponent reads the game again", exc)
            self.seat.reset()
            return
        self.expected_move = move
        self.touch()

    def offered(self, offer: Offer) -> None:
        """The other side offers (or withdraws) a draw or a takeback."""
        by = offer.by if offer.active else None
        if offer.kind is OfferKind.DRAW:
            local = self.seat.online_sync.local_colors if self.seat.online_sync is not None else ()
            if not offer.active and offer.by in local and self.draw_offer == offer.by:
                who = self.names[offer.by ^ 1]
                self.notice = (f"{who} declined your draw offer", f"{who} a refusé votre proposition de nulle",
                               len(self.game.moves))
            self.draw_offer = by
        else:
            self.seat.takeback_offer = by
        self.touch()

    def ended_elsewhere(self, end: GameEnd) -> None:
        """The game ended at the other end (mate, resignation, flag, abort...). When the
        opponent's last move is still to be carried out on the board, the end waits for it, so
        that the move is in the game (a mate then ends it on the board by itself)."""
        if not self.live:
            return
        now = self.clock()
        if end.outcome is None:   # aborted over there: void; the board's game is no longer an online one
            self.seat.online_sync = None
            en, fr = void_text(end.status, "en"), void_text(end.status, "fr")
            self.add_problem(now, en, fr)
            self.notice = (en, fr, len(self.game.moves))   # on the page until the next move
            return
        if self.expected_move is not None:
            self.pending_end = end.outcome
            return
        self._end_from_other_side(end.outcome, now)

    def _end_from_other_side(self, outcome: Outcome, now: float) -> None:
        self.pending_end = None
        if not self.live:
            return
        if outcome.termination is Termination.RESIGNATION and outcome.winner is not None:
            self._handle(self.match.resign(outcome.winner ^ 1, now), now)
        elif outcome.termination is Termination.AGREEMENT:
            self._handle(self.match.agree_draw(now), now)
        else:  # a flag, an abort, a claim over there: the other end's word is final
            self._handle(self.match.end(outcome, now), now)
        self._after(now)

    def sync_game(self, sync: GameSync) -> None:
        """The whole game as the other end knows it (joining a game, also one in progress; a
        takeback; a refused move): the session's game becomes it, and the LEDs guide the pieces
        into its position. The same game continued keeps its PGN file.

        The server's clocks are the game's: the board's clock does not run and no flag falls here.
        Board-only takebacks are off.
        """
        now = self.clock()
        seat = self.seat
        moves, current = list(sync.moves), list(self.game.moves)
        previous = seat.online_sync
        same_start = (self.phase is not Phase.SETTING_UP and self.game.start_fen == sync.start_fen
                      and self.game.chess960 == sync.chess960)
        seat.online_sync = sync
        names = tuple(player.name if player is not None and player.name else default
                      for player, default in ((sync.white, self.names[0]), (sync.black, self.names[1])))
        record = self.record
        if previous is not None and same_start and current == moves and not self.game.is_over and record:
            self._set_names(names)   # (the board's game is the server's)
            if self.expected_move is not None:   # the opponent's move, not carried out yet, was taken back
                self.match.expect(None)
                self.expected_move = self.pending_end = None
                self._handle(self.match.reread(now), now)   # the board as it stands, without it
            self.touch()
            return
        continued = continues(record, sync, previous, same_start, current)
        if not continued:
            if record is not None and not record.moves and not record.is_over:
                self.recorder.discard(record)   # the board was only set up: no game to keep
            site = (self.opponent.game_url(sync.game_id) if self.opponent is not None and sync.game_id
                    else None) or self.config.game.site
            record = self.recorder.new_record(self.wall(), names[0], names[1], replay=self.replay,
                                              event=self.config.game.event, site=site, online_id=sync.game_id)
        follow_sync(record, sync, names, self.game.rules, now)
        record.tags = online_tags(sync)
        self.match = synced_match(self._match_config(), sync, now, self.match.debouncer)
        self.record, self.names = record, names
        self.restored_plies = len(moves)   # the other end's moves: final on the board
        self.phase = Phase.OVER if self.game.is_over else Phase.RESUMING
        self.new_online_game = not continued
        if not continued:
            self.chat_lines, self.notice = [], None
        self.expected_move = self.draw_offer = self.takeback_move = self.pending_end = None
        seat.takeback_offer = None
        self.verdict = None
        self.gestures.reset()
        self._dirty = self._changed = True
        self._handle(self.match.reread(now), now)   # the board as it stands, against the new position
        self._after(now)

    def chat_line(self, line: ChatLine) -> None:
        """A chat line of the game (the other player's, or the board's own as the server echoes it)."""
        self.chat_lines = (self.chat_lines + [(str(line.username), str(line.text))])[-CHAT_KEPT:]
        self.touch()

    def move_refused(self, move: Move, reason: str) -> None:
        """The other end refused a move of the board: it is taken back like an illegal move, the
        LEDs showing the squares to put right (the other end's game follows with ``sync_game``)."""
        now = self.clock()
        game = self.game
        last = game.moves[-1] if game.moves else None
        who = "Lichess" if self.seat.kind is OpponentKind.LICHESS else ""
        before = None
        if self.live and last == move and len(game.moves) > self.restored_plies:
            before = game.position.copy(stack=True)
            before.pop()
            self._handle(self.match.undo(now), now)
            self.takeback_move = move
        log.warning("%s refused %s: %s", who or "the other end", move.uci(), reason)
        self.add_problem(now, refused_text(who, move, reason, "en", before), refused_text(who, move, reason, "fr", before))

    # -- match events ------------------------------------------------------------------------

    def _handle(self, events: Sequence[Any], now: float) -> None:
        for event in events:
            self._match_handlers[type(event)](event, now)

    def _on_started(self, event: GameStarted, now: float) -> None:
        game = self.game
        g = self.config.game
        self.seat.name_engine_sides(self._given_names)
        self.record = self.recorder.new_record(
            self.wall(), self.names[0], self.names[1], start_fen=game.start_fen, rules=game.rules,
            variant="chess960" if game.chess960 else "standard", time_control=str(self.match.time_control), event=g.event, site=g.site, round=g.round,
            replay=self.replay)
        self._note(event.time)
        self.phase = Phase.PLAYING
        self.restored_plies = 0
        self.gestures.reset()
        self.expected_move = None
        self.draw_offer = None
        self.seat.reset()

    def _on_move(self, event: MoveMade, now: float) -> None:
        mover = self.game.turn ^ 1
        self._note(event.time)
        self.takeback_move = None
        if event.move.promotion:
            self.gestures.promotion_made(event.move.to_square)
        else:
            self.gestures.promotion_closed()
        if not event.amended and self.draw_offer is not None and self.draw_offer != mover:
            self.draw_offer = None  # an offer is declined by moving
        if not event.amended:
            self.seat.takeback_offer = None
        own = self.expected_move is not None and event.move == self.expected_move
        if own:
            self.expected_move = None
            self.seat.comment_takeover(mover)
        if event.amended:
            self.seat.reset()
        else:  # its own move too, once carried out: an engine playing both sides waits for it
            self.seat.on_move(event.move)
        if own and self.pending_end is not None:
            self._end_from_other_side(self.pending_end, now)

    def _on_taken_back(self, event: TakenBack, now: float) -> None:
        if self.phase.over and not self.game.is_over:
            self.phase = Phase.PLAYING   # a takeback reopened the game
            if self.record is not None:
                self.record.set_outcome(None)
        self._note(event.time)
        self.gestures.promotion_closed()
        self.seat.reset()

    def _on_board(self, event: BoardChanged, now: float) -> None:
        self.verdict = event.verdict
        if event.verdict.kind is VerdictKind.ILLEGAL:
            self._reword_board_problem()   # still wrong, maybe otherwise: say what to do now
        else:
            self._board_problem = None
        if event.verdict.kind is VerdictKind.STABLE:
            if self.phase is Phase.RESUMING:
                self.phase = Phase.PLAYING
            self.takeback_move = None
        self._changed = True

    def _on_problem(self, event: ProblemFound, now: float) -> None:
        board, pos = self.match.debouncer.settled, self.game.position
        if self.config.gestures.enabled and board is not None and gesture_forming(
                board.occupied, pos.occupied, (pos.king[0], pos.king[1])):
            return   # the kings on their way to the centre: a gesture, not a wrong board
        log.warning("%s", event.message)
        text = event.text or event.message
        verdict = self.match.last_verdict
        if board is not None and verdict is not None and verdict.kind is VerdictKind.ILLEGAL:
            # what to do, in the players' words (SAN, pieces by name), instead of squares that differ
            text = illegal_text(pos, board.occupied, "en")
            self._problems_fr = {p: t for p, t in self._problems_fr.items() if p in self.problems}
            self._problems_fr[(event.time, text)] = illegal_text(pos, board.occupied, "fr")
            self._board_problem = (event.time, text)
        self.problems.append((event.time, text))

    def _reword_board_problem(self) -> None:
        """The board changed while wrong (a piece added, say): its problem, the same one, says what
        to do with the board as it is now, in both languages."""
        key, board = self._board_problem, self.match.debouncer.settled
        if key is None or board is None or key not in self.problems:
            return
        pos = self.game.position
        new = (key[0], illegal_text(pos, board.occupied, "en"))
        self.problems[self.problems.index(key)] = new
        self._problems_fr[new] = illegal_text(pos, board.occupied, "fr")
        self._board_problem = new

    def _on_game_over(self, event: GameOver, now: float) -> None:
        if self.record is not None:
            self.record.set_outcome(event.outcome)
        self._note(event.time)
        self.phase = Phase.OVER
        if not self.gestures.undoable(now):   # a result set by a gesture may be taken back a while
            self.gestures.reset()
        self.expected_move = None
        self.draw_offer = None
        self.takeback_move = None
        self.seat.end_game()
        log.info("game over: %s", event.outcome.describe())

    def _on_reopened(self, event: Reopened, now: float) -> None:
        if self.record is not None:
            self.record.set_outcome(None)
        self._note(event.time)
        self.phase = Phase.PLAYING
        self.seat.reset()
        log.info("result taken back: the game goes on")

    def _note(self, time: float) -> None:
        """Copy the game into the record; it is saved once the LEDs are out."""
        record, match = self.record, self.match
        if record is None:
            return
        record.moves = [m.uci() for m in match.game.moves]
        if any(int(ply) > len(record.moves) for ply in record.comments):   # after a takeback
            record.comments = {ply: text for ply, text in record.comments.items() if int(ply) <= len(record.moves)}
        record.clocks = list(match.clocks_after_move)
        remaining = match.remaining(time)
        record.remaining = list(remaining) if remaining is not None else None
        record.event_time = time
        self._dirty = True
        self._changed = True

    def _set_names(self, names: tuple[str, str]) -> None:
        self.names = names
        if self.record is not None:
            self.record.white, self.record.black = names
            self._dirty = True

    # -- gestures ------------------------------------------------------------------------------

    def _gestures(self, found: Sequence[Any], now: float) -> None:
        for gesture in found:
            if self.live or isinstance(gesture, GestureUndone):
                self._gesture_handlers[type(gesture)](gesture, now)

    def _on_resign_gesture(self, gesture: Resign, now: float) -> None:
        log.info("gesture: %s resigns", SIDE_WORDS[gesture.color])
        self._handle(self.match.resign(gesture.color, now), now)
        self.seat.tell(Action.RESIGN)

    def _on_draw_gesture(self, gesture: DrawGesture, now: float) -> None:
        turn = self.game.turn
        decision = draw_decision(gesture, bool(self.game.claimable_draws()), self.draw_offer == turn ^ 1,
                                 self.opponent is not None)
        if decision == "claim":
            log.info("gesture: draw claimed")
            self._handle(self.match.claim_draw(now), now)
        elif decision == "accept":
            log.info("gesture: draw offer accepted")
            self._agree_draw(now)
        elif refused := draw_offer_refused(self.game.position.fullmove_number, self.config.game.draw_offers_from_move):
            fr = draw_offer_refused(self.game.position.fullmove_number, self.config.game.draw_offers_from_move, "fr")
            self.add_problem(now, refused, fr)
            self.notice = (refused, fr or refused, len(self.game.moves))   # shown on the page until the next move
        elif decision == "agree":
            log.info("gesture: draw agreed over the board")
            self._handle(self.match.agree_draw(now), now)
        else:
            log.info("gesture: %s offers a draw", SIDE_WORDS[turn])
            self.draw_offer = turn
            self._changed = True
            self.seat.tell(Action.OFFER_DRAW)

    def _on_gesture_undone(self, gesture: GestureUndone, now: float) -> None:
        if self.seat.online or not self.game.is_over:
            return   # (a server's result is final)
        try:
            self._handle(self.match.reopen(now), now)
        except ValueError:
            return

    # -- after every input: new games, LEDs, saving, subscribers ------------------------------

    def _after(self, now: float) -> None:
        self._watch_settled(now)
        leds = frame(self.feedback_state(now), now, self.style)
        if self.saving.error is not None:
            leds = mark_leds(leds, self.style.check)
        if leds != self.leds_frame:
            self.leds_frame = leds
            self._changed = True
            if self.leds is not None:
                self.leds.show(leds)
                self.frames_shown += 1
        if self._dirty and self.saving.due(now):
            self._save(now)
            if self.saving.error is not None and self.leds is not None and self.leds_frame != (
                    marked := mark_leds(self.leds_frame or leds, self.style.check)):
                self.leds_frame = marked
                self.leds.show(marked)
        if self._changed and self._subscribers:
            self._changed = False
            state = self.state(now)
            for callback in list(self._subscribers):
                try:
                    callback(state)
                except Exception:  # a page that fails must not stop the board
                    log.exception("state subscriber failed")
        if self.on_change is not None:
            self.on_change()

    def _watch_settled(self, now: float) -> None:
        settled = self.match.debouncer.settled
        if settled is None or settled is self.settled:
            return
        self.settled = settled
        self._changed = True
        if self.config.gestures.enabled and (self.live or self.gestures.undoable(now)):
            pos = self.game.position
            found = self.gestures.observe(settled.time, settled.occupied, pos.occupied,
                                          (pos.king[0], pos.king[1]), pos.turn, settled.white, settled.black)
            self._gestures(found, now)
        if self.live:
            start = self._start_position()
            self.restart_watch.observe(settled.time, at_start(
                settled.occupied, settled.white, settled.black, start.occupied, start.bb_color[0],
                start.bb_color[1], self.game.position.occupied) and not self.seat.online)
            return
        if self.phase.over:
            start = Position(self.config.game.fen or STARTING_FEN, chess960=self.config.game.chess960).occupied
            if settled.occupied != start:
                self.phase = Phase.CLEARED
            elif self.phase is Phase.CLEARED:
                self._begin(now, names=None)

    def _start_position(self) -> Position:
        return Position(self.config.game.fen or STARTING_FEN, chess960=self.config.game.chess960)

    def _abandon(self, now: float) -> None:
        """The game in progress is left unfinished: "*" with its moves so far, marked abandoned
        (PGN Termination "abandoned") for the library; one without a move leaves no file."""
        record = self.record
        if record is None:
            return
        if record.moves:
            record.tags = {**record.tags, "Termination": "abandoned"}
            self._note(now)
            self._save(now)
        else:
            self.recorder.discard(record)
        self.recorder.forget_current()
        self.record = None

    def _begin(self, now: float, names: Optional[tuple[Optional[str], Optional[str]]], *,
               engine_side: Optional[str] = None) -> None:
        """Set up the next game; the match starts it once the board shows the start position.

        ``engine_side`` chooses the engine's side; take-overs end with the game that had them.
        """
        previous, seat = self.match, self.seat
        self.record = None
        was_engine = seat.kind is OpponentKind.ENGINE
        before = (seat.engine_sides if was_engine else frozenset(), seat.name_of_engine() if was_engine else None)
        for side, takeover in seat.takeovers.items():
            self.names = tuple(takeover.player if c == side else self.names[c] for c in (0, 1))
        seat.new_game()
        seat.prepare(seat.choice, engine_side, before[0] if previous.started else None)
        self._given_names = names
        if names is not None:
            self.names = (names[0] or self.config.game.white, names[1] or self.config.game.black)
        elif previous.started:
            engine_now = seat.kind is OpponentKind.ENGINE
            if (was_engine and engine_now and seat.engine_sides != before[0]) or (
                    not (was_engine and engine_now) and self.config.game.alternate_colours):
                self.names = (self.names[1], self.names[0])
        for side in before[0] - seat.engine_sides:   # the engine's name off a side it left
            if self.names[side] == before[1]:
                self.rename(side, (self.config.game.white, self.config.game.black)[side])
        seat.name_engine_sides(names)
        self.match = Match(self._match_config(), debouncer=previous.debouncer)
        self.phase = Phase.SETTING_UP
        self.verdict = None
        self.restored_plies = 0
        self.expected_move = None
        self.draw_offer = None
        self.takeback_move = None
        self.pending_end = None
        self.problems = []
        self.gestures.reset()
        self.restart_watch.reset()
        self.settled = None
        self._changed = True
        arrange = 0
        if self.match.game.chess960:   # the pieces to rearrange from the last start position (LEDs show them)
            arrange = rearranged(previous.game.start_position(), self.match.game.start_position())
        self._handle(self.match.new_game(now, arrange=arrange), now)

    def _save(self, now: Optional[float] = None) -> None:
        """Save the record; if that fails the moves stay in memory, the players are told (page and
        LEDs) and the save is tried again (firmware.session.saving)."""
        self._dirty = False
        if self.record is None:
            return
        had_error = self.saving.error is not None
        try:
            self._sans.update(self.game)   # extended by the moves since the last change: no replay
            self.recorder.save(self.record, self.game, self._sans.en)
        except Exception as exc:  # noqa: BLE001 - a full disk or a bad record must not stop the board
            self._dirty = True
            self.saving.failed(exc, now if now is not None else self.clock())
            self._changed = True
            return
        if had_error:
            self.saving.succeeded()
            self._changed = True

    # -- LED state and clocks --------------------------------------------------------------------

    def feedback_state(self, now: float) -> FeedbackState:
        game = self.game
        lifted = wrong = 0
        touched = None
        if self.phase is Phase.SETTING_UP:
            if self.settled is not None:
                wrong = (self.settled.occupied ^ game.position.occupied) | self.match.to_arrange
        elif not game.is_over and self.verdict is not None:
            kind = self.verdict.kind
            if kind is VerdictKind.LIFTED:
                lifted = self.verdict.lifted
            elif kind is VerdictKind.ILLEGAL:
                wrong = self.verdict.wrong
            elif kind is VerdictKind.TOUCHED:
                touched = self.verdict.square
        live = self.live
        hold = self.gestures.hold if live else None
        show_hold = hold is not None and not hold.fired
        progress = self.gestures.progress(now) if show_hold else None
        return FeedbackState(
            position=game.position, lifted=lifted, wrong=wrong,
            last_move=game.moves[-1] if game.moves else None, opponent_move=self.expected_move,
            promotion_square=self.gestures.promotion_square if live else None,
            outcome=game.outcome if self.phase is not Phase.SETTING_UP or game.is_over else None,
            low_time=self._low_time(now), touched=touched,
            show_legal=self.config.game.show_legal_squares and self.seat.assisted,
            held=hold.squares if show_hold else 0, held_kind=hold.kind if show_hold else "",
            held_progress=progress.fraction if progress is not None else 0.0,
            draw_offer=self.draw_offer is not None and live)

    def _clocks(self, now: float) -> tuple[Optional[tuple[int, int]], Optional[int]]:
        """Both clocks (ms) and the running side: the server's in an online game, else the board's."""
        server = self.seat.clocks(now)
        if server is not None:
            return server
        if self.phase is Phase.SETTING_UP:
            return None, None
        running = self.match.running_side() if self.phase is not Phase.PAUSED else None
        return self.match.remaining(now), running

    def _low_time(self, now: float) -> Optional[int]:
        if not self.live:
            return None
        remaining, side = self._clocks(now)
        if side is None or remaining is None or remaining[side] > self.config.leds.low_time_s * 1000:
            return None
        return side

    def _low_time_deadline(self, now: float) -> Optional[float]:
        remaining, side = self._clocks(now)
        threshold = self.config.leds.low_time_s * 1000
        if side is None or remaining is None or remaining[side] <= threshold:
            return None
        return now + (remaining[side] - threshold) / 1000

    def _delay_left(self, now: float) -> int:
        clock = self.match.clock
        if self.seat.server_clock is not None or not self.live or clock.running_side is None:
            return 0
        return clock.delay_left(max(int(round(now * 1000)), clock.last_time_ms or 0))


__all__ = ["Session", "SessionError"]
