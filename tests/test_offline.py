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


def _random_sessions(rng, n=8, gaps=(0, 3, 10, 40, 200)):
    sessions, day = [], 19000
    for _ in range(n):
        kind, scoring = KINDS[rng.integers(len(KINDS))]
        sess = random_session(rng, kind, scoring, n_players=N_PLAYERS, full=True)
        day += int(rng.choice(gaps))
        sess["day"] = day
        sess["event"] = ["club", "black", "green"][rng.integers(3)]
        sess["club"] = int(rng.integers(3))
        sessions.append(sess)
    return sessions


def _players(at_start):
    return PlayerTable(np.ones(N_PLAYERS, bool), at_start, np.full(N_PLAYERS, np.nan))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([0.5, 4.0]), st.sampled_from([7, 28]), st.integers(1, 3),
       st.sampled_from([0.0, 2.0]), st.sampled_from([0.0, 3.0]))
def test_sparse_solve_matches_dense_model(seed, drift, period_days, n_chunks, partner_sd, level_sd):
    rng = np.random.default_rng(seed)
    sessions = _random_sessions(rng)
    day = sessions[-1]["day"]
    at_start = rng.random(N_PLAYERS) < 0.5
    p = offline.Params(drift=drift, period_days=period_days, rtol=1e-12, window_days=0, partner_sd=partner_sd,
                       level_sd=level_sd)
    scheme = offline.OfflineScheme(p)
    state = scheme.new_state(_players(at_start))
    pt = PartnershipTable()
    cuts = np.sort(rng.choice(np.arange(1, 8), size=n_chunks - 1, replace=False))
    for chunk in np.split(np.arange(8), cuts):
        sc = score_results(build([sessions[i] for i in chunk], N_PLAYERS), partnerships=pt)
        state = scheme.grow(state, len(pt))
        scheme.apply(state, sc, np.empty((sc.n_entries, 2)))
        got = scheme.grades(state, day)  # a snapshot after every chunk: warm starts are exercised
    whole = score_results(build(sessions, N_PLAYERS), partnerships=PartnershipTable())
    want, _ = naive.naive_offline(p, whole, state.start)
    ref = np.full(N_PLAYERS, np.nan)
    for pl, v in want.items():
        ref[pl] = v
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-6)


def _run_chunks(scheme, state, sessions, sizes):
    pt = PartnershipTable()
    start = 0
    for size in sizes:
        sc = score_results(build(sessions[start:start + size], N_PLAYERS), partnerships=pt)
        state = scheme.grow(state, len(pt))
        scheme.apply(state, sc, None)
        scheme.grades(state, sessions[start + size - 1]["day"])
        start += size
    return state


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([0.0, 2.0]), st.sampled_from([0.0, 3.0]))
def test_windowed_solve_equals_the_exact_solve_when_each_player_has_one_frozen_strength(seed, partner_sd, level_sd):
    """Folding the rows older than the window into one shift per player (and partnership) is
    exact when each has at most one unknown older than the window: then the shifts span every
    frozen unknown and the session intercepts are minimised out exactly (a Schur complement).
    Sessions in periods 0, 3 and 5 (28 days), a 56-day window: period 0 freezes at the second
    snapshot, period 3 stays in the window.  Both solves stop at the same relative residual
    (rtol=1e-12); the shifted system's smallest eigenvalue is at least the prior's weight
    (1/25), so the strengths agree to ~1e-12 x |b| x 25 — well inside 1e-6 grade points."""
    rng = np.random.default_rng(seed)
    sessions = _random_sessions(rng, 9, gaps=(0,))
    for k, sess in enumerate(sessions):
        sess["day"] = 28 * 700 + 28 * (0, 3, 5)[k // 3] + int(rng.integers(0, 28))
    sessions.sort(key=lambda s: s["day"])
    at_start = rng.random(N_PLAYERS) < 0.5
    grades, states = [], []
    for window in (0, 56):
        p = offline.Params(window_days=window, rtol=1e-12, partner_sd=partner_sd, level_sd=level_sd)
        scheme = offline.OfflineScheme(p)
        state = scheme.new_state(_players(at_start))
        got, pt, start = [], PartnershipTable(), 0
        for size in (3, 3, 3):
            sc = score_results(build(sessions[start:start + size], N_PLAYERS), partnerships=pt)
            state = scheme.grow(state, len(pt))
            scheme.apply(state, sc, None)
            got.append(scheme.grades(state, sessions[start + size - 1]["day"]))
            start += size
        grades.append(np.array(got))
        states.append(state)
    assert states[1].k0 == 700 + 3 and (states[1].var_period < states[1].k0).sum() > 0  # period 0 froze
    assert len(states[1].blocks) < len(states[0].blocks)  # and its rows were folded away
    np.testing.assert_allclose(grades[1], grades[0], rtol=0, atol=1e-6)


def test_window_covering_the_history_equals_the_whole_history_solve():
    rng = np.random.default_rng(5)
    sessions = _random_sessions(rng, 8, gaps=(3, 10))
    at_start = rng.random(N_PLAYERS) < 0.5
    grades = []
    for window in (0, 365):
        scheme = offline.OfflineScheme(offline.Params(window_days=window, rtol=1e-12))
        state = _run_chunks(scheme, scheme.new_state(_players(at_start)), sessions, [3, 3, 2])
        grades.append(scheme.grades(state, 20000))
    np.testing.assert_allclose(grades[1], grades[0], rtol=0, atol=1e-6)
    assert np.isfinite(grades[0]).sum() > 20


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
