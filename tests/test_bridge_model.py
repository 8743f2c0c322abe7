"""The bridge score model: scoring, deals, table draws, card play; kernels against tests/naive."""

import dataclasses
import itertools
import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import naive
from naive.rng import SplitMix64
from simcore.bridge import mitchell, model as bm

PARAMS = bm.BridgeModelParams()
POOL_KEY = 0x5EED_0F_B0A7D  # any key: the pool is rebuilt from it in every test session


# --- duplicate scoring ------------------------------------------------------------

@pytest.mark.parametrize("level,strain,doubled,vul,tricks,expected", [
    (4, "S", 0, False, 10, 420),      # 4S= NV
    (3, "NT", 0, True, 10, 630),      # 3NT+1 V
    (1, "NT", 0, False, 6, -50),      # 1NT-1 NV
    (4, "H", 1, True, 7, -800),       # 4HX-3 V
    (6, "NT", 0, True, 12, 1440),     # 6NT= V
    (7, "C", 0, False, 13, 1440),     # 7C= NV
    (2, "S", 2, False, 8, 640),       # 2SXX= NV: 240 + 300 game + 100 insult (not 760)
    (1, "NT", 2, True, 7, 760),       # 1NTXX= V: 160 + 500 + 100
    (1, "C", 0, False, 7, 70),
    (3, "NT", 0, False, 9, 400),
    (4, "S", 1, True, 10, 790),       # 240 + 500 + 50
    (4, "S", 1, True, 11, 990),       # + a doubled vulnerable overtrick
    (2, "H", 1, False, 8, 470),       # doubled into game: 120 + 300 + 50
    (1, "S", 1, True, 8, 360),        # 60 + 50 + 50 + 200
    (5, "C", 1, False, 11, 550),
    (6, "S", 1, True, 12, 1660),      # 360 + 500 + 750 + 50
    (7, "NT", 2, True, 13, 2980),     # 880 + 500 + 1500 + 100
    (3, "NT", 1, False, 8, -100),
    (3, "NT", 1, False, 7, -300),
    (3, "NT", 1, False, 6, -500),
    (3, "NT", 1, False, 5, -800),
    (3, "NT", 2, False, 5, -1600),
    (7, "NT", 1, True, 0, -3800),
    (7, "NT", 1, False, 0, -3500),
    (4, "S", 0, True, 8, -200),
    (0, "NT", 0, True, 0, 0),         # passed out
])
def test_known_scores(level, strain, doubled, vul, tricks, expected):
    assert bm.bridge_score(level, strain, doubled, vul, tricks) == expected


def test_bridge_score_matches_reference_everywhere():
    table = np.zeros((8, 5, 3, 2, 14), np.int64)
    bm._score_table(table)                                  # the pool's look-up table of _score
    for level, strain, doubled, vul, tricks in itertools.product(range(8), range(5), range(3), (False, True),
                                                                 range(14)):
        assert bm._score(level, strain, doubled, vul, tricks) == table[level, strain, doubled, int(vul), tricks] == \
            naive.bridge_score(level, strain, doubled, vul, tricks), (level, strain, doubled, vul, tricks)


@pytest.mark.parametrize("kwargs,name", [
    (dict(level=8), "level=8"), (dict(level=-1), "level=-1"), (dict(strain="X"), "strain='X'"),
    (dict(strain=5), "strain=5"), (dict(doubled=3), "doubled=3"), (dict(tricks=14), "tricks=14"),
    (dict(tricks=2.5), "tricks=2.5"),
])
def test_bridge_score_rejects_bad_input(kwargs, name):
    args = dict(level=4, strain="S", doubled=0, vulnerable=False, tricks=10) | kwargs
    with pytest.raises(ValueError, match=name.replace("(", r"\(")):
        bm.bridge_score(**args)


def test_vulnerability_cycle():
    words = [bm.VULNERABILITIES[bm.board_vulnerability(b)] for b in range(1, 17)]
    assert words == ["None", "NS", "EW", "All", "NS", "EW", "All", "None",
                     "EW", "All", "None", "NS", "All", "None", "NS", "EW"]
    for b in range(1, 65):
        assert bm.board_vulnerability(b) == naive.board_vulnerability(b) == bm.board_vulnerability(b + 16)
    with pytest.raises(ValueError, match="board=0"):
        bm.board_vulnerability(0)


