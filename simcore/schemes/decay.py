"""Decay shapes for session-grade schemes, kept incrementally (SPEC §1.5, NGS FR 2, FR 16).

A current grade is a weighted mean of session grades, the weight of a
session being the integral of a decay kernel K(b) over the boards played
since it ("ages"): a session of x boards whose newest board has b boards
after it covers ages [b, b + x].  Shapes (``SHAPES``):

* ``line``      K(b) = N − b on [0, N]: the NGS straight line (triangle);
* ``rectangle`` K(b) = 1 on [0, N]: a plain moving window of N boards;
* ``trapezium`` K(b) = 1 on [0, F], falling linearly to 0 at N;
* ``exponential`` K(b) = exp(−b/τ), τ = half-life / ln 2: every board takes
  a fixed share (PPI-style), no window.

Storage: per entity (player or partnership) a circular ring of its sessions
in date-of-play order — each entity's ring a slice of one shared pool
(``IOFF``, ``ICAP``) that moves to the pool's tail, larger, when the kernel
is about to fill it (``grow_ring``; the slices left behind are reclaimed
rarely, ``reclaim``), so a national population's rings take what its
players actually keep —  with, per session, its board-clock position E (boards
of the entity up to the end of the session), span x, weight factor φ and
session grade g, and running cumulative sums of φx, φx(E − x/2), φgx and
φgx(E − x/2); the entity's row repeats its newest session's sums, clock
position and day, so that at national scale (state far larger than the
caches) a grade reads one ring row, the oldest, and an append writes one.  With the clock T, a session fully inside a linear segment
K = α + βb of the kernel has weight φx(α + β(T − E + x/2)), so the weights
of every session inside a segment come from two cumulative-sum lookups,
located by binary search on E: O(segments · log n) per grade, no matter how
long the history.  The session straddling each knot and the 300-board
padding are integrated exactly.  Exponential: cumulative sums of
φτ(1 − e^{−x/τ})·e^{(E − E_ref)/τ} with the reference rebased as the clock
runs, so the sum times e^{−(T − E_ref)/τ} is the total weight.

Kernel layout: ``DecayShape``, the segments as scalars (``kernel_shape``).
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np

from simcore._jit import helper, kernel
from simcore._memory import huge_page_zeros
# into the second-level cache (prefetcht1): NGS's cursors keep ~50 lines in flight a few entries ahead, and in the
# first level they evicted the lines of the entry being graded (national year, all schemes, one thread: the apply
# kernel 6.84-6.94 -> 5.4-5.8 ns per player-board; default unchanged, 5.3-5.7 both)
from simcore._memory import prefetch_row_l2 as prefetch

SHAPES = ("line", "exponential", "rectangle", "trapezium")

# ring_f columns: a row is 64 bytes on a 64-byte boundary (one cache line: the oldest session, read
# by every grade and eviction, costs one line)
RE, RX, RPHI, RG, CA, CB, CC, CD = range(8)
N_RF = 8
# ring_i columns (int32): day of play, partnership, sequence number, real boards (16 bytes, aligned: the
# oldest session and the next ones share a cache line)
RDAY, RPID, RSEQ, RB = range(4)
N_RI = 4
RING_INT = np.int32
INT32_MAX = 2**31 - 1
# ent_f columns: clock, cumulative bases, exponential reference, initial grade, real boards in the ring,
# then the newest session's cumulative sums and clock position (copies of its ring row, so a grade and
# an append need only the entity's rows and the oldest session: at national scale every ring row read
# is a cache miss); 16 columns, 128 bytes aligned
ET, BA, BB, BC, BD, EREF, EINIT, EBOARDS, LA, LB, LC, LD, LE = range(13)
N_EF = 16
# ent_i columns: oldest slot, count, boards ever, reached 300 (padding off), sessions ever, the newest
# session's day, where the entity's ring starts in the shared pool and its capacity (sessions)
IHEAD, ICNT, ITOTAL, IEVER, ISESS, ILDAY, IOFF, ICAP = range(8)
N_EI = 8
# the pool's bookkeeping (int64 array of 3, updated by the kernels that grow rings): rows handed out
# (the slices of live rings and the ones they left behind), the live rings' capacities in total, and
# the capacity a ring of MIN_CAPACITY grows to first (``new_pool``)
PUSED, PCAPS, PFIRST = range(3)


DecayShape = namedtuple("DecayShape", "n_seg knot1 knot2 alpha0 alpha1 beta0 beta1 tau")
DecayShape.__doc__ = """A decay kernel as scalars (boards): K(b) = alpha0 + beta0·b on [0, knot1] and, when n_seg is
2, alpha1 + beta1·b on [knot1, knot2]; tau > 0 (boards) selects exp(−b/τ) instead.  Scalars, not arrays,
so a kernel reading the shape takes eight doubles instead of three array structs."""


def kernel_shape(shape: str, window: float, flat: float = 0.0, half_life: float = 0.0) -> DecayShape:
    """The DecayShape of a decay shape; window/flat/half-life in boards."""
    if shape == "line":
        return DecayShape(1, float(window), float(window), float(window), 0.0, -1.0, 0.0, 0.0)
    if shape == "rectangle":
        return DecayShape(1, float(window), float(window), 1.0, 0.0, 0.0, 0.0, 0.0)
    if shape == "trapezium":
        if not 0 < flat < window:
            raise ValueError(f"trapezium: flat={flat} must lie between 0 and the window {window}")
        return DecayShape(2, float(flat), float(window), 1.0, window / (window - flat), 0.0, -1.0 / (window - flat),
                          0.0)
    if shape == "exponential":
        if half_life <= 0:
            raise ValueError(f"exponential: half_life={half_life} must be positive")
        return DecayShape(1, np.inf, np.inf, 1.0, 0.0, 0.0, 0.0, half_life / math.log(2.0))
    raise ValueError(f"unknown decay shape {shape!r}; choose from {', '.join(SHAPES)}")


@helper(refcount=False, forceinline=True)
def _segment(sh, j):
    """(start, end, alpha, beta) of segment j (boards)."""
    if j == 0:
        return 0.0, sh.knot1, sh.alpha0, sh.beta0
    return sh.knot1, sh.knot2, sh.alpha1, sh.beta1


@helper(refcount=False, forceinline=True)
def kernel_integral(u, v, sh):
    """∫_u^v K(b) db (boards)."""
    if v <= u:
        return 0.0
    if sh.tau > 0.0:
        return sh.tau * (np.exp(-u / sh.tau) - np.exp(-v / sh.tau))
    total = 0.0
    for j in range(sh.n_seg):
        k0, k1, a, b = _segment(sh, j)
        lo = max(u, k0)
        hi = min(v, k1)
        if hi > lo:
            total += a * (hi - lo) + b * (hi * hi - lo * lo) / 2.0
    return total


@kernel(refcount=False, forceinline=True)  # tests call it from Python
def prefetch_entity(ent_f, ent_i, ent):
    """Start loading an entity's rows (ent_f: two lines)."""
    prefetch(ent_i, ent, 0)
    prefetch(ent_f, ent, 0)
    prefetch(ent_f, ent, 8)


