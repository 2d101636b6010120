"""What the session publishes: one typed, frozen SessionState per change, its status line and its JSON form.

The session builds a :class:`SessionState` once per change (``Session.state(now)``) and hands the
same object to every subscriber: the web page (``firmware.web.session_backend``), the club
publisher, tests. Everything in it is a value: moves, squares (ints), colours (WHITE/BLACK),
enums; :func:`to_json` writes it as plain JSON values (squares by name, colours by word): the one
JSON shape of the state, which ``Session.snapshot()`` returns, ``GET /api/state`` and the
websocket send and the club publisher reads. docs/state.schema.json describes it; its
``"schema"`` number (:data:`SCHEMA_VERSION`) changes when a key is renamed or removed.
"""
from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from typing import Any

from chess_core import Game, Move, Outcome, Position, Termination, san
from chess_core.chess960 import number_of as chess960_number
from chess_core.clock import format_clock
from chess_core.squares import COLOR_NAMES, PIECE_SYMBOLS, SQUARE_NAMES, scan_squares

from firmware.config import OpponentKind
from firmware.session.app_link import AppLink
from firmware.training.drill import Training
from firmware.training.progress import Progress
from firmware.openings import Opening
import firmware.words as words
from firmware.words.message import San
from firmware.referee.gestures import GestureProgress

SIDE_WORDS = ("White", "Black")
HELPER_FAILED = {"voice": "voice_failed", "coach": "coach_failed"}   # a helper that failed: the page's words


class Phase(enum.Enum):
    """Where the board's game stands; one value instead of five flags."""

    SETTING_UP = "setting up"      # waiting for the start position: the game has not begun
    RESUMING = "resuming"          # a game continued (restart, online sync): the pieces go back first
    PLAYING = "playing"
    PAUSED = "paused"              # both clocks stopped by a player or an arbiter
    OVER = "over"                  # the game has ended; the board still shows it
    CLEARED = "cleared"            # over, and the board has left the start position since: setting it
    #                                up again begins the next game

    @property
    def live(self) -> bool:
        """A game in progress (moves count)."""
        return self in (Phase.RESUMING, Phase.PLAYING, Phase.PAUSED)

    @property
    def over(self) -> bool:
        return self in (Phase.OVER, Phase.CLEARED)


@dataclass(frozen=True)
class Takeover:
    """The computer playing a side its player left: the player, the engine, from which move."""

    side: int
    player: str
    engine: str
    from_move: int
    tag: str                 # the PGN player tag: "Anna (Stockfish from move 23)"


@dataclass(frozen=True)
class OpponentState:
    """Who plays the sides not played over the board, and the link to it."""

    kind: OpponentKind = OpponentKind.NONE
    name: str | None = None
    sides: frozenset[int] = frozenset()
    link: str | None = None              # a LinkState value: "connected", "failed"...
    link_detail: str | None = None
    assistance_allowed: bool = True
    takeovers: tuple[Takeover, ...] = ()
    away: bool = False                      # the other player left (online)
    claim_win_in_seconds: int | None = None
    lichess_token: bool = False             # a Lichess token is kept
    account: str | None = None           # the Lichess account, once connected
    online_game: str | None = None       # the Lichess game followed, if any


@dataclass(frozen=True)
class Promotion:
    """A promotion whose piece may still be chosen: just made (``square`` set) or on its way."""

    square: int | None
    piece_type: int
    color: int


@dataclass(frozen=True)
class Setup:
    """A position being set up by hand, the board leading (firmware.session.setup_guidance): the
    ``target`` FEN, the ``steps`` left (the piece's FEN letter, "?" for one the board never saw
    placed; the square it comes from and the one it goes to, None: the box; what the step says),
    ``done``."""

    target: str
    steps: tuple[tuple[str, int | None, int | None, words.Message], ...]
    done: bool


