"""The link's frame codec: CRC, layout on the wire, resynchronisation, payloads."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from board_driver import framing
from board_driver.framing import (
    DEVICE_TO_HOST,
    HOST_TO_DEVICE,
    Frame,
    FrameDecoder,
    FrameError,
    FrameType,
    crc16,
    encode_frame,
)

u64 = st.integers(min_value=0, max_value=(1 << 64) - 1)


def reading(seq: int, occupied: int) -> bytes:
    return encode_frame(FrameType.READING, seq, framing.encode_reading(occupied))


def test_crc_is_ccitt_false():
    assert crc16(b"123456789") == 0x29B1
    assert crc16(b"") == 0xFFFF
    assert crc16(b"\x00") == 0xE1F0


def test_frame_layout_on_the_wire():
    data = encode_frame(FrameType.READING, 0x105, (0x0102).to_bytes(8, "little"))
    assert data[:4] == bytes([0xA5, 8, 0x01, 0x05])  # start, length, type, sequence mod 256
    assert data[4:12] == bytes([2, 1, 0, 0, 0, 0, 0, 0])  # little-endian bitboard
    assert int.from_bytes(data[12:], "big") == crc16(data[1:12])
    assert len(data) == 14


@settings(max_examples=200)
@given(st.sampled_from(sorted(DEVICE_TO_HOST)), st.integers(0, 255), st.data())
def test_every_device_frame_round_trips(ftype, seq, data):
    if ftype == FrameType.READING:
        payload = data.draw(st.one_of(st.binary(min_size=8, max_size=8), st.binary(min_size=16, max_size=16)))
    elif ftype == FrameType.HEARTBEAT:
        payload = data.draw(st.binary(min_size=6, max_size=6))
    else:
        payload = data.draw(st.binary(min_size=2, max_size=64))
    decoder = FrameDecoder()
    assert decoder.feed(encode_frame(ftype, seq, payload)) == [Frame(ftype, seq, payload)]


@given(st.lists(st.tuples(st.integers(0, 255), st.integers(0, 255), st.integers(0, 255)), max_size=85))
def test_led_frames_round_trip(pixels):
    decoder = FrameDecoder(HOST_TO_DEVICE)
    (frame,) = decoder.feed(encode_frame(FrameType.LEDS, 9, framing.encode_leds(pixels)))
    assert framing.decode_leds(frame.payload) == pixels


def test_impossible_payload_lengths_are_refused_when_encoding():
    with pytest.raises(FrameError):
        encode_frame(FrameType.READING, 0, bytes(7))
    with pytest.raises(FrameError):
        encode_frame(FrameType.HELLO, 0, b"x")
    with pytest.raises(FrameError):
        framing.encode_leds([(1, 2, 3)] * 86)


def test_garbage_before_and_between_frames_is_skipped():
    decoder = FrameDecoder()
    garbage = bytes([0xA5, 0x00, 0xA5, 0xA5, 0x13, 0x37, 0xFF])
    frames = decoder.feed(garbage + reading(1, 0xAB) + garbage + reading(2, 0xCD) + garbage)
    assert [framing.decode_reading(f.payload)[0] for f in frames] == [0xAB, 0xCD]
    assert decoder.stats.skipped_bytes > 0 and decoder.stats.frames == 2


def test_a_bad_crc_drops_the_frame_and_counts_it():
    decoder = FrameDecoder()
    bad = bytearray(reading(1, 0xAB))
    bad[6] ^= 0x10
    frames = decoder.feed(bytes(bad) + reading(2, 0xCD))
    assert [f.seq for f in frames] == [2]
    assert decoder.stats.bad_crc == 1


def test_a_truncated_frame_does_not_hide_the_next_one():
    decoder = FrameDecoder()
    for cut in range(1, 14):
        frames = decoder.feed(reading(1, 0xAB)[:cut] + reading(2, 0xCD))
        assert [f.seq for f in frames] == [2], cut
    assert decoder.pending == 0


def test_a_corrupted_length_does_not_stall_the_link():
    # A header claiming 200 bytes of READING is impossible: refused at once, not awaited.
    decoder = FrameDecoder()
    frames = decoder.feed(bytes([0xA5, 200, 0x01, 0x00]) + reading(3, 1))
    assert [f.seq for f in frames] == [3]
    assert decoder.stats.bad_header == 1


def test_frames_of_the_other_direction_are_ignored():
    host = FrameDecoder(DEVICE_TO_HOST)
    assert host.feed(encode_frame(FrameType.READ, 0)) == []


def test_byte_at_a_time_equals_all_at_once():
    rng = random.Random(7)
    stream = b"".join(reading(i, rng.getrandbits(64)) + bytes(rng.getrandbits(8) for _ in range(rng.randrange(4))) for i in range(50))
    whole = FrameDecoder().feed(stream)
    decoder = FrameDecoder()
    pieces = [f for b in stream for f in decoder.feed(bytes([b]))]
    assert pieces == whole and len(whole) == 50


def test_reset_drops_a_partial_frame():
    decoder = FrameDecoder()
    decoder.feed(reading(1, 1)[:7])
    decoder.reset()
    assert decoder.feed(reading(1, 1)[7:]) == []


@given(u64)
def test_plain_reading_payload(occupied):
    assert framing.decode_reading(framing.encode_reading(occupied)) == (occupied, None, None)


@given(u64, u64)
def test_colour_reading_payload(white, black):
    black &= ~white
    payload = framing.encode_reading(white | black, white, black)
    assert framing.decode_reading(payload) == (white | black, white, black)


def test_contradictory_colour_readings_are_refused():
    with pytest.raises(FrameError, match="both white and black"):
        framing.decode_reading((1).to_bytes(8, "little") * 2)
    with pytest.raises(FrameError):
        framing.encode_reading(3, 1, 1)


def test_heartbeat_and_version_payloads():
    assert framing.decode_heartbeat(framing.encode_heartbeat(123_456, 9_000)) == (123_456, 9_000)
    assert framing.decode_heartbeat(framing.encode_heartbeat(1 << 40, 1 << 20))[1] == 0xFFFF
    assert framing.decode_version(framing.encode_version(1, 64, "pico 1.0")) == (1, 64, "pico 1.0")
