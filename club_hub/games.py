"""A board's game message checked move by move into a :class:`BoardGame`, and its PGN (pure).

The broker is the trust boundary: whatever a board sends is checked here before the hub keeps
it. A message that is not what docs/club.md describes (not JSON, a field of the wrong kind or
size, a name with control characters, an illegal move, a result the moves contradict) raises
:class:`MessageError`, which the hub logs before dropping the message. The PGN is written by the
hub from the checked moves, never copied from the board, so no message can corrupt /round.pgn.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from chess_core import RULE_PROFILES, STARTING_FEN, FenError, Game, Outcome, Termination, parse_uci, san
from chess_core.pgn import write_pgn
from chess_core.timecontrol import TimeControl, TimeControlError

from club_wire.topics import FORMAT

MAX_BYTES = 64_000
MAX_PLIES = 1_000
MAX_TEXT = 80
MAX_MS = 100 * 3600 * 1000
GAME_ID = re.compile(r"[A-Za-z0-9._+-]{1,120}")
DATE_IN_ID = re.compile(r"(\d{4})-(\d{2})-(\d{2})_")
RESULTS = {"1-0": 0, "0-1": 1, "1/2-1/2": None}
COLOURS = ("white", "black")
VARIANTS = ("standard", "chess960")   # what a board plays (a message without one: standard)


class MessageError(ValueError):
    """A board's message the hub does not keep; the text says what is wrong with it."""


@dataclass
class BoardGame:
    """One board's game as the hub keeps it (the latest checked message for that game)."""

    board: str
    game_id: str | None            # None: the board waits for its first game
    sent: float
    white: str
    black: str
    event: str
    round: str
    start_fen: str
    rules: str
    time_control: str
    moves: tuple[str, ...]
    clocks: tuple[int | None, ...]
    remaining: tuple[int | None, int | None]
    running: str | None
    result: str
    termination: str | None
    status: str
    san: tuple[str, ...] = ()
    fen: str = STARTING_FEN
    variant: str = "standard"
    _game: Game | None = field(default=None, repr=False, compare=False)
    _pgn: str | None = field(default=None, repr=False, compare=False)

    @property
    def over(self) -> bool:
        return self.result != "*"

    def body(self) -> dict[str, Any]:
        """The message as the hub stores it (read back by :func:`check_message`)."""
        return {"v": FORMAT, "board": self.board, "game": self.game_id, "sent": self.sent, "white": self.white,
                "black": self.black, "event": self.event, "round": self.round, "start_fen": self.start_fen,
                "variant": self.variant, "rules": self.rules, "time_control": self.time_control, "started": self.game_id is not None,
                "moves": list(self.moves), "clocks": list(self.clocks),
                "remaining": {"white": self.remaining[0], "black": self.remaining[1]}, "running": self.running,
                "result": self.result, "termination": self.termination, "status": self.status}

    def date(self) -> str:
        found = DATE_IN_ID.match(self.game_id or "")
        return f"{found[1]}.{found[2]}.{found[3]}" if found else "????.??.??"

    def pgn(self, site: str = "?") -> str:
        """The game's PGN, written by the hub from the checked moves (kept until the next message)."""
        if self._pgn is None:
            game = self._game if self._game is not None else _replay(self)[0]
            headers = {"Event": self.event or "?", "Site": site, "Date": self.date(), "Round": self.round or "?",
                       "White": self.white, "Black": self.black, "TimeControl": self.time_control,
                       "Board": self.board}
            self._pgn = write_pgn(game, headers, list(self.clocks))
        return self._pgn


def _text(data: dict, key: str, default: str | None = None) -> str:
    value = data.get(key, default)
    if value is None and default is not None:
        value = default
    if not isinstance(value, str):
        raise MessageError(f"{key}: expected a text, got {type(value).__name__}")
    if len(value) > MAX_TEXT or not value.isprintable():
        raise MessageError(f"{key}: a text of up to {MAX_TEXT} printable characters")
    return value


def _ms(value: Any, what: str) -> int | None:
    if value is None:
        return None
    if type(value) is not int or not 0 <= value <= MAX_MS:
        raise MessageError(f"{what}: expected milliseconds (an integer from 0) or null, got {value!r}")
    return value


