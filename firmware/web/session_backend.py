"""The real session behind the page: :class:`~firmware.session.Session` adapted to the web Backend.

The session's snapshot (:func:`firmware.session_view.snapshot`) is turned into the page state
(:mod:`firmware.web.backend`) by the pure :func:`page_state`, and the page's commands into the
session's methods; a :class:`~firmware.session.SessionError` becomes a 409 with its message.
"""
from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

from chess_core import PAWN, Position, parse_square

from ..config import ConfigError, with_overrides
from .backend import ActionRefused, Backend, Listener

# Page setting -> (session setting, config section) for Session.update_settings.
SESSION_SETTINGS = {"show_legal": "show_legal_squares", "touch_move": "touch_move",
                    "alternate_colours": "alternate_colours", "takebacks": "takebacks", "brightness": "brightness"}


_TIME_PREFIX = re.compile(r"^\d+(?:\.\d+)? s: ")


def _problem_text(text: str) -> str:
    """A problem as the page says it: without the monotonic time the journal needs."""
    return _TIME_PREFIX.sub("", text)


def _last_move(uci: str | None) -> list[str] | None:
    return [uci[0:2], uci[2:4]] if uci else None


def _promotion(snap: dict[str, Any], choice: str) -> dict[str, Any] | None:
    """The promotion the page may choose: one just made (square set), or one on its way.

    A promotion is on its way when a pawn of the side to move is lifted from the rank before
    the last: the piece chosen now is the one its move will make.
    """
    pos = Position(snap["fen"])
    name = snap.get("promotion_square")
    if name:
        piece = pos.piece_at(parse_square(name))
        if piece is None:
            return None
        symbol = piece.symbol()
        return {"square": name, "piece": symbol.lower(), "color": "white" if symbol.isupper() else "black"}
    if snap.get("over"):
        return None
    turn = 0 if snap["turn"] == "white" else 1
    seventh = 6 if turn == 0 else 1
    for lifted in snap.get("lifted", []):
        sq = parse_square(lifted)
        piece = pos.piece_at(sq)
        if piece is not None and piece.piece_type == PAWN and piece.color == turn and sq // 8 == seventh:
            return {"square": None, "piece": choice, "color": snap["turn"]}
    return None


def page_state(snap: dict[str, Any], *, brightness: float = 0.5, engine_level: int = 8, promotion_choice: str = "q",
               can_takeback: bool = False, opponent: dict[str, Any] | None = None,
               lichess: dict[str, Any] | None = None) -> dict[str, Any]:
    """The page state (see :mod:`firmware.web.backend`) of a session snapshot."""
    clocks = snap.get("clocks") or {}
    time_control = snap.get("time_control") or "-"
    settings = snap.get("settings") or {}
    over = bool(snap.get("over"))
    return {
        "fen": snap["fen"],
        "start_fen": snap.get("start_fen"),
        "turn": snap["turn"],
        "occupied": list(snap.get("occupied", [])),
        "leds": [c if c and c != "#000000" else "" for c in snap.get("leds", [""] * 64)],
        "lifted": list(snap.get("lifted", [])),
        "wrong": list(snap.get("wrong", [])),
        "last_move": _last_move(snap.get("last_move")),
        "expected_move": snap.get("expected_move"),
        "touched": snap.get("touched"),
        "clock": {"white": clocks.get("white"), "black": clocks.get("black"), "running": clocks.get("running"),
                  "paused": bool(clocks.get("paused")), "time_control": time_control,
                  "delay_left": clocks.get("delay_left", 0), "sandclock": time_control.startswith("*")},
        "moves": {"en": list(snap["moves"]["san"]), "fr": list(snap["moves"]["san_fr"])},
        "status": snap["status"],
        "result": snap.get("result", "*"),
        "ending": snap["status"] if over else None,
        "started": bool(snap.get("started", True)),
        "players": dict(snap.get("players") or {"white": "White", "black": "Black"}),
        "rules": snap.get("rules", "fide"),
        "claims": list(snap.get("claimable_draws", [])),
        "draw_offer": snap.get("draw_offer"),
        "promotion": _promotion(snap, promotion_choice),
        "can_takeback": can_takeback,
        "problems": [_problem_text(p) for p in snap.get("problems", [])],
        "game_file": snap.get("game_file"),
        "link": snap.get("link"),
        "settings": {
            "show_legal": bool(settings.get("show_legal_squares", True)),
            "touch_move": bool(settings.get("touch_move", False)),
            "alternate_colours": bool(settings.get("alternate_colours", True)),
            "takebacks": bool(settings.get("takebacks", False)),
            "brightness": brightness,
            "engine_level": engine_level,
            "lichess": lichess or {"account": None, "connected": False},
        },
        "opponent": opponent or {"kind": "local", "name": None, "side": None},
    }


