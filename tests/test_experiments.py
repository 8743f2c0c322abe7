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


def test_scheme_variants_writes_data_figures_and_a_ranked_report(tmp_path, capsys):
    out = tmp_path / "sv"
    assert main(["experiment", "scheme-variants", "--quick", "--out", str(out), "--seed", "5"]) == 0
    for name in ("report.md", "headline.json", "scheme_variants.nc", "accuracy_vs_volatility.png"):
        assert (out / name).stat().st_size > 0, name
    head = json.loads((out / "headline.json").read_text())
    rmse = [head["table"][k]["rmse"] for k in head["ranking"]]
    assert rmse == sorted(rmse) and len(rmse) == 14
    report = (out / "report.md").read_text()
    assert report.index(head["ranking"][0]) < report.index(head["ranking"][-1])
