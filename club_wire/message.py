"""The board's game message (from a session snapshot) and the hub's pairing message, as JSON (pure)."""
from __future__ import annotations

import json
from typing import Any

from club_wire.topics import FORMAT

MAX_NAME = 80
PAIRING_GAME_KEYS = ("time_control", "rules", "round", "event", "draw_offers_from_move")


def game_message(board: str, snap: dict[str, Any], sent: float) -> bytes:
    """What a board publishes after a change: the whole game, so the latest message is enough.

    ``sent`` is the wall-clock time (s) of the change, for the hub's latency figures.
    """
    clocks = snap.get("clocks") or {}
    players = snap.get("players") or {}
    moves = snap.get("moves") or {}
    body = {
        "v": FORMAT, "board": board, "game": snap.get("game_file"), "sent": round(sent, 4),
        "white": players.get("white"), "black": players.get("black"),
        "event": snap.get("event"), "round": snap.get("round"),
        "start_fen": snap.get("start_fen"), "variant": "chess960" if snap.get("chess960") else "standard",
        "rules": snap.get("rules"),
        "time_control": snap.get("time_control"),
        "started": bool(snap.get("started")),
        "moves": list(moves.get("uci") or []), "clocks": list(snap.get("move_clocks") or []),
        "remaining": {"white": clocks.get("white"), "black": clocks.get("black")},
        "running": clocks.get("running"),
        "fen": snap.get("fen"), "result": snap.get("result"), "termination": snap.get("termination"),
        "status": _text(snap.get("status")),
    }
    return json.dumps(body, separators=(",", ":")).encode()


def _text(said: Any) -> str | None:
    """The status line's words: the state's message carries them in ``text`` when asked for (the
    board's publisher asks for English); a plain string stands as it is."""
    if isinstance(said, dict):
        text = said.get("text")
        return text if isinstance(text, str) else None
    return said if isinstance(said, str) else None


def pairing_message(white: str, black: str, **game: Any) -> bytes:
    """What the hub publishes for a board: the players and the round's settings."""
    body = {"v": FORMAT, "white": white, "black": black}
    body.update({k: v for k, v in game.items() if k in PAIRING_GAME_KEYS and v is not None})
    return json.dumps(body, separators=(",", ":")).encode()


def _name(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    text = " ".join(value.split())
    if not text or len(text) > MAX_NAME or not text.isprintable():
        return None
    return text


def parse_pairing(payload: bytes) -> tuple[str, str, dict[str, Any]]:
    """(white, black, [game] settings) of a pairing message; ValueError says what is wrong.

    >>> parse_pairing(b'{"v":1,"white":"Ada","black":"Bo","round":"3"}')
    ('Ada', 'Bo', {'round': '3'})
    """
    try:
        data = json.loads(payload)
    except (ValueError, UnicodeDecodeError):
        raise ValueError("a pairing message is JSON") from None
    if not isinstance(data, dict) or data.get("v") != FORMAT:
        raise ValueError(f"a pairing message is a version {FORMAT} JSON object")
    white, black = _name(data.get("white")), _name(data.get("black"))
    if white is None or black is None:
        raise ValueError(f"a pairing names both players in up to {MAX_NAME} printable characters")
    game: dict[str, Any] = {}
    for key in PAIRING_GAME_KEYS:
        if key not in data:
            continue
        value = data[key]
        if key == "draw_offers_from_move":
            if not isinstance(value, int) or isinstance(value, bool):
                raise ValueError("draw_offers_from_move is a move number")
        elif not isinstance(value, str) or len(value) > MAX_NAME or not value.isprintable():
            raise ValueError(f"{key} is a short text")
        game[key] = value
    return white, black, game
