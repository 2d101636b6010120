"""The real session behind the page: :class:`~firmware.session.session.Session` adapted to the web Backend.

The session's published state (:class:`~firmware.session.state.SessionState`, typed) becomes the
page state (:mod:`firmware.web.backend`) in one step, the pure :func:`page_state`; the page's
commands become the session's methods, and a SessionError a 409 with its message.
"""
from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Callable
from typing import Any, Optional

from chess_core import Position
from chess_core.squares import COLOR_NAMES, PIECE_SYMBOLS, SQUARE_NAMES

from firmware.referee.words import LANGS, LED_ROLES, opponent_line
from firmware.config import OpponentKind
from firmware.session import SessionError
from firmware.session.state import OpponentState, SessionState, status_text
from firmware.web.backend import ActionRefused, Backend, Listener

# Page setting -> the session's setting, for Session.update_settings.
SESSION_SETTINGS = {"show_legal": "show_legal_squares", "touch_move": "touch_move",
                    "alternate_colours": "alternate_colours", "takebacks": "takebacks", "brightness": "brightness"}
# Page setting engine_<key> -> Session.update_settings(engine={<key>: ...}).
ENGINE_SETTINGS = ("level", "elo", "move_time")


def _names(sides: Any) -> list[str]:
    return [COLOR_NAMES[side] for side in sorted(sides)]


def _colour(side: Optional[int]) -> Optional[str]:
    return COLOR_NAMES[side] if side is not None else None


def _link(state: Optional[str], detail: Optional[str] = "") -> Optional[dict[str, Any]]:
    """The link of the opponent as the page shows it: ``{"state", "detail"}``, or None."""
    if not state:
        return None
    return {"state": state, "detail": detail or ""}


def _opponent(opponent: OpponentState) -> dict[str, Any]:
    """Who plays the sides not played over the board, for the page."""
    none = opponent.kind is OpponentKind.NONE
    sides = sorted(opponent.sides)
    return {"kind": opponent.kind.value, "name": opponent.name, "sides": _names(opponent.sides),
            "text": None if none else {lang: opponent_line(opponent.kind.value, opponent.name, sides, lang)
                                       for lang in LANGS},
            "link": None if none else _link(opponent.link, opponent.link_detail),
            "assistance_allowed": opponent.assistance_allowed,
            "takeover": {COLOR_NAMES[t.side]: t.tag for t in opponent.takeovers} or None,
            "away": {"claim_win_in_seconds": opponent.claim_win_in_seconds}
            if opponent.away and opponent.kind is OpponentKind.LICHESS else None}


def _online(state: SessionState) -> dict[str, Any]:
    """The online extras for the page: chat, the other side's answer, the first-move countdown,
    and the side the board plays (the page turns the board round for Black)."""
    opponent = state.opponent
    theirs = set(opponent.sides) if opponent.kind is OpponentKind.LICHESS else set()
    return {"chat": [{"user": user, "text": text} for user, text in state.chat], "notice": state.notice,
            "notice_fr": state.notice_fr,
            "first_move_ms": state.first_move_ms, "orientation": "black" if theirs == {0} else "white"}


def _lichess(opponent: OpponentState) -> dict[str, Any]:
    """The Lichess account as the settings show it (whether a token is kept; never the token)."""
    online = opponent.kind is OpponentKind.LICHESS
    link = _link(opponent.link) if online else None
    game = opponent.online_game
    return {"logged_in": opponent.lichess_token, "account": opponent.account if online else None,
            "connected": link is not None and link["state"] == "connected", "link": link,
            "game": game, "status": f"Playing game {game}." if game else None}


def _words(text: str) -> tuple[str, ...]:
    return tuple(re.findall(r"\w+", text.casefold()))


def _says(text: str, part: str) -> bool:
    """Whether ``text`` says ``part`` (its words in a row, case and punctuation aside)."""
    whole, words = _words(text), _words(part)
    return bool(words) and any(whole[i:i + len(words)] == words for i in range(len(whole) - len(words) + 1))


def once(headline: str, notes: list[str]) -> tuple[str, list[str]]:
    """The headline and the notes under it, each text said once: a note that says the headline
    and more ("Not a legal move (White to move): put the pawn on e5 back on e2" under "Put the
    pawn on e5 back on e2") becomes the headline; a note the headline or an earlier note already
    says is left out."""
    for note in notes:
        if _says(note, headline) and not _says(headline, note):
            headline = note
    kept: list[str] = []
    for note in notes:
        if _words(note) and not _says(headline, note) and not any(_says(k, note) for k in kept):
            kept.append(note)
    return headline, kept


def _headline_and_notes(state: SessionState, lang: str) -> tuple[str, list[str]]:
    """What the page says above the board in ``lang``: the status, and the latest problem while the
    board is wrong (the session keeps every problem met), each text once."""
    problems = [text for _, text in state.problems]
    if lang == "fr" and len(state.problems_fr) == len(problems):
        problems = list(state.problems_fr)
    return once(status_text(state, lang), problems[-1:] if state.wrong else [])