# --- parameters ------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs,message", [
    (dict(alpha=-0.1), "alpha=-0.1"), (dict(alpha="x"), "alpha='x'"), (dict(sigma_floor=0.0), "sigma_floor=0.0"),
    (dict(pool_size=0), "pool_size=0"), (dict(pool_size=2.5), "pool_size=2.5"), (dict(pool_size=True), "pool_size=True"),
    (dict(p_flat=1.5), "p_flat=1.5"), (dict(play_plus=float("nan")), "play_plus=nan"),
    (dict(p_game=0.5), "p_game=0.5, .*= 1.1 must be 1"), (dict(play_minus=0.5, play_plus=0.5), "play_plus = 1.0"),
    (dict(dummy_share=-0.25), "dummy_share=-0.25"),
])
def test_params_validation_names_field_and_value(kwargs, message):
    with pytest.raises(ValueError, match=message):
        bm.BridgeModelParams(**kwargs)


def test_params_have_help_and_defaults_of_the_ratings_mapping():
    for f in dataclasses.fields(bm.BridgeModelParams):
        assert f.metadata.get("help"), f.name
    # the card-play rate model (the IMPs-lost grade map is fitted on a run of it: simcore.engine.imps_lost_fit)
    assert (PARAMS.imps_lost_base, PARAMS.imps_lost_slope, PARAMS.imps_lost_floor) == (1.2, 0.05, 0.55)


# --- deals and the pool -------------------------------------------------------------------

deal_mix = st.lists(st.floats(0.0, 1.0), min_size=4, max_size=4).filter(lambda x: sum(x) > 0.1)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**64 - 1), st.integers(0, 10**6), deal_mix, st.floats(0, 3), st.floats(0, 2),
       st.floats(0, 1), st.floats(0, 1), st.floats(0, 0.3), st.floats(0, 1.5))
@example(key=39_968_514_891_115, first=0, mix=[0.0, 0.0, 0.0, 1.0], consensus=7.5e-139, dispersion=1.0,
         compete=0.0, sacrifice=0.0, minus=0.0, play_disp=0.0)          # a rung of probability 1e-140
@example(key=49, first=0, mix=[0.0, 1.0, 0.0, 0.0], consensus=7.5e-139, dispersion=2.0, compete=0.0,
         sacrifice=0.0, minus=0.0, play_disp=0.0)
@example(key=0, first=720, mix=[0.0, 0.0, 0.0, 1.0], consensus=5.57e-11, dispersion=1.0, compete=0.0,
         sacrifice=0.0, minus=0.0, play_disp=0.0)          # a top rung of probability 1.5e-12
def test_pool_matches_reference(key, first, mix, consensus, dispersion, compete, sacrifice, minus, play_disp):
    total = sum(mix)
    p_flat, p_part, p_game = (m / total for m in mix[:3])
    params = bm.BridgeModelParams(p_flat=p_flat, p_partscore=p_part, p_game=p_game,
                                  p_slam=max(0.0, 1.0 - p_flat - p_part - p_game), consensus=consensus,
                                  bidding_dispersion=dispersion, p_compete=compete, p_sacrifice=sacrifice,
                                  play_minus=minus, play_dispersion=play_disp)
    pool = bm.build_pool(params, key, 3, first)
    for d in range(3):
        for (va, vb), rungs in naive.build_deal(params, key, first + d).items():
            row = 4 * d + 2 * va + vb
            m = pool.n_rungs[row]
            assert m == len(rungs)
            assert pool.scores[row, :m].tolist() == [s for s, _ in rungs]
            np.testing.assert_allclose(pool.probs[row, :m], [p for _, p in rungs], rtol=1e-7, atol=1e-12)
            # a cut point is Phi^-1 of a cumulative probability that the kernel and the twin add up each in
            # its own order: near 0 or 1 an ulp of that sum moves Phi^-1 by ulp / pdf (1e-5 where the top
            # rung has probability 1.5e-12), so the tolerance allows a few ulps of the sum besides rtol
            want, got = np.asarray(naive.cut_points(rungs)), pool.thresholds[row]
            finite = np.isfinite(want)
            assert np.array_equal(np.isfinite(got), finite) and np.all(got[~finite] == want[~finite])
            w = want[finite]
            ulps_of_sum = 8 * np.finfo(np.float64).eps / (np.exp(-0.5 * w * w) / np.sqrt(2 * np.pi))
            assert np.all(np.abs(got[finite] - w) <= 1e-7 + 1e-6 * np.abs(w) + ulps_of_sum), (got, want)


