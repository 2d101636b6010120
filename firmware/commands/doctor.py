"""`echiquier hwtest --doctor`: the preflight, the audio and the buttons, then line tests on an empty board, with three pieces and square by square, each fault named with its fix."""
from __future__ import annotations

import shutil
import sys
from collections.abc import Callable
from typing import TextIO
from pathlib import Path

from board_driver.doctor import (FAIL, OK, WARN, Check, Machine, check_buttons, check_coprocessor, check_imports,
                                 preflight, render)
from board_driver.hw_lock import HardwareBusyError, gpio_lock
from board_driver.line_test import SURVEY, THREE_PIECES, LineTester, square_name
from board_driver.backends.mock_gpio import COL_TO_ROW, HIGH, LOW, ROW_TO_COL, mock_board
from board_driver.pi_platform import detect
from board_driver.pinmap import PinMap
from board_driver.sensors import SensorError

# What says a machine is a Raspberry Pi, as the doctor looks for it when it is not one.
PI_DEVICES = ("dev/gpiomem", "dev/gpiochip0", "dev/spidev0.0")
FAULTS = ("stuck-column:FILE", "shorted-rows:RANK,RANK", "reversed-diode:SQUARE", "missing-diode:SQUARE", "no-diodes",
          "stuck-button:NAME")


def fake_gpio(pinmap: PinMap, faults: list[str]):
    """A simulated board wired like ``pinmap`` with the ``--fake-fault`` faults built in."""
    gpio = mock_board(0, pinmap)
    model, pins = gpio.matrix, pinmap.matrix
    occupied = LOW if pins.active == "low" else HIGH
    wrong_way = ROW_TO_COL if pins.active == "low" else COL_TO_ROW

    def lines(square: str) -> tuple[int, int]:
        file, rank = "abcdefgh".index(square[0]), int(square[1]) - 1
        r, c = (file, rank) if pins.transpose else (rank, file)
        return pins.rows[r], pins.cols[c]

    buttons = pinmap.buttons.by_name
    for fault in faults:
        kind, _, name = fault.partition(":")
        if kind == "stuck-button" and name in buttons:
            gpio.press_button(buttons[name])
            continue
        try:
            _build_fault(model, pins, fault, occupied, wrong_way, lines)
        except (ValueError, IndexError):
            raise ValueError(f"--fake-fault {fault!r}: one of {', '.join(FAULTS)} "
                             f"(FILE a-h, RANK 1-8, SQUARE a1-h8, NAME a button of the pin map: "
                             f"{', '.join(buttons) or 'it names none'})") from None
    return gpio


def _build_fault(model, pins, fault: str, occupied, wrong_way, lines) -> None:
    """One ``--fake-fault`` built into the model; ValueError or IndexError when it is not one."""
    kind, _, arg = fault.partition(":")
    if kind == "stuck-column" and len(arg) == 1:
        model.tie(pins.cols["abcdefgh".index(arg)], occupied)
    elif kind == "shorted-rows":
        a, b = (int(x) - 1 for x in arg.split(","))
        if not (0 <= a < 8 and 0 <= b < 8):
            raise IndexError(arg)
        model.short(pins.rows[a], pins.rows[b])
    elif kind in ("reversed-diode", "missing-diode") and len(arg) == 2 and arg[1] in "12345678":
        model.set_diode(*lines(arg), wrong_way if kind == "reversed-diode" else None)
    elif kind == "no-diodes" and not arg:
        model.diodes = None
        model.version += 1
    else:
        raise ValueError(kind)


def _placer(gpio, pinmap: PinMap, out):
    """The simulated hand: puts the pieces the doctor asks for on the simulated board."""
    def place(squares: tuple[int, ...], text: str) -> None:
        gpio.matrix.set_bitboard(sum(1 << s for s in squares), transpose=pinmap.matrix.transpose)
        out.write(f"  > {text} (simulated: done)\n")
    return place


def _asker(out):
    def ask(squares: tuple[int, ...], text: str) -> None:
        out.write(f"  > {text}, then press Enter ")
        out.flush()
        input()
    return ask


