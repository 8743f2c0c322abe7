"""engine.memory: glibc's settings take where glibc runs, and are a no-op elsewhere."""

import sys

from simcore.engine import memory


def test_keep_freed_memory_takes_on_glibc():
    took = memory.keep_freed_memory()
    assert took == bool(memory._glibc())
    if sys.platform.startswith("linux") and memory._glibc():
        assert took  # every mallopt accepted (glibc refuses an mmap threshold above its maximum)


def test_nothing_happens_without_glibc(monkeypatch):
    monkeypatch.setattr(memory, "_libc", False)
    assert memory.keep_freed_memory() is False
