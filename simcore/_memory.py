"""Memory hints for kernels that read large arrays at random: prefetch, huge pages.

* ``prefetch(arr, i)`` / ``prefetch_row(arr, row, col)`` ask the CPU to
  start loading the cache line of ``arr[i]`` / ``arr[row, col]`` and go on.
  A hint, nothing more: no value changes, and an address past the array is
  harmless (x86's prefetch never faults).  Issued one unit of work ahead (a
  session's boards, its players), the misses of the next unit overlap the
  work of this one instead of queueing one behind the other.
  ``prefetch_l2`` / ``prefetch_row_l2`` load the line into the second-level
  cache only (prefetcht1): for a burst of lines wanted a whole unit of work
  later (play's next session: ~75 pool lines and ~200 player lines at once),
  which, brought into the first level, evicted one another and the lines
  the session being played was using (measured below, ``simulate.play``).
* ``huge_page_empty(shape, dtype)``: an array on 2 MB pages where the
  system gives them on request (Linux, transparent huge pages in "madvise"
  mode, as on this machine); else ``np.empty``.  A table of several MB read
  at random rows (the bridge model's deal pool) then costs a few TLB
  entries instead of one page walk a row.  ``huge_page_zeros``: the same,
  zeroed without a pass over it (a fresh mapping already is; NGS's and Elo
  pairs' state).
"""

from __future__ import annotations

import mmap

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

_HUGE_PAGE = 2 << 20


def _prefetch_codegen(context, builder, sig, args, locality=3):
    aryty = sig.args[0]
    ary = context.make_array(aryty)(context, builder, args[0])
    ptr = cgutils.get_item_pointer2(context, builder, data=ary.data, shape=cgutils.unpack_tuple(builder, ary.shape),
                                    strides=cgutils.unpack_tuple(builder, ary.strides), layout=aryty.layout,
                                    inds=list(args[1:]), wraparound=False, boundscheck=False)
    i8p = ir.IntType(8).as_pointer()
    i32 = ir.IntType(32)
    fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]),
                                        "llvm.prefetch.p0")
    builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(locality), i32(1)])  # read; 3: every cache level
    return context.get_dummy_value()


def _prefetch_intrinsic(name: str, locality: int, dims: int, doc: str):
    """An intrinsic starting the load of the cache line of ``arr[i]`` (dims 1) or ``arr[row, col]`` (dims 2)
    with LLVM's locality hint ``locality`` (3: into every cache level; 2: the second level and below)."""
    def codegen(context, builder, sig, args):
        return _prefetch_codegen(context, builder, sig, args, locality)

    if dims == 1:
        def typer(typingctx, arr, i):
            return types.none(arr, types.intp), codegen
    else:
        def typer(typingctx, arr, row, col):
            return types.none(arr, types.intp, types.intp), codegen

    typer.__name__ = typer.__qualname__ = name  # numba names the intrinsic after its function
    typer.__doc__ = doc
    return intrinsic(typer)


_prefetch = _prefetch_intrinsic("_prefetch", 3, 1, "Start loading the cache line of ``arr[i]`` (a 1-D array).")
_prefetch_row = _prefetch_intrinsic("_prefetch_row", 3, 2,
                                    "Start loading the cache line of ``arr[row, col]`` (a 2-D array).")
_prefetch_l2 = _prefetch_intrinsic("_prefetch_l2", 2, 1,
                                   "``prefetch`` into the second-level cache, not the first (x86's prefetcht1).")
_prefetch_row_l2 = _prefetch_intrinsic("_prefetch_row_l2", 2, 2,
                                       "``prefetch_row`` into the second-level cache, not the first (prefetcht1).")


def _no_prefetch(arr, *index):
    """``prefetch`` as plain Python (NUMBA_DISABLE_JIT=1): nothing to do."""


prefetch = _no_prefetch if numba.config.DISABLE_JIT else _prefetch
prefetch_row = _no_prefetch if numba.config.DISABLE_JIT else _prefetch_row
prefetch_l2 = _no_prefetch if numba.config.DISABLE_JIT else _prefetch_l2
prefetch_row_l2 = _no_prefetch if numba.config.DISABLE_JIT else _prefetch_row_l2


def huge_page_empty(shape, dtype) -> np.ndarray:
    """An uninitialised C-contiguous array, on 2 MB pages when the system gives them on request.

    Only for arrays of a few MB or more read at random; smaller ones, or a
    system without ``madvise(MADV_HUGEPAGE)``, get ``np.empty``.  The memory
    is an anonymous mapping owned by the array (freed with it).
    """
    return _on_huge_pages(shape, dtype, np.empty)


def huge_page_zeros(shape, dtype, fallback=np.zeros) -> np.ndarray:
    """``huge_page_empty``, all zero bytes: a fresh anonymous mapping is zero already (the kernel clears
    each page on first touch), so nothing is written here (a pass of our own would write every page once
    more: first touches cost dearly on this VM).  Arrays
    smaller than a huge page, or no ``madvise``: ``fallback(shape, dtype)``.  Unlike numpy's own advice
    (which the engine turns off for its chunk arrays: ``engine.memory.small_pages``), this asks for
    huge pages whatever numpy's setting: for state read at random for a whole run."""
    return _on_huge_pages(shape, dtype, fallback)


def _on_huge_pages(shape, dtype, fallback) -> np.ndarray:
    dtype = np.dtype(dtype)
    shape = tuple(int(n) for n in np.atleast_1d(shape))
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    advise = getattr(mmap, "MADV_HUGEPAGE", None)
    if advise is None or nbytes < _HUGE_PAGE:
        return fallback(shape, dtype)
    # one huge page more than needed, to start the array on a 2 MB boundary
    m = mmap.mmap(-1, nbytes + _HUGE_PAGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    try:
        m.madvise(advise)
    except OSError:  # refused (huge pages off): ordinary pages, same array
        pass
    raw = np.frombuffer(m, np.uint8)
    start = -raw.ctypes.data % _HUGE_PAGE
    return raw[start:start + nbytes].view(dtype).reshape(shape)