@kernel(refcount=False, forceinline=True)  # tests call it from Python
def prefetch_ring_ends(ring_f, ring_i, ent_i, ent):
    """Start loading an entity's oldest session (every grade reads it), the next oldest (where an
    eviction goes on: ring_i's row shares the oldest's line, mostly) and the row its next session
    goes to (reads its entity row: prefetch that first, some time before)."""
    p = _phys(ent_i, ent, 0)
    prefetch(ring_f, p, 0)
    prefetch(ring_i, p, 0)
    prefetch(ring_f, _phys(ent_i, ent, 1), 0)
    p = _phys(ent_i, ent, ent_i[ent, ICNT])
    prefetch(ring_f, p, 0)
    prefetch(ring_i, p, 0)


@helper(refcount=False, forceinline=True)
def _phys(ent_i, ent, i):
    """Pool row of the entity's logical session i (0 = oldest; 0 <= i < capacity)."""
    # each entity's ring is its own slice of the pool, sized to what it holds (grow_ring): any capacity,
    # so the wrap is a compare, not a power-of-two mask
    r = ent_i[ent, IHEAD] + i
    if r >= ent_i[ent, ICAP]:
        r -= ent_i[ent, ICAP]
    return ent_i[ent, IOFF] + r


@helper(refcount=False, forceinline=True)
def _cum(ring_f, ent_f, ent_i, ent, i, col, base_col):
    """Cumulative sum up to logical session i (−1 → the base)."""
    if i < 0:
        return ent_f[ent, base_col]
    return ring_f[_phys(ent_i, ent, i), col]


@helper(refcount=False, forceinline=True)
def _values(E, x, phi, g, tau, eref):
    """The four cumulative-sum terms of one session."""
    if tau > 0.0:
        u = phi * tau * (1.0 - np.exp(-x / tau)) * np.exp((E - eref) / tau)
        return u, 0.0, u * g, 0.0
    a = phi * x
    b = a * (E - x / 2.0)
    return a, b, a * g, b * g


