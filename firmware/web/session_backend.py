"""The real session behind the page: :class:`~firmware.session.session.Session` adapted to the web Backend.

The session's snapshot (:func:`firmware.session.view.snapshot`) is turned into the page state
(:mod:`firmware.web.backend`) by the pure :func:`page_state`, and the page's commands into the
session's methods; a :class:`~firmware.session.session.SessionError` becomes a 409 with its message.
"""
from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from typing import Any

from chess_core import PAWN, Position, parse_square

from firmware.web.backend import ActionRefused, Backend, Listener

# Page setting -> the session's setting, for Session.update_settings.
SESSION_SETTINGS = {"show_legal": "show_legal_squares", "touch_move": "touch_move",
                    "alternate_colours": "alternate_colours", "takebacks": "takebacks", "brightness": "brightness"}
# Page setting engine_<key> -> Session.update_settings(engine={<key>: ...}).
ENGINE_SETTINGS = ("level", "elo", "move_time")


def _last_move(uci: str | None) -> list[str] | None:
    return [uci[0:2], uci[2:4]] if uci else None


def _promotion(snap: dict[str, Any], choice: str) -> dict[str, Any] | None:
    """The promotion the page may choose: one just made (square set), or one on its way.

    A promotion is on its way when a pawn of the side to move is lifted from the rank before
    the last: the piece chosen now is the one its move will make.
    """
    pos = Position.from_fen(snap["fen"], validate=False, chess960=True)  # placement only (either variant)
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


LINK_STATES = ("connecting", "connected", "reconnecting", "failed", "closed")


def _link(state: Any, detail: Any = "") -> dict[str, Any] | None:
    """The link of the opponent as the page shows it: ``{"state", "detail"}``, or None."""
    state = str(getattr(state, "value", state) or "").strip().lower()
    if not state:
        return None
    return {"state": state if state in LINK_STATES else "connecting", "detail": str(detail or "")}


def _colours(sides: Any) -> list[str]:
    return [side for side in ("white", "black") if side in (sides or ())]


def _opponent(snap: dict[str, Any]) -> dict[str, Any]:
    """The snapshot's opponent for the page: who plays the sides not played over the board."""
    raw = snap.get("opponent") or {}
    kind = raw.get("kind") or "none"
    takeover = raw.get("takeover") or {}
    return {"kind": kind, "name": raw.get("name"), "sides": _colours(raw.get("sides")),
            "link": _link(raw.get("link"), raw.get("link_detail")) if kind != "none" else None,
            "assistance_allowed": bool(raw.get("assistance_allowed", True)),
            "takeover": {side: takeover[side].get("tag") for side in _colours(takeover)} or None,
            "away": raw.get("away") if kind == "lichess" else None}


def _online(snap: dict[str, Any], opponent: dict[str, Any]) -> dict[str, Any]:
    """The online extras for the page: chat, the other side's answer, the first-move countdown,
    and the side the board plays (the page turns the board round for Black)."""
    theirs = set(opponent["sides"]) if opponent["kind"] == "lichess" else set()
    return {"chat": [dict(line) for line in snap.get("chat") or []], "notice": snap.get("notice"),
            "first_move_ms": snap.get("first_move_ms"),
            "orientation": "black" if theirs == {"white"} else "white"}


def _take_over(snap: dict[str, Any], opponent: dict[str, Any]) -> list[str]:
    """The sides the computer may take over now: during a game, not online, not its own already."""
    if not snap.get("started", True) or snap.get("over") or not opponent["assistance_allowed"]:
        return []
    mine = opponent["sides"] if opponent["kind"] == "engine" else []
    return [side for side in ("white", "black") if side not in mine]


def _lichess(snap: dict[str, Any]) -> dict[str, Any]:
    """The Lichess account as the settings show it (whether a token is kept; never the token)."""
    raw = snap.get("lichess") or {}
    link = _link(raw.get("link"))
    game = raw.get("game")
    return {"logged_in": bool(raw.get("logged_in")), "account": raw.get("account"),
            "connected": link is not None and link["state"] == "connected", "link": link,
            "game": game, "status": f"Playing game {game}." if game else None}


