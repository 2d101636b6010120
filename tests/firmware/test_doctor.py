"""`echiquier hwtest --doctor`: the preflight on emulated Pis, and each wiring fault named through the electrical mock."""
from __future__ import annotations

import io
import re
import shutil

import pytest

from board_driver.hw_lock import gpio_lock
from board_driver.pinmap import loads_pinmap
from firmware.cli import build_parser
from tests.fakes.fake_gpio import wired
from tests.fakes.fake_pi import emulated_pi


@pytest.fixture(autouse=True)
def lock_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("ECHIQUIER_LOCK_DIR", str(tmp_path / "run"))
    (tmp_path / "run").mkdir()
    return tmp_path / "run"


def doctor(*argv, importer=lambda modules: [], **inject) -> tuple[int, str]:
    args = build_parser().parse_args(["hwtest", "--doctor", *argv])
    args.out = io.StringIO()
    args.importer = importer
    for key, value in inject.items():
        setattr(args, key, value)
    code = args.func(args)
    return code, args.out.getvalue()


def failures(text: str) -> list[str]:
    return re.findall(r"^  FAIL  (.*)$", text, re.M)


def test_a_healthy_pi_4_and_board_pass_everything(tmp_path):
    root = emulated_pi(tmp_path / "pi")
    code, out = doctor("--fake", "--root", str(root))
    assert code == 0, out
    assert failures(out) == []
    for seen in ("ok    Pi model: Raspberry Pi 4 Model B Rev 1.5", "ok    groups: user echiquier is in gpio, spi, dialout",
                 "ok    /dev/spidev0.0: read/write", "ok    LED pin: GPIO 10", "ok    the service: not scanning",
                 "ok    columns:", "ok    rows:", "ok    squares:", "ok    pieces: a1, h1, a8 read, no ghost",
                 "every square reads its piece with a diode that blocks the backward path",
                 "All checks passed"):
        assert seen in out


@pytest.mark.parametrize("fault, named", [
    ("stuck-column:e", ["stuck column: column 5 (file e, GPIO 23) reads occupied with no row selected"]),
    ("shorted-rows:3,4", ["shorted rows: row 3 (rank 3, GPIO 27) and row 4 (rank 4, GPIO 22) are joined"]),
    ("reversed-diode:a1", ["reversed diode: the diode of a1 conducts the wrong way",
                           "missing diode (ghost): h8 reads occupied with pieces on a1, h1, a8 only: "
                           "the reversed diode of a1 lets current back"]),
    ("missing-diode:a1", ["missing diode (ghost): h8 reads occupied with pieces on a1, h1, a8 only: "
                          "the diode of a1 is missing or shorted"]),
    ("no-diodes", ["missing diode (ghost): h8 reads occupied with pieces on a1, h1, a8 only: "
                   "the diodes of all 64 squares are missing or shorted"]),
    ("missing-diode:c3", ["missing diode (ghost): the diode of c3 is missing or shorted"]),   # no ghost on h8
    ("reversed-diode:e5", ["reversed diode: the diode of e5 conducts the wrong way"]),
])
def test_each_wiring_fault_is_named_and_nothing_else(fault, named):
    code, out = doctor("--fake", "--fake-fault", fault)
    assert code == 1
    assert failures(out) == named


def test_faults_together_are_each_named_once():
    code, out = doctor("--fake", "--fake-fault", "stuck-column:e", "--fake-fault", "shorted-rows:3,4",
                       "--fake-fault", "reversed-diode:a1")
    kinds = [f.split(":")[0] for f in failures(out)]
    assert kinds == ["stuck column", "shorted rows", "reversed diode", "missing diode (ghost)"]


def test_an_open_sensor_is_not_called_a_reversed_diode():
    gpio = wired(loads_pinmap((ROOT_MAP := REFERENCE_TOML)), 0)
    placed = []

    def place(squares, text):
        placed.append(squares)
        # a1's reed never closes (turned along the magnet's axis): only h1 and a8 read
        gpio.matrix.set_bitboard(sum(1 << s for s in squares if s != 0))
    code, out = doctor("--pinmap", ROOT_MAP_PATH, gpio=gpio, place=place, root=None, fake=True)
    assert placed[:2] == [(), (0, 7, 56)] and len(placed) == 10    # then the survey's eight placements
    assert sorted(s for squares in placed[2:] for s in squares) == list(range(64))
    assert failures(out) == ["open sensor: a1 reads empty with a piece on it"]


