"""What the session's parts decide, as values: the board's state to keep and the effects to carry out, which the session alone does.

The reactions to the referee's events (:mod:`firmware.session.reactions`), the other side's news
(:mod:`firmware.session.other_side`), the coach's verdicts and the commands decide: they read
the session and hand their effects to ``Session.carry_out``, which keeps the new state
(:class:`Keep`: only session.py assigns the session's fields) and does the rest in order with
:func:`do`, one handler per kind of effect.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Union

from chess_core import Move, Outcome

from firmware.opponents.base import Action
from firmware.session.play import Play
from firmware.session.state import Phase

__all__ = ["do", "Effect", "Keep", "SAME", "Note", "StartRecord", "SetOutcome", "Abandon", "Comment", "RecordFault",
           "ClearFault", "Tell", "SeatReset", "SeatMoved", "SeatEnded", "TakebackLapses", "TakeoverComment",
           "NameEngineSides", "Step", "EndAsTold", "NextGame", "Publish", "SaveProgress"]


SAME: Any = object()
"""A field of :class:`Keep` left as it is."""


@dataclass(frozen=True)
class Keep:
    """The values the session keeps from now on: its phase, its game's :class:`Play`, the app
    attached, the names given to the next game, its configuration, the helpers that failed, the
    LEDs' style, the layers of LEDs held (``SAME``: unchanged)."""

    phase: Phase = SAME
    play: Play = SAME
    app: Any = SAME                  # an AppLink, or None
    names: Any = SAME                # tuple[str, str]: the players' names (a game restored)
    given_names: Any = SAME          # tuple[str | None, str | None] | None
    config: Any = SAME               # firmware.config.Config
    failed_helpers: Any = SAME       # tuple[str, ...]: the helpers that failed, said once on the page
    style: Any = SAME                # firmware.referee.feedback.LedStyle: the LEDs' colours and blinking
    lights: Any = SAME               # firmware.session.lights.Lights: the layers of LEDs held
    setup: Any = SAME                # firmware.training.setup_guide.SetupGuide, or None: a position set up by hand
    training: Any = SAME             # firmware.training.drill.Training, or None: the drills under way
    standing: Any = SAME             # str (FEN) or None: where the last game's pieces stood
    progress: Any = SAME             # dict[str, firmware.training.progress.Progress]: the players' training progress

    def changes(self) -> dict[str, Any]:
        """The session's fields this changes, by name."""
        return {name: value for name, value in vars(self).items() if value is not SAME}


@dataclass(frozen=True)
class Note:
    """The game's file notes the match as it stands (its moves, clocks, result) at ``time``."""

    time: float


@dataclass(frozen=True)
class StartRecord:
    """The game has begun: its file is made (names, rules, the app's tags) and notes it."""

    time: float


@dataclass(frozen=True)
class SetOutcome:
    """The file's result (None: the game goes on)."""

    outcome: Outcome | None


@dataclass(frozen=True)
class Abandon:
    """The game is left unfinished in its file (the next one begins)."""


@dataclass(frozen=True)
class Comment:
    """``text`` in the PGN after move ``ply``, once."""

    ply: int
    text: str


@dataclass(frozen=True)
class RecordFault:
    """A sensor found faulty, kept for the doctor and the next start."""

    square: int
    reads_piece: bool


@dataclass(frozen=True)
class ClearFault:
    """A sensor trusted again."""

    square: int


@dataclass(frozen=True)
class Tell:
    """The opponent is told of a decision at the board (a resignation, a draw offered...)."""

    action: Action


@dataclass(frozen=True)
class SeatReset:
    """The opponent reads the game again (it plays on from it)."""


@dataclass(frozen=True)
class SeatMoved:
    """The opponent hears of a move made on the board."""

    move: Move


@dataclass(frozen=True)
class SeatEnded:
    """The opponent's offers lapse: the game has ended."""


@dataclass(frozen=True)
class TakebackLapses:
    """The other side's takeback offer lapses (a move declines it)."""


@dataclass(frozen=True)
class TakeoverComment:
    """The computer's move for a player who left: said in the PGN."""

    mover: int


