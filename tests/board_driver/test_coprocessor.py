"""The co-processor firmware on the host: byte-compatible framing, its scanner, its loop, code.py."""
from __future__ import annotations

import importlib.util
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from board_driver import framing
from board_driver.framing import DEVICE_TO_HOST, HOST_TO_DEVICE, Frame, FrameDecoder, FrameType
from board_driver.layout import LedLayout
from board_driver.backends.mock_gpio import COL_TO_ROW, ROW_TO_COL, MatrixModel
from board_driver.backends.serial_link import SerialLedSink, SerialLink, SerialSource
from tests.fakes import circuitpython
from tests.fakes.fake_neopixel import FakeNeoPixel
from tests.fakes.fake_serial import DeviceSide, FakeLine

from .conftest import COPROCESSOR

ROWS = [f"GP{n}" for n in range(2, 10)]
COLS = [f"GP{n}" for n in range(10, 18)]
u64 = st.integers(min_value=0, max_value=(1 << 64) - 1)


@pytest.fixture
def stubs(monkeypatch):
    circuitpython.install(monkeypatch)
    import digitalio

    yield digitalio
    for name in circuitpython.STUBS:
        sys.modules.pop(name, None)


def matrix(digitalio, bitboard: int, diodes=COL_TO_ROW) -> MatrixModel:
    model = MatrixModel(ROWS, COLS, diodes=diodes)
    model.set_bitboard(bitboard)
    digitalio.matrix = model
    return model


def valid_frames():
    def payload_for(ftype):
        if ftype == FrameType.READING:
            return st.one_of(st.binary(min_size=8, max_size=8), st.binary(min_size=16, max_size=16))
        if ftype == FrameType.LEDS:
            return st.integers(0, 85).flatmap(lambda n: st.binary(min_size=3 * n, max_size=3 * n))
        if ftype == FrameType.HEARTBEAT:
            return st.binary(min_size=6, max_size=6)
        if ftype == FrameType.VERSION:
            return st.binary(min_size=2, max_size=64)
        if ftype == FrameType.LEDS_RGBW:
            return st.integers(0, 63).flatmap(lambda n: st.binary(min_size=2 + 4 * n, max_size=2 + 4 * n))
        return st.just(b"")

    return st.sampled_from(list(FrameType)).flatmap(
        lambda t: st.tuples(st.just(int(t)), st.integers(0, 255), payload_for(t))
    )


# -- the codec: both sides agree byte for byte --------------------------------------------------
@given(st.binary(max_size=300))
def test_crc_of_both_sides_agree(coprocessor, data):
    assert coprocessor.cp_protocol.crc16(data) == framing.crc16(data)


@settings(max_examples=200)
@given(valid_frames())
def test_both_sides_build_the_same_bytes(coprocessor, frame):
    ftype, seq, payload = frame
    assert coprocessor.cp_protocol.encode_frame(ftype, seq, payload) == framing.encode_frame(ftype, seq, payload)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(valid_frames(), st.binary(max_size=6)), max_size=12))
def test_host_frames_decode_on_the_device_through_garbage(coprocessor, items):
    stream = b"".join(garbage + framing.encode_frame(*f) for f, garbage in items)
    expected = [f for f, garbage in items if f[0] in HOST_TO_DEVICE]
    got = coprocessor.cp_protocol.Decoder().feed(stream)
    # Garbage hides no frame (it could, once in 65536, add one: hence a subsequence check).
    assert _is_subsequence(expected, [(t, s, bytes(p)) for t, s, p in got])


def _is_subsequence(expected, got) -> bool:
    it = iter(got)
    return all(any(g == e for g in it) for e in expected)


@settings(max_examples=50, deadline=None)
@given(st.lists(valid_frames(), max_size=12))
def test_device_frames_decode_on_the_host(coprocessor, frames):
    stream = b"".join(coprocessor.cp_protocol.encode_frame(*f) for f in frames)
    expected = [Frame(t, s, p) for t, s, p in frames if t in DEVICE_TO_HOST]
    assert FrameDecoder(DEVICE_TO_HOST).feed(stream) == expected