class SessionBackend(Backend):
    """A :class:`~firmware.session.Session` as the page's backend."""

    def __init__(self, session: Any, *, rng: random.Random | None = None) -> None:
        self.session = session
        self.rng = rng or random.SystemRandom()
        self._unsubscribers: list[Callable[[], None]] = []

    # -- reading -----------------------------------------------------------------------------------
    def state(self, now: float) -> dict[str, Any]:
        s = self.session
        snap = s.snapshot(now)
        config = s.config
        opponent = s.opponent
        kind = config.game.opponent if opponent is not None else "local"
        return page_state(
            snap,
            brightness=config.leds.brightness,
            engine_level=config.engine.level,
            can_takeback=self._can_takeback(),
            promotion_choice=self._promotion_choice(),
            opponent={"kind": kind, "name": getattr(opponent, "name", None), "side": None},
        )

    def _promotion_choice(self) -> str:
        # The inference keeps the piece for the next promotion; it has no public reader yet.
        piece_type = getattr(self.session.match.inference, "_promotion", 5)
        return {5: "q", 4: "r", 3: "b", 2: "n"}.get(piece_type, "q")

    def _can_takeback(self) -> bool:
        s = self.session
        if not s.match.started or not s.config.game.takebacks:
            return False
        if getattr(s.opponent, "assistance_allowed", True) is False:
            return False
        return len(s.game.moves) > s.restored_plies

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        unsubscribe = self.session.subscribe(lambda _snapshot: listener())
        self._unsubscribers.append(unsubscribe)
        return unsubscribe

    def position(self) -> Position:
        return self.session.game.position

    def close(self) -> None:
        while self._unsubscribers:
            self._unsubscribers.pop()()

    # -- commands ------------------------------------------------------------------------------------
    def _call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        from ..session import SessionError
        try:
            fn(*args, **kwargs)
        except SessionError as exc:
            raise ActionRefused(str(exc)) from None

    def new_game(self, *, white: str, black: str, time_control: str, rules: str, colours: str,
                 now: float) -> None:
        if colours == "swap" or (colours == "random" and self.rng.random() < 0.5):
            white, black = black, white
        self._call(self.session.new_game, now, time_control=time_control, white=white or "White",
                   black=black or "Black", rules=rules)

    def resign(self, color: str, now: float) -> None:
        self._call(self.session.resign, color, now)

    def draw(self, action: str, color: str, now: float) -> None:
        s = self.session
        if action == "offer":
            self._call(s.offer_draw, color, now)
        elif action == "accept":
            self._call(s.accept_draw, color, now)
        elif action == "decline":
            self._call(s.decline_draw, color, now)
        else:
            if not s.match.started or s.game.is_over or not s.game.claimable_draws():
                raise ActionRefused("no draw can be claimed now: the position has not stood three times "
                                    "and the fifty-move rule has not been reached")
            self._call(s.claim_draw, now)

    def promote(self, piece: str, now: float) -> None:
        self._call(self.session.choose_promotion, piece, now)

    def clock(self, action: str, now: float) -> None:
        if action == "pause":
            self._call(self.session.pause, now)
        else:
            self._call(self.session.resume, now)

    def takeback(self, now: float) -> None:
        if not self.session.config.game.takebacks:
            raise ActionRefused("takebacks are not allowed: switch them on in the settings first")
        self._call(self.session.takeback, now)

    def settings(self, changes: dict[str, Any], now: float) -> None:
        s = self.session
        session_changes = {SESSION_SETTINGS[k]: v for k, v in changes.items() if k in SESSION_SETTINGS}
        if "engine_level" in changes:
            # Session.update_settings has no engine section yet: the level is kept in the
            # configuration, where the next engine opponent reads it.
            try:
                s.config = with_overrides(s.config, engine={"level": changes["engine_level"]})
            except ConfigError as exc:
                raise ActionRefused(str(exc)) from None
        if session_changes:
            self._call(s.update_settings, now, **session_changes)


__all__ = ["SessionBackend", "page_state"]
