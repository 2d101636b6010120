"""What the session looks like from outside: the status line and the JSON-able snapshot."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from chess_core import Game, Move, Outcome, Position, san
from chess_core.chess960 import number_of as chess960_number
from chess_core.clock import format_clock
from chess_core.squares import SQUARE_NAMES, WHITE, scan_squares

COLOR_NAMES = ("white", "black")
SIDE_WORDS = ("White", "Black")


def squares(bb: int) -> list[str]:
    return [SQUARE_NAMES[s] for s in scan_squares(bb)]


def colour_text(colour: int) -> str:
    return f"#{colour:06x}"


class SanCache:
    """SAN of a game's moves in English and French, extended move by move instead of recomputed:
    an update costs the moves played (or taken back) since the last one, not the game's length."""

    def __init__(self) -> None:
        self.en: list[str] = []
        self.fr: list[str] = []
        self._marks: list[object] = []     # game.ply_mark(i) for i in 0..len(en)
        self._pos: Position | None = None  # the position after the known moves

    def update(self, game: Game) -> None:
        moves = game.moves
        marks = self._marks
        if not marks or game.ply_mark(0) is not marks[0]:
            self.en, self.fr, marks[:] = [], [], [game.ply_mark(0)]
            self._pos = game.start_position()
        pos = self._pos
        known = len(self.en)
        while known and (known > len(moves) or game.ply_mark(known) is not marks[known]):
            known -= 1  # taken back or replaced since the last update
            self.en.pop()
            self.fr.pop()
            marks.pop()
            pos.pop()
        for ply in range(known, len(moves)):
            move = moves[ply]
            self.en.append(san(pos, move, "en"))
            self.fr.append(san(pos, move, "fr"))
            pos.push(move)
            marks.append(game.ply_mark(ply + 1))


@dataclass(frozen=True)
class View:
    """The parts of the session a status line and a snapshot are made of."""

    game: Game
    started: bool
    occupied: int
    lifted: int = 0
    wrong: int = 0
    paused: bool = False
    restoring: bool = False
    new_online_game: bool = False        # the game being set up came from the other end: new to the board
    waiting_for_start: bool = False
    expected_move: Move | None = None
    takeback_move: Move | None = None
    promotion_square: int | None = None
    draw_offer: int | None = None
    touched: int | None = None
    names: tuple[str, str] = ("White", "Black")
    clocks: tuple[int | None, int | None] = (None, None)
    running: int | None = None
    delay_left: int = 0                  # ms of simple delay left for the side to move
    problems: tuple[str, ...] = ()       # in words, without the time
    extra: dict[str, Any] = field(default_factory=dict)


def status_text(view: View) -> str:
    """One line for people: "White to move", "Black wins by checkmate", "Put the pieces right"."""
    outcome: Outcome | None = view.game.outcome
    if outcome is not None:
        return outcome.describe()
    if view.waiting_for_start:
        if view.game.chess960:
            number = chess960_number(view.game.start_position())
            if number is not None:
                rank = view.game.start_fen.split("/")[7].split()[0]
                return f"Set up Chess960 position {number} to start: first rank {rank}, Black's mirrors it"
            return "Set up the Chess960 position shown to start"
        return "Set up the pieces to start"
    if view.restoring and view.wrong:
        if view.new_online_game:
            if view.game.moves:
                return f"Set up the game in progress as shown ({len(view.game.moves)} moves played)"
            return "Set up the new game as shown"
        return "Put the pieces back as shown to continue the game"
    if view.takeback_move is not None:
        return f"Take back {view.takeback_move.uci()}: put the pieces back as shown"
    if view.wrong:
        return "Put the pieces right"
    if view.paused:
        return "Clock paused"
    side = SIDE_WORDS[view.game.turn]
    if view.expected_move is not None:
        return f"{side} to move: play {view.expected_move.uci()} on the board"
    text = f"{side} to move"
    if view.game.position.is_check():
        text += " (check)"
    return text


def snapshot(view: View, sans: SanCache, leds: tuple[int, ...], now: float) -> dict[str, Any]:
    """The session's state at ``now`` as plain JSON values (for the web companion)."""
    game = view.game
    sans.update(game)
    outcome = game.outcome
    last = game.moves[-1] if game.moves else None
    claims = [t.value for t in game.claimable_draws()] if view.started else []
    data = {
        "status": status_text(view),
        "started": view.started,
        "over": outcome is not None,
        "result": outcome.result() if outcome else "*",
        "termination": outcome.termination.value if outcome else None,
        "winner": COLOR_NAMES[outcome.winner] if outcome and outcome.winner is not None else None,
        "turn": COLOR_NAMES[game.turn],
        "check": game.position.is_check(),
        "fen": game.fen(),
        "start_fen": game.start_fen,
        "rules": game.rules,
        "players": {"white": view.names[0], "black": view.names[1]},
        "moves": {"uci": [m.uci() for m in game.moves], "san": list(sans.en), "san_fr": list(sans.fr)},
        "last_move": last.uci() if last else None,
        "occupied": squares(view.occupied),
        "lifted": squares(view.lifted),
        "wrong": squares(view.wrong),
        "expected_move": view.expected_move.uci() if view.expected_move else None,
        "takeback": view.takeback_move.uci() if view.takeback_move else None,
        "promotion_square": SQUARE_NAMES[view.promotion_square] if view.promotion_square is not None else None,
        "touched": SQUARE_NAMES[view.touched] if view.touched is not None else None,
        "draw_offer": COLOR_NAMES[view.draw_offer] if view.draw_offer is not None else None,
        "claimable_draws": claims,
        "clocks": {
            "white": view.clocks[0], "black": view.clocks[1],
            "white_text": format_clock(view.clocks[0]), "black_text": format_clock(view.clocks[1]),
            "running": COLOR_NAMES[view.running] if view.running is not None else None,
            "paused": view.paused,
            "delay_left": view.delay_left,
        },
        "leds": [colour_text(c) for c in leds],
        "problems": list(view.problems),
        "time": now,
    }
    data.update(view.extra)
    return data


__all__ = ["View", "SanCache", "status_text", "snapshot", "squares", "WHITE"]
