"""One bounded read of a kept file: never through a link, never a FIFO or a device, never more bytes than asked.

:func:`read_bounded` is how the firmware reads back a file it keeps (the game in progress, the
library's games and analyses, the training progress, the pairing secret, the sensor faults):

* the file is opened with ``O_NOFOLLOW`` (a symbolic link put in its place fails with ``ELOOP``)
  and ``O_NONBLOCK`` (a FIFO put in its place does not hang the reader until someone writes);
* what was opened must be a regular file (``fstat``): anything else raises :class:`NotRegular`;
* at most ``most`` bytes are read, and ``cut`` says whether there was more, so no file, however
  large, costs more memory than its reader allows.

Standard library only (layer 1).
"""
from __future__ import annotations

import errno
import os
import stat as stat_module
from dataclasses import dataclass
from pathlib import Path

__all__ = ["BoundedRead", "NotRegular", "read_bounded"]

_CHUNK = 64 * 1024
_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | getattr(os, "O_NONBLOCK", 0)


class NotRegular(OSError):
    """What stands at the path is not a regular file (a FIFO, a device, a folder, a socket)."""


@dataclass(frozen=True)
class BoundedRead:
    """The first bytes of a file, whether it had more (``cut``) and its stamp (mtime in ns, size)."""

    data: bytes
    cut: bool
    stamp: tuple[int, int]


def read_bounded(path: str | os.PathLike[str], most: int) -> BoundedRead:
    """The first ``most`` bytes of the regular file at ``path`` (blocking: call it in a worker
    thread on the event loop). OSError as ``os.open`` raises it (FileNotFoundError, ``ELOOP`` for a
    link), NotRegular for anything but a regular file.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = (Path(d) / "f").write_bytes(b"abcdef")
    ...     read_bounded(Path(d) / "f", 4).data, read_bounded(Path(d) / "f", 4).cut
    (b'abcd', True)
    """
    if most < 0:
        raise ValueError("most is a number of bytes, 0 or more")
    fd = os.open(path, _FLAGS)
    try:
        stat = os.fstat(fd)
        if not stat_module.S_ISREG(stat.st_mode):
            raise NotRegular(errno.EINVAL, "not a regular file", str(Path(path)))
    except BaseException:
        os.close(fd)
        raise
    with os.fdopen(fd, "rb") as fh:
        data = fh.read(min(most, stat.st_size))   # (not ``most``: a read reserves what it may get)
        if len(data) < most:                      # grown since: read on, a chunk at a time
            chunks, have = [data], len(data)
            while have < most and (chunk := fh.read(min(most - have, _CHUNK))):
                chunks.append(chunk)
                have += len(chunk)
            data = b"".join(chunks)
        cut = len(fh.read(1)) > 0
    return BoundedRead(data, cut, (stat.st_mtime_ns, stat.st_size))
