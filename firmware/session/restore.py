"""Continuing a game played before: a saved record after a restart, a new game chosen before it, or the whole game an online server sends."""
from __future__ import annotations

import dataclasses
import logging

from typing import TYPE_CHECKING, Any

from board_driver.debounce import Debouncer
from chess_core import Position, parse_square
from chess_core.chess960 import rearranged

from firmware.config import SIMULATED, OpponentKind
from firmware.opponents.base import GameSync
from firmware.referee.match import Match, MatchConfig
from firmware.session.effects import Keep
from firmware.session.play import Play
from firmware.session.recorder import GameRecord, NextGame
from firmware.session.state import Phase
from firmware.training import progress as kept
from firmware.training.setup_guide import SetupGuide
from firmware.training.drill_codec import training_of_json

if TYPE_CHECKING:
    from firmware.session.session_view import SessionView

log = logging.getLogger(__name__)

# The settings a new game is chosen with (the page's new game, a club hub's pairing), kept with it.
CHOSEN_GAME = ("time_control", "rules", "variant", "fen", "start_position", "opponent", "event", "round",
               "alternate_colours", "draw_offers_from_move")
CHOSEN_ENGINE = ("side", "level")


def restore_saved(session: SessionView, now: float) -> bool:
    """After a restart: the saved game continued (its pieces then led back, firmware.session.setup_guidance),
    or the new game chosen before it waited for again (before the opponent starts), a setup under
    way led on from the pieces it believed, and a training under way gone on with. True if one
    was; a saved state that cannot be used is set aside, and the board starts without it."""
    record = session.file.recorder.load_saved()
    if record is None:
        return False
    try:
        if isinstance(record, NextGame):
            set_up_chosen(session, record, now)
            if record.pieces is not None and session.board_state.phase is Phase.SETTING_UP:
                believed = {parse_square(name): piece for name, piece in record.pieces.items()}
                occupied = sum(1 << sq for sq in believed)
                guide = SetupGuide.start(session.game.fen(), believed, occupied)   # (led on at the first reading)
                session.carry_out([Keep(setup=guide)], now)
            _go_on_training(session, record.training, now)
            log.info("restored the new game chosen: %s - %s", *session.board_state.names)
            return True
        match = restore_match(session.match_config(), record, now)
    except Exception as exc:  # noqa: BLE001 - no saved state may stop the board from starting
        session.file.recorder.set_aside(f"{type(exc).__name__}: {exc}"[:300])
        return False
    session.referee.resume(match)
    session.file.record = record
    # A finished game: setting up the start position begins the next one.
    session.carry_out([Keep(names=(record.white, record.black), play=Play(restored_plies=len(record.moves)),
                            phase=Phase.CLEARED if session.game.is_over else Phase.RESUMING)], now)
    if not session.game.is_over:
        session.seat.takeovers.restore(record.takeovers)   # the computer plays on for who left
    _go_on_training(session, record.training, now)
    session.seat.reset()  # it plays on from the restored game
    session.file.dirty = True  # the PGN is written again from the record: a cut may have left it behind
    log.info("restored %s: %d moves%s", record.pgn_name, len(record.moves),
             f", {outcome.describe()}" if (outcome := record.get_outcome()) is not None else "")
    return True


def _go_on_training(session: SessionView, saved: dict[str, Any] | None, now: float) -> None:
    """The drills under way before the restart go on (the game's or the chosen position's); a
    saved training that cannot be used is left out, the game kept."""
    if saved is None:
        return
    try:
        training = training_of_json(saved)
        moves = len(session.game.moves)
        if training.drill.fen != session.game.start_fen or not training.made <= moves <= training.made + 1:
            raise ValueError("not this game's drill")
    except ValueError as exc:
        log.error("the training saved cannot be used (%s): the game goes on without it", exc)
        return
    progress = session.board_state.progress
    if progress is None:   # (the players' progress, which the training counts in: read once, bounded)
        progress = kept.load(session.file.recorder.state_dir)
    session.carry_out([Keep(training=training, progress=progress)], now)
    session.trainer.resume(training)
    log.info("the training goes on: %s %s, %d more after it", training.drill.kind, training.drill.id, training.left)


def restore_match(config: MatchConfig, record: GameRecord, now: float, *, guide_back: bool = False,
                  debouncer: Debouncer | None = None) -> Match:
    """A Match that continues ``record`` at ``now`` (see ``Match.restore``): its moves, outcome and
    clocks; the side to move's clock runs again with the time it had after the last move. The last
    move may still be amended (a cut while its mover was correcting it)."""
    config = dataclasses.replace(config, fen=record.start_fen, rules=record.rules, time_control=record.time_control,
                                 chess960=record.variant == "chess960")
    return Match.restore(config, record.moves, now, outcome=record.get_outcome(), remaining=record.remaining,
                         clocks=record.clocks, guide_back=guide_back, amend_last=not guide_back, debouncer=debouncer)


def synced_match(config: MatchConfig, sync: GameSync, now: float) -> Match:
    """A Match that continues the game the other end sent (on the board as it stands: the referee
    resumes it with ``reread``): its moves are final, its clocks the server's (the board's does not
    run), no board takebacks, and the pieces are guided back first."""
    config = dataclasses.replace(config, fen=sync.start_fen, time_control="-", takebacks=False, chess960=sync.chess960)
    return Match.restore(config, list(sync.moves), now, guide_back=True)


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


def chosen_game(session: SessionView) -> NextGame:
    """The new game the session waits for, as saved until it begins (see :class:`NextGame`)."""
    g, e = session.config.game, session.config.engine
    given = session.board_state.given_names
    return NextGame(white=session.board_state.names[0], black=session.board_state.names[1], start_fen=session.game.start_fen,
                    given=list(given) if given is not None else None,
                    game={key: getattr(g, key) for key in CHOSEN_GAME},
                    engine={key: getattr(e, key) for key in CHOSEN_ENGINE},
                    engine_sides=sorted(session.seat.engine_sides))


def set_up_chosen(session: SessionView, chosen: NextGame, now: float) -> None:
    """After a restart, before the opponent starts: the session waits again for the new game
    chosen before it (names, start, settings, opponent). SessionError or ValueError if its
    settings cannot be used: the session's configuration and opponent are then unchanged (the
    opponent is built before it takes the seat, the configuration put back)."""
    config, choice = session.config, session.seat.choice
    try:
        session.change_config(game={key: chosen.game[key] for key in CHOSEN_GAME if key in chosen.game},
                              engine={key: chosen.engine[key] for key in CHOSEN_ENGINE if key in chosen.engine})
        session.seat.adopt(OpponentKind(session.config.game.opponent), frozenset(chosen.engine_sides))
        session.next_game(now, names=(chosen.white, chosen.black), fen=chosen.start_fen)
    except BaseException:
        session.seat.choose(choice)
        session.carry_out([Keep(config=config)], now)   # (as it was, whatever choose changed)
        raise
    session.carry_out([Keep(given_names=(chosen.given[0], chosen.given[1]) if chosen.given is not None else None)],
                      now)
    if session.game.chess960 and session.config.board.sensors not in SIMULATED:
        # as at power-on (the session's start): the usual first ranks are assumed on the board
        session.referee.arrange(rearranged(Position(), session.game.start_position()))
    session.file.choose(chosen_game(session))


__all__ = ["restore_saved", "restore_match", "synced_match", "continues", "follow_sync", "chosen_game", "set_up_chosen"]