@dataclass(frozen=True)
class SessionState:
    """The session at one moment; see the module docstring."""

    time: float
    phase: Phase
    fen: str
    start_fen: str
    turn: int
    check: bool
    rules: str
    moves: tuple[Move, ...]
    san: tuple[str, ...]                 # the moves in SAN (English letters: the page and the voice say them in theirs)
    outcome: Outcome | None
    claims: tuple[Termination, ...]
    names: tuple[str, str]
    occupied: int
    lifted: int
    wrong: int
    touched: int | None
    leds: tuple[int, ...]
    expected_move: Move | None
    takeback_move: Move | None
    promotion_square: int | None
    promotion: Promotion | None
    next_promotion: int
    draw_offer: int | None
    takeback_offer: int | None
    clocks: tuple[int | None, int | None]
    running: int | None
    delay_left: int
    time_control: str
    problems: tuple[tuple[float, words.Message], ...]   # (time, what to say)
    game_file: str | None
    link_text: str | None
    restored_moves: int
    can_takeback: bool
    take_over: tuple[int, ...]              # the sides the computer may take over now
    settings: dict[str, Any] = field(default_factory=dict)
    opponent: OpponentState = OpponentState()
    leds_problem: words.Message | None = None   # the LEDs are off, and why
    move_clocks: tuple[int | None, ...] = ()   # ms on the mover's clock after each move
    round: str = "-"
    event: str = ""
    save_problem: words.Message | None = None   # the game cannot be saved: what to say to the players
    gesture: GestureProgress | None = None   # a gesture being held, and how far
    corrections: tuple[tuple[Move, str], ...] = ()   # other moves that explain the board as well as the
    #                                                  last one: (move, its SAN)
    chess960: bool = False
    new_online_game: bool = False           # the game being set up came from the other end: new to the board
    chat: tuple[tuple[str, str], ...] = ()  # the online game's chat: (username, text)
    notice: words.Message | None = None  # about the other side (its answer...), until the next move
    first_move_ms: int | None = None     # online, before both first moves: ms before the server aborts
    opening: Opening | None = None       # the opening (ECO, name) of the latest named position (firmware.openings)
    app: AppLink | None = None           # an app playing on the board through an emulated board (firmware.emulation)
    hint_available: bool = False         # the coach helps the side to move: a hint may be asked
    failed_helpers: tuple[str, ...] = ()   # "voice", "coach": the helpers that failed, the page says each once
    lit_roles: tuple[tuple[str, int], ...] = ()   # the LEDs' roles lit now and their colours (the legend)
    setup: Setup | None = None           # a position being set up by hand, the board leading
    training: Training | None = None     # the drills under way (firmware.session.trainer)
    progress: Progress | None = None     # the training player's progress

    @property
    def started(self) -> bool:
        return self.phase is not Phase.SETTING_UP

    @property
    def over(self) -> bool:
        return self.outcome is not None

    @property
    def paused(self) -> bool:
        return self.phase is Phase.PAUSED

    @property
    def status(self) -> str:
        """The status line in English (the journal, the tests): ``status_text`` says it in any language."""
        return status_text(self).text()


def status_text(state: SessionState) -> words.Message:
    """One line for people, saying what to do (firmware.words: said in any language): "White to
    move", "Black to move: Stockfish plays Nf6, make it on the board", "Put the knight back on b8",
    "Black wins by checkmate"."""
    if state.setup is not None and state.setup.steps:   # the board leads the hand, one step at a time
        return words.Message.of("setup_next", n=len(state.setup.steps), step=state.setup.steps[0][3])
    if state.outcome is not None:   # (a position set up that is over already says so once it stands)
        return words.outcome_text(state.outcome)
    if state.phase is Phase.SETTING_UP:
        start = Position(state.start_fen, chess960=state.chess960)
        number = chess960_number(start) if state.chess960 else None
        return words.setup_text(start, state.occupied, state.wrong, number=number)
    def position() -> Position:   # (read from the FEN only where a text needs it)
        return Position(state.fen, chess960=state.chess960)

    if state.phase is Phase.RESUMING and state.wrong:
        if state.new_online_game:
            if state.moves:
                return words.Message.of("resume_online_game", n=len(state.moves))
            return words.Message.of("resume_new_online_game")
        return words.Message.of("resume_game")
    if state.takeback_move is not None:
        return words.takeback_text(position(), state.takeback_move)
    if state.wrong:
        hint = words.board_hint(position(), state.occupied) or words.Message.of("put_right")
        if state.phase is Phase.PAUSED:   # a move made while the clock is stopped does not count
            return words.paused_text(hint)
        return hint
    if state.phase is Phase.PAUSED:
        return words.Message.of("clock_paused")
    if state.expected_move is not None:
        return words.opponent_plays(position(), state.expected_move, state.names[state.turn])
    return words.side_to_move(state.turn, state.check)


class SanCache:
    """SAN of a game's moves (English letters), extended move by move instead of recomputed:
    an update costs the moves played (or taken back) since the last one, not the game's length."""

    def __init__(self) -> None:
        self.en: list[str] = []
        self._marks: list[object] = []     # game.ply_mark(i) for i in 0..len(en)
        self._pos = Position()             # the position after the known moves

    def update(self, game: Game) -> None:
        moves = game.moves
        marks = self._marks
        if not marks or game.ply_mark(0) is not marks[0]:
            self.en, marks[:] = [], [game.ply_mark(0)]
            self._pos = game.start_position()
        pos = self._pos
        known = len(self.en)
        while known and (known > len(moves) or game.ply_mark(known) is not marks[known]):
            known -= 1  # taken back or replaced since the last update
            self.en.pop()
            marks.pop()
            pos.pop()
        for ply in range(known, len(moves)):
            move = moves[ply]
            self.en.append(san(pos, move))
            pos.push(move)
            marks.append(game.ply_mark(ply + 1))