def check_message(payload: bytes, board: str, previous: BoardGame | None = None) -> BoardGame:
    """The :class:`BoardGame` of ``payload`` published under ``board``'s topic.

    ``previous``: the same board's last game; when this message carries on the same game, only
    the new moves are checked (the moves before were). Raises :class:`MessageError`.
    """
    if len(payload) > MAX_BYTES:
        raise MessageError(f"{len(payload)} bytes: a game message is at most {MAX_BYTES}")
    try:
        data = json.loads(payload)
    except (ValueError, UnicodeDecodeError) as exc:
        raise MessageError(f"not JSON ({exc.__class__.__name__})") from None
    if not isinstance(data, dict):
        raise MessageError("not a JSON object")
    if data.get("v") != FORMAT:
        raise MessageError(f"format {data.get('v')!r}: expected {FORMAT}")
    if data.get("board") != board:
        raise MessageError(f"says it is board {data.get('board')!r} on board {board}'s topic")
    game_id = data.get("game")
    if game_id is not None and (not isinstance(game_id, str) or not GAME_ID.fullmatch(game_id)):
        raise MessageError("game: a file name of letters, digits and ._+-")
    sent = data.get("sent")
    if not isinstance(sent, (int, float)) or isinstance(sent, bool) or not 0 <= sent < 1e11:
        raise MessageError("sent: expected a time in seconds")
    start_fen = _text(data, "start_fen", STARTING_FEN) or STARTING_FEN
    variant = _text(data, "variant", "standard")
    if variant not in VARIANTS:
        raise MessageError(f"variant {variant!r}: one of {', '.join(VARIANTS)}")
    rules = _text(data, "rules", "fide")
    if rules not in RULE_PROFILES:
        raise MessageError(f"rules: one of {', '.join(RULE_PROFILES)}")
    time_control = _text(data, "time_control", "-")
    try:
        TimeControl.parse(time_control)
    except TimeControlError:
        raise MessageError(f"time_control {time_control!r} is not a time control") from None
    moves = data.get("moves")
    if not isinstance(moves, list) or len(moves) > MAX_PLIES or not all(isinstance(m, str) and len(m) <= 5 for m in moves):
        raise MessageError(f"moves: a list of up to {MAX_PLIES} UCI moves")
    clocks = data.get("clocks") or []
    if not isinstance(clocks, list) or len(clocks) > len(moves):
        raise MessageError("clocks: a list with at most one clock per move")
    clocks = [_ms(c, "clocks") for c in clocks]
    remaining = data.get("remaining") or {}
    if not isinstance(remaining, dict):
        raise MessageError("remaining: an object {white, black}")
    running = data.get("running")
    if running not in (None, *COLOURS):
        raise MessageError("running: white, black or null")
    result = data.get("result", "*")
    if result not in (*RESULTS, "*"):
        raise MessageError(f"result {result!r}: one of 1-0, 0-1, 1/2-1/2, *")
    termination = data.get("termination")
    if termination is not None:
        try:
            Termination(termination)
        except ValueError:
            raise MessageError(f"termination {termination!r} is not one the boards give") from None
    found = BoardGame(
        board=board, game_id=game_id, sent=float(sent), white=_text(data, "white", "White") or "?",
        black=_text(data, "black", "Black") or "?", event=_text(data, "event", "?"), round=_text(data, "round", "-"),
        start_fen=start_fen, rules=rules, time_control=time_control, moves=tuple(moves), clocks=tuple(clocks),
        remaining=(_ms(remaining.get("white"), "remaining"), _ms(remaining.get("black"), "remaining")),
        running=running, result=result, termination=termination, status=_text(data, "status", ""),
        variant=variant)
    reuse = previous if previous is not None and previous._game is not None and previous.game_id == game_id \
        and previous.start_fen == start_fen and previous.rules == rules and previous.variant == variant and \
        found.moves[:len(previous.moves)] == previous.moves and not previous.over else None
    game, sans = _replay(found, reuse)
    found._game, found.san, found.fen = game, sans, game.fen()
    if reuse is not None:
        reuse._game = None   # the game object now belongs to the new message
    return found


def _replay(found: BoardGame, reuse: BoardGame | None = None) -> tuple[Game, tuple[str, ...]]:
    """The moves of ``found`` on a :class:`Game` (``reuse``'s, extended), its result checked."""
    sans: list[str]
    if reuse is not None and reuse._game is not None:   # the caller passes only a game kept
        game, sans, done = reuse._game, list(reuse.san), len(reuse.moves)
    else:
        try:
            game = Game(found.start_fen, found.rules, chess960=found.variant == "chess960")
        except (FenError, ValueError) as exc:
            raise MessageError(f"start_fen: {exc}") from None
        sans, done = [], 0
    pushed = 0
    try:
        for text in found.moves[done:]:
            try:
                move = parse_uci(game.position, text)
                sans.append(san(game.position, move, "en"))
                game.push(move)
                pushed += 1
            except ValueError as exc:   # illegal, or after the end of the game
                raise MessageError(f"move {done + pushed + 1} {text!r}: {exc}") from None
        _check_result(found, game)
    except MessageError:
        for _ in range(pushed):   # leave ``reuse``'s game as it was
            game.pop()
        raise
    return game, tuple(sans)


def _check_result(found: BoardGame, game: Game) -> None:
    """The result must agree with the moves (a mate is a mate); a result the board decided by
    itself (resignation, agreement, a flag) is set on the game."""
    outcome = game.outcome
    if outcome is not None:
        if found.result != outcome.result() and found.result != "*":
            raise MessageError(f"result {found.result} after {outcome.describe()}")
        return
    if found.result == "*":
        return
    termination = Termination(found.termination) if found.termination else Termination.ABANDONED
    if termination in (Termination.CHECKMATE, Termination.STALEMATE):
        raise MessageError(f"result {found.result} by {termination.value}: the position says otherwise")
    winner = RESULTS[found.result]
    outcome = Outcome(termination, winner)
    if outcome.result() != found.result:
        raise MessageError(f"result {found.result} does not go with {termination.value}")
    game.decide(outcome)
