"""`echiquier hwtest`: check a board's wiring square by square (live matrix view, the buttons' presses, LED test patterns)."""
from __future__ import annotations

import argparse
import queue
import sys
import time
from pathlib import Path

from board_driver.backends import open_leds, open_source
from board_driver.buttons import POLL_S, ButtonEvent, GpioButtons
from board_driver.diagnostics import PATTERNS, ButtonMonitor, MatrixMonitor, describe_pattern, pattern_frame, render_link
from board_driver.pinmap import REFERENCE, PinMap, load_pinmap
from board_driver.reading import Reading
from board_driver.sensors import SensorError

DEFAULT_PINMAP = Path("/etc/echiquier/pinmap.toml")
STARTING_OCCUPANCY = 0xFFFF00000000FFFF
CLEAR = "\x1b[H\x1b[2J"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "hwtest",
        help="live view of the sensor matrix and LED test patterns (wiring check)",
        description="Shows which squares read occupied (rank 8 on top), the scan rate and flickering "
        "squares, and each button of the pin map with its presses, while the LEDs run a test pattern. "
        "With the default 'follow' pattern a piece put on a square lights the LED under it, so sensor "
        "and LED wiring are checked together.",
    )
    p.add_argument("--pinmap", metavar="FILE", help=f"pin map (default: {DEFAULT_PINMAP} if present, else the reference board)")
    p.add_argument("--once", action="store_true", help="read the matrix once and print the occupancy as 16 hex digits")
    p.add_argument("--serial", metavar="PORT", help="read through a co-processor on PORT: 'auto' (its data port, "
                   "/dev/serial/by-id/...-if02) or a device; its console (-if00) is refused")
    p.add_argument("--fake", action="store_true", help="no hardware: a simulated matrix and recorded LEDs")
    p.add_argument("--fake-occupied", metavar="HEX16", default=f"{STARTING_OCCUPANCY:016x}",
                   help="what the simulated matrix holds (default: the initial position)")
    p.add_argument("--pattern", choices=PATTERNS, default="follow", help="LED test pattern (default: follow)")
    p.add_argument("--step", type=float, default=0.5, metavar="S", help="seconds per pattern step (default 0.5)")
    p.add_argument("--no-leds", action="store_true", help="leave the LEDs alone")
    p.add_argument("--duration", type=float, metavar="S", help="stop after S seconds (default: Ctrl-C)")
    p.add_argument("--refresh", type=float, default=0.1, metavar="S", help="screen refresh period (default 0.1)")
    p.add_argument("--frames", type=int, metavar="N", help=argparse.SUPPRESS)  # stop after N refreshes (tests)
    p.add_argument("--doctor", action="store_true",
                   help="run this first: checks the Pi, its libraries, permissions and pins, then line tests that "
                   "name a stuck column, shorted rows, a reversed or missing diode (asks you to place three pieces)")
    p.add_argument("--calibrate", action="store_true",
                   help="guided calibration: place a piece where asked to learn the row and column order (swaps, "
                   "mirroring, transposition) and the LED chain's geometry; the result is written to the pin map")
    p.add_argument("--write", metavar="FILE", help="with --calibrate: write the pin map here (default: the one read)")
    p.add_argument("--user", default="echiquier", help="the service's user, whose groups --doctor checks (default echiquier)")
    p.add_argument("--config", metavar="FILE", help="with --doctor: the configuration whose [voice] it checks "
                   "(default /etc/echiquier/config.toml if present)")
    p.add_argument("--fake-fault", action="append", metavar="FAULT",
                   help="with --fake: build a wiring fault into the simulated board (stuck-column:e, "
                   "shorted-rows:3,4, reversed-diode:a1, missing-diode:a1, no-diodes, stuck-button:NAME)")
    p.add_argument("--root", help=argparse.SUPPRESS)  # an emulated Pi's file system (tests, the report)
    p.set_defaults(func=run)


def _fail(message: str) -> int:
    print(f"echiquier hwtest: {message}", file=sys.stderr)
    return 2


def _pinmap(args) -> PinMap:
    if args.pinmap:
        return load_pinmap(args.pinmap)
    if DEFAULT_PINMAP.exists() and not args.fake:
        return load_pinmap(DEFAULT_PINMAP)
    return REFERENCE


def _source(args, pinmap: PinMap):
    if args.serial:
        return open_source("serial", port=args.serial, serial_factory=getattr(args, "serial_factory", None),
                           root=args.root or "/")
    gpio = getattr(args, "gpio", None)
    if gpio is None and args.fake:
        from board_driver.backends.mock_gpio import mock_board

        gpio = mock_board(int(args.fake_occupied, 16), pinmap)
    return open_source("gpio", pinmap=pinmap, gpio=gpio)


def _leds(args, pinmap: PinMap, source):
    if args.no_leds:
        return None
    if getattr(args, "leds", None) is not None:
        return args.leds
    if args.fake or getattr(args, "gpio", None) is not None:
        return open_leds("sim", max_frames=1)
    try:
        if args.serial:
            return open_leds("serial", pins=pinmap.leds, source=source)
        if pinmap.leds is None:
            print("echiquier hwtest: the pin map has no [leds] table; LEDs not tested", file=sys.stderr)
            return None
        return open_leds("neopixel", pins=pinmap.leds, guarded=False)
    except (SensorError, ValueError, RuntimeError) as exc:
        print(f"echiquier hwtest: LEDs not available ({exc}); showing the matrix only", file=sys.stderr)
        return None