@settings(max_examples=50, deadline=None)
@given(st.lists(valid_frames(), max_size=12), st.data())
def test_both_decoders_agree_on_any_cut_and_corrupted_stream(coprocessor, frames, data):
    stream = bytearray(b"".join(framing.encode_frame(*f) for f in frames))
    for _ in range(data.draw(st.integers(0, 4))):
        if stream:
            stream[data.draw(st.integers(0, len(stream) - 1))] ^= data.draw(st.integers(1, 255))
    accept = sorted(HOST_TO_DEVICE | DEVICE_TO_HOST)
    host = [(f.type, f.seq, f.payload) for f in FrameDecoder(accept).feed(bytes(stream))]
    device = [(t, s, bytes(p)) for t, s, p in coprocessor.cp_protocol.Decoder(accept).feed(bytes(stream))]
    assert host == device


def test_device_decoder_resynchronises_after_a_bad_crc(coprocessor):
    proto = coprocessor.cp_protocol
    good = framing.encode_frame(FrameType.READ, 1)
    bad = bytearray(framing.encode_frame(FrameType.READ, 0))
    bad[-1] ^= 1
    decoder = proto.Decoder()
    assert decoder.feed(bytes(bad) + good) == [(proto.READ, 1, b"")]
    assert decoder.bad_crc == 1


def test_payload_helpers_match_the_host(coprocessor):
    proto = coprocessor.cp_protocol
    assert proto.reading_payload(0xDEADBEEF) == framing.encode_reading(0xDEADBEEF)
    assert proto.reading_payload(3, 1, 2) == framing.encode_reading(3, 1, 2)
    assert proto.heartbeat_payload(5, 70000) == framing.encode_heartbeat(5, 70000)
    assert framing.decode_version(proto.version_payload(64, "x")) == (framing.PROTOCOL_VERSION, 64, "x")


def test_firmware_does_not_import_the_host_package():
    for path in COPROCESSOR.glob("*.py"):
        text = path.read_text()
        assert "board_driver" not in text.replace("board_driver/framing.py", ""), path.name
        assert text.startswith('"""'), f"{path.name} has no docstring"


# -- the scanner --------------------------------------------------------------------------------
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(u64)
def test_device_scanner_reads_any_pattern(coprocessor, stubs, bitboard):
    digitalio = stubs
    digitalio.reset()
    matrix(digitalio, bitboard)
    scanner = coprocessor.cp_matrix.MatrixScanner(ROWS, COLS, digitalio)
    try:
        assert scanner.scan() == bitboard
    finally:
        scanner.deinit()


def test_device_scanner_ghost_rectangle_and_inverted_logic(coprocessor, stubs):
    digitalio = stubs
    three = (1 << 0) | (1 << 7) | (1 << 56)
    matrix(digitalio, three)
    scanner = coprocessor.cp_matrix.MatrixScanner(ROWS, COLS, digitalio, settle_us=5, delay_us=lambda us: None)
    assert scanner.scan() == three
    assert all(io.pull == digitalio.Pull.UP for io in scanner.cols)
    scanner.deinit()
    matrix(digitalio, three, diodes=ROW_TO_COL)
    scanner = coprocessor.cp_matrix.MatrixScanner(ROWS, COLS, digitalio, active_low=False)
    assert scanner.scan() == three
    assert all(io.pull == digitalio.Pull.DOWN for io in scanner.cols)
    scanner.deinit()
    model = MatrixModel(ROWS, COLS, diodes=COL_TO_ROW, row_drivers="nmos")  # Hall sensors, MOSFET rows
    model.set_bitboard(three)
    digitalio.matrix = model
    scanner = coprocessor.cp_matrix.MatrixScanner(ROWS, COLS, digitalio, select_high=True)
    assert scanner.scan() == three


# -- the loop and code.py -----------------------------------------------------------------------
class FakeScanner:
    def __init__(self, occupied=0):
        self.occupied = occupied

    def scan(self):
        return self.occupied


def make_device(coprocessor, line, scanner, t):
    from tests.fakes.fake_neopixel import FakeNeoPixel

    pixels = FakeNeoPixel("GP22", 64, auto_write=False)
    port = DeviceSide(line)
    return coprocessor.cp_device.Coprocessor(scanner, pixels, port, lambda: round(t[0] * 1000)), pixels