def test_pool_ladders_are_sane():
    pool = _POOL
    n = pool.n_rungs
    assert n.min() >= 1 and n.max() <= bm.MAX_RUNGS
    for row in range(pool.scores.shape[0]):
        m = n[row]
        assert np.all(np.diff(pool.scores[row, :m]) > 0)                 # ascending, ties merged
        assert pool.probs[row, :m].sum() == pytest.approx(1.0, abs=1e-12)
        th = pool.thresholds[row]
        assert np.all(th[1:] >= th[:-1])
        assert np.all(np.isinf(pool.thresholds[row, m - 1:]))
    # real duplicate: slams, doubled disasters and passed-out boards all occur
    flat = pool.scores[pool.probs > 0]
    assert flat.max() >= 1430 and flat.min() <= -1430 and np.any(flat == 0)
    # the same deal is scored at all four vulnerabilities: vulnerable games score more
    assert np.any(pool.scores[2::4] != pool.scores[0::4])


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**64 - 1), st.integers(0, 10**6), st.randoms(use_true_random=False))
def test_ladder_whatever_order_its_keys_come_in(key, deal, rnd):
    """A ladder does not depend on the order its keys come in (the order of the deal's ladder before, in
    the pool): any order gives the same ladder, bit for bit, the twin's, and leaves the keys sorted."""
    params = dataclasses.replace(PARAMS, p_compete=0.9, p_sacrifice=0.9)      # side B contracts in most deals
    state = np.empty(1, np.uint64)
    bm.seed_stream(state, np.uint64(key), deal, 0)
    opts = np.zeros((bm.MAX_OPTIONS, 6), np.int64)
    w, noise = np.zeros(bm.MAX_OPTIONS), np.zeros(4)
    n_opt = bm._make_deal(params.deal_vector(), state, opts, w, noise)
    outcome, table = np.zeros(16 * bm.MAX_OPTIONS, np.int64), np.zeros((8, 5, 3, 2, 14), np.int64)
    bm._score_table(table)
    bm._outcome_scores(opts, n_opt, table, outcome)
    twin = naive.build_deal(params, key, deal)
    for va, vb in itertools.product((0, 1), (0, 1)):
        got = []
        for shuffle in (False, True):
            order = list(range(4 * n_opt))
            if shuffle:
                rnd.shuffle(order)
            keys = np.array(order + [0] * (4 * (bm.MAX_OPTIONS - n_opt)), np.int64)
            rung_s, rung_p = np.zeros(4 * bm.MAX_OPTIONS, np.int64), np.zeros(4 * bm.MAX_OPTIONS)
            m = bm._ladder(opts, w, n_opt, noise, va, vb, outcome, np.zeros(bm.MAX_OPTIONS), keys, rung_s, rung_p)
            assert np.all(np.diff(keys[:4 * n_opt]) > 0)
            got.append((rung_s[:m].tolist(), rung_p[:m].tolist()))
        assert got[0] == got[1]
        assert got[0][0] == [s for s, _ in twin[va, vb]]
        # the twin's weights use another normal quantile: equal to rounding
        np.testing.assert_allclose(got[0][1], [p for _, p in twin[va, vb]], rtol=1e-7, atol=1e-12)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=bm.MAX_RUNGS).filter(lambda x: sum(x) > 0),
       st.sampled_from([1.0, 1e-13, 1e-6, 1e3]))
