"""The one bounded read of a kept file (durable/bounded_read.py), and every kept file of the state directory read through it: a FIFO, a link or a huge file in its place never hangs the board nor stops it from starting."""
from __future__ import annotations

import concurrent.futures
import errno
import os
from pathlib import Path

import pytest

from durable import bounded_read
from durable.bounded_read import NotRegular, read_bounded
from firmware.library.games import GameLibrary
from firmware.session.recorder import CURRENT, MAX_CURRENT_BYTES
from firmware.session.sensor_faults import FAULTS_FILE, read_faults
from firmware.training import progress
from firmware.web.pairing import CODE_FILE, SECRET_BYTES, SECRET_FILE, load_or_create_code, load_or_create_secret

from .session_support import OPEN, Table, closed_after  # noqa: F401 - closed_after: the fixture


def within(seconds: float, call, *args):
    """``call(*args)`` in a thread, failing the test (not hanging it) if it takes over ``seconds``:
    a reader blocked on a FIFO returns only when a writer comes."""
    pool = concurrent.futures.ThreadPoolExecutor(1)
    try:
        return pool.submit(call, *args).result(timeout=seconds)
    except concurrent.futures.TimeoutError:
        writer = os.open(args[0], os.O_WRONLY | os.O_NONBLOCK) if args and Path(args[0]).is_fifo() else None
        if writer is not None:
            os.close(writer)      # (the blocked reader sees the end of the file and the thread ends)
        pytest.fail(f"{getattr(call, '__name__', call)} was still reading after {seconds} s")
    finally:
        pool.shutdown(wait=False)


def test_doctests():
    import doctest
    assert doctest.testmod(bounded_read).failed == 0


def test_a_file_is_read_up_to_the_bound_and_says_whether_it_had_more(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"0123456789")
    whole, cut = read_bounded(path, 10), read_bounded(path, 9)
    assert (whole.data, whole.cut) == (b"0123456789", False)
    assert (cut.data, cut.cut) == (b"012345678", True)
    stat = path.stat()
    assert whole.stamp == (stat.st_mtime_ns, stat.st_size) == (stat.st_mtime_ns, 10)
    assert read_bounded(path, 0).cut and read_bounded(tmp_path / "f", 100).data == b"0123456789"
    with pytest.raises(ValueError):
        read_bounded(path, -1)


def test_a_link_is_not_followed(tmp_path):
    secret = tmp_path / "secret"
    secret.write_bytes(b"not for you")
    (tmp_path / "link").symlink_to(secret)
    with pytest.raises(OSError) as info:
        read_bounded(tmp_path / "link", 100)
    assert info.value.errno == errno.ELOOP


def test_a_fifo_or_a_folder_is_refused_at_once(tmp_path):
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "folder").mkdir()
    for name in ("fifo", "folder"):
        with pytest.raises(NotRegular):
            within(5, read_bounded, tmp_path / name, 100)
    with pytest.raises(FileNotFoundError):
        read_bounded(tmp_path / "none", 100)


# -- the state directory's files, each replaced by what no reader may hang on ------------------------

@pytest.mark.parametrize("name", [CURRENT, FAULTS_FILE, progress.FILE, CODE_FILE, SECRET_FILE])
def test_a_fifo_in_place_of_a_kept_file_never_hangs_the_board(tmp_path, name):
    state = tmp_path / "state"
    state.mkdir()
    os.mkfifo(state / name)
    if name == CURRENT:
        table = Table(tmp_path)
        OPEN.append(table)
        assert within(10, table.session.restore, table.t) is False     # the board starts, no game to restore
        assert table.session.snapshot()["moves"]["uci"] == []
    elif name == FAULTS_FILE:
        assert within(5, read_faults, state) == {}
    elif name == progress.FILE:
        assert within(5, progress.load, state) == {}
        assert (state / (progress.FILE + ".damaged")).is_fifo()
    elif name == CODE_FILE:
        code = within(5, load_or_create_code, state)
        assert (state / CODE_FILE).read_text().strip() == code            # a new code, kept in a file
    else:
        secret = within(5, load_or_create_secret, state)
        assert len(secret) == SECRET_BYTES and (state / SECRET_FILE).read_bytes() == secret


def test_a_game_in_progress_over_its_bound_is_set_aside_and_the_board_starts(tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    with open(state / CURRENT, "wb") as fh:
        fh.truncate(MAX_CURRENT_BYTES + 1)            # (a sparse file: no disk spent)
    table = Table(tmp_path)
    OPEN.append(table)
    assert table.session.restore(table.t) is False
    assert table.session.snapshot()["moves"]["uci"] == []
    assert (state / (CURRENT + ".damaged")).stat().st_size == MAX_CURRENT_BYTES + 1


def test_a_fifo_that_becomes_a_game_file_after_the_listing_is_skipped(tmp_path, monkeypatch):
    games = tmp_path / "games"
    games.mkdir()
    name = "2025-01-01_1000_A-vs-B"
    os.mkfifo(games / f"{name}.pgn")
    library = GameLibrary(games)
    monkeypatch.setattr(GameLibrary, "_files", lambda self: {name: games / f"{name}.pgn"})  # (listed as a file)
    monkeypatch.setattr(GameLibrary, "_stamp", staticmethod(lambda path: (0, 0)))
    assert within(5, library.games) == []


def test_a_small_file_read_under_a_large_bound_costs_its_size_not_the_bound(tmp_path):
    import tracemalloc
    path = tmp_path / "current.json"
    path.write_bytes(b"{}" * 1000)
    tracemalloc.start()
    try:
        read = read_bounded(path, MAX_CURRENT_BYTES)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert read.data == b"{}" * 1000 and not read.cut
    assert peak < 256 * 1024, peak


def test_an_unreadable_pairing_secret_is_an_error_not_a_new_secret(tmp_path, monkeypatch):
    """A new secret unpairs every phone: only a link, a FIFO or a folder in its place earns one."""
    from firmware.web import pairing
    (tmp_path / SECRET_FILE).write_bytes(b"k" * SECRET_BYTES)
    def denied(path, most):
        raise PermissionError(errno.EACCES, "Permission denied", str(path))
    monkeypatch.setattr(pairing, "read_bounded", denied)
    with pytest.raises(PermissionError):
        load_or_create_secret(tmp_path)
    assert (tmp_path / SECRET_FILE).read_bytes() == b"k" * SECRET_BYTES
    monkeypatch.undo()
    assert load_or_create_secret(tmp_path) == b"k" * SECRET_BYTES