@helper(refcount=False, forceinline=True)
def rebuild_cum(ring_f, ring_i, ent_f, ent_i, ent, first, tau, appended):
    """Recompute the cumulative sums from logical session ``first`` on, then the newest's copies.

    ``appended``: session ``first`` was appended after the newest, whose sums the entity row holds
    (the same numbers as its ring row, read without touching that row).
    """
    n = ent_i[ent, ICNT]
    if first == 0:
        sa, sb, sc, sd = ent_f[ent, BA], ent_f[ent, BB], ent_f[ent, BC], ent_f[ent, BD]
    elif appended:
        sa, sb, sc, sd = ent_f[ent, LA], ent_f[ent, LB], ent_f[ent, LC], ent_f[ent, LD]
    else:
        p = _phys(ent_i, ent, first - 1)
        sa, sb, sc, sd = ring_f[p, CA], ring_f[p, CB], ring_f[p, CC], ring_f[p, CD]
    for i in range(first, n):
        p = _phys(ent_i, ent, i)
        va, vb, vc, vd = _values(ring_f[p, RE], ring_f[p, RX], ring_f[p, RPHI], ring_f[p, RG],
                                 tau, ent_f[ent, EREF])
        sa += va
        sb += vb
        sc += vc
        sd += vd
        ring_f[p, CA] = sa
        ring_f[p, CB] = sb
        ring_f[p, CC] = sc
        ring_f[p, CD] = sd
    ent_f[ent, LA] = sa
    ent_f[ent, LB] = sb
    ent_f[ent, LC] = sc
    ent_f[ent, LD] = sd
    if n > 0:
        p = _phys(ent_i, ent, n - 1)
        ent_f[ent, LE] = ring_f[p, RE]
        ent_i[ent, ILDAY] = ring_i[p, RDAY]


@helper(refcount=False, forceinline=True)
def _search(ring_f, ent_i, ent, n, value):
    """Number of logical sessions whose E is <= value."""
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi) // 2
        p = _phys(ent_i, ent, mid)
        if ring_f[p, RE] <= value:
            lo = mid + 1
        else:
            hi = mid
    return lo


@helper(refcount=False, forceinline=True)
def _count_below(ring_f, ent_i, ent, n, value):
    """Number of logical sessions whose start (E − x) is < value."""
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi) // 2
        p = _phys(ent_i, ent, mid)
        if ring_f[p, RE] - ring_f[p, RX] < value:
            lo = mid + 1
        else:
            hi = mid
    return lo


@helper(refcount=False, forceinline=True)
def _padded_mean(ring_f, ent_f, ent_i, ent, n, T, sh, pad_boards, sw, sgw):
    """The current grade (grade points) from the ring's weight sums ``sw`` and ``sgw`` (weight × grade)
    of an entity holding ``n`` sessions at clock ``T``: the padding at the initial grade added while it
    is on, the initial grade (or NaN) when there is nothing to average.  The end of both
    ``current_grade`` and ``current_grade_one_segment``."""
    if ent_i[ent, IEVER] == 0 and ent_f[ent, EBOARDS] < pad_boards and not np.isnan(ent_f[ent, EINIT]):
        oldest_far = 0.0
        if n > 0:
            p = _phys(ent_i, ent, 0)
            oldest_far = T - ring_f[p, RE] + ring_f[p, RX]
        w = kernel_integral(oldest_far, oldest_far + (pad_boards - ent_f[ent, EBOARDS]), sh)
        sw += w
        sgw += w * ent_f[ent, EINIT]
    if sw <= 0.0:  # nothing to average: the initial grade, until 300 boards were reached
        return ent_f[ent, EINIT] if ent_i[ent, IEVER] == 0 else np.nan
    return sgw / sw


