"""The C heap of a long-running service on a small board: one heap for all threads, large blocks returned (glibc)."""
from __future__ import annotations

# glibc's mallopt parameters.
# M_MMAP_THRESHOLD: blocks of at least this many bytes are mapped apart and unmapped when freed.
# Left to itself glibc raises the threshold after each large block freed (up to 32 MB), so a
# large endgame search's tables stay in the heap, resident, after its verdict.
M_MMAP_THRESHOLD = -3
LARGE_BLOCK = 128 * 1024
# M_ARENA_MAX: how many heaps ("arenas") threads may spread over. Left to itself glibc gives a
# thread that allocates its own arena (up to 8 per core): the thread that loads the page's
# modules kept 2 MB resident in its own, 6 % of what a Pi Zero 2 W can spare. Python's threads
# take turns (the GIL), so one heap costs them no waiting worth the memory.
M_ARENA_MAX = -8


def _mallopt(param: int, value: int, libc_name: str | None) -> bool:
    import ctypes  # here: the service's only use of it
    try:
        mallopt = ctypes.CDLL(libc_name).mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(param, value))


def return_large_blocks(libc_name: str | None = None) -> bool:
    """Fix glibc's mmap threshold (see above); False where the C library has no mallopt
    (musl, macOS): nothing changes there."""
    return _mallopt(M_MMAP_THRESHOLD, LARGE_BLOCK, libc_name)


def one_heap(libc_name: str | None = None) -> bool:
    """Every thread allocates from the one heap (see above); call before threads start. False
    where the C library has no mallopt: nothing changes there."""
    return _mallopt(M_ARENA_MAX, 1, libc_name)
