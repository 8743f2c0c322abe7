"""The experiment command: listing, bad names, and one study end to end."""

import json

import pytest

from simcore.cli import main


def test_list_names_every_study(capsys):
    from experiments import STUDIES
    assert main(["experiment", "list"]) == 0
    out = capsys.readouterr().out
    for name in STUDIES:
        assert name in out


def test_unknown_study_is_named(capsys):
    assert main(["experiment", "decy"]) == 2
    assert "unknown experiment 'decy'" in capsys.readouterr().err


def test_scheme_variants_writes_data_figures_and_a_report_with_intervals(tmp_path, capsys):
    out = tmp_path / "sv"
    assert main(["experiment", "scheme-variants", "--quick", "--out", str(out), "--seed", "5"]) == 0
    for name in ("report.md", "headline.json", "scheme_variants.nc", "accuracy_vs_volatility.png"):
        assert (out / name).stat().st_size > 0, name
    head = json.loads((out / "headline.json").read_text())
    assert head["baseline"] == "ngs" and len(head["table"]) == 14
    # every figure carries its interval, and the ranking follows the paired RMSE differences
    for variant, figs in head["table"].items():
        for metric, fig in figs.items():
            lo, hi = fig["ci"]
            assert lo <= fig["mean"] <= hi, (variant, metric)
    diffs = [head["paired"]["rmse"][v]["diff"] for v in head["ranking_by_paired_rmse"]]
    assert diffs == sorted(diffs) and "imps-lost" not in head["ranking_by_paired_rmse"]
    report = (out / "report.md").read_text()
    assert "## World assumptions" in report and "95 %" in report and " [" in report


def test_claim_verdicts_read_the_interval_against_the_claimed_range():
    from experiments.claims import verdict
    assert verdict({"mean": 2.5, "ci": [2.2, 2.8]}, 2.0, 3.0) == "reproduced"
    assert verdict({"mean": 1.5, "ci": [1.2, 1.8]}, 2.0, 3.0) == "refuted"
    assert verdict({"mean": 2.1, "ci": [1.8, 2.4]}, 2.0, 3.0) == "inconclusive"


def test_half_life_interval_is_open_when_the_rate_may_be_zero():
    from experiments.diffusion import _half_life
    assert _half_life({"mean": 0.01, "ci": [0.005, 0.02]}) == "69 [35, 139]"
    assert _half_life({"mean": 0.001, "ci": [-0.001, 0.003]}).endswith("∞]")


def test_sensitivity_smoke_writes_curves_with_intervals_and_conclusions(tmp_path, monkeypatch, capsys):
    """A tiny configuration (one axis, two points, two replicates, one year): the study's plumbing."""
    from experiments import sensitivity
    monkeypatch.setattr(sensitivity, "SIZES", {"quick": (1.0, 2), "full": (1.0, 2)})
    full = sensitivity.axes

    def one_axis(sc):
        label, unit, points = full(sc)["form sd"]
        return {"form sd": (label, unit, [p for p in points if p[0] in (0.0, 1.0)])}
    monkeypatch.setattr(sensitivity, "axes", one_axis)
    out = tmp_path / "sens"
    assert main(["experiment", "sensitivity", "--quick", "--out", str(out), "--seed", "3"]) == 0
    head = json.loads((out / "headline.json").read_text())
    points = head["axes"]["form sd"]["points"]
    assert [p["x"] for p in points] == [0.0, 1.0]
    for p in points:
        for v, (m, lo, hi) in p["rmse"].items():
            assert lo <= m <= hi, v
        d, lo, hi = p["exp_minus_line"]
        assert lo <= d <= hi
    report = (out / "report.md").read_text()
    assert "What holds and what flips" in report and "the defaults" in report
    assert "not ranked" in report  # the card-play scheme is marked
    assert (out / "sensitivity.png").stat().st_size > 0


def test_glue_time_by_kernel_adds_up_to_the_kernels_total():
    """experiments.glue_time --by-kernel: each kernel's share of one run, largest first, summing to its kernel time."""
    import os
    import re

    from experiments.glue_time import _side
    tree = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    by_kernel, figures = _side(tree, 1, by_kernel=True).splitlines()
    shares = [(name, float(ns)) for name, ns in re.findall(r"([\w.]+) (\d+\.\d+)", by_kernel.split(":", 1)[1])]
    names = [name for name, _ in shares]
    assert {"simulate.play.play_sessions", "scoring.session._score_session_pairs", "schemes.ngs._apply_kernel",
            "schemes.ppi._rate_sessions"} <= set(names)
    assert len(names) == len(set(names))
    ns = [v for _, v in shares]
    assert ns == sorted(ns, reverse=True)
    cpu_ms, cpu_ns, kernels_ms = map(float, re.match(r"cpu (\S+) ms \((\S+) ns per player-board\)  kernels (\S+) ms",
                                                     figures).groups())
    kernels_ns = kernels_ms / cpu_ms * cpu_ns  # one run: the shares are of the same run as the total
    assert abs(sum(ns) - kernels_ns) <= 0.01 * len(ns) + 0.01
