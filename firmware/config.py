"""The service's configuration: /etc/echiquier/config.toml read into checked dataclasses."""
from __future__ import annotations

import dataclasses
import enum
import os
import re
import tomllib
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, TypeVar

from board_driver.backends import SINKS, SOURCES
from chess_core import RULE_PROFILES, FenError, Position
from chess_core.chess960 import COUNT as CHESS960_COUNT
from chess_core.chess960 import VARIANTS, start_fen
from chess_core.timecontrol import TimeControl, TimeControlError
from firmware.words import LANGS

DEFAULT_PATH = Path("/etc/echiquier/config.toml")
SENSORS = SOURCES
LED_SINKS = SINKS
LED_LAYOUTS = ("", "square", "corners")


class OpponentKind(enum.Enum):
    """What plays the sides not played over the board (``[game] opponent``)."""

    NONE = "none"          # two players over the board
    ENGINE = "engine"      # a UCI engine (Stockfish)
    LICHESS = "lichess"    # the other end of a Lichess game


OPPONENTS = tuple(kind.value for kind in OpponentKind)
OPPONENT_ALIASES = {"local": "none"}         # the older spelling of "none"
ENGINE_SIDES = ("white", "black", "alternate")
SIMULATED = ("replay", "sim")
MIN_ELO, MAX_ELO = 500, 4000   # [engine] elo; the engine clamps it to its own range (Stockfish: 1320..3190)
TOKEN_FILE_NAME = "lichess.token"   # in the storage dir, when [lichess] token_file is empty


def printable_text(value: str, min_length: int = 0, max_length: int = 100) -> str:
    """``value`` if it is text a page, a PGN file and the journal can all hold, else ValueError:
    valid Unicode (no lone surrogate, which UTF-8 cannot encode), printable (no control, format
    or private-use character; a plain space is fine), from ``min_length`` to ``max_length``
    characters.

    >>> printable_text("Anna Müller")
    'Anna Müller'
    >>> printable_text("\\ud83d")
    Traceback (most recent call last):
    ...
    ValueError: not valid Unicode text (a lone surrogate at character 1)
    """
    for index, ch in enumerate(value, start=1):
        if "\ud800" <= ch <= "\udfff":
            raise ValueError(f"not valid Unicode text (a lone surrogate at character {index})")
        if ord(ch) < 32 or ord(ch) == 127:
            raise ValueError("control characters are not allowed")
        if not ch.isprintable() and ch != " ":
            raise ValueError(f"character {index} (U+{ord(ch):04X}) cannot be shown")
    if not min_length <= len(value) <= max_length:
        raise ValueError(f"expected {min_length} to {max_length} characters, got {len(value)}")
    return value


def printable(value: str, max_length: int, what: str) -> str:
    """:func:`printable_text` with the name of what is checked in the message."""
    try:
        return printable_text(value, 0, max_length)
    except ValueError as exc:
        raise ValueError(f"{what}: {exc}") from None


class ConfigError(ValueError):
    """A configuration that cannot be used; the message names the file and the key."""


def parse_colour(text: str) -> int:
    """``"#rrggbb"`` as an int 0xRRGGBB.

    >>> hex(parse_colour("#ff8000"))
    '0xff8000'
    """
    if not isinstance(text, str) or len(text) != 7 or text[0] != "#":
        raise ValueError(f'expected a colour "#rrggbb", got {text!r}')
    try:
        return int(text[1:], 16)
    except ValueError:
        raise ValueError(f'expected a colour "#rrggbb", got {text!r}') from None


_T = TypeVar("_T")


def _choice(*choices: str) -> Callable[[str], None]:
    def check(value: str) -> None:
        if value not in choices:
            raise ValueError(f"expected one of {', '.join(map(repr, choices))}, got {value!r}")
    return check


def _between(low: float, high: float) -> Callable[[float], None]:
    def check(value: float) -> None:
        if not low <= value <= high:
            raise ValueError(f"expected a number from {low:g} to {high:g}, got {value!r}")
    return check


def _time_control(value: str) -> None:
    try:
        TimeControl.parse(value)
    except TimeControlError as exc:
        raise ValueError(f"not a time control: {exc}") from None


