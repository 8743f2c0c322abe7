import numpy as np
import pytest
import scipy.stats as scipy_stats
from hypothesis import given, settings
from hypothesis import strategies as st

import naive
from simcore import rng

u64 = st.integers(min_value=0, max_value=2**64 - 1)
small = st.integers(min_value=0, max_value=2**31 - 1)


@settings(max_examples=200, deadline=None)
@given(u64, small, small)
def test_stream_matches_reference(key, a, b):
    fast = rng.new_stream(np.uint64(key), a, b)
    ref = naive.SplitMix64(key, a, b)
    for _ in range(5):
        assert int(rng.next_u64(fast)) == ref.next_u64()
    assert rng.uniform(fast) == ref.uniform()


@settings(max_examples=100, deadline=None)
@given(u64, small, st.integers(min_value=0, max_value=3000))
def test_skip_matches_drawing(key, a, n):
    """Stepping a stream past n draws leaves it where drawing n numbers does (the state wraps past 2**64)."""
    fast = rng.new_stream(np.uint64(key), a, 0)
    rng.skip(fast, n)
    ref = naive.SplitMix64(key, a, 0)
    ref.skip(n)
    assert int(fast[0]) == ref.state
    assert rng.uniform(fast) == ref.uniform()


@settings(max_examples=100, deadline=None)
@given(u64, small, st.integers(min_value=1, max_value=50))
def test_uniform_at_counter_matches_stream(key, a, n):
    """Keeping a stream's counter in a variable (``uniform_at``) draws what the stream draws."""
    fast = rng.new_stream(np.uint64(key), a, 0)
    ref = naive.SplitMix64(key, a, 0)
    x = int(fast[0])
    for _ in range(n):
        x = (x + int(rng.GOLDEN)) % 2**64  # uint64 wraps
        assert rng.uniform_at(np.uint64(x)) == ref.uniform()


@settings(max_examples=100, deadline=None)
@given(u64, small)
def test_derive_matches_python_child_key(key, a):
    assert int(rng.derive(np.uint64(key), a)) == int(rng.child_key(key, a)) == naive.derive(key, a)


def test_replicate_keys_stable_under_extension():
    assert np.array_equal(rng.replicate_keys(11, 3), rng.replicate_keys(11, 5)[:3])
    assert len(set(rng.replicate_keys(11, 50).tolist())) == 50


def test_replicate_keys_reject_bad_seed():
    with pytest.raises(ValueError, match="seed"):
        rng.replicate_keys(-1, 2)


def test_normal_quantile_accuracy():
    p = np.concatenate([np.linspace(1e-12, 1e-3, 500), np.linspace(1e-3, 1 - 1e-3, 2000),
                        1 - np.linspace(1e-12, 1e-3, 500)])
    fast = np.array([rng.normal_quantile(x) for x in p])
    assert np.max(np.abs(fast - scipy_stats.norm.ppf(p))) < 1e-8


def test_normal_quantile_central_is_normal_quantile_in_the_centre():
    """The central formula alone (what bridge.model's cut points vectorise) gives normal_quantile's bits."""
    p = np.concatenate([np.linspace(rng._P_LOW, 1 - rng._P_LOW, 5001), [rng._P_LOW, 1 - rng._P_LOW, 0.5],
                        np.random.default_rng(5).uniform(rng._P_LOW, 1 - rng._P_LOW, 5000)])
    assert np.array_equal([rng.normal_quantile_central(x) for x in p], [rng.normal_quantile(x) for x in p])


def test_uniform_and_normal_moments():
    s = rng.new_stream(np.uint64(123), 0, 0)
    u = np.array([rng.uniform(s) for _ in range(100_000)])
    z = np.array([rng.normal(s) for _ in range(100_000)])
    assert 0 < u.min() and u.max() < 1
    assert abs(u.mean() - 0.5) < 0.005 and abs(z.mean()) < 0.02 and abs(z.std() - 1) < 0.01