def test_device_loop_sends_changes_heartbeats_and_answers(coprocessor):
    line = FakeLine()
    line.factory("/dev/x")  # the host side is open: what the device sends arrives
    t = [0.0]
    scanner = FakeScanner(0xFF)
    device, pixels = make_device(coprocessor, line, scanner, t)
    device.step()
    host = FrameDecoder()
    first = host.feed(bytes(line.to_host))
    line.to_host.clear()
    assert [f.type for f in first] == [FrameType.READING, FrameType.HEARTBEAT, FrameType.READING]
    t[0] = 0.1
    device.step()
    assert line.to_host == b""  # nothing changed, no heartbeat due
    scanner.occupied = 0xFE
    device.step()
    (frame,) = host.feed(bytes(line.to_host))
    line.to_host.clear()
    assert framing.decode_reading(frame.payload)[0] == 0xFE
    t[0] = 0.3
    device.step()
    assert [f.type for f in host.feed(bytes(line.to_host))] == [FrameType.HEARTBEAT, FrameType.READING]
    line.to_host.clear()
    line.port.write(framing.encode_frame(FrameType.HELLO, 0) + framing.encode_frame(FrameType.READ, 1))
    line.port.write(framing.encode_frame(FrameType.LEDS, 2, bytes([9, 8, 7]) * 2))
    device.step()
    answers = host.feed(bytes(line.to_host))
    assert [f.type for f in answers] == [FrameType.VERSION, FrameType.READING]
    assert framing.decode_version(answers[0].payload)[1:] == (64, "echiquier-coprocessor 1.1")
    assert pixels.shown[-1][:3] == [(9, 8, 7), (9, 8, 7), (0, 0, 0)]
    assert host.stats.bad_crc == 0


def test_code_py_builds_the_device_from_the_pin_constants(monkeypatch, stubs, coprocessor):
    digitalio = stubs
    monkeypatch.syspath_prepend(str(COPROCESSOR))
    import usb_cdc

    line = FakeLine()
    line.factory("/dev/x")
    usb_cdc.data = DeviceSide(line)
    spec = importlib.util.spec_from_file_location("coprocessor_code", COPROCESSOR / "code.py")
    code = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(code)  # __name__ is not "__main__": the loop does not start
    matrix(digitalio, 0xFFFF00000000FFFF)
    device = code.build()
    device.step()
    frames = FrameDecoder().feed(bytes(line.to_host))
    assert framing.decode_reading(frames[0].payload)[0] == 0xFFFF00000000FFFF
    import microcontroller
    import neopixel

    assert microcontroller.delays and set(microcontroller.delays) == {code.SETTLE_US}
    strip = neopixel.instances[-1]
    assert strip.n == 64 and strip.auto_write is False and strip.pixel_order == "GRB"


def test_boot_py_enables_the_data_port(monkeypatch, stubs):
    import usb_cdc

    spec = importlib.util.spec_from_file_location("coprocessor_boot", COPROCESSOR / "boot.py")
    spec.loader.exec_module(importlib.util.module_from_spec(spec))
    assert usb_cdc.enabled == {"console": True, "data": True}


# -- the whole link: the firmware's loop talking to the host's link -----------------------------
def test_host_and_device_end_to_end(coprocessor):
    line = FakeLine()
    t = [0.0]
    scanner = FakeScanner(0xFFFF00000000FFFF)
    device, pixels = make_device(coprocessor, line, scanner, t)
    clock = lambda: t[0]  # noqa: E731
    link = SerialLink("/dev/ttyACM1", serial_factory=line.factory, clock=clock, threaded=False)
    source = SerialSource(link=link, clock=clock)
    sink = SerialLedSink(link, layout=LedLayout("square"), brightness=1.0)
    got = []
    source.start(got.append)

    def run(seconds):
        end = t[0] + seconds
        while t[0] < end:
            device.step()
            link.poll()
            t[0] = round(t[0] + 0.01, 2)

    run(0.1)
    assert [r.occupied for r in got] == [0xFFFF00000000FFFF]
    assert link.device_version == (framing.PROTOCOL_VERSION, 64, "echiquier-coprocessor 1.1")
    scanner.occupied ^= 1 << 12  # e2 lifted
    run(0.05)
    assert got[-1].occupied == 0xFFFF00000000FFFF ^ (1 << 12)
    frame = [0] * 64
    frame[28] = 0x00FF00  # e4
    sink.show(frame)
    run(0.05)
    assert pixels.shown[-1][28] == (0, 255, 0) and sum(map(sum, pixels.shown[-1])) == 255
    run(5)  # heartbeats keep the link up
    assert link.connected and link.stats.silences == 0 and link.stats.heartbeats >= 15
    source.stop()
    sink.close()


# -- uptime: integer ticks that wrap, a watchdog, a reset on an uncaught exception (issue 13) --------
def heartbeats_seen(line: FakeLine) -> list[tuple[int, int]]:
    frames = FrameDecoder().feed(bytes(line.to_host))
    line.to_host.clear()
    return [framing.decode_heartbeat(f.payload) for f in frames if f.type == FrameType.HEARTBEAT]


