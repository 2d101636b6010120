"""The opponent's seat at the board: which opponent plays, its lifecycle, its link, and its parts: the take-overs and the Lichess account.

The seat is a component of :class:`~firmware.session.session.Session` with its own state: the
opponent (None: two players over the board), the kind new games get, the sides the engine plays
by choice, the take-overs of this game, the link's health, the online game and its clocks, the
other side's offers and absence. The opponent talks to the seat through a listener made for it
alone (:class:`_Listener`), so a replaced opponent still winding down is not heard; what changes
the board's game (a move to carry out, a game synced, an end) goes on to the session's
:class:`~firmware.session.other_side.OtherSide`. Background work (starting, stopping, decisions sent) runs on the loop and is kept until
done (``wait_idle``).
"""
from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Callable
import contextlib
import dataclasses
import logging

from chess_core import BLACK, WHITE, Move

from firmware.config import OpponentKind
from firmware.opponents.base import (Action, ActionNotSupported, ChallengeEvent, ChatLine, ClockTimes, GameEnd, GameSync, LinkState, Offer,
                                     Opponent, OpponentGone, OpponentListener, ServerClock)
from firmware.opponents.factory import build_engine, build_lichess, engine_side, kind_of
from firmware.session.commands import SessionError, rename
from firmware.session.door import News
from firmware.session.effects import Keep, Publish
from firmware.session.lichess_account import LichessAccount
from firmware.session.state import OpponentState, Takeover
from firmware.session.takeovers import Takeovers
from firmware.words import Message
from firmware.words.message import English

if TYPE_CHECKING:
    from firmware.session.session_view import SessionView



log = logging.getLogger(__name__)


# A decision the opponent could not carry to the other end, as the page says it (firmware.words).
ACTION_WORDS = {Action.RESIGN: "action_resign", Action.ABORT: "action_abort", Action.OFFER_DRAW: "action_offer_draw",
                Action.ACCEPT_DRAW: "action_accept_draw", Action.DECLINE_DRAW: "action_decline_draw",
                Action.PROPOSE_TAKEBACK: "action_propose_takeback", Action.ACCEPT_TAKEBACK: "action_accept_takeback",
                Action.DECLINE_TAKEBACK: "action_decline_takeback", Action.CLAIM_VICTORY: "action_claim_victory",
                Action.CLAIM_DRAW: "action_claim_draw"}


class _Listener(OpponentListener):
    """What one opponent tells the seat, heard only while that opponent is the seat's."""

    def __init__(self, seat: "OpponentSeat", opponent: Opponent) -> None:
        self._seat = seat
        self._opponent = opponent

    def _hear(self, handler: Callable[..., None], *args: Any) -> None:
        """The opponent's news, carried out on the board's loop through the session's door while
        this opponent is still the seat's."""
        self._seat.session.door.post(News(self._deliver, (handler, args)))

    def _deliver(self, handler: Callable[..., None], args: tuple[Any, ...]) -> None:
        if self._seat.opponent is self._opponent:
            handler(*args)

    def opponent_move(self, move: Move) -> None:
        self._hear(self._move_heard, move, self._seat.resets)

    def _move_heard(self, move: Move, resets: int) -> None:
        if self._seat.resets == resets:   # (else found for the game before it was read again: stale)
            self._seat.session.other_side.opponent_moved(move)
        else:
            log.info("opponent move %s set aside: the game changed since it was found", move.uci())

    def game_sync(self, sync: GameSync) -> None:
        self._hear(self._seat.session.other_side.sync_game, sync)

    def clock_sync(self, clock: ServerClock) -> None:
        self._hear(self._seat.clock_synced, clock)

    def offer(self, offer: Offer) -> None:
        self._hear(self._seat.session.other_side.offered, offer)

    def move_rejected(self, move: Move, reason: str) -> None:
        self._hear(self._seat.session.other_side.move_refused, move, reason)

    def game_over(self, end: GameEnd) -> None:
        self._hear(self._seat.session.other_side.ended_elsewhere, end)

    def chat(self, line: ChatLine) -> None:
        self._hear(self._seat.session.other_side.chat_line, line)

    def challenge(self, event: ChallengeEvent) -> None:
        pass   # (challenges are the Lichess account's business, not the board's game)

    def opponent_gone(self, gone: OpponentGone) -> None:
        self._hear(self._seat.gone, gone)

    def link(self, state: LinkState, detail: str = "") -> None:
        self._hear(self._seat.linked, state, detail)


