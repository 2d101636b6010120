"""The configuration file: defaults, the documented example, and errors that name the key."""
from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path

import pytest

from firmware.config import (Config, ConfigError, load_config, loads_config, parse_colour,
                             with_overrides)

EXAMPLE = Path(__file__).resolve().parents[2] / "hardware" / "config.example.toml"


def _keys(obj, prefix=""):
    out = set()
    for f in dataclasses.fields(obj):
        if f.metadata.get("internal"):
            continue
        value = getattr(obj, f.name)
        if dataclasses.is_dataclass(value):
            out |= _keys(value, f"{prefix}{f.name}.")
        else:
            out.add(prefix + f.name)
    return out


def _toml_keys(table, prefix=""):
    out = set()
    for name, value in table.items():
        if isinstance(value, dict):
            out |= _toml_keys(value, f"{prefix}{name}.")
        else:
            out.add(prefix + name)
    return out


def test_the_example_documents_every_key_with_its_default():
    data = tomllib.loads(EXAMPLE.read_text(encoding="utf-8"))
    assert _toml_keys(data) == _keys(Config())
    assert load_config(EXAMPLE) == loads_config("")


def test_every_key_of_the_example_has_a_comment():
    # A key is documented by an inline comment or by a comment above it in the same paragraph
    # (white/black, host/port share one).
    documented = False
    for line in EXAMPLE.read_text(encoding="utf-8").splitlines():
        text = line.strip()
        if not text or text.startswith("["):
            documented = False
        elif text.startswith("#"):
            documented = True
        else:
            assert documented or "#" in text, f"undocumented key: {text}"


def test_missing_default_file_gives_the_defaults(monkeypatch, tmp_path):
    monkeypatch.setattr("firmware.config.DEFAULT_PATH", tmp_path / "absent.toml")
    config = load_config()
    assert config.board.sensors == "gpio"
    assert config.leds.sink == "neopixel"
    assert config.game.alternate_colours and config.game.show_legal_squares
    assert not config.game.touch_move
    assert config.storage.dir == "/var/lib/echiquier"
    assert config.lichess.base_url == "https://lichess.org"
    assert config.engine.path == "/usr/games/stockfish"


def test_an_explicit_file_must_exist(tmp_path):
    with pytest.raises(ConfigError, match="absent.toml"):
        load_config(tmp_path / "absent.toml")


def test_simulated_sensors_default_to_the_simulated_led_sink():
    assert loads_config('[board]\nsensors = "sim"').leds.sink == "sim"
    assert loads_config('[board]\nsensors = "sim"').web.host == "127.0.0.1"
    assert loads_config('[board]\nsensors = "replay"\ncapture = "x.cap"').leds.sink == "sim"
    assert loads_config('[board]\nsensors = "replay"\ncapture = "x.cap"').web.host == "127.0.0.1"
    assert loads_config('[board]\nsensors = "gpio"').web.host == "0.0.0.0"
    assert loads_config('[board]\nsensors = "serial"').leds.sink == "neopixel"
    assert loads_config('[board]\nsensors = "sim"\n[leds]\nsink = "none"').leds.sink == "none"


