"""A training as JSON and back: what the game in progress keeps of the drills under way, so that a restart goes on with them.

:func:`training_json` writes a :class:`~firmware.training.drill.Training` as plain JSON values;
:func:`training_of_json` reads it back, or raises ValueError for anything it did not write (a
damaged or hostile file): types checked, texts and lists bounded (``MAX_DRILLS`` drills, a move
line of at most ``MAX_LINE`` moves), and what the board relies on holds: every drill's FEN is a
position and its solution legal from it, a mistake's drill carries its exercise (and a puzzle's
none), and where the training stands (``made``, ``end``) lies within the first drill's solution.
A move awaited from the engine (``waiting``) is not kept: a restart judges that move again. Pure.
"""
from __future__ import annotations

from typing import Any

from chess_core import WHITE, Move, Position

from firmware.analysis.judgement import Score
from firmware.config import printable_text
from firmware.training.drill import MISTAKE, PUZZLE, Drill, Training
from firmware.training.exercises import SHOWN, SOLVED, TRY_AGAIN, Attempt, Exercise

__all__ = ["training_json", "training_of_json", "MAX_DRILLS"]

MAX_DRILLS = 100            # a training's drills (Trainer.start keeps the first 100): each save of the game carries them
MAX_LINE = 64               # moves of a solution, a line shown or the moves tried
MAX_TEXT = 200              # an id, a FEN, a player's name, a theme


def training_json(training: Training) -> dict[str, Any]:
    """``training`` as JSON values (its awaited move left out)."""
    attempt = training.attempt
    return {"drills": [_drill_json(d) for d in training.drills], "player": training.player,
            "attempt": {"tries": attempt.tries, "moves": list(attempt.moves), "last": attempt.last},
            "made": training.made, "end": training.end, "failed": training.failed}


def training_of_json(data: Any) -> Training:
    """The training ``training_json`` wrote; ValueError for anything else."""
    data = _object(data, {"drills", "player", "attempt", "made", "end", "failed"})
    drills = _list(data["drills"], MAX_DRILLS)
    if not drills:
        raise ValueError("a training has one drill at least")
    attempt = _object(data["attempt"], {"tries", "moves", "last"})
    last = attempt["last"]
    if last not in (None, SOLVED, TRY_AGAIN, SHOWN):
        raise ValueError(f"not a verdict: {last!r}")
    end = data["end"]
    training = Training(tuple(_drill(d) for d in drills), _text(data["player"]),
                        Attempt(_count(attempt["tries"]), _moves(attempt["moves"]), last),
                        _count(data["made"]), None if end is None else _count(end), _flag(data["failed"]))
    length = len(training.drill.solution)
    if training.made > length or training.end is not None and not training.made <= training.end <= length:
        raise ValueError(f"made {training.made}, end {training.end}: not within a solution of {length} moves")
    return training


def _drill_json(drill: Drill) -> dict[str, Any]:
    exercise = drill.exercise
    return {"kind": drill.kind, "id": drill.id, "fen": drill.fen, "side": drill.side,
            "solution": list(drill.solution), "line": list(drill.line), "rating": drill.rating,
            "themes": list(drill.themes), "last": drill.last,
            "exercise": None if exercise is None else {
                "game_id": exercise.game_id, "ply": exercise.ply, "fen": exercise.fen, "side": exercise.side,
                "played": exercise.played, "judgement": exercise.judgement, "best": exercise.best,
                "line": list(exercise.line), "best_score": _score_json(exercise.best_score),
                "played_score": _score_json(exercise.played_score)}}


def _drill(data: Any) -> Drill:
    data = _object(data, {"kind", "id", "fen", "side", "solution", "line", "rating", "themes", "last", "exercise"})
    kind = data["kind"]
    if kind not in (MISTAKE, PUZZLE):
        raise ValueError(f"not a kind of drill: {kind!r}")
    solution = _moves(data["solution"])
    if not solution:
        raise ValueError("a drill has a solution")
    rating, last, exercise = data["rating"], data["last"], data["exercise"]
    if rating is not None and (type(rating) is not int or not 0 <= rating <= 4000):
        raise ValueError(f"not a puzzle's rating: {rating!r}")
    if (kind == MISTAKE) != (exercise is not None):
        raise ValueError("a mistake's drill carries its exercise, and only it")
    drill = Drill(kind, _text(data["id"]), _text(data["fen"]), _side(data["side"]), solution,
                  _moves(data["line"]), None if exercise is None else _exercise(exercise), rating,
                  tuple(_text(t) for t in _list(data["themes"], MAX_LINE)),
                  None if last is None else _move(last))
    position = Position(drill.fen)                       # (FenError: a ValueError)
    if (position.turn == WHITE) != (drill.side == 0) or drill.exercise is not None and drill.exercise.fen != drill.fen:
        raise ValueError("the drill's side is the side to move of its position")
    for uci in solution:
        move = Move.from_uci(uci)                        # (InvalidMoveError: a ValueError)
        if not position.is_legal(move):
            raise ValueError(f"{uci} is not legal in the drill's solution")
        position.push(move)
    return drill


def _exercise(data: Any) -> Exercise:
    data = _object(data, {"game_id", "ply", "fen", "side", "played", "judgement", "best", "line", "best_score",
                          "played_score"})
    return Exercise(_text(data["game_id"]), _count(data["ply"]), _text(data["fen"]), _side(data["side"]),
                    _move(data["played"]), _text(data["judgement"]), _move(data["best"]), _moves(data["line"]),
                    _score(data["best_score"]), _score(data["played_score"]))


def _score_json(score: Score) -> dict[str, Any]:
    return {"cp": score.cp, "mate": score.mate, "mated": score.mated}


def _score(data: Any) -> Score:
    data = _object(data, {"cp", "mate", "mated"})
    for key in ("cp", "mate", "mated"):
        if data[key] is not None and (type(data[key]) is not int or abs(data[key]) > 100_000):
            raise ValueError(f"not a score's {key}: {data[key]!r}")
    return Score(data["cp"], data["mate"], data["mated"])   # (ValueError if not one)


def _object(data: Any, keys: set[str]) -> dict[str, Any]:
    if not isinstance(data, dict) or set(data) != keys:
        raise ValueError(f"expected an object of {sorted(keys)}")
    return data


def _list(data: Any, most: int) -> list[Any]:
    if not isinstance(data, list) or len(data) > most:
        raise ValueError(f"expected a list of at most {most}")
    return data


def _text(data: Any) -> str:
    if not isinstance(data, str) or len(data) > MAX_TEXT:   # (the length first: a long text is not scanned)
        raise ValueError(f"expected a text of at most {MAX_TEXT} characters, not {data!r:.40}")
    return printable_text(data, 1, MAX_TEXT)


def _move(data: Any) -> str:
    if not isinstance(data, str) or not 4 <= len(data) <= 5 or not data.isascii() or not data.isalnum():
        raise ValueError(f"not a move in UCI: {data!r:.20}")
    return data


def _moves(data: Any) -> tuple[str, ...]:
    return tuple(_move(m) for m in _list(data, MAX_LINE))


def _count(data: Any) -> int:
    if type(data) is not int or not 0 <= data <= 100_000:
        raise ValueError(f"expected a count, not {data!r:.20}")
    return data


def _side(data: Any) -> int:
    if data not in (0, 1) or type(data) is not int:
        raise ValueError(f"expected a side, 0 or 1, not {data!r:.20}")
    return int(data)


def _flag(data: Any) -> bool:
    if type(data) is not bool:
        raise ValueError(f"expected true or false, not {data!r:.20}")
    return data
