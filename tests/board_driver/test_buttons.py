"""Push buttons: the debouncer (sampled levels and the time in, presses out) and the pins read through the fake RPi.GPIO."""
from __future__ import annotations

import doctest

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import board_driver.buttons
from board_driver.buttons import HOLD_MS, STUCK_S, ButtonDebouncer, ButtonPress, ButtonStuck, GpioButtons
from board_driver.hw_lock import HardwareBusyError, HardwareLock
from board_driver.backends.mock_gpio import IN, PUD_UP
from board_driver.pinmap import REFERENCE, ButtonPins
from board_driver.sensors import SensorError
from tests.fakes.fake_gpio import FakeGPIO, wired


def test_doctests():
    assert doctest.testmod(board_driver.buttons).failed == 0


def run(debouncer: ButtonDebouncer, samples: list[tuple[float, bool]], name: str = "speak") -> list:
    """Feed ``(time, pressed)`` samples of one button; every event out, in order."""
    events = []
    for now, pressed in samples:
        events += debouncer.update(now, {name: pressed})
    return events


def every_ms(start: float, end: float, pressed: bool, step_ms: float = 5) -> list[tuple[float, bool]]:
    n = round((end - start) * 1000 / step_ms)
    return [(start + i * step_ms / 1000, pressed) for i in range(n)]


def test_a_press_counts_once_when_held_30_ms_at_the_instant_it_is_seen_held():
    d = ButtonDebouncer(["speak"])
    assert HOLD_MS == 30
    assert run(d, [(0.0, False), (1.000, True), (1.020, True), (1.029, True)]) == []
    assert d.update(1.030, {"speak": True}) == [ButtonPress("speak", 1.030)]
    assert run(d, every_ms(1.035, 3.0, True)) == []          # held on: no repeat
    assert run(d, every_ms(3.0, 3.1, False)) == []            # released
    assert run(d, every_ms(3.1, 3.2, True)) == [ButtonPress("speak", 3.130)]   # a second press


def test_contact_bounce_shorter_than_30_ms_is_no_press():
    d = ButtonDebouncer(["speak"])
    samples = [(0.0, False)] + [(1.0 + i * 0.004, i % 2 == 0) for i in range(10)] + [(1.040, False), (1.2, False)]
    assert run(d, samples) == []


def test_bounce_on_pressing_counts_from_the_last_contact():
    d = ButtonDebouncer(["speak"])
    samples = [(0.0, False), (1.000, True), (1.004, False), (1.008, True), (1.030, True), (1.037, True), (1.038, True)]
    assert run(d, samples) == [ButtonPress("speak", 1.038)]


def test_bounce_while_held_or_on_release_is_no_second_press():
    d = ButtonDebouncer(["speak"])
    held = every_ms(1.0, 1.1, True)
    bounce = [(1.100, False), (1.104, True), (1.108, False), (1.112, True)]     # under 30 ms each
    assert run(d, [(0.0, False)] + held + bounce + every_ms(1.115, 1.3, True)) == [ButtonPress("speak", 1.030)]
    # a bouncy release: open, closed 10 ms, open for good: no press
    assert run(d, [(1.300, False), (1.310, True), (1.320, False)] + every_ms(1.325, 1.5, False)) == []


def test_a_stuck_button_is_said_once_after_10_s_and_never_repeats():
    d = ButtonDebouncer(["draw"])
    assert STUCK_S == 10
    events = run(d, [(0.0, False)] + every_ms(1.0, 11.0, True, step_ms=10), "draw")
    assert events == [ButtonPress("draw", 1.030)]                   # a press first: nobody knows yet
    assert d.update(11.000, {"draw": True}) == []                   # held 10 s: not more than 10
    assert d.update(11.010, {"draw": True}) == [ButtonStuck("draw", since=1.0, time=11.010)]
    assert run(d, every_ms(11.02, 60.0, True, step_ms=100), "draw") == []       # said once
    assert d.stuck() == {"draw"}
    # released for good, the button works again
    assert run(d, every_ms(60.0, 60.1, False), "draw") == []
    assert d.stuck() == set()
    assert run(d, every_ms(61.0, 61.1, True), "draw") == [ButtonPress("draw", 61.030)]


def test_a_button_held_from_the_start_is_no_press_until_released():
    """A button shorted to ground (or leant on) when the board starts never resigns a game: it
    counts only once it has been seen released."""
    d = ButtonDebouncer(["resign_white"])
    assert run(d, every_ms(0.0, 10.0, True, step_ms=10), "resign_white") == []
    assert run(d, [(10.01, True)], "resign_white") == [ButtonStuck("resign_white", since=0.0, time=10.01)]
    assert run(d, every_ms(10.02, 10.1, False) + every_ms(10.5, 10.6, True), "resign_white") == [
        ButtonPress("resign_white", 10.53)]


def test_buttons_are_independent_and_events_come_in_the_order_of_the_names():
    d = ButtonDebouncer(["speak", "describe"])
    assert d.update(0.0, {"speak": False, "describe": False}) == []
    d.update(1.0, {"speak": True, "describe": True})
    assert d.update(1.03, {"speak": True, "describe": True}) == [ButtonPress("speak", 1.03), ButtonPress("describe", 1.03)]
    assert d.update(1.05, {"speak": False, "describe": True}) == []
    assert d.update(1.08, {"speak": False, "describe": True}) == []     # released 30 ms
    assert d.update(1.2, {"speak": True, "describe": True}) == []
    assert d.update(1.23, {"speak": True, "describe": True}) == [ButtonPress("speak", 1.23)]