def test_unknown_key_names_the_key_and_the_file(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('[game]\ntime_contol = "300+3"\n')
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(path) in str(info.value) and "game.time_contol" in str(info.value)
    assert "unknown key" in str(info.value)


def test_unknown_table_is_refused():
    with pytest.raises(ConfigError, match="clock: unknown key"):
        loads_config("[clock]\nx = 1")


@pytest.mark.parametrize("text, key", [
    ('[game]\ntouch_move = "yes"', "game.touch_move: expected true or false"),
    ('[board]\nsettle_ms = 1.5', "board.settle_ms: expected an integer"),
    ('[board]\nsettle_ms = true', "board.settle_ms: expected an integer"),
    ('[web]\nport = "80"', "web.port: expected an integer"),
    ('[game]\nwhite = 3', "game.white: expected a string"),
    ('game = 3', "game: expected a table"),
    ('[leds.colours]\nlegal = "green"', "leds.colours.legal: expected a colour"),
    ('[leds.colours]\nlegal = "#12345g"', "leds.colours.legal"),
    ('[game]\nrules = "blitz"', "game.rules: expected one of 'fide', 'casual'"),
    ('[game]\ntime_control = "5 min"', "game.time_control: not a time control"),
    ('[game]\nfen = "8/8/8"', "game.fen: not a FEN"),
    ('[board]\nsensors = "usb"', "board.sensors"),
    ('[board]\nsensors = "replay"', "board.capture"),
    ('[leds]\nbrightness = 2', "leds.brightness: expected a number from 0 to 1"),
    ('[engine]\nlevel = 30', "engine.level"),
    ('[game]\nopponent = "stockfish"', "game.opponent: expected one of 'none', 'engine', 'lichess'"),
    ('[game]\nopponent = true', "game.opponent: expected a string"),
    ('[engine]\nside = "both"', "engine.side: expected one of 'white', 'black', 'alternate'"),
    ('[engine]\nelo = 100', "engine.elo: expected 0 (full strength) or an Elo from 500 to 4000"),
    ('[engine]\nelo = "1500"', "engine.elo: expected an integer"),
    ('[game\n', "not valid TOML"),
])
def test_bad_values_name_the_key(text, key):
    with pytest.raises(ConfigError) as info:
        loads_config(text, "my.toml")
    assert str(info.value).startswith("my.toml: ")
    assert key in str(info.value)


def test_an_integer_is_accepted_where_a_number_is_expected():
    config = loads_config('[board]\nspeed = 10\n[engine]\nmove_time = 2')
    assert config.board.speed == 10.0 and isinstance(config.board.speed, float)
    assert config.engine.move_time == 2.0


def test_relative_paths_are_relative_to_the_file(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('[board]\nsensors = "replay"\ncapture = "game.cap"\n[storage]\ndir = "state"\n')
    config = load_config(path)
    assert config.board.capture == str(tmp_path / "game.cap")
    assert config.storage.dir == str(tmp_path / "state")
    assert config.state_dir == tmp_path / "state"


def test_colours():
    assert parse_colour("#00ff80") == 0x00FF80
    assert Config().leds.colours.rgb("check") == 0xFF0000
    with pytest.raises(ValueError):
        parse_colour("00ff80")


def test_overrides_are_checked_like_the_file():
    config = loads_config("")
    changed = with_overrides(config, game={"time_control": "300+3", "white": "Ada"})
    assert changed.game.time_control == "300+3" and changed.game.white == "Ada"
    assert changed.game.rules == "fide" and changed.board == config.board
    with pytest.raises(ConfigError, match="game.time_control"):
        with_overrides(config, game={"time_control": "soon"})
    with pytest.raises(ConfigError, match="game.colour"):
        with_overrides(config, game={"colour": "white"})


def test_the_opponent_is_none_by_default_and_one_of_three():
    assert loads_config("").game.opponent == "none"
    for kind in ("none", "engine", "lichess"):
        assert loads_config(f'[game]\nopponent = "{kind}"').game.opponent == kind
    assert loads_config('[game]\nopponent = "local"').game.opponent == "none"   # the older spelling
    assert with_overrides(loads_config(""), game={"opponent": "local"}).game.opponent == "none"


def test_the_engine_elo_is_off_by_default_and_checked():
    assert loads_config("").engine.elo == 0
    assert loads_config("[engine]\nelo = 1500").engine.elo == 1500
    with pytest.raises(ConfigError, match="engine.elo"):
        with_overrides(loads_config(""), engine={"elo": 5000})


def test_the_lichess_token_is_kept_in_the_storage_dir_unless_a_file_is_named(tmp_path):
    config = loads_config(f'[storage]\ndir = "{tmp_path}"')
    assert config.lichess.token_file == "" and config.lichess_token_path == tmp_path / "lichess.token"
    path = tmp_path / "config.toml"
    path.write_text('[lichess]\ntoken_file = "secret/token"\n')
    assert load_config(path).lichess_token_path == tmp_path / "secret" / "token"


def test_the_pages_language_is_the_browsers_unless_one_the_board_has_is_named():
    """Issue 34: ``[web] language`` is a language of firmware.words (the page's) or "", the browser's."""
    from firmware.words import LANGS
    assert loads_config("").web.language == ""
    for lang in LANGS:
        assert loads_config(f'[web]\nlanguage = "{lang}"').web.language == lang
    for wrong in ("es", "FR", "fr-FR", "french"):
        with pytest.raises(ConfigError) as info:
            loads_config(f'[web]\nlanguage = "{wrong}"', "my.toml")
        assert str(info.value) == (f"my.toml: web.language: expected one of the page's languages "
                                   f"({', '.join(map(repr, LANGS))}) or \"\" (the browser's), got {wrong!r}")
    with pytest.raises(ConfigError, match="web.language: expected a string"):
        loads_config("[web]\nlanguage = 1")


# -- Chess960 (issue 15) ------------------------------------------------------------------------

def test_the_variant_and_the_960_start_position():
    import random as _random
    from firmware.config import loads_config
    config = loads_config('[game]\nvariant = "chess960"\nstart_position = 323\n')
    assert config.game.chess960 and config.game.start_fen() == "bnrqkrnb/pppppppp/8/8/8/8/PPPPPPPP/BNRQKRNB w KQkq - 0 1"
    drawn = {loads_config('[game]\nvariant = "chess960"\n').game.start_fen(_random.Random(seed)) for seed in range(20)}
    assert len(drawn) > 10
    assert loads_config("").game.start_fen() is None and not loads_config("").game.chess960
    fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"
    assert loads_config(f'[game]\nvariant = "chess960"\nfen = "{fen}"\n').game.start_fen() == fen


@pytest.mark.parametrize("text, words", [
    ('[game]\nvariant = "crazyhouse"\n', "game.variant: expected one of 'standard', 'chess960'"),
    ('[game]\nvariant = "chess960"\nstart_position = 960\n', "game.start_position: expected -1"),
    ('[game]\nfen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"\n',
     'game.fen: not a FEN: castling letter \'F\' in \'HFhf\' names a rook off the corner: Chess960 castling '
     '(set variant = "chess960")'),
])
def test_bad_variant_settings_are_named(text, words):
    from firmware.config import loads_config
    with pytest.raises(ConfigError) as info:
        loads_config(text)
    assert words in str(info.value)


def test_a_fen_that_no_variant_reads_gets_no_variant_advice():
    from firmware.config import loads_config
    fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq e6 2 9"   # Chess960, no pawn past e6
    with pytest.raises(ConfigError) as info:
        loads_config(f'[game]\nfen = "{fen}"\n')
    assert "game.fen: not a FEN" in str(info.value) and "chess960" not in str(info.value)