@kernel(refcount=False, helper=True)
def current_grade(ring_f, ent_f, ent_i, ent, sh, pad_boards):
    """Current grade (grade points): the weighted mean of the entity's session grades plus the padding.

    One function (its helpers inlined, the shape as scalars): a grade is a
    few cumulative-sum lookups, and a call tree passing the ring arrays
    down cost more than the arithmetic.  Session weights w = φ ∫ K over the
    session's ages; the ring must hold no session wholly beyond the window
    (callers drop them first), so the window's end needs no search: O(1)
    for the line and the rectangle, one binary search per interior knot
    otherwise.  Padding: until the entity has reached ``pad_boards`` boards
    (IEVER), its history is extended with (pad_boards − real boards) boards
    at its initial grade, sitting oldest.  NaN when there is nothing to
    average after 300 boards were reached.
    """
    n = ent_i[ent, ICNT]
    T = ent_f[ent, ET]
    sw = 0.0
    sgw = 0.0
    if n > 0:
        if sh.tau > 0.0:
            scale = np.exp(-(T - ent_f[ent, EREF]) / sh.tau)
            sw = (ent_f[ent, LA] - ent_f[ent, BA]) * scale  # LA: the newest session's cumulative sum
            sgw = (ent_f[ent, LC] - ent_f[ent, BC]) * scale
        else:
            m = sh.n_seg
            p0 = _phys(ent_i, ent, 0)
            for j in range(m):
                k0, k1, alpha, beta = _segment(sh, j)
                # sessions fully in [k0, k1]: start >= T - k1 and E <= T - k0
                if j == m - 1:
                    # sessions wholly beyond the window are dropped, so only the oldest can reach past it
                    i_lo = 1 if ring_f[p0, RE] - ring_f[p0, RX] < T - k1 else 0
                else:
                    i_lo = _count_below(ring_f, ent_i, ent, n, T - k1)
                if j == 0:
                    i_hi = n - 1  # every session's newest board is at age >= 0
                else:
                    i_hi = _search(ring_f, ent_i, ent, n, T - k0) - 1
                if i_lo <= i_hi:
                    if i_hi == n - 1:  # the newest: its sums are copied in the entity row
                        ha, hb, hc, hd = ent_f[ent, LA], ent_f[ent, LB], ent_f[ent, LC], ent_f[ent, LD]
                    else:
                        ph = _phys(ent_i, ent, i_hi)
                        ha, hb, hc, hd = ring_f[ph, CA], ring_f[ph, CB], ring_f[ph, CC], ring_f[ph, CD]
                    if i_lo > 0:
                        pl = _phys(ent_i, ent, i_lo - 1)
                        a_sum = ha - ring_f[pl, CA]
                        b_sum = hb - ring_f[pl, CB]
                        c_sum = hc - ring_f[pl, CC]
                        d_sum = hd - ring_f[pl, CD]
                    else:
                        a_sum = ha - ent_f[ent, BA]
                        b_sum = hb - ent_f[ent, BB]
                        c_sum = hc - ent_f[ent, BC]
                        d_sum = hd - ent_f[ent, BD]
                    sw += (alpha + beta * T) * a_sum - beta * b_sum
                    sgw += (alpha + beta * T) * c_sum - beta * d_sum
            # sessions straddling a knot: integrate exactly (each once, at its first knot)
            for j in range(1, m + 1):
                k = sh.knot1 if j == 1 else sh.knot2
                if j == m:
                    i = 0  # only the oldest can straddle the window's end
                else:
                    i = _count_below(ring_f, ent_i, ent, n, T - k) - 1  # last session starting before age k
                if i < 0:
                    continue
                p = _phys(ent_i, ent, i)
                near = T - ring_f[p, RE]
                far = near + ring_f[p, RX]
                if near < k < far and (j == 1 or near >= sh.knot1):
                    w = ring_f[p, RPHI] * kernel_integral(near, far, sh)
                    sw += w
                    sgw += w * ring_f[p, RG]
    return _padded_mean(ring_f, ent_f, ent_i, ent, n, T, sh, pad_boards, sw, sgw)


@kernel(helper=True, refcount=False)
def current_grade_one_segment(ring_f, ent_f, ent_i, ent, sh, pad_boards):
    """``current_grade`` for a one-segment kernel without exponential (``line``, ``rectangle``:
    sh.n_seg 1, sh.tau 0), a plain call (inlined into each of _grade_now's four sites it cost ~5 s of a
    first run's compile for 5-10 % of NGS's national kernel time): the same arithmetic in the same order
    (bit for bit), without the call and the loops over segments and knots.  Grade points."""
    n = ent_i[ent, ICNT]
    T = ent_f[ent, ET]
    sw = 0.0
    sgw = 0.0
    if n > 0:
        p0 = _phys(ent_i, ent, 0)
        e0 = ring_f[p0, RE]
        x0 = ring_f[p0, RX]
        k1 = sh.knot1
        alpha = sh.alpha0
        beta = sh.beta0
        # sessions wholly inside the window: all, less the oldest when it reaches past the window's end
        if e0 - x0 < T - k1:
            a_sum = ent_f[ent, LA] - ring_f[p0, CA]
            b_sum = ent_f[ent, LB] - ring_f[p0, CB]
            c_sum = ent_f[ent, LC] - ring_f[p0, CC]
            d_sum = ent_f[ent, LD] - ring_f[p0, CD]
            inside = n > 1
        else:
            a_sum = ent_f[ent, LA] - ent_f[ent, BA]
            b_sum = ent_f[ent, LB] - ent_f[ent, BB]
            c_sum = ent_f[ent, LC] - ent_f[ent, BC]
            d_sum = ent_f[ent, LD] - ent_f[ent, BD]
            inside = True
        if inside:
            sw += (alpha + beta * T) * a_sum - beta * b_sum
            sgw += (alpha + beta * T) * c_sum - beta * d_sum
        # the oldest straddling the window's end: integrated exactly
        near = T - e0
        far = near + x0
        if near < k1 < far:
            w = ring_f[p0, RPHI] * kernel_integral(near, far, sh)
            sw += w
            sgw += w * ring_f[p0, RG]
    return _padded_mean(ring_f, ent_f, ent_i, ent, n, T, sh, pad_boards, sw, sgw)