def test_cut_points_are_normal_quantiles_of_the_sums(weights, scale):
    """Vectorised, the cut points are the bits of normal_quantile of the running sums (the scalar loop
    they replace), and the twin's quantiles to rounding; scale puts tiny rungs at either end."""
    probs = np.zeros(bm.MAX_RUNGS)
    probs[:len(weights)] = np.array(weights) / sum(weights)
    probs[0] *= scale
    probs[:len(weights)] /= probs.sum()
    m = len(weights)
    out = np.full(bm.MAX_RUNGS, np.nan)
    bm.cut_points(probs, m, out)
    want, c = [], 0.0
    for k in range(bm.MAX_RUNGS):
        c += probs[k] if k < m - 1 else 0.0
        want.append(bm.normal_quantile(max(c, 1e-15)) if k < m - 1 and c < 1.0 - 1e-12 else math.inf)
    assert out.tobytes() == np.array(want).tobytes()
    twin = np.array(naive.cut_points(list(zip(range(m), probs[:m]))))
    finite = np.isfinite(twin)
    assert np.array_equal(np.isfinite(out), finite)
    w = twin[finite]       # tolerance as test_pool_matches_reference's: the twin adds up its sums its own way
    ulps_of_sum = 8 * np.finfo(np.float64).eps / (np.exp(-0.5 * w * w) / np.sqrt(2 * np.pi))
    assert np.all(np.abs(out[finite] - w) <= 1e-7 + 1e-6 * np.abs(w) + ulps_of_sum), (out, twin)


def test_build_pool_rejects_bad_size():
    with pytest.raises(ValueError, match="n_deals=0"):
        bm.build_pool(PARAMS, 1, 0)


# --- table draws ----------------------------------------------------------------------------

def test_fast_normal_matches_reference_and_is_accurate():
    state = np.empty(1, np.uint64)
    bm.seed_stream(state, np.uint64(77), 3, 4)
    ref = SplitMix64(77, 3, 4)
    z = np.array([bm.fast_normal(state) for _ in range(20000)])
    assert z.tolist() == [naive.fast_normal(ref) for _ in range(20000)]
    # moments of 20000 standard normals: se(mean) 0.007, se(var) 0.01
    assert abs(z.mean()) < 0.03 and abs(z.var() - 1.0) < 0.04


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 4 * 512 - 1), st.integers(0, 1), st.floats(-6, 6))
def test_latent_score_binary_search_matches_linear_scan(row, flip, q):
    pool = _POOL
    code = 2 * row + flip
    assert bm.latent_score(pool.scores, pool.thresholds, code, q) == \
        naive.latent_score(pool.scores, pool.thresholds, code, q)
    # exactly on a cut point the lower rung is taken
    k = int(pool.n_rungs[row]) - 2
    if k >= 0:
        t = float(pool.thresholds[row, k])
        assert bm.latent_score(pool.scores, pool.thresholds, code, t) == \
            naive.latent_score(pool.scores, pool.thresholds, code, t)


_POOL = bm.build_pool(PARAMS, POOL_KEY, 512)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4 * 512 - 1), st.integers(0, 1)), min_size=1, max_size=8),
       st.integers(0, 3), st.floats(-6, 6))
def test_take_boards_matches_reference_and_the_pool(boards, first, q):
    """Boards copied into a session's table score as on the pool, at every latent."""
    pool = _POOL
    stop = first + len(boards)
    pool_codes = [0] * first + [2 * row + flip for row, flip in boards]
    codes = np.array(pool_codes, np.int64)
    slot_scores, slot_thr = np.zeros((stop, bm.MAX_RUNGS), np.int32), np.zeros((stop, bm.MAX_RUNGS))
    bm.take_boards(pool.scores, pool.thresholds, codes, first, stop, slot_scores, slot_thr)
    ref_codes, ref_scores, ref_thr = list(pool_codes), [None] * stop, [None] * stop
    naive.take_boards(pool.scores.tolist(), pool.thresholds.tolist(), ref_codes, first, stop, ref_scores, ref_thr)
    assert codes.tolist() == ref_codes
    assert slot_scores[first:].tolist() == ref_scores[first:] and slot_thr[first:].tolist() == ref_thr[first:]
    for slot in range(first, stop):
        assert bm.latent_score(slot_scores, slot_thr, codes[slot], q) == \
            bm.latent_score(pool.scores, pool.thresholds, pool_codes[slot], q)


