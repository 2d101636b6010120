"""The simulated board: each change of the hands is one reading; colour mode."""
from __future__ import annotations

import pytest

from board_driver.reading import Reading
from board_driver.sensors import SensorError
from board_driver.backends.sim import SimulatedBoard

START = 0xFFFF00000000FFFF


class Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        self.t += 0.5
        return self.t


def test_start_delivers_the_current_reading_then_each_change():
    board = SimulatedBoard(START, clock=Clock())
    got = []
    board.start(got.append)
    board.lift(12)
    board.place(28)
    assert [r.occupied for r in got] == [START, START ^ (1 << 12), START ^ (1 << 12) | (1 << 28)]
    assert [r.time for r in got] == [0.5, 1.0, 1.5]
    assert board.occupied == START ^ (1 << 12) | (1 << 28)


def test_changes_that_change_nothing_deliver_nothing():
    board = SimulatedBoard(START)
    got = []
    board.start(got.append)
    assert board.lift(30) is False
    assert board.place(0) is False
    assert board.set_occupied(START) is False
    assert len(got) == 1


def test_set_occupied_and_move():
    board = SimulatedBoard()
    got = []
    board.start(got.append)
    board.set_occupied(0b11)
    board.move(0, 9)
    assert [r.occupied for r in got] == [0, 0b11, 0b10, 0b10 | (1 << 9)]


def test_before_start_changes_are_kept_but_not_delivered():
    board = SimulatedBoard()
    board.place(5)
    got = []
    board.start(got.append)
    assert got == [Reading(got[0].time, 1 << 5)]
    board.stop()
    board.place(6)
    assert len(got) == 1 and board.read_once().occupied == 0b1100000


def test_colour_board():
    board = SimulatedBoard(colour=True, white=0xFF, black=0xFF << 56, clock=Clock())
    got = []
    board.start(got.append)
    board.move(12 - 8, 20)  # a white piece from e1 to e3
    board.move(60, 44)  # a black piece from e8 to e6
    last = got[-1]
    assert last.white == (0xFF & ~(1 << 4)) | (1 << 20)
    assert last.black == ((0xFF << 56) & ~(1 << 60)) | (1 << 44)
    assert last.occupied == last.white | last.black
    with pytest.raises(ValueError, match="colour"):
        board.place(30)
    board.place(30, "b")
    assert board.black >> 30 & 1


def test_colour_board_set_occupied_keeps_known_colours():
    board = SimulatedBoard(colour=True, white=0b01, black=0b10)
    board.set_occupied(0b110)
    assert (board.white, board.black) == (0b100, 0b10)
    with pytest.raises(ValueError):
        board.set_colours(1, 1)


def test_bad_squares_and_states_are_refused():
    board = SimulatedBoard()
    for bad in (-1, 64, "e4", True):
        with pytest.raises(ValueError):
            board.lift(bad)
    with pytest.raises(ValueError):
        board.set_occupied(1 << 64)
    with pytest.raises(ValueError):
        SimulatedBoard(colour=True, white=1, black=1)
    with pytest.raises(ValueError):
        board.place(3, "green")
    board.start(lambda r: None)
    with pytest.raises(SensorError):
        board.start(lambda r: None)
    board.stop()


def test_context_manager_stops():
    with SimulatedBoard() as board:
        board.start(lambda r: None)
        assert board.running
    assert not board.running
