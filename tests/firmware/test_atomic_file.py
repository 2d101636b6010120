"""The one atomic write (durable/atomic_file.py): every byte or an error, old file intact on failure, mode, fsyncs."""
from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from durable import atomic_file
from durable.atomic_file import PRIVATE_MODE, write_atomically


def names(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def old_file(tmp_path: Path) -> Path:
    path = tmp_path / "current.json"
    path.write_text("the last good version")
    return path


def assert_untouched(path: Path) -> None:
    assert path.read_text() == "the last good version"
    assert names(path.parent) == [path.name], "no temporary file left"


# -- what is written ----------------------------------------------------------------------------------

def test_text_is_written_as_utf8_and_bytes_as_they_are(tmp_path: Path) -> None:
    text_path, bytes_path = tmp_path / "a.pgn", tmp_path / "secret"
    write_atomically(text_path, "1. e4 e5 {Réti’s ♞}")
    write_atomically(bytes_path, b"\x00\xff\x10" * 20)
    assert text_path.read_bytes() == "1. e4 e5 {Réti’s ♞}".encode("utf-8")
    assert bytes_path.read_bytes() == b"\x00\xff\x10" * 20
    assert names(tmp_path) == ["a.pgn", "secret"]


def test_a_file_is_replaced_whole_by_a_shorter_one(old_file: Path) -> None:
    write_atomically(str(old_file), "new")        # a str path too
    assert old_file.read_text() == "new"
    assert names(old_file.parent) == ["current.json"]


def test_text_that_cannot_be_encoded_fails_before_any_file_changes(old_file: Path) -> None:
    with pytest.raises(UnicodeEncodeError):
        write_atomically(old_file, "White \ud83d")
    assert_untouched(old_file)


def test_a_name_of_255_bytes_still_gets_a_temporary_file(tmp_path: Path) -> None:
    path = tmp_path / ("x" + "é" * 127)           # 255 bytes in UTF-8, cut in the middle of an é
    write_atomically(path, "long")
    assert path.read_text() == "long" and names(tmp_path) == [path.name]


# -- short writes, a write of 0, a full disk ------------------------------------------------------------

def test_short_writes_are_continued_one_byte_at_a_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_write = os.write
    calls = []

    def one_byte(fd: int, data: bytes) -> int:
        calls.append(len(data))
        return real_write(fd, bytes(data)[:1])
    monkeypatch.setattr(os, "write", one_byte)
    path = tmp_path / "game.pgn"
    write_atomically(path, "1. e4 e5 2. Nf3")
    assert path.read_text() == "1. e4 e5 2. Nf3"
    assert calls == list(range(15, 0, -1))       # each call offered what was left


def test_a_write_that_returns_0_is_an_error_not_a_loop(old_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []

    def nothing(fd: int, data: bytes) -> int:
        calls.append(1)
        if len(calls) > 100:
            raise AssertionError("still writing after 100 writes of 0 bytes")
        return 0
    monkeypatch.setattr(os, "write", nothing)
    with pytest.raises(OSError) as info:
        write_atomically(old_file, "x" * 7000)
    assert info.value.errno == errno.ENOSPC and len(calls) == 1
    assert_untouched(old_file)


def test_enospc_from_write_keeps_the_old_file_and_leaves_no_temporary(old_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_write = os.write
    calls = []

    def full_disk(fd: int, data: bytes) -> int:
        calls.append(len(data))
        if len(calls) > 1:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, bytes(data)[:100])
    monkeypatch.setattr(os, "write", full_disk)
    with pytest.raises(OSError) as info:
        write_atomically(old_file, "x" * 7000)
    assert info.value.errno == errno.ENOSPC and calls == [7000, 6900]
    assert_untouched(old_file)


def test_enospc_from_fsync_keeps_the_old_file_and_leaves_no_temporary(old_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def full_disk(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")   # delayed allocation fails late
    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(OSError) as info:
        write_atomically(old_file, "x" * 7000)
    assert info.value.errno == errno.ENOSPC
    assert_untouched(old_file)


def test_a_file_of_the_wrong_size_is_never_renamed(old_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_fstat = os.fstat

    class Short:
        def __init__(self, fd: int) -> None:
            self.st_size = real_fstat(fd).st_size - 1
    monkeypatch.setattr(os, "fstat", Short)
    with pytest.raises(OSError) as info:
        write_atomically(old_file, "x" * 7000)
    assert info.value.errno == errno.EIO and "6999 of 7000" in str(info.value)
    assert_untouched(old_file)


def test_a_failed_rename_keeps_the_old_file_and_leaves_no_temporary(old_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def power_cut(*args: object) -> None:
        raise OSError(errno.EIO, "power cut")
    monkeypatch.setattr(os, "replace", power_cut)
    with pytest.raises(OSError):
        write_atomically(old_file, "new")
    assert_untouched(old_file)


# -- the mode ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("umask", [0o000, 0o022, 0o277])
def test_the_mode_is_exactly_the_one_asked_whatever_the_umask(tmp_path: Path, umask: int) -> None:
    old = os.umask(umask)
    try:
        write_atomically(tmp_path / "token", "lip_x", mode=PRIVATE_MODE)
        write_atomically(tmp_path / "game.pgn", "1. e4")
    finally:
        os.umask(old)
    assert mode(tmp_path / "token") == 0o600
    assert mode(tmp_path / "game.pgn") == 0o640


def test_replacing_a_file_others_could_read_makes_it_private(tmp_path: Path) -> None:
    path = tmp_path / "pairing-code"
    path.write_text("12345678\n")
    path.chmod(0o644)
    write_atomically(path, "87654321\n", mode=PRIVATE_MODE)
    assert mode(path) == 0o600 and path.read_text() == "87654321\n"


# -- the fsyncs, the temporary's name ------------------------------------------------------------------------

def test_the_file_is_fsynced_then_renamed_then_its_directory_fsynced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    events: list[tuple[str, str]] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))
        real_fsync(fd)

    def replace(src: Path, dst: Path) -> None:
        events.append(("replace", str(dst)))
        real_replace(src, dst)
    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    path = tmp_path / "current.json"
    write_atomically(path, "{}")
    assert len(events) == 3
    (what0, tmp), second, third = events
    assert what0 == "fsync" and Path(tmp).parent == tmp_path and Path(tmp).name != "current.json"
    assert second == ("replace", str(path))
    assert third == ("fsync", str(tmp_path))


def test_while_it_is_written_the_temporary_is_hidden_and_no_reader_takes_it_for_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[list[str]] = []
    real_fsync = os.fsync

    def look(fd: int) -> None:
        if not seen:
            seen.append(names(tmp_path))
            seen.append(sorted(p.name for p in tmp_path.glob("*.json")))
        real_fsync(fd)
    monkeypatch.setattr(os, "fsync", look)
    write_atomically(tmp_path / "game.json", "{}")
    (during, globbed) = seen
    (tmp,) = during
    assert tmp.startswith(".game.json.") and tmp.endswith(".tmp")
    assert globbed == []


def test_a_leftover_of_a_process_that_is_gone_is_removed_and_a_living_ones_kept(tmp_path: Path) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    dead = tmp_path / f".game.json.{gone.pid}-0badf00d.tmp"
    alive = tmp_path / f".game.json.{os.getppid()}-0badf00d.tmp"
    other = tmp_path / f".other.json.{gone.pid}-0badf00d.tmp"
    for leftover in (dead, alive, other):
        leftover.write_text("half a game")
    atomic_file._swept.clear()
    write_atomically(tmp_path / "game.json", "{}")
    assert names(tmp_path) == sorted([alive.name, other.name, "game.json"])


def test_a_leftover_from_before_this_boot_or_this_process_is_removed_whatever_its_pid(tmp_path: Path) -> None:
    """After a power cut the service often gets the same pid again: its own old temporary (older
    than this process) and one of a pid now alive but written before the boot are leftovers."""
    mine = tmp_path / f".game.json.{os.getpid()}-0badf00d.tmp"
    before_boot = tmp_path / f".game.json.{os.getppid()}-0badf00d.tmp"
    for leftover in (mine, before_boot):
        leftover.write_text("half a game")
    os.utime(mine, (atomic_file._STARTED - 60, atomic_file._STARTED - 60))
    os.utime(before_boot, (atomic_file._BOOTED - 60, atomic_file._BOOTED - 60))
    atomic_file._swept.clear()
    write_atomically(tmp_path / "game.json", "{}")
    assert names(tmp_path) == ["game.json"]
