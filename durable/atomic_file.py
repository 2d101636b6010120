"""One atomic file write for the whole firmware: a crash, a power cut or a full disk leaves the old file or the new one.

:func:`write_atomically` is the only way the firmware replaces a file it must not lose (the game
in progress, the PGN files, the pairing code and secret, the Lichess token, the hub's games):

1. text is encoded (UTF-8) first: text that cannot be encoded fails before any file changes;
2. a temporary file is created in the same directory (so the rename stays on one file system),
   named ``.<name>.<pid>-<random>.tmp``: hidden, ending in ``.tmp``, so no reader globbing
   ``*.json`` or ``*.pgn`` mistakes it for the real file, and unique, so two writers of one file
   never write into each other's; it is opened with ``O_EXCL | O_NOFOLLOW`` (a link put there
   is never followed) and given exactly ``mode`` (the umask does not change it);
3. every byte is written: a short write (a nearly full disk, a file-size limit) is continued, a
   write that returns 0 raises ``ENOSPC`` instead of looping for ever;
4. the size is checked with ``fstat``, the file is fsynced and closed (``close`` can report a
   write error too), and only then renamed over the target;
5. the directory is fsynced, so that the rename itself survives a power cut.

On any failure before the rename the temporary file is removed, the old file is left as it was
and the error goes to the caller. A power cut leaves at most a temporary file behind; the first
write of the same file in a later process removes those whose process is gone (once per file
and process: listing a directory of thousands of games after every move would cost more than
the write).

Standard library only (layer 1).
"""
from __future__ import annotations

import errno
import os
import time
import secrets
from pathlib import Path

DEFAULT_MODE = 0o640
PRIVATE_MODE = 0o600            # the Lichess token, the pairing code and secret
TMP_SUFFIX = ".tmp"
_NAME_BYTES = 180               # of the target's name kept in the temporary's (a name is at most 255)
_swept: set[str] = set()        # the temporaries' prefixes (with their directory) already swept


def _boot_time() -> float:
    """When this machine booted (wall clock, /proc/stat's btime; 0 where it cannot be read)."""
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            for line in stat:
                if line.startswith("btime "):
                    return float(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0.0


_BOOTED = _boot_time()
_STARTED = time.time()   # (imported before this process writes anything)


def _tmp_prefix(path: Path) -> str:
    """``.<name>.``, the name cut to leave room for the pid and the random part (bytes round-trip)."""
    return "." + os.fsdecode(os.fsencode(path.name)[:_NAME_BYTES]) + "."


def _remove_leftovers(directory: Path, prefix: str) -> None:
    """Remove the temporaries of ``prefix`` that a process no longer running left (a power cut).

    Once per directory and prefix in a process: later leftovers could only be this process's.
    """
    key = os.path.join(directory, prefix)
    if key in _swept:
        return
    _swept.add(key)
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        if not (name.startswith(prefix) and name.endswith(TMP_SUFFIX)):
            continue
        pid_text = name[len(prefix):-len(TMP_SUFFIX)].partition("-")[0]
        if not (pid_text.isascii() and pid_text.isdigit() and 0 < len(pid_text) < 10) or int(pid_text) == 0:
            continue                      # not one of ours (os.kill(0, ...) would be the group)
        pid = int(pid_text)
        try:
            written = os.stat(directory / name).st_mtime
        except OSError:
            continue
        # A pid is reused after a reboot (a service often gets the same one): a file older than
        # this boot, or than this process, is a leftover whatever its pid says.
        if written >= _BOOTED and not (pid == os.getpid() and written < _STARTED):
            if pid == os.getpid():
                continue                  # this process's own write in another thread
            try:
                os.kill(pid, 0)
                continue                  # alive (or another user's): perhaps writing it now
            except ProcessLookupError:
                pass
            except OSError:
                continue
        try:
            os.unlink(directory / name)
        except OSError:
            pass


def _write_all(fd: int, data: bytes, tmp: Path) -> None:
    """Write every byte of ``data`` to ``fd``: short writes continued, a write of 0 is ENOSPC."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        if written <= 0:
            raise OSError(errno.ENOSPC, f"{os.strerror(errno.ENOSPC)} (a write returned {written})", str(tmp))
        view = view[written:]


def fsync_directory(directory: Path) -> None:
    """Make the names in ``directory`` durable (a rename is only on disk once its directory is)."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomically(path: str | os.PathLike[str], content: str | bytes, mode: int = DEFAULT_MODE) -> None:
    """Replace ``path`` by ``content`` (text is written as UTF-8) so that a crash leaves old or new.

    The new file has exactly ``mode`` (:data:`PRIVATE_MODE` for secrets). Raises OSError (or
    UnicodeEncodeError) with ``path`` untouched and no temporary file left if the new file
    cannot be written whole; an OSError from the directory's fsync comes after the rename (the
    new file is in place but may not survive a power cut: the caller should write it again).
    The directory must exist.
    """
    path = Path(path)
    data = content.encode("utf-8") if isinstance(content, str) else bytes(content)
    directory = path.parent
    prefix = _tmp_prefix(path)
    _remove_leftovers(directory, prefix)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    while True:
        tmp = directory / f"{prefix}{os.getpid()}-{secrets.token_hex(4)}{TMP_SUFFIX}"
        try:
            fd = os.open(tmp, flags, mode)
            break
        except FileExistsError:           # 1 chance in 4 billion, or someone's link: another name
            continue
    try:
        try:
            os.fchmod(fd, mode)           # exactly mode: the umask may have narrowed it
            _write_all(fd, data, tmp)
            size = os.fstat(fd).st_size
            if size != len(data):
                raise OSError(errno.EIO, f"wrote {size} of {len(data)} bytes", str(tmp))
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    fsync_directory(directory)


__all__ = ["DEFAULT_MODE", "PRIVATE_MODE", "fsync_directory", "write_atomically"]