@pytest.mark.parametrize("faults, named, fix", [
    (["no-diodes"], "the diodes of all 64 squares are missing or shorted", "fit a diode at every square"),
    ([f"missing-diode:{f}1" for f in "abcdefgh"], "the diodes of rank 1 are missing or shorted",
     "fit a diode at rank 1"),
    ([f"missing-diode:d{r}" for r in range(1, 9)], "the diodes of the d-file are missing or shorted",
     "fit a diode at the d-file"),
    (["missing-diode:a1", "missing-diode:c3", "missing-diode:g7"], "the diodes of a1, c3 and g7 are missing or shorted",
     "fit a diode at a1, c3 and g7"),
])
def test_every_square_without_a_diode_is_named(faults, named, fix):
    code, out = doctor("--fake", *[a for f in faults for a in ("--fake-fault", f)])
    assert code == 1
    assert [f for f in failures(out) if f.startswith("missing diode")] == [f for f in failures(out)
                                                                           if named in f], out
    assert len(failures(out)) == 1 and named in failures(out)[0], out
    assert f"fix: {fix} (bar to the row)" in out


def test_every_open_sensor_is_named_in_one_finding():
    gpio = wired(loads_pinmap(REFERENCE_TOML), 0)
    dead = {0, 1, 2, 3, 4, 5, 6, 7, 42}              # rank 1 and c6: reeds that never close

    def place(squares, text):
        gpio.matrix.set_bitboard(sum(1 << s for s in squares if s not in dead))
    code, out = doctor("--pinmap", ROOT_MAP_PATH, gpio=gpio, place=place, root=None, fake=True)
    assert failures(out) == ["open sensor: rank 1 and c6 read empty with pieces on them"]


def test_an_active_high_column_on_gpio_2_is_refused_with_the_reason(tmp_path, capsys):
    text = "[matrix]\nrows = [4, 17, 27, 22, 5, 6, 13, 19]\ncols = [2, 16, 20, 21, 23, 24, 25, 26]\nactive = \"high\"\n"
    (tmp_path / "map.toml").write_text(text)
    args = build_parser().parse_args(["hwtest", "--doctor", "--fake", "--pinmap", str(tmp_path / "map.toml")])
    assert args.func(args) == 2
    assert "BCM pin 2 has a 1.8 kOhm pull-up to 3.3 V on the Pi itself" in capsys.readouterr().err


# -- the preflight on emulated Pis ---------------------------------------------------------------
def test_a_pi_5_with_rpi_gpio_installed_is_told_to_install_its_libraries(tmp_path):
    root = emulated_pi(tmp_path / "pi", "Raspberry Pi 5 Model B Rev 1.0", generation=5)
    code, out = doctor("--fake", "--root", str(root),
                       importer=lambda modules: [("lgpio", "ModuleNotFoundError: No module named 'lgpio'")])
    assert code == 1
    assert "FAIL  libraries: cannot import lgpio (ModuleNotFoundError: No module named 'lgpio')" in out
    assert "fix: sudo systemd/install.sh (installs the [pi,pi5] libraries for this model" in out
    assert "ok    /dev/pio0: read/write (the LEDs (RP1 PIO))" in out and "ok    LED pin: GPIO 10" in out


def test_the_old_unit_hiding_proc_and_a_user_outside_the_groups(tmp_path):
    old_unit = "[Service]\nProtectProc=invisible\nProcSubset=pid\n"
    root = emulated_pi(tmp_path / "pi", groups=("gpio",), unit=old_unit)
    code, out = doctor("--fake", "--root", str(root))
    assert "FAIL  groups: user echiquier is not in spi, dialout" in out
    assert "fix: sudo usermod -aG gpio,spi,dialout echiquier" in out
    assert "FAIL  /proc as the service sees it: /etc/systemd/system/echiquier.service has ProcSubset=pid" in out