def test_events_are_frozen():
    with pytest.raises(AttributeError):
        ButtonPress("speak", 1.0).name = "hint"   # type: ignore[misc]


def test_a_name_it_does_not_know_is_refused():
    with pytest.raises(ValueError, match="unknown button 'eject'"):
        ButtonDebouncer(["speak"]).update(0.0, {"eject": True})
    with pytest.raises(ValueError, match="hold_ms"):
        ButtonDebouncer(["speak"], hold_ms=-1)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 80), st.booleans()), max_size=60))
def test_a_press_is_a_hold_of_30_ms_after_a_release_of_30_ms_and_every_such_hold_is_one(steps):
    """Any sampled signal: a press comes at the first sample that finds the button held 30 ms
    unchanged, and only if it was seen released for 30 ms since the last press (or released at
    the start)."""
    hold = HOLD_MS / 1000 - 1e-9
    samples = [(0.0, False)]
    for ms, pressed in steps:
        samples.append((samples[-1][0] + ms / 1000, pressed))
    run_start = [0] * len(samples)
    for i in range(1, len(samples)):
        run_start[i] = run_start[i - 1] if samples[i][1] == samples[i - 1][1] else i

    def lasted(i: int) -> bool:   # the run of sample i has lasted 30 ms at sample i
        return samples[i][0] - samples[run_start[i]][0] >= hold

    expected, armed, counted = [], True, False
    for i, (now, pressed) in enumerate(samples):
        if pressed and lasted(i) and not counted:
            counted = True
            if armed:
                expected.append(ButtonPress("speak", now))
                armed = False
        elif not pressed and (lasted(i) or i == 0):
            counted, armed = False, True
    d = ButtonDebouncer(["speak"], stuck_s=1e9)
    assert run(d, samples) == expected


# -- the pins, through the fake RPi.GPIO --------------------------------------------------------------

PINS = ButtonPins((("speak", 18), ("describe", 3), ("hint", 2)))


def test_each_pin_is_an_input_with_the_pull_up_and_reads_pressed_when_grounded(tmp_path):
    gpio = wired(REFERENCE)
    buttons = GpioButtons(PINS, gpio=gpio, lock=HardwareLock("buttons", "the GPIO buttons", tmp_path))
    buttons.open()
    assert [(pin, direction, pull) for pin, direction, pull in gpio.setup_calls] == [
        (18, IN, PUD_UP), (3, IN, PUD_UP), (2, IN, PUD_UP)]
    assert buttons.read() == {"speak": False, "describe": False, "hint": False}
    assert buttons.poll(0.0) == []
    gpio.press_button(3)
    assert buttons.read() == {"speak": False, "describe": True, "hint": False}
    assert buttons.poll(0.01) == [] and buttons.poll(0.04) == [ButtonPress("describe", 0.04)]
    assert buttons.last_read == {"speak": False, "describe": True, "hint": False}
    gpio.release_button(3)
    buttons.close()
    assert gpio.cleanup_calls == [(18, 3, 2)] and 18 not in gpio.direction


def test_buttons_beside_the_matrix_leave_its_pins_alone(tmp_path):
    from board_driver.backends.gpio_matrix import GpioMatrixSource
    gpio = wired(REFERENCE, 0xFFFF00000000FFFF)
    lock = HardwareLock("buttons", "the GPIO buttons", tmp_path)
    with GpioMatrixSource(REFERENCE, gpio=gpio, settle_us=0, lock=HardwareLock("gpio", "m", tmp_path)) as source:
        buttons = GpioButtons(PINS, gpio=gpio, lock=lock)
        buttons.open()
        gpio.press_button(18)
        assert source.read_once().occupied == 0xFFFF00000000FFFF
        assert buttons.read()["speak"]
        buttons.close()
        assert source.read_once().occupied == 0xFFFF00000000FFFF


def test_a_second_reader_of_the_buttons_is_refused(tmp_path):
    first = GpioButtons(PINS, gpio=FakeGPIO(), lock=HardwareLock("buttons", "the GPIO buttons", tmp_path))
    first.open()
    try:
        with pytest.raises(HardwareBusyError, match="the GPIO buttons is in use"):
            GpioButtons(PINS, gpio=FakeGPIO(), lock=HardwareLock("buttons", "the GPIO buttons", tmp_path)).open()
    finally:
        first.close()


def test_a_board_numbering_set_elsewhere_is_refused(tmp_path):
    gpio = FakeGPIO()
    gpio.setmode(gpio.BOARD)
    with pytest.raises(SensorError, match="BCM"):
        GpioButtons(PINS, gpio=gpio, lock=HardwareLock("buttons", "b", tmp_path)).open()


def test_the_polling_thread_hands_each_press_to_the_sink(tmp_path):
    import threading
    gpio = FakeGPIO()
    buttons = GpioButtons(PINS, gpio=gpio, lock=HardwareLock("buttons", "b", tmp_path))
    got: list = []
    pressed = threading.Event()
    ticks = [0]

    def clock() -> float:   # time by hand: 10 ms a sample, the finger down from the third
        ticks[0] += 1
        if ticks[0] == 3:
            gpio.press_button(2)
        return ticks[0] * 0.01

    def sink(event):
        got.append(event)
        pressed.set()
    buttons.open()
    buttons.start(sink, clock=clock, interval=0.001)
    try:
        assert pressed.wait(5)
    finally:
        buttons.stop()
    assert got[0] == ButtonPress("hint", 0.06)
    assert buttons.error is None and 2 not in gpio.direction
