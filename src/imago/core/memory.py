"""Keeping freed memory in the process, so that short-lived arrays do not fault pages in again.

Every move of the public Go API makes a new position, and with it a new state array of some
kilobytes (positions are immutable values). A game keeps its positions alive through
``previous``; when it ends they are all freed at once, and glibc's ``malloc`` gives the top
of its heap back to the operating system as soon as more than 128 KiB of it is free. The next
game then takes the same memory back page by page, each page a fault that the kernel zeroes:
about a third of a random 9x9 game's time through the public API on Linux (`imago bench go`).

:func:`retain_freed_memory` raises that trim threshold once per process, so that up to
``limit`` bytes of freed heap stay mapped for the next allocations. Setting it turns off
glibc's own adjustment of the size above which an allocation gets pages of its own (``mmap``,
returned at ``free``), so that size is set too, to the most glibc would raise it to (32 MiB):
otherwise every large array (a batch of observations) would fault its pages in afresh. It
changes nothing where the C library is not glibc, and nothing when ``IMAGO_KEEP_MEMORY=0``.

The setting is the process's, not a library's to take: the ``imago`` command line makes it for
its own process (play, gtp, match, self-play, the benchmarks); a program that uses imago as a
library and plays many games calls :func:`retain_freed_memory` itself if it wants the same.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys

_M_TRIM_THRESHOLD = -1  # glibc's mallopt parameter numbers
_M_MMAP_THRESHOLD = -3
_MMAP_THRESHOLD = 32 << 20  # glibc's DEFAULT_MMAP_THRESHOLD_MAX on 64-bit systems
_done = False


def retain_freed_memory(limit: int = 64 << 20) -> bool:
    """Ask glibc's ``malloc`` to keep up to ``limit`` bytes (at least 64 MiB) of freed heap
    mapped, once per process. Returns whether the setting is in force."""
    global _done
    if _done:
        return True
    if not sys.platform.startswith("linux") or os.environ.get("IMAGO_KEEP_MEMORY") == "0":
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    _done = bool(mallopt(_M_TRIM_THRESHOLD, max(limit, 2 * _MMAP_THRESHOLD)) == 1)
    _done = _done and bool(mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD) == 1)
    return _done