def page_state(snap: dict[str, Any], *, brightness: float = 0.5, engine: dict[str, Any] | None = None,
               can_takeback: bool = False) -> dict[str, Any]:
    """The page state (see :mod:`firmware.web.backend`) of a session snapshot."""
    clocks = snap.get("clocks") or {}
    time_control = snap.get("time_control") or "-"
    settings = snap.get("settings") or {}
    over = bool(snap.get("over"))
    engine = engine or {}
    opponent = _opponent(snap)
    assisted = opponent["assistance_allowed"]
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
                  "delay_left": clocks.get("delay_left") or 0, "sandclock": time_control.startswith("*")},
        "moves": {"en": list(snap["moves"]["san"]), "fr": list(snap["moves"]["san_fr"])},
        "status": snap["status"],
        "result": snap.get("result", "*"),
        "ending": snap["status"] if over else None,
        "started": bool(snap.get("started", True)),
        "players": dict(snap.get("players") or {"white": "White", "black": "Black"}),
        "rules": snap.get("rules", "fide"),
        "claims": list(snap.get("claimable_draws", [])),
        "draw_offer": snap.get("draw_offer"),
        "takeback_offer": None if over else snap.get("takeback_offer"),
        "promotion": _promotion(snap, snap.get("next_promotion") or "q"),
        "can_takeback": can_takeback and assisted,
        "take_over": _take_over(snap, opponent),
        "problems": list(snap.get("problems", [])),
        "leds_problem": snap.get("leds_problem"),
        "save_problem": snap.get("save_problem"),
        "game_file": snap.get("game_file"),
        "link": opponent["link"],
        "settings": {
            "show_legal": bool(settings.get("show_legal_squares", True)),
            "touch_move": bool(settings.get("touch_move", False)),
            "alternate_colours": bool(settings.get("alternate_colours", True)),
            "takebacks": bool(settings.get("takebacks", False)),
            "brightness": brightness,
            "engine_level": engine.get("level", 8),
            "engine_elo": engine.get("elo") or 0,
            "engine_move_time": engine.get("move_time", 1.0),
            "lichess": _lichess(snap),
        },
        "opponent": opponent,
        "online": _online(snap, opponent),
    }


class SessionBackend(Backend):
    """A :class:`~firmware.session.session.Session` as the page's backend."""

    def __init__(self, session: Any, *, rng: random.Random | None = None) -> None:
        self.session = session
        self.rng = rng or random.SystemRandom()
        self._unsubscribers: list[Callable[[], None]] = []

    # -- reading -----------------------------------------------------------------------------------
    def state(self, now: float) -> dict[str, Any]:
        s = self.session
        config = s.config
        engine = config.engine
        return page_state(
            s.snapshot(now),
            brightness=config.leds.brightness,
            engine={"level": engine.level, "elo": getattr(engine, "elo", 0), "move_time": engine.move_time},
            can_takeback=self._can_takeback(),
        )

    def _can_takeback(self) -> bool:
        s = self.session
        if not s.match.started or not s.config.game.takebacks:
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
    def _call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Call a session command; its SessionError becomes ActionRefused (also from a coroutine)."""
        from firmware.session.session import SessionError
        try:
            result = fn(*args, **kwargs)
        except SessionError as exc:
            raise ActionRefused(str(exc)) from None
        if asyncio.iscoroutine(result):
            async def awaited() -> Any:
                try:
                    return await result
                except SessionError as exc:
                    raise ActionRefused(str(exc)) from None
            return awaited()
        return None

    def new_game(self, *, white: str, black: str, time_control: str, rules: str, colours: str, now: float,
                 fen: str | None = None, opponent: str | None = None, engine_side: str | None = None,
                 engine_level: int | None = None, player: str | None = None, variant: str | None = None,
                 start_position: int | None = None) -> Any:
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
        return self._call(self.session.new_game, now, time_control=time_control, white=names[0], black=names[1],
                          rules=rules, fen=fen, opponent=opponent, engine_side=engine_side,
                          engine_level=engine_level, variant=variant, start_position=start_position)

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

    def answer_takeback(self, action: str, now: float) -> Any:
        s = self.session
        return self._call(s.accept_takeback if action == "accept" else s.decline_takeback, now)

    def take_over(self, color: str, now: float) -> Any:
        return self._call(self.session.take_over, color, now)

    def settings(self, changes: dict[str, Any], now: float) -> Any:
        sections: dict[str, Any] = {SESSION_SETTINGS[k]: v for k, v in changes.items() if k in SESSION_SETTINGS}
        engine = {key: changes[f"engine_{key}"] for key in ENGINE_SETTINGS if f"engine_{key}" in changes}
        if engine:
            sections["engine"] = engine
        return self._call(self.session.update_settings, now, **sections)

    def lichess_login(self, token: str, now: float) -> Any:
        return self._call(self.session.lichess_login, token, now)

    def lichess_logout(self, now: float) -> Any:
        return self._call(self.session.lichess_logout, now)

    def claim_when_gone(self, what: str, now: float) -> Any:
        return self._call(self.session.claim_when_gone, what, now)


__all__ = ["SessionBackend", "page_state"]