def test_pins_taken_by_overlays_spi_off_and_a_root_only_led_pin(tmp_path):
    root = emulated_pi(tmp_path / "pi", config_txt="dtoverlay=w1-gpio\nenable_uart=1\n", devices=("gpiomem",))
    code, out = doctor("--fake", "--root", str(root))
    assert "FAIL  GPIO 4: the pin map's row 1 is taken by 1-Wire (dtoverlay=w1-gpio)" in out
    assert "fix: remove that line from /boot/firmware/config.txt and reboot, or move the row 1 in the pin map" in out
    assert "FAIL  /dev/spidev0.0: missing (the LEDs on SPI)" in out and "raspi-config nonint do_spi 0" in out
    (tmp_path / "map.toml").write_text(REFERENCE_TOML.replace("data_pin = 10", "data_pin = 18"))
    code, out = doctor("--fake", "--root", str(root), "--pinmap", str(tmp_path / "map.toml"))
    assert "FAIL  LED pin: GPIO 18 is driven by PWM/PCM and DMA through /dev/mem: root only" in out
    (tmp_path / "map.toml").write_text(REFERENCE_TOML.replace("data_pin = 10", "data_pin = 7"))
    code, out = doctor("--fake", "--root", str(root), "--pinmap", str(tmp_path / "map.toml"))
    assert "FAIL  LED pin: GPIO 7 cannot drive NeoPixels on a Raspberry Pi 4 Model B Rev 1.5" in out


def test_the_doctor_refuses_the_hardware_while_the_service_scans(tmp_path, lock_dir):
    service = gpio_lock(lock_dir)
    service.acquire()
    root = emulated_pi(tmp_path / "pi")
    code, out = doctor("--fake", "--root", str(root))
    service.release()
    assert code == 1
    assert "FAIL  the service: is scanning the matrix" in out and "sudo systemctl stop echiquier" in out
    assert "Line tests not run: the GPIO sensor matrix is in use by another process" in out


from pathlib import Path  # noqa: E402

ROOT_MAP_PATH = str(Path(__file__).resolve().parents[2] / "hardware/reference-board.toml")
REFERENCE_TOML = Path(ROOT_MAP_PATH).read_text()


# -- the co-processor ----------------------------------------------------------------------------
def test_the_doctor_checks_the_coprocessor_port_firmware_and_link(tmp_path):
    from tests.board_driver.test_serial_ports import PICO, device_on, emulated_usb
    from tests.fakes.fake_serial import FakeLine
    root = emulated_pi(tmp_path / "pi")
    emulated_usb(root)
    line = FakeLine()
    line.on_host_bytes = device_on(line)
    ticks = iter(range(1_000_000))
    code, out = doctor("--serial", "auto", "--root", str(root), serial_factory=line.factory,
                       clock=lambda: next(ticks) * 0.01)
    assert f"ok    co-processor port: /dev/serial/by-id/{PICO}02" in out
    assert "ok    co-processor firmware: echiquier-coprocessor 1.1 (protocol 1, 64 LEDs)" in out
    assert "ok    co-processor scanning: 612 scans/s" in out
    assert re.search(r"warn  link quality: \d+ frames in 3\.0 s, [1-9]\d* CRC errors, 0 bad headers, [1-9]\d* dropped", out)
    assert "All checks passed (1 warning)" in out
    code, out = doctor("--serial", "/dev/ttyACM0", "--root", str(root), serial_factory=line.factory)
    assert "FAIL  co-processor port: /dev/ttyACM0 is the co-processor's console (its REPL)" in out


def test_a_silent_port_is_told_to_flash_the_firmware(tmp_path):
    from tests.board_driver.test_serial_ports import emulated_usb
    from tests.fakes.fake_serial import FakeLine
    root = emulated_pi(tmp_path / "pi")
    emulated_usb(root)
    ticks = iter(range(1_000_000))
    code, out = doctor("--serial", "auto", "--root", str(root), serial_factory=FakeLine().factory,
                       clock=lambda: next(ticks) * 0.01)
    assert code == 1
    assert "FAIL  co-processor firmware: no answer to HELLO within 3 s" in out


def test_the_spi_led_route_needs_a_fixed_core_clock(tmp_path):
    root = emulated_pi(tmp_path / "pi4", config_txt="dtparam=spi=on\n")
    code, out = doctor("--fake", "--root", str(root))
    assert "FAIL  SPI clock for the LEDs: core_freq_min is not 500" in out
    assert "fix: add core_freq_min=500 to /boot/firmware/config.txt (and core_freq=500), then reboot" in out
    root = emulated_pi(tmp_path / "pi3", "Raspberry Pi 3 Model B Plus Rev 1.3", generation=3,
                       config_txt="dtparam=spi=on\ncore_freq=250\n")
    code, out = doctor("--fake", "--root", str(root))
    assert "ok    SPI clock for the LEDs: core_freq=250 in /boot/firmware/config.txt" in out and code == 0


