"""What the web companion needs from the service: the page's state, changes, and the player's commands.

The page draws one JSON object, the *page state*; the server sends it over the websocket
each time the session changes. A :class:`Backend` turns the session into that object and the
page's requests into session commands; :mod:`firmware.web.session_backend` adapts the real
:class:`~firmware.session.session.Session`, the tests use a fake.

The page state is the session's one JSON shape (:func:`firmware.session.state.to_json`, the same
object ``Session.snapshot()`` returns and the club publisher reads), plus ``seq`` and ``sim`` from
the server; docs/state.schema.json describes every key (JSON Schema 2020-12, ``"schema": 1``).
"""
from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from chess_core import Move, Position
from chess_core.squares import COLOR_NAMES

from firmware.config import OpponentKind
from uci.helper import HelperEngine
from firmware.referee.feedback import LedStyle
from firmware.referee.match import PROMOTION_LETTERS
from firmware.words import FALLBACK, LED_ROLES, Refusal

Listener = Callable[[], None]

PROMOTION_PIECES = tuple(PROMOTION_LETTERS)
DRAW_ACTIONS = ("offer", "accept", "decline", "claim")
CLOCK_ACTIONS = ("pause", "resume")
COLOURS = COLOR_NAMES
COLOUR_CHOICES = ("as-entered", "swap", "random")
OPPONENTS = tuple(kind.value for kind in OpponentKind)
ENGINE_SIDES = ("white", "black", "random")   # the page draws a random side; the session alternates
COACHED = {"none": (False, False), "white": (True, False), "black": (False, True), "both": (True, True)}   # sides helped
TAKEBACK_ANSWERS = ("accept", "decline")
CLAIMS_WHEN_GONE = ("victory", "draw")
SETTINGS = ("show_legal", "touch_move", "alternate_colours", "brightness", "engine_level", "engine_elo",
            "engine_move_time", "takebacks", "coach_white", "coach_black", "coach_hints")


class CommandRefused(Refusal):
    """A page's command that is well formed but not possible now (no valid claim, game over...): a 409,
    in the player's words (``CommandRefused(key, **values)``, a refusal of firmware/words).

    Not :class:`firmware.opponents.base.ActionRefused` (the other end of an online game refused a
    decision): the session reports that one as a problem of the game, never as the command's answer.
    """


