"""Writing a game as PGN export text: tags, English SAN, clocks, the result and its reason."""
from __future__ import annotations

import re
from typing import Mapping, Sequence

from .game import Game
from .notation import san
from .pgn_words import (PGN_TERMINATIONS, RESULTS, ROSTER_DEFAULTS, SEVEN_TAG_ROSTER, TAG_NAME_RE,
                        clk_text, escape_tag_value, reason_text, termination_word)
from .position import STARTING_FEN
from .squares import WHITE

LINE_WIDTH = 80
# A word: a run without white space, where a command (``[%clk 0:01:00]``) counts as one piece,
# so that adjacent commands stay as written (``[%eval 0.2][%clk 0:01:00]``).
# Possessive (++): the same words, but a 4 MB word costs no backtracking record per character (450 MB).
_WORD_RE = re.compile(r"(?:\[%\w+\s[^\]]{0,60}\]|\S)++")
_COMPUTED = ("SetUp", "FEN", "PlyCount")  # follow from the game; a caller's value is ignored


def write_pgn(game: Game, headers: Mapping[str, str | None] | None = None,
              clocks: Sequence[int | None] | None = None, termination: str | None = None,
              *, comments: Mapping[int, str] | None = None,
              nags: Mapping[int, Sequence[int]] | None = None, derive: bool = True,
              sans: Sequence[str] | None = None) -> str:
    """The PGN of ``game`` (finished or still going), ending with a newline.

    ``headers`` override or extend the default tags (a None value drops a non-roster tag);
    ``clocks[i]`` is the ms left on the mover's clock after move i+1 (None: no ``[%clk]``);
    ``termination`` is either a PGN Termination word ("rules infraction"...), which becomes the
    tag, or the reason in words, which replaces the one told by ``game.outcome``;
    ``comments[p]``/``nags[p]`` go after the p-th move (p = 0: before the first move).
    ``derive=False`` writes only what the caller gives (a game read from a file): no
    Termination, TimeControl or PlyCount tag and no reason comment of the writer's own.
    ``sans``: the English SAN of every move, when the caller keeps it (a session saving after
    each move): the game is then not replayed, and the writing costs no legal-move search.

    >>> from chess_core.move import Move
    >>> g = Game(); _ = g.push(Move.from_uci("e2e4"))
    >>> print(write_pgn(g, {"White": "Ada"}, [299_700]).splitlines()[-1])
    1. e4 { [%clk 0:04:59.7] } *
    """
    moves = game.moves
    if sans is not None and len(sans) != len(moves):
        raise ValueError(f"{len(sans)} SAN for a game of {len(moves)} moves")
    clocks = _checked_clocks(clocks, len(moves))
    comments_at = dict(comments or {})
    nags_at = {ply: list(values) for ply, values in (nags or {}).items()}
    for ply in list(comments_at) + list(nags_at):
        if not isinstance(ply, int) or not 0 <= ply <= len(moves):
            raise ValueError(f"a comment or NAG at ply {ply!r}: the game has {len(moves)} moves")

    tags = _tags(game, headers, clocks, termination, derive)
    result = tags["Result"]
    outcome = game.outcome
    reason = termination if termination and termination.lower() not in PGN_TERMINATIONS else None
    if reason is None and derive and outcome is not None and outcome.result() == result:
        reason = reason_text(outcome)

    units = _movetext_units(game, clocks, comments_at, nags_at, reason, sans)
    units.append(result)
    lines = [f'[{name} "{escape_tag_value(value)}"]' for name, value in tags.items()]
    lines.append("")
    lines.extend(wrap_units(units))
    return "\n".join(lines) + "\n"


def _checked_clocks(clocks: Sequence[int | None] | None, plies: int) -> list[int | None]:
    found = list(clocks or [])
    if len(found) > plies:
        raise ValueError(f"{len(found)} clock values for a game of {plies} moves")
    for i, ms in enumerate(found):
        if ms is not None and (type(ms) is not int or ms < 0):
            raise ValueError(f"clock after move {i + 1} must be None or an int of ms >= 0, not {ms!r}")
    return found + [None] * (plies - len(found))