def test_an_old_unit_without_dev_pio0_is_named_on_a_pi_5(tmp_path):
    old = (Path(ROOT_MAP_PATH).parents[1] / "systemd/echiquier.service").read_text().replace("DeviceAllow=/dev/pio0 rw\n", "")
    root = emulated_pi(tmp_path / "pi", "Raspberry Pi 5 Model B Rev 1.0", generation=5, unit=old)
    code, out = doctor("--fake", "--root", str(root))
    assert ("FAIL  /dev/pio0: /etc/systemd/system/echiquier.service does not allow it (the LEDs (RP1 PIO)): "
            "the service cannot open it") in out
    assert "ok    /dev/gpiochip0: read/write" in out  # char-gpiochip covers it


@pytest.mark.parametrize("fault", ["bogus", "stuck-column:z", "stuck-column:", "shorted-rows:9,1", "reversed-diode:a9"])
def test_a_mistyped_fake_fault_is_one_line_not_a_traceback(fault, capsys):
    from firmware.cli import main
    assert main(["hwtest", "--doctor", "--fake", "--fake-fault", fault]) == 2
    err = capsys.readouterr().err
    assert err.startswith("echiquier hwtest: --fake-fault") and "Traceback" not in err and len(err.splitlines()) == 1


def test_with_row_drivers_the_ghost_is_still_named_though_diodes_cannot_be_probed(tmp_path):
    text = REFERENCE_TOML.replace('active = "low"\n', 'active = "low"\nselect = "high"\n', 1)
    path = tmp_path / "drivers.toml"
    path.write_text(text)
    pinmap = loads_pinmap(text)
    assert pinmap.matrix.select_level != pinmap.matrix.active
    gpio = wired(pinmap, 0, diodes=None)          # bare switches behind MOSFET row drivers

    def place(squares, text):
        gpio.matrix.set_bitboard(sum(1 << s for s in squares))
    code, out = doctor("--pinmap", str(path), gpio=gpio, place=place, root=None, fake=True)
    assert code == 1
    assert failures(out) == ["missing diode (ghost): h8 reads occupied with pieces on a1, h1, a8 only: "
                             "the diode of a1 is missing or shorted"], out


def test_sensors_stuck_closed_are_named_together():
    gpio = wired(loads_pinmap(REFERENCE_TOML), 0)
    stuck = [8 * 2 + f for f in range(8)] + [27]     # rank 3 and d4: read with nothing on them

    def place(squares, text):
        gpio.matrix.set_bitboard(sum(1 << s for s in set(squares) | set(stuck)))
    code, out = doctor("--pinmap", ROOT_MAP_PATH, gpio=gpio, place=place, root=None, fake=True)
    assert code == 1
    assert failures(out) == ["stuck sensor: rank 3 and d4 read occupied on an empty board"]   # not ghosts too
    assert "fix: the sensors of rank 3 and d4 are stuck closed" in out


def emulated_laptop(root):
    """A laptop's ``/``: no device tree, an x86 /proc/cpuinfo, none of the Pi's device files."""
    (root / "proc").mkdir(parents=True)
    (root / "proc/cpuinfo").write_text("processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Core(TM) i5\n")
    (root / "etc").mkdir()
    (root / "etc/group").write_text("root:x:0:\n")
    (root / "dev").mkdir()
    return root


def test_on_a_laptop_the_doctor_says_it_is_not_a_pi_what_it_checked_and_points_to_fake(tmp_path):
    """Issue 26 (6): `hwtest --doctor` on a laptop ended in a traceback (BackendUnavailableError)."""
    root = emulated_laptop(tmp_path / "laptop")
    code, out = doctor("--root", str(root), importer=lambda modules: [(m, "ModuleNotFoundError: No module named 'RPi'")
                                                                     for m in modules])
    assert code == 1
    tail = out[out.index("Line tests not run"):]
    assert "not a Raspberry Pi" in tail
    for checked in ("/proc/device-tree/model: missing", "/proc/cpuinfo: names no Raspberry Pi",
                    "RPi.GPIO: cannot import (ModuleNotFoundError: No module named 'RPi')",
                    "/dev/gpiomem, /dev/gpiochip0, /dev/spidev0.0: missing"):
        assert checked in tail, tail
    assert "echiquier hwtest --doctor --fake" in tail
    # A laptop gets no Pi's fixes (groups, SPI, Raspberry Pi OS), and hears it is no Pi once.
    assert "sudo" not in out and "raspi-config" not in out and out.count("not a Raspberry Pi") == 1, out


