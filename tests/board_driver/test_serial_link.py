"""The co-processor link on a fake serial line: noise, silence, unplugging, and never a wrong reading."""
from __future__ import annotations

import random
import threading

import pytest

from board_driver import framing
from board_driver.framing import HOST_TO_DEVICE, FrameDecoder, FrameType, encode_frame
from board_driver.layout import LedLayout
from board_driver.backends.serial_link import Backoff, LinkState, SerialLedSink, SerialLink, SerialSource
from board_driver.sensors import SensorError
from tests.fakes.fake_serial import FakeLine


class Clock:
    def __init__(self, t: float = 100.0, tick: float = 0.0):
        self.t, self.tick = t, tick

    def __call__(self) -> float:
        self.t += self.tick
        return self.t

    def advance(self, dt: float) -> None:
        self.t += dt


def reading(seq: int, occupied: int) -> bytes:
    return encode_frame(FrameType.READING, seq, framing.encode_reading(occupied))


def heartbeat(seq: int) -> bytes:
    return encode_frame(FrameType.HEARTBEAT, seq, framing.encode_heartbeat(1000, 5000))


@pytest.fixture
def line():
    return FakeLine()


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def rig(line, clock):
    """A manual (unthreaded) link with a started source collecting readings."""
    link = SerialLink("/dev/ttyFAKE", serial_factory=line.factory, clock=clock, threaded=False)
    source = SerialSource(link=link, clock=clock)
    got = []
    source.start(got.append)
    link.poll()  # connects
    yield link, source, got
    source.stop()


def host_frames(line: FakeLine):
    return FrameDecoder(HOST_TO_DEVICE).feed(bytes(line.from_host))


def test_connecting_asks_for_the_version_and_the_current_reading(rig, line):
    link, _, _ = rig
    assert link.state is LinkState.CONNECTED and line.opens == 1
    assert [f.type for f in host_frames(line)] == [FrameType.HELLO, FrameType.READ]


def test_readings_are_delivered_with_the_host_time_and_only_when_they_change(rig, line, clock):
    link, _, got = rig
    line.send(reading(0, 0xFF))
    link.poll()
    clock.advance(1)
    line.send(reading(1, 0xFF) + reading(2, 0xFE))
    link.poll()
    assert [(r.time, r.occupied) for r in got] == [(100.0, 0xFF), (101.0, 0xFE)]


def test_version_and_heartbeat_are_recorded(rig, line):
    link, _, _ = rig
    line.send(encode_frame(FrameType.VERSION, 0, framing.encode_version(1, 64, "pico")) + heartbeat(1))
    link.poll()
    assert link.device_version == (1, 64, "pico")
    assert link.device_scan_rate == 5000 and link.stats.heartbeats == 1


def test_garbage_is_skipped(rig, line):
    link, _, got = rig
    line.send(b"\x00\xa5\xa5garbage\xa5\x08\x01" + reading(0, 7) + b"\xa5\xff")
    line.send(reading(1, 9))
    while link.poll():
        pass
    assert [r.occupied for r in got] == [7, 9]
    assert link.decoder.stats.skipped_bytes >= 10


def test_bad_crc_frames_are_dropped_and_counted(rig, line):
    link, _, got = rig
    bad = bytearray(reading(0, 0x1234))
    bad[5] ^= 0x01
    line.send(bytes(bad) + reading(1, 0x5678))
    link.poll()
    assert [r.occupied for r in got] == [0x5678]
    assert link.decoder.stats.bad_crc == 1


def test_truncated_frames_are_dropped(rig, line):
    link, _, got = rig
    line.send(reading(0, 0x1111)[:9] + reading(1, 0x2222) + reading(2, 0x3333)[:3])
    link.poll()
    assert [r.occupied for r in got] == [0x2222]
    assert link.stats.missed_frames == 0  # seq 0 lost before the first good frame; unknown


def test_sequence_gaps_count_missed_frames(rig, line):
    link, _, _ = rig
    line.send(reading(5, 1) + reading(9, 2))
    link.poll()
    assert link.stats.missed_frames == 3


def test_contradictory_payload_is_dropped_not_delivered(rig, line):
    link, _, got = rig
    line.send(encode_frame(FrameType.READING, 0, (1).to_bytes(8, "little") * 2))
    link.poll()
    assert got == [] and link.stats.bad_payloads == 1


def test_heartbeats_keep_a_quiet_board_connected(rig, line, clock):
    link, _, _ = rig
    for seq in range(20):
        clock.advance(0.5)
        line.send(heartbeat(seq))
        link.poll()
    assert link.state is LinkState.CONNECTED and link.stats.silences == 0


