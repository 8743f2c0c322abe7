"""Metrics on hand-built Datasets whose answers are known."""

import json

import numpy as np
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st

from simcore import metrics
from simcore.engine import session_stats

TYPES = ["pickup", "regular", "near_exclusive", "guest", "online_single"]


def make_ds(grade, truth, home_club, *, times=None, ptype=None, partner=None, activity=None, status=None,
            scheme_names=("ngs",), isolation_ends=""):
    """A minimal engine-shaped Dataset: grade (1, S, T, P), truth (1, T, P)."""
    grade = np.asarray(grade, np.float32)
    S, T, P = grade.shape
    truth = np.broadcast_to(np.asarray(truth, np.float32), (T, P))
    times = np.arange(T) * np.timedelta64(7, "D") + np.datetime64("2020-01-06") if times is None else times
    ds = xr.Dataset(
        {"grade": (("replicate", "scheme", "time", "player"), grade[None]),
         "true_strength": (("replicate", "time", "player"), truth[None].copy()),
         "active": (("replicate", "time", "player"), np.ones((1, T, P), bool)),
         "boards": (("replicate", "time", "player"), np.full((1, T, P), 1000, np.int32))},
        coords={"replicate": [0], "scheme": [f"{n}#{i}" for i, n in enumerate(scheme_names)],
                "scheme_name": ("scheme", list(scheme_names)), "time": times, "player": np.arange(P),
                "home_club": (("replicate", "player"), np.asarray(home_club, np.int32)[None]),
                "member": (("replicate", "player"), np.ones((1, P), bool)),
                "partnership_type": (("replicate", "player"),
                                     np.zeros((1, P), np.int8) if ptype is None else np.asarray(ptype, np.int8)[None]),
                "partner": (("replicate", "player"),
                            np.full((1, P), -1, np.int32) if partner is None else np.asarray(partner, np.int32)[None]),
                "activity": (("replicate", "player"),
                             np.ones((1, P), np.float32) if activity is None else np.asarray(activity, np.float32)[None]),
                "club_name": ("club", ["A", "B", "C"])},
        attrs={"partnership_types": json.dumps(TYPES),
               "scenario": json.dumps({"mixing": {"isolation_ends": isolation_ends}})})
    if status is not None:
        ds["ngs_status"] = (("replicate", "scheme", "time", "player"), np.asarray(status, np.float32)[None],
                            {"extra": "status", "scheme_name": "ngs",  # as engine.dataset labels a snapshot extra
                             "flag_meanings": "provisional evolving mature out_of_date"})
    return ds


def test_accuracy_by_club_and_partnership():
    # player errors: club 0 → +2, +2 ; club 1 → -1, +3 ; partnership types 0, 1, 1, 2
    truth = np.array([50, 52, 48, 47.0])
    grade = (truth + [2, 2, -1, 3])[None, None]
    ds = make_ds(grade, truth, [0, 0, 1, 1], ptype=[0, 1, 1, 2])
    by_club = metrics.accuracy_by(ds, "club")
    assert list(by_club["group"].values) == ["A", "B"]
    np.testing.assert_allclose(by_club["bias"].values[0, 0], [2.0, 1.0])
    np.testing.assert_allclose(by_club["rmse"].values[0, 0], [2.0, np.sqrt(5.0)], rtol=1e-6)
    by_p = metrics.accuracy_by(ds, "partnership")
    assert list(by_p["group"].values) == TYPES
    np.testing.assert_allclose(by_p["bias"].values[0, 0, :3], [2.0, 0.5, 3.0])
    assert list(by_p["n"].values[0, 0]) == [1, 2, 1, 0, 0]


def test_accuracy_by_activity_and_status():
    truth = np.full(4, 50.0)
    grade = (truth + [1, -3, 4, 0])[None, None]
    ds = make_ds(grade, truth, [0, 0, 0, 0], activity=[0.2, 0.7, 1.5, 3.0], status=np.array([[[0, 2, 2, 3]]]))
    by_a = metrics.accuracy_by(ds, "activity")
    np.testing.assert_allclose(by_a["bias"].values[0, 0], [1, -3, 4, 0])
    by_s = metrics.accuracy_by(ds, "status")
    np.testing.assert_allclose(by_s["bias"].values[0, 0], [1.0, np.nan, 0.5, 0.0])
    with pytest.raises(ValueError, match="choose club, activity, status or partnership"):
        metrics.accuracy_by(ds, "colour")
    with pytest.raises(ValueError, match="needs a variant of a scheme that records a .status. extra"):
        metrics.accuracy_by(ds.drop_vars("ngs_status"), "status")