def page_state(state: SessionState, *, brightness: float = 0.5, engine: dict[str, Any] | None = None) -> dict[str, Any]:
    """The page state (see :mod:`firmware.web.backend`) of the session's state."""
    engine = engine or {}
    settings = state.settings
    over = state.over
    status, notes = _headline_and_notes(state, "en")
    status_fr, notes_fr = _headline_and_notes(state, "fr")
    last = state.moves[-1] if state.moves else None
    promotion = state.promotion
    return {
        "fen": state.fen,
        "start_fen": state.start_fen,
        "turn": COLOR_NAMES[state.turn],
        "occupied": [SQUARE_NAMES[s] for s in range(64) if state.occupied >> s & 1],
        "leds": [f"#{c:06x}" if c else "" for c in state.leds],
        "lifted": [SQUARE_NAMES[s] for s in range(64) if state.lifted >> s & 1],
        "wrong": [SQUARE_NAMES[s] for s in range(64) if state.wrong >> s & 1],
        "last_move": [SQUARE_NAMES[last.from_square], SQUARE_NAMES[last.to_square]] if last else None,
        "expected_move": state.expected_move.uci() if state.expected_move else None,
        "touched": SQUARE_NAMES[state.touched] if state.touched is not None else None,
        "clock": {"white": state.clocks[0], "black": state.clocks[1], "running": _colour(state.running),
                  "paused": state.paused, "time_control": state.time_control,
                  "delay_left": state.delay_left, "sandclock": state.time_control.startswith("*")},
        "moves": {"en": list(state.san_en), "fr": list(state.san_fr)},
        "status": status,
        "status_fr": status_fr,
        "notes": {"en": notes, "fr": notes_fr},   # shown under the status, none saying it again
        "result": state.outcome.result() if state.outcome else "*",
        "ending": status if over else None,
        "started": state.started,
        "players": {"white": state.names[0], "black": state.names[1]},
        "rules": state.rules,
        "claims": [t.value for t in state.claims],
        "draw_offer": _colour(state.draw_offer),
        "takeback_offer": None if over else _colour(state.takeback_offer),
        "promotion": None if promotion is None else {
            "square": SQUARE_NAMES[promotion.square] if promotion.square is not None else None,
            "piece": PIECE_SYMBOLS[promotion.piece_type], "color": COLOR_NAMES[promotion.color]},
        "can_takeback": state.can_takeback,
        "take_over": _names(state.take_over),
        "problems": [text for _, text in state.problems],
        "problems_fr": list(state.problems_fr),
        "leds_problem": state.leds_problem,
        "save_problem": state.save_problem,
        "game_file": state.game_file,
        "link": _opponent(state.opponent)["link"],
        "settings": {
            "show_legal": bool(settings.get("show_legal_squares", True)),
            "touch_move": bool(settings.get("touch_move", False)),
            "alternate_colours": bool(settings.get("alternate_colours", True)),
            "takebacks": bool(settings.get("takebacks", False)),
            "brightness": brightness,
            "engine_level": engine.get("level", 8),
            "engine_elo": engine.get("elo") or 0,
            "engine_move_time": engine.get("move_time", 1.0),
            "lichess": _lichess(state.opponent),
        },
        "opponent": _opponent(state.opponent),
        "online": _online(state),
        "corrections": [{"uci": m.uci(), "en": en, "fr": fr} for m, en, fr in state.corrections],
    }


class SessionBackend(Backend):
    """A :class:`~firmware.session.session.Session` as the page's backend."""

    def __init__(self, session: Any, *, rng: random.Random | None = None) -> None:
        self.session = session
        self.rng = rng or random.SystemRandom()
        self._unsubscribers: list[Callable[[], None]] = []
        self._latest: Optional[SessionState] = None

    # -- reading -----------------------------------------------------------------------------------
    def state(self, now: float) -> dict[str, Any]:
        """The page state: the one the session last published if nothing changed since, else now's."""
        config = self.session.config
        engine = config.engine
        latest = self._latest
        self._latest = None   # (used once: a later read, with no change between, reads the clocks again)
        return page_state(latest if latest is not None else self.session.state(now),
                          brightness=config.leds.brightness,
                          engine={"level": engine.level, "elo": engine.elo, "move_time": engine.move_time})

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        def published(state: SessionState) -> None:
            self._latest = state
            listener()
        unsubscribe = self.session.subscribe(published)
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

    def led_colours(self) -> dict[str, str]:
        style = self.session.style
        return {role: f"#{getattr(style, role):06x}" for role in LED_ROLES["en"]}

    def give_back(self, color: str, now: float) -> Any:
        return self._call(self.session.give_back, color, now)

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

    def correct(self, move: str, now: float) -> Any:
        return self._call(self.session.correct, move, now)

    def claim_when_gone(self, what: str, now: float) -> Any:
        return self._call(self.session.claim_when_gone, what, now)


__all__ = ["SessionBackend", "page_state", "once"]
