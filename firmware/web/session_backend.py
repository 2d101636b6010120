"""The real session behind the page: :class:`~firmware.session.session.Session` adapted to the web Backend.

The page state is the session's one JSON shape (:func:`firmware.session.state.to_json`,
described by docs/state.schema.json). The page's commands become the session's methods, and a
SessionError a 409 with its message.
"""
from __future__ import annotations

import inspect
import random
from collections.abc import Callable
from typing import Any

from chess_core import Move, Position

from firmware.analysis.leds import review_layer
from uci.helper import HelperEngine
from firmware.words import FALLBACK, LED_ROLES
from firmware.session import SessionError
from firmware.session.door import Command
from firmware.session.state import Phase, SessionState, once, to_json
from firmware.web.backend import COACHED, CommandRefused, Backend, Listener
from firmware.web.spoken import PageVoice

# Page setting -> the session's setting, for Session.update_settings.
SESSION_SETTINGS = {"show_legal": "show_legal_squares", "touch_move": "touch_move",
                    "alternate_colours": "alternate_colours", "takebacks": "takebacks", "brightness": "brightness"}
# Page setting engine_<key> -> Session.update_settings(engine={<key>: ...}).
ENGINE_SETTINGS = ("level", "elo", "move_time")
# Page setting coach_<key> -> Session.update_settings(coach={<key>: ...}).
COACH_SETTINGS = ("white", "black", "hints")


