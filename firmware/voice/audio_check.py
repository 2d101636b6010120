"""The doctor's audio checks (`echiquier hwtest --doctor`): espeak-ng installed, an output device the service reaches, a test phrase spoken to a WAV file.

Each check reads the machine under ``root`` (``/``; an emulated one in tests) and returns a
:class:`~board_driver.doctor.Check` with its fix, in the doctor's style. ``which`` finds a
program; ``aplay`` returns the output devices ``aplay -L`` lists (None without aplay); ``run``
runs espeak-ng (subprocess.run).
"""
from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import tempfile
import wave
from collections.abc import Callable
from pathlib import Path
from typing import Any

from board_driver.doctor import FAIL, OK, SKIP, WARN, Check, groups_of, installed_unit, unit_blocks
import firmware.words as words
from firmware.config import VoiceConfig
from firmware.voice import phrases
from firmware.voice.announcer import Utterance
from firmware.voice.speaker import PROGRAM, SpeechSettings, command

SPEAK_TIMEOUT_S = 20.0
SOUND_GROUP = "audio"        # owns /dev/snd/* on Raspberry Pi OS and Debian
SOUND_DEVICE = "dev/snd"     # ALSA's device nodes; systemd's class for them is char-alsa
SOUND_FIX = ("the Pi's jack: dtparam=audio=on in /boot/firmware/config.txt, then reboot; a USB speaker: plug it "
             "in; an I2S DAC: its dtoverlay in config.txt (e.g. hifiberry-dac), then reboot")
_CARD = re.compile(r"^\s*(\d+)\s+\[(\S+)\s*\]:\s*(.*?)\s*$")


def sound_cards(root: Path) -> list[tuple[int, str, str]] | None:
    """ALSA's cards as /proc/asound/cards lists them: (index, id, description); None if unreadable."""
    try:
        text = (root / "proc/asound/cards").read_text()
    except OSError:
        return None
    cards = []
    for line in text.splitlines():
        found = _CARD.match(line)
        if found:
            cards.append((int(found.group(1)), found.group(2), found.group(3)))
    return cards


