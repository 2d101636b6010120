"""The C heap of a long-running service: large blocks go back to the system once freed (glibc)."""
from __future__ import annotations

# glibc's mallopt parameter: blocks of at least this many bytes are mapped apart and unmapped when
# freed. Left to itself glibc raises the threshold after each large block freed (up to 32 MB), so
# a large endgame search's tables stay in the heap, resident, after its verdict.
M_MMAP_THRESHOLD = -3
LARGE_BLOCK = 128 * 1024


def return_large_blocks(libc_name: str | None = None) -> bool:
    """Fix glibc's mmap threshold (see above); False where the C library has no mallopt
    (musl, macOS): nothing changes there."""
    import ctypes  # here: the service's only use of it
    try:
        libc = ctypes.CDLL(libc_name)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(M_MMAP_THRESHOLD, LARGE_BLOCK))
