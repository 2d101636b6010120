"""The RPi.GPIO matrix scanner against an electrical model of the matrix."""
from __future__ import annotations

import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from board_driver.backends.gpio_matrix import GpioMatrixSource
from board_driver.backends.mock_gpio import HIGH, IN, LOW, OUT, PUD_DOWN, PUD_OFF, PUD_UP
from board_driver.pinmap import REFERENCE, MatrixPins, PinMap
from board_driver.sensors import BackendUnavailableError, SensorError
from tests.fakes.fake_gpio import ElectricalFault, FakeGPIO, install_module, wired

bitboards = st.integers(min_value=0, max_value=(1 << 64) - 1)
INVERTED = PinMap(MatrixPins(REFERENCE.matrix.rows, REFERENCE.matrix.cols, active="high", settle_us=0))
FLOATING_IDLE = PinMap(MatrixPins(REFERENCE.matrix.rows, REFERENCE.matrix.cols, idle="input", settle_us=0))
TRANSPOSED = PinMap(MatrixPins(REFERENCE.matrix.rows, REFERENCE.matrix.cols, transpose=True, settle_us=0))


def scan(pinmap, bitboard, **options) -> int:
    gpio = wired(pinmap, bitboard)
    with GpioMatrixSource(pinmap, gpio=gpio, settle_us=0, **options) as source:
        return source.read_once().occupied


@pytest.mark.parametrize("square", range(64))
def test_each_square_alone_reads_as_that_square(square):
    assert scan(REFERENCE, 1 << square) == 1 << square


@settings(max_examples=150, deadline=None)
@given(bitboards)
def test_any_pattern_reads_back_exactly(bitboard):
    assert scan(REFERENCE, bitboard) == bitboard


@settings(max_examples=60, deadline=None)
@given(bitboards)
def test_inverted_logic_reads_back_exactly(bitboard):
    assert scan(INVERTED, bitboard) == bitboard


@settings(max_examples=60, deadline=None)
@given(bitboards)
def test_rows_floating_when_idle_read_back_exactly(bitboard):
    assert scan(FLOATING_IDLE, bitboard) == bitboard


@settings(max_examples=40, deadline=None)
@given(bitboards)
def test_transposed_wiring_reads_canonical_squares(bitboard):
    assert scan(TRANSPOSED, bitboard) == bitboard


@pytest.mark.parametrize("pinmap", [REFERENCE, INVERTED, FLOATING_IDLE], ids=["low", "high", "idle-input"])
def test_ghosting_rectangle_fourth_corner_does_not_read(pinmap):
    # a1, h1 and a8 occupied: without diodes, h8 would read through a1-h1-... paths.
    three = (1 << 0) | (1 << 7) | (1 << 56)
    assert scan(pinmap, three) == three


def test_the_model_does_ghost_without_diodes():
    # The same rectangle on bare switches: the scanner reads the phantom h8, proving the
    # model is electrical and that the test above checks something.
    three = (1 << 0) | (1 << 7) | (1 << 56)
    gpio = wired(FLOATING_IDLE, three, diodes=None)
    with GpioMatrixSource(FLOATING_IDLE, gpio=gpio) as source:
        assert source.read_once().occupied == three | (1 << 63)


def test_the_model_shorts_driven_rows_without_diodes():
    # Bare switches joining a row driven low to one idling high: a short on real hardware.
    gpio = wired(REFERENCE, (1 << 0) | (1 << 8), diodes=None)
    with GpioMatrixSource(REFERENCE, gpio=gpio, settle_us=0) as source:
        with pytest.raises(ElectricalFault):
            source.read_once()


def test_columns_get_pull_ups_and_rows_idle_high_when_active_low():
    gpio = wired(REFERENCE, 0)
    source = GpioMatrixSource(REFERENCE, gpio=gpio, settle_us=0)
    source.read_once()
    for col in REFERENCE.matrix.cols:
        assert gpio.direction[col] == IN and gpio.pull[col] == PUD_UP
    for row in REFERENCE.matrix.rows:
        assert gpio.direction[row] == OUT and gpio.out_level[row] == HIGH
    assert gpio.mode == gpio.BCM
    source.stop()


def test_columns_get_pull_downs_when_active_high():
    gpio = wired(INVERTED, 0)
    with GpioMatrixSource(INVERTED, gpio=gpio) as source:
        source.read_once()
        assert all(gpio.pull[c] == PUD_DOWN for c in INVERTED.matrix.cols)
        assert all(gpio.out_level[r] == LOW for r in INVERTED.matrix.rows)