SCHEMA_VERSION = 2   # the "schema" of to_json's object: docs/state.schema.json describes it


def squares(bb: int) -> list[str]:
    return [SQUARE_NAMES[s] for s in scan_squares(bb)]


def _square(sq: int | None) -> str | None:
    return SQUARE_NAMES[sq] if sq is not None else None


def _colour(side: int | None) -> str | None:
    return COLOR_NAMES[side] if side is not None else None


def _uci(move: Move | None) -> str | None:
    return move.uci() if move is not None else None


def _link(state: str | None, detail: str | None = "") -> dict[str, Any] | None:
    """A link as the state shows it: ``{"state", "detail"}``, or None."""
    if not state:
        return None
    return {"state": state, "detail": detail or ""}


def training_said(training: Training) -> words.Message | None:
    """The last verdict in words: "Solved!", "Right: go on", "Try again...", "The move was Nf3..."."""
    verdict, drill = training.verdict, training.drill
    if verdict == "solved":   # (a puzzle found after a wrong try counts as failed, as on Lichess: said so)
        return words.Message.of("training_solved_late" if training.failed and drill.kind == "puzzle" else "training_solved")
    if verdict == "try again":
        return words.Message.of("training_try_again")
    if verdict == "shown" and training.end is not None:
        position = Position(drill.fen)
        for uci in drill.solution[:training.end - 1]:
            position.push(Move.from_uci(uci))
        return words.Message.of("training_shown_made" if training.over else "training_shown",
                                san=San(san(position, Move.from_uci(drill.solution[training.end - 1]))))
    return words.Message.of("training_right") if training.made else None


def training_json(training: Training | None, progress: Progress | None, lang: str | None = None) -> dict[str, Any] | None:
    """The state's ``training``: the drill under way (its kind, id, position, the side to find the
    move for, the move that led to it and the line once it is over, in SAN), how many are left, the
    last verdict and the tries; the player's puzzle rating and themes."""
    if training is None:
        return None
    drill = training.drill
    position = Position(drill.fen)
    line: list[str] = []
    for uci in drill.line if training.over else ():
        move = Move.from_uci(uci)
        if not position.is_legal(move):
            break
        line.append(san(position, move))
        position.push(move)
    rating = progress.rating if progress is not None else None
    return {"said": said(training_said(training), lang), "kind": drill.kind, "id": drill.id, "fen": drill.fen, "side": COLOR_NAMES[drill.side],
            "left": training.left, "verdict": training.verdict, "tries": training.attempt.tries,
            "over": training.over, "judging": training.waiting is not None, "line": line,
            "themes": list(drill.themes), "puzzle_rating": drill.rating, "player": training.player,
            "judgement": drill.exercise.judgement if drill.exercise is not None else None,
            "rating": None if rating is None else {"rating": round(rating.rating), "deviation": round(rating.deviation),
                                                   "provisional": rating.provisional},
            "themes_counts": {} if progress is None else {
                theme: {"solved": won, "failed": lost} for theme, (won, lost) in progress.theme_counts().items()}}


def said(message: words.Message | None, lang: str | None) -> Any:
    """A message as the state carries it: its key and values (``{"key", "values"}``, firmware.words),
    with its ``text`` in ``lang`` when a client asked for one; None stays None."""
    return None if message is None else words.message_json(message, lang)


def opponent_json(opponent: OpponentState, lang: str | None = None) -> dict[str, Any]:
    """The state's ``opponent``: who plays the sides not played over the board, and the link to it."""
    none = opponent.kind is OpponentKind.NONE
    sides = sorted(opponent.sides)
    takeover = {COLOR_NAMES[t.side]: {"player": t.player, "engine": t.engine, "from_move": t.from_move,
                                      "tag": t.tag} for t in opponent.takeovers}
    return {"kind": opponent.kind.value, "name": opponent.name, "sides": [COLOR_NAMES[side] for side in sides],
            "text": None if none else said(words.opponent_line(opponent.kind.value, opponent.name, sides), lang),
            "link": None if none else _link(opponent.link, opponent.link_detail),
            "assistance_allowed": opponent.assistance_allowed,
            "takeover": takeover or None,
            "away": {"claim_win_in_seconds": opponent.claim_win_in_seconds}
            if opponent.away and opponent.kind is OpponentKind.LICHESS else None}