# --- ring operations ---------------------------------------------------------------

@kernel(refcount=False, helper=True)
def add_session(ring_f, ring_i, ent_f, ent_i, ent, g, boards, span, phi, day, pid, seq, tau):
    """Insert a session in date-of-play order (late-scored sessions go before newer ones).

    The caller guarantees room (count < capacity).  Newer sessions' clock
    positions move up by the span, so their ages stay the same and older
    sessions age by the span, as if the session had been played in order.
    """
    n = ent_i[ent, ICNT]
    q = n
    # ILDAY, LE: the newest session's day and clock, copied in the entity row (its ring row is not read)
    if n > 0 and ent_i[ent, ILDAY] > day:
        q = n - 1
        while q > 0 and ring_i[_phys(ent_i, ent, q - 1), RDAY] > day:
            q -= 1
    for i in range(n, q, -1):  # shift newer sessions up one slot
        src = _phys(ent_i, ent, i - 1)
        dst = _phys(ent_i, ent, i)
        for c in range(ring_f.shape[1]):
            ring_f[dst, c] = ring_f[src, c]
        for c in range(ring_i.shape[1]):
            ring_i[dst, c] = ring_i[src, c]
        ring_f[dst, RE] += span
    ent_i[ent, ICNT] = n + 1
    p = _phys(ent_i, ent, q)
    if q == n and n > 0:
        prev_e = ent_f[ent, LE]
    elif q > 0:
        prev_e = ring_f[_phys(ent_i, ent, q - 1), RE]
    else:
        prev_e = ent_f[ent, ET] - _ages_oldest(ring_f, ent_f, ent_i, ent, n, q)
    ring_f[p, RE] = prev_e + span
    ring_f[p, RX] = span
    ring_f[p, RPHI] = phi
    ring_f[p, RG] = g
    ring_i[p, RDAY] = day
    ring_i[p, RPID] = pid
    ring_i[p, RSEQ] = seq
    ring_i[p, RB] = boards
    ent_f[ent, ET] += span
    if tau > 0.0 and (ent_f[ent, ET] - ent_f[ent, EREF]) / tau > 300.0:
        ent_f[ent, EREF] = ent_f[ent, ET]  # rebase the exponential sums
        ent_f[ent, BA] = ent_f[ent, BB] = ent_f[ent, BC] = ent_f[ent, BD] = 0.0
        rebuild_cum(ring_f, ring_i, ent_f, ent_i, ent, 0, tau, False)
    else:
        rebuild_cum(ring_f, ring_i, ent_f, ent_i, ent, q, tau, q == n)
    ent_i[ent, ITOTAL] += int(boards)
    ent_i[ent, ISESS] += 1
    ent_f[ent, EBOARDS] += boards


@kernel(helper=True, refcount=False)
def append_newest(ring_f, ring_i, ent_f, ent_i, ent, g, boards, span, phi, day, pid, seq):
    """``add_session`` for the usual case, a plain call (as current_grade_one_segment): a session played
    no earlier than the entity's newest (``ent_i[ent, ILDAY] <= day`` or an empty ring), with a decay that
    keeps no exponential reference (tau 0).  The same arithmetic in the same order as add_session
    (bit for bit), without the call, the insertion search and the generic cumulative-sum rebuild."""
    n = ent_i[ent, ICNT]
    ent_i[ent, ICNT] = n + 1
    p = _phys(ent_i, ent, n)
    if n > 0:
        prev_e = ent_f[ent, LE]
        sa, sb, sc, sd = ent_f[ent, LA], ent_f[ent, LB], ent_f[ent, LC], ent_f[ent, LD]
    else:
        prev_e = ent_f[ent, ET] - 0.0
        sa, sb, sc, sd = ent_f[ent, BA], ent_f[ent, BB], ent_f[ent, BC], ent_f[ent, BD]
    e = prev_e + span
    ring_i[p, RDAY] = day
    ring_i[p, RPID] = pid
    ring_i[p, RSEQ] = seq
    ring_i[p, RB] = boards
    ent_f[ent, ET] += span
    a = phi * span
    b = a * (e - span / 2.0)
    sa += a
    sb += b
    sc += a * g
    sd += b * g
    ring_f[p, RE] = e
    ring_f[p, RX] = span
    ring_f[p, RPHI] = phi
    ring_f[p, RG] = g
    ring_f[p, CA] = sa
    ring_f[p, CB] = sb
    ring_f[p, CC] = sc
    ring_f[p, CD] = sd
    ent_f[ent, LA] = sa
    ent_f[ent, LB] = sb
    ent_f[ent, LC] = sc
    ent_f[ent, LD] = sd
    ent_f[ent, LE] = e
    ent_i[ent, ILDAY] = ring_i[p, RDAY]
    ent_i[ent, ITOTAL] += int(boards)
    ent_i[ent, ISESS] += 1
    ent_f[ent, EBOARDS] += boards