def _fen(value: str) -> None:
    if value:
        try:
            Position(value)
        except FenError as exc:
            if not _reads_as_960(value):   # [game] variant says which; checked with it below
                raise ValueError(f"not a FEN: {exc.reason}") from None   # neither reads it: no guess at one


def _reads_as_960(fen: str) -> bool:
    try:
        Position(fen, chess960=True)
    except FenError:
        return False
    return True


def _start_position(value: int) -> None:
    if not -1 <= value < CHESS960_COUNT:
        raise ValueError(f"expected -1 (a random Chess960 start position each game) or 0 to 959, got {value!r}")


def _text(max_length: int) -> Callable[[str], None]:
    def check(value: str) -> None:
        printable_text(value, 0, max_length)
    return check


def _elo(value: int) -> None:
    if value != 0 and not MIN_ELO <= value <= MAX_ELO:
        raise ValueError(f"expected 0 (full strength) or an Elo from {MIN_ELO} to {MAX_ELO}, got {value!r}")


def _colour(value: str) -> None:
    parse_colour(value)


def _check(fn: Callable[[Any], None], default: _T) -> _T:
    """A setting with its default and the check its value must pass (ValueError names what is wrong)."""
    return field(default=default, metadata={"check": fn})


@dataclass(frozen=True)
class BoardConfig:
    sensors: str = _check(_choice(*SENSORS), "gpio")
    pinmap: str = "/etc/echiquier/pinmap.toml"
    port: str = "auto"   # the co-processor's data port by its /dev/serial/by-id name (board_driver.serial_ports)
    capture: str = ""
    speed: float = _check(_between(0, 1e6), 1.0)
    settle_ms: int = _check(_between(0, 5000), 30)


@dataclass(frozen=True)
class GameConfig:
    time_control: str = _check(_time_control, "-")
    rules: str = _check(_choice(*RULE_PROFILES), "fide")
    white: str = _check(_text(60), "White")
    black: str = _check(_text(60), "Black")
    alternate_colours: bool = True
    show_legal_squares: bool = True
    touch_move: bool = False
    takebacks: bool = False
    opponent: str = _check(_choice(*OPPONENTS, *OPPONENT_ALIASES), "none")
    fen: str = _check(_fen, "")
    # "chess960": Chess960 castling; the start position is ``fen`` if given, else number
    # ``start_position`` (0-959; -1: a random one for each new game).
    variant: str = _check(_choice(*VARIANTS), "standard")
    start_position: int = _check(_start_position, -1)
    event: str = _check(_text(100), "Casual game")
    site: str = _check(_text(100), "")
    round: str = _check(_text(100), "-")   # the PGN Round tag (a club hub sets it)
    draw_offers_from_move: int = _check(_between(0, 500), 0)   # 0: from the first move
    # "first_move": the clocks start when White completes the first move (as online servers do);
    # "at_once": the clock of the side to move starts as soon as the pieces stand ready (FIDE 6.5).
    clock_start: str = _check(_choice("first_move", "at_once"), "first_move")

    def __post_init__(self) -> None:
        object.__setattr__(self, "opponent", OPPONENT_ALIASES.get(self.opponent, self.opponent))
        if self.fen:
            try:
                Position(self.fen, chess960=self.chess960)
            except FenError as exc:
                text = exc.reason
                if exc.hint and not self.chess960 and _reads_as_960(self.fen):   # the guess checked
                    text += ' (set variant = "chess960")'
                raise _Problem("game.fen", f"not a FEN: {text}") from None

    @property
    def chess960(self) -> bool:
        return self.variant == "chess960"

    def start_fen(self, rng: Any = None) -> str | None:
        """The FEN a new game starts from: ``fen``; in Chess960 without one, start position number
        ``start_position``, or a random one drawn from ``rng`` (random.Random); None: the usual."""
        if self.fen:
            return self.fen
        if not self.chess960:
            return None
        number = self.start_position
        if number < 0:
            number = rng.randrange(CHESS960_COUNT) if rng is not None else 518
        return start_fen(number)


