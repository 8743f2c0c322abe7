"""offline: the sparse whole-history solve against the model written out densely (tests/naive/offline.py)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import naive
from results_factory import build, random_session
from simcore.schemes import PlayerTable, make_scheme, offline
from simcore.scoring import PartnershipTable, score_results

N_PLAYERS = 40
# full rotations: every pair of a group plays the same boards, so its rows weigh alike and the group
# intercept is exactly the field's mean (see the offline module docstring)
KINDS = [("mitchell", "mp"), ("howell", "mp"), ("mitchell", "butler"), ("howell", "cross_imps"),
         ("swiss_pairs", "mp")]


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([0.5, 4.0]), st.sampled_from([7, 28]), st.integers(1, 3))
def test_sparse_solve_matches_dense_model(seed, drift, period_days, n_chunks):
    rng = np.random.default_rng(seed)
    sessions, day = [], 19000
    for _ in range(8):
        kind, scoring = KINDS[rng.integers(len(KINDS))]
        sess = random_session(rng, kind, scoring, n_players=N_PLAYERS, full=True)
        day += int(rng.choice([0, 3, 10, 40, 200]))
        sess["day"] = day
        sess["event"] = ["club", "black", "green"][rng.integers(3)]
        sessions.append(sess)
    at_start = rng.random(N_PLAYERS) < 0.5
    p = offline.Params(drift=drift, period_days=period_days, rtol=1e-12)
    scheme = offline.OfflineScheme(p)
    state = scheme.new_state(PlayerTable(np.ones(N_PLAYERS, bool), at_start, np.full(N_PLAYERS, np.nan)))
    pt = PartnershipTable()
    cuts = np.sort(rng.choice(np.arange(1, 8), size=n_chunks - 1, replace=False))
    scored = []
    for chunk in np.split(np.arange(8), cuts):
        sc = score_results(build([sessions[i] for i in chunk], N_PLAYERS), partnerships=pt)
        scheme.apply(state, sc, np.empty((sc.n_entries, 2)))
        scored.append(chunk)
        got = scheme.grades(state, day)  # a snapshot after every chunk: warm starts are exercised
    whole = score_results(build(sessions, N_PLAYERS), partnerships=PartnershipTable())
    want, _ = naive.naive_offline(p, whole, state.start)
    ref = np.full(N_PLAYERS, np.nan)
    for pl, v in want.items():
        ref[pl] = v
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-6)


def test_smooth_revises_past_snapshots_from_later_results():
    scheme = make_scheme("offline", {"smooth": "true"})
    rng = np.random.default_rng(3)
    state = scheme.new_state(PlayerTable(np.ones(N_PLAYERS, bool), np.ones(N_PLAYERS, bool),
                                         np.full(N_PLAYERS, np.nan)))
    pt = PartnershipTable()
    firsts = []
    for k in range(4):
        sess = random_session(rng, "howell", "mp", n_players=N_PLAYERS, full=True)
        sess["day"] = 19000 + 60 * k
        sc = score_results(build([sess], N_PLAYERS), partnerships=pt)
        scheme.apply(state, sc, np.empty((sc.n_entries, 2)))
        firsts.append(scheme.grades(state, 19000 + 60 * k + 1))
    revised = scheme.revise(state, [19000 + 60 * k + 1 for k in range(4)])
    played = ~np.isnan(firsts[0])
    # the last snapshot already had every result; the first did not
    np.testing.assert_allclose(revised[-1][played], firsts[-1][played], atol=1e-6)
    assert np.abs(revised[0][played] - firsts[0][played]).max() > 1e-3
    assert make_scheme("offline").revise(state, [19000]) is None


def test_parameters_are_validated():
    with pytest.raises(ValueError, match="period_days"):
        make_scheme("offline", {"period_days": "0"})


def test_engine_runs_both_new_schemes_reproducibly():
    from simcore import engine
    labels = "kalman,offline,offline(smooth=true)"
    one = engine.run("default", labels, years=0.15, seed=4, threads=1)
    two = engine.run("default", labels, years=0.15, seed=4, threads=2)
    np.testing.assert_array_equal(one["grade"].values, two["grade"].values)
    g = one["grade"].sel(replicate=0).values
    assert np.isfinite(g[:, -1]).sum(axis=1).min() > 100  # every scheme grades the county
    # the smoothed run's last snapshot had every result already; its first did not
    np.testing.assert_allclose(g[2, -1], g[1, -1], atol=1e-4, equal_nan=True)
    assert np.nanmax(np.abs(g[2, 0] - g[1, 0])) > 0.01
