"""The debouncer: raw readings with contact bounce in, settled readings (with their own times) out."""
from __future__ import annotations

import doctest
import random

import pytest

import board_driver.debounce
from board_driver.debounce import SETTLE_MS, Debouncer
from board_driver.reading import Reading


def test_doctests():
    assert doctest.testmod(board_driver.debounce).failed == 0


def test_a_reading_settles_after_settle_ms_and_keeps_its_own_time():
    d = Debouncer(30)
    assert d.feed(Reading(1.000, 0b11)) == []
    assert d.next_deadline() == pytest.approx(1.030)
    assert d.poll(1.029) == []
    assert d.poll(1.030) == [Reading(1.000, 0b11)]
    assert d.settled == Reading(1.000, 0b11)
    assert d.next_deadline() is None


def test_bounce_shorter_than_settle_ms_is_not_released():
    d = Debouncer(30)
    d.feed(Reading(0.0, 0b1))
    d.poll(0.1)
    for i, occ in enumerate((0b0, 0b1, 0b0, 0b1, 0b0)):
        assert d.feed(Reading(1.0 + i * 0.002, occ)) == []
    assert d.poll(1.020) == []
    assert d.poll(1.038) == [Reading(1.008, 0b0)]


def test_flicker_that_comes_back_to_the_settled_reading_releases_nothing():
    d = Debouncer(30)
    d.feed(Reading(0.0, 0b1))
    d.poll(0.1)
    d.feed(Reading(1.000, 0b0))
    d.feed(Reading(1.004, 0b1))
    assert d.unsettled_since() is None and d.next_deadline() is None
    assert d.poll(5.0) == []


def test_a_stable_reading_is_released_when_the_next_raw_reading_arrives():
    d = Debouncer(30)
    assert d.feed(Reading(1.000, 0b1)) == []
    assert d.feed(Reading(1.100, 0b11)) == [Reading(1.000, 0b1)]


def test_a_reading_stable_for_exactly_settle_ms_settles():
    d = Debouncer(30)
    d.feed(Reading(1.000, 0b1))
    assert d.feed(Reading(1.030, 0b11)) == [Reading(1.000, 0b1)]


def test_same_squares_are_not_a_change():
    d = Debouncer(30)
    d.feed(Reading(1.0, 0b1))
    assert d.feed(Reading(1.01, 0b1)) == []
    assert d.poll(1.031) == [Reading(1.0, 0b1)]
    assert d.feed(Reading(2.0, 0b1)) == [] and d.poll(3.0) == []


def test_colours_count_as_a_change():
    d = Debouncer(30)
    d.feed(Reading(1.0, 0b1, 0b1, 0))
    d.poll(1.1)
    d.feed(Reading(2.0, 0b1, 0, 0b1))
    assert d.poll(2.05) == [Reading(2.0, 0b1, 0, 0b1)]


def test_unsettled_since_is_the_first_change_not_yet_settled():
    d = Debouncer(30)
    d.feed(Reading(1.0, 0b1))
    d.poll(1.1)
    d.feed(Reading(2.000, 0b0))
    d.feed(Reading(2.010, 0b10))
    d.feed(Reading(2.020, 0b0))
    assert d.unsettled_since() == 2.000
    assert d.poll(2.060) == [Reading(2.020, 0b0)]
    assert d.unsettled_since() is None


def test_default_is_a_few_tens_of_ms():
    assert 10 <= SETTLE_MS <= 60
    assert Debouncer().settle_ms == SETTLE_MS


def test_negative_settle_time_is_refused():
    with pytest.raises(ValueError):
        Debouncer(-1)


def test_random_bounce_never_releases_a_transient_state():
    """Raw flicker of up to 8 ms around each change: only the final states are released."""
    rng = random.Random(7)
    d = Debouncer(30)
    t = 0.0
    state = 0
    released = []
    finals = []
    for _ in range(300):
        t += rng.uniform(0.05, 1.0)
        target = state ^ (1 << rng.randrange(64))
        for _ in range(rng.randint(0, 3)):
            released += d.feed(Reading(t, target))
            t += rng.uniform(0.001, 0.003)
            released += d.feed(Reading(t, state))
            t += rng.uniform(0.001, 0.003)
        released += d.feed(Reading(t, target))
        state = target
        finals.append(state)
    released += d.poll(t + 1)
    assert [r.occupied for r in released] == finals
