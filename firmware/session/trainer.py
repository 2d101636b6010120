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
  the voice say it) and, solved, lit in the good colour for a moment (a layer of its own,
  ``training``, at the coach's priority). A drill counts once, when it is over, in the player's
  progress (:mod:`firmware.training.progress`: Glicko-2 for puzzles), kept in the board's state
  (``BoardState.progress``) and saved by one task in a worker thread, the latest progress last,
  crash-safe; a failed save is logged and the training goes on.
* After a restart the training goes on (firmware.session.restore: it is kept with the game in
  progress): :meth:`Trainer.resume` judges no move twice and awaits again a reply or a right move
  shown that was awaited.
* A drill's game has no opponent: the engine or the server is told nothing while a training
  stands (firmware.session.seat), and a move it would send is set aside. A new game, or a setup
  asked by the page, ends the training (``Session.next_game``); a takeback on the board rewinds
  the drill to the moves left, and a move its mover amends (moved on before it was final) is
  judged afresh.
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
from firmware.analysis.judgement import Score
from firmware.leds.compose import Layer, Light, Priority
from firmware.referee.orders import Order
from firmware.session.commands import SessionError
from firmware.session.door import News
from firmware.session.effects import Effect, Keep, Publish, SaveProgress, Step
from firmware.session.lights import Held
from firmware.session.setup_guidance import set_up_position
from firmware.session.state import Phase
from firmware.training import progress as kept
from firmware.training.drill import PUZZLE, Drill, Outcome, Training, evaluated, moved, replied
from firmware.training.drill_codec import MAX_DRILLS
from firmware.tasks import cancel_and_wait

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
        self._seen: tuple[str, ...] = ()        # the drill's moves judged so far (this part's own follow-up)
        self._tasks: set[asyncio.Task[None]] = set()
        self._saving: asyncio.Task[None] | None = None
        self._to_save: dict[str, kept.Progress] | None = None

    def start(self, drills: tuple[Drill, ...], player: str, progresses: dict[str, kept.Progress] | None = None,
              now: float | None = None) -> None:
        """Begin a training with ``drills`` for ``player`` (see the module docstring); ``progresses``:
        as read from the state folder, used if the board has none in memory yet."""
        session = self.session
        if not drills:
            raise SessionError("no_drills")
        if session.live and session.game.moves and session.board_state.training is None:
            raise SessionError("training_during_game")
        self._begin(Training(drills[:MAX_DRILLS], player), now,   # (as many as a restart reads back)
                    progress=session.board_state.progress if session.board_state.progress is not None
                    else dict(progresses or {}))

    def next(self, now: float | None = None) -> None:
        """The next drill (SessionError when none is left)."""
        training = self.session.board_state.training
        following = training.next() if training is not None else None
        if following is None:
            raise SessionError("no_drills")
        self._begin(following, now)

    def _begin(self, training: Training, now: float | None, **kept_too: Any) -> None:
        """The drill's position led by the board (a new game, which ends any training), then kept."""
        session = self.session
        set_up_position(session, training.drill.fen, now)   # (refused: nothing kept)
        self._seen = ()
        session.carry_out([Keep(training=training, **kept_too), Publish()], session.clock())

    def resume(self, training: Training) -> None:
        """After a restart, the drill's game restored: its moves made so far are not judged again
        (a move whose evaluation was awaited is: it stands past them), and a reply or a right move
        shown that was awaited on the board is awaited again."""
        moves = tuple(m.uci() for m in self.session.game.moves)
        self._seen = moves[:training.made]
        solution = training.drill.solution
        if len(moves) == training.made < len(solution) and (training.made % 2 or training.end == training.made + 1):
            self.session.other_side.opponent_moved(Move.from_uci(solution[training.made]), trained=True)

    def stop(self, now: float | None = None) -> None:
        """The training ends: its drill's game is left unfinished, and the board waits for the next
        game (set up from the start position, as after a new game)."""
        session = self.session
        with session.command(now) as now:
            if session.board_state.training is None:
                raise SessionError("no_training")
            if session.live:
                session.file.abandon(session.referee, now)
            session.next_game(now, names=None)   # (which ends the training)
            session.carry_out([Keep(lights=session.board_state.lights.removed(LAYER))], now)

    def follow(self) -> None:
        """After every change: the solver's move judged, a reply or a right move shown made, a
        takeback followed."""
        session = self.session
        training = session.board_state.training
        phase = session.board_state.phase
        if training is None or session.game.start_fen != training.drill.fen:
            self._seen = ()
            return
        if not (phase is Phase.PLAYING or phase is Phase.RESUMING or phase.over):
            return      # (the position being set up)
        moves = tuple(m.uci() for m in session.game.moves)
        before, self._seen = self._seen, moves
        now = session.clock()
        if len(moves) < len(before) and moves == before[:len(moves)] and training.end is None:
            # taken back on the board: the drill goes on from the moves left
            session.carry_out([Keep(training=replace(training, made=min(training.made, len(moves)), waiting=None))], now)
            return
        if training.end is None and len(moves) == len(before) and moves and moves[:-1] == before[:-1] \
                and moves[-1] != before[-1]:
            # the last move amended (its mover moved on before it was final): judged afresh
            training = replace(training, made=min(training.made, len(moves) - 1), waiting=None)
            session.carry_out([Keep(training=training)], now)
            before = moves[:-1]
        if len(moves) != len(before) + 1 or moves[:-1] != before:
            return
        move = moves[-1]
        if training.made % 2 == 0 and training.end is None and training.waiting is None:
            outcome = moved(training, move, mates=session.game.position.is_checkmate())
            if outcome.evaluate:
                self._start(self._evaluate(session.game.start_fen, moves))
            if outcome.take_back:
                self._seen = moves[:-1]   # (the move taken back is not the drill's)
            self._carry_out(training, outcome, move, now)
        else:
            after = replied(training, move)
            session.carry_out([Keep(training=after)] + self._counted(training, after), now)

    # -- what a verdict does ---------------------------------------------------------------------

    def _carry_out(self, before: Training, outcome: Outcome, move: str, now: float) -> None:
        """The verdict's effects: the training kept, the move taken back, the reply (or the right
        move shown) to carry out as an engine's move is, the solved move lit, the drill counted."""
        session, training = self.session, outcome.training
        effects: list[Effect] = [Keep(training=training)]
        if outcome.take_back:
            effects.append(Step(Order.UNDO_MOVE, refused_ok=True))
        if training.over:
            effects.append(self._lit(Move.from_uci(move)))
        standing = len(session.game.moves)
        session.carry_out(effects + self._counted(before, training) + [Publish()], now)
        if outcome.take_back and len(session.game.moves) < standing and session.live:   # (the referee took it back)
            # the status line's words: "Take back a6: put the pawn back on a7", not a board that
            # shows no legal move (a tester's find)
            session.carry_out([Keep(play=replace(session.board_state.play, takeback_move=Move.from_uci(move)))], now)
        if outcome.reply is not None:
            session.other_side.opponent_moved(Move.from_uci(outcome.reply), trained=True)

    def _lit(self, move: Move) -> Keep:
        style, session = self.session.style, self.session
        layer = Layer(LAYER, Priority.COACH, ((Light("good_move", style.dim(style.good_move),
                                                     1 << move.from_square | 1 << move.to_square),),),
                      until=session.clock() + MOMENT_S)
        return Keep(lights=session.board_state.lights.pushed(Held(layer, ply=len(session.game.moves))))

    def _counted(self, before: Training, after: Training) -> list[Effect]:
        """A drill just over counts in the player's progress (once), which is then saved."""
        if not after.over or before.over:
            return []
        drill, when = after.drill, self.session.wall().timestamp()
        known = self.session.board_state.progress
        # (never none read: a save from nothing would write over every player's progress kept)
        progresses = dict(known if known is not None else kept.load(self.session.file.recorder.state_dir))
        progress = kept.player(progresses, after.player)
        if drill.kind == PUZZLE:
            progress = kept.after_puzzle(progress, drill.id, float(drill.rating or 1500), drill.themes,
                                         not after.failed, when)
        elif drill.exercise is not None:
            progress = kept.after_exercise(progress, drill.exercise.game_id, drill.exercise.ply,
                                           after.verdict or "shown", when)   # (found after a try: solved)
        return [Keep(progress=kept.put(progresses, after.player, progress)), SaveProgress()]

    def save(self, progresses: dict[str, kept.Progress]) -> None:
        """Save ``progresses`` in a worker thread: one save at a time, the latest last (the
        ``SaveProgress`` effect's handler)."""
        state_dir = Path(self.session.file.recorder.state_dir)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:   # no loop (the tests' sessions): at once
            _saved(state_dir, progresses)
            return
        self._to_save = progresses
        if self._saving is None or self._saving.done():
            self._saving = loop.create_task(self._save_latest(state_dir), name="training-save")

    async def _save_latest(self, state_dir: Path) -> None:
        while self._to_save is not None:
            progresses, self._to_save = self._to_save, None
            await asyncio.to_thread(_saved, state_dir, progresses)

    # -- a mistake's other move, evaluated -------------------------------------------------------

    async def _evaluate(self, start_fen: str, moves: tuple[str, ...]) -> None:
        session = self.session
        score = None
        try:
            found = await evaluate_game([Move.from_uci(m) for m in moves], JUDGE_LIMIT, start_fen=start_fen,
                                        plies=[len(moves)], engine=session.coach.engine)
            score = found[0].score if found else None
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - a helper that fails never stops the training: the move is taken back
            log.warning("the trainer's evaluation failed: %s", exc)
        session.door.post(News(self._evaluated, (moves, score)))

    def _evaluated(self, moves: tuple[str, ...], score: Score | None) -> None:
        """The evaluation after the solver's move came (on the loop): the move judged; none (the
        engine failed), or the game went on meanwhile: the move is left unjudged, taken back if it
        still stands."""
        session = self.session
        training = session.board_state.training
        if training is None or training.waiting != moves[-1]:
            return
        now = session.clock()
        if score is None or tuple(m.uci() for m in session.game.moves) != moves:
            stands = tuple(m.uci() for m in session.game.moves) == moves
            if stands:
                self._seen = moves[:-1]
            effects: list[Effect] = [Keep(training=replace(training, waiting=None)), Publish()]
            if stands:
                effects.insert(1, Step(Order.UNDO_MOVE, refused_ok=True))
            session.carry_out(effects, now)
            return
        self._carry_out(training, evaluated(training, moves[-1], score), moves[-1], now)

    def _start(self, work: Coroutine[Any, Any, None]) -> None:
        try:
            task = asyncio.get_running_loop().create_task(work, name="trainer")
        except RuntimeError:    # no loop (a replay): nothing judged by the engine
            work.close()
            return
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def aclose(self) -> None:
        """Stop the evaluations; wait for the save under way."""
        for task in list(self._tasks):
            await cancel_and_wait(task)
        if self._saving is not None:
            await asyncio.gather(self._saving, return_exceptions=True)

    async def settled(self) -> None:
        """Return once no evaluation or save is under way (the tests)."""
        while self._tasks or (self._saving is not None and not self._saving.done()):
            await asyncio.wait(set(self._tasks) | ({self._saving} if self._saving is not None else set()))


def _saved(state_dir: Path, progresses: dict[str, kept.Progress]) -> None:
    try:
        kept.save(state_dir, progresses)
    except (OSError, ValueError) as exc:   # (a full disk: the training goes on, its progress unsaved)
        log.warning("the training progress could not be saved: %s", exc)
