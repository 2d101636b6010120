"""Benchmark: the LED path while training (a position set up by the board's guidance, a drill's moves judged and its replies carried out) beside the same session playing a game.

The session runs in its default configuration on a simulated board, in-process, with a
recording LED sink; readings are fed at explicit times and the session polled when the debounce
settles them, as the service's loop does. Measured: the CPU time (thread time) of the loop step
that shows each new LED frame (the reading settling, the inference, the feedback, the LEDs, the
state built for a page subscribed), per frame, in three scenarios of the same run, alternated in
rounds:

* game (the peer): random games' moves made on the board, one piece at a time;
* setup: a random middlegame set up from the start position, the hand following the board's
  steps (each reading re-planned, its step lit, said in the state);
* drill: puzzles (the next moves of a random game as the solution) solved on the board, each move
  judged, the replies carried out as an engine's moves are, the progress saved in a worker thread
  (the scenarios run on an asyncio loop, as the service's).

Prints median, p90, p99 and max per scenario (goal: the setup's and the drill's p99 within the
game's, under 5 ms on this machine). Run: .venv/bin/python bench/training_leds.py [--rounds N]
"""
from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import chess  # noqa: E402

from board_driver.backends.sim import SimulatedBoard  # noqa: E402
from chess_core import Move  # noqa: E402
from firmware.config import loads_config  # noqa: E402
from firmware.session.session import Session  # noqa: E402
from firmware.session.setup_guidance import set_up_position  # noqa: E402
from firmware.training.drill import of_puzzle  # noqa: E402


class Sink:
    problem = None

    def __init__(self) -> None:
        self.frames = 0

    def show(self, colours) -> None:
        self.frames += 1


class Table:
    """A session on a simulated board; each step that shows a new frame is timed."""

    def __init__(self, state_dir: str) -> None:
        self.t = 100.0
        self.sink = Sink()
        config = loads_config(f'[board]\nsensors = "sim"\n[storage]\ndir = "{state_dir}"\n')
        self.session = Session(config, leds=self.sink, clock=lambda: self.t)
        self.session.subscribe(lambda state: None)   # (a page: the state is built at each change)
        self.samples: list[float] = []
        self.timing = False
        self.board = SimulatedBoard(clock=lambda: self.t)
        self.board.start(self.feed)

    def step(self, fn, *args) -> None:
        before = self.sink.frames
        start = time.thread_time_ns()
        fn(*args)
        took = (time.thread_time_ns() - start) / 1e6
        if self.timing and self.sink.frames != before:
            self.samples.append(took)

    def feed(self, reading) -> None:
        self.step(self.session.feed, reading)

    def wait(self, seconds: float) -> None:
        end = self.t + seconds
        while True:
            due = self.session.next_deadline(self.t, blink=False)
            if due is None or due > end:
                break
            self.t = max(self.t, due)
            self.step(self.session.poll, self.t)
        self.t = end
        self.step(self.session.poll, self.t)

    def lift(self, square: int) -> None:
        self.board.lift(square)
        self.wait(0.25)

    def place(self, square: int) -> None:
        self.board.place(square)
        self.wait(0.25)

    def move(self, uci: str) -> None:
        move, pos = Move.from_uci(uci), self.session.game.position
        if pos.is_castling(move):
            rook = {6: (7, 5), 2: (0, 3), 62: (63, 61), 58: (56, 59)}[move.to_square]
            for a, b in ((move.from_square, move.to_square), rook):
                self.lift(a)
                self.place(b)
        else:
            if pos.is_en_passant(move):
                self.lift(move.to_square - 8 if pos.turn == 0 else move.to_square + 8)
            elif pos.piece_at(move.to_square) is not None:
                self.lift(move.to_square)
            self.lift(move.from_square)
            self.place(move.to_square)
        self.wait(0.6)

    def follow_setup(self) -> None:
        while True:
            setup = self.session.snapshot()["setup"]
            if setup is None or not setup["steps"]:
                return
            step = setup["steps"][0]
            source = chess.parse_square(step["from"]) if step["from"] else None
            target = chess.parse_square(step["to"]) if step["to"] else None
            if source is not None and self.board.occupied >> source & 1:
                self.lift(source)
            elif target is not None:
                if self.board.occupied >> target & 1:
                    self.lift(target)
                else:
                    self.place(target)