def aplay_outputs(which: Callable[[str], str | None] = shutil.which) -> list[str] | None:
    """The output devices ``aplay -L`` names (its unindented lines); None without aplay."""
    program = which("aplay")
    if program is None:
        return None
    try:
        done = subprocess.run([program, "-L"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return [line.strip() for line in done.stdout.splitlines() if line.strip() and not line[0].isspace()]


def _device_known(device: str, cards: list[tuple[int, str, str]], outputs: list[str]) -> bool:
    """Whether ``[voice] device`` names an output aplay lists or a card /proc/asound/cards has."""
    if device in outputs:
        return True
    by_id = re.search(r"CARD=([^,]+)", device)
    if by_id:
        return any(card_id == by_id.group(1) for _, card_id, _ in cards)
    by_number = re.match(r"^(?:plug)?hw:(\w+)", device)
    if by_number:
        card = by_number.group(1)
        return any(str(index) == card or card_id == card for index, card_id, _ in cards)
    return False


def check_output(voice: VoiceConfig, root: Path, outputs: list[str] | None) -> list[Check]:
    """A sound card (or, for a test run, ``wav_dir``), and the configured device among the outputs."""
    if voice.wav_dir:
        return [Check(OK, "audio output", f"[voice] wav_dir = {voice.wav_dir}: the voice writes WAV files, "
                      "no sound card needed")]
    cards = sound_cards(root) or []
    servers = [name for name in outputs or [] if name in ("pipewire", "pulse")]
    if not cards:
        listed = f" (aplay -L: {', '.join(servers)})" if servers else ""
        if servers:
            return [Check(WARN, "audio output", f"no ALSA sound card, only a sound server{listed}: the service runs "
                          "as its own user, outside any desktop session, and reaches ALSA cards only", SOUND_FIX)]
        return [Check(FAIL, "audio output", "no sound card (/proc/asound/cards lists none): the board cannot speak",
                      SOUND_FIX)]
    checks = [Check(OK, "audio output", "sound card" + ("s" if len(cards) > 1 else "") + ": "
                    + ", ".join(f"{index} {card_id} ({description})" for index, card_id, description in cards))]
    if voice.device:
        if _device_known(voice.device, cards, outputs or []):
            checks.append(Check(OK, "[voice] device", f"{voice.device} is an output of this machine"))
        else:
            seen = f"aplay -L lists {', '.join(outputs[:6])}" if outputs else "no aplay to list the outputs"
            checks.append(Check(WARN, "[voice] device", f"{voice.device!r} names no sound card here ({seen})",
                                "set [voice] device to one of aplay -L's names (e.g. \"plughw:CARD=Headphones,DEV=0\"), "
                                "or \"\" for the default card"))
    return checks


def check_service_access(root: Path, user: str) -> list[Check]:
    """The service's user in the ``audio`` group and its unit allowing /dev/snd (checked only
    where the service is installed: elsewhere the voice speaks as whoever runs it)."""
    unit = installed_unit(root)
    if unit is None:
        return [Check(SKIP, "sound for the service", "no echiquier service installed here: "
                      "the voice speaks as the user who runs echiquier")]
    checks = []
    groups = groups_of(root, user)
    if groups is None:
        checks.append(Check(SKIP, "audio group", "cannot read /etc/group"))
    elif SOUND_GROUP not in groups:
        checks.append(Check(FAIL, "audio group", f"user {user} is not in {SOUND_GROUP}: the service cannot open the "
                            "sound card", f"sudo usermod -aG {SOUND_GROUP} {user} (or sudo systemd/install.sh)"))
    else:
        checks.append(Check(OK, "audio group", f"user {user} is in {SOUND_GROUP}"))
    blocked = unit_blocks(root, SOUND_DEVICE + "/pcmC0D0p", "alsa")
    if blocked is not None:
        checks.append(Check(FAIL, "/dev/snd", f"{blocked} does not allow it (the sound card): the service cannot "
                            "speak", "sudo systemd/install.sh (installs the current unit), or add DeviceAllow=char-alsa rw "
                            "with systemctl edit echiquier"))
    else:
        checks.append(Check(OK, "/dev/snd", f"{unit.relative_to(root)} allows the sound card"))
    return checks


def _seconds_of_sound(wav: Path) -> float:
    """The length of the sound in ``wav`` (0 when it holds none or is no WAV file)."""
    try:
        with wave.open(str(wav), "rb") as sound:
            return sound.getnframes() / float(sound.getframerate() or 1)
    except (OSError, EOFError, wave.Error):
        return 0.0


def check_test_phrase(voice: VoiceConfig, program: str, run: Callable[..., Any] = subprocess.run) -> Check:
    """A short phrase in each language the voice may speak, written by espeak-ng to a WAV file
    with the voice's own settings: each file holds sound."""
    langs = words.LANGS if voice.language == "page" else (voice.language,)
    settings = SpeechSettings(voice=voice.voice, rate=voice.rate, volume=voice.volume, program=program)
    lengths = []
    with tempfile.TemporaryDirectory(prefix="echiquier-voice-") as directory:
        for lang in langs:
            wav = Path(directory) / f"{lang}.wav"
            text = phrases.clocks_words((300_000, 300_000), lang)
            utterance = Utterance(text, lang, ("clock",))
            argv = command(settings, utterance, wav)
            by_hand = shlex.join(command(settings, utterance, Path("/tmp/test.wav")))
            try:
                done = run(argv, capture_output=True, text=True, timeout=SPEAK_TIMEOUT_S)
            except (OSError, subprocess.TimeoutExpired) as exc:
                return Check(FAIL, "test phrase", f"{program} did not finish ({exc})",
                             f"run {by_hand} and read what it says")
            seconds = _seconds_of_sound(wav)
            if done.returncode != 0 or seconds <= 0:
                said = (done.stderr or done.stdout or "").strip().splitlines()
                why = f": {said[-1]}" if said else ""
                return Check(FAIL, "test phrase", f"{program} wrote no sound for {text!r} (exit {done.returncode}{why})",
                             "[voice] voice must be one of espeak-ng --voices (\"\" for the language's own); "
                             f"run {by_hand} to see why")
            lengths.append(f"{lang} {seconds:.1f} s")
    return Check(OK, "test phrase", "spoken to a WAV file: " + ", ".join(lengths))


def audio_checks(voice: VoiceConfig, *, root: Path = Path("/"), user: str = "echiquier",
                 which: Callable[[str], str | None] = shutil.which,
                 aplay: Callable[[], list[str] | None] | None = None,
                 run: Callable[..., Any] = subprocess.run) -> list[Check]:
    """Every audio check for ``[voice]``: one skip line when the voice is off."""
    if not voice.enabled:
        return [Check(SKIP, "voice", "[voice] enabled = false: the board does not speak")]
    checks = []
    program = which(PROGRAM)
    if program is None:
        checks.append(Check(FAIL, PROGRAM, "not installed: the board cannot speak", "sudo apt install espeak-ng"))
    else:
        checks.append(Check(OK, PROGRAM, program))
    checks += check_output(voice, root, (aplay or (lambda: aplay_outputs(which)))())
    if not voice.wav_dir:
        checks += check_service_access(root, user)
    if program is not None:
        checks.append(check_test_phrase(voice, program, run))
    return checks


__all__ = ["audio_checks", "aplay_outputs", "check_output", "check_service_access", "check_test_phrase", "sound_cards"]
