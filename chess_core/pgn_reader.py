"""Reading PGN text: many games per text, each one either a PgnGame or a PgnError naming it.

The text is cut into games by what can be seen without playing the moves (tag lines, result
tokens, comments), so a game that cannot be played never hides the games after it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Iterator

from .fen import FenError
from .game import RULE_PROFILES, Game
from .move import NULL_MOVE, AmbiguousMoveError, IllegalMoveError, InvalidMoveError, Move
from .notation import detect_language, parse_san, san
from .outcome import Outcome, Termination
from .pgn_model import PgnError, PgnGame, PgnLine
from .pgn_words import (CLK_RE, NAG_SUFFIXES, RESULTS, parse_clk, parse_reason, termination_word,
                        unescape_tag_value)
from .position import Position
from .squares import BLACK, WHITE

_MOVE_ERRORS = (IllegalMoveError, InvalidMoveError, AmbiguousMoveError)

_NEWLINE_RE = re.compile(r"\r\n|\r|\n")
_TAG_NAME = r"[A-Za-z0-9][A-Za-z0-9_+#=:-]*"
_TAG_RE = re.compile(r'\[\s*(' + _TAG_NAME + r')\s+"((?:[^"\\]|\\.)*)"\s*\]')
# What python-chess writes for a value holding a quote: no escape, the last quote closes.
_LOOSE_TAG_RE = re.compile(r'\[\s*(' + _TAG_NAME + r')\s+"((?:(?!"\s*\]).)*)"\s*\]')
_TAG_LINE_RE = re.compile(r'\s*(?:\[\s*' + _TAG_NAME + r'\s+"(?:[^"\\]|\\.)*"\s*\]\s*)+')
_TOKEN_RE = re.compile(r"""
     (?P<space>\s+)
    |(?P<result>(?:1[-–]0|0[-–]1|1/2[-–]1/2|½[-–]½|\*)(?![\w/–-]))
    |(?P<number>\d+(?:\s*\.)+|\d+(?=\s|$))
    |(?P<nag>\$\d+)
    |(?P<open>\()
    |(?P<close>\))
    |(?P<brace>\{)
    |(?P<semicolon>;)
    |(?P<word>[^\s{}();$]+)
    |(?P<other>[}$])
    """, re.VERBOSE)
_SUFFIX_RE = re.compile(r"[!?]+$")
_WRAPPER_RE = re.compile(r"\[/?pgn\]", re.IGNORECASE)  # forum markup around a game
_UCI_RE = re.compile(r"[a-h][1-8][a-h][1-8][qrbnQRBN]?")
_NULL_MOVES = ("--", "Z0", "0000", "@@@@")
_CASTLING_RIGHT_RE = re.compile(r"castling right '(.)'")
_DECISIVE_LETTERS_RE = re.compile(r"^[KQBNDTFC]|=[QBNDTFC]")
# A comment's budget: what is beyond it is dropped (with a warning), so that a file's 4 MB blob in
# braces costs its reader and writer no more than a long annotation.
MAX_COMMENT_CHARS = 64 * 1024
# With a ply cap (``read_games(max_plies=N)``), a game's tokens of every kind (variations, comments,
# NAGs) are capped too, at so many per main-line ply: a game with clocks and evaluations has 3 or 4.
TOKENS_PER_PLY = 16

# Outcomes that only the final position can give; a reason naming one must agree with the board.
_BOARD_ONLY = {Termination.CHECKMATE, Termination.STALEMATE, Termination.INSUFFICIENT_MATERIAL,
               Termination.SEVENTYFIVE_MOVES, Termination.FIVEFOLD_REPETITION}
_PROVEN = {Termination.CHECKMATE, Termination.STALEMATE, Termination.INSUFFICIENT_MATERIAL}
_CLAIMS = (Termination.THREEFOLD_REPETITION, Termination.FIFTY_MOVES)
_STOPPED = ("abandon", "infraction", "adjudicat", "death", "emergency")
_VARIANTS = ("", "standard", "chess", "from position")
_CHESS960 = ("chess960", "chess 960", "fischerandom", "fischerrandom", "fischer random")  # as python-chess reads


# -- cutting the text into games -------------------------------------------------------------

@dataclass
class _Chunk:
    """The raw pieces of one game: tags, movetext tokens and lexical problems."""

    first_line: int
    tags: list[tuple[str, str]] = field(default_factory=list)
    tag_errors: list[tuple[str, int]] = field(default_factory=list)
    tokens: list[tuple[str, str, int]] = field(default_factory=list)  # (kind, text, line)
    in_movetext: bool = False
    cut_comments: list[int] = field(default_factory=list)  # lines where a comment over budget opened
    depth: int = 0        # variations open
    main_moves: int = 0   # words of the main line
    cut: bool = False     # over the ply cap: the tokens after it are not read

    def comment(self, text: str, number: int) -> None:
        if len(text) > MAX_COMMENT_CHARS:
            text = text[:MAX_COMMENT_CHARS]
            self.cut_comments.append(number)
        self.tokens.append(("comment", text, number))

    def is_game(self) -> bool:
        return bool(self.tags or self.tag_errors
                    or any(kind != "comment" for kind, _, _ in self.tokens))


def _lines(source: str | Iterable[str]) -> Iterator[str]:
    pieces = [source] if isinstance(source, str) else source
    for piece in pieces:
        if not isinstance(piece, str):
            raise TypeError(f"PGN text must be str or an iterable of str lines, not {type(piece).__name__}")
        parts = _NEWLINE_RE.split(piece)
        if len(parts) > 1 and parts[-1] == "":
            parts.pop()
        yield from parts


class _Lexer:
    def __init__(self, source: str | Iterable[str], max_plies: int | None = None) -> None:
        self._source = _lines(source)
        self._pending: tuple[int, str] | None = None
        self._count = 0
        self._max_plies = max_plies
        self._max_tokens = max_plies * TOKENS_PER_PLY if max_plies is not None else None

    def _next(self) -> tuple[int, str] | None:
        if self._pending is not None:
            item, self._pending = self._pending, None
            return item
        line = next(self._source, None)
        if line is None:
            return None
        self._count += 1
        return self._count, line

    def chunks(self) -> Iterator[_Chunk]:
        chunk: _Chunk | None = None
        while True:
            item = self._next()
            if item is None:
                break
            number, line = item
            if chunk is None or not chunk.in_movetext:
                line = line.lstrip("\ufeff")  # a BOM, also at the join of concatenated files
            if line.startswith("%"):  # an escape line (PGN 6)
                continue
            if "pgn]" in line.lower():
                line = _WRAPPER_RE.sub(" ", line)
            stripped = line.strip()
            if not stripped:
                continue
            if stripped.startswith("["):
                if chunk is not None and chunk.in_movetext:  # tags without a result before: new game
                    yield chunk
                    chunk = None
                if chunk is None:
                    chunk = _Chunk(number)
                rest = self._tags(chunk, stripped, number)
                if not rest:
                    continue
                line = rest  # moves after the tags on the same line
            if chunk is None:
                chunk = _Chunk(number)
            chunk.in_movetext = True
            if self._movetext(chunk, line, number):
                yield chunk
                if chunk.cut:     # (the rest of the text is not read)
                    return
                chunk = None
        if chunk is not None:
            yield chunk

    @staticmethod
    def _tags(chunk: _Chunk, line: str, number: int) -> str:
        """Read the tag pairs of ``line``; returns what follows them when it is movetext."""
        pos = 0
        found = []
        for m in _TAG_RE.finditer(line):
            if line[pos:m.start()].strip():
                break
            found.append((m.group(1), unescape_tag_value(m.group(2))))
            pos = m.end()
        rest = line[pos:].strip()
        if rest:
            loose = _LOOSE_TAG_RE.fullmatch(line)
            if loose:
                found, rest = [(loose.group(1), loose.group(2))], ""
            elif not found or rest.startswith("["):
                chunk.tag_errors.append((f"malformed tag pair {line[:60]!r}", number))
                return ""
        chunk.tags.extend(found)
        return rest

    def _over(self, chunk: _Chunk, kind: str) -> bool:
        """Whether the token ``kind`` would take ``chunk`` over the cap (a main-line move past
        ``max_plies``, or too many tokens); a cut chunk ends there."""
        if self._max_plies is None or self._max_tokens is None:
            return False
        if kind == "word" and chunk.depth == 0 and chunk.main_moves >= self._max_plies:
            chunk.cut = True
        elif kind != "result" and len(chunk.tokens) >= self._max_tokens:
            chunk.cut = True
        return chunk.cut

    def _movetext(self, chunk: _Chunk, line: str, number: int) -> bool:
        """Tokens of one line (and of the lines a comment spans); True when the game has ended."""
        add = chunk.tokens.append
        pos = 0
        while True:
            m = _TOKEN_RE.match(line, pos)
            if m is None:
                return False
            kind, text, pos = m.lastgroup, m.group(), m.end()
            assert kind is not None  # every alternative of _TOKEN_RE is a named group
            if kind == "space":
                continue
            if self._over(chunk, kind):
                return True
            if kind == "open":
                chunk.depth += 1
            elif kind == "close":
                chunk.depth = max(0, chunk.depth - 1)
            elif kind == "word" and chunk.depth == 0:
                chunk.main_moves += 1
            if kind == "semicolon":
                chunk.comment(line[pos:], number)
                return False
            if kind == "brace":
                end = line.find("}", pos)
                if end >= 0:
                    chunk.comment(line[pos:end], number)
                    pos = end + 1
                    continue
                found = self._comment_lines(chunk, line[pos:], number)
                if found is None:
                    return True
                number, line, pos = found
                continue
            add((kind, text, number))
            if kind == "result":
                rest = line[pos:]
                if rest.strip():
                    self._pending = (number, rest)
                return True

    def _comment_lines(self, chunk: _Chunk, first: str, start: int) -> tuple[int, str, int] | None:
        """Read on to the closing brace: (line number, line, position after it), None if unclosed.

        A comment left open would swallow the rest of the file, so a tag line after an empty
        line closes the game with an error, and the tag line starts the next game.
        """
        parts = [first]
        size = len(first)
        blank = False
        while True:
            item = self._next()
            if item is None or (blank and _TAG_LINE_RE.fullmatch(item[1])):
                chunk.tokens.append(("bad", f"the comment opened on line {start} is not closed", start))
                self._pending = item
                return None
            number, line = item
            end = line.find("}")
            if end >= 0:
                parts.append(line[:end])
                chunk.comment("\n".join(parts), start)
                return number, line, end + 1
            if size <= MAX_COMMENT_CHARS:   # (beyond it, read on to the brace but keep nothing)
                parts.append(line)
                size += len(line) + 1
            blank = not line.strip()


# -- playing a game's tokens -----------------------------------------------------------------

@dataclass
class _Frame:
    """A line being read: the main line or a variation."""

    line: PgnLine
    pos: Position
    opened: int  # line of the text where it opened
    parts: dict[int, list[str]] = field(default_factory=dict)
    raw: dict[int, list[str]] = field(default_factory=dict)  # the comments as written, commands in place
    broken: bool = False
    skip: int = 0  # parentheses open inside a broken variation

    def note(self, ply: int, text: str) -> None:
        written = " ".join(text.split())
        if written:
            self.raw.setdefault(ply, []).append(written)
        if ply:
            clock = CLK_RE.search(text)
            if clock and ply not in self.line.clocks:
                self.line.clocks[ply] = parse_clk(*clock.groups())
            text = CLK_RE.sub(" ", text)
        text = " ".join(text.split())
        if text:
            self.parts.setdefault(ply, []).append(text)

    def close(self) -> None:
        self.line.comments = {ply: " ".join(texts) for ply, texts in sorted(self.parts.items())}


class _Failed(Exception):
    """Ends the reading of one game; carries what PgnError needs besides the game."""

    def __init__(self, problem: str, line: int | None = None, ply: int | None = None,
                 move: str | None = None, label: str | None = None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.line = line
        self.ply = ply
        self.move = move
        self.label = label


def _parse_word(pos: Position, body: str, lang: str) -> Move:
    """A move of the movetext: SAN (English or French letters), UCI as some engines write, or
    the null move of analysis (``--``, ``Z0``), which the side to move passes with."""
    if body in _NULL_MOVES:
        return NULL_MOVE
    try:
        return parse_san(pos, body, lang)
    except _MOVE_ERRORS:
        if not _UCI_RE.fullmatch(body):
            raise
        move = Move.from_uci(body.lower())
        if not pos.is_legal(move):
            raise
        return move


def _ascii_result(text: str) -> str:
    """A result as the standard spells it: en dashes (typeset files) and ½ (1/2) read as such."""
    text = text.replace("–", "-")
    return "1/2-1/2" if text == "½-½" else text


def _label(pos: Position, text: str) -> str:
    return f"{pos.fullmove_number}{'.' if pos.turn == WHITE else '...'} {text}"


def _after(game: Game) -> str:
    """Where a problem stands in the main line: ' (after 12... Nxe5)'."""
    if not game.moves:
        return " (before the first move)"
    pos = game.position.copy(stack=True)
    move = pos.pop()
    return f" (after {_label(pos, san(pos, move, 'en'))})"


class _GameReader:
    def __init__(self, chunk: _Chunk, rules: str) -> None:
        self.chunk = chunk
        self.headers = dict(chunk.tags)
        self.warnings: list[str] = [f"line {line}: a comment longer than {MAX_COMMENT_CHARS:,} characters is cut there"
                                    for line in chunk.cut_comments]
        if chunk.cut:
            self.warnings.append(f"the game is cut after {chunk.main_moves} plies: the rest is not read")
        self.rules = rules

    def read(self, number: int) -> PgnGame:
        chunk, headers = self.chunk, self.headers
        if chunk.tag_errors:
            problem, line = chunk.tag_errors[0]
            raise _Failed(problem, line=line)
        variant = headers.get("Variant", "").strip().lower()
        if variant not in _VARIANTS + _CHESS960:
            raise _Failed(f"variant {headers['Variant']!r} is not supported (standard chess and Chess960 only)",
                          line=chunk.first_line)
        game = self._start(headers.get("FEN"), chess960=variant in _CHESS960)
        words = [_SUFFIX_RE.sub("", text) for kind, text, _ in chunk.tokens if kind == "word"]
        decisive = any(_DECISIVE_LETTERS_RE.search(w) for w in words)
        lang = detect_language(words) if decisive else "auto"
        main = _Frame(PgnLine(game.start_fen), game.position, chunk.first_line)
        marker = self._play(game, main, lang)
        main.close()
        plies = len(game.moves)
        if chunk.cut:       # (the moves after the cut are unknown: the result is the tag's, not judged)
            tag = _ascii_result(headers.get("Result", "").strip())
            return PgnGame(headers=headers, game=game,
                           clocks=[main.line.clocks.get(ply) for ply in range(1, plies + 1)],
                           comments=main.line.comments, nags=main.line.nags, variations=main.line.variations,
                           result=tag if tag in RESULTS else "*", lang="fr" if lang == "fr" else "en",
                           warnings=self.warnings, number=number, cut=True,
                           comments_as_written={ply: " ".join(texts) for ply, texts in sorted(main.raw.items())})
        result = self._result(marker)
        reason = None
        reason_text = None
        last = main.parts.get(plies)
        if last and result != "*":
            reason = parse_reason(last[-1])
            # Ours only with the Termination word our writer puts beside it: Lichess writes the
            # same sentences with "Normal", and another program's comment stays a comment.
            if (reason is not None and reason.result() == result
                    and headers.get("Termination") == termination_word(reason)):
                reason_text = last.pop()
                if not last:
                    del main.parts[plies]
                written = main.raw[plies]
                written.pop()
                if not written:
                    del main.raw[plies]
                main.close()
            else:
                reason = None
        self._settle(game, result, reason)
        return PgnGame(headers=headers, game=game,
                       clocks=[main.line.clocks.get(ply) for ply in range(1, plies + 1)],
                       comments=main.line.comments, nags=main.line.nags,
                       variations=main.line.variations, result=result,
                       lang="fr" if lang == "fr" else "en", warnings=self.warnings, number=number,
                       reason=reason_text,
                       comments_as_written={ply: " ".join(texts) for ply, texts in sorted(main.raw.items())})

    def _start(self, fen: str | None, chess960: bool = False) -> Game:
        """The game from the FEN tag; castling rights that the position denies are dropped.

        Editors leave ``KQkq`` in a FEN after the king or a rook has moved; python-chess and
        the PGN files made from such positions read on without those rights, and so do we.
        """
        fen = fen.strip() if fen else None
        while True:
            try:
                return Game(fen, self.rules, chess960=chess960)
            except FenError as exc:
                stale = _CASTLING_RIGHT_RE.match(str(exc))
                fields = (fen or "").split()
                if stale is None or len(fields) < 3 or stale.group(1) not in fields[2]:
                    raise _Failed(f"FEN tag: {exc}", line=self.chunk.first_line) from None
                fields[2] = fields[2].replace(stale.group(1), "") or "-"
                self.warnings.append(f"FEN tag: castling right {stale.group(1)!r} dropped: {exc}")
                fen = " ".join(fields)

    def _play(self, game: Game, main: _Frame, lang: str) -> str | None:
        stack = [main]
        marker = None
        for kind, text, number in self.chunk.tokens:
            frame = stack[-1]
            if kind == "bad":
                raise _Failed(text + _after(game), line=number)
            if kind == "result":
                if len(stack) > 1:
                    raise _Failed(f"result {text} inside a variation (opened on line {frame.opened}, "
                                  f"not closed){_after(game)}", line=number)
                marker = _ascii_result(text)
                continue
            if frame.broken:
                if kind == "open":
                    frame.skip += 1
                elif kind == "close":
                    if frame.skip:
                        frame.skip -= 1
                    else:
                        stack.pop()
                continue
            ply = len(frame.line.moves)
            if kind == "comment":
                frame.note(ply, text)
            elif kind == "nag":
                if len(text) > 4 or int(text[1:]) > 255:
                    self.warnings.append(f"line {number}: {text} is not a NAG (0 to 255), ignored")
                else:
                    frame.line.nags.setdefault(ply, []).append(int(text[1:]))
            elif kind == "word":
                self._word(game, frame, frame is main, text, number, lang)
            elif kind == "open":
                stack.append(self._open(frame, number))
            elif kind == "close":
                if len(stack) == 1:
                    self.warnings.append(f"line {number}: ')' without '(' ignored")
                    continue
                frame.close()
                stack.pop()
                stack[-1].line.variations.setdefault(len(stack[-1].line.moves), []).append(frame.line)
            elif kind == "other":
                raise _Failed(f"unexpected {text!r}{_after(game)}", line=number)
        while len(stack) > 1 and self.chunk.cut:    # (cut inside a variation: kept as read)
            frame = stack.pop()
            frame.close()
            if not frame.broken:
                stack[-1].line.variations.setdefault(len(stack[-1].line.moves), []).append(frame.line)
        if len(stack) > 1:
            raise _Failed(f"the variation opened on line {stack[-1].opened} is not closed"
                          f"{_after(game)}", line=stack[-1].opened)
        return marker

    def _word(self, game: Game, frame: _Frame, is_main: bool, text: str, number: int, lang: str) -> None:
        ply = len(frame.line.moves)
        suffix = _SUFFIX_RE.search(text)
        body = text[:suffix.start()] if suffix else text
        if body.lower() in ("e.p.", "ep", "e.p"):
            body = ""
        if body:
            pos = frame.pos
            try:
                move = _parse_word(pos, body, lang)
            except _MOVE_ERRORS as exc:
                label = _label(pos, text)
                if not is_main:
                    frame.broken = True
                    self.warnings.append(f"line {number}: variation dropped at {label}: {exc}")
                    return
                problem = str(exc)
                if game.outcome is not None:
                    problem += f" (the game was already over: {game.outcome.describe()})"
                raise _Failed(problem, line=number, ply=ply + 1, move=text, label=label) from None
            frame.line.moves.append(move)
            if is_main:
                if game.outcome is not None:  # e.g. fivefold repetition that nobody stopped
                    self.warnings.append(f"the game went on after ply {ply}: {game.outcome.describe()}")
                    game.decide(None)
                game.push(move)
            else:
                frame.line.san.append(san(pos, move, "en"))
                pos.push(move)
            ply += 1
        if suffix:
            nag = NAG_SUFFIXES.get(suffix.group())
            if nag is None:
                self.warnings.append(f"line {number}: annotation {suffix.group()!r} ignored")
            else:
                frame.line.nags.setdefault(ply, []).append(nag)

    def _open(self, frame: _Frame, number: int) -> _Frame:
        if not frame.line.moves:
            self.warnings.append(f"line {number}: a variation before any move is dropped")
            return _Frame(PgnLine(frame.line.start_fen), frame.pos, number, broken=True)
        pos = frame.pos.copy(stack=True)
        pos.pop()
        return _Frame(PgnLine(pos.fen()), pos, number)

    def _result(self, marker: str | None) -> str:
        tag = _ascii_result(self.headers.get("Result", "").strip())
        if marker is None:
            if tag in RESULTS:
                if tag != "*":
                    self.warnings.append(f"no result at the end of the moves; {tag} taken from the tag")
                return tag
            return "*"
        if marker == "*" and tag in RESULTS and tag != "*":
            self.warnings.append(f"the moves end with *; {tag} taken from the Result tag")
            return tag
        if tag in RESULTS and tag not in (marker, "*"):
            raise _Failed(f"the Result tag says {tag} but the moves end with {marker}")
        return marker

    def _settle(self, game: Game, result: str, reason: Outcome | None) -> None:
        """Set the game's outcome from the board, the reason comment or the Termination tag."""
        board = game.outcome
        if result == "*":
            return
        if board is not None:
            if board.result() == result:
                return
            if board.termination in _PROVEN:
                raise _Failed(f"the result {result} contradicts the final position: {board.describe()}")
            self.warnings.append(f"the result {result} stands, although the rules ended the game: "
                                 f"{board.describe()}")
            game.decide(None)
        claims = game.claimable_draws()
        outcome = None
        if reason is not None:
            if reason.termination in _BOARD_ONLY or (reason.termination in _CLAIMS
                                                     and reason.termination not in claims):
                self.warnings.append(f"{reason.describe()!r} does not fit the final position")
            else:
                outcome = reason
        game.decide(outcome or outcome_from_tag(self.headers.get("Termination", ""), result, claims))