@pytest.mark.parametrize("start_ms", [0, (1 << 29) - 600, (12 * 86_400_000) % (1 << 29), (1 << 29) - 1])
def test_heartbeats_keep_their_cadence_across_the_ticks_wrap_and_any_uptime(coprocessor, start_ms):
    """time.monotonic() is a float that, after twelve days, stops ``now + 0.25`` from advancing:
    the loop now counts supervisor.ticks_ms() (an int modulo 2**29) with wrap-around arithmetic."""
    line = FakeLine()
    line.factory("/dev/x")
    ticks = [start_ms]
    device = coprocessor.cp_device.Coprocessor(FakeScanner(0), FakeNeoPixel("GP22", 64), DeviceSide(line),
                                               lambda: ticks[0] % (1 << 29))
    beats = []
    for _ in range(2000):  # two seconds, one step a millisecond
        device.step()
        beats += heartbeats_seen(line)
        ticks[0] += 1
    assert [uptime for uptime, _ in beats] == [0, 250, 500, 750, 1000, 1250, 1500, 1750]
    assert beats[-1][1] == 1000  # scans per second, exact in integers


def test_ticks_diff_is_signed_across_the_wrap(coprocessor):
    dev = coprocessor.cp_device
    assert dev.ticks_diff(5, (1 << 29) - 5) == 10 and dev.ticks_diff((1 << 29) - 5, 5) == -10
    assert dev.ticks_add((1 << 29) - 1, 250) == 249


def run_code_py(monkeypatch, stubs, steps_before, error):
    monkeypatch.syspath_prepend(str(COPROCESSOR))
    import microcontroller
    import supervisor

    spec = importlib.util.spec_from_file_location("coprocessor_code", COPROCESSOR / "code.py")
    code = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(code)
    calls = [0]

    class Device:
        def step(self):
            calls[0] += 1
            if calls[0] > steps_before:
                raise error
    monkeypatch.setattr(code, "build", Device)
    microcontroller.resets.clear()
    microcontroller.watchdog.__init__()
    return code, microcontroller, supervisor


def test_code_py_turns_autoreload_off_feeds_a_watchdog_and_resets_on_an_exception(monkeypatch, stubs):
    code, microcontroller, supervisor = run_code_py(monkeypatch, stubs, 3, MemoryError("heap"))
    with pytest.raises(microcontroller.Reset):
        code.main()
    assert supervisor.runtime.autoreload is False
    assert microcontroller.watchdog.mode == "reset" and microcontroller.watchdog.timeout == code.WATCHDOG_S <= 8.3
    assert microcontroller.watchdog.feeds == 3
    assert microcontroller.resets == [True]


def test_ctrl_c_on_the_console_gives_the_repl_without_a_reset(monkeypatch, stubs):
    code, microcontroller, _ = run_code_py(monkeypatch, stubs, 1, KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        code.main()
    assert microcontroller.resets == [] and microcontroller.watchdog.mode is None


# -- RGBW chains get their white channel over the link -------------------------------------------------
@pytest.mark.parametrize("device_bpp", [4, 3])
def test_an_rgbw_frame_crosses_the_link_in_two_parts_white_included(coprocessor, device_bpp):
    line = FakeLine()
    t = [0.0]
    pixels = FakeNeoPixel("GP22", 64, bpp=device_bpp, auto_write=False)
    device = coprocessor.cp_device.Coprocessor(FakeScanner(0), pixels, DeviceSide(line), lambda: round(t[0] * 1000))
    link = SerialLink("/dev/x-if02", serial_factory=line.factory, clock=lambda: t[0], threaded=False)
    sink = SerialLedSink(link, layout=LedLayout("square"), brightness=1.0, channels=4)
    for _ in range(3):
        device.step(), link.poll()
    frame = [0] * 64
    frame[0], frame[63] = 0xFFFFFF, 0xFF8000  # white; orange (no common part)
    sink.show(frame)
    device.step()
    assert len(pixels.shown) == 1  # shown once, after the second part
    shown = pixels.shown[-1]
    if device_bpp == 4:
        assert shown[0] == (0, 0, 0, 255) and shown[63] == (255, 128, 0, 0)
    else:
        assert shown[0] == (255, 255, 255) and shown[63] == (255, 128, 0)
    assert sum(map(sum, shown[1:63])) == 0
    sink.close()
