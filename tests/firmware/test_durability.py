"""Nothing is lost (issue 12): short writes, a full disk, a file-size limit, records the service
cannot use, and configurations it cannot use. The whole service under a file-size limit that
lifts mid-game is the last test (`echiquier run` in a subprocess, RLIMIT_FSIZE)."""
from __future__ import annotations

import errno
import json
import os
import resource
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from firmware.config import ConfigError, check_storage, load_config, loads_config
from durable.atomic_file import write_atomically as atomic_write
from chess_core import BLACK, STARTING_FEN
from firmware.session.recorder import GameRecord, NextGame, Recorder
from firmware.session.saving import CORNERS
from firmware.session.game_commands import resign

from .session_support import Table

ECHIQUIER = Path(sys.executable).with_name("echiquier")


# -- the one atomic write (durable.atomic_file), as the recorder uses it -----------------------------

def test_a_short_write_is_continued_until_every_byte_is_written(tmp_path, monkeypatch):
    """Issue 12: with 4 KB free a 7 KB file became 4,096 bytes and was renamed over the good one."""
    real_write = os.write
    monkeypatch.setattr(os, "write", lambda fd, data: real_write(fd, bytes(data)[:4096]))
    path = tmp_path / "game.pgn"
    text = "1. e4 e5 " * 800
    atomic_write(path, text)
    assert path.read_text() == text


def test_a_write_that_fails_keeps_the_old_file_and_leaves_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "game.pgn"
    path.write_text("the last good version")
    real_write = os.write
    calls = []

    def full_disk(fd, data):
        calls.append(len(data))
        if len(calls) > 1:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, bytes(data)[:100])
    monkeypatch.setattr(os, "write", full_disk)
    with pytest.raises(OSError) as info:
        atomic_write(path, "x" * 7000)
    assert info.value.errno == errno.ENOSPC
    assert path.read_text() == "the last good version"
    assert [p.name for p in tmp_path.iterdir()] == ["game.pgn"]


def test_text_that_cannot_be_encoded_fails_before_any_file_changes(tmp_path):
    path = tmp_path / "current.json"
    path.write_text("old")
    with pytest.raises(UnicodeEncodeError):
        atomic_write(path, "White \ud83d")
    assert path.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["current.json"]


_FSIZE_SCRIPT = textwrap.dedent("""
    import errno, resource, signal, sys
    from pathlib import Path
    from durable.atomic_file import write_atomically as atomic_write
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    path = Path(sys.argv[1])
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, resource.RLIM_INFINITY))
    try:
        atomic_write(path, "y" * 7000)
    except OSError as exc:
        print(errno.errorcode[exc.errno])
    else:
        print("written")
""")


def test_under_a_real_file_size_limit_the_old_file_stays_whole(tmp_path):
    """RLIMIT_FSIZE (``ulimit -f``) makes the kernel write short, as a full disk does."""
    path = tmp_path / "game.pgn"
    path.write_text("g" * 3000)
    done = subprocess.run([sys.executable, "-c", _FSIZE_SCRIPT, str(path)], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "PYTHONPATH": os.getcwd()})
    assert done.stdout.strip() == "EFBIG", done.stderr
    assert path.read_text() == "g" * 3000
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.pgn"]


# -- the session when saving fails --------------------------------------------------------------------

def test_a_failed_save_is_shown_retried_and_the_moves_are_kept(tmp_path, monkeypatch):
    table = Table(tmp_path)
    table.setup()
    table.play_all("e2e4 e7e5")
    recorder = table.session.file.recorder
    saved = json.loads(recorder.current_path.read_text())["moves"]
    assert saved == ["e2e4", "e7e5"]
    real_save = recorder.save
    full = {"on": True}

    def save(record, game=None, sans=None):
        if full["on"]:
            raise OSError(errno.ENOSPC, "No space left on device")
        real_save(record, game, sans)
    monkeypatch.setattr(recorder, "save", save)
    table.play_all("g1f3 b8c6")
    snap = table.session.snapshot(table.t)
    assert "storage is full" in snap["save_problem"] and "moves are kept" in snap["save_problem"]
    assert all(table.leds.last[s] for s in CORNERS)              # the LEDs say it too
    assert [m.uci() for m in table.session.game.moves] == "e2e4 e7e5 g1f3 b8c6".split()
    assert json.loads(recorder.current_path.read_text())["moves"] == saved   # the old file, whole
    deadline = table.session.next_deadline(table.t, blink=False)
    assert deadline is not None and deadline <= table.t + 30     # it will be tried again, with no input
    full["on"] = False
    table.wait(31)
    assert json.loads(recorder.current_path.read_text())["moves"] == "e2e4 e7e5 g1f3 b8c6".split()
    assert table.session.snapshot(table.t)["save_problem"] is None
    assert not any(table.leds.last[s] for s in CORNERS)