def outcome_from_tag(tag: str, result: str, claims: Iterable[Termination] = ()) -> Outcome:
    """The outcome a decisive or drawn ``result`` and a Termination tag tell (see chess_core.pgn).

    >>> outcome_from_tag("Time forfeit", "0-1").describe()
    'Black wins on time'
    """
    words = " ".join(tag.lower().split())
    winner = {"1-0": WHITE, "0-1": BLACK}.get(result)
    draw = result == "1/2-1/2"
    if not draw and winner is None:
        raise ValueError(f"no outcome for result {result!r}")
    claims = list(claims)
    if "time" in words or "flag" in words:
        if draw:
            return Outcome(Termination.TIME_VS_INSUFFICIENT)
        return Outcome(Termination.TIME_FORFEIT, winner)
    if any(word in words for word in _STOPPED):
        return Outcome(Termination.ABANDONED, winner)
    if not draw:
        return Outcome(Termination.RESIGNATION, winner)
    if "agree" in words:
        return Outcome(Termination.AGREEMENT)
    if "repetition" in words and Termination.THREEFOLD_REPETITION in claims:
        return Outcome(Termination.THREEFOLD_REPETITION)
    if ("50" in words or "fifty" in words) and Termination.FIFTY_MOVES in claims:
        return Outcome(Termination.FIFTY_MOVES)
    for claim in _CLAIMS:
        if claim in claims:
            return Outcome(claim)
    return Outcome(Termination.AGREEMENT)