def line_tests(gpio, pinmap: PinMap, place, out) -> list[Check]:
    """The line tests (see board_driver.line_test), printed as they run; returns their checks."""
    checks: list[Check] = []

    def show(findings, passed: str) -> None:
        if not findings:
            check = Check(OK, passed.split(":")[0], passed.split(": ", 1)[1])
            checks.append(check)
            out.write(check.render() + "\n")
        for f in findings:
            check = Check(FAIL, f.kind, f.where, f.fix)
            checks.append(check)
            out.write(check.render() + "\n")

    with LineTester(gpio, pinmap.matrix) as tester:
        out.write("Line tests on an empty board\n")
        place((), "take every piece off the board")
        columns = tester.columns()
        show(columns, "columns: none reads occupied with no row selected")
        show(tester.rows(), "rows: each row line alone, none stuck or joined to another")
        stuck = {f.line for f in columns if f.line is not None}   # a stuck column always names its line
        show(tester.empty_board(stuck), "squares: the empty board reads empty")
        names = ", ".join(square_name(s) for s in THREE_PIECES)
        out.write("Three-piece test (diodes and ghosts)\n")
        place(THREE_PIECES, f"put pieces on {names} only")
        found = tester.three_pieces(skip_columns=stuck)
        # Every square next, its sensor read and its diode probed backwards, so that each one at
        # fault is named (the three pieces alone see a1's diode only).
        out.write("Survey of every square (sensors and diodes, eight pieces at a time, one a rank and a file)\n")
        missing = reversed_ = opened = 0
        for squares in SURVEY:
            place(squares, f"put pieces on {', '.join(square_name(s) for s in squares)} only")
            m, r, o = tester.survey(squares, skip_columns=stuck)
            missing, reversed_, opened = missing | m, reversed_ | r, opened | o
        show(tester.surveyed(found, missing, reversed_, opened),
             f"pieces: {names} read, no ghost on h8, and every square reads its piece "
             f"{'with a diode that blocks the backward path' if tester.can_probe else '(diodes not probed: row drivers)'}")
    return checks


def audio_section(args) -> list[Check]:
    """The audio checks of the configuration's ``[voice]`` (``--config``; firmware.voice.audio_check)."""
    from firmware.config import ConfigError, load_config
    from firmware.voice.audio_check import audio_checks
    try:
        config = load_config(getattr(args, "config", None))
    except ConfigError as exc:
        return [Check(FAIL, "configuration", str(exc), "correct it (echiquier run refuses it too)")]
    return audio_checks(config.voice, root=Path(args.root or "/"), user=args.user,
                        which=getattr(args, "which", None) or shutil.which, aplay=getattr(args, "aplay", None))


def faults_section(args) -> list[Check]:
    """The sensors the service found faulty during a game (firmware.session.sensor_faults), from
    the configuration's state directory: each a warning naming its square and what to look at."""
    from firmware.config import ConfigError, load_config
    from firmware.session.sensor_faults import read_faults
    try:
        config = load_config(getattr(args, "config", None))
    except ConfigError:
        return []   # (the audio section says what is wrong with the configuration)
    checks = []
    for name, fault in sorted(read_faults(config.state_dir).items()):
        what = "read a piece that was not there" if fault["reads_piece"] else "no longer saw its piece"
        checks.append(Check(WARN, f"sensor {name}", f"during a game it {what} (since {fault['since']})",
                            f"check the {'sensor' if fault['reads_piece'] else 'piece magnet and the reed switch'} "
                            f"under {name} and its wiring; the line tests below test it"))
    return checks


def buttons_section(gpio, pinmap: PinMap, out) -> list[Check]:
    """The pin map's buttons, each read released (printed as a section); none without buttons."""
    checks = check_buttons(gpio, pinmap.buttons)
    if checks:
        out.write(render([("Buttons (press none)", checks)]) + "\n")
    return checks


def not_a_pi(root: Path, importer: Callable[[tuple[str, ...]], list[tuple[str, str]]], out: TextIO) -> int:
    """Off a Pi (a laptop): why there are no line tests, what said so, and what to run instead; 1."""
    model = detect(root)
    try:
        tree = (root / "proc/device-tree/model").read_bytes().decode(errors="replace").strip("\x00\n ")
        tree_said = f"says {tree!r}" if tree else "empty"
    except OSError:
        tree_said = "missing"
    try:
        (root / "proc/cpuinfo").read_bytes()
        cpuinfo_said = "names no Raspberry Pi"
    except OSError:
        cpuinfo_said = "missing"
    failed = importer(("RPi.GPIO",))
    library = f"cannot import ({failed[0][1]})" if failed else "imports, but cannot drive this machine's pins"
    missing = [f"/{d}" for d in PI_DEVICES if not (root / d).exists()]
    present = [f"/{d}" for d in PI_DEVICES if (root / d).exists()]
    named = "" if model.name == "unknown machine" else f" ({model.name})"
    out.write(f"Line tests not run: this machine{named} is not a Raspberry Pi\n"
              f"  checked  /proc/device-tree/model: {tree_said}\n"
              f"  checked  /proc/cpuinfo: {cpuinfo_said}\n"
              f"  checked  RPi.GPIO: {library}\n")
    if missing:
        out.write(f"  checked  {', '.join(missing)}: missing\n")
    if present:
        out.write(f"  checked  {', '.join(present)}: present\n")
    out.write("The doctor tests a board wired to a Raspberry Pi: run it on the Pi, or see it here on a "
              "simulated board:\n  echiquier hwtest --doctor --fake\n")
    return 1