def test_a_new_game_chosen_while_the_disk_is_full_is_saved_once_it_is_not(tmp_path, monkeypatch):
    """Issue 32: the choice of the next game is saved like a move: shown while it fails, tried again."""
    table = Table(tmp_path, white="Ada", black="Bob")
    table.setup()
    table.play("e2e4")
    resign(table.session, 0)
    recorder = table.session.file.recorder
    finished = recorder.current_path.read_text()
    real_save = recorder.save_next
    full = {"on": True}

    def save_next(chosen):
        if full["on"]:
            raise OSError(errno.ENOSPC, "No space left on device")
        real_save(chosen)
    monkeypatch.setattr(recorder, "save_next", save_next)
    table.session.new_game(white="Carla", black="Dan", time_control="600+10")   # does not raise
    snap = table.session.snapshot(table.t)
    assert "storage is full" in snap["save_problem"] and snap["players"] == {"white": "Carla", "black": "Dan"}
    assert recorder.current_path.read_text() == finished          # the old file, whole
    full["on"] = False
    table.wait(2)
    assert table.session.snapshot(table.t)["save_problem"] is None
    session = table.new_session()                                  # the power cut
    assert session.restore(table.t)
    snap = session.snapshot(table.t)
    assert snap["players"] == {"white": "Carla", "black": "Dan"} and snap["time_control"] == "600+10"
    assert not snap["over"] and not snap["started"]


@pytest.mark.parametrize("how", ["page", "board", "abandoned"])
def test_a_finished_game_not_saved_on_a_full_disk_is_written_before_the_next_game_replaces_it(tmp_path, monkeypatch,
                                                                                             how):
    """Issue 32, item 7: its record was dropped at the next game's choice, which then replaced
    current.json, the only copy its PGN is rebuilt from: the moves and the result made while the
    disk was full were lost. Chosen on the page or by setting the pieces up again; or a game left
    unfinished for a new one (current.json was removed)."""
    table = Table(tmp_path, white="Ada", black="Bob")
    table.setup()
    table.play_all("e2e4 e7e5")
    recorder = table.session.file.recorder
    pgn = recorder.pgn_path(table.session.file.record)
    real_write = os.write
    full = {"on": True}

    def write(fd, data):
        if full["on"]:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)
    monkeypatch.setattr(os, "write", write)
    table.play("g1f3")
    if how != "abandoned":
        resign(table.session, BLACK)                     # over, and not saved
    assert "storage is full" in table.session.snapshot(table.t)["save_problem"]
    if how in ("page", "abandoned"):
        table.session.new_game(white="Carla", black="Dan", time_control="600+10")
    else:
        table.board.set_occupied(0)                     # the pieces cleared, then set up: the next game
        table.wait(1)
        table.setup()
    assert "storage is full" in table.session.snapshot(table.t)["save_problem"]
    assert json.loads(recorder.current_path.read_text())["moves"] == ["e2e4", "e7e5"]   # the old file, whole
    full["on"] = False
    table.wait(31)                                      # tried again, with no input
    assert table.session.snapshot(table.t)["save_problem"] is None
    text = pgn.read_text()
    result = "*" if how == "abandoned" else "1-0"
    assert "2. Nf3" in text and f'[Result "{result}"]' in text and text.rstrip().endswith(result)
    assert ('[Termination "abandoned"]' in text) == (how == "abandoned")
    session = table.new_session()                       # then a power cut: the latest state comes back
    assert session.restore(table.t)
    snap = session.snapshot(table.t)
    assert snap["moves"]["uci"] == [] and not snap["over"]
    if how != "board":
        assert snap["players"] == {"white": "Carla", "black": "Dan"} and snap["time_control"] == "600+10"
    assert pgn.read_text() == text


def test_a_record_that_cannot_be_written_does_not_crash_the_session(tmp_path):
    """Issue 12: a name with a lone surrogate raised UnicodeEncodeError (only OSError was caught)."""
    table = Table(tmp_path)
    table.session.set_names(("\ud83d", "Black"))
    table.setup()
    table.play_all("e2e4 e7e5")   # does not raise
    assert "UnicodeEncodeError" in table.session.snapshot(table.t)["save_problem"]


# -- no saved state stops the service from starting -------------------------------------------------------

def _record(**changes) -> str:
    record = GameRecord(pgn_name="2026-01-01_1000_A-vs-B.pgn", started="2026-01-01T10:00:00",
                        moves=["e2e4", "e7e5"])
    data = {"version": 1, **record.__dict__, **changes}
    return json.dumps(data)


def _next(**changes) -> str:
    chosen = NextGame(white="Carla", black="Dan", start_fen=STARTING_FEN, game={"time_control": "600+10"})
    return json.dumps({"version": 1, "next_game": {**chosen.__dict__, **changes}})


