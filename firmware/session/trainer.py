"""The trainer at the board: a drill's position set up by the board's guidance, each move of the solver judged, the replies and the right move to carry out, the progress kept.

Contract
========

* ``Trainer.start(drills, player, progresses, now)`` (the command ``start_training``, through the door;
  the drills are :class:`~firmware.training.drill.Drill` values the page's server made from a
  game's analysis or the puzzle set, in a worker thread): the first drill's position is set up by
  the board's guidance (:func:`firmware.session.setup_guidance.set_up_position`) and the game
  starts there with its side to move. Refused online and during a game with moves.
  ``next`` (``next_training``) goes on to the next drill; ``stop`` (``stop_training``) ends the
  training: the drill's game is left unfinished and the board waits for the next game.
* :meth:`Trainer.follow` (after every change, ``Session.refresh``): a move of the solver's is
  judged (:func:`firmware.training.drill.moved`); a wrong one is taken back (the LEDs guide the
  piece back: "try again"); after two, the right move is shown, to be carried out as an engine's
  move is; a puzzle's replies are carried out the same way. A mistake's other move is judged once
  the helper engine (the coach's, shared with the analyses) has evaluated it, on the loop
  (:class:`~firmware.session.door.News`); an engine that fails or is busy takes the move back
  with "try again" unsaid: it is judged wrong only by the engine.
* Each verdict is in the state's ``training`` (firmware.session.state.training_said: the page and
  the voice say it) and, solved, lit in the good colour for a moment (a layer of its own, ``training``, at the coach's priority). A finished drill counts in
  the player's progress (:mod:`firmware.training.progress`: Glicko-2 for puzzles), saved in a
  worker thread, crash-safe; a failed save is logged and the training goes on.
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chess_core import Move

from firmware.analysis.engine import AnalysisLimit, evaluate_game
from firmware.leds.compose import Layer, Light, Priority
from firmware.referee.orders import Expect, Order
from firmware.session.commands import SessionError
from firmware.session.door import News
from firmware.session.effects import Effect, Keep, Publish, Step
from firmware.session.lights import Held
from firmware.session.setup_guidance import set_up_position
from firmware.session.state import Phase
from firmware.training import progress as kept
from firmware.training.drill import PUZZLE, Drill, Outcome, Training, evaluated, moved, replied
from uci.engine import EngineError
from uci.helper import EngineBusy

if TYPE_CHECKING:
    from firmware.session.session_view import SessionView

log = logging.getLogger(__name__)

__all__ = ["Trainer", "JUDGE_LIMIT", "LAYER"]

JUDGE_LIMIT = AnalysisLimit(movetime_ms=200)   # as the library's analyses judged the game (firmware.library.analyses)
LAYER = "training"
MOMENT_S = 2.0


class Trainer:
    """The session's part that follows a training's moves; see the module docstring."""

    def __init__(self, session: SessionView) -> None:
        self.session = session
        self.progresses: dict[str, kept.Progress] = {}
        self._seen: tuple[str, ...] = ()
        self._tasks: set[asyncio.Task[None]] = set()

    def start(self, drills: tuple[Drill, ...], player: str, progresses: dict[str, kept.Progress] | None = None,
              now: float | None = None) -> None:
        """Begin a training with ``drills`` for ``player`` (see the module docstring)."""
        session = self.session
        if not drills:
            raise SessionError("no_drills")
        if session.live and session.game.moves and session.board_state.training is None:
            raise SessionError("training_during_game")
        self.progresses = dict(progresses or {})
        session.carry_out([Keep(training=Training(drills, player))], session.clock() if now is None else now)
        set_up_position(session, drills[0].fen, now)

    def next(self, now: float | None = None) -> None:
        """The next drill (SessionError when none is left)."""
        session = self.session
        training = session.board_state.training
        following = training.next() if training is not None else None
        if following is None:
            raise SessionError("no_drills")
        session.carry_out([Keep(training=following)], session.clock() if now is None else now)
        set_up_position(session, following.drill.fen, now)

    def stop(self, now: float | None = None) -> None:
        """The training ends: its drill's game is left unfinished, and the board waits for the next
        game (set up from the start position, as after a new game)."""
        session = self.session
        with session.command(now) as now:
            if session.board_state.training is None:
                raise SessionError("no_drills")
            session.carry_out([Keep(training=None, lights=session.board_state.lights.removed(LAYER))], now)
            if session.live:
                session.file.abandon(session.referee, now)
            session.next_game(now, names=None)

    def follow(self) -> None:
        """After every change: the solver's move judged, a reply or a right move shown made."""
        session = self.session
        training = session.board_state.training
        if training is None or not (session.board_state.phase is Phase.PLAYING or session.board_state.phase.over):
            self._seen = ()
            return
        moves = tuple(m.uci() for m in session.game.moves)
        before, self._seen = self._seen, moves
        if len(moves) != len(before) + 1 or moves[:-1] != before:
            return
        move, now = moves[-1], session.clock()
        if training.made % 2 == 0 and training.end is None and training.waiting is None:
            outcome = moved(training, move, mates=session.game.position.is_checkmate())
            if outcome.evaluate:
                self._start(self._evaluate(session.game.start_fen, moves))
            session.carry_out(self._effects(outcome, move), now)
        else:
            after = replied(training, move)
            session.carry_out([Keep(training=after)] + self._finished(after), now)

    # -- what a verdict does ---------------------------------------------------------------------

    def _effects(self, outcome: Outcome, move: str) -> list[Effect]:
        session, training = self.session, outcome.training
        effects: list[Effect] = [Keep(training=training)]
        if outcome.evaluate:
            return effects
        if outcome.take_back:
            self._seen = self._seen[:-1]
            effects.append(Step(Order.UNDO_MOVE, refused_ok=True))
        if outcome.reply is not None:
            reply = Move.from_uci(outcome.reply)
            effects += [Step(Expect(reply)), Keep(play=replace(session.board_state.play, expected_move=reply))]
        if training.over:
            effects.append(self._lit(Move.from_uci(move)))
        return effects + self._finished(training) + [Publish()]

    def _lit(self, move: Move) -> Keep:
        style, session = self.session.style, self.session
        layer = Layer(LAYER, Priority.COACH, ((Light("good_move", style.dim(style.good_move),
                                                     1 << move.from_square | 1 << move.to_square),),),
                      until=session.clock() + MOMENT_S)
        return Keep(lights=session.board_state.lights.pushed(Held(layer, ply=len(session.game.moves))))

    def _finished(self, training: Training) -> list[Effect]:
        """A drill just over: the player's progress counts it, saved beside the games."""
        if not training.over:
            return []
        drill, when = training.drill, self.session.wall().timestamp()
        progress = kept.player(self.progresses, training.player)
        if drill.kind == PUZZLE:
            progress = kept.after_puzzle(progress, drill.id, float(drill.rating or 1500), drill.themes,
                                         not training.failed, when)
        elif drill.exercise is not None:
            progress = kept.after_exercise(progress, drill.exercise.game_id, drill.exercise.ply,
                                           training.verdict or "shown", when)   # (found after a try: solved)
        self.progresses = kept.put(self.progresses, training.player, progress)
        self._save(dict(self.progresses))
        return []

    def _save(self, progresses: dict[str, kept.Progress]) -> None:
        state_dir = Path(self.session.file.recorder.state_dir)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:   # no loop (the tests' sessions): at once
            self._saved(state_dir, progresses)
            return
        task = loop.create_task(asyncio.to_thread(self._saved, state_dir, progresses), name="training-save")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    @staticmethod
    def _saved(state_dir: Path, progresses: dict[str, kept.Progress]) -> None:
        try:
            kept.save(state_dir, progresses)
        except OSError as exc:   # (a full disk: the training goes on, its progress unsaved)
            log.warning("%s", exc)

    # -- a mistake's other move, evaluated -------------------------------------------------------

    async def _evaluate(self, start_fen: str, moves: tuple[str, ...]) -> None:
        session = self.session
        try:
            found = await evaluate_game([Move.from_uci(m) for m in moves], JUDGE_LIMIT, start_fen=start_fen,
                                        plies=[len(moves)], engine=session.coach.engine)
            score = found[0].score if found else None
        except (EngineBusy, EngineError, OSError) as exc:
            log.warning("the trainer's evaluation failed: %s", exc)
            score = None
        session.door.post(News(self._evaluated, (moves, score)))

    def _evaluated(self, moves: tuple[str, ...], score: Any) -> None:
        """The evaluation after the solver's move came (on the loop): the move judged."""
        session = self.session
        training = session.board_state.training
        if training is None or training.waiting != moves[-1] or tuple(m.uci() for m in session.game.moves) != moves:
            return
        now = session.clock()
        if score is None:   # no engine: the move cannot be judged right; taken back, no try counted
            self._seen = moves[:-1]
            session.carry_out([Keep(training=replace(training, waiting=None)), Step(Order.UNDO_MOVE, refused_ok=True),
                               Publish()], now)
            return
        session.carry_out(self._effects(evaluated(training, moves[-1], score), moves[-1]), now)

    def _start(self, work: Coroutine[Any, Any, None]) -> None:
        try:
            task = asyncio.get_running_loop().create_task(work, name="trainer")
        except RuntimeError:    # no loop (a replay): nothing judged by the engine
            work.close()
            return
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def aclose(self) -> None:
        """Wait for a save under way; stop the evaluations."""
        for task in list(self._tasks):
            if task.get_name() == "trainer":
                task.cancel()
            try:
                await task
            except (asyncio.CancelledError, Exception):   # noqa: BLE001 - closing
                pass

    async def settled(self) -> None:
        """Return once no evaluation or save is under way (the tests)."""
        while self._tasks:
            await asyncio.wait(set(self._tasks))
