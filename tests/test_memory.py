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