def test_diffusion_times_from_a_known_decay():
    # club 0 gap 4 * 0.5**(week/10): halves at week 10, below 0.5 from week 30
    T = 41
    weeks = np.arange(T)
    gap0 = 4 * 0.5 ** (weeks / 10)
    truth = np.array([50.0, 50.0])
    grade = np.stack([50 + gap0, np.full(T, 50.0)], axis=1)[None]  # club 1: no gap
    ds = make_ds(grade, truth, [0, 1], isolation_ends="2020-01-06")
    d = metrics.diffusion_times(ds)
    assert d["initial_gap"].values[0, 0, 0] == pytest.approx(4.0, rel=1e-6)
    assert d["weeks_to_halve"].values[0, 0, 0] == 10
    assert d["weeks_below"].values[0, 0, 0] == 30
    assert d["weeks_to_halve"].values[0, 0, 1] == 0  # a zero gap is already halved
    # the RMS over clubs halves when club 0's gap does
    assert d["rms_weeks_to_halve"].values[0, 0] == 10
    # from a later start the initial gap is the one then
    later = metrics.diffusion_times(ds, start="2020-03-16")  # week 10
    assert later["initial_gap"].values[0, 0, 0] == pytest.approx(2.0, rel=1e-5)
    assert later["weeks_to_halve"].values[0, 0, 0] == 10
    with pytest.raises(ValueError, match="after the last snapshot"):
        metrics.diffusion_times(ds, start="2030-01-01")


def test_diffusion_never_below_is_nan():
    T = 5
    grade = np.stack([np.full(T, 53.0), np.full(T, 50.0)], axis=1)[None]
    ds = make_ds(grade, [50.0, 50.0], [0, 1])
    d = metrics.diffusion_times(ds)
    assert np.isnan(d["weeks_to_halve"].values[0, 0, 0])
    assert np.isnan(d["weeks_below"].values[0, 0, 0])


def test_aces_eights_gap_error():
    # partnership 0-1: true gap 4, grade gap 0 → error 4 ; partnership 2-3: exact
    truth = np.array([54.0, 50.0, 49.0, 47.0])
    grade = np.array([52.0, 52.0, 49.0, 47.0])[None, None]
    ds = make_ds(grade, truth, [0, 0, 1, 1], ptype=[2, 2, 2, 2], partner=[1, 0, 3, 2])
    ae = metrics.aces_eights(ds)
    assert ae["mean_abs_gap_error"].values[0, 0, 0] == pytest.approx(2.0)
    assert ae["share_over_4"].values[0, 0, 0] == 0.0
    assert ae["n_partnerships"].values[0, 0, 0] == 2


def _club_bias_naive(ds, min_boards=300):
    """One pass per club: obviously right, far too slow at national scale."""
    mask = metrics.graded_mask(ds, min_boards)
    err = ds["grade"] - ds["true_strength"]
    n_clubs = int(ds["home_club"].max()) + 1
    gap = xr.concat([err.where(mask & (ds["home_club"] == c)).mean("player") for c in range(n_clubs)], dim="club")
    return gap.assign_coords(club_name=("club", ds["club_name"].values[:n_clubs]))


def test_club_bias_matches_one_pass_per_club():
    rng = np.random.default_rng(3)
    S, T, P = 2, 4, 60
    truth = rng.normal(50, 5, (T, P))
    grade = truth[None] + rng.normal(0, 2, (S, T, P))
    grade[0, 1, :7] = np.nan  # ungraded players drop out of their club's mean
    home = rng.integers(-1, 3, P)  # -1: online only, in no club
    ds = make_ds(grade, truth, home, scheme_names=("ngs", "ppi"))
    ds["boards"][0, 0, :5] = 10  # under 300 boards: not graded yet
    ds["boards"][0, :, home == 2] = 10  # club C has nobody graded: its gap is NaN
    got = metrics.club_bias(ds)
    xr.testing.assert_allclose(got["gap"], _club_bias_naive(ds).transpose(*got["gap"].dims))
    assert np.isnan(got["gap"].sel(club=2)).all() and np.isfinite(got["gap"].sel(club=0)).all()
    np.testing.assert_allclose(got["rms"].values, np.sqrt(np.nanmean(got["gap"].values ** 2, axis=0)))


