"""Stub of CircuitPython's ``digitalio`` wired to an electrical matrix model (set ``matrix``)."""
import random

from board_driver.backends.mock_gpio import HIGH, LOW

matrix = None
"""A board_driver.backends.mock_gpio.MatrixModel over pin names; tests set it."""
_rng = random.Random(0)
_outputs = {}  # pin -> bool level of pins switched to output
_claimed = set()


class Direction:
    INPUT = "input"
    OUTPUT = "output"


class Pull:
    UP = "up"
    DOWN = "down"


class DriveMode:
    PUSH_PULL = "push_pull"
    OPEN_DRAIN = "open_drain"


def reset():
    global matrix
    matrix = None
    _outputs.clear()
    _claimed.clear()


class DigitalInOut:
    def __init__(self, pin):
        if pin in _claimed:
            raise ValueError(f"{pin} in use")
        _claimed.add(pin)
        self.pin = pin
        self.direction = Direction.INPUT
        self.pull = None

    def switch_to_output(self, value=False, drive_mode=DriveMode.PUSH_PULL):
        self.direction = Direction.OUTPUT
        _outputs[self.pin] = bool(value)

    def switch_to_input(self, pull=None):
        self.direction = Direction.INPUT
        self.pull = pull
        _outputs.pop(self.pin, None)

    @property
    def value(self):
        if self.direction == Direction.OUTPUT:
            return _outputs[self.pin]
        level = None
        if matrix is not None and self.pin in matrix.cols:
            driven = matrix.row_nets({p: HIGH if v else LOW for p, v in _outputs.items() if p in matrix.rows})
            level = matrix.driven_level(self.pin, driven)
        if level is None:
            if self.pull == Pull.UP:
                return True
            if self.pull == Pull.DOWN:
                return False
            return bool(_rng.getrandbits(1))
        return level == HIGH

    @value.setter
    def value(self, level):
        if self.direction != Direction.OUTPUT:
            raise AttributeError("Cannot set value when direction is input.")
        _outputs[self.pin] = bool(level)

    def deinit(self):
        _claimed.discard(self.pin)
        _outputs.pop(self.pin, None)