def test_a_scanner_without_pull_ups_would_read_noise():
    # The fake's floating inputs are noise: a scanner that forgot the pull-ups reads garbage.
    gpio = wired(REFERENCE, 0, seed=3)
    gpio.setmode(gpio.BCM)
    for col in REFERENCE.matrix.cols:
        gpio.setup(col, gpio.IN)  # no pull-up
    reads = {gpio.input(REFERENCE.matrix.cols[0]) for _ in range(64)}
    assert reads == {0, 1}


def test_rows_are_released_between_scans():
    gpio = wired(REFERENCE, 0xFFFF)
    with GpioMatrixSource(REFERENCE, gpio=gpio, settle_us=0) as source:
        for _ in range(3):
            source.read_once()
            assert gpio.driven_rows() == {row: HIGH for row in REFERENCE.matrix.rows}


def test_rows_float_between_scans_with_idle_input():
    gpio = wired(FLOATING_IDLE, 0xFFFF)
    with GpioMatrixSource(FLOATING_IDLE, gpio=gpio) as source:
        source.read_once()
        assert gpio.driven_rows() == {}
        assert all(gpio.direction[r] == IN and gpio.pull[r] == PUD_OFF for r in FLOATING_IDLE.matrix.rows)


def test_only_one_row_is_driven_active_at_a_time():
    gpio = wired(REFERENCE, 0)
    seen = []
    original = gpio.input

    def spy(channel):
        seen.append(sum(1 for level in gpio.driven_rows().values() if level == LOW))
        return original(channel)

    gpio.input = spy
    with GpioMatrixSource(REFERENCE, gpio=gpio, settle_us=0) as source:
        source.read_once()
    assert seen and set(seen) == {1}


def test_stop_cleans_up_only_its_own_pins_and_is_idempotent():
    gpio = wired(REFERENCE, 0)
    gpio.setmode(gpio.BCM)
    gpio.setup(2, gpio.OUT)  # someone else's pin
    source = GpioMatrixSource(REFERENCE, gpio=gpio)
    source.read_once()
    source.stop()
    source.stop()
    assert len(gpio.cleanup_calls) == 1
    assert set(gpio.cleanup_calls[0]) == set(REFERENCE.matrix.rows + REFERENCE.matrix.cols)
    assert set(gpio.direction) == {2}


def test_settle_delay_is_waited_between_selecting_a_row_and_reading():
    now = [0]
    gpio = wired(REFERENCE, 1 << 9, settle_ns=50_000, clock_ns=lambda: now[0])

    def delay(us):
        now[0] += int(us * 1000)

    fast = GpioMatrixSource(REFERENCE, gpio=gpio, settle_us=0, delay_us=delay)
    assert fast.read_once().occupied == 0  # read before the lines settled: nothing seen
    fast.stop()
    gpio2 = wired(REFERENCE, 1 << 9, settle_ns=50_000, clock_ns=lambda: now[0])
    patient = GpioMatrixSource(REFERENCE, gpio=gpio2, settle_us=60, delay_us=delay)
    assert patient.read_once().occupied == 1 << 9
    patient.stop()


def test_real_busy_wait_settles_too():
    gpio = wired(REFERENCE, 0x8001, settle_ns=20_000)
    with GpioMatrixSource(REFERENCE, gpio=gpio, settle_us=25) as source:
        assert source.read_once().occupied == 0x8001


def test_reading_time_comes_from_the_injected_clock():
    gpio = wired(REFERENCE, 5)
    with GpioMatrixSource(REFERENCE, gpio=gpio, clock=lambda: 42.5, settle_us=0) as source:
        assert source.read_once().time == 42.5


def test_board_numbering_already_in_use_is_refused():
    gpio = wired(REFERENCE, 0)
    gpio.setmode(gpio.BOARD)
    with pytest.raises(SensorError, match="BOARD"):
        GpioMatrixSource(REFERENCE, gpio=gpio).read_once()


def test_setup_failure_releases_claimed_pins():
    gpio = wired(REFERENCE, 0)
    calls = []
    original = gpio.setup

    def failing(channel, *args, **kwargs):
        if channel == REFERENCE.matrix.rows[3]:
            raise RuntimeError("No access to /dev/mem")
        calls.append(channel)
        original(channel, *args, **kwargs)

    gpio.setup = failing
    with pytest.raises(SensorError, match="No access"):
        GpioMatrixSource(REFERENCE, gpio=gpio).read_once()
    assert gpio.direction == {}


