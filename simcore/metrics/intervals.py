"""Intervals over replicates, and paired comparisons of scheme variants.

Every figure simcore reports is a summary of independent replicates (whole
simulated populations): one value per replicate, then a mean with a 95 %
interval.  The interval is Student's t over replicates,

    mean ± t(0.975, n − 1) · sd / √n,

because each replicate's figure is itself an average over hundreds of
players and sessions (close to normal by the central limit theorem), the
replicates are independent by construction (keyed random streams), and n is
small (3–20): a bootstrap with so few replicates under-covers, while the t
interval is exact for normal data and robust near it.

Scheme variants graded on the same replicates share every random number
(common random numbers), so their comparison is the **paired** difference:
the t interval of the per-replicate differences.  Most of the replicate-to-
replicate spread (who happened to be strong, which club was lucky) cancels
in the difference, so the paired interval is far narrower than comparing
the two unpaired intervals.

The verdict on a difference needs to know which direction is good for the
metric (``LOWER_IS_BETTER``).  ``replicates_to_separate`` answers "how many
replicates would make this difference detectable", from the observed
difference and spread.
"""

from __future__ import annotations

import math

import numpy as np

LEVEL = 0.95

# direction in which each summary metric improves: True = lower is better
LOWER_IS_BETTER = {
    "rmse": True, "abs_bias": True, "club_bias": True, "club_bias_rms": True, "aces_eights": True,
    "aces_eights_gap": True, "aces_eights_over_4": True, "volatility": True, "rank_corr": False,
    "half_life_weeks": True,
}


def _t(level: float, df: int) -> float:
    from scipy.stats import t
    return float(t.ppf(0.5 + level / 2, df))


def _check(values, name: str) -> np.ndarray:
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 1:
        raise ValueError(f"{name}: give one value per replicate (a 1-D array), got shape {x.shape}")
    if len(x) < 2:
        raise ValueError(f"{name}: an interval needs at least 2 replicates, got {len(x)}")
    if not np.all(np.isfinite(x)):
        bad = [i for i, v in enumerate(x) if not np.isfinite(v)]
        raise ValueError(f"{name}: replicates {bad} have no value (NaN or inf); every replicate must "
                         f"report the figure for an interval to mean anything")
    return x


def mean_ci(values, level: float = LEVEL, name: str = "values") -> tuple[float, float, float]:
    """(mean, low, high): the mean over replicates with its t interval."""
    x = _check(values, name)
    n = len(x)
    m = float(x.mean())
    half = _t(level, n - 1) * float(x.std(ddof=1)) / math.sqrt(n)
    return m, m - half, m + half


def paired_ci(values, baseline, level: float = LEVEL, name: str = "values") -> tuple[float, float, float]:
    """(difference, low, high) of ``values − baseline``, paired replicate by replicate."""
    a, b = _check(values, name), _check(baseline, name + " (baseline)")
    if len(a) != len(b):
        raise ValueError(f"{name}: {len(a)} replicates against {len(b)} in the baseline; a paired "
                         f"comparison needs the same replicates")
    return mean_ci(a - b, level, name)


def unpaired_ci(values, baseline, level: float = LEVEL, name: str = "values") -> tuple[float, float, float]:
    """(difference, low, high) treating the two as independent samples (Welch): what pairing saves."""
    a, b = _check(values, name), _check(baseline, name + " (baseline)")
    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    se = math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1)) if se > 0 else len(a) + len(b) - 2
    d = float(a.mean() - b.mean())
    half = _t(level, max(int(df), 1)) * se
    return d, d - half, d + half


def verdict(low: float, high: float, lower_is_better: bool) -> str:
    """"better" / "worse" / "no detectable difference" for a difference (variant − baseline)."""
    if low > 0:
        return "worse" if lower_is_better else "better"
    if high < 0:
        return "better" if lower_is_better else "worse"
    return "no detectable difference"


def replicates_to_separate(differences, level: float = LEVEL, limit: int = 100_000) -> float:
    """Replicates at which the paired interval of this difference would exclude zero.

    From the observed mean difference d and its per-replicate sd s: the
    smallest n with t(n − 1) · s / √n < |d|.  ``inf`` when d is zero or the
    answer exceeds ``limit``; the number of replicates already run or fewer
    when the interval already excludes zero.
    """
    x = _check(differences, "differences")
    d, s = abs(float(x.mean())), float(x.std(ddof=1))
    if s == 0.0:
        return 2.0 if d > 0 else math.inf
    if d == 0.0:
        return math.inf
    n = 2
    while n <= limit:
        if _t(level, n - 1) * s / math.sqrt(n) < d:
            return float(n)
        n = n + 1 if n < 64 else int(n * 1.1)
    return math.inf


def format_ci(mean: float, low: float, high: float, digits: int = 2) -> str:
    """``2.37 [2.31, 2.43]``: how every report prints a figure with its interval."""
    return f"{mean:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"
