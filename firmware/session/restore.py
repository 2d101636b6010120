"""Continuing a game played before: a saved record after a restart, or the whole game an online server sends."""
from __future__ import annotations

import dataclasses

from board_driver.debounce import Debouncer

from firmware.opponents.base import GameSync
from firmware.referee.match import Match, MatchConfig
from firmware.session.recorder import GameRecord


def restore_match(config: MatchConfig, record: GameRecord, now: float, *, guide_back: bool = False,
                  debouncer: Debouncer | None = None) -> Match:
    """A Match that continues ``record`` at ``now`` (see ``Match.restore``): its moves, outcome and
    clocks; the side to move's clock runs again with the time it had after the last move. The last
    move may still be amended (a cut while its mover was correcting it)."""
    config = dataclasses.replace(config, fen=record.start_fen, rules=record.rules, time_control=record.time_control,
                                 chess960=record.variant == "chess960")
    return Match.restore(config, record.moves, now, outcome=record.get_outcome(), remaining=record.remaining,
                         clocks=record.clocks, guide_back=guide_back, amend_last=not guide_back, debouncer=debouncer)


def synced_match(config: MatchConfig, sync: GameSync, now: float, previous: Match) -> Match:
    """A Match that continues the game the other end sent, on the board of ``previous`` (its
    debouncer carried over): its moves are final, its clocks the server's (the board's does not
    run), no board takebacks, and the pieces are guided back first."""
    debouncer = previous.debouncer
    config = dataclasses.replace(config, fen=sync.start_fen, time_control="-", takebacks=False, chess960=sync.chess960)
    return Match.restore(config, list(sync.moves), now, guide_back=True, debouncer=debouncer)


def continues(record: GameRecord | None, sync: GameSync, previous: GameSync | None, same_start: bool,
              moves_now: list) -> bool:
    """Whether ``sync`` continues the game of ``record`` (same online id, or, without ids, the same
    moves one way or the other since the last sync): then its PGN file is kept."""
    if record is None:
        return False
    if sync.game_id is not None:
        return record.online_id == sync.game_id   # (also the game saved before a restart)
    moves = list(sync.moves)
    return previous is not None and same_start and (moves[:len(moves_now)] == moves_now
                                                    or moves_now[:len(moves)] == moves)


def follow_sync(record: GameRecord, sync: GameSync, names: tuple[str, str], rules: str, now: float) -> None:
    """Make ``record`` the game of ``sync``: names, start, moves (their clocks unknown), no outcome yet."""
    moves = list(sync.moves)
    record.white, record.black = names
    record.start_fen, record.rules = sync.start_fen, rules
    record.variant = "chess960" if sync.chess960 else "standard"
    record.time_control = sync.time_control or "-"
    record.moves, record.clocks = [m.uci() for m in moves], [None] * len(moves)
    record.outcome, record.remaining, record.event_time = None, None, now
    record.comments = {ply: text for ply, text in record.comments.items() if int(ply) <= len(moves)}


__all__ = ["restore_match", "synced_match", "continues", "follow_sync"]
