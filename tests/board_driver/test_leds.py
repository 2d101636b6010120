"""LED layouts, the power budget, the NeoPixel sink (mocked library) and the recording sink."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from board_driver.layout import LedLayout
from board_driver.leds import PixelPipeline
from board_driver.backends.neopixel_sink import NeoPixelSink
from board_driver.pinmap import REFERENCE, LedPins
from board_driver.power import estimate_milliamps, limit_to_budget
from board_driver.sensors import BackendUnavailableError
from board_driver.backends.sim_leds import RecordingLedSink
from tests.fakes.fake_neopixel import make_board_module, make_neopixel_module

colours = st.integers(0, 0xFFFFFF)
frames = st.lists(colours, min_size=64, max_size=64)


def one(square: int, colour: int = 0xFFFFFF) -> list[int]:
    frame = [0] * 64
    frame[square] = colour
    return frame


def lit_pixels(layout: LedLayout, frame) -> set[int]:
    return {i for i, c in enumerate(layout.render(frame)) if c}


# -- layouts ------------------------------------------------------------------------------------
def test_row_major_square_layout_is_the_identity():
    layout = LedLayout("square")
    assert layout.render(list(range(64))) == list(range(64))


def test_serpentine_runs_back_on_odd_rows():
    layout = LedLayout("square", serpentine=True)
    assert lit_pixels(layout, one(8)) == {15}  # a2 is the end of the second run
    assert lit_pixels(layout, one(15)) == {8}  # h2
    assert lit_pixels(layout, one(16)) == {16}  # a3 runs forward again
    assert layout.render(list(range(64)))[8:16] == list(range(15, 7, -1))


@pytest.mark.parametrize(
    "rotation, mirror, first, second",
    [
        (0, False, 0, 1),  # a1 then b1
        (90, False, 7, 15),  # h1 then h2
        (180, False, 63, 62),  # h8 then g8
        (270, False, 56, 48),  # a8 then a7
        (0, True, 7, 6),  # h1 then g1
        (90, True, 63, 55),  # h8 then h7
        (180, True, 56, 57),  # a8 then b8
        (270, True, 0, 8),  # a1 then a2
    ],
)
def test_orientation_table_of_the_docstring(rotation, mirror, first, second):
    layout = LedLayout("square", rotation=rotation, mirror=mirror)
    assert layout.pixels_of_square(first) == (0,)
    assert layout.pixels_of_square(second) == (1,)


@pytest.mark.parametrize("rotation", [0, 90, 180, 270])
@pytest.mark.parametrize("mirror", [False, True])
@pytest.mark.parametrize("serpentine", [False, True])
@pytest.mark.parametrize("kind", ["square", "corners"])
def test_every_wiring_is_a_permutation(kind, serpentine, mirror, rotation):
    layout = LedLayout(kind, serpentine=serpentine, mirror=mirror, rotation=rotation)
    assert sorted(layout.cell_of_pixel) == list(range(layout.grid**2))
    for square in range(64):
        assert lit_pixels(layout, one(square)) == set(layout.pixels_of_square(square))


def test_corner_grid_lights_the_four_corners_of_a_square():
    layout = LedLayout("corners")
    assert layout.pixel_count == 81
    assert lit_pixels(layout, one(0)) == {0, 1, 9, 10}
    assert lit_pixels(layout, one(63)) == {70, 71, 79, 80}
    assert set(layout.render(one(27, 0x123456))) == {0, 0x123456}


def test_corner_shared_by_two_lit_squares_takes_the_brightest():
    layout = LedLayout("corners")
    frame = [0] * 64
    frame[0], frame[1] = 0x400000, 0x00FF00  # a1 dim red, b1 bright green: share corners 1 and 10
    pixels = layout.render(frame)
    assert pixels[1] == pixels[10] == 0x00FF00
    assert pixels[0] == pixels[9] == 0x400000
    assert pixels[2] == pixels[11] == 0x00FF00


def test_corner_tie_is_broken_by_value_not_order():
    layout = LedLayout("corners")
    a, b = [0] * 64, [0] * 64
    a[0], a[1] = 0xFF0000, 0x0000FF
    b[0], b[1] = 0x0000FF, 0xFF0000
    assert layout.render(a)[1] == layout.render(b)[1] == 0xFF0000


@given(frames)
def test_corner_grid_never_invents_a_colour(frame):
    assert set(LedLayout("corners", serpentine=True).render(frame)) <= set(frame) | {0}


def test_extra_pixels_after_the_board_stay_dark():
    layout = LedLayout("square", count=70)
    assert layout.render([0xFFFFFF] * 64)[64:] == [0] * 6


def test_bad_frames_and_layouts_are_refused():
    layout = LedLayout("square")
    with pytest.raises(ValueError, match="64 colours"):
        layout.render([0] * 63)
    with pytest.raises(ValueError, match="square 3"):
        layout.render([0, 0, 0, 0x1000000] + [0] * 60)
    with pytest.raises(ValueError):
        LedLayout("hexagon")
    with pytest.raises(ValueError):
        LedLayout("corners", count=64)
    with pytest.raises(ValueError):
        LedLayout("square", rotation=45)


# -- power ------------------------------------------------------------------------------------------
def test_power_model_numbers():
    assert estimate_milliamps([(255, 255, 255)]) == pytest.approx(61.0)
    assert estimate_milliamps([(0, 0, 0)] * 64) == pytest.approx(64.0)
    assert estimate_milliamps([(255, 255, 255)] * 64) == pytest.approx(3904.0)


@given(st.lists(st.tuples(st.integers(0, 255), st.integers(0, 255), st.integers(0, 255)), min_size=1, max_size=81),
       st.integers(100, 5000))
def test_budget_is_never_exceeded_and_hues_are_kept(pixels, budget):
    scaled, scale = limit_to_budget(pixels, budget)
    assert estimate_milliamps(scaled) <= max(budget, estimate_milliamps([(0, 0, 0)] * len(pixels)))
    if estimate_milliamps(pixels) <= budget:
        assert scaled == pixels and scale == 1.0
    else:
        assert 0 <= scale < 1
        assert all(s <= p for sp, pp in zip(scaled, pixels) for s, p in zip(sp, pp))


def test_pipeline_applies_brightness_then_budget():
    pipeline = PixelPipeline(LedLayout("square"), brightness=0.5, max_milliamps=1000)
    pixels = pipeline([0xFFFFFF] * 64)
    assert pipeline.last_scale < 1.0 and pipeline.last_milliamps <= 1000
    assert len(set(pixels)) == 1 and pixels[0][0] == pixels[0][1] == pixels[0][2] < 128
    dim = PixelPipeline(LedLayout("square"), brightness=0.5, max_milliamps=1000)([0x808080] + [0] * 63)
    assert dim[0] == (64, 64, 64) and dim[1] == (0, 0, 0)


def test_rgbw_pipeline_moves_the_common_part_to_white():
    pipeline = PixelPipeline(LedLayout("square"), channels=4)
    assert pipeline([0xFF8040] + [0] * 63)[0] == (0xFF - 0x40, 0x80 - 0x40, 0, 0x40)


# -- NeoPixel sink ------------------------------------------------------------------------------------
def make_sink(**options):
    neopixel = make_neopixel_module()
    sink = NeoPixelSink(neopixel_module=neopixel, board_module=make_board_module(), **options)
    return sink, neopixel.instances[-1]


def test_neopixel_strip_is_opened_without_auto_write_on_the_pin():
    sink, strip = make_sink(pin=18, order="GRB")
    assert strip.pin == "D18" and strip.n == 64 and strip.auto_write is False
    assert strip.brightness == 1.0 and strip.pixel_order == "GRB" and strip.bpp == 3


def test_one_show_per_frame_in_layout_order():
    sink, strip = make_sink(layout=LedLayout("square", serpentine=True), brightness=1.0)
    sink.show(one(8, 0x112233))
    assert len(strip.shown) == 1
    assert strip.shown[0][15] == (0x11, 0x22, 0x33)
    assert sum(map(sum, strip.shown[0])) == 0x11 + 0x22 + 0x33
    sink.show(one(9))
    assert len(strip.shown) == 2


def test_pixel_order_reaches_the_wire():
    sink, strip = make_sink(order="GRB", brightness=1.0)
    sink.show(one(0, 0x112233))
    assert strip.wire_bytes()[:3] == bytes([0x22, 0x11, 0x33])
    sink, strip = make_sink(order="RGB", brightness=1.0)
    sink.show(one(0, 0x112233))
    assert strip.wire_bytes()[:3] == bytes([0x11, 0x22, 0x33])


def test_grbw_strip_gets_four_channels():
    sink, strip = make_sink(order="GRBW", brightness=1.0)
    sink.show(one(0, 0xFFFFFF))
    assert strip.bpp == 4 and strip.shown[0][0] == (0, 0, 0, 255)
    assert strip.wire_bytes()[:4] == bytes([0, 0, 0, 255])


def test_power_budget_scales_a_full_white_board():
    sink, strip = make_sink(brightness=1.0, max_milliamps=2000)
    sink.show([0xFFFFFF] * 64)
    assert estimate_milliamps(strip.shown[0]) <= 2000
    assert sink.milliamps <= 2000 and strip.shown[0][0][0] < 140
    sink.show(one(0, 0xFFFFFF))  # one square fits: full value
    assert strip.shown[1][0] == (255, 255, 255)


def test_corner_layout_on_the_strip():
    sink, strip = make_sink(layout=LedLayout("corners"), brightness=1.0)
    assert strip.n == 81
    sink.show(one(0, 0x0000FF))
    assert {i for i, p in enumerate(strip.shown[0]) if any(p)} == {0, 1, 9, 10}


def test_from_pins_uses_the_pin_map():
    neopixel = make_neopixel_module()
    sink = NeoPixelSink.from_pins(REFERENCE.leds, neopixel_module=neopixel, board_module=make_board_module())
    strip = neopixel.instances[-1]
    assert strip.pin == "D10" and sink.layout.serpentine and sink.pipeline.max_milliamps == 2000
    corners = LedPins(data_pin=12, count=81, layout="corners", order="GRBW")
    NeoPixelSink.from_pins(corners, neopixel_module=neopixel, board_module=make_board_module())
    assert neopixel.instances[-1].n == 81 and neopixel.instances[-1].bpp == 4


def test_close_darkens_and_deinits_once():
    sink, strip = make_sink()
    sink.show([0xFFFFFF] * 64)
    with sink:
        pass
    sink.close()
    assert strip.deinited and strip.shown[-1] == [(0, 0, 0)] * 64 and len(strip.shown) == 2
    with pytest.raises(RuntimeError):
        sink.show([0] * 64)


def test_bad_order_and_missing_library():
    with pytest.raises(ValueError):
        make_sink(order="GRX")
    import sys

    saved = sys.modules.get("neopixel")
    sys.modules["neopixel"] = None
    try:
        with pytest.raises(BackendUnavailableError, match="adafruit-circuitpython-neopixel"):
            NeoPixelSink(board_module=make_board_module())
    finally:
        if saved is None:
            del sys.modules["neopixel"]
        else:
            sys.modules["neopixel"] = saved


# -- recording sink -----------------------------------------------------------------------------------
def test_recording_sink_keeps_frames_and_the_last_one():
    sink = RecordingLedSink(max_frames=2)
    assert sink.last is None
    seen = []
    unsubscribe = sink.subscribe(seen.append)
    sink.show(one(1))
    sink.show(one(2))
    unsubscribe()
    sink.show(one(3, 0xFF0000))
    assert sink.last == tuple(one(3, 0xFF0000)) and len(sink.frames) == 2 and sink.show_count == 3
    assert sink.lit() == {3: 0xFF0000}
    assert len(seen) == 2
    sink.clear()
    assert sink.lit() == {}
    with pytest.raises(ValueError):
        sink.show([0] * 10)
    sink.close()
    with pytest.raises(RuntimeError):
        sink.show([0] * 64)