class Backend:
    """The session as the page sees it.

    A backend **must** override ``state``, ``subscribe``, ``position`` and every command it
    supports; a command it does not support raises :class:`CommandRefused` (the default). A
    command's answer may be an awaitable (the board's loop carries it out later): the server
    awaits it, and a refusal may come from it. Colours are "white"/"black"; times are seconds
    from the service's monotonic clock.
    """

    def state(self, now: float) -> dict[str, Any]:
        raise NotImplementedError

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener()`` (no argument) after every change; returns the unsubscriber."""
        raise NotImplementedError

    def position(self) -> Position:
        """The position the game knows now (the simulator's hand reads identities from it)."""
        raise NotImplementedError

    def setting_up(self) -> bool:
        """Whether a position is being set up by hand, the board leading (the state's ``setup``, not
        done): ``position()`` is then the target, not what stands on the board."""
        return False

    def new_game(self, *, white: str, black: str, time_control: str, rules: str, colours: str, now: float,
                 fen: str | None = None, opponent: str | None = None, engine_side: str | None = None,
                 engine_level: int | None = None, player: str | None = None, variant: str | None = None,
                 start_position: int | None = None, coach: str | None = None, hints: bool | None = None) -> Any:
        """``opponent``: "none" (two players over the board), "engine", "lichess"; None keeps the
        configured one. ``variant`` "standard" or "chess960" (None: as configured), and for
        Chess960 ``start_position`` (0-959, -1: drawn for each game). Against the engine, ``engine_side`` is the side it plays ("random": drawn)
        and ``player`` the name of the side played on the board; online, the names are the
        server's. ``coach``: the sides the coach helps (one of ``COACHED``; the engine's side never
        is), ``hints``: whether they may ask for hints; None keeps the configured ones."""
        raise CommandRefused("no_new_game_here")

    def set_up_position(self, fen: str, now: float) -> Any:
        """The next game from ``fen``, the board leading the hand there (POST /api/position/setup)."""
        raise CommandRefused("no_new_game_here")

    def start_training(self, drills: tuple[Any, ...], player: str, progresses: dict[str, Any], now: float | None) -> Any:
        """Begin a training of ``drills`` (firmware.training.drill) for ``player`` (firmware.web.training_pages)."""
        raise CommandRefused("no_drills")

    def next_training(self, now: float) -> Any:
        raise CommandRefused("no_drills")

    def stop_training(self, now: float) -> Any:
        raise CommandRefused("no_drills")

    def player_name(self) -> str:
        """Whose training progress counts by default: the board's White player."""
        return "White"

    def training_progress(self) -> Any:
        """The players' training progress the board holds (None: not read yet)."""
        return None

    def resign(self, color: str, now: float) -> Any:
        raise CommandRefused("no_resign_here")

    def draw(self, action: str, color: str, now: float) -> Any:
        raise CommandRefused("no_draw_here")

    def promote(self, piece: str, now: float) -> Any:
        raise CommandRefused("no_promotion")

    def clock(self, action: str, now: float) -> Any:
        raise CommandRefused("no_pause_here")

    def takeback(self, now: float) -> Any:
        raise CommandRefused("no_takeback_here")

    def hint(self, now: float) -> Any:
        """The coach's hint for the side to move (firmware.session.coach)."""
        raise CommandRefused("not_coached")

    def answer_takeback(self, action: str, now: float) -> Any:
        """Accept or decline the opponent's takeback offer (an online game)."""
        raise CommandRefused("no_takeback_offer_answer")

    def take_over(self, color: str, now: float) -> Any:
        """The computer plays ``color`` for the rest of the game (its player has to leave)."""
        raise CommandRefused("no_takeover_here")

    def led_colours(self) -> dict[str, str]:
        """The colour ("#rrggbb") of each LED role that has one set ([leds] colours); the legend
        itself shows the roles lit now, in the state (``lit_roles``)."""
        style = LedStyle()
        return {role: f"#{colour:06x}" for role in LED_ROLES[FALLBACK] if (colour := getattr(style, role, None)) is not None}

    def correct(self, move: str, now: float) -> Any:
        """The last move was recorded wrong: ``move`` (UCI), one of the page state's ``corrections``."""
        raise CommandRefused("no_move_to_correct")

    def give_back(self, color: str, now: float) -> Any:
        """The player of ``color``, taken over by the computer, is back and plays on."""
        raise CommandRefused("no_giveback_here")

    def settings(self, changes: dict[str, Any], now: float) -> Any:
        raise CommandRefused("no_settings_here")

    def lichess_login(self, token: str, now: float) -> Awaitable[None] | None:
        """Connect the Lichess account of ``token``; the token is kept by the service and never
        shown again (not in the page state, not in a message)."""
        raise CommandRefused("no_online_here")

    def lichess_logout(self, now: float) -> Any:
        raise CommandRefused("no_online_here")

    def claim_when_gone(self, what: str, now: float) -> Any:
        """The other player left the online game: claim the win ("victory") or a draw ("draw")."""
        raise CommandRefused("no_online_here")

    def show_on_board(self, played: Move | None, best: Move | None, now: float) -> bool:
        """Light a reviewed game's move ``played`` and the engine's ``best`` move on the board's
        LEDs (both None: the game's own LEDs again) while no game is being played; False when
        the board cannot show them now (a game is being played, or no board here)."""
        return False

    def idle(self) -> bool:
        """Whether no game is being played (the library's analyses may run unasked)."""
        return True

    def engine_path(self) -> str:
        """The UCI engine the library's analyses run."""
        return "/usr/games/stockfish"

    def helper_engine(self) -> HelperEngine | None:
        """The service's shared helper engine (the coach's), which the analyses use too; None: none
        here (the analyses then run one of their own)."""
        return None

    def said(self) -> dict[str, Any] | None:
        """The latest announcement for the page (the page state's ``said``; firmware.web.spoken)."""
        return None

    def voice(self, what: str | None, lang: str, now: float, mute: bool | None = None) -> dict[str, Any]:
        """The page asks for "repeat", "describe" or "clocks" (None: it says its language only;
        ``mute``: the page's switch of the board's voice): ``{"text": what to say, "board": whether
        the board has a voice, "muted": whether it is switched off}``."""
        return {"text": "", "board": False, "muted": False}

    def close(self) -> None:
        """Release what the backend holds (subscriptions); idempotent."""


__all__ = ["Backend", "CommandRefused", "Listener", "PROMOTION_PIECES", "DRAW_ACTIONS", "CLOCK_ACTIONS",
           "COLOURS", "COLOUR_CHOICES", "OPPONENTS", "ENGINE_SIDES", "COACHED", "TAKEBACK_ANSWERS", "SETTINGS",
           "CLAIMS_WHEN_GONE"]
