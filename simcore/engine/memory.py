"""How a run's memory is managed: freed chunk arrays kept for the next chunk (glibc only), small pages,
Python's cyclic collector off (``no_cycle_collection``).

A chunk's arrays (a national month: about a million travellers, several
arrays of 4-10 MB) are allocated by numpy and numba, both through
``malloc``, and freed once every scheme has graded the chunk.  By default
glibc returns such blocks to the kernel (blocks above its mmap threshold
are unmapped at free; the top of a heap above its trim threshold is given
back), so the next chunk faults in fresh pages that the kernel zeroes (2 MB
at a time where numpy advised huge pages: see ``small_pages`` below).
``keep_freed_memory()`` raises the mmap threshold
to glibc's maximum (32 MiB on 64-bit) and the trim threshold out of reach,
so those blocks stay in the heap and are reused, by the next chunk and by
the next run in the same process (``simcore bench``, a sweep's worker).

Measured (national, 1 year after a warm-up run, 2 threads, 3 interleaved
pairs, loaded machine): page faults 72-75 k with glibc's defaults, 33-35 k
with these settings; system time median 1.4 s -> 0.8 s; peak memory
unchanged (1.2 GB).  Handing the free memory back at a run's end
(``malloc_trim``) made the next run in the process fault it in again: the
bench's later runs 6 700 faults each instead of 10-200 (2 processes x 3
runs).  One arena for every thread (``M_ARENA_MAX=1``) kept
0.2 GB more; numpy without huge pages (``NUMPY_MADVISE_HUGEPAGE=0``) had
2-3x as many (4 KB) faults.

The cost: after a run the process keeps the heap it freed (resident
until reused), as glibc already does for smaller blocks.  Nothing changes
a result: only where freed memory goes.  Elsewhere (not Linux, or another
C library) ``keep_freed_memory`` does nothing.

``small_pages()``: numpy asks the kernel for transparent huge pages on
every array of 4 MB or more (``madvise``).  Where the kernel's THP defrag
setting is ``madvise`` (this machine's, and a common default), each such
fault may compact memory synchronously to find a free 2 MB page, so the
advice costs system time instead of saving it.  Within ``small_pages()``
numpy gives no such advice (``_set_madvise_hugepage``, numpy's switch for
``NUMPY_MADVISE_HUGEPAGE``); leaving the block restores numpy's setting.
Measured (idle machine, interleaved, after a warm-up run): national decade
19.5-20.7 s wall (sys 4.0-4.9 s) with the advice, 18.8-19.2 s (sys
2.2-2.7 s) without, 5-6 times the page faults but each a 4 KB one; acbl
year 14.1 s (sys 6.6 s) against 11.5 s (sys 3.6 s).  Nothing changes a
result: only how memory is mapped.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import sys

import numpy as np

M_TRIM_THRESHOLD = -1  # glibc's mallopt parameters (malloc.h)
M_TOP_PAD = -2
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD_MAX = 32 << 20  # glibc refuses more on 64-bit (HEAP_MAX_SIZE / 2)
TRIM_THRESHOLD = 2**31 - 1  # mallopt takes an int: 2 GiB, out of reach of one chunk's arrays
TOP_PAD = 256 << 20

_libc = None


def _glibc():
    global _libc
    if _libc is None:
        _libc = False
        if sys.platform.startswith("linux"):
            try:
                libc = ctypes.CDLL(None)
                libc.gnu_get_libc_version  # glibc only: musl's mallopt does nothing useful
                _libc = libc
            except (OSError, AttributeError):
                pass
    return _libc


def keep_freed_memory() -> bool:
    """Have glibc keep freed blocks up to 32 MiB for reuse; True when the settings took (glibc)."""
    libc = _glibc()
    if not libc:
        return False
    ok = libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_MAX) == 1
    ok &= libc.mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1
    ok &= libc.mallopt(M_TOP_PAD, TOP_PAD) == 1
    return bool(ok)


def _huge_page_switch():
    """numpy's switch for its huge-page advice (returns the previous setting), or None if this numpy has none."""
    core = getattr(np, "_core", None) or getattr(np, "core", None)
    return getattr(getattr(core, "multiarray", None), "_set_madvise_hugepage", None)


@contextlib.contextmanager
def small_pages():
    """Within the block numpy does not advise huge pages for its large arrays (see the module doc)."""
    switch = _huge_page_switch()
    if switch is None:
        yield
        return
    before = switch(False)
    try:
        yield
    finally:
        switch(before)


@contextlib.contextmanager
def no_cycle_collection():
    """Python's cyclic collector off within the block (restored after, if it was on).

    A run makes many short-lived containers and almost no cycles (about 1 200 objects in cycles after
    half a national year), so collections are pure cost: 350 of them, 0.5-0.6 s, in a half-year
    national run (gc.callbacks, loaded machine; ~6 % of its CPU); reference counting still frees
    everything else.
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