def test_club_gap_decay_recovers_a_known_rate():
    # three clubs with gaps +4, -3 and +1 that all decay at 0.05 a week (half-life ln 2 / 0.05 = 13.86 weeks)
    T = 60
    weeks = np.arange(T)
    decay = np.exp(-0.05 * weeks)
    grade = np.stack([50 + 4 * decay, 50 - 3 * decay, 50 + 1 * decay], axis=1)[None]
    ds = make_ds(grade, [50.0, 50.0, 50.0], [0, 1, 2], isolation_ends="2020-01-06")
    fit = metrics.club_gap_decay(ds)
    assert fit["rate_per_week"].values[0, 0] == pytest.approx(0.05, rel=1e-4)
    assert fit["half_life_weeks"].values[0, 0] == pytest.approx(np.log(2) / 0.05, rel=1e-4)
    assert fit["initial_rms_gap"].values[0, 0] == pytest.approx(np.sqrt((16 + 9 + 1) / 3), rel=1e-5)
    # from a later start the rate is the same (an exponential has no memory)
    later = metrics.club_gap_decay(ds, start="2020-03-16")
    assert later["rate_per_week"].values[0, 0] == pytest.approx(0.05, rel=1e-4)


def test_club_gap_decay_of_a_gap_that_never_closes_is_zero_not_missing():
    T = 20
    grade = np.stack([np.full(T, 53.0), np.full(T, 47.0)], axis=1)[None]
    fit = metrics.club_gap_decay(make_ds(grade, [50.0, 50.0], [0, 1]))
    assert fit["rate_per_week"].values[0, 0] == 0.0
    assert np.isinf(fit["half_life_weeks"].values[0, 0])


def test_summary_per_replicate_matches_the_single_figures():
    truth = np.array([54.0, 50.0, 49.0, 47.0])
    grade = np.stack([truth + [1, -1, 2, 0], truth + [3, 3, 3, 3]])[:, None, :].repeat(2, axis=1)  # (S, T, P)
    ds = make_ds(grade, truth, [0, 0, 1, 1], ptype=[2, 2, 2, 2], partner=[1, 0, 3, 2], scheme_names=("a", "b"))
    per = metrics.summary_per_replicate(ds)
    assert per["rmse"].dims == ("replicate", "scheme")
    np.testing.assert_allclose(per["rmse"].values[0], [np.sqrt(6 / 4), 3.0], rtol=1e-6)
    np.testing.assert_allclose(per["bias"].values[0], [0.5, 3.0], rtol=1e-6)
    np.testing.assert_allclose(per["abs_bias"].values[0], [0.5, 3.0], rtol=1e-6)
    np.testing.assert_allclose(per["aces_eights"].values[0], [(2 + 2) / 2, 0.0], atol=1e-6)
    np.testing.assert_allclose(per["club_bias"].values[0], [np.sqrt((0 + 1) / 2), 3.0], rtol=1e-6)
    np.testing.assert_allclose(per["volatility"].values[0], [0.0, 0.0], atol=1e-6)
    assert metrics.summary(ds)["a#0"]["rmse"] == pytest.approx(np.sqrt(6 / 4), rel=1e-6)