strength = st.floats(30, 70)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**64 - 1), st.lists(st.tuples(strength, strength), min_size=1, max_size=12),
       st.floats(0.5, 1.5), st.floats(0, 0.1))
def test_table_draws_match_reference(key, pairs, sigma, alpha):
    ns = np.array([a for a, _ in pairs])
    ew = np.array([b for _, b in pairs])
    out = np.empty((20, len(pairs)), np.int32)
    bm._play_boards(_POOL.scores, _POOL.thresholds, _POOL.n_deals, ns, ew, alpha, sigma, np.uint64(key), out)
    ref = naive.play_boards(_POOL.scores, _POOL.thresholds, _POOL.n_deals, ns.tolist(), ew.tolist(), alpha,
                            sigma, key, 20)
    assert out.tolist() == ref


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**64 - 1), st.integers(1, 40), st.integers(1, 10**6))
def test_deal_session_matches_reference(key, n_boards, n_deals):
    codes = np.empty(n_boards, np.int32)
    mitchell._deal_session(n_deals, np.uint64(key), codes)
    assert codes.tolist() == naive.deal_session(n_deals, key, n_boards)
    for b, code in enumerate(codes):
        row, flip = code >> 1, code & 1
        vul_a, vul_b = (row % 4) >> 1, row % 2
        ns_v, ew_v = (vul_b, vul_a) if flip else (vul_a, vul_b)
        assert (ns_v, ew_v) == [(0, 0), (1, 0), (0, 1), (1, 1)][naive.board_vulnerability(b + 1)]
        assert row // 4 < n_deals


def test_field_sigma():
    assert bm.field_sigma(50.0, 0.024, 0.5) == 1.0
    assert bm.field_sigma(59.0, 0.024, 0.5) == pytest.approx(0.784)
    assert bm.field_sigma(44.0, 0.024, 0.5) == pytest.approx(1.144)
    assert bm.field_sigma(90.0, 0.024, 0.5) == 0.5
    for f in (30.0, 50.0, 61.3, 90.0):
        assert bm.field_sigma(f, 0.024, 0.5) == pytest.approx(naive.field_sigma(f, 0.024, 0.5))


# --- the internal full Mitchell ---------------------------------------------------------------

