"""A table for session tests: a simulated board, a recording LED sink and time driven by hand."""
from __future__ import annotations

from datetime import datetime

import pytest

from board_driver.backends.sim import SimulatedBoard
from board_driver.backends.sim_leds import RecordingLedSink
from chess_core import Move, Position, parse_square
from firmware.session.view import feedback_state
from firmware.config import loads_config
from firmware.referee.feedback import frame
from firmware.session.session import Session

START_OCCUPIED = Position().occupied


def config_text(storage: str, **game: object) -> str:
    lines = ['[board]', 'sensors = "sim"', 'settle_ms = 30', '[storage]', f'dir = "{storage}"', '[game]']
    for key, value in game.items():
        if isinstance(value, bool):
            lines.append(f"{key} = {'true' if value else 'false'}")
        elif isinstance(value, (int, float)):
            lines.append(f"{key} = {value}")
        else:
            lines.append(f'{key} = "{value}"')
    return "\n".join(lines) + "\n"


class Table:
    """A session on a simulated board; ``t`` is the time, moved on only by ``wait``."""

    def __init__(self, tmp_path, *, gestures: str = "", leds: str = "", **game: object) -> None:
        self.t = 100.0
        self.tmp_path = tmp_path
        text = config_text(str(tmp_path / "state"), **game)
        if gestures:
            text += "[gestures]\n" + gestures + "\n"
        text += "[leds]\nbrightness = 1.0\n" + leds + "\n"
        self.config = loads_config(text)
        self.leds = RecordingLedSink()
        self.wall = datetime(2026, 11, 29, 19, 30)
        self.session = self.new_session()
        self.board = SimulatedBoard(clock=lambda: self.t)
        self.board.start(self.feed)
        self.snapshots: list[dict] = []

    def new_session(self, **kwargs) -> Session:
        return Session(self.config, leds=self.leds, clock=lambda: self.t, wall=lambda: self.wall, **kwargs)

    def feed(self, reading) -> None:
        self.session.feed(reading)

    def wait(self, seconds: float) -> None:
        """Let ``seconds`` pass, polling the session at each deadline it names."""
        end = self.t + seconds
        while True:
            due = self.session.next_deadline(self.t, blink=False)
            if due is None or due > end:
                break
            self.t = max(self.t, due)
            self.session.poll(self.t)
        self.t = end
        self.session.poll(self.t)

    def power_cut(self) -> None:
        """The power goes and comes back: what was due is saved first, the pieces stay where they
        stood, and the service starts again from its state folder and restores what it kept."""
        self.wait(1)
        self.board.stop()
        self.session = self.new_session()
        assert self.session.restore(self.t)
        self.board.start(self.feed)
        self.wait(0.5)

    def setup(self, fen: str | None = None) -> None:
        self.board.set_occupied(Position.from_fen(fen, validate=False, chess960=True).occupied if fen
                                else START_OCCUPIED)
        self.wait(0.5)

    def lift(self, name: str, wait: float = 0.3) -> None:
        assert self.board.lift(parse_square(name)), f"nothing to lift on {name}"
        self.wait(wait)

    def place(self, name: str, wait: float = 0.3) -> None:
        assert self.board.place(parse_square(name)), f"{name} is occupied"
        self.wait(wait)

    def play(self, uci: str, think: float = 1.0) -> None:
        """Make the move on the board the way a hand would (victim first for captures)."""
        self.wait(think)
        move = Move.from_uci(uci)
        pos = self.session.game.position
        frm, to = move.from_square, move.to_square
        if pos.is_castling(move) and pos.chess960:  # both lifted (they may land on each other's squares)
            king_from, king_to, rook_from, rook_to = pos.castling_squares(move)
            for square in (king_from, rook_from):
                self.board.lift(square)
                self.wait(0.25)
            for square in (king_to, rook_to):
                self.board.place(square)
                self.wait(0.25)
        elif pos.is_castling(move):
            rook_from, rook_to = {6: (7, 5), 2: (0, 3), 62: (63, 61), 58: (56, 59)}[to]
            self._step(frm, to)
            self._step(rook_from, rook_to)
        elif pos.is_en_passant(move):
            victim = to - 8 if pos.turn == 0 else to + 8
            self.board.lift(victim)
            self.wait(0.2)
            self._step(frm, to)
        else:
            if pos.piece_at(to) is not None:
                self.board.lift(to)
                self.wait(0.2)
            self._step(frm, to)
        self.wait(0.5)

    def _step(self, frm: int, to: int) -> None:
        self.board.lift(frm)
        self.wait(0.25)
        self.board.place(to)
        self.wait(0.25)

    def play_all(self, moves: str, think: float = 1.0) -> None:
        for uci in moves.split():
            self.play(uci, think)

    @property
    def lit(self) -> dict[int, int]:
        return self.leds.lit()

    def lit_names(self, colour: int | None = None, *, blink_on: bool = False) -> set[str]:
        """Squares lit (in ``colour``) on the LEDs; ``blink_on``: as shown while blinkers are on."""
        from chess_core import square_name
        if blink_on:
            period = self.session.style.blink_period
            on = (self.t // period) * period
            leds = dict(enumerate(frame(feedback_state(self.session, self.t), on, self.session.style)))
        else:
            leds = self.leds.lit()
        return {square_name(s) for s, c in leds.items() if c and (colour is None or c == colour)}


OPEN: list[Table] = []
"""Tables whose sessions are closed after the test that made them (``closed_after``)."""


@pytest.fixture(autouse=True)
async def closed_after():
    """Every table in ``OPEN`` closed after its test: its engines quit, no Stockfish left (a test
    module imports this fixture to use it)."""
    yield
    while OPEN:
        await OPEN.pop().session.aclose()
