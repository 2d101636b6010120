"""Pin maps: the reference file loads, and every kind of mistake is refused naming file and key."""
from __future__ import annotations

from pathlib import Path

import pytest

from board_driver.pinmap import BUTTON_NAMES, REFERENCE, ButtonPins, LedPins, MatrixPins, load_pinmap, loads_pinmap
from board_driver.sensors import PinMapError, SensorError

ROOT = Path(__file__).resolve().parents[2]
GOOD = """
[matrix]
rows = [4, 17, 27, 22, 5, 6, 13, 19]
cols = [12, 16, 20, 21, 23, 24, 25, 26]
active = "low"
settle_us = 10
"""


def test_reference_board_file_matches_the_built_in_reference():
    assert load_pinmap(ROOT / "hardware" / "reference-board.toml") == REFERENCE


def test_minimal_pinmap_gets_defaults():
    pm = loads_pinmap(GOOD, "board.toml")
    assert pm.matrix.rows == (4, 17, 27, 22, 5, 6, 13, 19)
    assert pm.matrix.idle == "drive" and pm.leds is None


def test_pinmap_error_is_a_sensor_error_and_a_value_error():
    assert issubclass(PinMapError, SensorError) and issubclass(PinMapError, ValueError)


@pytest.mark.parametrize(
    "edit, key, words",
    [
        (("rows = [4, 17, 27, 22, 5, 6, 13, 19]", "rows = [4, 17, 27, 22, 5, 6, 13]"), "matrix.rows", "expected 8 BCM pins, got 7"),
        (("rows = [4, 17, 27, 22, 5, 6, 13, 19]", "rows = [4, 17, 27, 22, 5, 6, 13, 4]"), "matrix.rows[7]", "already used by matrix.rows[0]"),
        (("cols = [12, 16, 20, 21, 23, 24, 25, 26]", "cols = [12, 16, 20, 21, 23, 24, 25, 4]"), "matrix.cols[7]", "already used by matrix.rows[0]"),
        (("rows = [4, 17, 27, 22, 5, 6, 13, 19]", "rows = [4, 17, 27, 22, 5, 6, 13, 40]"), "matrix.rows[7]", "out of range 0..27"),
        (("rows = [4, 17, 27, 22, 5, 6, 13, 19]", "rows = [4, 17, 27, 22, 5, 6, 13, -1]"), "matrix.rows[7]", "out of range"),
        (("rows = [4, 17, 27, 22, 5, 6, 13, 19]", 'rows = [4, 17, 27, 22, 5, 6, 13, "19"]'), "matrix.rows[7]", "expected a BCM pin number"),
        (("rows = [4, 17, 27, 22, 5, 6, 13, 19]", "rows = [4, 17, 27, 22, 5, 6, 13, true]"), "matrix.rows[7]", "expected a BCM pin number"),
        (('active = "low"', 'active = "inverted"'), "matrix.active", "expected one of 'low', 'high'"),
        (("settle_us = 10", "settle_us = -3"), "matrix.settle_us", "expected a number"),
        (("settle_us = 10", "settle_us = 10\nsettle = 4"), "matrix.settle", "unknown key"),
        (("[matrix]", "[matrixx]"), "matrixx", "unknown table"),
        (('active = "low"', 'active = "low"\nselect = "up"'), "matrix.select", "expected one of 'low', 'high'"),
    ],
)
def test_bad_pinmap_is_refused_naming_file_and_key(edit, key, words):
    text = GOOD.replace(*edit)
    with pytest.raises(PinMapError) as err:
        loads_pinmap(text, "hw/board.toml")
    message = str(err.value)
    assert message.startswith(f"hw/board.toml: {key}:"), message
    assert words in message


def test_missing_matrix_table_and_missing_rows():
    with pytest.raises(PinMapError, match=r"x.toml: matrix: missing table"):
        loads_pinmap("[leds]\ndata_pin = 18\n", "x.toml")
    with pytest.raises(PinMapError, match=r"x.toml: matrix.rows: missing"):
        loads_pinmap("[matrix]\ncols = [12, 16, 20, 21, 23, 24, 25, 26]\n", "x.toml")