def lichess_json(opponent: OpponentState, lang: str | None = None) -> dict[str, Any]:
    """The state's ``lichess``: whether a token is kept (never the token), the account once connected."""
    online = opponent.kind is OpponentKind.LICHESS
    link = _link(opponent.link) if online else None
    game = opponent.online_game
    return {"logged_in": opponent.lichess_token, "account": opponent.account if online else None,
            "connected": link is not None and link["state"] == "connected", "link": link,
            "game": game, "status": said(words.Message.of("playing_game", game=game), lang) if game else None}


def online_json(state: SessionState, lang: str | None = None) -> dict[str, Any]:
    """The state's ``online``: the game's chat, the other side's answer, the first-move countdown,
    and the side the board plays (the page turns the board round for Black)."""
    opponent = state.opponent
    theirs = set(opponent.sides) if opponent.kind is OpponentKind.LICHESS else set()
    return {"chat": [{"user": user, "text": text} for user, text in state.chat], "notice": said(state.notice, lang),
            "first_move_ms": state.first_move_ms,
            "orientation": "black" if theirs == {0} else "white"}


# The defaults of the settings the session's state may leave out (firmware.config's defaults).
SETTING_DEFAULTS: dict[str, Any] = {"show_legal_squares": True, "touch_move": False, "alternate_colours": True,
                                    "takebacks": False, "brightness": 0.5, "engine_level": 8, "engine_elo": 0,
                                    "engine_move_time": 1.0, "time_control": "-", "rules": "fide",
                                    "opponent": "none", "coach_white": False, "coach_black": False,
                                    "coach_hints": True}


def settings_json(settings: dict[str, Any]) -> dict[str, Any]:
    """The state's ``settings``, named as ``POST /api/settings`` takes them (``show_legal``...), with the
    next game's defaults (``time_control``, ``rules``, ``opponent``)."""
    s = {**SETTING_DEFAULTS, **settings}
    return {"show_legal": bool(s["show_legal_squares"]), "touch_move": bool(s["touch_move"]),
            "alternate_colours": bool(s["alternate_colours"]), "takebacks": bool(s["takebacks"]),
            "brightness": s["brightness"], "engine_level": s["engine_level"], "engine_elo": s["engine_elo"] or 0,
            "engine_move_time": s["engine_move_time"], "time_control": str(s["time_control"]),
            "rules": str(s["rules"]), "opponent": str(s["opponent"]), "coach_white": bool(s["coach_white"]),
            "coach_black": bool(s["coach_black"]), "coach_hints": bool(s["coach_hints"])}


def _words(text: str) -> tuple[str, ...]:
    return tuple(re.findall(r"\w+", text.casefold()))


def _says(text: str, part: str) -> bool:
    """Whether ``text`` says ``part`` (its words in a row, case and punctuation aside)."""
    whole, said = _words(text), _words(part)
    return bool(said) and any(whole[i:i + len(said)] == said for i in range(len(whole) - len(said) + 1))


def once(headline: str, notes: list[str]) -> tuple[str, list[str]]:
    """The headline and the notes under it, each text said once: a note that says the headline
    and more ("Not a legal move (White to move): put the pawn on e5 back on e2" under "Put the
    pawn on e5 back on e2") becomes the headline; a note the headline or an earlier note already
    says is left out."""
    for note in notes:
        if _says(note, headline) and not _says(headline, note):
            headline = note
    kept: list[str] = []
    for note in notes:
        if _words(note) and not _says(headline, note) and not any(_says(k, note) for k in kept):
            kept.append(note)
    return headline, kept


def headline_and_notes(state: SessionState) -> tuple[words.Message, list[words.Message]]:
    """What is said above the board: the status, and the latest problem while the board is wrong
    (the session keeps every problem met), each said once (compared in English: every language
    says the same things)."""
    status = status_text(state)
    problems = [message for _, message in state.problems][-1:] if state.wrong else []
    english = {message.text(): message for message in [status, *problems]}
    headline, notes = once(status.text(), [message.text() for message in problems])
    return english[headline], [english[note] for note in notes]


