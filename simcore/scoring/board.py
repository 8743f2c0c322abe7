"""Board-level scoring: one board's tables from their NS scores.

These kernels score one board from the NS scores of the
tables that played it; every session-level method is built from them so
match points, Butler IMPs, cross-IMPs, aggregate and team IMPs all come from
the very same scores.

* ``board_matchpoints`` — 2 match points per pair beaten, 1 per tie, as a %
  of the top.  When a board was played ``n`` times but the session's boards
  were meant to be played ``N`` > n times, the Neuberg formula
  ``(mp + 1)·N/n − 1`` rescales the match points to a top of 2(N−1).
* ``board_cross_imps`` — IMPs against every other table, averaged over the
  n−1 comparisons (IMPs per comparison, so one unit is one IMP).
* ``board_butler`` — IMPs against a datum: the mean NS score, after dropping
  the ``trim`` highest and ``trim`` lowest scores when enough tables remain.
* ``board_aggregate`` — points above the board's mean NS score.

All take the board's NS scores (bridge points) and write the NS pair's
result per table into ``out``; the EW pair's result is the complement
(100 − % for match points, the negation for the others).
"""

from __future__ import annotations

import numpy as np

from simcore._jit import kernel
from simcore.scoring.imp_scale import imps


@kernel(refcount=False)
def board_matchpoints(ns_scores, expected_plays, neuberg, out):
    """NS match-point % per table on one board.

    ns_scores: scores (bridge points) of the n tables that played the board
        (finite: a NaN would tie with nothing, not even itself).
    expected_plays: N, the number of times the board should have been played
        (the most-played board of the session); ignored unless ``neuberg``.
    neuberg: apply the Neuberg correction when n < N.
    out: float64[n], written with NS MP % (0..100).
    """
    n = ns_scores.shape[0]
    if n == 1:
        out[0] = 50.0
        return
    big_n = expected_plays if (neuberg and expected_plays > n) else n
    top = 2.0 * (big_n - 1)
    # two tables at a time, each score loaded once for both: a board has ~6 tables at national, too few
    # for the loop to vectorise, so it compares one score at a time (8 % less time on a national month's
    # boards).  Counted without branches: which tables a score beats is a coin toss for the branch
    # predictor; -1 takes out the table's tie with itself
    i = 0
    while i < n:
        si = ns_scores[i]
        mi = -1
        if i + 1 < n:
            sk = ns_scores[i + 1]
            mk = -1
            for j in range(n):
                x = ns_scores[j]
                mi += 2 * (si > x) + (si == x)
                mk += 2 * (sk > x) + (sk == x)
            if big_n != n:
                out[i + 1] = 100.0 * ((mk + 1.0) * big_n / n - 1.0) / top
            else:
                out[i + 1] = 100.0 * mk / top
        else:
            for j in range(n):
                x = ns_scores[j]
                mi += 2 * (si > x) + (si == x)
        if big_n != n:
            out[i] = 100.0 * ((mi + 1.0) * big_n / n - 1.0) / top
        else:
            out[i] = 100.0 * mi / top
        i += 2


@kernel(refcount=False)
def board_cross_imps(ns_scores, out):
    """NS cross-IMPs per table: IMPs against each other table, averaged.

    imps(-d) = -imps(d), so each pair of tables is looked up once; the
    totals are whole IMPs, so the order of the sums does not matter.
    """
    n = ns_scores.shape[0]
    if n == 1:
        out[0] = 0.0
        return
    for i in range(n):
        out[i] = 0.0
    for i in range(n):
        si = ns_scores[i]
        for j in range(i + 1, n):
            x = imps(si - ns_scores[j])
            out[i] += x
            out[j] -= x
    for i in range(n):
        out[i] = out[i] / (n - 1.0)


@kernel(refcount=False, helper=True)
def _trimmed_mean(ns_scores, trim, work):
    """Mean NS score after dropping the ``trim`` highest and lowest (see ``butler_datum``).

    work: float64[n] scratch, not ``ns_scores`` itself.  The kept scores are
    summed in ascending order from 0.0, as numpy sums a sorted slice.
    """
    n = ns_scores.shape[0]
    t = trim
    while t > 0 and n - 2 * t < 3:
        t -= 1
    if t == 0:
        return ns_scores.sum() / n
    # insertion sort: a board has a few dozen scores at most, and numba's np.sort costs seconds to compile
    for i in range(n):
        v = ns_scores[i]
        k = i
        while k > 0 and work[k - 1] > v:
            work[k] = work[k - 1]
            k -= 1
        work[k] = v
    total = 0.0
    for i in range(t, n - t):
        total += work[i]
    return total / (n - 2.0 * t)


@kernel
def butler_datum(ns_scores, trim):
    """Mean NS score after dropping the ``trim`` highest and lowest.

    Trimming applies only while at least three scores would remain; with
    fewer tables the datum is the plain mean.  ``trim=0`` is the plain mean.
    """
    return _trimmed_mean(ns_scores, trim, np.empty(ns_scores.shape[0]))


@kernel(refcount=False)
def board_butler(ns_scores, trim, out):
    """NS Butler IMPs per table against the (trimmed) mean datum (``out`` must not be ``ns_scores``)."""
    datum = _trimmed_mean(ns_scores, trim, out)
    for i in range(ns_scores.shape[0]):
        out[i] = imps(ns_scores[i] - datum)


@kernel(refcount=False)
def board_aggregate(ns_scores, out):
    """NS points above the board's mean NS score."""
    mean = ns_scores.sum() / ns_scores.shape[0]
    for i in range(ns_scores.shape[0]):
        out[i] = ns_scores[i] - mean