class OpponentSeat:
    """The opponent's side of one board's session; see the module docstring."""

    def __init__(self, session: SessionView, opponent: Opponent | None) -> None:
        self.session = session
        self.opponent = opponent
        self.choice = kind_of(opponent) if opponent is not None else OpponentKind.NONE
        self.engine_sides = self._sides_of(opponent)          # the sides the engine plays by choice
        self.takeovers = Takeovers(self)                       # side -> the engine's Takeover, this game
        self.lichess = LichessAccount(self)                    # the Lichess token kept, or forgotten
        self.link_state: LinkState | None = None
        self.link_detail = ""
        self.online_sync: GameSync | None = None           # the last GameSync while the game is online
        self.engine_label: str | None = None               # the engine's name as the players' names bear it
        self.server_clock: ServerClock | None = None       # the clocks of an online game
        self.takeback_offer: int | None = None             # the side whose takeback offer is pending
        self.away: OpponentGone | None = None              # the other player, while away
        self.resets = 0                                    # how many times the opponent read the game again
        self._tasks: set[asyncio.Task] = set()

    # -- what the session asks -------------------------------------------------------------------

    @property
    def kind(self) -> OpponentKind:
        return kind_of(self.opponent)

    @property
    def online(self) -> bool:
        """The game on the board is an online one (synced from the other end, or one saved before a
        restart whose server has not spoken yet)."""
        return self.online_sync is not None or self._online_record()

    def _online_record(self) -> bool:
        record = self.session.file.record
        return self.online_sync is None and record is not None and bool(record.online_id) and not record.is_over

    @property
    def assisted(self) -> bool:
        """Whether engine help, hints and board takebacks may be used: not in an online game (one
        that the other end synced, against an opponent that allows no assistance; or one restored
        from before a restart, until its server speaks)."""
        if self._online_record():
            return False
        return self.online_sync is None or self.opponent is None or self.opponent.assistance_allowed

    @property
    def link_text(self) -> str | None:
        if self.link_state is None:
            return None
        return f"{self.link_state.value}{': ' + self.link_detail if self.link_detail else ''}"

    def name_of_engine(self) -> str:
        return str(self.opponent.name if self.opponent is not None else "") or "Engine"

    def on_move(self, move: Move) -> None:
        """A move committed on the board (its own too, once carried out); not during a training
        (a drill's game has no opponent: firmware.session.trainer)."""
        if self.opponent is not None and self.session.board_state.training is None:
            self.opponent.on_move(move)

    def reset(self) -> None:
        """The game changed otherwise than by a move: the opponent reads it again (a move it
        announced before, still on its way to the loop, is then left out); not during a training."""
        self.resets += 1
        if self.opponent is not None and self.session.board_state.training is None:
            game = self.session.game
            self.opponent.on_reset(game.start_fen, list(game.moves))

    def tell(self, action: Action) -> None:
        """Carry a decision to the other end, in the background; nothing between online games or
        without a loop (the board then decides alone)."""
        opponent = self.opponent
        if opponent is None or (not opponent.assistance_allowed and self.online_sync is None):
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:   # no loop (synchronous use): the board decides alone
            return
        self.keep(loop.create_task(self._act(opponent, action)))

    def keep(self, task: asyncio.Task) -> None:
        """Hold a reference to a background task until it is done (``wait_idle`` waits for them)."""
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def wait_idle(self) -> None:
        """Wait for the work handed to the loop: an opponent stopping or starting, decisions sent."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def end_game(self) -> None:
        """The game ended: offers lapse."""
        self.takeback_offer = None

    def new_game(self) -> None:
        """Before the next game: it is the board's until a server's arrives; take-overs end."""
        self.server_clock = self.online_sync = None
        self.takeback_offer = None
        self.takeovers.clear()

    # -- lifecycle ------------------------------------------------------------------------------

    async def start(self, opponent: Opponent | None = None) -> None:
        """Start the opponent (``opponent`` first takes the seat). A failure to start (no engine at
        that path...) shows as the link state; it is never raised."""
        if opponent is not None and opponent is not self.opponent:
            self.opponent = opponent
            self.choice = kind_of(opponent)
            self.engine_sides = self._sides_of(opponent)
        if self.opponent is None and self.takeovers and self.assisted:   # a take-over saved before a restart
            game = self.session.game
            self.opponent = build_engine(self.session.config, frozenset(self.takeovers),
                                         start_fen=game.start_fen, moves=game.moves)
            self.engine_sides = frozenset()
        if self.opponent is not None:
            self.takeovers.resume()
            self._prepare(self.opponent)
            await self._launch(self.opponent)

    def closing(self) -> None:
        """A stop has begun (the service's, at once: a signal): the opponent starts nothing new."""
        if self.opponent is not None:
            self.opponent.closing()

    async def stop(self) -> None:
        self.closing()
        await self.wait_idle()
        opponent, self.opponent = self.opponent, None
        if opponent is not None:
            await opponent.stop()

    def _prepare(self, opponent: Opponent) -> None:
        """Before ``opponent`` starts: its clock, the board's rules, the game it plays on from."""
        session = self.session
        opponent.use_clock(self.engine_times)
        session.apply_board_rules()
        if session.referee.started and self.online_sync is None and self.opponent is opponent:
            self.reset()   # it plays on from the game on the board (a restored one...)
        record = session.file.record
        if record is not None and record.online_id and not record.is_over:
            opponent.resume(record.online_id)  # an online game cut by a restart: the server says how it stands

    async def _launch(self, opponent: Opponent) -> None:
        try:
            await opponent.start(_Listener(self, opponent))
        except Exception as exc:
            log.error("the opponent %s did not start: %s", opponent.name, exc)
            self.session.door.post(News(self._not_started, (opponent, str(exc))))

    def _not_started(self, opponent: Opponent, detail: str) -> None:
        if self.opponent is opponent and self.link_state is not LinkState.FAILED:
            self.linked(LinkState.FAILED, detail)

    def use(self, new: Opponent | None, sides: frozenset | None = None) -> None:
        """Replace the opponent: the old one stops, then the new one starts, on the loop."""
        old = self.opponent
        if new is old:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            raise SessionError("opponent_needs_service") from None
        self.opponent = new
        self.engine_sides = self._sides_of(new) if sides is None else sides
        self.link_state, self.link_detail = None, ""
        self.takeback_offer = self.away = None
        self.session.other_side.forget_expected_move()   # the old opponent's move: nobody waits for it now
        self.session.apply_board_rules()
        self.keep(loop.create_task(self._swap(old, new), name="session-opponent"))

    async def _swap(self, old: Opponent | None, new: Opponent | None) -> None:
        if old is not None:
            try:
                await old.stop()
            except Exception:
                log.exception("stopping the opponent %s", old.name)
        self.session.door.post(News(self._swapped, (new,)))

    def _swapped(self, new: Opponent | None) -> None:
        """The old opponent has stopped (on the loop): the new one starts, if it is still the seat's."""
        if new is not None and self.opponent is new:
            self._prepare(new)
            self.keep(asyncio.get_running_loop().create_task(self._launch(new), name="session-opponent"))
        self.session.publish()

    def prepare(self, kind: OpponentKind, side: str | None, previous: frozenset | None) -> None:
        """Before a new game: the opponent of ``kind``, kept when it is already that one (an engine
        then plays its sides again). ``side`` ("white", "black"): the engine's side asked for;
        else ``[engine] side`` ("alternate": the other than before)."""
        current = self.kind
        config = self.session.config
        if kind is OpponentKind.NONE:
            self.use(None)
            return
        if kind is OpponentKind.LICHESS:
            if current is not OpponentKind.LICHESS:
                self.use(build_lichess(config))
            return
        if side is not None:
            sides = frozenset({engine_side(side)})
        elif config.engine.side == "alternate" and previous:
            sides = frozenset({engine_side("alternate", previous=min(previous))})
        elif current is OpponentKind.ENGINE and self.engine_sides:
            sides = self.engine_sides
        else:
            sides = frozenset({engine_side(config.engine.side)})
        if current is not OpponentKind.ENGINE:
            self.use(build_engine(config, sides), sides)
        else:
            opponent = self.opponent
            if opponent is not None and sides != frozenset(opponent.sides):
                opponent.set_sides(sides)
            self.engine_sides = sides

    def set_engine_level(self) -> None:
        # The engine's and Lichess's modules are imported when used (start-up time and memory).
        from firmware.opponents.engine.levels import Level
        if self.opponent is not None:
            self.opponent.set_level(Level.from_config(self.session.config.engine))

    @staticmethod
    def _sides_of(opponent: Opponent | None) -> frozenset[int]:
        if opponent is None or kind_of(opponent) is not OpponentKind.ENGINE:
            return frozenset()
        return frozenset(opponent.sides)

    # -- what the opponent says that stays here ---------------------------------------------------

    def follow(self, sync: GameSync | None) -> None:
        """The online game as the other end last sent it (None: it is no longer an online game,
        voided over there)."""
        self.online_sync = sync

    def takeback_offered(self, by: int | None) -> None:
        """The side whose takeback offer stands (None: none; a move declines it)."""
        self.takeback_offer = by

    def clock_synced(self, clock: ServerClock) -> None:
        """The other end's clocks, which are the game's: counted down here between events,
        re-stamped with the session's own time (the opponent may read another clock)."""
        self.server_clock = dataclasses.replace(clock, at=self.session.clock())
        self.session.publish()

    def linked(self, state: LinkState, detail: str = "") -> None:
        """The health of the link to the opponent (connecting, connected, failed...)."""
        self.link_state = LinkState(state)
        self.link_detail = detail or ""
        if self.link_state is LinkState.CONNECTED and self.kind is OpponentKind.ENGINE:
            self._engine_named()
        if self.link_state is LinkState.RECONNECTING and self.kind is OpponentKind.ENGINE:
            # (its process ended: killed for memory, a crash, a hang; it is being started again)
            told = self.session.board_state.play.told(Message.of("engine_restarted"), len(self.session.game.moves))
            self.session.carry_out([Keep(play=told)], self.session.clock())
        self.session.publish()

    def _engine_named(self) -> None:
        """The engine said its own name (UCI id name): the players it plays for and its take-overs
        take it, so that the page, the PGN and the log say one name."""
        name = self.name_of_engine()
        old, self.engine_label = self.engine_label, name
        for side in sorted(self.engine_sides - set(self.takeovers)):
            if old is not None and old != name and self.session.board_state.names[side] == old:
                rename(self.session, side, name)
        for side, takeover in sorted(self.takeovers.items()):
            if takeover.engine != name:
                self.takeovers[side] = dataclasses.replace(takeover, engine=name)
                rename(self.session, side, self.takeovers[side].player_tag())

    def gone(self, gone: OpponentGone) -> None:
        """The other player left (or came back)."""
        self.away = gone if gone.gone else None
        self.session.publish()

    async def _act(self, opponent: Opponent, action: Action) -> None:
        try:
            await opponent.act(action)
        except ActionNotSupported:   # this opponent has no such thing: decided on the board alone
            pass
        except Exception as exc:
            log.warning("the opponent could not take %s: %s", action, exc)
            self.session.door.post(News(self._not_taken, (action, str(exc))))

    def _not_taken(self, action: Action, detail: str) -> None:
        said = Message.of("not_taken", action=Message.of(ACTION_WORDS[action]), detail=English(detail))
        play = self.session.board_state.play.with_problem(self.session.clock(), said)
        self.session.carry_out([Keep(play=play), Publish()], self.session.clock())

    def adopt(self, kind: OpponentKind, sides: frozenset[int]) -> None:
        """Before the opponent starts (a restart's new game chosen before it): the opponent of
        ``kind`` (playing ``sides``, an engine) takes the seat, to start with ``start``; one not
        of that kind, built but not started, is stopped on the loop."""
        config = self.session.config
        old = self.opponent
        if kind is not self.kind:
            new = (None if kind is OpponentKind.NONE else build_lichess(config)
                   if kind is OpponentKind.LICHESS else build_engine(config, sides))
            self.opponent = new      # (built first: one that cannot be built changes nothing)
            if old is not None:
                with contextlib.suppress(RuntimeError):   # (no loop: nothing of it runs)
                    self.keep(asyncio.get_running_loop().create_task(old.stop()))
        elif self.opponent is not None and kind is OpponentKind.ENGINE and sides:
            self.opponent.set_sides(sides)
            self.set_engine_level()
        self.choice = kind
        self.engine_sides = sides if kind is OpponentKind.ENGINE else frozenset()

    def choose(self, kind: OpponentKind) -> None:
        """``kind`` is the opponent of the games to come (the session's ``[game] opponent``)."""
        self.choice = kind
        self.session.change_config(game={"opponent": kind.value})

    # -- what the engine and the page are told --------------------------------------------------

    def engine_times(self) -> ClockTimes | None:
        """The clock as UCI ``go`` wants it (None without a clock: the level's move time counts)."""
        session = self.session
        referee = session.referee
        clocks = referee.clocks(session.clock()) if referee.started else None
        remaining = clocks.remaining if clocks is not None else None
        if clocks is None or remaining is None:
            return None
        made, control = clocks.moves_made, referee.time_control
        increments = [0, 0]
        moves_to_go = None
        if control.periods:
            for side in (WHITE, BLACK):
                increments[side] = control.period_for_move(made[side] + 1).engine_increment_ms
            first = made[session.game.turn] + 1
            if control.period_for_move(first).moves is not None:
                last = first
                while not control.time_added_after(last):
                    last += 1
                moves_to_go = last - first + 1
        return ClockTimes(remaining[WHITE], remaining[BLACK], increments[WHITE], increments[BLACK], moves_to_go)

    def name_engine_sides(self, given: tuple[str | None, str | None] | None) -> None:
        """The sides the engine plays by choice bear its name, unless a name was given for them."""
        if self.kind is not OpponentKind.ENGINE:
            return
        self.engine_label = self.name_of_engine()
        for side in self.engine_sides:
            if side not in self.takeovers and not (given is not None and given[side]):
                rename(self.session, side, self.engine_label)

    def state(self) -> OpponentState:
        opponent = self.opponent
        kind = self.kind
        if kind is OpponentKind.LICHESS and self.online_sync is not None:
            sides = frozenset({WHITE, BLACK} - set(self.online_sync.local_colors))
        else:
            sides = frozenset(opponent.sides) if opponent is not None else frozenset()
        takeovers = tuple(Takeover(side, t.player, t.engine, t.from_move, t.player_tag())
                          for side, t in sorted(self.takeovers.items()))
        away = self.away
        return OpponentState(
            kind=kind, name=opponent.name if opponent is not None else None, sides=sides,
            link=self.link_state.value if self.link_state is not None else None,
            link_detail=self.link_detail if self.link_state is not None else None,
            assistance_allowed=self.assisted, takeovers=takeovers, away=away is not None,
            claim_win_in_seconds=away.claim_win_in_seconds if away is not None else None,
            lichess_token=self.lichess.token_kept,
            account=opponent.account_id if opponent is not None else None,
            online_game=self.online_sync.game_id if self.online_sync is not None else None)

    def clocks(self, now: float) -> tuple[tuple[int, int], int | None] | None:
        """Both clocks and the running side, the server's, in an online game; else None."""
        clock = self.server_clock
        if clock is None:
            return None
        return (clock.remaining(WHITE, now), clock.remaining(BLACK, now)), clock.running


__all__ = ["OpponentSeat"]
