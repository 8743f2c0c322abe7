"""Intervals over replicates and paired comparisons (simcore.metrics.intervals)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simcore.metrics import intervals as iv


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-100, 100), min_size=2, max_size=30))
def test_mean_ci_matches_the_textbook_formula(xs):
    from scipy import stats
    m, lo, hi = iv.mean_ci(xs)
    x = np.array(xs)
    half = stats.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x))
    assert m == pytest.approx(x.mean(), abs=1e-9)
    assert lo == pytest.approx(x.mean() - half, abs=1e-9) and hi == pytest.approx(x.mean() + half, abs=1e-9)


def test_interval_covers_the_true_mean_about_95_percent_of_the_time():
    rng = np.random.default_rng(5)
    hits = sum(lo <= 3.0 <= hi for _, lo, hi in (iv.mean_ci(rng.normal(3.0, 2.0, 5)) for _ in range(4000)))
    assert 0.935 < hits / 4000 < 0.965


def test_paired_interval_is_narrower_than_unpaired_on_common_random_numbers():
    rng = np.random.default_rng(1)
    world = rng.normal(2.4, 0.3, 8)           # replicate-to-replicate spread both variants share
    a, b = world + rng.normal(0, 0.02, 8), world + 0.05 + rng.normal(0, 0.02, 8)
    d, lo, hi = iv.paired_ci(b, a)
    du, ulo, uhi = iv.unpaired_ci(b, a)
    assert d == pytest.approx(du)
    assert hi - lo < 0.2 * (uhi - ulo)
    assert iv.verdict(lo, hi, lower_is_better=True) == "worse"
    assert iv.verdict(ulo, uhi, lower_is_better=True) == "no detectable difference"


def test_verdicts_and_separation():
    assert iv.verdict(-0.3, -0.1, True) == "better" and iv.verdict(-0.3, -0.1, False) == "worse"
    assert iv.verdict(-0.1, 0.2, True) == "no detectable difference"
    diffs = np.array([0.05, -0.02, 0.04, 0.01, 0.03])
    n = iv.replicates_to_separate(diffs)
    s, d = diffs.std(ddof=1), abs(diffs.mean())
    from scipy.stats import t
    assert t.ppf(0.975, n - 1) * s / math.sqrt(n) < d <= t.ppf(0.975, n - 2) * s / math.sqrt(n - 1)
    assert iv.replicates_to_separate([0.1, -0.1, 0.1, -0.1]) == math.inf


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="at least 2 replicates"):
        iv.mean_ci([1.0], name="rmse")
    with pytest.raises(ValueError, match=r"rmse: replicates \[1\] have no value"):
        iv.mean_ci([1.0, float("nan"), 2.0], name="rmse")
    with pytest.raises(ValueError, match="same replicates"):
        iv.paired_ci([1.0, 2.0, 3.0], [1.0, 2.0])