def test_bad_toml_and_missing_file_are_pinmap_errors(tmp_path):
    with pytest.raises(PinMapError, match=r"x.toml: not valid TOML"):
        loads_pinmap("[matrix\n", "x.toml")
    missing = tmp_path / "nope.toml"
    with pytest.raises(PinMapError, match=r"nope.toml: cannot read"):
        load_pinmap(missing)


@pytest.mark.parametrize(
    "leds, key, words",
    [
        ("data_pin = 4", "leds.data_pin", "already used by matrix.rows[0]"),
        ("data_pin = 18\nlayout = \"diagonal\"", "leds.layout", "expected one of"),
        ("data_pin = 18\nlayout = \"corners\"\ncount = 64", "leds.count", "needs at least 81 LEDs"),
        ("data_pin = 18\norder = \"GRX\"", "leds.order", "pixel order"),
        ("data_pin = 18\nbrightness = 1.5", "leds.brightness", "from 0 to 1"),
        ("data_pin = 18\nrotation = 45", "leds.rotation", "expected one of 0, 90, 180, 270"),
        ("data_pin = 18\nserpentine = \"yes\"", "leds.serpentine", "true or false"),
        ("data_pin = 18\nmax_milliamps = 0", "leds.max_milliamps", "expected a number"),
        ("data_pin = 18\ncolour = 3", "leds.colour", "unknown key"),
    ],
)
def test_bad_led_table_is_refused(leds, key, words):
    with pytest.raises(PinMapError) as err:
        loads_pinmap(GOOD + "[leds]\n" + leds + "\n", "b.toml")
    assert str(err.value).startswith(f"b.toml: {key}:"), str(err.value)
    assert words in str(err.value)


def test_led_table_accepts_order_in_any_case_and_rgbw():
    pm = loads_pinmap(GOOD + '[leds]\norder = "grbw"\nlayout = "corners"\ncount = 81\n')
    assert pm.leds.order == "GRBW" and pm.leds.count == 81


def test_dataclasses_check_themselves_when_built_in_code():
    with pytest.raises(PinMapError, match="matrix.cols: expected 8 BCM pins, got 2"):
        MatrixPins(rows=(2, 3, 4, 5, 6, 7, 8, 9), cols=(10, 11))
    with pytest.raises(PinMapError, match="leds.count"):
        LedPins(layout="corners", count=64)


def test_select_defaults_to_the_active_level():
    assert loads_pinmap(GOOD).matrix.select_level == "low"
    assert loads_pinmap(GOOD + 'select = "high"\n').matrix.select_level == "high"


def test_square_of_a_crossing_follows_rows_ranks_and_cols_files():
    pins = REFERENCE.matrix
    assert pins.square(0, 0) == 0 and pins.square(0, 7) == 7 and pins.square(7, 0) == 56
    transposed = MatrixPins(pins.rows, pins.cols, transpose=True)
    assert transposed.square(0, 7) == 56 and transposed.square(7, 0) == 7


def test_pins_the_pi_itself_uses_are_refused_with_the_reason():
    rows = "rows = [4, 17, 27, 22, 5, 6, 13, 19]\n"
    with pytest.raises(PinMapError, match=r"matrix.cols\[0\]: BCM pin 0 is the HAT ID EEPROM's I2C line"):
        loads_pinmap("[matrix]\n" + rows + "cols = [0, 16, 20, 21, 23, 24, 25, 26]\n")
    with pytest.raises(PinMapError, match=r"leds.data_pin: BCM pin 1 is the HAT ID EEPROM's"):
        LedPins(data_pin=1)
    high = "[matrix]\n" + rows + "cols = [2, 16, 20, 21, 23, 24, 25, 26]\nactive = \"high\"\n"
    with pytest.raises(PinMapError, match=r"matrix.cols\[0\]: BCM pin 2 has a 1.8 kOhm pull-up .* always reads occupied"):
        loads_pinmap(high)
    assert loads_pinmap(high.replace('active = "high"', 'active = "low"')).matrix.cols[0] == 2  # pulled up anyway