@helper(refcount=False, forceinline=True)
def _ages_oldest(ring_f, ent_f, ent_i, ent, n, q):
    """Clock distance from T back to the end of the session before logical q = 0 (the oldest's start)."""
    if n == 0:
        return 0.0
    p = _phys(ent_i, ent, 0)
    return ent_f[ent, ET] - (ring_f[p, RE] - ring_f[p, RX])


@kernel(refcount=False, helper=True)
def remove_at(ring_f, ring_i, ent_f, ent_i, ent, q, tau):
    """Remove logical session q (a corrected session), keeping the others' ages consistent."""
    n = ent_i[ent, ICNT]
    span = ring_f[_phys(ent_i, ent, q), RX]
    boards = ring_i[_phys(ent_i, ent, q), RB]
    if q == 0:
        pop_oldest(ring_f, ring_i, ent_f, ent_i, ent)
        ent_i[ent, ITOTAL] -= int(boards)
        return
    for i in range(q, n - 1):
        src = _phys(ent_i, ent, i + 1)
        dst = _phys(ent_i, ent, i)
        for c in range(ring_f.shape[1]):
            ring_f[dst, c] = ring_f[src, c]
        for c in range(ring_i.shape[1]):
            ring_i[dst, c] = ring_i[src, c]
        ring_f[dst, RE] -= span
    ent_i[ent, ICNT] = n - 1
    ent_f[ent, ET] -= span
    ent_i[ent, ITOTAL] -= int(boards)
    ent_f[ent, EBOARDS] -= boards
    rebuild_cum(ring_f, ring_i, ent_f, ent_i, ent, q, tau, False)


@helper(refcount=False, forceinline=True)
def pop_oldest(ring_f, ring_i, ent_f, ent_i, ent):
    """Drop the oldest session (left the window or the three years)."""
    p = _phys(ent_i, ent, 0)
    for k in range(4):
        ent_f[ent, BA + k] = ring_f[p, CA + k]
    ent_f[ent, EBOARDS] -= ring_i[p, RB]
    head = ent_i[ent, IHEAD] + 1
    ent_i[ent, IHEAD] = 0 if head == ent_i[ent, ICAP] else head
    ent_i[ent, ICNT] -= 1


# --- the pool (plain Python: runs between kernel calls) --------------------------------------

MIN_CAPACITY = 16
GROWTH_NUM, GROWTH_DEN = 1, 4  # a full ring grows by a quarter (or to what it needs)
ROUND = 8  # capacities in multiples of 8 sessions (ring_f: 512 bytes, ring_i: two cache lines)
MAX_SLACK = 0.25  # abandoned slices reclaimed once they exceed this share of the rings' capacity


RESERVE_PER_ENTITY = 128  # pool rows allocated up front per entity (sessions of a regular player's window)


HUGE_FROM_BYTES = 16 << 20
"""Arrays of state from this size go on 2 MB pages (``aligned_zeros(huge=True)``): twice the reach of
this CPU's second-level TLB on 4 KB pages (2048 entries, 8 MB)."""


def aligned_zeros(shape, dtype=np.float64, align: int = 128, huge: bool = False) -> np.ndarray:
    """``np.zeros`` whose first byte sits on an ``align``-byte boundary, so that fixed-size rows
    (64-byte ring rows, 128-byte entity rows) never straddle a cache line (numpy only promises 16).

    ``huge``: on 2 MB pages where the system gives them (``_memory.huge_page_zeros``; 2 MB-aligned).
    The pool and the entity rows are read at random, a few lines a player-session, all run long: on
    4 KB pages (the engine turns numpy's huge-page advice off: ``engine.memory.small_pages``) each of
    those lines also cost a page walk.  Only from ``HUGE_FROM_BYTES``: below it the 4 KB pages' TLB
    entries already cover the array, and a fresh state's first touches of 2 MB pages cost more than
    the walks save (a default-size NGS state graded from new, ``simcore bench --peers``: 148-151 ns
    per player-session on 2 MB pages, 109-114 on 4 KB ones, idle)."""
    return _aligned(shape, dtype, align, huge, np.zeros)


