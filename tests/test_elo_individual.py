"""Elo pairs: individual ratings by bounded least squares over pair ratings,
and the grades the scheme reports."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import naive
from elo_sessions import build, session
from simcore.results import KIND_HOWELL
from simcore.schemes import PlayerTable
from simcore.schemes import elo_pairs as elo

DAY = 19000


def random_system(rng):
    n_players = int(rng.integers(2, 16))
    all_pairs = [(a, b) for a in range(n_players) for b in range(a + 1, n_players)]
    m = int(rng.integers(1, min(len(all_pairs), 25) + 1))
    chosen = [all_pairs[i] for i in rng.choice(len(all_pairs), m, replace=False)]
    a = np.array([p[0] for p in chosen], np.int32)
    b = np.array([p[1] for p in chosen], np.int32)
    r = rng.normal(1500, 120, m)
    w = rng.uniform(0.2, 5.0, m)
    return n_players, a, b, r, w


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), ridge=st.sampled_from([0.01, 0.05, 0.5]),
       bound=st.sampled_from(["loose", "binding"]), warm=st.booleans())
def test_fit_matches_lsq_linear(seed, ridge, bound, warm):
    rng = np.random.default_rng(seed)
    n_players, a, b, r, w = random_system(rng)
    lower = 0.0 if bound == "loose" else float(np.quantile(r, 0.6))  # binds for several players
    x0 = rng.normal(1500, 300, n_players) if warm else None
    x, sweeps = elo.fit_individual(a, b, r, w, n_players, ridge, lower, tol=1e-11, max_iter=100000, x0=x0)
    want = naive.naive_fit_individual(a.tolist(), b.tolist(), r.tolist(), w.tolist(), n_players, ridge, lower)
    np.testing.assert_array_equal(np.isnan(x), np.isnan(want))
    np.testing.assert_allclose(x, want, rtol=0, atol=1e-6)
    assert np.nanmin(x) >= lower
    assert sweeps < 100000


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), ridge=st.sampled_from([0.01, 0.05, 0.5]),
       bound=st.sampled_from(["loose", "binding"]), warm=st.sampled_from(["cold", "warm", "partly"]),
       max_iter=st.sampled_from([1, 3, 10000]))
def test_fit_kernel_is_the_plain_gauss_seidel_bit_for_bit(seed, ridge, bound, warm, max_iter):
    """The kernel's sweeps do the plain sweep's operations in its order: the same bits, the same sweeps."""
    rng = np.random.default_rng(seed)
    n_players, a, b, r, w = random_system(rng)
    if rng.random() < 0.5:  # players in either column, in any order
        flip = rng.random(len(a)) < 0.5
        a, b = np.where(flip, b, a), np.where(flip, a, b)
    lower = 0.0 if bound == "loose" else float(np.quantile(r, 0.6))
    x0 = None if warm == "cold" else rng.normal(1500, 300, n_players)
    if warm == "partly":
        x0[rng.random(n_players) < 0.5] = np.nan
    x, sweeps = elo.fit_individual(a, b, r, w, n_players, ridge, lower, tol=1e-9, max_iter=max_iter, x0=x0)
    want, want_sweeps = naive.naive_gauss_seidel(a.tolist(), b.tolist(), r.tolist(), w.tolist(), n_players, ridge,
                                                 lower, 1e-9, max_iter, None if x0 is None else x0.tolist())
    assert sweeps == want_sweeps
    np.testing.assert_array_equal(x, np.array(want))


def club_system(rng, n_players, m):
    """Distinct pairs of a world of clubs of 30 (one pair in ten across clubs): players with one pair
    beside players with dozens, and long chains of partners, as in a national fit."""
    club = rng.integers(0, n_players // 30, n_players)
    chosen = set()
    while len(chosen) < m:
        a = int(rng.integers(0, n_players))
        mates = np.flatnonzero(club == club[a]) if rng.random() < 0.9 else np.arange(n_players)
        b = int(rng.choice(mates))
        if a != b:
            chosen.add((a, b) if rng.random() < 0.5 else (b, a))
    a, b = (np.array(col, np.int32) for col in zip(*sorted(chosen, key=lambda _: rng.random())))
    return a, b, rng.normal(1500, 120, m), rng.uniform(0.2, 5.0, m)


def test_fit_kernel_keeps_the_plain_sweep_on_a_club_world_with_work_arrays_kept():
    """A few hundred players: the sweep's level-and-pairs order differs from id order in earnest; the work
    arrays of a larger fit are reused, unwiped, by a smaller one (as the scheme keeps them)."""
    rng = np.random.default_rng(18)
    n_players = 240
    work = elo._fit_work(n_players, 900)
    for m in (900, 300):
        a, b, r, w = club_system(rng, n_players, m)
        x0 = rng.normal(1500, 300, n_players)
        x0[rng.random(n_players) < 0.3] = np.nan
        x = x0.copy()
        sweeps = elo._fit_kernel(a, b, r, w, 0.05, 0.0, x, 1e-9, 10000, work)
        want, want_sweeps = naive.naive_gauss_seidel(a.tolist(), b.tolist(), r.tolist(), w.tolist(), n_players,
                                                     0.05, 0.0, 1e-9, 10000, x0.tolist())
        assert sweeps == want_sweeps > 10
        np.testing.assert_array_equal(x, np.array(want))
    assert work.rank[:np.isfinite(x).sum()].max() // elo._DEGREE_RUNS > 3  # several levels: not id order


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), later=st.booleans())
def test_established_pairs_kernel_matches_the_reference(seed, later):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(0, 40))
    state = elo.EloPairsScheme().new_state(PlayerTable(np.ones(4, bool), np.ones(4, bool), np.full(4, np.nan)), k)
    state.rating[:] = rng.normal(1500, 100, k)
    state.pending[:] = rng.normal(0, 10, k)
    state.sessions[:] = rng.integers(0, 15, k)
    state.month_sessions[:] = rng.integers(0, 3, k)
    state.last_day[:] = np.where(rng.random(k) < 0.2, elo.NEVER, DAY - rng.integers(0, 1500, k))
    # the fit candidates as the kernels keep them: every seen pair whose sessions reached 10, and some that
    # fell below (a stale pair's return), a sorted prefix and the rest in the order they qualified
    seen = state.last_day != elo.NEVER
    qualify = seen & (state.sessions + state.month_sessions >= 10)
    fallen = seen & ~qualify & (rng.random(k) < 0.3)
    cand = rng.permutation(np.flatnonzero(qualify | fallen)).astype(np.int32)
    n_sorted = int(rng.integers(0, len(cand) + 1))
    cand[:n_sorted].sort()
    state.fit_ids[:len(cand)] = cand
    state.in_fit[cand] = 1
    state.clock[3:5] = n_sorted, len(cand)
    elo._sort_fit_ids(state)
    sel, rating, sessions = np.empty(k, np.int64), np.empty(k), np.empty(k, np.int64)
    n = elo._established_pairs(elo._ratings(state), DAY, later, 10, 3 * 365.25, sel, rating, sessions)
    want = naive.naive_established(state.rating.tolist(), state.pending.tolist(), state.sessions.tolist(),
                                   state.month_sessions.tolist(), state.last_day.tolist(), DAY, later, 10,
                                   3 * 365.25, elo.NEVER)
    assert list(zip(sel[:n].tolist(), rating[:n].tolist(), sessions[:n].tolist())) == want
    # the pairs that fell below 10 sessions left the candidates, the others stayed, ascending
    assert state.clock[3] == state.clock[4] == qualify.sum()
    assert state.fit_ids[:state.clock[4]].tolist() == np.flatnonzero(qualify).tolist()
    assert state.in_fit.tolist() == qualify.astype(np.int8).tolist()


def test_fit_of_an_odd_cycle_is_exact():
    """Three players in a triangle: pair ratings = means of the two players, exactly."""
    truth = np.array([1400.0, 1600.0, 1550.0])
    a = np.array([0, 1, 0], np.int32)
    b = np.array([1, 2, 2], np.int32)
    r = (truth[a] + truth[b]) / 2
    x, _ = elo.fit_individual(a, b, r, np.ones(3), 3, 1e-9, 0.0, tol=1e-12)
    np.testing.assert_allclose(x, truth, atol=1e-4)


def test_fit_of_one_partnership_gives_both_players_its_rating():
    x, _ = elo.fit_individual([2], [5], [1620.0], [3.0], 7, 0.05, 0.0)
    assert x[2] == pytest.approx(1620.0) and x[5] == pytest.approx(1620.0)
    assert np.isnan(x[[0, 1, 3, 4, 6]]).all()


def test_fit_respects_the_lower_bound():
    # (0,1) at 100, (1,2) at 2000: unbounded, player 0 would go far below 0
    x, _ = elo.fit_individual([0, 1], [1, 2], [100.0, 2000.0], [1.0, 1.0], 3, 0.01, 0.0, tol=1e-12)
    want = naive.naive_fit_individual([0, 1], [1, 2], [100.0, 2000.0], [1.0, 1.0], 3, 0.01, 0.0)
    assert x[0] == 0.0
    np.testing.assert_allclose(x, want, atol=1e-6)
    free, _ = elo.fit_individual([0, 1], [1, 2], [100.0, 2000.0], [1.0, 1.0], 3, 0.01, -1e9, tol=1e-12)
    assert free[0] < -100


@pytest.mark.parametrize("args,message", [
    (([0], [0], [1500.0], [1.0], 2, 0.05, 0.0), "pair 0 has the same player twice"),
    (([0], [3], [1500.0], [1.0], 2, 0.05, 0.0), "player id is outside 0..1"),
    (([0], [1], [np.nan], [1.0], 2, 0.05, 0.0), "r has a non-finite value at pair 0"),
    (([0], [1], [1500.0], [0.0], 2, 0.05, 0.0), r"weights must be finite and > 0, got w\[0\]=0.0"),
    (([0], [1], [1500.0], [1.0], 2, 0.0, 0.0), "ridge=0.0 must be > 0"),
    (([0, 1], [1], [1500.0], [1.0], 2, 0.05, 0.0), "must have one length"),
])
def test_fit_rejects_bad_input(args, message):
    with pytest.raises(ValueError, match=message):
        elo.fit_individual(*args)


# --- the scheme's grades ------------------------------------------------------------

def rated(params, sessions, n_players):
    scheme = elo.EloPairsScheme(params)
    scored = build(sessions)
    table = PlayerTable(np.ones(n_players, bool), np.ones(n_players, bool), np.full(n_players, np.nan))
    state = scheme.new_state(table, len(scored.partnership_players))
    scheme.apply(state, scored, np.empty((scored.n_entries, 2)))
    return scheme, state


def test_grades_fit_established_pairs_with_session_and_currency_weights():
    params = elo.Params(established_sessions=2, update="running", fit_half_life_years=0.5,
                        fit_session_power=1.0, fit_ridge=0.05)
    pairs_a = [(0, 1), (2, 3), (4, 5)]
    pairs_b = [(0, 2), (1, 3), (4, 6)]
    ss = [session(DAY + 7 * i, KIND_HOWELL, pairs_a, [i % 3, (i + 1) % 3, 1]) for i in range(4)]
    ss += [session(DAY + 100 + 7 * i, KIND_HOWELL, pairs_b, [1, i % 2, 0]) for i in range(3)]
    ss += [session(DAY + 200, KIND_HOWELL, [(7, 8), (0, 1)], [1, 0])]  # (7, 8) stays provisional
    scheme, state = rated(params, ss, 10)
    day = DAY + 300
    g = scheme.grades(state, day)
    # by hand: established pairs, w = sessions · 2^(−age/half-life)
    est = [p for p in range(state.capacity) if state.last_day[p] != elo.NEVER and state.sessions[p] >= 2]
    assert len(est) == 6
    w = [state.sessions[p] * 0.5 ** ((day - state.last_day[p]) / 365.25 / 0.5) for p in est]
    want = naive.naive_fit_individual(state.players[est, 0].tolist(), state.players[est, 1].tolist(),
                                      state.rating[est].tolist(), w, 10, 0.05, 0.0)
    np.testing.assert_allclose(g, elo.rating_to_grade(want, params), atol=1e-6)
    assert np.isnan(g[[7, 8, 9]]).all()  # only a provisional partnership, or none
    assert np.isfinite(g[:7]).all()


def test_grades_are_pair_ratings_fitted_bit_for_bit():
    """``grades`` selects and weighs the pairs in one pass; the same bits as ``pair_ratings`` + ``fit_individual``."""
    params = elo.Params(established_sessions=2, fit_half_life_years=0.5)
    pairs = [[(0, 1), (2, 3), (4, 5)], [(0, 2), (1, 3), (4, 6)], [(0, 1), (2, 3), (4, 6)]]
    ss = [session(DAY + 9 * i, KIND_HOWELL, pairs[i % 3], [i % 3, (i + 1) % 3, 1]) for i in range(12)]
    scheme, state = rated(params, ss, 8)
    for day in (DAY + 100, DAY + 140, DAY + 400):  # the last month's changes published or not
        x0 = state.indiv.copy()
        pr = scheme.pair_ratings(state, day)
        sel = np.flatnonzero(pr["established"])
        w = np.maximum(pr["sessions"][sel], 1).astype(np.float64) ** params.fit_session_power
        w = w * 0.5 ** (np.maximum(day - pr["last_day"][sel].astype(np.float64), 0.0) / 365.25 / 0.5)
        want, _ = elo.fit_individual(pr["players"][sel, 0], pr["players"][sel, 1], pr["rating"][sel], w, 8,
                                     params.fit_ridge, params.min_rating, params.fit_tol, params.fit_max_iter, x0=x0)
        got = scheme.individual_ratings(state, day)
        assert np.isfinite(got).sum() >= 4
        np.testing.assert_array_equal(got, want)


def test_grades_drop_stale_pairs_and_warm_start_agrees():
    params = elo.Params(established_sessions=1, update="running", stale_years=1.0)
    ss = [session(DAY, KIND_HOWELL, [(0, 1), (2, 3)], [1, 0]),
          session(DAY + 300, KIND_HOWELL, [(0, 2), (4, 5)], [1, 0])]
    scheme, state = rated(params, ss, 6)
    fresh = scheme.grades(state, DAY + 301)
    assert np.isfinite(fresh[:6]).all()
    again = scheme.grades(state, DAY + 301)  # warm start from the stored fit
    np.testing.assert_allclose(again, fresh, atol=1e-7)
    later = scheme.grades(state, DAY + 400)  # (0,1) and (2,3) last played > 1 year ago
    pr = scheme.pair_ratings(state, DAY + 400)
    assert pr["established"].tolist()[:4] == [False, False, True, True]
    assert later[1] != later[1] and later[3] != later[3]  # NaN: only stale pairs
    assert later[0] == pytest.approx(float(pr["grade"][2]))  # (0, 2) alone now


def test_monthly_pending_changes_count_from_the_next_month():
    params = elo.Params(established_sessions=0)
    scheme, state = rated(params, [session(DAY + 10, KIND_HOWELL, [(0, 1), (2, 3)], [1, 0])], 4)
    same_month = scheme.pair_ratings(state, DAY + 20)["rating"][0]
    next_month = scheme.pair_ratings(state, DAY + 40)["rating"][0]
    assert same_month == 1500.0 and next_month == pytest.approx(1500 + 16.0)
    g = scheme.grades(state, DAY + 40)
    assert g[0] == pytest.approx(50 + 16.0 / params.elo_per_grade)
    assert g[2] == pytest.approx(50 - 16.0 / params.elo_per_grade)
    np.testing.assert_allclose(scheme.grades(state, DAY + 20)[:4], 50.0)  # not yet published