@dataclass(frozen=True)
class GesturesConfig:
    enabled: bool = True
    resign_s: float = _check(_between(0.5, 60), 3.0)
    draw_s: float = _check(_between(0.5, 60), 2.0)


@dataclass(frozen=True)
class LedColours:
    legal: str = _check(_colour, "#00c000")
    capture: str = _check(_colour, "#ff6000")
    lifted: str = _check(_colour, "#ffffff")
    last_move: str = _check(_colour, "#0030ff")
    check: str = _check(_colour, "#ff0000")
    fix: str = _check(_colour, "#ff00ff")
    opponent: str = _check(_colour, "#00ffff")
    promotion: str = _check(_colour, "#ffff00")
    win: str = _check(_colour, "#00ff00")
    loss: str = _check(_colour, "#ff0000")
    draw: str = _check(_colour, "#ff00ff")
    low_time: str = _check(_colour, "#8000ff")
    hint: str = _check(_colour, "#00c0ff")          # the coach: the engine's move (a hint, the better move)
    good_move: str = _check(_colour, "#00ff00")     # the coach: a move without fault
    inaccuracy: str = _check(_colour, "#ffff00")
    mistake: str = _check(_colour, "#ff6000")
    blunder: str = _check(_colour, "#ff0000")
    setup_from: str = _check(_colour, "#ffffff")   # a position set up by hand: the piece to take,
    setup_to: str = _check(_colour, "#00ff00")     # where it goes,
    from_box: str = _check(_colour, "#0040ff")     # a piece from the box goes here,
    to_box: str = _check(_colour, "#ff4000")       # this piece goes to the box

    def rgb(self, role: str) -> int:
        return parse_colour(getattr(self, role))


@dataclass(frozen=True)
class LedConfig:
    sink: str = _check(_choice("", *LED_SINKS), "")
    brightness: float = _check(_between(0, 1), 0.5)
    layout: str = _check(_choice(*LED_LAYOUTS), "")
    low_time_s: float = _check(_between(0, 3600), 10.0)
    colours: LedColours = field(default_factory=LedColours)


@dataclass(frozen=True)
class StorageConfig:
    dir: str = "/var/lib/echiquier"


_HOST_NAME = re.compile(r"(?=.{1,253}$)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?"
                        r"(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?")


def _host_names(value: tuple[str, ...]) -> None:
    for name in value:
        if not _HOST_NAME.fullmatch(name):
            raise ValueError(f"expected host names (letters, digits, '-' and dots; no port, scheme or wildcard), "
                             f"got {name!r}")


def _page_language(value: str) -> None:
    if value and value not in LANGS:
        raise ValueError(f"expected one of the page's languages ({', '.join(map(repr, LANGS))}) or \"\" "
                         f"(the browser's), got {value!r}")


@dataclass(frozen=True)
class WebConfig:
    enabled: bool = True
    host: str = ""
    port: int = _check(_between(1, 65535), 8080)
    pairing_code: str = ""
    # More names the page answers to (a name in the LAN's DNS, a reverse proxy's): a request
    # addressed to a name the board does not know is a 421 (DNS rebinding).
    hosts: tuple[str, ...] = _check(_host_names, ())
    # The page's language on a device where nobody chose one yet (GET /api/words says it): one of
    # firmware.words.LANGS, or "": the browser's (its first language the board has, else English).
    language: str = _check(_page_language, "")


@dataclass(frozen=True)
class LichessConfig:
    token_file: str = ""   # empty: <storage dir>/lichess.token (see Config.lichess_token_path)
    base_url: str = "https://lichess.org"


@dataclass(frozen=True)
class EngineConfig:
    path: str = "/usr/games/stockfish"
    level: int = _check(_between(0, 20), 8)
    move_time: float = _check(_between(0.01, 3600), 1.0)
    side: str = _check(_choice(*ENGINE_SIDES), "black")
    elo: int = _check(_elo, 0)   # 0: not limited (level alone); else UCI_LimitStrength at this Elo


def _broker(value: str) -> None:
    if value and not re.fullmatch(r"mqtts?://[A-Za-z0-9.\-\[\]:]+(:\d{1,5})?/?", value):
        raise ValueError(f'expected "mqtt://host:port" or "mqtts://host:port", got {value!r}')


