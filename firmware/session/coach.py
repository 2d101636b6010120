"""The coach for beginners: a hint on request and each coached move judged as Lichess does, on the LEDs and the page, marked in the PGN.

Contract
========

* ``[coach]`` names the sides coached (``white``, ``black``), whether they may ask for hints
  (``hints``), and the engine's time or depth per position; the page's new-game dialog and
  settings change them (``Session.new_game(coach=...)``, ``update_settings(coach=...)``). Only a
  game the board referees coaches (no online game: no assistance there), and never a side the
  engine plays.
* :meth:`Coach.hint` (the page, the GPIO ``hint`` button, through ``Session.button("hint")``), for a
  coached side while hints are offered (:meth:`Coach.hint_offered`): the engine's best move in the position now; once found it lights its from and to squares in the ``hint``
  colour until the settled board changes or a move is made, the page's notice says it ("Hint:
  Nf3" / "Conseil : Cf3") and the PGN gets ``{Hint: Nf3}`` after the move before it.
* After each coached move (``follow``, called after every change): the positions before and after
  it are evaluated and the move judged (``firmware.analysis.judgement.advise``, the first move of
  the usual start from Lichess's +0.15); for ``moment_s`` seconds (or until the board changes) its
  squares show its quality (``good_move``, ``inaccuracy``, ``mistake``, ``blunder``) with the
  better move in the ``hint`` colour, and the notice says it ("Blunder: Nf3 was best"), which the
  board's voice says too. With takebacks allowed, a blunder's notice invites taking it back.
* A move taken back while a side is coached is marked ``{Taken back: Nf3}`` after the move before it.
* The coach lights nothing itself: its squares are the layer "coach" of the board's state
  (``board_state.lights``, :mod:`firmware.session.lights`, alone on the board above the game's),
  handed over as an effect.
* The engine is the service's one helper engine (``engine``, a
  ``uci.helper.HelperEngine``: Stockfish in its own process at nice 19, one
  thread, a 16 MB hash), which the library's analyses share: every judged move and every hint
  goes to its queue, no process of their own. A hint asked again while it is looked for is the
  same search, once; a hint asked while the queue is full is refused (``engine_busy``). A move
  judged while it is full is left out, not tried again (its news would come late, and the queue is
  full so that the helper sheds work): busy is no failure, the page says nothing. The loop
  only waits for the answers. ``settled()`` waits for the searches under way (tests).
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Sequence
from typing import TYPE_CHECKING, Any

from chess_core import STARTING_FEN, Move, Position, san

from firmware.analysis.engine import AnalysisLimit, PositionEval, evaluate_game
from firmware.analysis.judgement import INITIAL_CP, Judgement, Score, advise
from uci.helper import EngineBusy, HelperEngine
from uci.engine import EngineError
from firmware.leds.compose import Layer, Light, Priority
from firmware.session.commands import SessionError
from firmware.session.door import Command, News
from firmware.session.effects import Keep, Publish
from firmware.session.lights import Held
from firmware.tasks import cancel_and_wait
from firmware.words import Message
from firmware.words.message import San

if TYPE_CHECKING:
    from firmware.session.session_view import SessionView

log = logging.getLogger(__name__)

__all__ = ["Coach"]

_WORDS = {Judgement.INACCURACY: "coach_inaccuracy", Judgement.MISTAKE: "coach_mistake",
          Judgement.BLUNDER: "coach_blunder"}


class Coach:
    """The session's coach; see the module docstring."""

    def __init__(self, session: SessionView) -> None:
        self.session = session
        self._seen: tuple[str | None, tuple[Move, ...]] = (None, ())   # (game file, moves) last followed
        self._tasks: set[asyncio.Task[None]] = set()
        self._hinting: tuple[Move, ...] | None = None   # the moves of the position a hint is looked for in
        self._engine: HelperEngine | None = None

    @property
    def engine(self) -> HelperEngine:
        """The service's helper engine (started at its first search), which the analyses share."""
        if self._engine is None:
            self._engine = HelperEngine.at(self.session.config.engine.path)
        return self._engine

    # -- settings --------------------------------------------------------------------------------

    def coached(self, side: int) -> bool:
        coach = self.session.config.coach
        seat = self.session.seat      # (never the engine's side nor the online opponent's: no one to help there)
        return (coach.white if side == 0 else coach.black) and seat.assisted and side not in seat.state().sides

    def hint_offered(self, side: int) -> bool:
        """Whether ``side`` may ask for a hint: it is coached and ``[coach] hints`` is on."""
        return self.coached(side) and self.session.config.coach.hints

    def _limit(self) -> AnalysisLimit:
        coach = self.session.config.coach
        return AnalysisLimit(depth=coach.depth) if coach.depth else AnalysisLimit(movetime_ms=coach.movetime_ms)

    # -- the LEDs --------------------------------------------------------------------------------

    def _show(self, squares: dict[int, str], until: float | None) -> Keep:
        """The coach's layer (firmware.leds.compose): ``squares`` in their roles, until ``until``
        (None: until the board changes), the settled board and the moves made as they are now."""
        style = self.session.style
        lights: dict[str, int] = {}
        for square, role in squares.items():
            lights[role] = lights.get(role, 0) | 1 << square
        layer = Layer("coach", Priority.COACH, (tuple(Light(role, style.dim(getattr(style, role)), bb)
                                                      for role, bb in lights.items()),), until=until)
        held = Held(layer, on_board=True, ply=len(self.session.game.moves))
        return Keep(lights=self.session.board_state.lights.pushed(held))

    # -- a hint ----------------------------------------------------------------------------------

    def hint(self, now: float) -> None:
        """Look for the best move for the side to move (SessionError if it is not coached, or hints are off)."""
        game = self.session.game
        if not self.coached(game.turn):
            raise SessionError("not_coached")
        if not self.session.config.coach.hints:
            raise SessionError("hints_off")
        moves = tuple(game.moves)
        if self._hinting == moves:
            return          # (asked again while it is looked for: the same answer, once)
        if self.engine.busy:
            raise SessionError("engine_busy")
        self._hinting = moves
        self._start(self._hint(moves))

    async def _hint(self, moves: tuple[Move, ...]) -> None:
        try:
            found = await self._evaluate(moves, [len(moves)])
        except BaseException:
            if self._hinting == moves:
                self._hinting = None
            raise
        self.session.door.post(News(self._hinted, (moves, found)))

    def _hinted(self, moves: tuple[Move, ...], found: list[PositionEval] | None) -> None:
        """The hint's search is done (on the loop): its move lit and said, if the game has not gone on."""
        if self._hinting == moves:
            self._hinting = None
        session = self.session
        if found is None or tuple(session.game.moves) != moves or found[0].best is None:
            return      # (the game went on meanwhile: the hint is of another position)
        best = found[0].best
        pos = session.game.position
        said = Message.of("coach_hint", san=San(san(pos, best)))
        lit = self._show({best.from_square: "hint", best.to_square: "hint"}, None)
        told = session.board_state.play.told(said, len(moves))
        self._mark(len(moves), said.text())   # (the PGN's comments are in English)
        session.carry_out([lit, Keep(play=told), Publish()], session.clock())

    # -- following the game ------------------------------------------------------------------------

    def follow(self) -> None:
        """After every change: judge a coached move just made; mark a move taken back."""
        session = self.session
        coach = session.config.coach
        record = session.file.record
        seen = (record.pgn_name if record is not None else None, tuple(session.game.moves))
        before, self._seen = self._seen, seen
        if not (coach.white or coach.black) or seen[1] == before[1]:
            return
        old, new = before[1], seen[1]
        same_game = before[0] is None or seen[0] is None or before[0] == seen[0]
        if len(new) == len(old) + 1 and new[:-1] == old:
            mover = 1 - session.game.turn
            if self.coached(mover):
                self._start(self._judge(new))
        elif same_game and record is not None and len(new) < len(old) and old[:len(new)] == new:
            pos = session.game.position
            self._mark(len(new), Message.of("taken_back", san=San(san(pos, old[len(new)]))).text())

    async def _judge(self, moves: tuple[Move, ...]) -> None:
        found = await self._evaluate(moves, [len(moves) - 1, len(moves)])
        self.session.door.post(News(self._judged, (moves, found)))

    def _judged(self, moves: tuple[Move, ...], found: list[PositionEval] | None) -> None:
        """The search of a coached move is done (on the loop): its judgement lit and said."""
        ply = len(moves)
        session = self.session
        if found is None or tuple(session.game.moves[:ply]) != moves:
            return      # (taken back meanwhile)
        if len(session.game.moves) - ply >= 2:
            return      # (its mover has moved again: that move's judgement is the news, whichever comes first)
        before, after = found
        game = session.game
        start = Position(game.start_fen, chess960=game.chess960)
        for move in moves[:-1]:
            start.push(move)
        move, mover = moves[-1], start.turn
        usual_start = ply == 1 and game.start_fen == STARTING_FEN and not game.chess960
        prev = Score(cp=INITIAL_CP) if usual_start else before.score
        squares = {move.from_square: "good_move", move.to_square: "good_move"}
        if before.best == move:
            said = Message.of("coach_best")
        elif (advice := advise(prev, after.score, mover)) is None or before.best is None:
            said = Message.of("coach_good")
        else:
            best, judged = before.best, advice.judgement.name.lower()
            key = _WORDS[advice.judgement]
            said = Message.of("coach_judged", judgement=Message.of(key), best=San(san(start, best)))
            squares = {move.from_square: judged, move.to_square: judged,
                       best.from_square: "hint", best.to_square: "hint"}
            if advice.judgement is Judgement.BLUNDER and session.referee.takebacks \
                    and len(game.moves) == ply:
                said = Message.of("coach_take_back", judged=said)
        lit = session.board_state.lights.get("coach")
        if lit is None or lit.until is not None:     # (a hint asked since stays lit)
            session.carry_out([self._show(squares, session.clock() + session.config.coach.moment_s),
                               Keep(play=session.board_state.play.told(said, len(game.moves)))], session.clock())
        session.publish()

    # -- the engine, the marks -------------------------------------------------------------------

    async def _evaluate(self, moves: Sequence[Move], plies: list[int]) -> list[PositionEval] | None:
        game = self.session.game
        try:
            return await evaluate_game(list(moves), self._limit(), start_fen=game.start_fen, chess960=game.chess960,
                                       plies=plies, engine=self.engine)
        except EngineBusy as exc:    # (busy, not broken: this judgement or hint is left out, nothing said)
            log.info("the coach's search is left out: %s", exc)
            return None
        except (EngineError, OSError) as exc:
            log.warning("the coach's engine failed: %s", exc)
            self.session.door.post(Command("helper_failed", ("coach",)))   # (the page says it, once)
            return None

    def _start(self, work: Coroutine[Any, Any, None]) -> None:
        try:
            task = asyncio.get_running_loop().create_task(work, name="coach")
        except RuntimeError:    # no loop (a replay): no coaching
            work.close()
            return
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _mark(self, ply: int, text: str) -> None:
        """``text`` in the PGN's comment after move ``ply`` (0: before the first), once."""
        file = self.session.file
        record = file.record
        if record is None:
            return
        key = str(ply)
        kept = record.comments.get(key)
        if kept is not None and text in kept.split("; "):
            return
        record.comments[key] = f"{kept}; {text}" if kept else text
        file.dirty = True

    async def aclose(self) -> None:
        """Stop the searches under way (a stop of the board): each is cancelled, the engine quit."""
        for task in list(self._tasks):
            await cancel_and_wait(task)
        if self._engine is not None:
            await self._engine.aclose()

    async def settled(self) -> None:
        """Return once no search is under way (the tests)."""
        while self._tasks:
            await asyncio.wait(set(self._tasks))