@dataclass(frozen=True)
class NameEngineSides:
    """The engine's sides bear its name, unless names were given."""

    given: tuple[str | None, str | None] | None


@dataclass(frozen=True)
class Step:
    """An order for the referee (:mod:`firmware.referee.orders`), its events carried out in turn;
    ``refused_ok``: a refusal (the match's ValueError) changes nothing and is not an error."""

    order: Any
    refused_ok: bool = False


@dataclass(frozen=True)
class EndAsTold:
    """The other end's result, now that its last move stands on the board."""

    outcome: Outcome


@dataclass(frozen=True)
class NextGame:
    """Set up the next game (its names as before, or alternated)."""


@dataclass(frozen=True)
class SaveProgress:
    """The players' training progress (``BoardState.progress``) is saved beside the games."""


@dataclass(frozen=True)
class Publish:
    """Something shown changed: the LEDs, the file and the subscribers are brought up to date."""


Effect = Union[Keep, Note, StartRecord, SetOutcome, Abandon, Comment, RecordFault, ClearFault, Tell, SeatReset,
               SeatMoved, SeatEnded, TakebackLapses, TakeoverComment, NameEngineSides, Step, EndAsTold, NextGame,
               Publish, SaveProgress]


def _start_record(s: Any, e: StartRecord, now: float) -> None:
    game, g = s.game, s.config.game
    s.file.record = s.file.recorder.new_record(
        s.wall(), s.board_state.names[0], s.board_state.names[1], start_fen=game.start_fen, rules=game.rules,
        variant="chess960" if game.chess960 else "standard", time_control=str(s.referee.time_control),
        event="Training" if s.board_state.training is not None else g.event, site=g.site, round=g.round, replay=s.replay, tags=s.board_state.app.tags() if s.board_state.app else {})
    s.file.note(s.referee, e.time)


def _order(s: Any, e: Step, now: float) -> None:
    try:
        events = s.referee.step(e.order, now)
    except ValueError:
        if not e.refused_ok:
            raise
        return
    s.apply(events, now)


def _record_fault(s: Any, e: RecordFault, now: float) -> None:
    from firmware.session.sensor_faults import record_fault
    record_fault(s.file.recorder.state_dir, e.square, e.reads_piece, s.wall())


def _clear_fault(s: Any, e: ClearFault, now: float) -> None:
    from firmware.session.sensor_faults import clear_fault
    clear_fault(s.file.recorder.state_dir, e.square)


HANDLERS: dict[type, Callable[[Any, Any, float], None]] = {
    Note: lambda s, e, now: s.file.note(s.referee, e.time),
    StartRecord: _start_record,
    SetOutcome: lambda s, e, now: s.file.set_outcome(e.outcome),
    Abandon: lambda s, e, now: s.file.abandon(s.referee, now),
    Comment: lambda s, e, now: s.file.comment_once(e.ply, e.text),
    RecordFault: _record_fault,
    ClearFault: _clear_fault,
    Tell: lambda s, e, now: s.seat.tell(e.action),
    SeatReset: lambda s, e, now: s.seat.reset(),
    SeatMoved: lambda s, e, now: s.seat.on_move(e.move),
    SeatEnded: lambda s, e, now: s.seat.end_game(),
    TakebackLapses: lambda s, e, now: s.seat.takeback_offered(None),
    TakeoverComment: lambda s, e, now: s.seat.takeovers.comment(e.mover),
    NameEngineSides: lambda s, e, now: s.seat.name_engine_sides(e.given),
    Step: _order,
    EndAsTold: lambda s, e, now: s.other_side.end(e.outcome, now),
    NextGame: lambda s, e, now: s.next_game(now, names=None),
    Publish: lambda s, e, now: s.publish(),
    SaveProgress: lambda s, e, now: s.trainer.save(dict(s.board_state.progress or {})),
}


def do(session: Any, effect: Effect, now: float) -> None:
    """Carry out ``effect`` (not :class:`Keep`: the session keeps its state itself)."""
    HANDLERS[type(effect)](session, effect, now)