@pytest.mark.parametrize("content", [
    _next(white="\ud83d"),                         # a new game chosen, not set up yet (issue 32)
    _next(start_fen="not a position"),
    _next(game={"time_control": "soon"}),
    _next(engine_sides=[2]),
    _next(given=["Carla"]),
    _next(extra_field=1),
    _record(white="\ud83d"),                       # the crash of issue 12, at every restart
    _record(white="a\x00b"),
    _record(pgn_name="../../etc/passwd.pgn"),
    _record(clocks="not a list"),
    _record(remaining=[1, 2, 3]),
    _record(started="yesterday"),
    _record(extra_field=1),
    _record(moves=["e2e5"]),
    "\xff\xfe not UTF-8",
    "[]",
])
def test_a_saved_record_the_service_cannot_use_is_set_aside_and_the_board_starts(tmp_path, content, caplog):
    table = Table(tmp_path)
    state = tmp_path / "state"
    state.mkdir(exist_ok=True)
    (state / "current.json").write_bytes(content.encode("utf-8", "surrogatepass") if isinstance(content, str)
                                         else content)
    session = table.new_session()
    assert session.restore(table.t) is False
    assert (state / "current.json.damaged").exists() and not (state / "current.json").exists()
    assert "cannot be restored" in caplog.text and "current.json.damaged" in caplog.text
    session.poll(table.t)   # and the board runs


# -- configurations it cannot use ---------------------------------------------------------------------

def test_a_storage_dir_that_is_a_file_is_a_clear_error(tmp_path):
    (tmp_path / "state").write_text("")
    config = loads_config(f'[storage]\ndir = "{tmp_path / "state"}"\n', "config.toml")
    with pytest.raises(ConfigError, match=r"config.toml: storage.dir: .* is a file, not a directory"):
        check_storage(config)


def test_a_missing_storage_dir_is_created_or_a_clear_error(tmp_path):
    config = loads_config(f'[storage]\ndir = "{tmp_path / "a" / "b"}"\n', "config.toml")
    assert check_storage(config).is_dir()
    (tmp_path / "file").write_text("")
    config = loads_config(f'[storage]\ndir = "{tmp_path / "file" / "b"}"\n', "config.toml")
    with pytest.raises(ConfigError, match="storage.dir"):
        check_storage(config)


def test_a_configuration_that_is_not_utf8_is_a_clear_error(tmp_path):
    path = tmp_path / "config.toml"
    path.write_bytes(b'[game]\nwhite = "Ana"\nblack = "Jos\xe9"\n')
    with pytest.raises(ConfigError, match=r"not UTF-8 text \(byte 34, line 3\)"):
        load_config(path)


