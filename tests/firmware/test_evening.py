"""An evening at the board: 51 games back to back in one capture through `echiquier run` (the page on)."""
from __future__ import annotations

import re
import socket
import subprocess
import sys
from pathlib import Path

import chess.pgn
import pytest

from tests.fakes.hands import capture_evening

ECHIQUIER = Path(sys.executable).with_name("echiquier")
GAMES = 51


def _rss_kb(pid: int) -> int | None:
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    found = re.search(r"^VmRSS:\s+(\d+) kB", text, re.M)
    return int(found.group(1)) if found else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_an_evening_of_games_back_to_back_each_in_its_own_pgn(tmp_path, capsys):
    evening = capture_evening(GAMES, seed=11)
    (tmp_path / "evening.cap").write_text(evening.capture.text)
    config = tmp_path / "config.toml"
    config.write_text('[board]\nsensors = "replay"\ncapture = "evening.cap"\nspeed = 0\n'
                      '[game]\ntime_control = "600+5"\nwhite = "Anna"\nblack = "Ben"\n'
                      f'[storage]\ndir = "state"\n[web]\nenabled = true\nhost = "127.0.0.1"\nport = {_free_port()}\n')
    proc = subprocess.Popen([str(ECHIQUIER), "run", "--config", str(config), "--log-level", "warning"],
                            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    games_dir = tmp_path / "state" / "games"
    rss: dict[int, int] = {}            # games saved so far -> the latest RSS seen (kB)
    while proc.poll() is None:
        kb = _rss_kb(proc.pid)
        saved = len(list(games_dir.glob("*.pgn"))) if games_dir.exists() else 0
        if kb is not None:
            rss[saved] = kb
        try:
            proc.wait(timeout=0.02)
        except subprocess.TimeoutExpired:
            pass
    err = proc.stderr.read()
    assert proc.returncode == 0, err
    assert "Traceback" not in err, err
    files = sorted(games_dir.glob("*.pgn"))
    read = []
    for path in files:
        with open(path, encoding="utf-8") as fh:
            read.append(chess.pgn.read_game(fh))
    read.sort(key=lambda g: (g.headers["Date"], g.headers["Time"], str(g.headers)))
    recorded = [[m.uci() for m in g.mainline_moves()] for g in read]
    expected = [moves for _, moves in evening.games]
    # every game in its own PGN, every move exact; the next game, set up as the evening ends, has none yet
    assert len(files) == GAMES + 1, (len(files), [len(m) for m in recorded])
    empty = [i for i, moves in enumerate(recorded) if not moves]
    assert len(empty) == 1
    del read[empty[0]], recorded[empty[0]]
    by_moves = sorted(map(tuple, recorded))
    assert by_moves == sorted(map(tuple, expected))
    mated = {tuple(moves) for kind, moves in evening.games if kind == "mate"}
    for game, moves in zip(read, recorded):
        if tuple(moves) in mated:
            assert game.headers["Result"] in ("1-0", "0-1"), game.headers
        else:   # abandoned half-way or drawn without a word: unfinished, marked so
            assert game.headers["Result"] == "*" and game.headers.get("Termination") == "abandoned", game.headers
    names = {(g.headers["White"], g.headers["Black"]) for g in read}
    assert names == {("Anna", "Ben"), ("Ben", "Anna")}     # colours alternate
    counts = sorted(rss)
    first, last = rss.get(1) or rss[counts[0]], rss[counts[-1]]
    with capsys.disabled():
        print(f"\nevening: {GAMES} games, {len(evening.capture.lines)} lines; RSS after game 1: {first} kB, "
              f"after game {counts[-1]}: {last} kB, peak {max(rss.values())} kB; by game: "
              f"{[(n, rss[n]) for n in counts if n % 10 == 1 or n == counts[-1]]}")