def test_a_silent_device_is_noticed_and_reconnected(rig, line, clock):
    link, _, got = rig
    line.send(reading(0, 1))
    link.poll()
    clock.advance(1.9)
    link.poll()
    assert link.connected
    clock.advance(0.2)
    link.poll()
    assert link.state is LinkState.CONNECTING and link.stats.silences == 1
    assert not line.port.is_open
    clock.advance(0.25)
    link.poll()
    assert link.connected and line.opens == 2
    line.send(reading(0, 3))
    link.poll()
    assert [r.occupied for r in got] == [1, 3]


def test_garbage_alone_does_not_count_as_life(rig, line, clock):
    link, _, _ = rig
    for _ in range(5):
        clock.advance(0.5)
        line.send(b"\x55" * 20)
        link.poll()
    assert link.stats.silences == 1


def test_unplug_and_replug_reconnects_with_capped_backoff_and_invents_nothing(rig, line, clock):
    link, source, got = rig
    line.send(reading(0, 0xF0))
    link.poll()
    line.unplug()
    link.poll()
    assert link.state is LinkState.CONNECTING
    attempts = []
    for _ in range(2500):  # 25 s in 10 ms steps
        clock.advance(0.01)
        before = line.open_attempts
        link.poll()
        if line.open_attempts != before:
            attempts.append(round(clock.t, 2))
    gaps = [round(b - a, 2) for a, b in zip(attempts, attempts[1:])]
    assert gaps[:6] == [0.5, 1.0, 2.0, 4.0, 8.0, 8.0]
    assert [r.occupied for r in got] == [0xF0]  # nothing delivered while unplugged
    line.plug()
    line.from_host.clear()
    clock.advance(8.0)
    link.poll()
    assert link.connected and [f.type for f in host_frames(line)] == [FrameType.HELLO, FrameType.READ]
    line.send(reading(0, 0xF0))  # the same board: not delivered again
    link.poll()
    line.send(reading(1, 0xF1))
    link.poll()
    assert [r.occupied for r in got] == [0xF0, 0xF1]
    assert link.stats.disconnects == 1 and link.stats.open_failures >= 6


def test_backoff_resets_once_the_device_talks():
    backoff = Backoff(0.25, 2.0, 8.0, jitter=0.0)
    assert [backoff.delay(n) for n in range(7)] == [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 8.0]
    assert backoff.delay(0) == 0.25


def test_write_failure_is_a_disconnect(rig, line):
    link, _, _ = rig
    line.unplug()
    assert link.send(FrameType.READ) is False
    assert link.state is LinkState.CONNECTING
    assert link.send(FrameType.READ) is False  # no port: dropped quietly


def test_one_percent_corrupted_bytes_never_yield_a_wrong_reading(line, clock, capsys):
    rng = random.Random(20240611)
    link = SerialLink("/dev/ttyFAKE", serial_factory=line.factory, clock=clock, threaded=False)
    source = SerialSource(link=link, clock=clock)
    got = []
    source.start(got.append)
    link.poll()
    sent = []
    corrupted = 0
    for seq in range(10_000):
        occupied = rng.getrandbits(64)
        sent.append(occupied)
        frame = bytearray(reading(seq & 0xFF, occupied))
        for i in range(len(frame)):
            if rng.random() < 0.01:
                frame[i] ^= rng.randrange(1, 256)
                corrupted += 1
        line.send(bytes(frame))
        if rng.random() < 0.3:
            while link.poll():
                pass
    while link.poll():
        pass
    source.stop()
    delivered = [r.occupied for r in got]
    # Every delivered reading was sent, in the order it was sent: nothing wrong, nothing invented.
    position = {occupied: i for i, occupied in enumerate(sent)}
    indices = [position.get(occupied) for occupied in delivered]
    assert None not in indices
    assert indices == sorted(indices) and len(set(indices)) == len(indices)
    dropped = len(sent) - len(delivered)
    stats = link.decoder.stats
    with capsys.disabled():
        print(f"\n[serial 1% noise] {corrupted} bytes corrupted in 10000 frames: {len(delivered)} delivered, "
              f"{dropped} dropped ({dropped / 100:.1f} %), bad CRC {stats.bad_crc}, bad header {stats.bad_header}")
    assert 500 < dropped < 2500  # ~13 % of 14-byte frames take a hit