def test_fr18_direct_pair_grading_error_is_the_variance_of_grade_minus_truth():
    from types import SimpleNamespace as NS
    rng = np.random.default_rng(4)
    n_pairs, n_tables, boards = 16, 8, 3  # one group of 16 pairs: every board played 8 times
    players = np.arange(2 * n_pairs).reshape(n_pairs, 2)
    grade_before = rng.normal(50, 5, 2 * n_pairs)
    true_pair = 0.5 * (grade_before[players[:, 0]] + grade_before[players[:, 1]]) + rng.normal(0, 1.3, n_pairs)
    results = NS(trav_board=np.repeat(np.arange(boards), n_tables))
    scored = NS(n_sessions=1, scoring=np.zeros(1, np.int8), trav_start=np.array([0, boards * n_tables]),
                trav_ns_mp=rng.uniform(0, 100, boards * n_tables), pair_start=np.array([0, n_pairs]),
                pair_players=players, pair_score=rng.normal(50, 8, n_pairs), pair_group=np.zeros(n_pairs, int),
                pair_boards=np.full(n_pairs, boards), replaces=np.full(1, -1, np.int32))
    out = session_stats.fr18_chunk(results, scored, grade_before, true_pair)
    gpair = 0.5 * (grade_before[players[:, 0]] + grade_before[players[:, 1]])
    assert out["sessions"] == 1
    assert out["e_direct"] == pytest.approx(np.var(gpair - true_pair, ddof=1))
    # a constant offset of every pair (the session's level) is not a grading error
    shifted = session_stats.fr18_chunk(results, scored, grade_before, true_pair + 3.0)
    assert shifted["e_direct"] == pytest.approx(out["e_direct"])
    # grades equal to the truth: no pair-grading error at all
    exact = session_stats.fr18_chunk(results, scored, grade_before, gpair)
    assert exact["e_direct"] == pytest.approx(0.0, abs=1e-12)


def _volatility_by_definition(ds, min_boards):
    """sd over (time, player) of the changes of players graded at both snapshots, as xarray spells it."""
    mask = metrics.graded_mask(ds, min_boards)
    both = mask & mask.shift(time=1, fill_value=False)
    diff = (ds["grade"] - ds["grade"].shift(time=1)).where(both)
    return diff.std(["time", "player"]), both.sum(["time", "player"])


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@given(st.integers(0, 2**32 - 1), st.integers(1, 3), st.integers(1, 6), st.integers(0, 40),
       st.sampled_from([0, 300, 10**6]))
@settings(max_examples=60, deadline=None)
def test_volatility_is_the_sd_of_graded_changes_bit_for_bit(seed, schemes, times, players, min_boards):
    """Random grades with gaps (NaN), inactive players and boards either side of ``min_boards``; a scheme
    may have no graded change at all (NaN)."""
    rng = np.random.default_rng(seed)
    grade = rng.normal(50, 8, (schemes, times, players)).astype(np.float32)
    grade[rng.random(grade.shape) < 0.3] = np.nan
    if schemes > 1:
        grade[0] = np.nan
    ds = make_ds(grade, rng.normal(50, 5, (times, players)), rng.integers(0, 3, players),
                 scheme_names=tuple(f"s{i}" for i in range(schemes)))
    ds["active"].values[:] = rng.random(ds["active"].shape) < 0.8
    ds["boards"].values[:] = rng.integers(0, 2 * max(min_boards, 1), ds["boards"].shape)
    got = metrics.volatility(ds, min_boards)
    sd, n = _volatility_by_definition(ds, min_boards)
    assert got["step_sd"].dims == sd.dims and got["step_sd"].dtype == sd.dtype
    np.testing.assert_array_equal(got["step_sd"].values, sd.values)  # NaN where none counted, equal bits else
    np.testing.assert_array_equal(got["n"].values, n.values)


@given(st.lists(st.one_of(st.integers(-3, 3).map(float), st.floats(-1e6, 1e6, allow_nan=False)), max_size=60))
@settings(max_examples=200, deadline=None)
def test_ranks_are_scipys_average_ranks(values):
    """Ties share the mean of their ranks (0-based here, scipy's are 1-based); spearman is their correlation."""
    from scipy import stats
    x = np.asarray(values, float)
    np.testing.assert_array_equal(metrics._rank(x), stats.rankdata(x, method="average") - 1)
    if len(x) >= 3 and len(set(values)) > 1:
        y = np.arange(len(x), dtype=float) % 5
        want = stats.spearmanr(x, y).statistic
        assert metrics.spearman(x, y) == pytest.approx(want, abs=1e-12) or (np.isnan(want) and
                                                                          np.isnan(metrics.spearman(x, y)))


def test_volatility_of_no_snapshot_is_no_figure():
    rng = np.random.default_rng(3)
    ds = make_ds(rng.normal(50, 8, (2, 3, 5)).astype(np.float32), rng.normal(50, 5, (3, 5)), rng.integers(0, 3, 5),
                 scheme_names=("a", "b")).isel(time=slice(0, 0))
    got = metrics.volatility(ds, 0)
    assert (got["n"].values == 0).all() and np.isnan(got["step_sd"].values).all()
