"""firmware.heap: glibc's mmap threshold fixed and one heap for every thread; a C library without mallopt changes nothing."""
from __future__ import annotations

import platform
import subprocess
import sys
from pathlib import Path

import pytest

from firmware.heap import one_heap, return_large_blocks

ROOT = Path(__file__).resolve().parents[2]
glibc_only = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt is glibc's")

# Counts glibc's heaps (malloc_info's <heap nr=...>) after a thread has allocated and kept 2 MB
# in blocks above Python's small-object allocator (which does not use malloc's heaps).
HEAPS_AFTER_A_THREAD = """
import ctypes, sys, threading
sys.path.insert(0, {root!r})
from firmware.heap import one_heap
if {one}:
    assert one_heap()
kept = []
thread = threading.Thread(target=lambda: kept.extend(bytes(2000) for _ in range(1000)))
thread.start(); thread.join()
libc = ctypes.CDLL(None)
libc.open_memstream.restype = ctypes.c_void_p
buf, size = ctypes.c_char_p(), ctypes.c_size_t()
stream = libc.open_memstream(ctypes.byref(buf), ctypes.byref(size))
libc.malloc_info(0, ctypes.c_void_p(stream))
libc.fclose(ctypes.c_void_p(stream))
print(buf.value.decode().count("<heap nr="))
"""


def heaps_after_a_thread(one: bool) -> int:
    out = subprocess.run([sys.executable, "-c", HEAPS_AFTER_A_THREAD.format(root=str(ROOT), one=one)],
                         capture_output=True, text=True, check=True)
    return int(out.stdout)


@glibc_only
def test_glibc_takes_the_threshold():
    assert return_large_blocks() is True


@glibc_only
def test_a_thread_allocates_from_the_one_heap():
    assert heaps_after_a_thread(one=False) >= 2    # glibc's own way: the thread gets a heap of its own
    assert heaps_after_a_thread(one=True) == 1


def test_a_c_library_that_cannot_be_loaded_is_left_alone():
    assert return_large_blocks("/nonexistent/libc.so") is False
    assert one_heap("/nonexistent/libc.so") is False