@pytest.mark.parametrize("problem, words", [
    (b"file", "is a file, not a directory"),
    (b"latin1", "not UTF-8"),
])
def test_echiquier_run_says_what_is_wrong_without_a_traceback(tmp_path, problem, words):
    path = tmp_path / "config.toml"
    if problem == b"file":
        (tmp_path / "state").write_text("")
        path.write_text(f'[board]\nsensors = "sim"\n[storage]\ndir = "{tmp_path / "state"}"\n')
    else:
        path.write_bytes(b'[game]\nwhite = "Jos\xe9"\n')
    done = subprocess.run([str(ECHIQUIER), "run", "--config", str(path)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2
    assert words in done.stderr and "Traceback" not in done.stderr


def test_a_name_in_the_configuration_must_be_printable(tmp_path):
    with pytest.raises(ConfigError, match="game.white"):
        loads_config('[game]\nwhite = "a\\u0007b"\n', "config.toml")


# -- point 8: a power cut while the last move was being corrected ------------------------------------------

@pytest.mark.parametrize("correction, expected", [("e3", ["e2e3"]), ("e2", [])])
def test_after_a_cut_the_last_move_can_still_be_corrected(tmp_path, correction, expected):
    """Issue 12: a kill after a move was saved but before the hand moved that piece on left "no
    legal move explains the board" at every restart."""
    table = Table(tmp_path, time_control="300+2")
    table.setup()
    table.play("e2e4")
    assert json.loads(table.session.file.recorder.current_path.read_text())["moves"] == ["e2e4"]
    white_left = table.session.referee.clocks(table.t).remaining[0]
    table.session = table.new_session()      # the power cut: a new session on the same board
    assert table.session.restore(table.t)
    table.wait(0.5)
    table.lift("e4")
    table.place(correction)
    table.wait(1.0)
    snap = table.session.snapshot(table.t)
    assert [m.uci() for m in table.session.game.moves] == expected, snap["problems"]
    assert not snap["wrong"] and not snap["problems"]
    assert json.loads(table.session.file.recorder.current_path.read_text())["moves"] == expected
    if expected:
        # the correction's time is White's, and the increment is not given twice
        assert table.session.referee.clocks(table.t).remaining[0] <= white_left
    after = "e7e5" if expected else "d2d4"
    table.play(after)
    assert [m.uci() for m in table.session.game.moves] == expected + [after]


# -- the whole service under a file-size limit that lifts mid-game ------------------------------------------

def _files(state: Path) -> tuple[list[str] | None, list[str] | None]:
    """The moves in current.json and the PGN (None: no file yet); both must be whole when present."""
    import io

    import chess.pgn
    current = state / "current.json"
    moves = json.loads(current.read_text())["moves"] if current.exists() else None
    pgns = list((state / "games").glob("*.pgn")) if (state / "games").exists() else []
    assert len(pgns) <= 1
    pgn_moves = None
    if pgns:
        text = pgns[0].read_text(encoding="utf-8")
        game = chess.pgn.read_game(io.StringIO(text))
        assert game is not None and not game.errors, text
        assert text.rstrip().endswith(("*", "1-0", "0-1", "1/2-1/2")), f"a PGN cut short: {text[-60:]!r}"
        pgn_moves = [m.uci() for m in game.mainline_moves()]
    return moves, pgn_moves


@pytest.mark.slow
def test_a_disk_that_fills_mid_game_loses_nothing_and_the_game_completes(tmp_path):
    """RLIMIT_FSIZE (``ulimit -f``: 800 bytes, the files reach 1,250) stops the saves mid-game;
    no file is ever shorter than its last good version, the journal says so, the game goes on in
    memory, and once the limit is lifted (prlimit from outside: the space comes back) every move
    is saved exactly once."""
    import threading

    from tests.fakes.hands import capture_game
    from .test_powercut import OPERA
    (tmp_path / "opera.cap").write_text(capture_game(OPERA, seed=7, amend_rate=0).text)
    config = tmp_path / "config.toml"
    config.write_text('[board]\nsensors = "replay"\ncapture = "opera.cap"\nspeed = 8\n'
                      '[game]\ntime_control = "300+2"\nwhite = "Morphy"\nblack = "Duke and Count"\n'
                      '[storage]\ndir = "state"\n[web]\nenabled = false\n')

    def small_disk() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (800, resource.RLIM_INFINITY))

    proc = subprocess.Popen([str(ECHIQUIER), "run", "--config", str(config), "--log-level", "warning"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, preexec_fn=small_disk,
                            env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    journal: list[str] = []
    reader = threading.Thread(target=lambda: journal.extend(proc.stderr), daemon=True)
    reader.start()
    state = tmp_path / "state"
    last: tuple[list[str], list[str]] = ([], [])
    lifted_at = None
    try:
        while proc.poll() is None:
            try:
                proc.wait(timeout=0.005)
            except subprocess.TimeoutExpired:
                pass
            moves, pgn_moves = _files(state)
            moves, pgn_moves = moves or [], pgn_moves or []
            assert moves == OPERA[:len(moves)] and len(moves) >= len(last[0]), "current.json went back"
            assert pgn_moves == OPERA[:len(pgn_moves)] and len(pgn_moves) >= len(last[1]), "the PGN went back"
            last = (moves, pgn_moves)
            if lifted_at is None and any("cannot save the game" in line for line in list(journal)):
                lifted_at = len(moves)
                resource.prlimit(proc.pid, resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        assert proc.wait(timeout=120) == 0, "".join(journal)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    reader.join(timeout=10)
    told = [line for line in journal if "cannot save the game" in line]
    assert told and "file-size limit" in told[0], journal
    assert lifted_at is not None and 0 < lifted_at < len(OPERA), lifted_at   # it did fill mid-game
    moves, pgn_moves = _files(state)
    assert moves == OPERA and pgn_moves == OPERA                      # every move, once
    assert json.loads((state / "current.json").read_text())["outcome"] == ["checkmate", 0]


def test_a_damaged_lichess_token_file_does_not_stop_the_board(tmp_path):
    """Saved state of another kind: a token file that is not text gives a page that asks to log in."""
    from firmware.opponents.factory import build_opponent
    state = tmp_path / "state"
    state.mkdir()
    token = state / "lichess.token"
    token.write_bytes(b"\xff\xfe\x00garbage")
    token.chmod(0o600)
    config = loads_config(f'[game]\nopponent = "lichess"\n[storage]\ndir = "{state}"\n')
    opponent = build_opponent(config)
    assert type(opponent).__name__ == "NotLoggedIn"
    assert "log in again" in str(vars(opponent))


def test_echiquier_sim_says_when_its_state_dir_is_a_file(tmp_path):
    (tmp_path / "state").write_text("")
    done = subprocess.run([str(ECHIQUIER), "sim", "--port", "0", "--state-dir", str(tmp_path / "state")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "is a file, not a directory" in done.stderr and "Traceback" not in done.stderr