def aligned_empty(shape, dtype=np.float64, align: int = 128, huge: bool = False) -> np.ndarray:
    """``aligned_zeros`` without the zeros below ``HUGE_FROM_BYTES`` (from there a fresh mapping, zero
    anyway).  For the ring pool: a ring writes a row before any kernel reads it (its count says which
    rows hold sessions; moves copy whole slices, read or not), so its rows need no clearing, and
    clearing them cost: ``np.zeros`` of a default replicate's 12.5 MB pool comes from the heap that
    ``engine.memory.keep_freed_memory`` keeps, which glibc must clear itself, 1-11 ms a replicate in an
    engine run (a pass over memory long out of cache), where the rows are filled over the run anyway."""
    return _aligned(shape, dtype, align, huge, np.empty)


def _aligned(shape, dtype, align: int, huge: bool, make) -> np.ndarray:
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape)) * dtype.itemsize
    if huge and nbytes >= HUGE_FROM_BYTES:
        return huge_page_zeros(shape, dtype, fallback=lambda s, d: _aligned(s, d, align, False, make))
    buf = make(nbytes + align, np.uint8)
    skip = -buf.ctypes.data % align
    return buf[skip:skip + nbytes].view(dtype).reshape(shape)


def new_pool(n_ent: int, first: int = MIN_CAPACITY, sized: int = 0):
    """(ring_f, ring_i, ent_f, ent_i, pool) for ``n_ent`` entities with empty rings (``pool``: PUSED,
    PCAPS, PFIRST).  ``first``: the capacity a full ring of MIN_CAPACITY grows to (sessions; a regular
    player's window, so that most rings move once).  ``sized``: the first ``sized`` entities (players)
    start with rings of ``first`` sessions instead, one after another in entity order; the others
    (partnerships: many, most with a few sessions) with MIN_CAPACITY.

    Players' rings in entity order, each sized for a regular's window from the start: at national
    scale nearly every 2 MB page of the pool holds a player who plays, so the room a player does not
    use costs no memory that growing rings would not have touched (a national decade: ~560 MB in
    place of 710 MB of slices grown into the pool's tail, and no slices of 16 left behind), rings
    never move for a regular player, and a walk over the players in order (``grades``, every chunk)
    reads the pool in order instead of at random (measured: 114-122 -> 65-66 ns per player on a
    captured national state, same values).

    The pool is allocated with room for RESERVE_PER_ENTITY sessions an
    entity (or MIN_CAPACITY + ``first``), uncleared (``aligned_empty``: from
    HUGE_FROM_BYTES a fresh mapping, whose pages cost memory only once a
    ring reaches them), so growing rings rarely need the pool itself
    reallocated and copied.
    """
    sized = min(max(int(sized), 0), n_ent)
    if first <= MIN_CAPACITY:
        sized = 0  # a ring of MIN_CAPACITY already
    caps = np.full(n_ent, MIN_CAPACITY, np.int64)
    caps[:sized] = first
    offsets = np.zeros(n_ent, np.int64)
    np.cumsum(caps[:-1], out=offsets[1:])
    used = int(caps.sum())
    rows = max(n_ent * max(RESERVE_PER_ENTITY, MIN_CAPACITY + first), used + MIN_CAPACITY + first)
    ring_f = aligned_empty((rows, N_RF), huge=True)  # rows are written before they are read
    ring_i = aligned_empty((rows, N_RI), RING_INT, huge=True)
    ent_f = aligned_zeros((n_ent, N_EF), huge=True)
    ent_f[:, EINIT] = np.nan
    ent_i = aligned_zeros((n_ent, N_EI), np.int64, huge=True)
    ent_i[:, IOFF] = offsets
    ent_i[:, ICAP] = caps
    return ring_f, ring_i, ent_f, ent_i, np.array([used, used, first], np.int64)


def add_entities(ring_f, ring_i, ent_f, ent_i, pool, n_new: int):
    """Append ``n_new`` entities with empty rings; returns the grown arrays (``pool`` updated)."""
    used = int(pool[PUSED])
    ef = np.zeros((n_new, N_EF))
    ef[:, EINIT] = np.nan
    ei = np.zeros((n_new, N_EI), np.int64)
    ei[:, IOFF] = used + np.arange(n_new) * MIN_CAPACITY
    ei[:, ICAP] = MIN_CAPACITY
    ring_f, ring_i = _reserve(ring_f, ring_i, used + n_new * MIN_CAPACITY, used)
    pool[PUSED] += n_new * MIN_CAPACITY
    pool[PCAPS] += n_new * MIN_CAPACITY
    return ring_f, ring_i, _stacked(ent_f, ef), _stacked(ent_i, ei)


def _stacked(a, b):
    out = aligned_zeros((len(a) + len(b), a.shape[1]), a.dtype, huge=True)
    out[:len(a)] = a
    out[len(a):] = b
    return out


