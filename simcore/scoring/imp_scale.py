"""The WBF IMP scale and the WBF continuous IMP-to-VP scale.

``imps(diff)`` converts a difference in bridge points (any real number, e.g.
against a Butler datum) to International Match Points with the standard WBF
table: 0–10 points → 0 IMPs, 20–40 → 1, …, 4000+ → 24.  A difference falls
in the band whose lower edge it reaches, so 15 → 0 and 20 → 1.

``victory_points(imp_margin, boards)`` is the WBF (2013) continuous scale:
a draw is 10–10, a blitz of X = 15·√boards IMPs or more is 20–0, and in
between V = 10 + 10·(1 − τ^(3m/X)) / (1 − τ³) with τ = (√5 − 1)/2, so each
extra IMP is worth no more than the one before.
"""

from __future__ import annotations

import numpy as np

from simcore._jit import kernel

IMP_BAND_LOWER_EDGES = np.array(
    [20, 50, 90, 130, 170, 220, 270, 320, 370, 430, 500, 600, 750, 900, 1100, 1300, 1500,
     1750, 2000, 2250, 2500, 3000, 3500, 4000], dtype=np.float64)
"""Point differences at which 1, 2, …, 24 IMPs start (WBF scale)."""

_TAU = (np.sqrt(5.0) - 1.0) / 2.0


IMPS_BY_TENS = np.searchsorted(IMP_BAND_LOWER_EDGES, 10.0 * np.arange(401), side="right").astype(np.int64)
"""IMPs for a difference of 10·k points, k = 0..400: the edges reached (every edge is a multiple of 10)."""


@kernel
def imps(diff):
    """IMPs (signed) for a difference of ``diff`` bridge points."""
    a = abs(diff)
    # every edge is a multiple of 10, so for a >= 0 (whole or not) the edges reached are those of
    # 10·floor(floor(a) / 10): one table load, 2.3-3x less time than 24 compares per cross-IMP
    # (a NaN reaches no edge, as with compares)
    if a < 4000:
        n = IMPS_BY_TENS[np.int64(a) // 10]
    else:
        n = 24 if a >= 4000 else 0
    return n if diff >= 0 else -n


@kernel
def victory_points(imp_margin, boards):
    """WBF continuous VPs (0..20) won by a side ``imp_margin`` IMPs up over ``boards`` boards."""
    blitz = 15.0 * np.sqrt(boards)
    m = abs(imp_margin)
    if m >= blitz:
        v = 20.0
    else:
        v = 10.0 + 10.0 * (1.0 - _TAU ** (3.0 * m / blitz)) / (1.0 - _TAU ** 3)
    return v if imp_margin >= 0 else 20.0 - v
