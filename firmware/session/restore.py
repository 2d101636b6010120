"""What the session does to a Match beyond playing it: continue a saved game, change the piece of
a promotion just made."""
from __future__ import annotations

import dataclasses

from chess_core import Move, san

from firmware.referee.match import GameOver, Match, MatchConfig, MatchEvent, MoveMade
from firmware.session.recorder import GameRecord


def restore_match(config: MatchConfig, record: GameRecord, now: float, *, guide_back: bool = False) -> Match:
    """A Match that continues ``record`` at ``now`` (see ``Match.restore``): its moves, outcome and
    clocks; the side to move's clock runs again with the time it had after the last move. The last
    move may still be amended (a cut while its mover was correcting it)."""
    config = dataclasses.replace(config, fen=record.start_fen, rules=record.rules, time_control=record.time_control,
                                 chess960=record.variant == "chess960")
    return Match.restore(config, record.moves, now, outcome=record.get_outcome(), remaining=record.remaining,
                         clocks=record.clocks, guide_back=guide_back, amend_last=not guide_back)


def amend_promotion(match: Match, piece_type: int, now: float) -> list[MatchEvent]:
    """Make the last move, a promotion, promote to ``piece_type`` instead; its time stays.

    The board shows the same squares either way, so the inference starts again from the new
    position and the reading it had. Returns the amended MoveMade (and GameOver if the new
    piece ends the game), or nothing when there is nothing to change.
    """
    game = match.game
    last = game.moves[-1] if game.moves else None
    if last is None or not last.promotion or last.promotion == piece_type or game.is_over:
        return []
    game.pop()
    move = Move(last.from_square, last.to_square, piece_type)
    text = san(game.position, move)
    outcome = game.push(move)
    match.inference.reset(game.position)
    board = match.debouncer.settled
    if board is not None:
        match.inference.feed(now, board.occupied, board.white, board.black)
    events: list[MatchEvent] = [MoveMade(move, text, now, amended=True)]
    if outcome is not None:
        events += match.pause(now)
        events.append(GameOver(outcome, now))
    return events
