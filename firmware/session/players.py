"""Who plays the sides not played over the board: starting and replacing the opponent, take-overs, the Lichess account."""
from __future__ import annotations

import asyncio
import logging
from typing import Any, Optional

from chess_core import BLACK, WHITE

from firmware.opponents.base import ClockTimes, LinkState
from firmware.opponents.factory import build_engine, build_lichess, engine_side, opponent_kind
from firmware.session.commands import SessionError
from firmware.session.opponent_side import OpponentGuard

log = logging.getLogger(__name__)

COLOURS = ("white", "black")
SIDE_WORDS = ("White", "Black")


class OpponentControl:
    """The opponent part of :class:`firmware.session.session.Session`: its lifecycle and the commands
    about it. The session's fields: ``opponent`` (None: two players over the board),
    ``opponent_choice`` (the kind a new game gets), ``engine_sides`` (the sides the engine plays by
    choice), ``takeovers`` (side -> Takeover, for this game), ``online_sync`` (the last GameSync
    while the game is an online one)."""

    # -- lifecycle ---------------------------------------------------------------------------

    async def start_opponent(self, opponent: Optional[Any] = None) -> None:
        """Start the opponent (``opponent`` first becomes the session's). A failure to start (no
        engine at that path...) shows as the opponent's link state; it is never raised."""
        if opponent is not None and opponent is not self.opponent:
            self.opponent = opponent
            self.opponent_choice = opponent_kind(opponent)
            self.engine_sides = self._sides_of(opponent)
        if self.opponent is not None:
            await self._start(self.opponent)

    async def wait_idle(self) -> None:
        """Wait for the work handed to the loop: an opponent stopping or starting, decisions sent."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def _start(self, opponent: Any) -> None:
        if getattr(opponent, "times", False) is None:
            opponent.times = self._engine_times
        self._board_rules()
        if self.match.started and self.online_sync is None and self.opponent is opponent:
            self._reset_opponent()   # it plays on from the game on the board (a restored one...)
        record, resume = self.record, getattr(opponent, "resume", None)
        if resume is not None and record is not None and record.online_id and not record.is_over:
            resume(record.online_id)  # an online game cut by a restart: the server says how it stands
        try:
            await opponent.start(OpponentGuard(self, opponent))
        except Exception as exc:
            log.error("the opponent %s did not start: %s", getattr(opponent, "name", opponent), exc)
            if self.opponent is opponent and self.link_state != LinkState.FAILED.value:
                self.link(LinkState.FAILED, str(exc))

    def _use_opponent(self, new: Optional[Any], sides: Optional[frozenset] = None) -> None:
        """Replace the opponent: the old one stops, then the new one starts, on the loop."""
        old = self.opponent
        if new is old:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            raise SessionError("the opponent can only be changed while the service runs") from None
        self.opponent = new
        self.engine_sides = self._sides_of(new) if sides is None else sides
        self.link_state = self.link_detail = self.link_text = None
        self.takeback_offer = self.opponent_away = None
        if self.expected_move is not None:   # the old opponent's move: nobody waits for it now
            self.expected_move = self.pending_end = None
            if self.live:
                self.match.expect(None)
        self._board_rules()
        self._changed = True
        self._keep(loop.create_task(self._swap(old, new), name="session-opponent"))

    async def _swap(self, old: Optional[Any], new: Optional[Any]) -> None:
        if old is not None:
            try:
                await old.stop()
            except Exception:
                log.exception("stopping the opponent %s", getattr(old, "name", old))
        if new is not None and self.opponent is new:
            await self._start(new)
        self._after(self.clock())

    def _prepare_opponent(self, kind: str, side: Optional[str], previous: Optional[frozenset]) -> None:
        """Before a new game: the opponent of ``kind``, kept when it is already that one (an engine
        then plays its sides again: take-overs end with the game). ``side`` ("white", "black"):
        the engine's side asked for; else ``[engine] side`` ("alternate": the other than before)."""
        current = self.opponent
        if kind == "none":
            self._use_opponent(None)
            return
        if kind == "lichess":
            if opponent_kind(current) != "lichess":
                self._use_opponent(build_lichess(self.config))
            return
        if side is not None:
            sides = frozenset({engine_side(side)})
        elif self.config.engine.side == "alternate" and previous:
            sides = frozenset({engine_side("alternate", previous=min(previous))})
        elif opponent_kind(current) == "engine" and self.engine_sides:
            sides = self.engine_sides
        else:
            sides = frozenset({engine_side(self.config.engine.side)})
        if opponent_kind(current) != "engine":
            self._use_opponent(build_engine(self.config, sides), sides)
        elif hasattr(current, "set_sides"):   # (an engine that cannot change sides keeps its own)
            if sides != frozenset(current.sides):
                current.set_sides(sides)
            self.engine_sides = sides

    def _set_engine_level(self) -> None:
        set_level = getattr(self.opponent, "set_level", None)
        if set_level is not None:
            from firmware.opponents.engine.levels import Level
            set_level(Level.from_config(self.config.engine))

    def _board_rules(self) -> None:
        """Takebacks made on the board alone only where assistance is allowed (not online)."""
        allowed = self.config.game.takebacks and self._assisted()
        self.match.config.takebacks = self.match.inference.takebacks = allowed

    @staticmethod
    def _sides_of(opponent: Optional[Any]) -> frozenset:
        if opponent_kind(opponent) != "engine":
            return frozenset()
        return frozenset(getattr(opponent, "sides", ()) or ())

    # -- commands ------------------------------------------------------------------------------

    def take_over(self, side: Any, now: Optional[float] = None) -> None:
        """The computer plays ``side`` for the rest of the game (its player has to leave). The PGN
        names the player "Name (Stockfish from move N)" and says so at the engine's first move."""
        now = self._now(now)
        side = self._color(side)
        self._require_live()
        if not self._assisted():
            raise SessionError("the computer cannot play for you in an online game")
        opponent = self.opponent
        if opponent_kind(opponent) == "engine" and side in (getattr(opponent, "sides", ()) or ()):
            raise SessionError(f"the computer already plays {SIDE_WORDS[side]}")
        player = self.names[side]
        if opponent is None:
            engine = build_engine(self.config, side, start_fen=self.game.start_fen, moves=self.game.moves)
            self._use_opponent(engine, sides=frozenset())
            takeover = engine.take_over(side, player)
        elif hasattr(opponent, "take_over"):
            takeover = opponent.take_over(side, player)
        else:
            raise SessionError(f"{getattr(opponent, 'name', 'this opponent')} cannot take a side over")
        self.takeovers[side] = takeover
        self._rename(side, takeover.player_tag())
        log.info("%s takes %s over from %s at move %d", takeover.engine, SIDE_WORDS[side], player,
                 takeover.from_move)
        self._changed = True
        self._after(now)

    def accept_takeback(self, now: Optional[float] = None) -> None:
        """Accept the other side's takeback offer (online): its game comes back with the moves undone."""
        self._answer_takeback(now, "ACCEPT_TAKEBACK", "accept")

    def decline_takeback(self, now: Optional[float] = None) -> None:
        self._answer_takeback(now, "DECLINE_TAKEBACK", "decline")

    def _answer_takeback(self, now: Optional[float], action: str, verb: str) -> None:
        now = self._now(now)
        self._require_live()
        by = self.takeback_offer
        if by is None:
            raise SessionError(f"there is no takeback offer to {verb}")
        local = getattr(self.online_sync, "local_colors", None) or ()
        if by in local:
            raise SessionError("that takeback offer is the board's own: the other side answers it")
        self.takeback_offer = None
        self._changed = True
        self._tell_opponent(action)
        self._after(now)

    def lichess_login(self, token: str, now: Optional[float] = None) -> None:
        """Keep ``token`` (a Lichess API token, scope board:play) in the token file (mode 0600,
        written atomically; never logged) and (re)start Lichess as the opponent with it."""
        from firmware.opponents.lichess.token import Token, TokenError, write_token
        now = self._now(now)
        try:
            secret = Token(token)
        except TokenError as exc:
            raise SessionError(str(exc)) from None
        path = self.config.lichess_token_path
        try:
            write_token(path, secret)
        except OSError as exc:
            raise SessionError(f"cannot keep the Lichess token in {path}: {exc.strerror or exc}") from None
        log.info("Lichess token stored in %s", path)
        self.lichess_token = True
        self._choose("lichess")
        self._use_opponent(build_lichess(self.config))
        self._after(now)

    def lichess_logout(self, now: Optional[float] = None) -> None:
        """Forget the Lichess token (the file is removed) and stop playing on Lichess."""
        now = self._now(now)
        if self.online_sync is not None and self.live:
            raise SessionError("a Lichess game is in progress: finish it (or resign) first")
        path = self.config.lichess_token_path
        try:
            path.unlink()
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise SessionError(f"cannot remove the Lichess token {path}: {exc.strerror or exc}") from None
        self.lichess_token = False
        if opponent_kind(self.opponent) == "lichess":
            self._choose("none")
            self._use_opponent(None)
        self._after(now)

    def _choose(self, kind: str) -> None:
        """``kind`` is the opponent of the games to come (the session's ``[game] opponent``)."""
        self.opponent_choice = kind
        self.config = self._checked(game={"opponent": kind})

    # -- what the engine and the page are told --------------------------------------------------

    def _engine_times(self) -> Optional[ClockTimes]:
        """The clock as UCI ``go`` wants it (None without a clock: the level's move time counts)."""
        match = self.match
        remaining = match.remaining(self.clock()) if match.started else None
        if remaining is None:
            return None
        clock, control = match.clock, match.time_control
        increments = [0, 0]
        moves_to_go = None
        if control.periods:
            for side in (WHITE, BLACK):
                increments[side] = control.period_for_move(clock.moves_made(side) + 1).engine_increment_ms
            first = clock.moves_made(self.game.turn) + 1
            if control.period_for_move(first).moves is not None:
                last = first
                while not control.time_added_after(last):
                    last += 1
                moves_to_go = last - first + 1
        return ClockTimes(remaining[WHITE], remaining[BLACK], increments[WHITE], increments[BLACK], moves_to_go)

    def _engine_name(self) -> str:
        return str(getattr(self.opponent, "name", None) or "Engine")

    def _rename(self, side: int, name: str) -> None:
        names = list(self.names)
        names[side] = name
        self.names = (names[0], names[1])
        if self.record is not None:
            self.record.white, self.record.black = self.names
            self._dirty = True

    def _comment_takeover(self, mover: int) -> None:
        """The engine's first move for a side it took over says so in the PGN."""
        takeover = self.takeovers.get(mover)
        record = self.record
        if takeover is not None and record is not None and takeover.comment() not in record.comments.values():
            record.comments[str(len(self.game.moves))] = takeover.comment()
            self._dirty = True

    def _name_engine_sides(self, given: Optional[tuple[Optional[str], Optional[str]]]) -> None:
        """The sides the engine plays by choice bear its name, unless a name was given for them."""
        if opponent_kind(self.opponent) != "engine":
            return
        for side in self.engine_sides:
            if side not in self.takeovers and not (given is not None and given[side]):
                self._rename(side, self._engine_name())

    def opponent_view(self) -> dict[str, Any]:
        """The snapshot's ``opponent``: who plays the sides not played over the board."""
        opponent = self.opponent
        kind = opponent_kind(opponent)
        if kind == "lichess" and self.online_sync is not None:
            sides = {WHITE, BLACK} - set(self.online_sync.local_colors)
        else:
            sides = set(getattr(opponent, "sides", ()) or ()) if opponent is not None else set()
        takeover = {COLOURS[side]: {"player": t.player, "engine": t.engine, "from_move": t.from_move,
                                    "tag": t.player_tag()} for side, t in sorted(self.takeovers.items())}
        away = self.opponent_away
        return {"kind": kind, "name": getattr(opponent, "name", None) if opponent is not None else None,
                "sides": [COLOURS[side] for side in sorted(sides)], "link": self.link_state,
                "link_detail": self.link_detail, "assistance_allowed": self._assisted(),
                "takeover": takeover or None,
                "away": None if away is None else {"claim_win_in_seconds": getattr(away, "claim_win_in_seconds", None)}}

    def lichess_view(self) -> dict[str, Any]:
        """The snapshot's ``lichess``: whether a token is kept, and the account once connected."""
        opponent = self.opponent
        online = opponent_kind(opponent) == "lichess"
        return {"logged_in": self.lichess_token, "account": getattr(opponent, "account_id", None) if online else None,
                "link": self.link_state if online else None, "game": getattr(self.online_sync, "game_id", None)}
