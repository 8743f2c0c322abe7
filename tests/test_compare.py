"""simcore compare: intervals over replicates, paired differences, JSON shape, bad arguments."""

from __future__ import annotations

import json

import numpy as np
import pytest

from simcore.cli import main
from simcore.engine import compare as cmp
from simcore.metrics import intervals

# one small real comparison per session: 1 year of the default county, 8 replicates, two NGS gains
SCHEMES = "ngs,ngs(gain=1)"


@pytest.fixture(scope="module")
def eight():
    return cmp.compare("default", SCHEMES, replicates=8, years=1, seed=31)


def _half_width(comp, metric, variant):
    lo, hi = comp.metrics[metric][variant]["ci"]
    return (hi - lo) / 2


def test_intervals_shrink_with_more_replicates(eight):
    # any 3 replicates could happen to agree; on average over every choice of 3 of the 8 the interval is
    # wider than with all 8 (t(2)/sqrt(3) = 2.48 sd against t(7)/sqrt(8) = 0.84 sd)
    from itertools import combinations
    subsets = [cmp.summarise(eight.per_replicate.isel(replicate=list(c))) for c in combinations(range(8), 3)]
    for metric in ("rmse", "club_bias", "volatility"):
        for v in eight.variants:
            three = np.mean([_half_width(c, metric, v) for c in subsets])
            assert _half_width(eight, metric, v) < three, (metric, v)
        width = lambda c: np.diff(c.paired[metric]["ngs(gain=1)"]["ci"])[0]  # noqa: E731
        assert width(eight) < np.mean([width(c) for c in subsets]), metric


def test_a_replicate_does_not_depend_on_how_many_run(eight):
    # replicate i's seed is the sweep's seed index i, so the first 2 of 8 are the 2 of a 2-replicate run
    two = cmp.compare("default", SCHEMES, replicates=2, years=1, seed=31)
    for metric in cmp.METRICS:
        np.testing.assert_array_equal(two.per_replicate[metric].values,
                                      eight.per_replicate[metric].values[:2], err_msg=metric)


def test_paired_interval_is_narrower_than_unpaired_on_common_random_numbers(eight):
    for metric in ("rmse", "rank_corr", "club_bias"):
        a = eight.per_replicate[metric].sel(scheme="ngs(gain=1)").values
        b = eight.per_replicate[metric].sel(scheme="ngs").values
        _, plo, phi = intervals.paired_ci(a, b)
        _, ulo, uhi = intervals.unpaired_ci(a, b)
        assert phi - plo < uhi - ulo, metric
        assert eight.paired[metric]["ngs(gain=1)"]["ci"] == [plo, phi]


def test_means_and_paired_differences_are_the_replicate_figures(eight):
    per = eight.per_replicate
    for metric in cmp.METRICS:
        for v in eight.variants:
            x = per[metric].sel(scheme=v).values
            m, lo, hi = eight.metrics[metric][v]["mean"], *eight.metrics[metric][v]["ci"]
            assert m == pytest.approx(x.mean())
            assert lo < m < hi
        d = per[metric].sel(scheme="ngs(gain=1)").values - per[metric].sel(scheme="ngs").values
        assert eight.paired[metric]["ngs(gain=1)"]["diff"] == pytest.approx(d.mean())
    # gain 1 halves the step of every session grade: its grades must move less from month to month
    assert eight.paired["volatility"]["ngs(gain=1)"]["verdict"] == "better"


def test_verdicts_follow_the_metric_direction():
    import xarray as xr
    rng = np.random.default_rng(0)
    base = 3 + rng.normal(0, 0.2, 6)
    vals = np.stack([base, base + 0.5 + rng.normal(0, 0.01, 6), base + 0.01 * np.array([1, -1, 1, -1, 1, -1])], axis=1)
    per = xr.Dataset({k: (("replicate", "scheme"), vals) for k in ("rmse", "rank_corr", "bias")},
                     coords={"replicate": np.arange(6), "scheme": ["a", "b", "c"]})
    comp = cmp.summarise(per, keys=("rmse", "rank_corr", "bias"))
    assert comp.paired["rmse"]["b"]["verdict"] == "worse"
    assert comp.paired["rank_corr"]["b"]["verdict"] == "better"
    assert comp.paired["bias"]["b"]["verdict"] == "higher"
    assert comp.paired["rmse"]["c"]["verdict"] == "no detectable difference"
    assert comp.paired["rmse"]["b"]["replicates_to_separate"] <= 6