# -- the public readers ----------------------------------------------------------------------

def read_games(text: str | Iterable[str], *, rules: str = "fide",
               max_plies: int | None = None) -> Iterator[PgnGame | PgnError]:
    """Every game of ``text`` (a str or an iterable of lines), in order: a PgnGame, or the
    PgnError that says why that game cannot be read. ``rules`` is the profile of the Games.

    ``max_plies``: a game whose main line goes on past so many moves (or that holds more than
    ``TOKENS_PER_PLY`` times as many tokens: variations, comments, NAGs) is read up to there and
    is the last one read: ``PgnGame.cut``, its result the Result tag's (``*`` without one), its
    outcome not judged; the rest of the text is not looked at, so the reading costs so much at most."""
    if rules not in RULE_PROFILES:
        raise ValueError(f"unknown rule profile {rules!r}: expected one of {', '.join(RULE_PROFILES)}")
    number = 0
    for chunk in _Lexer(text, max_plies).chunks():
        if not chunk.is_game():
            continue
        number += 1
        reader = _GameReader(chunk, rules)
        try:
            yield reader.read(number)
        except _Failed as failed:
            yield PgnError(failed.problem, number=number, white=reader.headers.get("White"),
                           black=reader.headers.get("Black"), ply=failed.ply, move=failed.move,
                           line=failed.line, label=failed.label)


def read_pgn(text: str | Iterable[str], errors: list[PgnError] | None = None, *,
             rules: str = "fide") -> list[PgnGame]:
    """The games of ``text``. With an ``errors`` list, a malformed game is appended to it and
    reading goes on with the next game; without one, the first malformed game raises PgnError."""
    games = []
    for item in read_games(text, rules=rules):
        if isinstance(item, PgnError):
            if errors is None:
                raise item
            errors.append(item)
        else:
            games.append(item)
    return games


def read_game(text: str | Iterable[str], *, rules: str = "fide") -> PgnGame:
    """The one game of ``text``; PgnError if it is malformed, or if the text holds no game or more."""
    found = list(read_games(text, rules=rules))
    if len(found) != 1:
        raise PgnError(f"expected one game, found {len(found)}", number=len(found))
    if isinstance(found[0], PgnError):
        raise found[0]
    return found[0]
