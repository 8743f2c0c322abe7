"""The main job: every built-in scenario runs, and `simcore run` writes what it promises."""

import json

import numpy as np
import pytest
import xarray as xr

from simcore import engine, metrics
from simcore.cli import main
from simcore.scenario import list_scenarios
from simcore.schemes import default_schemes


@pytest.mark.parametrize("name", ["default", "isolated-clubs", "aces-eights", "national", "online"])
def test_every_builtin_scenario_runs_under_every_scheme(name):
    assert name in list_scenarios()
    ds = engine.run(name, years=3 / 52, seed=3, snapshot="weekly")
    assert ds.sizes["time"] == 3 and list(ds["scheme"].values) == default_schemes()
    assert ds.attrs["scenario"] and json.loads(ds.attrs["scenario"])["name"] == name
    last = ds["boards"].isel(replicate=0, time=-1).values
    assert (last > 0).sum() > 50  # people played
    for j, label in enumerate(ds["scheme"].values):
        graded = np.isfinite(ds["grade"].isel(replicate=0, scheme=j, time=-1).values)
        assert not graded[last == 0].any(), label  # nobody who never played is graded
        if name == "online" and label == "ngs":
            continue  # NGS does not grade the online room (schemes/ngs.py)
        if name == "online" and label == "imps-lost":
            assert graded.sum() > 0
            continue
        if label == "elo-pairs":
            # individual Elo ratings exist only behind an established pair (10 sessions):
            # three weeks is too short for most
            continue
        assert graded[last > 0].mean() > 0.5, label


def test_main_job_writes_dataset_summary_and_figures(tmp_path, capsys):
    out = tmp_path / "o"
    assert main(["run", "--years", "0.25", "--seed", "4", "--outdir", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert set(summary) == set(default_schemes()) | {"run"}
    for label in default_schemes():
        assert set(summary[label]) == set(metrics.SUMMARY_KEYS)
    assert summary["run"]["player_boards"] > 100_000 and summary["run"]["scenario"] == "default"
    for f in ("results.nc", "summary.json", "grade_vs_truth.png", "club_gap.png"):
        assert (out / f).stat().st_size > 0, f
    with xr.open_dataset(out / "results.nc") as ds:
        assert ds.attrs["seed"] == 4 and ds.sizes["scheme"] == 4
    assert json.loads((out / "summary.json").read_text())["ngs"] == summary["ngs"]
    # the same run again without figures: the old figures must not stay beside the new summary
    assert main(["run", "--years", "0.25", "--seed", "4", "--outdir", str(out), "--json", "--no-figures"]) == 0
    capsys.readouterr()
    assert (out / "summary.json").exists() and not (out / "grade_vs_truth.png").exists()
    assert not (out / "club_gap.png").exists()
    # another run into the same folder is refused, and allowed with --overwrite
    assert main(["run", "--years", "0.2", "--seed", "4", "--outdir", str(out), "--json"]) == 2
    assert "--overwrite" in capsys.readouterr().err


def test_writing_the_dataset_writes_what_to_netcdf_writes_without_importing_distributed(tmp_path):
    import subprocess
    import sys
    # in a fresh process: anything else in this test session may have imported dask.distributed already
    code = f"""
import sys
import numpy as np, xarray as xr
from simcore.cli.run import write_dataset
ds = xr.Dataset({{"grade": (("time", "player"), np.arange(6.0, dtype=np.float32).reshape(2, 3), {{"units": "grade points"}})}},
                coords={{"time": np.array(["2026-01-01", "2026-02-01"], "datetime64[ns]")}}, attrs={{"seed": 4}})
write_dataset(ds, {str(tmp_path / 'a.nc')!r})
assert "distributed" not in sys.modules, "write_dataset imported dask.distributed"
ds.to_netcdf({str(tmp_path / 'b.nc')!r}, engine="h5netcdf")
"""
    subprocess.run([sys.executable, "-c", code], check=True)
    with xr.open_dataset(tmp_path / "a.nc", engine="h5netcdf") as a, \
            xr.open_dataset(tmp_path / "b.nc", engine="h5netcdf") as b:
        xr.testing.assert_identical(a.load(), b.load())
        assert a["grade"].encoding["dtype"] == b["grade"].encoding["dtype"] == np.float32


def test_main_job_table_and_bad_arguments(tmp_path, capsys):
    assert main(["run", "--years", "0.1", "--outdir", str(tmp_path), "--no-figures", "--no-progress",
                 "--schemes", "ngs,ngs(gain=2)"]) == 0
    text = capsys.readouterr().out
    assert "ngs(gain=2)" in text and "RMSE" in text and "player-boards" in text
    assert main(["run", "--replicates", "0"]) == 2
    assert "--replicates 0" in capsys.readouterr().err
    assert main(["run", "nosuch"]) == 2
    assert "nosuch" in capsys.readouterr().err


def test_a_failed_dataset_write_is_one_line_and_leaves_no_summary(tmp_path, capsys, monkeypatch):
    # the Dataset is written beside the summary's computation (cli/run.py): the write's failure must
    # still stop the run before summary.json, with no half-written results.nc
    import simcore.cli.run as run_cli

    def full_disk(ds, path):
        path.write_bytes(b"partial")
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr(run_cli, "write_dataset", full_disk)
    out = tmp_path / "o"
    assert main(["run", "--years", "0.1", "--outdir", str(out), "--no-figures", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "No space left on device" in err and "Traceback" not in err
    assert not out.exists()  # the folder the run made goes with it (cli.paths.Outputs)


def test_the_command_freezes_its_objects_before_the_interpreter_shuts_down():
    # the shutdown's garbage collections over every live object cost 0.6-1.0 s a run (cli.command);
    # a handler registered before the command runs after its handlers, and sees the objects frozen
    import subprocess
    import sys
    code = """
import atexit, gc, sys
atexit.register(lambda: print("frozen at exit:", gc.get_freeze_count()))
from simcore.cli import command
sys.argv = ["simcore", "scenarios"]
assert gc.get_freeze_count() == 0
sys.exit(command())
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "default" in done.stdout  # the command ran
    frozen = int(done.stdout.rsplit("frozen at exit:", 1)[1])
    assert frozen > 1000, done.stdout


@pytest.mark.parametrize("argv, collector_on", [(["run", "--years", "0.1"], False), (["sweep", "grid.toml"], True),
                                                (["bench"], True), (["--help"], True)])
def test_the_command_runs_a_simulation_with_the_collector_off(argv, collector_on):
    # a first run's compile garbage (~900 000 objects in cycles) was collected in one 0.7-0.8 s pass when
    # the engine switched the collector back on (cli.command): for ``run`` it is off from the start, so
    # nothing switches it on; a sweep (a dask client, for hours) and the bench keep it
    import subprocess
    import sys
    code = f"""
import gc, sys
import simcore.cli as cli
cli.main = lambda argv=None: print("collector on:", gc.isenabled()) or 0
sys.argv = ["simcore", *{argv!r}]
assert gc.isenabled()
sys.exit(cli.command())
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == f"collector on: {collector_on}"
