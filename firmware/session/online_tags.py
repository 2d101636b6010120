"""The PGN tags of an online game, as the server's own export writes them (Lichess: Event, ratings, UTC date, id)."""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Optional


def online_tags(sync: Any) -> dict[str, str]:
    """Tags for the PGN of the online game ``sync`` (a ``GameSync``), only those it knows.

    >>> from firmware.opponents.base import GameSync, Player
    >>> tags = online_tags(GameSync(white=Player("Bobby", 1751), black=Player("Mary", None, title="WGM"),
    ...                    game_id="BEOucQJo", rated=False, speed="rapid", created_at_ms=1745112707998))
    >>> [f"{k}={v}" for k, v in tags.items()]  # doctest: +NORMALIZE_WHITESPACE
    ['Event=casual rapid game', 'GameId=BEOucQJo', 'WhiteElo=1751', 'BlackElo=?', 'BlackTitle=WGM',
     'UTCDate=2025.04.20', 'UTCTime=01:31:47', 'Variant=Standard']
    """
    tags: dict[str, str] = {}
    speed = getattr(sync, "speed", None)
    if speed:
        tags["Event"] = f"{'rated' if getattr(sync, 'rated', False) else 'casual'} {speed} game"
    game_id = getattr(sync, "game_id", None)
    if game_id:
        tags["GameId"] = str(game_id)
    for colour, player in (("White", getattr(sync, "white", None)), ("Black", getattr(sync, "black", None))):
        if player is None:
            continue
        rating: Optional[int] = getattr(player, "rating", None)
        tags[f"{colour}Elo"] = str(rating) if rating is not None else "?"
        if getattr(player, "title", None):
            tags[f"{colour}Title"] = str(player.title)
    created = getattr(sync, "created_at_ms", None)
    if isinstance(created, int):
        when = datetime.fromtimestamp(created / 1000, timezone.utc)
        tags["UTCDate"], tags["UTCTime"] = f"{when:%Y.%m.%d}", f"{when:%H:%M:%S}"
    tags["Variant"] = str(getattr(sync, "variant", None) or "Standard")
    return tags
