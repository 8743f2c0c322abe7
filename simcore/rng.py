"""Random numbers: one seed per run, counter-based streams inside kernels.

A run has one integer seed.  ``numpy.random.SeedSequence`` derives a 64-bit
key per replicate (``replicate_keys``); inside kernels every independent unit
of work (a session, a week of attendance, a board) opens its own stream with
``stream(key, counter...)``.  A stream is a SplitMix64 generator whose state
is a one-element ``uint64`` array the kernel owns.  Because each unit's stream
depends only on (key, counter), results are bit-identical whatever the thread
count or the dask layout: no generator state is shared between threads.

SplitMix64 (Steele, Lea & Flood 2014) passes BigCrush per stream and costs
about 1.5 ns a draw here, against about 14 ns (uniform) and 50 ns (normal)
for numba's ``np.random`` (see ``shared/NOTES.md``).

Kernels use:

* ``new_stream(key, a, b)`` → state array for unit ``(a, b)`` of ``key``;
* ``uniform(state)`` → float in the open interval (0, 1);
* ``normal(state)`` → standard normal (Acklam's inverse CDF, relative error
  below 1.2e-9, no rejection so one uniform per draw);
* ``logistic(state)`` → standard logistic;
* ``below(state, n)`` → integer in [0, n).
"""

from __future__ import annotations

import numpy as np

from simcore._jit import kernel

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)
_TWO_M53 = 1.0 / 9007199254740992.0


def replicate_keys(seed: int, n: int) -> np.ndarray:
    """64-bit stream keys for ``n`` replicates of a run seeded with ``seed``.

    Replicate ``i`` gets the same key whatever ``n`` is, so adding replicates
    never changes the existing ones.
    """
    if not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    children = np.random.SeedSequence(int(seed)).spawn(int(n))
    return np.array([c.generate_state(1, np.uint64)[0] for c in children], dtype=np.uint64)


def child_key(key, *path: int) -> np.uint64:
    """Derive a sub-key from ``key`` and integer labels, in plain Python."""
    k = np.uint64(key)
    with np.errstate(over="ignore"):  # uint64 arithmetic wraps by design
        for p in path:
            k = _mix_py(k ^ _mix_py(np.uint64(p) * _GOLDEN + _GOLDEN))
    return k


def _mix_py(z):
    with np.errstate(over="ignore"):
        z = np.uint64(z)
        z = (z ^ (z >> _S30)) * _M1
        z = (z ^ (z >> _S27)) * _M2
        return z ^ (z >> _S31)


@kernel
def mix64(z):
    """SplitMix64 finaliser: a bijective 64-bit hash."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@kernel
def derive(key, a):
    """Sub-key of ``key`` for integer label ``a`` (same as ``child_key``)."""
    return mix64(np.uint64(key) ^ mix64(np.uint64(a) * _GOLDEN + _GOLDEN))


@kernel
def new_stream(key, a, b):
    """Fresh generator state for unit ``(a, b)`` of stream ``key``."""
    st = np.empty(1, dtype=np.uint64)
    st[0] = derive(derive(key, a), b)
    return st


@kernel
def seed_stream(state, key, a, b):
    """Re-seed an existing state array in place (no allocation)."""
    state[0] = derive(derive(key, a), b)


@kernel(inline="always")
def skip(state, n):
    """Step ``state`` past its next ``n`` draws (of ``next_u64``, ``uniform``, ``normal``: one each), as if
    they were made: a SplitMix64 state is a counter, so the step is one multiply-add."""
    state[0] += np.uint64(n) * _GOLDEN


@kernel
def next_u64(state):
    state[0] += _GOLDEN
    return mix64(state[0])


@kernel
def uniform(state):
    """Uniform on the open interval (0, 1): never exactly 0 or 1."""
    return (np.float64(next_u64(state) >> _S11) + 0.5) * _TWO_M53


@kernel(inline="always")
def uniform_at(counter):
    """The uniform ``uniform`` draws when the stream's state has just become ``counter`` (uint64).

    A SplitMix64 state is a counter: draw k of a stream whose state is x
    sees x + k·golden.  A loop that draws n numbers can keep the counter in
    a register (``counter += GOLDEN`` a draw, ``state[0] = counter`` after)
    instead of storing and reloading the state each draw.
    """
    return (np.float64(mix64(counter) >> _S11) + 0.5) * _TWO_M53


GOLDEN = _GOLDEN  # the step of a stream's counter a draw (``uniform_at``)


@kernel
def below(state, n):
    """Uniform integer in [0, n) for n >= 1 (multiply-shift, bias < 2**-53 n)."""
    return np.int64(uniform(state) * n)


@kernel(helper=True)
def logistic(state):
    u = uniform(state)
    return np.log(u / (1.0 - u))


# Acklam's rational approximation of the standard normal quantile.
_A = np.array([-3.969683028665376e01, 2.209460984245205e02, -2.759285104469687e02,
               1.383577518672690e02, -3.066479806614716e01, 2.506628277459239e00])
_B = np.array([-5.447609879822406e01, 1.615858368580409e02, -1.556989798598866e02,
               6.680131188771972e01, -1.328068155288572e01])
_C = np.array([-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e00,
               -2.549732539343734e00, 4.374664141464968e00, 2.938163982698783e00])
_D = np.array([7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e00,
               3.754408661907416e00])
_P_LOW = 0.02425


@kernel
def normal_quantile(p):
    """Inverse standard normal CDF for p in (0, 1), relative error < 1.2e-9."""
    if p < _P_LOW:
        q = np.sqrt(-2.0 * np.log(p))
        return ((((( _C[0] * q + _C[1]) * q + _C[2]) * q + _C[3]) * q + _C[4]) * q + _C[5]) / \
            ((((_D[0] * q + _D[1]) * q + _D[2]) * q + _D[3]) * q + 1.0)
    if p > 1.0 - _P_LOW:
        q = np.sqrt(-2.0 * np.log(1.0 - p))
        return -((((( _C[0] * q + _C[1]) * q + _C[2]) * q + _C[3]) * q + _C[4]) * q + _C[5]) / \
            ((((_D[0] * q + _D[1]) * q + _D[2]) * q + _D[3]) * q + 1.0)
    return normal_quantile_central(p)


@kernel(forceinline=True)
def normal_quantile_central(p):
    """``normal_quantile``'s formula for _P_LOW <= p <= 1 - _P_LOW (any other p gives a number, not the
    quantile): straight-line arithmetic, so a loop of it over an array vectorises (``bridge.model``'s cut
    points), with the same operations, hence the same bits, as a call of ``normal_quantile``."""
    q = p - 0.5
    r = q * q
    return ((((( _A[0] * r + _A[1]) * r + _A[2]) * r + _A[3]) * r + _A[4]) * r + _A[5]) * q / \
        (((((_B[0] * r + _B[1]) * r + _B[2]) * r + _B[3]) * r + _B[4]) * r + 1.0)


@kernel
def normal(state):
    return normal_quantile(uniform(state))
