"""A fake backend for the server tests: a chess_core Game behind the Backend interface, commands recorded."""
from __future__ import annotations

from typing import Any

from chess_core import SQUARE_NAMES, Game, Move, Position, format_clock
from firmware.web.backend import CommandRefused, Backend
from firmware.words import message_json, outcome_text, side_to_move


LOGGED_OUT = {"logged_in": False, "account": None, "connected": False, "link": None, "game": None, "status": None}


class FakeBackend(Backend):
    def __init__(self, fen: str | None = None, board=None) -> None:
        self.game = Game(fen)
        self.board = board
        self.calls: list[tuple] = []
        self.listeners: list = []
        self.settings_values = {"show_legal": True, "touch_move": False, "alternate_colours": True,
                                "brightness": 0.5, "engine_level": 8, "engine_elo": 0, "engine_move_time": 1.0,
                                "takebacks": False, "coach_white": False, "coach_black": False, "coach_hints": True,
                                "lichess": LOGGED_OUT}
        self.opponent = {"kind": "none", "name": None, "sides": [], "text": None, "link": None,
                         "assistance_allowed": True, "takeover": None, "away": None}
        self.takeback_offer: str | None = None
        self.login_error: str | None = None
        self.white_ms: int | None = 300_000
        self.black_ms: int | None = 300_000
        self.leds = [0] * 64
        self.claims: list[str] = []

    # -- Backend ------------------------------------------------------------------------------
    def subscribe(self, listener):
        self.listeners.append(listener)
        return lambda: self.listeners.remove(listener)

    def notify(self) -> None:
        for listener in list(self.listeners):
            listener()

    def position(self) -> Position:
        return self.game.position

    def state(self, now: float) -> dict[str, Any]:
        """The page state in the session's one shape (docs/state.schema.json), of the fake's game."""
        pos = self.game.position
        occupied = self.board.occupied if self.board is not None else pos.occupied
        outcome = self.game.outcome
        turn = "white" if pos.turn == 0 else "black"
        status = message_json(outcome_text(outcome) if outcome else side_to_move(pos.turn))
        settings = {k: v for k, v in self.settings_values.items() if k != "lichess"}
        return {
            "schema": 2,
            "time": now,
            "status": status,
            "notes": [],
            "started": True,
            "over": outcome is not None,
            "result": outcome.result() if outcome else "*",
            "termination": outcome.termination.value if outcome else None,
            "winner": (None if outcome.winner is None else ("white", "black")[outcome.winner]) if outcome else None,
            "ending": status if outcome else None,
            "turn": turn,
            "check": pos.is_check(),
            "fen": pos.fen(),
            "start_fen": self.game.start_fen,
            "chess960": False,
            "rules": self.game.rules,
            "time_control": "300",
            "round": "-",
            "event": "",
            "players": {"white": "White", "black": "Black"},
            "moves": {"uci": [m.uci() for m in self.game.moves], "san": self.game.san_moves("en")},
            "last_move": self.game.moves[-1].uci() if self.game.moves else None,
            "move_clocks": [],
            "restored_moves": 0,
            "occupied": [SQUARE_NAMES[s] for s in range(64) if occupied >> s & 1],
            "lifted": [SQUARE_NAMES[s] for s in range(64) if (pos.occupied & ~occupied) >> s & 1],
            "wrong": [],
            "touched": None,
            "leds": [f"#{c:06x}" if c else "" for c in self.leds],
            "expected_move": None,
            "takeback_move": None,
            "promotion": None,
            "next_promotion": "q",
            "draw_offer": None,
            "takeback_offer": self.takeback_offer,
            "claimable_draws": list(self.claims),
            "can_takeback": bool(self.game.moves),
            "take_over": [] if outcome else [s for s in ("white", "black") if s not in self.opponent["sides"]],
            "clocks": {"white": self.white_ms, "black": self.black_ms,
                       "white_text": format_clock(self.white_ms), "black_text": format_clock(self.black_ms),
                       "running": None if outcome else turn, "paused": False, "delay_left": 0, "sandclock": False},
            "problems": [],
            "problem_times": [],
            "corrections": [],
            "gesture": None,
            "leds_problem": None,
            "save_problem": None,
            "game_file": None,
            "settings": {**settings, "time_control": "300", "rules": "fide", "opponent": "none"},
            "opponent": dict(self.opponent),
            "lichess": dict(self.settings_values["lichess"]),
            "online": {"chat": [], "notice": None, "first_move_ms": None,
                       "orientation": "white"},
        }

    def new_game(self, **kw) -> None:
        self.calls.append(("new_game", kw))
        self.game = Game(None, kw["rules"])

    def resign(self, color, now) -> None:
        self.calls.append(("resign", color))
        if self.game.is_over:
            raise CommandRefused("game_over", outcome=self.game.outcome.describe())
        self.game.resign(0 if color == "white" else 1)

    def draw(self, action, color, now) -> None:
        self.calls.append(("draw", action, color))
        if action == "claim" and not self.claims:
            raise CommandRefused("no_claim_now")

    def promote(self, piece, now) -> None:
        self.calls.append(("promote", piece))

    def clock(self, action, now) -> None:
        self.calls.append(("clock", action))

    def takeback(self, now) -> None:
        self.calls.append(("takeback",))
        self.game.pop()

    def settings(self, changes, now) -> None:
        self.calls.append(("settings", changes))
        self.settings_values.update(changes)

    def answer_takeback(self, action, now) -> None:
        self.calls.append(("answer_takeback", action))
        if self.takeback_offer is None:
            raise CommandRefused("no_takeback_offer_answer")
        self.takeback_offer = None

    def take_over(self, color, now) -> None:
        self.calls.append(("take_over", color))
        self.opponent = {**self.opponent, "kind": "engine", "name": "Stockfish",
                         "sides": sorted({*self.opponent["sides"], color})}

    async def lichess_login(self, token, now) -> None:
        self.calls.append(("lichess_login", "<token>"))   # never kept: the fake forgets it at once
        if self.login_error is not None:
            raise CommandRefused("token_not_kept", path="lichess.token", reason=self.login_error.format(token=token))
        self.settings_values["lichess"] = {"logged_in": True, "account": "anna", "connected": True,
                                           "link": {"state": "connected", "detail": ""}, "game": None, "status": None}

    def lichess_logout(self, now) -> None:
        self.calls.append(("lichess_logout",))
        self.settings_values["lichess"] = LOGGED_OUT

    # -- test helpers ----------------------------------------------------------------------------
    def play(self, *ucis: str) -> None:
        for uci in ucis:
            self.game.push(Move.from_uci(uci))
        self.notify()


__all__ = ["FakeBackend", "format_clock"]