def test_imports_rpi_gpio_lazily(monkeypatch):
    fake = wired(REFERENCE, 0xF0)
    install_module(monkeypatch, fake)
    with GpioMatrixSource(REFERENCE, settle_us=0) as source:
        assert source.read_once().occupied == 0xF0
        assert source.gpio is fake


def test_missing_rpi_gpio_names_the_packages_to_install(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "RPi", None)
    source = GpioMatrixSource(REFERENCE)
    with pytest.raises(BackendUnavailableError, match="rpi-lgpio"):
        source.read_once()
    assert isinstance(BackendUnavailableError("x"), ImportError)


def test_wrong_pinmap_type_is_a_type_error():
    with pytest.raises(TypeError):
        GpioMatrixSource({"rows": []}, gpio=FakeGPIO())


def test_thread_delivers_first_reading_then_only_changes():
    gpio = wired(REFERENCE, 0xFF)
    got = []
    changed = threading.Event()

    def sink(reading):
        got.append(reading.occupied)
        if len(got) == 2:
            changed.set()

    source = GpioMatrixSource(REFERENCE, gpio=gpio, settle_us=0, poll_interval=0)
    source.start(sink)
    try:
        while source.scan_count < 5:  # several unchanged scans deliver nothing
            threading.Event().wait(0.001)
        assert got == [0xFF]
        gpio.matrix.set_bitboard(0xFE)
        assert changed.wait(5)
    finally:
        source.stop()
    assert got[:2] == [0xFF, 0xFE]
    assert not source.running and gpio.direction == {}


def test_start_twice_is_refused():
    source = GpioMatrixSource(REFERENCE, gpio=wired(REFERENCE, 0), poll_interval=0.01)
    source.start(lambda r: None)
    try:
        with pytest.raises(SensorError, match="already started"):
            source.start(lambda r: None)
    finally:
        source.stop()


def test_scan_errors_end_the_thread_and_are_kept():
    gpio = wired(REFERENCE, 0)

    def broken(channel):
        raise RuntimeError("gpio gone")

    gpio.input = broken
    source = GpioMatrixSource(REFERENCE, gpio=gpio, settle_us=0)
    source.start(lambda r: None)
    source._thread.join(5)
    source.stop()
    assert isinstance(source.error, RuntimeError)
    assert gpio.direction == {}


HALL = PinMap(MatrixPins(REFERENCE.matrix.rows, REFERENCE.matrix.cols, active="low", select="high", settle_us=0))


@settings(max_examples=60, deadline=None)
@given(bitboards)
def test_hall_build_with_mosfet_row_drivers_reads_back_exactly(bitboard):
    # An N-MOSFET per row grounds that row's Hall sensors: rows are selected high, columns
    # still read low for a magnet.
    assert scan(HALL, bitboard) == bitboard


def test_selecting_mosfet_rows_at_the_wrong_level_reads_garbage():
    gpio = wired(HALL, 0xFFFF)  # the hardware has N-MOSFET drivers
    with GpioMatrixSource(REFERENCE, gpio=gpio, settle_us=0) as source:  # the pin map forgot select
        # Every idle row's gate is on, so its sensors show through every column.
        assert source.read_once().occupied == (1 << 64) - 1
    gpio = wired(HALL, 0xFFFF)
    with GpioMatrixSource(HALL, gpio=gpio, settle_us=0) as source:
        source.read_once()
        assert all(gpio.out_level[r] == LOW for r in HALL.matrix.rows)  # gates off between rows


def test_the_fake_refuses_what_rpi_gpio_refuses():
    gpio = FakeGPIO()
    with pytest.raises(RuntimeError, match="setmode"):
        gpio.setup(4, gpio.OUT)
    gpio.setmode(gpio.BCM)
    with pytest.raises(ValueError, match="different mode"):
        gpio.setmode(gpio.BOARD)
    with pytest.raises(ValueError, match="invalid"):
        gpio.setup(28, gpio.IN)
    with pytest.raises(RuntimeError, match="setup"):
        gpio.input(5)
    gpio.setup(5, gpio.IN, pull_up_down=gpio.PUD_UP)
    with pytest.raises(RuntimeError, match="OUTPUT"):
        gpio.output(5, gpio.LOW)
    with pytest.raises(ValueError, match="pull_up_down"):
        gpio.setup(6, gpio.OUT, pull_up_down=gpio.PUD_UP)
    gpio.setup([6, 7], gpio.OUT, initial=gpio.HIGH)
    gpio.output([6, 7], [gpio.LOW, gpio.HIGH])
    assert (gpio.input(6), gpio.input(7), gpio.input(5)) == (0, 1, 1)
    gpio.cleanup()
    assert gpio.direction == {} and gpio.getmode() is None
