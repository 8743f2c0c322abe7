"""Numba flags for every simcore kernel, in one place.

All kernels are compiled with ``cache=True`` so a fresh process loads them
from ``__pycache__`` instead of recompiling, and with ``error_model="numpy"``
so a division never raises from inside a kernel (inputs are validated at the
Python boundary before any kernel runs).  ``fastmath`` stays off: results must
be bit-identical whatever the machine's thread count.

``kernel(refcount=False)`` compiles a kernel without numba's reference
counting (numba's ``_nrt=False``).  Numba otherwise wraps every array
argument of every call between kernels in an ``NRT_incref``/``NRT_decref``
pair; for the small helpers of a hot call tree (an NGS grade passes ~40
arrays down its calls) that is most of the cost: a grade took 367 ns with it
and 125 ns without.  Only kernels that allocate nothing may use it — numba
refuses to compile one that does — and the arrays they get are kept alive by
the Python caller anyway.

Set ``NUMBA_DISABLE_JIT=1`` to run every kernel as plain Python (coverage
runs, debugging); the decorators below then return the function unchanged.
"""

from __future__ import annotations

import numba

JIT_OPTIONS = dict(cache=True, nogil=True, error_model="numpy", fastmath=False)


def kernel(fn=None, *, refcount: bool = True, **extra):
    """Decorate a serial numba kernel with the project's flags (``refcount=False``: see above)."""
    opts = {**JIT_OPTIONS, **extra}
    if not refcount:
        opts["_nrt"] = False
    if fn is None:
        return lambda f: numba.njit(**opts)(f)
    return numba.njit(**opts)(fn)


def parallel_kernel(fn=None, **extra):
    """Decorate a kernel whose outer loop is ``numba.prange``.

    Only loops over independent items (replicates, sessions, scheme variants)
    may be parallel: no cross-thread reductions, so the result never depends
    on the thread count.
    """
    opts = {**JIT_OPTIONS, "parallel": True, **extra}
    if fn is None:
        return lambda f: numba.njit(**opts)(f)
    return numba.njit(**opts)(fn)


prange = numba.prange
