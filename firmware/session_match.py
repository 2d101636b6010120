"""What the session does to a Match that Match has no public call for: restore a saved game,
change the piece of a promotion just made."""
from __future__ import annotations

import dataclasses

from chess_core import Move, Position, san
from chess_core.clock import Clock
from chess_core.squares import BLACK, WHITE

from .match import GameOver, Match, MatchConfig, MatchEvent, MoveMade
from .recorder import GameRecord


def _never_dead(position: Position) -> bool:
    return False


def _ms(seconds: float) -> int:
    return int(round(seconds * 1000))


def restore_match(config: MatchConfig, record: GameRecord, now: float, *, guide_back: bool = False) -> Match:
    """A Match that continues ``record`` at ``now``: started, with its moves, outcome and clocks.

    The side to move's clock runs again from ``now`` with the time it had after the last move
    (the time between that move and the restart is charged to nobody). Moves made before the
    restart are final: the board cannot amend or take them back (the inference starts from the
    position alone), and neither can the clock. With ``guide_back`` the board must be brought to
    the position before anything counts (a game decided elsewhere); without it, a board that
    shows one more legal move (made before a cut, not yet saved) has that move made again.

    Match has no public way to load a game, so this sets the few attributes that its
    ``_setup`` sets, to the values they would have after playing the saved moves.
    """
    match = Match(dataclasses.replace(config, fen=record.start_fen, rules=record.rules,
                                      time_control=record.time_control))
    # No position before the last was dead (the game would have ended there), and the record
    # says how the game ended: the exact dead-position search, costly, is skipped while the
    # moves are pushed again (Game has no bulk load, so its hook is swapped for the while).
    game = match.game
    exact, game._dead = game._dead, _never_dead
    try:
        for uci in record.moves:
            game.push(Move.from_uci(uci))
    finally:
        game._dead = exact
    outcome = record.get_outcome()
    if outcome is not None and match.game.outcome != outcome:
        match.game.outcome = outcome
    start = Position(record.start_fen)
    plies = len(record.moves)
    first = start.turn
    moves_first, moves_second = (plies + 1) // 2, plies // 2
    made = {first: moves_first, first ^ 1: moves_second}
    now_ms = _ms(now)
    times = {}
    if match.time_control.timed and record.remaining is not None:
        times = {"start_ms_white": record.remaining[WHITE], "start_ms_black": record.remaining[BLACK]}
    match.clock = Clock(match.time_control, moves_white=made[WHITE], moves_black=made[BLACK], **times)
    match.clock.start(now_ms, match.game.turn)
    if match.game.is_over:
        match.clock.pause(now_ms)
    match.started = True
    match.clocks_after_move = list(record.clocks)
    match._clock_ms = now_ms
    match._press_ms = [now_ms] * plies
    match.inference.reset(Position(match.game.fen()), guide_back=guide_back)
    return match


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