def _reserve(ring_f, ring_i, rows: int, used: int | None = None):
    """The pool with room for ``rows`` rows: doubled when it must grow, so appends are amortised.

    Only the ``used`` rows in use are copied (fresh pages are the cost at
    national scale, so the pool grows rarely and copies what it must).
    """
    if rows <= ring_f.shape[0]:
        return ring_f, ring_i
    n = max(rows, 2 * ring_f.shape[0])
    used = ring_f.shape[0] if used is None else used
    rf = aligned_empty((n, N_RF), huge=True)
    ri = aligned_empty((n, N_RI), RING_INT, huge=True)
    rf[:used] = ring_f[:used]
    ri[:used] = ring_i[:used]
    return rf, ri


def reclaim(ring_f, ring_i, ent_i, pool) -> None:
    """Slide the rings down over the slices left behind once those exceed MAX_SLACK of the rings'
    capacity (``compact_pool``, in place; ``pool`` updated)."""
    if pool[PUSED] > (1.0 + MAX_SLACK) * pool[PCAPS]:
        pool[PUSED] = compact_pool(ring_f, ring_i, ent_i, np.argsort(ent_i[:, IOFF], kind="stable"))


def enlarge(ring_f, ring_i, ent_i, pool):
    """The pool after ``grow_ring`` found its tail too short: compacted if that frees MAX_SLACK, else
    reallocated (doubled: ``_reserve``); either way with a tail that holds any ring's next capacity
    (``_next_capacity``: at most PFIRST or a quarter more than the largest ring, plus ROUND)."""
    reclaim(ring_f, ring_i, ent_i, pool)
    most = max(int(ent_i[:, ICAP].max()) if len(ent_i) else 0, int(pool[PFIRST]))
    rows = int(pool[PUSED]) + 2 * (most + ROUND) + MIN_CAPACITY
    return _reserve(ring_f, ring_i, rows, int(pool[PUSED]))


@helper(refcount=False, forceinline=True)
def _next_capacity(cap, cnt, first):
    """A full ring's next capacity: ``first`` for a ring smaller than that, else GROWTH more room; at
    least two free slots, rounded up to ROUND."""
    new_cap = first if cap < first else cap + (cap * GROWTH_NUM) // GROWTH_DEN
    if new_cap < cnt + 2:
        new_cap = cnt + 2
    new_cap = -(-new_cap // ROUND) * ROUND
    return max(new_cap, MIN_CAPACITY)


@kernel(refcount=False, helper=True)
def grow_ring(ring_f, ring_i, ent_i, pool, ent):
    """Give entity ``ent``'s ring more room (``_next_capacity``): its sessions, oldest first (head 0), copied to the
    pool's unused tail (rows pool[PUSED]..), the slice it leaves behind reclaimed later (``reclaim``).
    Called by a kernel on the ring it is about to fill, so only rings that overflow move, and while
    their rows are in cache.  Returns False, changing nothing, when the tail is too short (the caller
    enlarges the pool and calls again)."""
    cap = ent_i[ent, ICAP]
    cnt = ent_i[ent, ICNT]
    new_cap = _next_capacity(cap, cnt, pool[PFIRST])
    off = pool[PUSED]
    if off + new_cap > ring_f.shape[0]:
        return False
    for i in range(cnt):
        src = _phys(ent_i, ent, i)
        for c in range(ring_f.shape[1]):
            ring_f[off + i, c] = ring_f[src, c]
        for c in range(ring_i.shape[1]):
            ring_i[off + i, c] = ring_i[src, c]
    ent_i[ent, IOFF] = off
    ent_i[ent, ICAP] = new_cap
    ent_i[ent, IHEAD] = 0
    pool[PUSED] = off + new_cap
    pool[PCAPS] += new_cap - cap
    return True


@kernel(refcount=False)
def compact_pool(ring_f, ring_i, ent_i, by_offset):
    """Slide every ring down over the slices left behind, in place; returns the rows in use.

    ``by_offset``: entities in increasing order of their slice's offset, so
    every slice moves down (or stays) and a forward copy never overwrites a
    row it has still to read.
    """
    pos = 0
    for k in range(by_offset.shape[0]):
        e = by_offset[k]
        off = ent_i[e, IOFF]
        cap = ent_i[e, ICAP]
        if off != pos:
            for r in range(cap):
                for c in range(ring_f.shape[1]):
                    ring_f[pos + r, c] = ring_f[off + r, c]
                for c in range(ring_i.shape[1]):
                    ring_i[pos + r, c] = ring_i[off + r, c]
            ent_i[e, IOFF] = pos
        pos += cap
    return pos


@kernel(refcount=False)
def ring_boards(ent_f, ent):
    """Real boards of the sessions in the ring (kept by add/pop/remove)."""
    return ent_f[ent, EBOARDS]