def _club_name(value: str) -> None:
    if not re.fullmatch(r"[A-Za-z0-9_-]{1,32}", value):
        raise ValueError(f"expected 1 to 32 letters, digits, '-' or '_' (a topic level), got {value!r}")


def _board_name(value: str) -> None:
    if value:
        _club_name(value)


@dataclass(frozen=True)
class ClubConfig:
    broker: str = _check(_broker, "")          # empty: the board publishes nothing
    board: str = _check(_board_name, "")       # this board's number in the hall ("12")
    club: str = _check(_club_name, "club")     # the topic tree's second level
    credentials_file: str = ""                 # a 0600 file holding "user:password"
    ca_file: str = ""                          # mqtts: the authority to trust (empty: the system's)


def _adapter(value: str) -> None:
    if not re.fullmatch(r"hci[0-9]{1,2}", value):
        raise ValueError(f'expected an adapter\'s name such as "hci0", got {value!r}')


SERIAL_PROTOCOLS = ("chesslink", "dgt")            # spoken over a serial line (a local port, USB)
EMULATED_PROTOCOLS = SERIAL_PROTOCOLS + ("chessnut", "pegasus")   # firmware.emulation: the commercial boards the board can be
EMULATION_TRANSPORTS = ("pty", "serial", "ble")


@dataclass(frozen=True)
class EmulationConfig:
    """The board as a commercial board for the apps that know those (firmware.emulation)."""

    protocol: str = _check(_choice("", *EMULATED_PROTOCOLS), "")   # "": none
    transport: str = _check(_choice(*EMULATION_TRANSPORTS), "pty")
    link: str = ""     # pty: a symlink made to the pseudo-terminal, the port to give the app; serial: the device
    name: str = _check(_text(29), "")   # the name advertised over Bluetooth ("": the real board's)
    adapter: str = _check(_adapter, "hci0")   # ble: the Bluetooth adapter
    app: str = _check(_text(40), "")    # the app's name, as the page and the PGN say it ("": "an app")
    colour: str = _check(_colour, "#00ffff")   # the colour of the squares the app lights


VOICE_LANGUAGES = (*LANGS, "page")   # a language of firmware.words, or the page's
VOICE_MOVES = ("all", "opponent", "none")


@dataclass(frozen=True)
class VoiceConfig:
    """The board's voice (firmware.voice): espeak-ng says the moves, the prompts, the results."""

    enabled: bool = False
    language: str = _check(_choice(*VOICE_LANGUAGES), "page")   # "page": as the page asks (English until then)
    voice: str = _check(_text(40), "")            # espeak-ng's voice ("mb-fr1", "en-gb"); "": the language's
    rate: int = _check(_between(80, 450), 160)    # words a minute
    volume: int = _check(_between(0, 200), 100)   # espeak-ng's amplitude (100: its own)
    device: str = _check(_text(100), "")          # ALSA or PipeWire device ("": the default sound card)
    moves: str = _check(_choice(*VOICE_MOVES), "all")   # which moves are said ("none": prompts and results)
    wav_dir: str = ""                             # one WAV per utterance and index.jsonl here, instead of sound


@dataclass(frozen=True)
class CoachConfig:
    """The coach for beginners (firmware.session.coach): hints on request, each coached move judged."""

    white: bool = False            # White is coached
    black: bool = False            # Black is coached
    hints: bool = True             # a coached side may ask for a hint (false: its moves are judged only)
    movetime_ms: int = _check(_between(10, 60_000), 500)   # the engine's time per position
    depth: int = _check(_between(0, 60), 0)                # a fixed depth instead (0: the time above)
    moment_s: float = _check(_between(0.1, 60), 2.0)       # how long a move's quality stays on the LEDs