def test_a_scheme_reading_card_play_is_marked_not_ranked_with_results():
    import xarray as xr
    from simcore.schemes import default_schemes, reads_card_play, scheme_name_of
    from simcore.schemes.imps_lost import ImpsLostScheme
    card = scheme_name_of(ImpsLostScheme)
    result_based = [v for v in default_schemes() if not reads_card_play(v)]
    assert card not in result_based and result_based
    labels = [result_based[0], card, "own label"]
    vals = 2 + np.random.default_rng(1).normal(0, 0.1, (4, 3))
    per = xr.Dataset({"rmse": (("replicate", "scheme"), vals)}, coords={"replicate": np.arange(4), "scheme": labels})
    comp = cmp.summarise(per, keys=("rmse",))
    assert comp.reads_card_play == [card] and comp.to_json()["reads_card_play"] == [card]
    table = comp.table()
    assert f"{card} [card play]" in table and "not a ranking against the result-based schemes" in table
    assert f"{result_based[0]} [card play]" not in table


def test_a_metric_missing_in_a_replicate_is_reported_not_averaged():
    import xarray as xr
    vals = np.array([[1.0, 2.0], [np.nan, 2.5], [1.2, 2.2]])
    per = xr.Dataset({"aces_eights": (("replicate", "scheme"), vals), "rmse": (("replicate", "scheme"), vals * 0 + 1
                                                                                + np.arange(3)[:, None])},
                     coords={"replicate": np.arange(3), "scheme": ["a", "b"]})
    per["rmse"] = per["rmse"].fillna(2.0)
    comp = cmp.summarise(per, keys=("rmse", "aces_eights"))
    assert "aces_eights" not in comp.metrics and "a: 1 of 3" in comp.unavailable["aces_eights"]
    assert "rmse" in comp.metrics


def test_json_shape(tmp_path, capsys):
    out = tmp_path / "cmp"
    assert main(["compare", "default", "--schemes", SCHEMES, "--replicates", "2", "--years", "0.5",
                 "--seed", "3", "--json", "--out", str(out)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["replicates"] == 2
    assert set(doc["metrics"]) >= {"rmse", "rank_corr", "bias", "club_bias", "volatility"}
    for metric, per_variant in doc["metrics"].items():
        assert set(per_variant) == {"ngs", "ngs(gain=1)"}
        for v in per_variant.values():
            assert isinstance(v["mean"], float) and len(v["ci"]) == 2 and v["ci"][0] <= v["mean"] <= v["ci"][1]
        assert set(doc["paired"][metric]) == {"ngs(gain=1)"}
        p = doc["paired"][metric]["ngs(gain=1)"]
        assert isinstance(p["diff"], float) and len(p["ci"]) == 2
    assert json.loads((out / "compare.json").read_text())["metrics"] == doc["metrics"]
    assert (out / "per_replicate.nc").stat().st_size > 0


@pytest.mark.parametrize("argv, message", [
    (["--replicates", "1"], "--replicates 1"),
    (["--replicates", "4", "--years", "-2"], "--years -2"),
    (["--replicates", "4", "--seed", "-1"], "--seed -1"),
    (["--replicates", "4", "--scheduler", "nowhere"], "--scheduler 'nowhere'"),
    (["--replicates", "4", "--schemes", "ngs"], "at least two variants"),
    (["--replicates", "4", "--schemes", "ngs,nope(k=1)"], "unknown scheme 'nope'"),
    (["--replicates", "4", "--schemes", "ngs,ngs(gain=-1)"], "gain"),
])
def test_bad_arguments_are_named_before_any_work(argv, message, capsys, monkeypatch):
    monkeypatch.setattr(cmp, "compare", lambda *a, **k: pytest.fail("work started"))
    args = ["compare", "default", "--schemes", SCHEMES] + argv
    assert main(args) == 2
    assert message in capsys.readouterr().err


def test_unknown_scenario_is_named(capsys):
    assert main(["compare", "nowhere-county", "--schemes", SCHEMES, "--replicates", "3"]) == 2
    assert "nowhere-county" in capsys.readouterr().err


def test_scheduler_gives_the_same_figures(tmp_path):
    from dask.distributed import LocalCluster
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        remote = cmp.compare("default", SCHEMES, replicates=2, years=0.5, seed=8, scheduler=cluster.scheduler_address,
                             out=tmp_path)
    local = cmp.compare("default", SCHEMES, replicates=2, years=0.5, seed=8)
    for metric in cmp.METRICS:
        np.testing.assert_array_equal(remote.per_replicate[metric].values, local.per_replicate[metric].values,
                                      err_msg=metric)