def _tags(game: Game, headers: Mapping[str, str | None] | None, clocks: list[int | None],
          termination: str | None, derive: bool) -> dict[str, str]:
    outcome = game.outcome
    tags: dict[str, str] = dict(ROSTER_DEFAULTS)
    tags["Result"] = outcome.result() if outcome else "*"
    # "?" is an unknown control, "-" no clock at all: only the caller knows which it was.
    extra: dict[str, str] = {"TimeControl": "?", "Termination": termination_word(outcome)} if derive else {}
    if termination and termination.lower() in PGN_TERMINATIONS:
        extra["Termination"] = termination.lower()
    for name, value in (headers or {}).items():
        if not isinstance(name, str) or not TAG_NAME_RE.fullmatch(name):
            raise ValueError(f"not a PGN tag name: {name!r} (letters, digits and _+#=:- only)")
        if name in _COMPUTED:
            continue
        if value is None:
            if name in SEVEN_TAG_ROSTER:
                raise ValueError(f"the {name} tag belongs to the seven tag roster and cannot be dropped")
            extra.pop(name, None)
        elif name in SEVEN_TAG_ROSTER:
            tags[name] = str(value)
        else:
            extra[name] = str(value)
    if tags["Result"] not in RESULTS:
        raise ValueError(f"Result tag {tags['Result']!r}: expected one of {', '.join(RESULTS)}")
    given = headers or {}
    if game.chess960 and (derive or not given.get("Variant")):  # a file's own spelling stays
        extra["Variant"] = "Chess960"  # the FEN says which of the 960 start positions, even the usual one
    if game.start_fen != STARTING_FEN or game.chess960 or (not derive and given.get("FEN")):
        extra["SetUp"] = "1"
        extra["FEN"] = game.start_fen
    if derive or given.get("PlyCount") is not None:
        extra["PlyCount"] = str(len(game.moves))
    for name in sorted(extra):  # the standard's export order: roster, then ASCII order
        tags[name] = extra[name]
    return tags


def _movetext_units(game: Game, clocks: list[int | None], comments: dict[int, str],
                    nags: dict[int, list[int]], reason: str | None, sans: Sequence[str] | None) -> list[str]:
    """Tokens that are never split across lines: ``12. Nf3``, ``$1``, comment words."""
    units: list[str] = []
    last = len(game.moves)
    pos = game.start_position()
    white_first = pos.turn == WHITE
    first_number = pos.fullmove_number

    def after(ply: int) -> bool:
        """Write what follows ply ``ply``; True when a comment was written."""
        for nag in nags.get(ply, ()):
            if type(nag) is not int or not 0 <= nag <= 255:
                raise ValueError(f"NAG {nag!r} after ply {ply}: expected an int 0..255")
            units.append(f"${nag}")
        wrote = False
        text = comments.get(ply, "")
        clock = clocks[ply - 1] if ply else None
        if clock is not None:
            text = f"[%clk {clk_text(clock)}] {text}"
        words = comment_units(text)
        if words:
            if ply and not nags.get(ply) and len(words[0]) <= 40:  # a move keeps its clock on its line
                units[-1] += " " + words.pop(0)
            units.extend(words)
            wrote = True
        if ply == last and reason:
            words = comment_units(reason)
            whole = " ".join(words)
            units.extend([whole] if len(whole) <= LINE_WIDTH else words)  # one line if it can
            wrote = True
        return wrote

    after(0)
    numbered = True  # the first move always carries its number
    for ply, move in enumerate(game.moves, 1):
        if sans is None:
            text = san(pos, move, "en")
            pos.push(move)
        else:
            text = sans[ply - 1]
        white = white_first == (ply % 2 == 1)   # who made this move
        number = first_number + (ply - (1 if white_first else 0)) // 2
        if white:
            text = f"{number}. {text}"
        elif numbered:
            text = f"{number}... {text}"
        units.append(text)
        numbered = after(ply)
    return units


def comment_units(text: str) -> list[str]:
    """A brace comment cut into words; braces and ``%`` words cling to a neighbour.

    A ``}`` cannot stand inside a PGN comment and is dropped; runs of white space become one
    space. A command such as ``[%clk 0:04:59.7]`` stays whole. A word starting with ``%`` never
    opens a line, where it would read as an escape line.
    """
    words = [" ".join(w.split()) for w in _WORD_RE.findall(text.replace("}", ""))]
    units: list[str] = []
    for word in words:
        if units and word.startswith("%"):
            units[-1] += " " + word
        else:
            units.append(word)
    if not units:
        return []
    units[0] = "{ " + units[0]
    units[-1] += " }"
    return units


def wrap_units(units: list[str], width: int = LINE_WIDTH) -> list[str]:
    """Fill lines up to ``width``; a line never opens with ``%`` (it would read as an escape).

    A word longer than a line (a URL in a comment) stands whole on a line of its own: cutting it
    would change the comment.
    """
    lines: list[str] = []
    current = ""

    def opening(piece: str) -> str:
        return " " + piece if piece.startswith("%") else piece

    for unit in units:
        pieces = unit.split(" ") if len(unit) > width and " " in unit else [unit]
        for piece in pieces:
            if len(piece) > width:  # a word longer than a line: a line of its own, whole
                if current:
                    lines.append(current)
                lines.append(opening(piece))
                current = ""
                continue
            if not current:
                current = opening(piece)
            elif len(current) + 1 + len(piece) <= width:
                current += " " + piece
            else:
                lines.append(current)
                current = opening(piece)
    if current:
        lines.append(current)
    return lines