@dataclass(frozen=True)
class Config:
    """The whole configuration; ``source`` names the file it came from (for messages)."""

    board: BoardConfig = field(default_factory=BoardConfig)
    game: GameConfig = field(default_factory=GameConfig)
    gestures: GesturesConfig = field(default_factory=GesturesConfig)
    leds: LedConfig = field(default_factory=LedConfig)
    storage: StorageConfig = field(default_factory=StorageConfig)
    web: WebConfig = field(default_factory=WebConfig)
    lichess: LichessConfig = field(default_factory=LichessConfig)
    engine: EngineConfig = field(default_factory=EngineConfig)
    club: ClubConfig = field(default_factory=ClubConfig)
    emulation: EmulationConfig = field(default_factory=EmulationConfig)
    voice: VoiceConfig = field(default_factory=VoiceConfig)
    coach: CoachConfig = field(default_factory=CoachConfig)
    source: str = field(default="<defaults>", compare=False, metadata={"internal": True})

    @property
    def state_dir(self) -> Path:
        return Path(self.storage.dir)

    @property
    def lichess_token_path(self) -> Path:
        """Where the Lichess token is kept: ``[lichess] token_file``, else in the storage dir."""
        return Path(self.lichess.token_file) if self.lichess.token_file else self.state_dir / TOKEN_FILE_NAME


_TYPE_WORDS = {str: "a string", int: "an integer", float: "a number", bool: "true or false",
               tuple[str, ...]: "a list of strings"}


def _strings(value: Any) -> tuple[str, ...] | None:
    """``value`` as a tuple if it is a list (TOML's) or a tuple (a configuration's copy) of strings."""
    if isinstance(value, (list, tuple)) and all(isinstance(item, str) for item in value):
        return tuple(value)
    return None


def _build(cls: type, table: Any, key: str) -> Any:
    """An instance of dataclass ``cls`` from a TOML table; errors are ``(key, problem)``."""
    if not isinstance(table, dict):
        raise _Problem(key, f"expected a table [{key}], got {table!r}")
    hints = typing.get_type_hints(cls)
    known = [f for f in dataclasses.fields(cls) if not f.metadata.get("internal")]
    names = {f.name for f in known}
    for name in table:
        if name not in names:
            where = f"{key}.{name}" if key else name
            raise _Problem(where, f"unknown key (known in [{key or 'top level'}]: {', '.join(sorted(names))})")
    values = {}
    for f in known:
        if f.name not in table:
            continue
        where = f"{key}.{f.name}" if key else f.name
        kind, value = hints[f.name], table[f.name]
        if isinstance(kind, type) and dataclasses.is_dataclass(kind):
            values[f.name] = _build(kind, value, where)
            continue
        if kind == tuple[str, ...]:
            items = _strings(value)
            ok, value = items is not None, value if items is None else items
        else:
            ok = isinstance(value, kind) and not (kind is not bool and isinstance(value, bool))
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value, ok = float(value), True
        if not ok:
            raise _Problem(where, f"expected {_TYPE_WORDS[kind]}, got {value!r}")
        check = f.metadata.get("check")
        if check is not None:
            try:
                check(value)
            except ValueError as exc:
                raise _Problem(where, str(exc)) from None
        values[f.name] = value
    return cls(**values)


class _Problem(Exception):
    def __init__(self, key: str, message: str) -> None:
        super().__init__(key, message)
        self.key, self.message = key, message


def _resolve(config: Config, base: Path | None) -> Config:
    """Fill the defaults that follow the sensors, and make relative paths relative to the file."""
    simulated = config.board.sensors in SIMULATED
    leds = config.leds
    if not leds.sink:
        leds = dataclasses.replace(leds, sink="sim" if simulated else "neopixel")
    web = config.web
    if not web.host:
        web = dataclasses.replace(web, host="127.0.0.1" if simulated else "0.0.0.0")

    def rel(path: str) -> str:
        if not path or base is None or Path(path).is_absolute():
            return path
        return str(base / path)

    board = dataclasses.replace(config.board, pinmap=rel(config.board.pinmap), capture=rel(config.board.capture))
    storage = dataclasses.replace(config.storage, dir=rel(config.storage.dir))
    lichess = dataclasses.replace(config.lichess, token_file=rel(config.lichess.token_file))
    club = dataclasses.replace(config.club, credentials_file=rel(config.club.credentials_file),
                               ca_file=rel(config.club.ca_file))
    return dataclasses.replace(config, board=board, leds=leds, web=web, storage=storage, lichess=lichess, club=club)


