"""The PGN tags of an online game, as the server's own export writes them (Lichess: Event, ratings, UTC date, id)."""
from __future__ import annotations

from datetime import datetime, timezone

from firmware.opponents.base import GameSync


def online_tags(sync: GameSync) -> dict[str, str]:
    """Tags for the PGN of the online game ``sync`` (a ``GameSync``), only those it knows.

    >>> from firmware.opponents.base import GameSync, Player
    >>> tags = online_tags(GameSync(white=Player("Bobby", 1751), black=Player("Mary", None, title="WGM"),
    ...                    game_id="BEOucQJo", rated=False, speed="rapid", created_at_ms=1745112707998))
    >>> [f"{k}={v}" for k, v in tags.items()]  # doctest: +NORMALIZE_WHITESPACE
    ['Event=casual rapid game', 'GameId=BEOucQJo', 'WhiteElo=1751', 'BlackElo=?', 'BlackTitle=WGM',
     'UTCDate=2025.04.20', 'UTCTime=01:31:47', 'Variant=Standard']
    """
    tags: dict[str, str] = {}
    if sync.speed:
        tags["Event"] = f"{'rated' if sync.rated else 'casual'} {sync.speed} game"
    if sync.game_id:
        tags["GameId"] = str(sync.game_id)
    for colour, player in (("White", sync.white), ("Black", sync.black)):
        if player is None:
            continue
        tags[f"{colour}Elo"] = str(player.rating) if player.rating is not None else "?"
        if player.title:
            tags[f"{colour}Title"] = str(player.title)
    created = sync.created_at_ms
    if isinstance(created, int):
        when = datetime.fromtimestamp(created / 1000, timezone.utc)
        tags["UTCDate"], tags["UTCTime"] = f"{when:%Y.%m.%d}", f"{when:%H:%M:%S}"
    tags["Variant"] = str(sync.variant or "Standard")
    return tags