def random_game(rng: random.Random, plies: int) -> chess.Board:
    board = chess.Board()
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves or board.is_game_over():
            break
        board.push(rng.choice(moves))
    return board


def game(table: Table, rng: random.Random) -> None:
    board = random_game(rng, 40)
    table.board.set_occupied(chess.BB_RANK_1 | chess.BB_RANK_2 | chess.BB_RANK_7 | chess.BB_RANK_8)
    table.session.new_game(table.t)
    table.wait(0.5)
    table.timing = True
    for move in board.move_stack:
        table.move(move.uci())
    table.timing = False


def setup(table: Table, rng: random.Random) -> None:
    board = random_game(rng, rng.randrange(16, 40))
    while board.is_game_over():
        board = random_game(rng, rng.randrange(16, 40))
    table.board.set_occupied(chess.BB_RANK_1 | chess.BB_RANK_2 | chess.BB_RANK_7 | chess.BB_RANK_8)
    table.session.new_game(table.t)
    table.wait(0.5)
    table.timing = True
    set_up_position(table.session, board.fen(), table.t)
    table.follow_setup()
    table.timing = False


def drill(table: Table, rng: random.Random) -> None:
    board = random_game(rng, rng.randrange(16, 40))
    line = random_game_from(board, rng, 5)
    while board.is_game_over() or len(line) < 5:
        board = random_game(rng, rng.randrange(16, 40))
        line = random_game_from(board, rng, 5)
    table.board.set_occupied(board.occupied)   # (the hand puts the pieces roughly there first)
    table.wait(0.5)
    table.session.trainer.start((of_puzzle("bench", board.fen(), tuple(line), rating=1500),), "Bench", {}, table.t)
    table.follow_setup()
    table.timing = True
    for uci in line:
        table.move(uci)
    table.timing = False
    table.session.trainer.stop(table.t)


def random_game_from(board: chess.Board, rng: random.Random, plies: int) -> list[str]:
    copy, line = board.copy(), []
    for _ in range(plies):
        moves = list(copy.legal_moves)
        if not moves:
            break
        move = rng.choice(moves)
        line.append(move.uci())
        copy.push(move)
    return line


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def run(rounds: int) -> dict[str, list[float]]:
    """The scenarios on a running loop, as the service runs them (a drill's progress saved in a
    worker thread, not in the step)."""
    rng = random.Random(35)
    results: dict[str, list[float]] = {"game": [], "setup": [], "drill": []}
    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(rounds):
            for name, scenario in (("game", game), ("setup", setup), ("drill", drill)):
                table = Table(str(Path(tmp) / f"{name}{round_}"))
                table.board.set_occupied(chess.BB_RANK_1 | chess.BB_RANK_2 | chess.BB_RANK_7 | chess.BB_RANK_8)
                table.wait(0.5)
                for _ in range(3):
                    scenario(table, rng)
                    await table.session.trainer.settled()
                results[name] += table.samples
                await table.session.aclose()
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    results = asyncio.run(run(args.rounds))
    print("CPU of the loop step that shows a new LED frame (ms), the same run, scenarios alternated:")
    print(f"{'scenario':10} {'frames':>7} {'median':>8} {'p90':>8} {'p99':>8} {'max':>8}")
    for name, samples in results.items():
        print(f"{name:10} {len(samples):7d} {statistics.median(samples):8.3f} {pct(samples, 0.9):8.3f} "
              f"{pct(samples, 0.99):8.3f} {max(samples):8.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