class SessionBackend(Backend):
    """A :class:`~firmware.session.session.Session` as the page's backend."""

    def __init__(self, session: Any, *, rng: random.Random | None = None) -> None:
        self.session = session
        self.rng = rng or random.SystemRandom()
        self._unsubscribers: list[Callable[[], None]] = []
        self._latest: SessionState | None = None
        # The page's announcements hear every state first, before any page state is built from it.
        self.spoken = PageVoice()
        self._unsubscribers.append(session.subscribe(self.spoken.on_state))

    # -- reading -----------------------------------------------------------------------------------
    def state(self, now: float) -> dict[str, Any]:
        """The page state: the one the session last published if nothing changed since, else now's."""
        latest = self._latest
        self._latest = None   # (used once: a later read, with no change between, reads the clocks again)
        return to_json(latest if latest is not None else self.session.state(now))

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        def published(state: SessionState) -> None:
            self._latest = state
            listener()
        unsubscribe = self.session.subscribe(published)
        self._unsubscribers.append(unsubscribe)
        return unsubscribe

    def position(self) -> Position:
        return self.session.game.position

    def setting_up(self) -> bool:
        board_state = self.session.board_state
        return (board_state.setup is not None and not board_state.setup.done
                and board_state.phase in (Phase.SETTING_UP, Phase.RESUMING))

    def close(self) -> None:
        while self._unsubscribers:
            self._unsubscribers.pop()()

    # -- commands ------------------------------------------------------------------------------------
    def _send(self, name: str, *args: Any, **kwargs: Any) -> Any:
        """The session command ``name`` through the session's door (firmware.session.door): carried
        out on the board's loop; its SessionError becomes CommandRefused. An awaitable of its answer
        when the loop carries it out later (the web server awaits it), else the answer."""
        try:
            answer = self.session.door.send(Command(name, args, kwargs))
        except SessionError as exc:
            raise CommandRefused(exc.key, **exc.values) from None
        if inspect.isawaitable(answer):
            async def awaited() -> Any:
                try:
                    return await answer
                except SessionError as exc:
                    raise CommandRefused(exc.key, **exc.values) from None
            return awaited()
        return answer

    def new_game(self, *, white: str, black: str, time_control: str, rules: str, colours: str, now: float,
                 fen: str | None = None, opponent: str | None = None, engine_side: str | None = None,
                 engine_level: int | None = None, player: str | None = None, variant: str | None = None,
                 start_position: int | None = None, coach: str | None = None, hints: bool | None = None) -> Any:
        names: tuple[str | None, str | None]
        if opponent == "lichess":
            names = (None, None)           # the server's names, with the game
        elif opponent == "engine":
            if engine_side == "random":
                engine_side = self.rng.choice(("white", "black"))
            side = engine_side or self.session.config.engine.side
            names = (None, player or "Black") if side == "white" else (player or "White", None)
        else:
            if colours == "swap" or (colours == "random" and self.rng.random() < 0.5):
                white, black = black, white
            names = (white or "White", black or "Black")
        coached = dict(zip(("white", "black"), COACHED[coach])) if coach is not None else {}
        if hints is not None:
            coached["hints"] = hints
        return self._send("new_game", now, time_control=time_control, white=names[0], black=names[1],
                          rules=rules, fen=fen, opponent=opponent, engine_side=engine_side,
                          engine_level=engine_level, variant=variant, start_position=start_position,
                          coach=coached or None)

    def set_up_position(self, fen: str, now: float) -> Any:
        return self._send("set_up_position", fen, now)

    def start_training(self, drills: tuple[Any, ...], player: str, progresses: dict[str, Any], now: float | None) -> Any:
        return self._send("start_training", drills, player, progresses, now)

    def next_training(self, now: float) -> Any:
        return self._send("next_training", now)

    def stop_training(self, now: float) -> Any:
        return self._send("stop_training", now)

    def player_name(self) -> str:
        return self.session.config.game.white

    def training_progress(self) -> Any:
        return self.session.board_state.progress

    def resign(self, color: str, now: float) -> Any:
        return self._send("resign", color, now)

    def draw(self, action: str, color: str, now: float) -> Any:
        s = self.session
        if action == "claim" and (not s.referee.started or s.game.is_over or not s.game.claimable_draws()):
            raise CommandRefused("no_claim_now")
        return self._send(f"{action}_draw", *((color,) if action != "claim" else ()), now)

    def promote(self, piece: str, now: float) -> Any:
        return self._send("choose_promotion", piece, now)

    def clock(self, action: str, now: float) -> Any:
        if action == "pause":
            return self._send("pause", now)
        else:
            return self._send("resume", now)

    def takeback(self, now: float) -> Any:
        if not self.session.config.game.takebacks:
            raise CommandRefused("takebacks_off")
        return self._send("takeback", now)

    def hint(self, now: float) -> Any:
        return self._send("button", "hint", now)

    def answer_takeback(self, action: str, now: float) -> Any:
        return self._send(f"{action}_takeback", now)

    def take_over(self, color: str, now: float) -> Any:
        return self._send("take_over", color, now)

    def led_colours(self) -> dict[str, str]:
        style = self.session.style
        return {role: f"#{colour:06x}" for role in LED_ROLES[FALLBACK] if (colour := getattr(style, role, None)) is not None}

    def give_back(self, color: str, now: float) -> Any:
        return self._send("give_back", color, now)

    def settings(self, changes: dict[str, Any], now: float) -> Any:
        sections: dict[str, Any] = {SESSION_SETTINGS[k]: v for k, v in changes.items() if k in SESSION_SETTINGS}
        for section, keys in (("engine", ENGINE_SETTINGS), ("coach", COACH_SETTINGS)):
            values = {key: changes[f"{section}_{key}"] for key in keys if f"{section}_{key}" in changes}
            if values:
                sections[section] = values
        return self._send("update_settings", now, **sections)

    def lichess_login(self, token: str, now: float) -> Any:
        return self._send("lichess_login", token, now)

    def lichess_logout(self, now: float) -> Any:
        return self._send("lichess_logout", now)

    def correct(self, move: str, now: float) -> Any:
        return self._send("correct", move, now)

    def claim_when_gone(self, what: str, now: float) -> Any:
        return self._send("claim_when_gone", what, now)

    def show_on_board(self, played: Move | None, best: Move | None, now: float) -> bool:
        session = self.session
        if session.live and session.game.moves:   # (a game set up, its first move not made: not yet played)
            return False
        shown = None if played is None and best is None else review_layer(played, best, session.style)
        session.door.post(Command("show_on_board", (shown, now)))
        return True

    def said(self) -> dict[str, Any] | None:
        return self.spoken.said()

    def voice(self, what: str | None, lang: str, now: float, mute: bool | None = None) -> dict[str, Any]:
        return self.spoken.request(what, lang, now, mute)

    def idle(self) -> bool:
        return not (self.session.live and self.session.game.moves)

    def engine_path(self) -> str:
        return str(self.session.config.engine.path)

    def helper_engine(self) -> HelperEngine | None:
        return self.session.coach.engine


__all__ = ["SessionBackend", "once"]
