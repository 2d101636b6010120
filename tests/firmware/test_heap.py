"""firmware.heap: glibc's mmap threshold fixed at start; a C library without mallopt changes nothing."""
from __future__ import annotations

import platform

import pytest

from firmware.heap import return_large_blocks


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt is glibc's")
def test_glibc_takes_the_threshold():
    assert return_large_blocks() is True


def test_a_c_library_that_cannot_be_loaded_is_left_alone():
    assert return_large_blocks("/nonexistent/libc.so") is False
