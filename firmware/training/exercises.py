"""The player's own mistakes as exercises, after Lichess's "Learn from your mistakes": the position before each, the move to find, two tries.

Pure: the analysis the library keeps in, exercises and verdicts out; no engine, no I/O.

Contract
========

* :func:`exercises_of` reads a game's analysis as ``firmware.library.analyses`` writes it
  (``<state>/analysis/<id>.json``: ``{"moves": [uci...], "review": GameReview.to_json()}``, or its
  ``"review"`` alone) and gives, in the game's order, one :class:`Exercise` for each move of the
  player's side(s) that the analysis judged (an inaccuracy, a mistake or a blunder, or only from
  ``least`` up): the position before it (FEN), the move played, the engine's better move and its
  line in UCI (``line[0]`` is ``best``), the evaluation of that position (``best_score``: what the
  better move keeps) and the one after the move played. The analysis carries neither the start
  position nor the mate's side of a checkmate: the game's ``start_fen`` is given, the position is
  replayed and a ``mate 0`` is the side to move's. An analysis that does not replay (an illegal
  move, a key missing, another game's moves) is a ValueError; no analysis (None) has no exercise.
* :func:`judge` decides a tried move: the better move is right and the move played in the game is
  wrong, both at once (:func:`needs_eval` is False: no engine); any other move is right when its
  mover's loss of winning chances against ``best_score`` (``firmware.analysis.judgement``, on the
  ``[-1, +1]`` scale, mates as ±1000 cp) is under ``ACCEPT_LOSS``, 0.1, Lichess's inaccuracy.
* :class:`Attempt` is one exercise's tries, replaced whole by :func:`after_try`: a right move is
  ``"solved"``; a wrong one is ``"try again"``, and the ``MAX_TRIES``-th wrong one ``"shown"`` (the
  better move is shown); :func:`give_up` shows it at once. Once solved or shown, nothing changes it.

Taken from lila's ``ui/analyse/src/retrospect/retroCtrl.ts`` (and ``nodeFinder.ts``'s
``evalSwings``): the candidates are the player's moves that have the computer's line beside them
(here: that the analysis judged), in the game's order; a move of the computer's line wins at once,
the move played in the game fails at once, another is evaluated and compared with the position's
evaluation before the fault (``winningChances.povDiff``). What differs: Lichess takes the moves
whose swing of White's winning chances is over 0.15 (``povDiff`` 0.075) and accepts a move that
loses under 0.07 (``povDiff > -0.035``); the board takes the judged moves and Lichess's inaccuracy,
0.1, as the bound (``least`` leaves out the smaller faults). Lichess also drops a move found in its
masters' opening explorer, which the board has not; and its "View the solution" is ``give_up``.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from chess_core import STARTING_FEN, AmbiguousMoveError, IllegalMoveError, InvalidMoveError, Position, parse_san
from chess_core import parse_uci

from firmware.analysis.judgement import BLACK, WHITE, Score, winning_chances

__all__ = ["Exercise", "Verdict", "Attempt", "exercises_of", "needs_eval", "judge", "after_try", "give_up",
           "ACCEPT_LOSS", "MAX_TRIES", "SOLVED", "TRY_AGAIN", "SHOWN", "JUDGEMENTS"]

ACCEPT_LOSS = 0.1           # winning chances ([-1, +1]) a tried move may lose against the best: Lichess's inaccuracy
MAX_TRIES = 2               # wrong tries before the better move is shown
SOLVED, TRY_AGAIN, SHOWN = "solved", "try again", "shown"
JUDGEMENTS = ("inaccuracy", "mistake", "blunder")     # as the analysis names them, the least first
_SIDES = {"white": WHITE, "black": BLACK}


@dataclass(frozen=True)
class Exercise:
    """One fault of the player's to find again: from ``fen`` (``side`` to move), ``played`` was
    ``judgement``; ``best`` keeps ``best_score`` (White's side), ``line`` the engine's line from it
    (``line[0] == best``), ``played_score`` the evaluation after the fault. ``ply``: the fault's
    number in the game (1: the first move)."""

    game_id: str
    ply: int
    fen: str
    side: int
    played: str
    judgement: str
    best: str
    line: tuple[str, ...]
    best_score: Score
    played_score: Score

    @property
    def key(self) -> tuple[str, int]:
        """(game id, ply): what the progress keeps of a solved exercise."""
        return self.game_id, self.ply

    def to_json(self) -> dict[str, Any]:
        def score(value: Score) -> dict[str, Any]:
            return {"cp": value.cp, "mate": value.mate, "text": value.pgn() or "#"}

        return {"game_id": self.game_id, "ply": self.ply, "fen": self.fen,
                "side": "white" if self.side == WHITE else "black", "played": self.played,
                "judgement": self.judgement, "best": self.best, "line": list(self.line),
                "best_score": score(self.best_score), "played_score": score(self.played_score)}


@dataclass(frozen=True)
class Verdict:
    """A tried ``move``: ``right`` or not; ``loss``: the winning chances it loses against the best
    (None when decided without an evaluation: the best itself, or the move played in the game)."""

    move: str
    right: bool
    loss: float | None = None


@dataclass(frozen=True)
class Attempt:
    """One exercise's tries: how many were wrong, the moves tried, and the verdict of the last
    (None before the first): ``"solved"``, ``"try again"`` or ``"shown"``."""

    tries: int = 0
    moves: tuple[str, ...] = field(default=())
    last: str | None = None

    @property
    def done(self) -> bool:
        """Solved, or the better move shown: no more tries."""
        return self.last in (SOLVED, SHOWN)


def _score(entry: Mapping[str, Any], pos: Position) -> Score:
    """An evaluation as the analysis writes it (``cp`` or ``mate``, White's side); ``mate`` 0 is a
    checkmate of the side to move in ``pos``."""
    cp, mate = entry.get("cp"), entry.get("mate")
    if isinstance(cp, int) and not isinstance(cp, bool) and mate is None:
        return Score(cp=cp)
    if isinstance(mate, int) and not isinstance(mate, bool) and cp is None:
        return Score.checkmated(pos.turn) if mate == 0 else Score(mate=mate)
    raise ValueError(f"not an evaluation: cp {cp!r}, mate {mate!r}")


def _sides(sides: int | str | Iterable[int | str]) -> set[int]:
    found: set[int] = set()
    for side in (sides,) if isinstance(sides, (int, str)) else sides:
        value = _SIDES.get(side, side) if isinstance(side, str) else side
        if value not in (WHITE, BLACK):
            raise ValueError(f"not a side: {side!r} (0 or 'white', 1 or 'black')")
        found.add(value)
    return found


def _line(pos: Position, sans: Sequence[Any]) -> tuple[str, ...]:
    """The analysis's line (SAN, English letters) in UCI, from ``pos`` (left unchanged)."""
    board = pos.copy()
    found = []
    for text in sans:
        if not isinstance(text, str):
            raise ValueError(f"not a move of the line: {text!r}")
        move = parse_san(board, text)      # (the analysis writes English letters: read first)
        found.append(move.uci())
        board.push(move)
    return tuple(found)


def exercises_of(analysis: Mapping[str, Any] | None, sides: int | str | Iterable[int | str], *, game_id: str,
                 start_fen: str = STARTING_FEN, chess960: bool = False,
                 least: str = "inaccuracy") -> tuple[Exercise, ...]:
    """The exercises of the faults of ``sides`` (0/"white", 1/"black", or both) in ``analysis``
    (the library's ``<id>.json`` read, or its ``"review"``; None: none), from ``least`` up (see the
    module docstring). ValueError if the analysis is not one of a game from ``start_fen``."""
    if analysis is None:
        return ()
    wanted, lowest = _sides(sides), JUDGEMENTS.index(least) if least in JUDGEMENTS else -1
    if lowest < 0:
        raise ValueError(f"not a judgement: {least!r} ({', '.join(JUDGEMENTS)})")
    review = analysis.get("review", analysis)
    try:
        entries, start = review["moves"], review["start"]
        if not isinstance(entries, list) or not isinstance(start, Mapping):
            raise ValueError("an analysis has a list of moves and a start")
        if "moves" in analysis and "review" in analysis and analysis["moves"] != [
                e.get("uci") if isinstance(e, Mapping) else None for e in entries]:
            raise ValueError("the analysis is not of these moves")
        pos = Position(start_fen, chess960=chess960)
        before = _score(start, pos)
        found = []
        for number, entry in enumerate(entries, start=1):
            if not isinstance(entry, Mapping) or entry.get("ply") != number:
                raise ValueError(f"move {number} of the analysis is not one")
            move = parse_uci(pos, entry["uci"])
            mover, fen = pos.turn, pos.fen()
            judgement, best = entry.get("judgement"), entry.get("best")
            board = pos.copy()
            pos.push(move)
            after = _score(entry, pos)
            if (mover in wanted and judgement in JUDGEMENTS and JUDGEMENTS.index(judgement) >= lowest
                    and isinstance(best, str)):
                line = _line(board, entry.get("line") or ())
                best_move = parse_uci(board, best).uci()
                if not line or line[0] != best_move:
                    line = (best_move,)
                found.append(Exercise(game_id, number, fen, mover, move.uci(), judgement, best_move, line,
                                      before, after))
            before = after
    except (KeyError, TypeError, InvalidMoveError, IllegalMoveError, AmbiguousMoveError) as exc:
        raise ValueError(f"the analysis of {game_id} does not replay: {type(exc).__name__}: {exc}") from exc
    return tuple(found)


def _chances(score: Score, side: int) -> float:
    """``side``'s winning chances in ``score`` (a mate as ±1000 cp), on [-1, +1]."""
    white = winning_chances(score.forced_cp())
    return white if side == WHITE else -white


def needs_eval(exercise: Exercise, move: str) -> bool:
    """Whether :func:`judge` needs the evaluation after ``move``: not for the better move (right)
    nor for the move played in the game (wrong)."""
    return move.strip().lower() not in (exercise.best, exercise.played)


def judge(exercise: Exercise, move: str, score_after: Score | None) -> Verdict:
    """The verdict of ``move`` (UCI) tried in ``exercise``'s position; ``score_after``: the
    evaluation after it, White's side (needed only when :func:`needs_eval`; ValueError without)."""
    tried = move.strip().lower()
    if tried == exercise.best:
        return Verdict(tried, True)
    if tried == exercise.played:
        return Verdict(tried, False)
    if score_after is None:
        raise ValueError(f"{tried} is neither the better move nor the one played: its evaluation is needed")
    loss = _chances(exercise.best_score, exercise.side) - _chances(score_after, exercise.side)
    return Verdict(tried, loss < ACCEPT_LOSS, loss)


def after_try(attempt: Attempt, verdict: Verdict) -> Attempt:
    """The attempt after ``verdict`` (unchanged once done): solved, try again, or the better move
    shown after ``MAX_TRIES`` wrong tries."""
    if attempt.done:
        return attempt
    moves = attempt.moves + (verdict.move,)
    if verdict.right:
        return Attempt(attempt.tries, moves, SOLVED)
    tries = attempt.tries + 1
    return Attempt(tries, moves, SHOWN if tries >= MAX_TRIES else TRY_AGAIN)


def give_up(attempt: Attempt) -> Attempt:
    """The better move shown at the player's asking (unchanged once done)."""
    return attempt if attempt.done else Attempt(attempt.tries, attempt.moves, SHOWN)
