"""The session's commands: what the web companion (and buttons) can ask of the game."""
from __future__ import annotations

from typing import Any, Optional

from chess_core import Move, parse_move
from chess_core.clock import ClockError
from chess_core.game import DrawClaimError

from firmware.config import Config, with_overrides
from firmware.referee.feedback import LedStyle
from firmware.referee.round_rules import draw_offer_refused
from firmware.session.restore import amend_promotion

PROMOTION_LETTERS = {"q": 5, "r": 4, "b": 3, "n": 2}
PROMOTION_NAMES = {v: k for k, v in PROMOTION_LETTERS.items()}
SETTINGS = {"game": ("white", "black", "time_control", "rules", "alternate_colours", "show_legal_squares",
                     "touch_move", "takebacks", "event", "site"),
            "leds": ("brightness", "low_time_s"),
            "gestures": ("enabled", "resign_s", "draw_s"),
            "engine": ("level", "elo", "move_time", "side")}
OPPONENT_KINDS = ("none", "engine", "lichess")
ENGINE_SIDES = ("white", "black", "alternate")


class SessionError(ValueError):
    """A command that cannot be carried out now; the message says why (for the web page)."""


class SessionCommands:
    """The commands of :class:`firmware.session.session.Session` (a part of it, kept in its own module).

    Each takes ``now`` (default: ``session.clock()``), raises :class:`SessionError` when it
    cannot be carried out, and leaves the LEDs, the saved game and the subscribers up to date.
    """

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
        now = self._now(now)
        if opponent is not None and opponent not in OPPONENT_KINDS:
            raise SessionError(f"the opponent is one of {', '.join(OPPONENT_KINDS)}, not {opponent!r}")
        if engine_side is not None and engine_side not in ENGINE_SIDES:
            raise SessionError(f"the engine plays one of {', '.join(ENGINE_SIDES)}, not {engine_side!r}")
        if self.online_sync is not None and self.live:
            raise SessionError("a Lichess game is in progress: resign (or finish) it first")
        changes = {k: v for k, v in (("time_control", time_control), ("rules", rules), ("fen", fen),
                                     ("opponent", opponent), ("variant", variant),
                                     ("start_position", start_position)) if v is not None}
        if variant is not None and variant != self.config.game.variant and fen is None:
            changes["fen"] = ""   # a start position of the other variant does not carry over
        engine = {k: v for k, v in (("side", engine_side), ("level", engine_level)) if v is not None}
        sections = {name: values for name, values in (("game", changes), ("engine", engine)) if values}
        if sections:
            self.config = self._checked(**sections)
        if self.live and self.record is not None:
            self.recorder.forget_current()  # its PGN stays as it was, unfinished ("*")
        if opponent is not None:
            self.opponent_choice = opponent
        side = engine_side if engine_side in ("white", "black") else None
        self._begin(now, names=(white, black) if white is not None or black is not None else None,
                    engine_side=side)
        if engine_level is not None:
            self._set_engine_level()
        self._after(now)

    def set_round(self, white: str, black: str, now: Optional[float] = None, **game: Any) -> None:
        """A club hub's pairing: the players' names (on this game at once, unless it is over) and
        the round's ``[game]`` settings (``time_control``, ``rules``, ``round``, ``event``,
        ``draw_offers_from_move``), which apply from the next game, or to this one while it has
        no move yet. Colours stop alternating: the pairing says who has White."""
        now = self._now(now)
        settings = {"white": white, "black": black, "alternate_colours": False, **game}
        self.config = self._checked(game=settings)
        if self.live and self.game.moves:
            self.names = (white, black)
            if self.record is not None:
                self.record.white, self.record.black = white, black
                self.record.round = self.config.game.round
                self._dirty = True
            self._changed = True
            self._after(now)
        elif self.match.started and not self.game.is_over and self.record is not None:
            self.recorder.discard(self.record)   # no move yet: begin again with the round's clock and rules
            self.new_game(now, white=white, black=black)
        else:
            self._begin(now, names=(white, black))
            self._after(now)

    def resign(self, color: int, now: Optional[float] = None) -> None:
        now = self._now(now)
        self._require_live()
        self._handle(self.match.resign(self._color(color), now), now)
        self._tell_opponent("RESIGN")
        self._after(now)

    def offer_draw(self, color: int, now: Optional[float] = None) -> None:
        """``color`` offers a draw; an offer already made by the other side is accepted."""
        now = self._now(now)
        self._require_live()
        color = self._color(color)
        if self.draw_offer == color ^ 1:
            return self.accept_draw(color, now)
        refused = draw_offer_refused(self.game.position.fullmove_number, self.config.game.draw_offers_from_move)
        if refused:
            raise SessionError(refused)
        self.draw_offer = color
        self._changed = True
        self._tell_opponent("OFFER_DRAW")
        self._after(now)

    def accept_draw(self, color: int, now: Optional[float] = None) -> None:
        now = self._now(now)
        self._require_live()
        color = self._color(color)
        if self.draw_offer != color ^ 1:
            raise SessionError("there is no draw offer from the other side to accept")
        self._handle(self.match.agree_draw(now), now)
        self._tell_opponent("ACCEPT_DRAW")
        self._after(now)

    def decline_draw(self, color: int, now: Optional[float] = None) -> None:
        now = self._now(now)
        if self.draw_offer == self._color(color) ^ 1:
            self.draw_offer = None
            self._changed = True
            self._tell_opponent("DECLINE_DRAW")
        self._after(now)

    def claim_draw(self, now: Optional[float] = None, move: Optional[str | Move] = None) -> None:
        """Claim a draw (threefold, fifty moves), by the move that brings it about if given."""
        now = self._now(now)
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
        self._after(now)

    def choose_promotion(self, piece: str | int, now: Optional[float] = None) -> None:
        """The piece of the promotion just made (until the opponent moves), or of the next one."""
        now = self._now(now)
        if isinstance(piece, str):
            if piece.lower() not in PROMOTION_LETTERS:
                raise SessionError(f"a promotion is to q, r, b or n, not {piece!r}")
            piece = PROMOTION_LETTERS[piece.lower()]
        if piece not in PROMOTION_LETTERS.values():
            raise SessionError(f"a promotion is to a knight, bishop, rook or queen, not {piece!r}")
        if self.live and self.gestures.promotion_square is not None:
            self._handle(amend_promotion(self.match, piece, now), now)
        else:
            self._handle(self.match.promote(piece, now), now)
        self._after(now)

    def pause(self, now: Optional[float] = None) -> None:
        """Stop both clocks (an arbiter's stop); moves made meanwhile count, untimed."""
        now = self._now(now)
        self._require_live()
        if self.server_clock is not None or self.online_sync is not None:
            raise SessionError("the clocks of an online game are the server's: they cannot be paused here")
        self._handle(self.match.pause(now), now)
        self.paused = True
        self._changed = True
        self._after(now)

    def resume(self, now: Optional[float] = None) -> None:
        """Restart the clock of the side to move."""
        now = self._now(now)
        if not self.paused:
            return
        self.paused = False
        self._changed = True
        self._handle(self.match.resume(now), now)
        self._after(now)

    def takeback(self, now: Optional[float] = None) -> None:
        """Take back the last move (needs ``takebacks``): the game and the clock go back at once,
        and the LEDs show the pieces to put back until the board shows the position before it.

        Online (no assistance allowed) the takeback is proposed to the other side instead; if it
        agrees, its game comes back without the move (``game_sync``).
        """
        now = self._now(now)
        if not self._assisted():
            self._require_live()
            if not self.game.moves:
                raise SessionError("no move to take back")
            self._tell_opponent("PROPOSE_TAKEBACK")
            self._after(now)
            return
        self._require_live(over_ok=True)
        if len(self.game.moves) <= self.restored_plies:
            raise SessionError("no move to take back (moves made before a restart are final)")
        move = self.game.moves[-1]
        try:
            events = self.match.takeback(now)
        except (ValueError, ClockError) as exc:
            raise SessionError(str(exc)) from None
        self._handle(events, now)
        self.takeback_move = move
        self._changed = True
        self._after(now)

    def update_settings(self, now: Optional[float] = None, **changes: Any) -> None:
        """Change settings: ``game`` keys (names, time control...), ``leds`` and ``gestures`` keys,
        one by one or as a section (``leds={...}``), and ``engine={"level": 0..20, "elo": 0 or
        500..4000, "move_time": s, "side": "white"|"black"|"alternate"}``.

        Names apply to the current game; time control, rules, the start position and the engine's
        side to the next; touch-move, takebacks, the LED settings at once, and the engine's
        strength from its next move.
        """
        now = self._now(now)
        sections: dict[str, dict[str, Any]] = {}
        for key, value in changes.items():
            if key in SETTINGS:   # a whole section: engine={"level": 5, ...}
                if not isinstance(value, dict):
                    raise SessionError(f"{key}: expected a table of settings, e.g. {key}={{...}}")
                unknown = sorted(set(value) - set(SETTINGS[key]))
                if unknown:
                    raise SessionError(f"{key}.{unknown[0]}: not a setting that can be changed here")
                sections.setdefault(key, {}).update(value)
                continue
            section = next((s for s, keys in SETTINGS.items() if key in keys), None)
            if section is None:
                raise SessionError(f"{key}: not a setting that can be changed here")
            sections.setdefault(section, {})[key] = value
        self.config = self._checked(**sections)
        g = self.config.game
        self.match.config.touch_move = self.match.inference.touch_move = g.touch_move
        self._board_rules()
        if "engine" in sections:
            self._set_engine_level()
        self.style = LedStyle.from_config(self.config.leds)
        self.gestures.resign_s, self.gestures.draw_s = self.config.gestures.resign_s, self.config.gestures.draw_s
        if "white" in changes or "black" in changes:
            white = changes.get("white", self.names[0])
            black = changes.get("black", self.names[1])
            self.names = (white, black)
            if self.record is not None:
                self.record.white, self.record.black = white, black
                self._dirty = True
        self._changed = True
        self._after(now)

    def button(self, name: str, now: Optional[float] = None) -> None:
        """A press of the GPIO button ``name`` (see firmware.referee.gestures.BUTTONS): the same as the
        gesture; "promote" changes the piece of the promotion just made."""
        from firmware.referee.gestures import BUTTONS, CyclePromotion
        now = self._now(now)
        if name == "promote":
            square = self.gestures.promotion_square
            gesture = CyclePromotion(square) if square is not None else None
        elif name in BUTTONS:
            gesture = BUTTONS[name]
        else:
            raise SessionError(f"no button {name!r} (known: {', '.join(sorted(BUTTONS))}, promote)")
        if gesture is not None and self.live:
            self._gestures([gesture], now)
        self._after(now)

    # -- helpers ---------------------------------------------------------------------------------

    def _now(self, now: Optional[float]) -> float:
        return self.clock() if now is None else now

    def _assisted(self) -> bool:
        """Whether engine help, hints and board takebacks may be used: not in an online game (one
        that the other end synced, against an opponent that allows no assistance)."""
        return self.online_sync is None or getattr(self.opponent, "assistance_allowed", True) is not False

    @staticmethod
    def _color(color: Any) -> int:
        if color in ("white", "w"):
            return 0
        if color in ("black", "b"):
            return 1
        if type(color) is int and color in (0, 1):
            return color
        raise SessionError(f"a colour is 0/'white' or 1/'black', not {color!r}")

    def _require_live(self, over_ok: bool = False) -> None:
        if not self.match.started:
            raise SessionError("no game in progress: set up the pieces first")
        if self.game.is_over and not over_ok:
            raise SessionError(f"the game is over ({self.game.outcome.describe()})")

    def _checked(self, **sections: dict[str, Any]) -> Config:
        try:
            return with_overrides(self.config, **sections)
        except ValueError as exc:
            raise SessionError(str(exc)) from None