def test_the_doctor_on_this_machine_ends_without_a_traceback(tmp_path):
    """The command itself, as typed on a laptop (the machine the tests run on, if it is no Pi)."""
    import subprocess
    import sys
    from pathlib import Path

    from board_driver.pi_platform import detect
    if detect().is_pi:
        pytest.skip("a Raspberry Pi: the doctor runs its line tests here")
    env = {"PATH": "/usr/bin:/bin", "ECHIQUIER_LOCK_DIR": str(tmp_path / "run")}
    done = subprocess.run([str(Path(sys.executable).with_name("echiquier")), "hwtest", "--doctor"],
                          capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and done.stderr == ""
    assert "not a Raspberry Pi" in done.stdout and "echiquier hwtest --doctor --fake" in done.stdout


def test_on_a_pi_without_its_gpio_library_the_line_tests_are_not_run_and_the_fix_is_named(tmp_path):
    root = emulated_pi(tmp_path / "pi")      # a Pi 4 by its files; RPi.GPIO cannot drive it from here
    code, out = doctor("--root", str(root))
    assert code == 1
    assert "Line tests not run: RPi.GPIO" in out and "Raspberry Pi 4 Model B Rev 1.5" in out


# -- the buttons ---------------------------------------------------------------------------------
BUTTONS_TOML = REFERENCE_TOML + "\n[buttons]\nspeak = 18\ndescribe = 3\nresign_white = 14\n"


def test_each_button_reads_released_and_a_stuck_one_is_named_with_its_fix(tmp_path):
    path = tmp_path / "buttons.toml"
    path.write_text(BUTTONS_TOML)
    code, out = doctor("--fake", "--pinmap", str(path))
    assert code == 0, out
    assert "Buttons (press none)\n  ok    buttons: speak (GPIO 18), describe (GPIO 3), resign_white (GPIO 14) read released" in out
    code, out = doctor("--fake", "--pinmap", str(path), "--fake-fault", "stuck-button:describe")
    assert code == 1
    assert failures(out) == ["describe button: GPIO 3 reads pressed with nobody pressing it: the button is stuck, "
                             "or its wire touches ground"]
    assert "fix: free the button (a jammed key), or look for a bridge to ground on GPIO 3's wire" in out
    assert "ok    buttons: speak (GPIO 18), resign_white (GPIO 14) read released" in out


def test_a_stuck_button_the_pin_map_does_not_name_is_one_line(tmp_path, capsys):
    from firmware.cli import main
    path = tmp_path / "buttons.toml"
    path.write_text(BUTTONS_TOML)
    assert main(["hwtest", "--doctor", "--fake", "--pinmap", str(path), "--fake-fault", "stuck-button:hint"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("echiquier hwtest: --fake-fault 'stuck-button:hint'") and len(err.splitlines()) == 1
    assert "NAME a button of the pin map: speak, describe, resign_white" in err


def test_a_button_on_a_pin_the_kernel_owns_is_named(tmp_path):
    path = tmp_path / "buttons.toml"
    path.write_text(BUTTONS_TOML)
    root = emulated_pi(tmp_path / "pi", config_txt="dtparam=spi=on\ncore_freq=500\ncore_freq_min=500\nenable_uart=1\n")
    code, out = doctor("--fake", "--root", str(root), "--pinmap", str(path))
    assert code == 1
    assert failures(out) == ["GPIO 14: the pin map's resign_white button is taken by the serial console UART "
                             "(enable_uart=1)"], out


def test_the_buttons_of_a_coprocessor_board_are_read_on_the_pi(tmp_path):
    from tests.board_driver.test_serial_ports import device_on, emulated_usb
    from tests.fakes.fake_serial import FakeLine
    path = tmp_path / "buttons.toml"
    path.write_text(BUTTONS_TOML)
    root = emulated_pi(tmp_path / "pi")
    emulated_usb(root)
    line = FakeLine()
    line.on_host_bytes = device_on(line)
    ticks = iter(range(1_000_000))
    gpio = wired(loads_pinmap(REFERENCE_TOML))
    gpio.press_button(18)
    code, out = doctor("--serial", "auto", "--root", str(root), "--pinmap", str(path), serial_factory=line.factory,
                       clock=lambda: next(ticks) * 0.01, gpio=gpio)
    assert "ok    /dev/gpiomem: read/write (the buttons (RPi.GPIO))" in out
    assert [f for f in failures(out) if "button" in f] == [
        "speak button: GPIO 18 reads pressed with nobody pressing it: the button is stuck, or its wire touches ground"]


# -- the audio ([voice]) -------------------------------------------------------------------------
CARDS = (" 0 [Headphones     ]: bcm2835_headphonbcm2835 Headphones - bcm2835 Headphones\n"
         "                      bcm2835 Headphones\n"
         " 1 [Device         ]: USB-Audio - USB Audio Device\n"
         "                      GeneralPlus USB Audio Device at usb-0000:01:00.0-1.3, full speed\n")
APLAY = ["null", "default", "sysdefault:CARD=Headphones", "plughw:CARD=Headphones,DEV=0", "plughw:CARD=Device,DEV=0"]


def voice_config(tmp_path, **voice) -> str:
    lines = ["[voice]", "enabled = true"] + [f'{k} = "{v}"' if isinstance(v, str) else f"{k} = {v}"
                                             for k, v in voice.items()]
    path = tmp_path / "config.toml"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def speaking_pi(tmp_path, cards: str | None = CARDS, groups=("gpio", "spi", "dialout", "audio"), unit=None):
    root = emulated_pi(tmp_path / "pi", groups=groups, unit=unit)
    if cards is not None:
        (root / "proc/asound").mkdir()
        (root / "proc/asound/cards").write_text(cards)
    return root


def sections(out: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    title = ""
    for line in out.splitlines():
        if line and not line.startswith(" "):
            title = line
            found.setdefault(title, [])
        elif line.startswith("  ") and not line.startswith("        "):
            found.setdefault(title, []).append(line.strip())
    return found


def test_the_voice_off_is_one_line_of_the_audio_section(tmp_path):
    code, out = doctor("--fake", "--root", str(emulated_pi(tmp_path / "pi")), "--config", str(tmp_path / "none.toml"))
    assert code == 1 and failures(out) == [f"configuration: {tmp_path / 'none.toml'}: no such configuration file"]
    code, out = doctor("--fake", "--root", str(emulated_pi(tmp_path / "pi2")))
    assert code == 0
    assert sections(out)["Audio ([voice])"] == ["skip  voice: [voice] enabled = false: the board does not speak"]


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="needs espeak-ng (scripts/install-system-deps.sh)")
def test_a_pi_that_speaks_passes_the_audio_checks_with_a_real_test_phrase(tmp_path):
    root = speaking_pi(tmp_path)
    code, out = doctor("--fake", "--root", str(root), "--config",
                       voice_config(tmp_path, language="page", device="plughw:CARD=Device,DEV=0"),
                       aplay=lambda: APLAY)
    assert code == 0, out
    audio = sections(out)["Audio ([voice])"]
    assert audio[0] == f"ok    espeak-ng: {shutil.which('espeak-ng')}"
    assert audio[1:5] == ["ok    audio output: sound cards: 0 Headphones (bcm2835_headphonbcm2835 Headphones - bcm2835 "
                          "Headphones), 1 Device (USB-Audio - USB Audio Device)",
                          "ok    [voice] device: plughw:CARD=Device,DEV=0 is an output of this machine",
                          "ok    audio group: user echiquier is in audio",
                          "ok    /dev/snd: etc/systemd/system/echiquier.service allows the sound card"]
    # every language of the words, the page's voice may ask any (German by espeak-ng's de too)
    assert re.fullmatch(r"ok    test phrase: spoken to a WAV file: en \d\.\d s, de \d\.\d s, fr \d\.\d s", audio[5]), audio[5]


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="needs espeak-ng (scripts/install-system-deps.sh)")
def test_a_voice_espeak_ng_does_not_have_is_a_failed_test_phrase(tmp_path):
    code, out = doctor("--fake", "--root", str(speaking_pi(tmp_path)), "--config",
                       voice_config(tmp_path, language="fr", voice="nosuchvoice"), aplay=lambda: APLAY)
    assert code == 1
    assert failures(out) == [f"test phrase: {shutil.which('espeak-ng')} wrote no sound for 'Blancs : 5 minutes, "
                             "Noirs : 5 minutes' (exit 1: Error: The specified espeak-ng voice does not exist.)"]
    assert "fix: [voice] voice must be one of espeak-ng --voices" in out and "-v nosuchvoice" in out


def test_no_espeak_no_sound_card_and_a_service_that_cannot_reach_one_are_each_named(tmp_path):
    old_unit = (Path(ROOT_MAP_PATH).parents[1] / "systemd/echiquier.service").read_text().replace(
        "DeviceAllow=char-alsa rw\n", "")
    root = speaking_pi(tmp_path, cards="--- no soundcards ---\n", groups=("gpio", "spi", "dialout"), unit=old_unit)
    code, out = doctor("--fake", "--root", str(root), "--config", voice_config(tmp_path, language="fr"),
                       which=lambda name: None, aplay=lambda: None)
    assert code == 1
    assert failures(out) == [
        "espeak-ng: not installed: the board cannot speak",
        "audio output: no sound card (/proc/asound/cards lists none): the board cannot speak",
        "audio group: user echiquier is not in audio: the service cannot open the sound card",
        "/dev/snd: /etc/systemd/system/echiquier.service does not allow it (the sound card): the service cannot speak"]
    for fix in ("fix: sudo apt install espeak-ng", "fix: the Pi's jack: dtparam=audio=on in /boot/firmware/config.txt",
                "fix: sudo usermod -aG audio echiquier", "fix: sudo systemd/install.sh (installs the current unit), "
                "or add DeviceAllow=char-alsa rw"):
        assert fix in out


def test_a_sound_server_without_a_card_and_a_device_that_is_no_output_are_warnings(tmp_path):
    root = speaking_pi(tmp_path, cards="--- no soundcards ---\n")
    code, out = doctor("--fake", "--root", str(root), "--config", voice_config(tmp_path, language="en"),
                       aplay=lambda: ["default", "pipewire"], which=lambda name: None)
    assert ("warn  audio output: no ALSA sound card, only a sound server (aplay -L: pipewire): the service runs as its "
            "own user, outside any desktop session, and reaches ALSA cards only") in out
    root = speaking_pi(tmp_path / "two")
    code, out = doctor("--fake", "--root", str(root), "--config", voice_config(tmp_path, language="en", device="hw:3,0"),
                       aplay=lambda: APLAY, which=lambda name: None)
    assert "warn  [voice] device: 'hw:3,0' names no sound card here (aplay -L lists null, default," in out
    assert "ok    [voice] device" not in out


def test_wav_files_need_no_sound_card(tmp_path):
    root = speaking_pi(tmp_path, cards=None)
    code, out = doctor("--fake", "--root", str(root), "--config",
                       voice_config(tmp_path, language="en", wav_dir=str(tmp_path / "wav")), which=lambda name: None)
    assert f"ok    audio output: [voice] wav_dir = {tmp_path / 'wav'}: the voice writes WAV files, no sound card needed" in out
    assert "audio group" not in out


def test_on_a_laptop_the_audio_is_checked_before_it_hears_it_is_no_pi(tmp_path):
    """The voice speaks on a laptop too (echiquier sim --voice): the doctor checks its audio there."""
    root = emulated_laptop(tmp_path / "laptop")
    code, out = doctor("--root", str(root), "--config", voice_config(tmp_path, language="en"),
                       which=lambda name: None, aplay=lambda: None,
                       importer=lambda modules: [(m, "ModuleNotFoundError: No module named 'RPi'") for m in modules])
    assert code == 1
    assert out.index("Audio ([voice])") < out.index("Line tests not run: this machine is not a Raspberry Pi")
    assert failures(out) == ["espeak-ng: not installed: the board cannot speak",
                             "audio output: no sound card (/proc/asound/cards lists none): the board cannot speak"]
    assert ("skip  sound for the service: no echiquier service installed here: the voice speaks as the user who runs "
            "echiquier") in out
