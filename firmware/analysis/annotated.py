"""A game's PGN with its computer analysis written in, as Lichess exports an analysed game.

Contract
========

* :func:`annotated_pgn` writes a game read from PGN (``chess_core.PgnGame``) with its review
  (``firmware.analysis.review.GameReview``), in the shape of Lichess's export of an analysed game
  (lila ``Annotator.addEvals`` and ``annotateTurns``; python-chess reads it, ``node.eval()``):

  - after every move its evaluation from White's side, ``{ [%eval 0.34] }``, ``{ [%eval #-3] }``
    (none after a checkmate), merged with its clock as Lichess merges them,
    ``{ [%eval 0.17] [%clk 0:00:30] }``;
  - a judged move carries its symbol (``?!``, ``?``, ``??``: NAGs 6, 2, 4), then the advice,
    ``{ (0.30 → -0.25) Mistake. Nf3 was best. }``, before the evaluation, and the engine's line
    as a variation, ``(12. Nf3 Nc6 13. ...)``, at most 12 plies;
  - the opening, where the game reaches its named position (``firmware.openings``), as a comment
    after that move's others, ``{ C60 Ruy Lopez }`` (lila ``Annotator.annotateOpening``);
  - the tags as read, with ``Annotator`` (the engine and its limit) and, when the game has none,
    ``ECO`` and ``Opening``.

* A comment is never cut by a line break (a reader keeps it: python-chess would read
  ``Mate\nin 1``): lines are filled up to 80 characters with whole comments, and a comment
  longer than a line stands whole on a line of its own. Lichess writes each comment whole too
  (scalachess ``Pgn.scala``, ``Move.render``), its moves on one line.

* What the game had is kept: its comments (a former analysis's evaluations and advice aside,
  so that analysing again replaces them), clocks, NAGs (but the faults ``?!``, ``?``, ``??`` of
  a former analysis on the moves it had judged) and its result and reason. Its variations
  are not written (only the engine's): the file is the game and its analysis.
"""
from __future__ import annotations

import re

from chess_core import WHITE, PgnGame, Position, write_pgn
from chess_core.clock import format_pgn_clk
from chess_core.pgn_writer import LINE_WIDTH, comment_units

from firmware.analysis.judgement import Score
from firmware.analysis.review import GameReview
from firmware.openings import Opening

__all__ = ["annotated_pgn", "advice_comment", "LINE_WIDTH"]

FAULT_NAGS = (2, 4, 6)          # ?, ??, ?!
_EVAL = re.compile(r"\[%eval\s[^\]]*\]\s*")
# An advice of a former analysis: "(0.30 → -0.25) Mistake. Nf3 was best." (the evaluations and
# the better move each optional), as this module and Lichess write it.
_ADVICE = re.compile(r"(?:\([^()]*\)\s)?(?:Inaccuracy|Mistake|Blunder|Checkmate is now unavoidable|"
                     r"Lost forced checkmate sequence|Not the best checkmate sequence)\.(?:\s\S+ was best\.)?\s*")


def advice_comment(before: Score, after: Score, text: str, best_san: str | None) -> str:
    """Lichess's advice: ``(0.30 → -0.25) Mistake. Nf3 was best.``"""
    evals = " → ".join(w for w in (before.words(), after.words()) if w)
    head = f"({evals}) " if evals else ""
    return f"{head}{text}." + (f" {best_san} was best." if best_san else "")


def _former_analysis_removed(text: str) -> tuple[str, bool]:
    """``text`` without a former analysis's evaluations and advice; and whether it had an advice."""
    text, advices = _ADVICE.subn("", _EVAL.sub("", text))
    return " ".join(text.split()), advices > 0


def _numbered(line: tuple[str, ...], number: int, white: bool) -> list[str]:
    units = []
    for i, text in enumerate(line):
        if white:
            units.append(f"{number}. {text}")
        elif i == 0:
            units.append(f"{number}... {text}")
        else:
            units.append(text)
        if not white:
            number += 1
        white = not white
    return units


def comment(text: str) -> list[str]:
    """``{ text }`` as one unit, never cut (none when ``text`` is blank); braces dropped, runs of
    white space (line breaks too) made one space, as ``chess_core``'s writer does."""
    words = comment_units(text)
    return [" ".join(words)] if words else []


def lines(units: list[str], width: int = LINE_WIDTH) -> list[str]:
    """The units filled into lines of at most ``width``, none cut: a unit longer than a line (a
    long comment) stands alone on its line. (No unit opens with ``%``: none is an escape line.)"""
    found: list[str] = []
    current = ""
    for unit in units:
        if current and len(current) + 1 + len(unit) <= width:
            current += " " + unit
        else:
            if current:
                found.append(current)
            current = unit
    if current:
        found.append(current)
    return found


def annotated_pgn(game: PgnGame, review: GameReview, *, annotator: str, opening: Opening | None = None) -> str:
    """The PGN of ``game`` with its analysis ``review`` (see the module docstring)."""
    moves = game.moves
    if len(review.moves) != len(moves) or any(r.move != m for r, m in zip(review.moves, moves)):
        raise ValueError("the review is of another game")
    headers = dict(game.headers)
    headers["Result"] = game.result
    headers["Annotator"] = annotator
    if opening is not None and "ECO" not in headers and "Opening" not in headers:
        headers.update(ECO=opening.eco, Opening=opening.name)
    tags = write_pgn(game.game, headers, derive=False).split("\n\n", 1)[0]
    opening_text = f"{opening.eco} {opening.name}" if opening is not None else ""

    pos = Position(game.game.start_fen, chess960=game.game.chess960)
    white = pos.turn == WHITE
    number = pos.fullmove_number
    units: list[str] = []
    start_text, _ = _former_analysis_removed(game.comments.get(0, ""))
    units += comment(start_text)
    numbered = True
    for ply, reviewed in enumerate(review.moves, start=1):
        own, had_advice = _former_analysis_removed(game.comments.get(ply, ""))
        nags = [n for n in game.nags.get(ply, []) if not (had_advice or reviewed.advice) or n not in FAULT_NAGS]
        text = reviewed.san + (reviewed.advice.judgement.symbol if reviewed.advice else "")
        units.append(f"{number}. {text}" if white else f"{number}... {text}" if numbered else text)
        units += [f"${nag}" for nag in nags]
        clock = game.clocks[ply - 1] if ply - 1 < len(game.clocks) else None
        commands = " ".join(part for part in (
            f"[%eval {reviewed.score.pgn()}]" if reviewed.score.pgn() else "",
            f"[%clk {format_pgn_clk(clock)}]" if clock is not None else "") if part)
        if opening is not None and ply == opening.ply:
            own = " ".join(own.replace(opening_text, "").split())    # (a former analysis's)
        comments = [
            advice_comment(reviewed.before, reviewed.score, reviewed.advice.text, reviewed.best_san)
            if reviewed.advice is not None else "",
            commands, own, opening_text if opening is not None and ply == opening.ply else ""]
        for said in comments:
            units += comment(said)
        if reviewed.advice is not None and reviewed.line:
            variation = _numbered(reviewed.line, number, white)
            variation[0] = "(" + variation[0]
            variation[-1] += ")"
            units += variation
        numbered = bool(nags) or any(comments) or bool(reviewed.advice and reviewed.line)
        if not white:
            number += 1
        white = not white
    if game.reason:
        units += comment(game.reason)
    units.append(game.result)
    return tags + "\n\n" + "\n".join(lines(units)) + "\n"