def to_json(state: SessionState, lang: str | None = None) -> dict[str, Any]:
    """The state as plain JSON values: the object ``GET /api/state`` and the websocket send (the
    page's server adds ``seq`` and ``sim``), described by docs/state.schema.json. Squares by name,
    colours "white"/"black", moves in UCI, LED colours "#rrggbb" ("" when dark), times in ms
    except ``time`` and ``problem_times`` (the session's clock, s). Words are messages, a key and
    its values (``{"key", "values"}``, firmware.words), which the page fills in from the
    catalogues (``GET /api/words``) in its reader's language; ``lang``: each message also carries
    its ``text`` in that language, for a client that asks (``GET /api/state?lang=en``)."""
    outcome = state.outcome
    last = state.moves[-1] if state.moves else None
    status, notes = headline_and_notes(state)
    promotion = state.promotion
    clocks = state.clocks
    return {
        "schema": SCHEMA_VERSION,
        "time": state.time,
        "status": said(status, lang),
        "notes": [said(note, lang) for note in notes],
        "started": state.started,
        "over": outcome is not None,
        "result": outcome.result() if outcome else "*",
        "termination": outcome.termination.value if outcome else None,
        "winner": _colour(outcome.winner) if outcome else None,
        "ending": said(status, lang) if outcome else None,
        "turn": COLOR_NAMES[state.turn],
        "check": state.check,
        "fen": state.fen,
        "start_fen": state.start_fen,
        "chess960": state.chess960,
        "rules": state.rules,
        "time_control": state.time_control,
        "round": state.round,
        "event": state.event,
        "players": {"white": state.names[0], "black": state.names[1]},
        "moves": {"uci": [m.uci() for m in state.moves], "san": list(state.san)},
        "last_move": _uci(last),
        "move_clocks": list(state.move_clocks),
        "restored_moves": state.restored_moves,
        "occupied": squares(state.occupied),
        "lifted": squares(state.lifted),
        "wrong": squares(state.wrong),
        "touched": _square(state.touched),
        "leds": [f"#{c:06x}" if c else "" for c in state.leds],
        "lit_roles": [{"role": role, "colour": f"#{colour:06x}"} for role, colour in state.lit_roles],
        "training": training_json(state.training, state.progress, lang),
        "setup": None if state.setup is None else {
            "target": state.setup.target, "done": state.setup.done,
            "steps": [{"piece": piece, "from": _square(source), "to": _square(target), "said": said(text, lang)}
                      for piece, source, target, text in state.setup.steps]},
        "expected_move": _uci(state.expected_move),
        "takeback_move": _uci(state.takeback_move),
        "promotion": None if promotion is None else {
            "square": _square(promotion.square), "piece": PIECE_SYMBOLS[promotion.piece_type],
            "color": COLOR_NAMES[promotion.color]},
        "next_promotion": "nbrq"[state.next_promotion - 2],
        "draw_offer": _colour(state.draw_offer),
        "takeback_offer": None if outcome else _colour(state.takeback_offer),
        "claimable_draws": [t.value for t in state.claims],
        "can_takeback": state.can_takeback,
        "hint_available": state.hint_available,
        "take_over": [COLOR_NAMES[side] for side in sorted(state.take_over)],
        "clocks": {
            "white": clocks[0], "black": clocks[1],
            "white_text": format_clock(clocks[0]), "black_text": format_clock(clocks[1]),
            "running": _colour(state.running),
            "paused": state.paused,
            "delay_left": state.delay_left,
            "sandclock": state.time_control.startswith("*"),
        },
        "problems": [said(message, lang) for _, message in state.problems],
        "problem_times": [t for t, _ in state.problems],
        "corrections": [{"uci": m.uci(), "san": text} for m, text in state.corrections],
        "gesture": state.gesture.to_json() if state.gesture is not None else None,
        "leds_problem": said(state.leds_problem, lang),
        "save_problem": said(state.save_problem, lang),
        "failed_helpers": [{"helper": helper, "text": said(words.Message.of(HELPER_FAILED[helper]), lang)}
                           for helper in state.failed_helpers],
        "game_file": state.game_file,
        "app": None if state.app is None else {
            "name": state.app.app, "protocol": state.app.protocol, "text": said(state.app.message(), lang),
            "blink": None if state.app.blink is None else {
                "slot_ms": round(state.app.blink[0] * 1000, 3), "patterns": list(state.app.blink[1])}},
        "opening": None if state.opening is None else {
            "eco": state.opening.eco, "name": state.opening.name, "ply": state.opening.ply},
        "settings": settings_json(state.settings),
        "opponent": opponent_json(state.opponent, lang),
        "lichess": lichess_json(state.opponent, lang),
        "online": online_json(state, lang),
    }


__all__ = ["Phase", "SessionState", "OpponentState", "Takeover", "Promotion", "SanCache", "status_text",
           "to_json", "squares", "once", "headline_and_notes", "SIDE_WORDS", "SCHEMA_VERSION"]