@pytest.mark.parametrize("tables", range(2, 12))
def test_mitchell_layout(tables):
    bpr = 2
    rows = naive.mitchell_layout(tables, bpr)
    for r, t, ns, ew, b in rows:
        assert mitchell.mitchell_round(tables, b // bpr, t) == r
    # every NS pair meets every EW pair once and plays every board once; so does every EW pair
    meets = {(ns, ew) for r, t, ns, ew, b in rows}
    assert len(meets) == tables * tables
    for side in (2, 3):
        plays = [(row[side], row[4]) for row in rows]
        assert len(set(plays)) == len(plays) == tables * tables * bpr
    # a table plays one board set per round
    assert len({(r, t, b // bpr) for r, t, ns, ew, b in rows}) == tables * tables


@pytest.mark.parametrize("tables", [5, 6])
def test_mitchell_session_matches_reference(tables):
    rs = np.random.default_rng(5)
    ns = rs.uniform(40, 60, tables)
    ew = rs.uniform(40, 60, tables)
    session = mitchell.simulate_mitchell_session(PARAMS, tables, 2, seed=9, session=3, ns_strength=ns,
                                           ew_strength=ew, pool=_POOL)
    draw_key = bm._keys(9)[1]
    sigma = bm.field_sigma(0.5 * (ns.mean() + ew.mean()), PARAMS.sigma_slope, PARAMS.sigma_floor)
    ref_s, ref_e, ref_ns, ref_ew = naive.play_mitchell(_POOL.scores, _POOL.thresholds, session.codes.tolist(),
                                                       2, ns.tolist(), ew.tolist(), PARAMS.alpha, sigma,
                                                       int(draw_key), 3)
    assert session.ns_scores.tolist() == ref_s
    assert session.ew_pair.tolist() == ref_e
    np.testing.assert_allclose(session.ns_pct, ref_ns, atol=1e-9)
    np.testing.assert_allclose(session.ew_pct, ref_ew, atol=1e-9)
    assert session.ns_pct.mean() + session.ew_pct.mean() == pytest.approx(100.0)


@pytest.mark.parametrize("kwargs,message", [
    (dict(tables=1), "tables=1"), (dict(boards_per_round=0), "boards_per_round=0"),
    (dict(ns_strength=[50.0, 50.0]), "ns_strength must be 8"), (dict(ew_strength=float("nan")), "ew_strength"),
])
def test_mitchell_session_rejects_bad_input(kwargs, message):
    with pytest.raises(ValueError, match=message):
        mitchell.simulate_mitchell_session(PARAMS, **({"tables": 8} | kwargs), pool=_POOL)


@pytest.mark.parametrize("kwargs,message", [
    (dict(n_boards=0), "n_boards=0"), (dict(ns_strength=[50.0, 50.0], ew_strength=[50.0] * 3), "ns_strength"),
])
def test_simulate_boards_rejects_bad_input(kwargs, message):
    args = dict(ns_strength=50.0, ew_strength=50.0, n_boards=4) | kwargs
    with pytest.raises(ValueError, match=message):
        bm.simulate_boards(PARAMS, pool=_POOL, **args)


# --- properties of the scores ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def equal_pair_boards():
    # 20000 boards at 8 tables of equal pairs, on a full-size pool
    return bm.simulate_boards(PARAMS, np.full(8, 50.0), np.full(8, 50.0), 20000, seed=31)


def test_equal_pairs_are_symmetric(equal_pair_boards):
    s = equal_pair_boards.astype(float)
    board_means = s.mean(axis=1)                            # boards are independent, tables are not
    se = board_means.std(ddof=1) / math.sqrt(board_means.size)
    assert abs(board_means.mean()) < 4 * se
    pos = (s > 0).mean(axis=1) - (s < 0).mean(axis=1)
    assert abs(pos.mean()) < 4 * pos.std(ddof=1) / math.sqrt(pos.size)


def test_equal_pairs_score_50_percent_symmetrically():
    pool = bm.build_pool(PARAMS, 404)
    x = []
    for s in range(600):
        m = mitchell.simulate_mitchell_session(PARAMS, 7, 3, seed=404, session=s, pool=pool)
        x += [m.ns_pct[s % 7], m.ew_pct[(3 * s) % 7]]      # one NS and one EW pair per session
    dev = np.array(x) - 50.0
    for moment in (dev, dev ** 3):                         # mean 50, no skew
        assert abs(moment.mean()) < 4 * moment.std(ddof=1) / math.sqrt(moment.size)


def test_scores_are_real_bridge(equal_pair_boards):
    s = equal_pair_boards
    assert np.all(s % 10 == 0)
    assert np.any(np.abs(s) >= 1430)                         # slams
    # ties: most boards have equal scores at some tables, a few are completely flat
    n_distinct = np.array([len(set(row)) for row in s.tolist()])
    assert np.mean(n_distinct < 8) > 0.5 and np.mean(n_distinct == 1) > 0.0005


def test_stronger_ns_scores_more():
    gaps = [-8.0, -3.0, 0.0, 3.0, 8.0]
    runs = []
    for g in gaps:   # the same seed: every gap sees the same deals and luck
        runs.append(bm.simulate_boards(PARAMS, np.full(8, 50.0 + g / 2), np.full(8, 50.0 - g / 2), 4000,
                                       seed=12, field_strength=50.0, pool=_POOL).mean(axis=1))
    means = [r.mean() for r in runs]
    assert np.all(np.diff(means) > 0)
    diff = runs[-1] - runs[0]
    assert diff.mean() > 4 * diff.std(ddof=1) / math.sqrt(diff.size)


def test_same_seed_same_scores_and_different_seeds_differ():
    a = bm.simulate_boards(PARAMS, [50.0, 55.0, 45.0], [48.0, 50.0, 52.0], 50, seed=3, pool=_POOL)
    b = bm.simulate_boards(PARAMS, [50.0, 55.0, 45.0], [48.0, 50.0, 52.0], 50, seed=3, pool=_POOL)
    c = bm.simulate_boards(PARAMS, [50.0, 55.0, 45.0], [48.0, 50.0, 52.0], 50, seed=4, pool=_POOL)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    p3, p4 = bm.build_pool(PARAMS, 3, 8), bm.build_pool(PARAMS, 4, 8)
    assert np.array_equal(p3.scores, bm.build_pool(PARAMS, 3, 8).scores)
    assert not np.array_equal(p3.scores, p4.scores)
    m1 = mitchell.simulate_mitchell_session(PARAMS, 5, 2, seed=8, pool=_POOL)
    m2 = mitchell.simulate_mitchell_session(PARAMS, 5, 2, seed=8, pool=_POOL)
    m3 = mitchell.simulate_mitchell_session(PARAMS, 5, 2, seed=8, session=1, pool=_POOL)
    assert np.array_equal(m1.ns_scores, m2.ns_scores) and not np.array_equal(m1.ns_scores, m3.ns_scores)


# --- card play ----------------------------------------------------------------------------------------

def test_imps_lost_rate():
    rate = lambda t: bm.imps_lost_rate(t, 1.2, 0.05, 0.55)  # noqa: E731
    assert rate(50.0) == pytest.approx(1.2)      # rating 2200
    assert rate(60.0) == pytest.approx(0.7)      # rating 2700
    assert rate(40.0) == pytest.approx(1.7)      # rating 1700
    assert rate(70.0) == 0.55                    # the floor, rating 2850
    for t in (20.0, 45.5, 63.0, 80.0):
        assert rate(t) == pytest.approx(naive.imps_lost_rate(t, 1.2, 0.05, 0.55))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**64 - 1), st.lists(st.tuples(strength, st.integers(0, 1200)), min_size=1, max_size=10),
       st.floats(0, 1))
def test_imps_lost_matches_reference(key, records, dummy_share):
    state = np.empty(1, np.uint64)
    bm.seed_stream(state, np.uint64(key), 1, 2)
    ref = SplitMix64(key, 1, 2)
    for t, boards in records:
        got = bm.draw_imps_lost(t, boards, 1.2, 0.05, 0.55, dummy_share, state)
        assert tuple(int(x) for x in got) == naive.draw_imps_lost(t, boards, 1.2, 0.05, 0.55, dummy_share, ref)


def test_imps_lost_statistics():
    n = 20000
    for t in (40.0, 50.0, 65.0):
        imps, played = bm.simulate_imps_lost(PARAMS, np.full(n, t), 24, seed=21)
        lam = bm.imps_lost_rate(t, PARAMS.imps_lost_base, PARAMS.imps_lost_slope, PARAMS.imps_lost_floor)
        # expected IMPs per played board is lambda(t); per-record ratio estimator with its se
        r = imps.sum() / played.sum()
        resid = (imps - r * played) / played.mean()
        assert abs(r - lam) < 4 * resid.std(ddof=1) / math.sqrt(n), t
        # dummy on a quarter of the boards: played ~ Binomial(24, 0.75)
        assert abs(played.mean() - 18.0) < 4 * math.sqrt(24 * 0.25 * 0.75 / n)
    # mostly nothing: a 50 player loses nothing on about 80 % of his boards
    imps, played = bm.simulate_imps_lost(PARAMS, np.full(n, 50.0), 1, seed=22)
    assert np.mean(imps == 0) > 0.75
    assert bm.MEAN_MISTAKE_IMPS == pytest.approx(5.33)


def test_simulate_imps_lost_rejects_bad_input():
    with pytest.raises(ValueError, match="boards"):
        bm.simulate_imps_lost(PARAMS, [50.0], [-1])
    with pytest.raises(ValueError, match="strength"):
        bm.simulate_imps_lost(PARAMS, [float("inf")], [24])
