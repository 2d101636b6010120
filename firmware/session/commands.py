"""The words and checks of the session's commands: their error, the settings that may change, colours and sides."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chess_core import Game, Move, Outcome
from chess_core.clock import ClockError

from firmware.config import ENGINE_SIDES
from firmware.leds.compose import Layer
from firmware.session.effects import Keep
from firmware.session.lights import Held
from firmware.session.state import Phase
from firmware.words import DEFAULT_NAMES, Refusal, in_english, outcome_text
from firmware.words.message import SidePlayed

if TYPE_CHECKING:
    from firmware.session.app_link import AppLink

# The settings a command may change, by section of the configuration.
SETTINGS = {"game": ("white", "black", "time_control", "rules", "alternate_colours", "show_legal_squares",
                     "touch_move", "takebacks", "event", "site"),
            "leds": ("brightness", "low_time_s"),
            "gestures": ("enabled", "resign_s", "draw_s"),
            "engine": ("level", "elo", "move_time", "side"),
            "coach": ("white", "black", "hints")}


class SessionError(Refusal, ValueError):
    """A command that cannot be carried out now: ``SessionError(key, **values)``, the refusal
    ``key`` of firmware/words (what to do instead, in every language); ``str()`` is the English."""


def colours_changed(names: tuple[str, str]) -> tuple[str, str]:
    """The players change colours: each name goes to the other side, except a side's default name
    ("White", "Black": nobody named that player), which stays with its side, whatever the colours."""
    default = DEFAULT_NAMES
    white, black = names[1], names[0]
    return (default[0] if white in default else white, default[1] if black in default else black)


def side_played(side: int) -> SidePlayed:
    """A side as someone plays it, said in any language: "White" / "les Blancs"."""
    return SidePlayed(side)


def claim_refused(game: Game, move: Move | None) -> SessionError:
    """Why no draw can be claimed (with ``move``, if given): the repetitions and the moves counted."""
    counts = {"times": game.repetition_count(), "halfmoves": game.position.halfmove_clock}
    return SessionError("no_claim_with", move=move.uci(), **counts) if move else SessionError("no_claim", **counts)


def game_over(outcome: Outcome) -> SessionError:
    """A command that needs a game in progress, after ``outcome``."""
    return SessionError("game_over", outcome=outcome_text(outcome))


def takeback_refused(allowed: bool, exc: Exception) -> SessionError:
    """Why the match refused a takeback: not allowed in this game, the clock cannot go back (its
    English in the English), or there is no move to take back (the match's only other reason)."""
    if not allowed:
        return SessionError("takebacks_off")
    if isinstance(exc, ClockError):
        return SessionError("takeback_impossible", detail=in_english(str(exc)))
    return SessionError("no_move_to_take_back")


def colour(value: Any) -> int:
    """WHITE (0) or BLACK (1) from 0/1 or "white"/"w"/"black"/"b"; SessionError else."""
    if value in ("white", "w"):
        return 0
    if value in ("black", "b"):
        return 1
    if type(value) is int and value in (0, 1):
        return value
    raise SessionError("bad_colour", value=repr(value))


def engine_side_choice(side: Any) -> None:
    """SessionError unless ``side`` is a side the engine may be asked to play."""
    if side is not None and side not in ENGINE_SIDES:
        raise SessionError("bad_engine_side", sides=", ".join(ENGINE_SIDES), value=repr(side))


def settings_sections(changes: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """``update_settings`` keywords as configuration sections: a key (``brightness=0.3``) goes to
    its section; a section (``engine={"level": 5}``) is taken whole, its keys checked."""
    sections: dict[str, dict[str, Any]] = {}
    for key, value in changes.items():
        if key in SETTINGS:
            if not isinstance(value, dict):
                raise SessionError("settings_table", setting=key)
            unknown = sorted(set(value) - set(SETTINGS[key]))
            if unknown:
                raise SessionError("not_a_setting", setting=f"{key}.{unknown[0]}")
            sections.setdefault(key, {}).update(value)
            continue
        section = next((s for s, keys in SETTINGS.items() if key in keys), None)
        if section is None:
            raise SessionError("not_a_setting", setting=key)
        sections.setdefault(section, {})[key] = value
    return sections


def rename(session: Any, side: int, name: str) -> None:
    """The player of ``side`` bears ``name`` (the engine's, a take-over's tag, the player's again)."""
    names = session.board_state.names
    session.set_names((name, names[1]) if side == 0 else (names[0], name))


def show_on_board(session: Any, layer: Layer | None, now: float) -> None:
    """The page's layer on the LEDs while no game is played and the board stays as it is (the
    library's moves of a game reviewed; None: the game's LEDs again)."""
    held = session.board_state.lights
    lights = held.removed("review") if layer is None else held.pushed(
        Held(layer, on_board=True, ply=len(session.game.moves), idle=True))
    session.carry_out([Keep(lights=lights)], now)
    session.refresh(now)


def push_layer(session: Any, layer: Layer, now: float | None = None) -> None:
    """``layer`` on the LEDs, in the place of the one of its name, until its ``until`` or
    ``remove_layer`` (the pairing code, an app's lights, the page that cannot listen)."""
    now = session.clock() if now is None else now
    session.carry_out([Keep(lights=session.board_state.lights.pushed(Held(layer)))], now)
    session.refresh(now)


def remove_layer(session: Any, name: str, now: float | None = None) -> None:
    """The layer ``name`` off the LEDs (none: nothing changes)."""
    now = session.clock() if now is None else now
    session.carry_out([Keep(lights=session.board_state.lights.removed(name))], now)
    session.refresh(now)


def helper_failed(session: Any, name: str) -> None:
    """A helper beside the game failed (``name``: "voice", "coach"): the page says it, once."""
    if name not in session.board_state.failed_helpers:
        session.carry_out([Keep(failed_helpers=(*session.board_state.failed_helpers, name))], session.clock())
        session.publish()


def attach_app(session: Any, link: AppLink | None) -> None:
    """``link`` attached to the board, or its lights changed (None: the app left it): the page
    says so and shows its lights, and the game in progress is tagged with the app's name (games
    begun while it stays are tagged at their start); the players are told at once."""
    session.carry_out([Keep(app=link)], session.clock())
    record = session.file.record
    if link is not None and record is not None and any(record.tags.get(k) != v for k, v in link.tags().items()):
        record.tags = {**record.tags, **link.tags()}
        session.file.dirty = True
    session.publish()


def require_live(session: Any, over_ok: bool = False) -> None:
    """Refuse a command that needs a game in progress (``over_ok``: or one just ended on the board)."""
    if session.board_state.phase is Phase.SETTING_UP:
        raise SessionError("no_game")
    outcome = session.game.outcome
    if outcome is not None and not over_ok:
        raise game_over(outcome)


__all__ = ["require_live", "attach_app", "push_layer", "remove_layer", "SETTINGS", "SessionError", "rename", "show_on_board", "helper_failed", "claim_refused", "colour", "colours_changed", "engine_side_choice", "game_over", "settings_sections",
           "side_played", "takeback_refused"]
