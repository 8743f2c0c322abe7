"""engine.memory: glibc's settings take where glibc runs, and are a no-op elsewhere."""

import sys

import pytest

from simcore.engine import memory


def test_keep_freed_memory_takes_on_glibc():
    took = memory.keep_freed_memory()
    assert took == bool(memory._glibc())
    if sys.platform.startswith("linux") and memory._glibc():
        assert took  # every mallopt accepted (glibc refuses an mmap threshold above its maximum)


def test_nothing_happens_without_glibc(monkeypatch):
    monkeypatch.setattr(memory, "_libc", False)
    assert memory.keep_freed_memory() is False


def test_small_pages_turns_numpy_huge_page_advice_off_and_restores_it():
    switch = memory._huge_page_switch()
    assert switch is not None  # numpy has had the switch since 1.20
    before = switch(True)
    try:
        with memory.small_pages():
            assert switch(False) is False  # the setting within the block: off
        assert switch(True) is True  # restored on leaving it
        with pytest.raises(KeyError), memory.small_pages():
            raise KeyError("a failing run")
        assert switch(True) is True  # restored when the run fails too
    finally:
        switch(before)


def test_no_cycle_collection_turns_the_collector_off_and_restores_it():
    import gc
    was = gc.isenabled()
    try:
        gc.enable()
        with memory.no_cycle_collection():
            assert not gc.isenabled()
        assert gc.isenabled()
        with pytest.raises(KeyError), memory.no_cycle_collection():
            raise KeyError("a failing run")
        assert gc.isenabled()  # restored when the run fails too
        gc.disable()
        with memory.no_cycle_collection():
            pass
        assert not gc.isenabled()  # off before: left off
    finally:
        if was:
            gc.enable()


def test_ngs_pool_on_huge_pages_zeroed_and_aligned_even_within_small_pages():
    """NGS's rings, entity rows and partnership table ask for 2 MB pages themselves (numpy's advice is off
    in the engine), start zeroed, and keep their row alignment; small arrays fall back to aligned zeros."""
    import numpy as np

    from simcore._memory import _HUGE_PAGE
    from simcore.schemes import decay
    from simcore.schemes.ngs import PAIR_LOW, _new_pairs

    with memory.small_pages():
        ring_f, ring_i, ent_f, ent_i, pool = decay.new_pool(9000, 96, sized=9000)
        small = decay.aligned_zeros((5, 3), np.int32, huge=True)
        below = decay.aligned_zeros((decay.HUGE_FROM_BYTES // 8 - 1,), np.int64, huge=True)
        pairs = _new_pairs(1_100_000, np.arange(8, dtype=np.int32).reshape(2, 4))
    assert ring_f.nbytes >= _HUGE_PAGE and ring_f.ctypes.data % _HUGE_PAGE == 0
    assert not ring_f.any() and not ring_i.any() and not ent_i[:, decay.IHEAD].any()
    assert np.isnan(ent_f[:, decay.EINIT]).all() and ent_f.ctypes.data % 128 == 0
    assert ent_i.ctypes.data % 128 == 0 and ring_i.ctypes.data % 128 == 0
    assert small.shape == (5, 3) and not small.any() and small.ctypes.data % 128 == 0
    assert pairs.nbytes >= decay.HUGE_FROM_BYTES and ring_f.nbytes >= decay.HUGE_FROM_BYTES
    assert pairs.ctypes.data % _HUGE_PAGE == 0 and pairs.shape == (1_100_000, 4)
    assert pairs[:2].ravel().tolist() == list(range(8))
    assert (pairs[2:, PAIR_LOW] == -1).all() and not pairs[2:, :PAIR_LOW].any()
    ring_f[-1, -1] = 1.0  # writable to the last row
    import mmap
    if sys.platform.startswith("linux") and hasattr(mmap, "MADV_HUGEPAGE"):
        for arr in (ring_f, ring_i, pairs):
            assert "hg" in _vm_flags(arr.ctypes.data)  # the mapping was advised (MADV_HUGEPAGE)
    # below HUGE_FROM_BYTES: ordinary 128-byte aligned zeros from numpy, not a mapping of their own (its
    # VmFlags may still say "hg": glibc can serve it from heap that numpy advised before)
    assert _own_mapping(pairs) and _own_mapping(ring_f) and not _own_mapping(below)
    assert below.ctypes.data % 128 == 0 and not below.any()


def _own_mapping(arr) -> bool:
    """Does ``arr`` view a mapping of its own (``_memory._on_huge_pages``), not numpy's memory?"""
    import mmap

    import numpy as np
    while isinstance(arr.base, np.ndarray):
        arr = arr.base
    base = arr.base.obj if isinstance(arr.base, memoryview) else arr.base
    return isinstance(base, mmap.mmap)


def _vm_flags(address):
    """VmFlags of the mapping of this process that holds ``address`` (/proc/self/smaps)."""
    inside = False
    for line in open("/proc/self/smaps"):
        head = line.split()[0]
        if "-" in head and ":" not in head:
            lo, hi = (int(x, 16) for x in head.split("-"))
            inside = lo <= address < hi
        elif inside and head == "VmFlags:":
            return line.split()[1:]
    raise AssertionError(f"no mapping holds {address:#x}")
