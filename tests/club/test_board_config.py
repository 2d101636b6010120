"""The board's [club] settings and [game] draw_offers_from_move, checked with the key named."""
from __future__ import annotations

import os

import pytest

from club_wire.topics import Broker, read_credentials
from firmware.config import ConfigError, loads_config


def test_the_club_section_is_checked():
    config = loads_config('[club]\nbroker = "mqtts://hub.local"\nboard = "12"\nclub = "cercle"\n'
                          '[game]\ndraw_offers_from_move = 20\nround = "3"\n')
    assert Broker.parse(config.club.broker) == Broker("hub.local", 8883, True)
    assert config.game.draw_offers_from_move == 20 and config.game.round == "3"
    for text, key in (('[club]\nbroker = "mqtt://h:1883"\n', "club.board"),
                      ('[club]\nbroker = "http://h"\nboard = "1"\n', "club.broker"),
                      ('[club]\nboard = "1/2"\n', "club.board"),
                      ('[game]\ndraw_offers_from_move = -1\n', "game.draw_offers_from_move")):
        with pytest.raises(ConfigError, match=key):
            loads_config(text)


def test_the_credentials_file_must_be_private(tmp_path):
    path = tmp_path / "broker.credentials"
    path.write_text("12:secret\n")
    os.chmod(path, 0o644)
    with pytest.raises(ValueError, match="chmod 600"):
        read_credentials(path)
    os.chmod(path, 0o600)
    assert read_credentials(path) == ("12", "secret")
    path.write_text("no colon")
    with pytest.raises(ValueError, match="user:password"):
        read_credentials(path)