def test_read_once_asks_the_device_and_waits_for_its_answer(line, clock):
    link = SerialLink("/dev/ttyFAKE", serial_factory=line.factory, clock=clock, threaded=False)
    source = SerialSource(link=link, clock=clock)

    def device(data):
        for frame in FrameDecoder(HOST_TO_DEVICE).feed(data):
            if frame.type == FrameType.READ:
                line.send(reading(0, 0xABCD))

    line.on_host_bytes = device
    assert source.read_once().occupied == 0xABCD
    source.stop()
    assert link.state is LinkState.CLOSED


def test_read_once_times_out_when_the_device_says_nothing(line):
    clock = Clock(tick=0.01)
    link = SerialLink("/dev/ttyFAKE", serial_factory=line.factory, clock=clock, threaded=False)
    with SerialSource(link=link, clock=clock, read_timeout=0.5) as source:
        with pytest.raises(SensorError, match="no reading"):
            source.read_once()


def test_led_sink_sends_laid_out_pixels_and_resends_after_a_reconnect(line, clock):
    link = SerialLink("/dev/ttyFAKE", serial_factory=line.factory, clock=clock, threaded=False)
    sink = SerialLedSink(link, layout=LedLayout("square", serpentine=True), brightness=1.0)
    link.poll()
    frame = [0] * 64
    frame[8] = 0x102030  # a2: pixel 15 on a serpentine chain
    sink.show(frame)
    leds = [f for f in host_frames(line) if f.type == FrameType.LEDS]
    pixels = framing.decode_leds(leds[-1].payload)
    assert len(pixels) == 64 and pixels[15] == (0x10, 0x20, 0x30) and sum(map(sum, pixels)) == 0x60
    line.unplug()
    sink.show([0x0000FF] * 64)  # dropped: the link is down
    line.plug()
    line.from_host.clear()
    clock.advance(1)
    link.poll()
    resent = [f for f in host_frames(line) if f.type == FrameType.LEDS]
    assert len(resent) == 1 and framing.decode_leds(resent[0].payload) == [(0, 0, 255)] * 64
    sink.close()
    sink.close()
    assert link.state is LinkState.CLOSED


def test_source_and_led_sink_share_one_link(line, clock):
    source = SerialSource("/dev/ttyFAKE", serial_factory=line.factory, clock=clock, threaded=False)
    sink = source.led_sink(max_milliamps=100)
    got = []
    source.start(got.append)
    source.link.poll()
    line.send(reading(0, 1))
    source.link.poll()
    sink.show([0xFFFFFF] * 64)
    source.stop()
    assert source.link.state is LinkState.CONNECTED  # the sink still uses it
    sink.close()
    assert source.link.state is LinkState.CLOSED and line.opens == 1
    assert got[0].occupied == 1


def test_threaded_link_delivers_and_stops_cleanly():
    line = FakeLine(blocking=True)
    source = SerialSource("/dev/ttyFAKE", serial_factory=line.factory)
    arrived = threading.Event()
    got = []

    def sink(r):
        got.append(r)
        arrived.set()

    def device(data):
        for frame in FrameDecoder(HOST_TO_DEVICE).feed(data):
            if frame.type == FrameType.READ:
                line.send(reading(frame.seq, 0x42))

    line.on_host_bytes = device
    source.start(sink)
    try:
        assert arrived.wait(5)
        assert source.read_once().occupied == 0x42
    finally:
        source.stop()
    assert got[0].occupied == 0x42
    assert source.link._thread is None and not line.port.is_open


def test_a_missing_serial_port_is_logged_loudly_once_a_minute(line, clock, caplog):
    """Issue 12: a missing port was logged at debug level only; the board read nothing, silently."""
    import logging
    caplog.set_level(logging.DEBUG, logger="board_driver.link")
    line.unplug()
    link = SerialLink("/dev/ttyFAKE", serial_factory=line.factory, clock=clock, threaded=False)
    source = SerialSource(link=link, clock=clock)
    source.start(lambda reading: None)
    for _ in range(400):   # 40 s of retries
        clock.advance(0.1)
        link.poll()
    loud = [r for r in caplog.records if r.levelno >= logging.WARNING and "/dev/ttyFAKE" in r.getMessage()]
    assert len(loud) == 1 and "cannot open the serial port" in loud[0].getMessage()
    clock.advance(30.0)
    link.poll()
    clock.advance(10.0)
    link.poll()
    loud = [r for r in caplog.records if r.levelno >= logging.WARNING and "/dev/ttyFAKE" in r.getMessage()]
    source.stop()
    assert len(loud) == 2
