import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import xarray as xr

from simcore.engine import sweep as sw

HERE = Path(__file__).parent
ROOT = HERE.parent


def write_sweep(path, runner, grid, seeds=2, extra=""):
    lines = ['name = "t"', 'scenario = "default"', 'schemes = ["ngs", "ppi"]', "years = 1",
             "replicates = 2", "seed = 7", f"seeds = {seeds}", f'runner = "{runner}"', extra, "[grid]"]
    lines += [f'"{k}" = {json.dumps(v)}' for k, v in grid.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_expand_is_grid_times_seeds_with_layout_free_seeds(tmp_path):
    spec = sw.load_spec(write_sweep(tmp_path / "s.toml", "sweep_runner:run", {"scale": [1, 2, 3]}, seeds=2))
    pts = sw.expand(spec)
    assert len(pts) == 6 and len({p.label for p in pts}) == 6
    # the seed depends only on the seed index: common random numbers along the grid
    assert {p.seed for p in pts if p.seed_index == 0} == {sw.point_seed(7, 0)}
    assert sw.point_seed(7, 0) != sw.point_seed(7, 1) != sw.point_seed(8, 1)


@pytest.mark.parametrize("text,message", [
    ('name = "t"\nschemes = ["ngs"]', "missing required key 'scenario'"),
    ('name = "t"\nscenario = "default"\nschemes = ["ngs"]\nbogus = 1', "unknown key"),
    ('name = "t"\nscenario = "default"\nschemes = ["nope"]', "unknown scheme 'nope'"),
    ('name = "t"\nscenario = "default"\nschemes = ["ngs"]\nyears = -1', "years = -1"),
    ('name = "t"\nscenario = "default"\nschemes = ["ngs"]\nreplicates = 0', "replicates = 0"),
    ('name = "t"\nscenario = "default"\nschemes = ["ngs"]\n[grid]\n"a.b" = []', "non-empty list"),
    ('name = "t"\nscenario = "default"\nschemes = ["ngs"]\nsnapshot = "daily"', "snapshot = 'daily'"),
    ('name = "t" scenario', "not valid TOML"),
])
def test_bad_sweep_files_are_named(tmp_path, text, message):
    f = tmp_path / "bad.toml"
    f.write_text(text)
    with pytest.raises(ValueError, match=message):
        sw.load_spec(f)


def _from_a_terminal():
    # a shell starts a command with SIGINT at its default, whatever this test process has: an
    # inherited SIG_IGN would survive into the sweep (Python keeps it at start-up) and Ctrl-C with it
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _cli(args, env_extra=None, **kw):
    env = dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{HERE}", **(env_extra or {}))
    return subprocess.Popen([sys.executable, "-m", "simcore", "sweep", *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                            preexec_fn=_from_a_terminal, **kw)


def test_killed_sweep_resumes_to_the_uninterrupted_result(tmp_path):
    spec_file = write_sweep(tmp_path / "s.toml", "sweep_runner:run", {"scale": [1, 2, 3]}, seeds=2)
    # uninterrupted reference
    ref = _cli([str(spec_file), "--out", str(tmp_path / "ref"), "--workers", "2", "--no-progress"])
    assert ref.wait(timeout=240) == 0, ref.stderr.read().decode()
    # interrupted: kill the whole process group once some but not all points are written
    out = tmp_path / "run"
    proc = _cli([str(spec_file), "--out", str(out), "--workers", "1", "--no-progress"],
                env_extra={"SIMCORE_TEST_POINT_SLEEP": "1.0"})
    deadline = time.time() + 180
    while time.time() < deadline and len(list((out / "points").glob("*.nc"))) < 2:
        time.sleep(0.1)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    written = len(list((out / "points").glob("*.nc")))
    assert 2 <= written < 6 and not (out / "combined.nc").exists()
    # resume: only the missing points run, and the result equals the reference
    res = _cli([str(spec_file), "--out", str(out), "--workers", "2", "--no-progress"])
    assert res.wait(timeout=240) == 0, res.stderr.read().decode()
    with xr.open_dataset(out / "combined.nc") as a, xr.open_dataset(tmp_path / "ref" / "combined.nc") as b:
        xr.testing.assert_identical(a.load(), b.load())
        assert a.sizes["point"] == 6 and list(a["scale"].values) == [1, 1, 2, 2, 3, 3]


def test_ctrl_c_prints_one_line_and_keeps_the_points(tmp_path):
    """SIGINT to the whole process group, as a terminal's Ctrl-C sends it: workers included."""
    spec_file = write_sweep(tmp_path / "s.toml", "sweep_runner:run", {"scale": [1, 2, 3]}, seeds=2)
    out = tmp_path / "run"
    # 3 s a point: on a loaded machine this test may not look again for seconds, and the sweep must
    # still be running when the signal comes
    proc = _cli([str(spec_file), "--out", str(out), "--workers", "1", "--no-progress"],
                env_extra={"SIMCORE_TEST_POINT_SLEEP": "3.0"})
    deadline = time.time() + 180
    while time.time() < deadline and len(list((out / "points").glob("*.nc"))) < 1:
        time.sleep(0.1)
    os.killpg(proc.pid, signal.SIGINT)
    assert proc.wait(timeout=60) == 130
    err = proc.stderr.read().decode()
    kept = len(list((out / "points").glob("*.nc")))
    assert err.strip().splitlines() == [f"simcore sweep: interrupted: {kept} of 6 points kept; rerun the same "
                                        "command to resume"], err
    assert 1 <= kept < 6


def test_failed_point_is_retried_then_reported_not_dropped(tmp_path):
    spec_file = write_sweep(tmp_path / "s.toml", "sweep_runner:run", {"fail": ["no", "always"]}, seeds=1)
    out = tmp_path / "run"
    proc = _cli([str(spec_file), "--out", str(out), "--workers", "1", "--retries", "1", "--no-progress"])
    assert proc.wait(timeout=240) == 2
    err = proc.stderr.read().decode()
    assert "1 of 2 points failed" in err and "this point always fails" in err
    failures = json.loads((out / "failures.json").read_text())
    assert len(failures) == 1 and len(list((out / "points").glob("*.nc"))) == 1
    assert not (out / "combined.nc").exists()


def test_out_folder_of_another_sweep_is_refused(tmp_path):
    a = sw.load_spec(write_sweep(tmp_path / "a.toml", "sweep_runner:run", {"scale": [1]}))
    b = sw.load_spec(write_sweep(tmp_path / "b.toml", "sweep_runner:run", {"scale": [2]}))
    sw._check_out_dir(tmp_path / "o", a)
    with pytest.raises(sw.UsageError, match="holds a different sweep"):
        sw._check_out_dir(tmp_path / "o", b)


def test_killed_engine_sweep_resumes_to_the_uninterrupted_result(tmp_path):
    """The same, with the real engine as the runner (the default) and a scenario key on the grid."""
    spec_file = write_sweep(tmp_path / "s.toml", "simcore.engine.sweep:run_point",
                            {"mixing.travel_rate": [0.0, 0.05]}, seeds=2)
    ref = _cli([str(spec_file), "--out", str(tmp_path / "ref"), "--workers", "2", "--no-progress"])
    assert ref.wait(timeout=400) == 0, ref.stderr.read().decode()
    out = tmp_path / "run"
    proc = _cli([str(spec_file), "--out", str(out), "--workers", "1", "--no-progress"])
    deadline = time.time() + 300
    while time.time() < deadline and len(list((out / "points").glob("*.nc"))) < 1:
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    written = len(list((out / "points").glob("*.nc")))
    assert 1 <= written < 4 and not (out / "combined.nc").exists()
    res = _cli([str(spec_file), "--out", str(out), "--workers", "2", "--no-progress"])
    assert res.wait(timeout=400) == 0, res.stderr.read().decode()
    with xr.open_dataset(out / "combined.nc") as a, xr.open_dataset(tmp_path / "ref" / "combined.nc") as b:
        a, b = a.load(), b.load()
        for ds in (a, b):  # provenance: "+dirty" when a file is edited between the runs (a developer's tree)
            ds.attrs.pop("git_commit", None)
        xr.testing.assert_identical(a, b)
        assert a.sizes["point"] == 4 and list(a["mixing__travel_rate"].values) == [0.0, 0.0, 0.05, 0.05]
        assert set(a["scheme"].values) == {"ngs", "ppi"}


def test_package_level_run_and_sweep(tmp_path):
    import simcore
    from simcore import engine
    assert simcore.run is engine.run
    spec = {"name": "t", "scenario": "default", "schemes": ["ngs"], "years": 0.05, "seeds": 1,
            "runner": "sweep_runner:run"}
    import sys
    sys.path.insert(0, str(HERE))
    try:
        ds = simcore.sweep(spec, tmp_path / "o", workers=1, progress=False)
    finally:
        sys.path.remove(str(HERE))
    assert ds.sizes["point"] == 1 and "grade" in ds
    assert simcore.sweep is sw.sweep
