"""The Lichess token: a 0600 file written by `echiquier lichess login`, refused when others can read it."""
from __future__ import annotations

import asyncio
import io
import logging
import os
import stat
import sys
import threading

import pytest

from firmware.cli import main
from firmware.opponents.lichess.client import LichessClient, LichessConfig
from firmware.opponents.lichess.token import Token, TokenError, read_token, write_token
from tests.fakes.fake_lichess import FakeLichess

from .conftest import BOARD_TOKEN


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def login(monkeypatch, capsys, *args: str, stdin: str = "") -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(["lichess", "login", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_token_hides_itself_everywhere_but_reveal(caplog):
    token = Token(BOARD_TOKEN)
    logging.getLogger("test").warning("token %s %r %s", token, token, f"{token}")
    assert BOARD_TOKEN not in caplog.text and "<token>" in caplog.text
    assert token.reveal() == BOARD_TOKEN


@pytest.mark.parametrize("text", ["", "   \n", "two words", "x" * 300])
def test_what_is_not_a_token_is_refused(text):
    with pytest.raises(TokenError):
        Token(text)


def test_the_token_is_written_with_mode_0600_whatever_the_umask(tmp_path):
    old = os.umask(0)
    try:
        path = tmp_path / "etc" / "lichess.token"
        write_token(path, Token(BOARD_TOKEN))
        write_token(path, Token("lip_second"))      # replaced atomically
    finally:
        os.umask(old)
    assert mode(path) == 0o600
    assert read_token(path) == Token("lip_second")
    assert [p.name for p in path.parent.iterdir()] == ["lichess.token"], "no temporary file left"


@pytest.mark.parametrize("loose", [0o644, 0o640, 0o604, 0o660])
def test_a_token_file_others_can_read_is_refused_with_the_fix(tmp_path, loose):
    path = tmp_path / "lichess.token"
    path.write_text(BOARD_TOKEN)
    path.chmod(loose)
    with pytest.raises(TokenError) as refused:
        read_token(path)
    assert f"its mode is {loose:04o}" in str(refused.value) and f"chmod 600 {path}" in str(refused.value)
    assert BOARD_TOKEN not in str(refused.value)


def test_a_missing_token_file_says_how_to_make_one(tmp_path):
    with pytest.raises(TokenError, match="run `echiquier lichess login`"):
        read_token(tmp_path / "nothing")


def test_the_client_reads_its_token_file_and_refuses_a_loose_one(tmp_path):
    path = tmp_path / "lichess.token"
    path.write_text(BOARD_TOKEN + "\n")
    path.chmod(0o644)
    with pytest.raises(TokenError, match="other users can read it"):
        LichessClient(LichessConfig(token_file=str(path)))
    path.chmod(0o600)
    client = LichessClient(LichessConfig(base_url="http://127.0.0.1:9", token_file=str(path)))
    asyncio.run(client.aclose())


# -- echiquier lichess login --------------------------------------------------------------------

def test_login_reads_standard_input_and_stores_the_token(tmp_path, monkeypatch, capsys):
    out_file = tmp_path / "lichess.token"
    code, out, err = login(monkeypatch, capsys, "--output", str(out_file), stdin=BOARD_TOKEN + "\n")
    assert code == 0, err
    assert mode(out_file) == 0o600 and out_file.read_text().strip() == BOARD_TOKEN
    assert "(mode 0600)" in out and BOARD_TOKEN not in out + err


def test_login_reads_a_private_token_file(tmp_path, monkeypatch, capsys):
    source = tmp_path / "from-lichess.txt"
    source.write_text(BOARD_TOKEN)
    source.chmod(0o600)
    code, out, err = login(monkeypatch, capsys, "--token-file", str(source), "--output", str(tmp_path / "t"))
    assert code == 0, err
    assert read_token(tmp_path / "t") == Token(BOARD_TOKEN)


def test_login_refuses_a_token_file_others_can_read(tmp_path, monkeypatch, capsys):
    source = tmp_path / "from-lichess.txt"
    source.write_text(BOARD_TOKEN)
    source.chmod(0o644)
    code, out, err = login(monkeypatch, capsys, "--token-file", str(source), "--output", str(tmp_path / "t"))
    assert code == 2
    assert "refusing to read the Lichess token" in err and "chmod 600" in err
    assert not (tmp_path / "t").exists() and BOARD_TOKEN not in out + err


def test_login_without_a_token_stores_nothing(tmp_path, monkeypatch, capsys):
    code, out, err = login(monkeypatch, capsys, "--output", str(tmp_path / "t"), stdin="")
    assert code == 2 and "empty" in err and not (tmp_path / "t").exists()


@pytest.fixture
def fake_in_thread():
    """The fake server on its own loop in a thread (the command runs its own asyncio.run)."""
    loop = asyncio.new_event_loop()
    fake = FakeLichess({BOARD_TOKEN: "Bobby"}, keepalive=0.05)
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    asyncio.run_coroutine_threadsafe(fake.start(), loop).result(5)
    yield fake
    asyncio.run_coroutine_threadsafe(fake.stop(), loop).result(5)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(5)
    loop.close()


def test_login_check_names_the_account_before_storing(tmp_path, monkeypatch, capsys, fake_in_thread):
    code, out, err = login(monkeypatch, capsys, "--check", "--base-url", fake_in_thread.base_url,
                           "--output", str(tmp_path / "t"), stdin=BOARD_TOKEN)
    assert code == 0, err
    assert "belongs to Bobby" in out


def test_login_check_refuses_a_token_lichess_refuses(tmp_path, monkeypatch, capsys, fake_in_thread):
    code, out, err = login(monkeypatch, capsys, "--check", "--base-url", fake_in_thread.base_url,
                           "--output", str(tmp_path / "t"), stdin="lip_wrong")
    assert code == 2 and "No such token" in err and not (tmp_path / "t").exists()


def test_login_stores_the_token_where_the_service_reads_it(tmp_path, monkeypatch, capsys):
    config = tmp_path / "config.toml"
    config.write_text(f'[storage]\ndir = "{tmp_path / "state"}"\n')
    code, out, err = login(monkeypatch, capsys, "--config", str(config), stdin=BOARD_TOKEN + "\n")
    assert code == 0, err
    stored = tmp_path / "state" / "lichess.token"
    assert mode(stored) == 0o600 and read_token(stored) == Token(BOARD_TOKEN)
