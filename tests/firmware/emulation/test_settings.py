"""The emulation's settings ([emulation]) and `echiquier sim --emulate`'s options: clear refusals, never a traceback."""
from __future__ import annotations

import pytest

from firmware.cli import main
from firmware.config import ConfigError, loads_config


def test_no_emulation_by_default():
    config = loads_config("")
    assert config.emulation.protocol == "" and config.emulation.transport == "pty"


def test_the_settings_are_read_and_checked():
    config = loads_config('[emulation]\nprotocol = "dgt"\nlink = "/run/echiquier/board"\napp = "PicoChess"\n')
    assert (config.emulation.protocol, config.emulation.link, config.emulation.app) == (
        "dgt", "/run/echiquier/board", "PicoChess")
    with pytest.raises(ConfigError, match="emulation.protocol: expected one of '', 'chesslink', 'dgt', 'chessnut', 'pegasus'"):
        loads_config('[emulation]\nprotocol = "novag"\n')
    with pytest.raises(ConfigError, match="emulation.colour"):
        loads_config('[emulation]\ncolour = "cyan"\n')
    with pytest.raises(ConfigError, match="emulation.app"):
        loads_config('[emulation]\napp = "a\\u0007b"\n')


@pytest.mark.parametrize("argv, message", [
    (["--emulate", "chesslink"], "--emulate needs --link PATH"),
    (["--link", "/tmp/x"], "--link and --app go with --emulate"),
    (["--app", "PicoChess"], "--link and --app go with --emulate"),
])
def test_sim_refuses_half_an_emulation(argv, message, capsys, tmp_path):
    assert main(["sim", "--state-dir", str(tmp_path), *argv]) == 2
    assert message in capsys.readouterr().err


def test_sim_names_the_protocols_it_can_speak(capsys, tmp_path):
    with pytest.raises(SystemExit):
        main(["sim", "--state-dir", str(tmp_path), "--emulate", "novag", "--link", "/tmp/x"])
    assert "invalid choice: 'novag' (choose from 'chesslink', 'dgt')" in capsys.readouterr().err


def test_bluetooth_speaks_chesslink_on_a_named_adapter():
    config = loads_config('[emulation]\nprotocol = "chesslink"\ntransport = "ble"\nadapter = "hci1"\n')
    assert (config.emulation.transport, config.emulation.adapter) == ("ble", "hci1")
    with pytest.raises(ConfigError, match='over Bluetooth the board speaks "chesslink", "chessnut" or "pegasus"'):
        loads_config('[emulation]\nprotocol = "dgt"\ntransport = "ble"\n')
    with pytest.raises(ConfigError, match="a Chessnut Air speaks over Bluetooth only"):
        loads_config('[emulation]\nprotocol = "chessnut"\nlink = "/tmp/x"\n')
    assert loads_config('[emulation]\nprotocol = "chessnut"\ntransport = "ble"\n').emulation.protocol == "chessnut"
    with pytest.raises(ConfigError, match="emulation.adapter"):
        loads_config('[emulation]\nadapter = "/org/bluez/hci0"\n')


def test_a_dgt_pegasus_speaks_over_bluetooth_only_under_its_name():
    config = loads_config('[emulation]\nprotocol = "pegasus"\ntransport = "ble"\nname = "DGT_PEGASUS_1234"\n')
    assert (config.emulation.protocol, config.emulation.name) == ("pegasus", "DGT_PEGASUS_1234")
    for transport in ("pty", "serial"):
        with pytest.raises(ConfigError, match="a DGT Pegasus speaks over Bluetooth only"):
            loads_config(f'[emulation]\nprotocol = "pegasus"\ntransport = "{transport}"\nlink = "/tmp/x"\n')
