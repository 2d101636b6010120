"""Matrix scanner of the co-processor (CircuitPython digitalio; same wiring as the Pi's scanner).

Row pins are outputs idling at the inactive level, column pins inputs with pull-ups (pull-
downs when active-high). ``select_high`` overrides the row level for transistor row drivers
(an N-MOSFET per row grounding that row's Hall sensors: ``select_high=True``). Row i is
rank i+1 (rank 1 first), column j is file j (a first), so bit ``j + 8 * i`` of a scan is
the square at that crossing, a1 = bit 0.
"""


class MatrixScanner:
    def __init__(self, row_pins, col_pins, digitalio, active_low=True, settle_us=10, delay_us=None,
                 select_high=None):
        if len(row_pins) != 8 or len(col_pins) != 8:
            raise ValueError("the matrix has 8 rows and 8 columns")
        self.active = not active_low  # the column level that means "occupied"
        self.select = (not active_low) if select_high is None else bool(select_high)
        self.release = not self.select
        self.settle_us = settle_us
        self.delay_us = delay_us
        pull = digitalio.Pull.UP if active_low else digitalio.Pull.DOWN
        self.rows = []
        for pin in row_pins:
            io = digitalio.DigitalInOut(pin)
            io.switch_to_output(value=self.release)
            self.rows.append(io)
        self.cols = []
        for pin in col_pins:
            io = digitalio.DigitalInOut(pin)
            io.switch_to_input(pull=pull)
            self.cols.append(io)

    def scan(self):
        occupied = 0
        active = self.active
        shift = 0
        for row in self.rows:
            row.value = self.select
            if self.settle_us and self.delay_us is not None:
                self.delay_us(self.settle_us)
            bit = 1 << shift
            for col in self.cols:
                if col.value == active:
                    occupied |= bit
                bit <<= 1
            row.value = self.release
            shift += 8
        return occupied

    def deinit(self):
        for io in self.rows + self.cols:
            io.deinit()