# -- [buttons]: optional push buttons, name -> BCM pin, each wired to ground (active low) --------------

def test_buttons_are_named_pins_in_the_order_of_the_file():
    pm = loads_pinmap(GOOD + "[buttons]\nspeak = 18\ndescribe = 3\nhint = 2\nresign_white = 14\n", "b.toml")
    assert pm.buttons.pins == (("speak", 18), ("describe", 3), ("hint", 2), ("resign_white", 14))
    assert pm.buttons.by_name == {"speak": 18, "describe": 3, "hint": 2, "resign_white": 14}


def test_a_pinmap_without_buttons_has_none():
    assert loads_pinmap(GOOD).buttons.pins == () and REFERENCE.buttons.pins == ()


def test_every_button_name_is_accepted():
    text = GOOD + "[buttons]\n" + "".join(f"{name} = {pin}\n" for name, pin in zip(BUTTON_NAMES, (2, 3, 14, 15, 18, 7, 8, 9)))
    assert [name for name, _ in loads_pinmap(text).buttons.pins] == list(BUTTON_NAMES)
    assert set(BUTTON_NAMES) == {"resign_white", "resign_black", "draw", "promote", "return", "speak", "describe", "hint"}


@pytest.mark.parametrize(
    "buttons, key, words",
    [
        ("speak = 4", "buttons.speak", "BCM pin 4 is already used by matrix.rows[0]"),
        ("speak = 26", "buttons.speak", "BCM pin 26 is already used by matrix.cols[7]"),
        ("speak = 18\ndescribe = 18", "buttons.describe", "BCM pin 18 is already used by buttons.speak"),
        ("eject = 18", "buttons.eject", "unknown button (known: describe, draw, hint, promote, resign_black, "
                                        "resign_white, return, speak)"),
        ('speak = "18"', "buttons.speak", "expected a BCM pin number, got '18'"),
        ("speak = true", "buttons.speak", "expected a BCM pin number"),
        ("speak = 28", "buttons.speak", "out of range 0..27"),
        ("speak = 0", "buttons.speak", "HAT ID EEPROM"),
    ],
)
def test_bad_button_is_refused_naming_file_and_key(buttons, key, words):
    with pytest.raises(PinMapError) as err:
        loads_pinmap(GOOD + "[buttons]\n" + buttons + "\n", "b.toml")
    assert str(err.value).startswith(f"b.toml: {key}:"), str(err.value)
    assert words in str(err.value)


def test_a_button_on_the_led_pin_names_both():
    with pytest.raises(PinMapError) as err:
        loads_pinmap(GOOD + "[leds]\ndata_pin = 18\n[buttons]\nhint = 18\n", "b.toml")
    assert str(err.value) == "b.toml: buttons.hint: BCM pin 18 is already used by leds.data_pin"


def test_buttons_must_be_a_table():
    with pytest.raises(PinMapError, match=r"^b.toml: buttons: expected a table of button = BCM pin"):
        loads_pinmap(GOOD.replace("[matrix]", "buttons = 3\n[matrix]"), "b.toml")


def test_button_pins_check_themselves_when_built_in_code():
    with pytest.raises(PinMapError, match=r"buttons.hint: BCM pin 18 is already used by buttons.speak"):
        ButtonPins((("speak", 18), ("hint", 18)))
    with pytest.raises(PinMapError, match=r"buttons.speak: listed twice"):
        ButtonPins((("speak", 18), ("speak", 3)))


def test_the_reference_boards_example_buttons_load_beside_its_matrix_and_leds():
    text = (ROOT / "hardware" / "reference-board.toml").read_text()
    example = text.replace("# [buttons]\n", "[buttons]\n").replace("# speak = 18", "speak = 18") \
        .replace("# describe = 3", "describe = 3").replace("# hint = 2", "hint = 2")
    assert loads_pinmap(example).buttons.by_name == {"speak": 18, "describe": 3, "hint": 2}
