"""`echiquier hub`: the broker's configuration, clear errors, and the hub run as a process."""
from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import urllib.request
from pathlib import Path

from firmware.cli import main

from .mosquitto import CLUB, free_port

ROOT = Path(__file__).resolve().parents[2]


def test_broker_config_writes_users_passwords_and_the_acl(tmp_path, capsys):
    assert main(["hub", "--broker-config", str(tmp_path / "b"), "--club", "myclub", "--boards", "1-3,A7"]) == 0
    creds = sorted(p.name for p in (tmp_path / "b" / "credentials").iterdir())
    assert creds == ["1.credentials", "2.credentials", "3.credentials", "A7.credentials", "hub.credentials"]
    one = tmp_path / "b" / "credentials" / "1.credentials"
    assert stat.S_IMODE(one.stat().st_mode) == 0o600 and one.read_text().startswith("1:")
    passwd = (tmp_path / "b" / "passwd").read_text()
    assert "1:$7$" in passwd and one.read_text().split(":")[1].strip() not in passwd   # hashed
    acl = (tmp_path / "b" / "acl").read_text()
    assert "pattern write echiquier/myclub/board/%u/game" in acl and "topic write echiquier/myclub/board/+/pairing" in acl
    assert "allow_anonymous false" in (tmp_path / "b" / "mosquitto.conf").read_text()
    assert "mosquitto -c" in capsys.readouterr().out


def test_bad_arguments_say_what_to_do(tmp_path, capsys):
    assert main(["hub"]) == 2
    assert "--broker URL is needed" in capsys.readouterr().err
    assert main(["hub", "--broker", "mqtt://127.0.0.1:1", "--time-control", "soon"]) == 2
    assert "--time-control" in capsys.readouterr().err
    assert main(["hub", "--broker", "http://x", "--state-dir", str(tmp_path / "s")]) == 1
    assert 'a broker is "mqtt://host:port"' in capsys.readouterr().err
    assert main(["hub", "--club", "a/b", "--broker", "mqtt://x"]) == 2
    bad = tmp_path / "pairs.csv"
    bad.write_text("1,Ada\n")
    assert main(["hub", "--broker", "mqtt://127.0.0.1:1", "--pairings", str(bad), "--state-dir", str(tmp_path / "s")]) == 1
    assert "line 1" in capsys.readouterr().err


def test_the_hub_runs_as_a_process_and_stops_on_sigterm(broker, tmp_path):
    port = free_port()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "firmware.cli", "hub", "--broker", broker.url, "--club", CLUB,
                             "--credentials", str(broker.files.credentials("hub")), "--host", "127.0.0.1",
                             "--port", str(port), "--state-dir", str(tmp_path / "hub")],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        for line in proc.stderr:
            if "hub connected to" in line:
                break
        page = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10).read().decode()
        assert "<title>Club night</title>" in page
        answer = urllib.request.urlopen(f"http://127.0.0.1:{port}/round.pgn", timeout=10)
        assert answer.status == 200 and answer.headers["Content-Type"].startswith("application/x-chess-pgn")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
    finally:
        proc.kill()
        proc.wait()