def _buttons(args, pinmap: PinMap, source) -> GpioButtons | None:
    """The pin map's buttons, open (on the matrix's own GPIO module when there is one); None
    without buttons, or with a note when they cannot be read."""
    if not pinmap.buttons.pins:
        return None
    buttons = GpioButtons(pinmap.buttons, gpio=getattr(args, "gpio", None) or getattr(source, "gpio", None))
    try:
        buttons.open()
    except SensorError as exc:
        print(f"echiquier hwtest: the buttons cannot be read ({exc}); showing the rest", file=sys.stderr)
        return None
    return buttons


def run(args: argparse.Namespace) -> int:
    if args.doctor:
        from firmware.commands.doctor import run_doctor
        try:
            pinmap = _pinmap(args)
        except SensorError as exc:
            return _fail(str(exc))
        return run_doctor(args, pinmap)
    if args.calibrate:
        from firmware.commands.calibrate import run_calibration
        try:
            pinmap = _pinmap(args)
        except SensorError as exc:
            return _fail(str(exc))
        path = Path(args.pinmap) if args.pinmap else (DEFAULT_PINMAP if DEFAULT_PINMAP.exists() and not args.fake else None)
        try:
            return run_calibration(args, pinmap, path)
        except SensorError as exc:
            return _fail(str(exc))
    try:
        int(args.fake_occupied, 16)
    except ValueError:
        return _fail(f"--fake-occupied: not hex: {args.fake_occupied!r}")
    try:
        pinmap = _pinmap(args)
        source = _source(args, pinmap)
    except SensorError as exc:
        return _fail(str(exc))
    try:
        if args.once:
            print(f"{source.read_once().occupied:016x}")
            return 0
        return _live(args, pinmap, source)
    except SensorError as exc:
        return _fail(str(exc))
    finally:
        source.stop()


def _live(args, pinmap: PinMap, source) -> int:
    clock = getattr(args, "clock", None) or time.monotonic
    sleep = getattr(args, "sleep", None) or time.sleep
    out = getattr(args, "out", None) or sys.stdout
    tty = out.isatty() if hasattr(out, "isatty") else False
    leds = _leds(args, pinmap, source)
    monitor = MatrixMonitor()
    readings: queue.SimpleQueue[Reading] = queue.SimpleQueue()
    monitor.update(source.read_once())
    source.start(readings.put)
    buttons = _buttons(args, pinmap, source)
    pressed = ButtonMonitor(buttons.pins) if buttons is not None else None
    presses: queue.SimpleQueue[ButtonEvent] = queue.SimpleQueue()
    poll_s = getattr(args, "button_poll_s", POLL_S)   # (None: sampled at each refresh, tests)
    if buttons is not None and poll_s is not None:
        buttons.start(presses.put, clock=clock, interval=poll_s)
    start = clock()
    shown_frame = None
    frames = 0
    where = "co-processor on " + args.serial if args.serial else ("simulated matrix" if args.fake else pinmap.source)
    try:
        while True:
            now = clock()
            while True:
                try:
                    monitor.update(readings.get_nowait())
                except queue.Empty:
                    break
            monitor.count_scans(now, source.scan_count)
            if buttons is not None and pressed is not None:
                if poll_s is None:
                    for event in buttons.poll(now):
                        presses.put(event)
                while not presses.empty():
                    pressed.update(presses.get_nowait())
                pressed.sample(buttons.last_read)
            step = int((now - start) / args.step) if args.step > 0 else frames
            status = "LEDs off"
            if leds is not None:
                frame = pattern_frame(args.pattern, step, monitor.occupied)
                if frame != shown_frame:
                    leds.show(frame)
                    shown_frame = frame
                status = "LEDs " + describe_pattern(args.pattern, step)
                milliamps = getattr(leds, "milliamps", None)
                if milliamps is not None:
                    status += f" (~{milliamps:.0f} mA)"
            link = getattr(source, "link", None)
            screen = monitor.render(now, title=f"echiquier hwtest - {where}",
                                    device_rate=link.device_scan_rate if link is not None else None)
            if link is not None:
                screen += "\n" + render_link(link)
            if pressed is not None:
                screen += "\n" + pressed.render()
            screen += f"\n{status}\nCtrl-C to quit\n"
            out.write((CLEAR if tty else "") + screen + ("" if tty else "\n"))
            out.flush()
            frames += 1
            if args.frames is not None and frames >= args.frames:
                break
            if args.duration is not None and now - start >= args.duration:
                break
            sleep(args.refresh)
    except KeyboardInterrupt:
        pass
    finally:
        source.stop()
        if buttons is not None:
            buttons.stop()
        if leds is not None:
            try:
                leds.clear()
            finally:
                leds.close()
    if source.error is not None:
        return _fail(f"scanning stopped: {source.error}")
    return 0