def parse_config(data: dict[str, Any], source: str = "<config>", base: Path | None = None) -> Config:
    """A checked :class:`Config` from parsed TOML; ConfigError names ``source`` and the key."""
    try:
        config = _build(Config, data, "")
    except _Problem as exc:
        raise ConfigError(f"{source}: {exc.key}: {exc.message}") from None
    config = dataclasses.replace(config, source=source)
    if config.club.broker and not config.club.board:
        raise ConfigError(f'{source}: club.board: a board publishing to {config.club.broker} needs its number')
    if config.emulation.transport == "ble" and config.emulation.protocol not in ("", "chesslink", "chessnut", "pegasus"):
        raise ConfigError(f'{source}: emulation.transport: over Bluetooth the board speaks "chesslink", '
                          f'"chessnut" or "pegasus" (not yet {config.emulation.protocol!r})')
    if config.emulation.protocol == "chessnut" and config.emulation.transport != "ble":
        raise ConfigError(f'{source}: emulation.transport: a Chessnut Air speaks over Bluetooth only: "ble"')
    if config.emulation.protocol == "pegasus" and config.emulation.transport != "ble":
        raise ConfigError(f'{source}: emulation.transport: a DGT Pegasus speaks over Bluetooth only: "ble"')
    if config.emulation.protocol and config.emulation.transport == "serial" and not config.emulation.link:
        raise ConfigError(f'{source}: emulation.link: transport = "serial" needs the device (e.g. "/dev/ttyGS0")')
    if config.board.sensors == "replay" and not config.board.capture:
        raise ConfigError(f'{source}: board.capture: sensors = "replay" needs a capture file')
    return _resolve(config, base)


def loads_config(text: str, source: str = "<string>") -> Config:
    """A checked :class:`Config` from TOML text."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML: {exc}") from None
    return parse_config(data, source)


def load_config(path: str | Path | None = None) -> Config:
    """Read and check the configuration file (default /etc/echiquier/config.toml).

    Without ``path``, a missing default file gives the defaults; a file named explicitly must
    exist. Relative paths inside the file (pinmap, capture, storage.dir) are relative to it.
    """
    explicit = path is not None
    path = DEFAULT_PATH if path is None else Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if explicit:
            raise ConfigError(f"{path}: no such configuration file") from None
        return _resolve(Config(), None)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the configuration: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        line = text_line(path, exc.start)
        raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start + 1}, line {line}): save it as UTF-8") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    return parse_config(data, str(path), path.resolve().parent)


def text_line(path: Path, offset: int) -> int:
    """The 1-based line of byte ``offset`` in the file ``path``."""
    try:
        with open(path, "rb") as fh:
            return fh.read(offset).count(b"\n") + 1
    except OSError:
        return 0


def check_storage(config: Config) -> Path:
    """The storage directory, created if missing; ConfigError (naming the key) if it cannot be
    used: a file in its place, no permission, a read-only file system."""
    path = config.state_dir
    where = f"{config.source}: storage.dir"
    if path.exists() and not path.is_dir():
        raise ConfigError(f"{where}: {path} is a file, not a directory: name a directory for the games")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise ConfigError(f"{where}: {path} cannot be created: a part of the path is a file") from None
    except OSError as exc:
        raise ConfigError(f"{where}: {path} cannot be created ({exc.strerror or exc})") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise ConfigError(f"{where}: {path} is not writable by this user: the games could not be saved")
    return path


def with_overrides(config: Config, **sections: dict[str, Any]) -> Config:
    """``config`` with some keys replaced, checked as if read from the file (settings changes)."""
    data = {name: dataclasses.asdict(getattr(config, name)) for name in sections}
    for name, changes in sections.items():
        data[name].update(changes)
    try:
        built = {name: _build(type(getattr(config, name)), data[name], name) for name in sections}
    except _Problem as exc:
        raise ConfigError(f"{config.source}: {exc.key}: {exc.message}") from None
    return dataclasses.replace(config, **built)
