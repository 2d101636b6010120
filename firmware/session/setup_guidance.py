"""The board leading the hand that sets up a position: the guide kept in the board's state, its next step on the LEDs, the game held until the pieces are right.

Contract
========

* ``set_up_position(session, fen, now)`` (a command, through the door): the next game starts
  from ``fen`` with its side to move, once the board shows it; meanwhile the board leads the
  hand from whatever stands on it (:class:`~firmware.training.setup_guide.SetupGuide`: the
  pieces known from the game the board showed, or from the guide of a setup under way). A game
  in progress is left unfinished, as a new game leaves it. Refused online (the server sets the
  position) and for a FEN that is not a position.
* :func:`followed` (at each new settled board, ``Session.refresh``): the guide sees the
  occupancy and re-plans; a game restored after a power cut, or an online game synced, whose
  pieces must go back first (``Phase.RESUMING``) is led the same way, from the pieces of its
  position (one whose pieces stand right at once goes on: ``Phase.PLAYING``, no reading to wait
  for); so is a position other than the start chosen otherwise (a choice restored after a
  restart, the configuration's ``fen``), from the pieces the board can believe there (those of
  the position, and of the last game where they stood). The start position and Chess960's keep
  the referee's own words. Its effects: the guide kept (``Keep(setup=...)``), its next step as a layer of LEDs
  (:data:`LAYER`, alone: the piece to take and where it goes, or "from the box" and "to the
  box" in their colours), and the squares whose piece the board believes wrong, which the game
  may not start on until they are lifted (the referee's ``Arrange``). The guide is done, and its
  layer gone, once the game begins or resumes; it stays in the state (done) until the next game.
* :func:`setup_state`: the state's ``setup`` (:class:`~firmware.session.state.Setup`: the target, the
  steps with what each says, done).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from chess_core import STARTING_FEN, FenError, Position

from firmware.leds.compose import Layer, Light, Priority
from firmware.referee.feedback import LedStyle
from firmware.referee.orders import Arrange
from firmware.session.commands import SessionError
from firmware.session.effects import Effect, Keep, Step
from firmware.session.lights import Held
from firmware.session.state import Phase, Setup
from firmware.training.setup_guide import SetupGuide
from firmware.training.setup_plan import placement
from firmware.words import in_english, setup_step

if TYPE_CHECKING:
    from firmware.session.session_view import SessionView

__all__ = ["LAYER", "set_up_position", "followed", "setup_state", "guide_layer"]

LAYER = "setup"
REVIEW = "review"   # a game reviewed from the library (firmware.analysis.leds)


def set_up_position(session: SessionView, fen: str, now: float | None = None) -> None:
    """The next game from ``fen``, the board leading the hand there (see the module docstring)."""
    try:
        Position(fen, chess960=session.config.game.chess960)
    except FenError as exc:
        raise SessionError("bad_fen", detail=in_english(str(exc))) from None
    if session.seat.online:
        raise SessionError("setup_online")
    with session.command(now) as now:
        board = session.referee.board
        occupied = board.occupied if board is not None else (session.occupied or 0)
        guide = SetupGuide.start(fen, _known(session), occupied)
        if session.live:
            session.file.abandon(session.referee, now)
        session.next_game(now, names=None, fen=fen, arrange=guide.wrong())
        # (a game reviewed from the library: its lights give way to the steps)
        session.carry_out([Keep(lights=session.board_state.lights.removed(REVIEW))], now)
        if session.board_state.phase is Phase.SETTING_UP:   # (not begun at once: the board was not right)
            session.carry_out(_kept(session, guide), now)


def followed(session: SessionView) -> list[Effect]:
    """At a new settled board: the guide follows it (see the module docstring)."""
    state, board = session.board_state, session.referee.board
    guide, phase = state.setup, state.phase
    if phase is not Phase.SETTING_UP and phase is not Phase.RESUMING:   # the game began, or resumed: done
        effects: list[Effect] = []
        if guide is not None and not guide.done and board is not None:
            effects.append(Keep(setup=guide.seen(board.occupied)))   # (the board it began on: the last piece down)
        if state.lights.get(LAYER) is not None:
            effects.append(Keep(lights=state.lights.removed(LAYER)))
        return effects
    if board is None:
        return []
    if guide is None and phase is Phase.RESUMING and board.occupied == session.game.position.occupied:
        return [Keep(phase=Phase.PLAYING)]   # (a game restored whose pieces stand: it goes on at once)
    if guide is None:
        if board.occupied == session.game.position.occupied or phase is Phase.SETTING_UP and (
                session.game.start_fen == STARTING_FEN or session.game.chess960):
            return []   # (the start position: the referee's own words; Chess960's: its own arranging)
        # A game restored: the pieces go back to its position (they stood there). A position
        # chosen otherwise than by set_up_position (before a restart, in the configuration): led
        # from the pieces the board can believe there.
        fen = session.game.fen()
        guide = SetupGuide.start(fen, placement(fen) if phase is Phase.RESUMING else _known(session), board.occupied)
    return _kept(session, guide.seen(board.occupied))


def _known(session: SessionView) -> dict[int, str]:
    """The pieces believed on the board: a setup's still under way, else the game's position now;
    before a game begins, the last game's pieces where it left them (``BoardState.standing``), and
    the start position's on the squares they left empty."""
    state = session.board_state
    guide, phase = state.setup, state.phase
    if guide is not None and not guide.done and phase in (Phase.SETTING_UP, Phase.RESUMING):
        return dict(guide.board)
    now = placement(session.game.fen())
    if phase is Phase.SETTING_UP and state.standing is not None:   # the last game's pieces, where they stood
        return {**now, **placement(state.standing)}
    return now


def _kept(session: SessionView, guide: SetupGuide) -> list[Effect]:
    lights = session.board_state.lights
    layer = guide_layer(guide, session.style)
    held = lights.removed(LAYER) if layer is None else lights.pushed(Held(layer))
    effects: list[Effect] = [] if guide == session.board_state.setup and held is lights else [
        Keep(setup=guide, lights=held)]
    if session.board_state.phase is Phase.SETTING_UP:
        effects.append(Step(Arrange(0 if guide.done else guide.wrong())))
    return effects


def guide_layer(guide: SetupGuide, style: LedStyle) -> Layer | None:
    """The next step on the LEDs (None when done): the square to take from and the one to put on,
    or a square to fill from the box, or one to empty into it."""
    if guide.done or not guide.steps:
        return None
    step = guide.steps[0]
    lights: list[Light] = []
    if step.source is not None:
        role = "setup_from" if step.target is not None else "to_box"
        lights.append(Light(role, style.dim(getattr(style, role)), 1 << step.source))
    if step.target is not None:
        role = "setup_to" if step.source is not None else "from_box"
        lights.append(Light(role, style.dim(getattr(style, role)), 1 << step.target))
    return Layer(LAYER, Priority.SETUP, (tuple(lights),))


def setup_state(session: SessionView) -> Setup | None:
    """The state's ``setup``: None when no position is being set up by hand."""
    guide = session.board_state.setup
    if guide is None:
        return None
    done = guide.done or session.board_state.phase not in (Phase.SETTING_UP, Phase.RESUMING)
    steps = () if done else tuple(
        (step.piece, step.source, step.target, setup_step(step.piece, step.source, step.target,
                                                           in_hand=guide.from_hand(step))) for step in guide.steps)
    return Setup(guide.target, steps, done)
