"""A training session at the board as one value: the drills in turn (the player's own mistakes, puzzles), the tries, and what each move on the board brings.

Contract
========

* A :class:`Drill` is one position to solve: a mistake of the player's (an
  :class:`~firmware.training.exercises.Exercise`: the better move, or any move that loses less
  than Lichess's inaccuracy threshold, is right) or a puzzle (its solution: each of the solver's
  moves must be the solution's, or a mate where the solution mates; the replies are the
  solution's).
* :class:`Training` is where the drills stand: the one under way first, those left, its
  :class:`~firmware.training.exercises.Attempt` (tries, last verdict: "solved", "try again",
  "shown"), how many moves of its solution stand on the board, and whether a wrong try was made
  (a puzzle then counts as failed for the rating, as on Lichess).
* :func:`moved` decides after the solver's move on the board: an :class:`Outcome` that says what
  the board does next (the opponent's reply to carry out, take the move back, show the right move
  to carry out) and the new :class:`Training`. A move that needs an evaluation (a mistake's
  other move) is decided by :func:`evaluated` once the engine's score comes.
* :func:`replied`: the reply (or the right move shown) now stands on the board.
Pure: moves as UCI strings, no engine, no clock.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from firmware.analysis.judgement import Score
from firmware.training.exercises import SHOWN, Attempt, Exercise, Verdict, after_try, judge, needs_eval

__all__ = ["Drill", "Training", "Outcome", "of_exercise", "of_puzzle", "moved", "evaluated", "replied", "MISTAKE",
           "PUZZLE"]

MISTAKE, PUZZLE = "mistake", "puzzle"


@dataclass(frozen=True)
class Drill:
    """One position to solve: ``kind`` (``MISTAKE`` or ``PUZZLE``), ``id``, the ``fen`` the solver
    faces (``side`` to move), the ``solution`` (UCI; a mistake's: the better move alone), the
    ``line`` shown once it is over, the ``exercise`` (a mistake's) or the puzzle's ``rating`` and
    ``themes``, and the ``last`` move that led to it (the mistake's fault or the puzzle's blunder:
    shown, not played)."""

    kind: str
    id: str
    fen: str
    side: int
    solution: tuple[str, ...]
    line: tuple[str, ...] = ()
    exercise: Exercise | None = None
    rating: int | None = None
    themes: tuple[str, ...] = ()
    last: str | None = None


def of_exercise(exercise: Exercise) -> Drill:
    return Drill(MISTAKE, f"{exercise.game_id}:{exercise.ply}", exercise.fen, exercise.side, (exercise.best,),
                 exercise.line, exercise, last=exercise.played)


def of_puzzle(id: str, fen: str, solution: tuple[str, ...], *, rating: int, themes: tuple[str, ...] = (),
              blunder: str = "") -> Drill:
    """A puzzle's drill (firmware.training.puzzles.Puzzle's fields): ``fen`` after the opponent's ``blunder``."""
    side = 0 if fen.split()[1] == "w" else 1
    return Drill(PUZZLE, id, fen, side, solution, solution, rating=rating, themes=themes, last=blunder or None)


@dataclass(frozen=True)
class Training:
    """Where a training stands; see the module docstring. ``player``: whose progress it counts in."""

    drills: tuple[Drill, ...]
    player: str
    attempt: Attempt = field(default_factory=Attempt)
    made: int = 0                  # moves of the drill's solution on the board
    end: int | None = None         # over once that many stand (solved, or the right move shown and made)
    failed: bool = False           # a wrong try was made
    waiting: str | None = None     # the solver's move whose evaluation is awaited

    @property
    def drill(self) -> Drill:
        return self.drills[0]

    @property
    def left(self) -> int:
        """Drills after this one."""
        return len(self.drills) - 1

    @property
    def over(self) -> bool:
        """This drill is solved, or its right move shown and made."""
        return self.end is not None and self.made >= self.end

    @property
    def verdict(self) -> str | None:
        """The last verdict: "solved", "try again", "shown" (None before the first)."""
        return self.attempt.last

    def next(self) -> Training | None:
        """The next drill (None: none left)."""
        return Training(self.drills[1:], self.player) if self.left else None


@dataclass(frozen=True)
class Outcome:
    """What the board does after a move: ``reply`` (UCI) to carry out (the opponent's, or the right
    move shown), ``take_back`` the move just made, ``evaluate`` it first (a mistake's other move);
    ``training``: where it stands now (``over``: the drill is done)."""

    training: Training
    reply: str | None = None
    take_back: bool = False
    evaluate: bool = False


def moved(training: Training, move: str, *, mates: bool = False) -> Outcome:
    """The solver made ``move`` on the board (``mates``: it checkmates)."""
    drill = training.drill
    if training.end is not None or training.waiting is not None or training.made % 2:
        return Outcome(training)   # (over, a move judged already, or the reply awaited)
    if drill.exercise is not None:
        if needs_eval(drill.exercise, move):
            return Outcome(replace(training, waiting=move), evaluate=True)
        return _verdict(training, judge(drill.exercise, move, None))
    right = move == drill.solution[training.made] or (mates and training.made == len(drill.solution) - 1)
    return _verdict(training, Verdict(move, right))


def evaluated(training: Training, move: str, score_after: Score) -> Outcome:
    """The evaluation after ``move`` (White's side) came: the awaited move judged (nothing if
    another is awaited now)."""
    drill = training.drill
    if training.waiting != move or drill.exercise is None:
        return Outcome(training)
    return _verdict(replace(training, waiting=None), judge(drill.exercise, move, score_after))


def _verdict(training: Training, verdict: Verdict) -> Outcome:
    drill = training.drill
    if verdict.right:
        made = training.made + 1
        if made < len(drill.solution):   # a puzzle's reply comes; the solver goes on
            return Outcome(replace(training, made=made), reply=drill.solution[made])
        attempt = after_try(training.attempt, verdict)
        return Outcome(replace(training, attempt=attempt, made=made, end=made))
    attempt = after_try(training.attempt, verdict)
    failed = replace(training, attempt=attempt, failed=True)
    if attempt.last == SHOWN:
        return Outcome(replace(failed, end=training.made + 1), reply=drill.solution[training.made], take_back=True)
    return Outcome(failed, take_back=True)


def replied(training: Training, move: str) -> Training:
    """``move`` (a reply, or the right move shown) now stands on the board."""
    solution = training.drill.solution
    if training.made < len(solution) and solution[training.made] == move:
        return replace(training, made=training.made + 1)
    return training