def run_doctor(args, pinmap: PinMap) -> int:
    out = getattr(args, "out", None) or sys.stdout
    out.write("echiquier hwtest --doctor" + (" (simulated board)" if args.fake else "") + f" - pin map {pinmap.source}\n")
    checks: list[Check] = []
    root = Path(args.root or "/")
    audio = [("Audio ([voice])", audio_section(args))]
    if args.fake and args.root is None:
        out.write("Preflight skipped: a simulated board has no Pi to check (--root DIR checks an emulated one)\n")
    elif not args.fake and not args.serial and not detect(root).is_pi:   # a laptop: no Pi's fixes to give
        out.write(render(audio) + "\n")   # (the voice speaks on a laptop too: echiquier sim --voice)
        return not_a_pi(root, getattr(args, "importer", None) or check_imports, out)
    else:
        machine = Machine(root=Path(args.root or "/"), user=args.user, pinmap=pinmap,
                          sensors="serial" if args.serial else "gpio",
                          leds="none" if args.no_leds else ("serial" if args.serial else "neopixel"),
                          importer=getattr(args, "importer", None) or check_imports)
        sections = preflight(machine)
        out.write(render(sections) + "\n")
        checks += [c for _, cs in sections for c in cs]
    out.write(render(audio) + "\n")
    checks += audio[0][1]
    faults = faults_section(args)
    if faults:
        out.write(render([("Sensors found faulty during play", faults)]) + "\n")
        checks += faults
    if args.serial:
        section = check_coprocessor(args.serial, Path(args.root or "/"),
                                    serial_factory=getattr(args, "serial_factory", None),
                                    **({"clock": args.clock} if getattr(args, "clock", None) else {}))
        out.write(render([("Co-processor", section)]) + "\n")
        checks += section
        if pinmap.buttons.pins:   # the buttons are on the Pi's own pins
            gpio = getattr(args, "gpio", None)
            try:
                if gpio is None:
                    from board_driver.backends.gpio_matrix import import_rpi_gpio
                    gpio = import_rpi_gpio(Path(args.root or "/"))
            except SensorError as exc:
                failed = [Check(FAIL, "buttons", f"cannot read them: {exc}")]
                out.write(render([("Buttons (press none)", failed)]) + "\n")
                checks += failed
            else:
                checks += buttons_section(gpio, pinmap, out)
        out.write("Line tests need the GPIO matrix: the co-processor scans its own (hwtest --serial auto shows it live)\n")
    else:
        gpio = getattr(args, "gpio", None)
        place = getattr(args, "place", None)
        if gpio is None and args.fake:
            try:
                gpio = fake_gpio(pinmap, args.fake_fault or [])
            except ValueError as exc:
                print(f"echiquier hwtest: {exc}", file=sys.stderr)
                return 2
            place = place or _placer(gpio, pinmap, out)
        if gpio is None:
            from board_driver.backends.gpio_matrix import import_rpi_gpio
            root = Path(args.root or "/")
            if not detect(root).is_pi:
                return not_a_pi(root, getattr(args, "importer", None) or check_imports, out)
            try:
                gpio = import_rpi_gpio(root)
            except SensorError as exc:   # the library missing or refusing this Pi: said with its fix
                out.write(f"Line tests not run: {exc}\n")
                return 1
        lock = gpio_lock()
        try:
            lock.acquire()
        except HardwareBusyError as exc:
            out.write(f"Line tests not run: {exc}\n")
            return 1
        try:
            checks += buttons_section(gpio, pinmap, out)
            checks += line_tests(gpio, pinmap, place or _asker(out), out)
        finally:
            lock.release()
    failed = [c for c in checks if c.status == FAIL]
    if failed:
        out.write(f"{len(failed)} problem{'s' if len(failed) > 1 else ''} found: fix the first one, then run the doctor again\n")
        return 1
    warned = sum(c.status == WARN for c in checks)
    note = f" ({warned} warning{'s' if warned > 1 else ''})" if warned else ""
    out.write(f"All checks passed{note}: sudo systemctl start echiquier\n")
    return 0
