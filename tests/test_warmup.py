"""engine.warmup: the child compiles the scheme kernels with the types a run grades with."""
import dataclasses
from pathlib import Path

import numpy as np
import pytest

from simcore import engine
from simcore.engine import warmup

SCHEMES = ["ngs", "ppi", "elo-pairs", "imps-lost"]


@pytest.fixture(scope="module")
def real_chunk():
    """The first chunk a short default run grades (pass A's output)."""
    seen = []
    eng = engine.Engine("default", ",".join(SCHEMES), years=3 / 52, seed=3, threads=1)
    grade = eng._grade_chunk

    def keep(rep, v, chunk, day):
        seen.append(chunk)
        return grade(rep, v, chunk, day)

    eng._grade_chunk = keep
    mp = pytest.MonkeyPatch()
    mp.setenv("SIMCORE_NO_WARMUP", "1")
    try:
        eng.run()
    finally:
        mp.undo()
    return seen[0]


def _array_types(obj):
    """{field: (dtype, ndim, C-contiguous)}: what a kernel's signature depends on."""
    return {f.name: (v.dtype, v.ndim, v.flags.c_contiguous) for f in dataclasses.fields(obj)
            if isinstance(v := getattr(obj, f.name), np.ndarray)}


def test_synthetic_chunk_has_the_array_types_of_a_real_one(real_chunk):
    fake = warmup.synthetic_chunk()
    for part in ("scored", "card"):
        real, synthetic = _array_types(getattr(real_chunk, part)), _array_types(getattr(fake, part))
        assert synthetic == real, part
    assert type(fake.first_day) is type(real_chunk.first_day)
    assert fake.n_partnerships > 1024  # more than a new state holds: the growing kernels compile too


def test_synthetic_results_have_the_array_types_of_real_ones_and_every_scoring_path(real_chunk):
    from simcore.results import MATCH_KINDS, TEAM_KINDS
    results = warmup.synthetic_results()
    results.check()
    assert _array_types(results) == _array_types(real_chunk.results)
    kinds = set(results.session_kind.tolist())
    assert kinds & set(TEAM_KINDS) and kinds & set(MATCH_KINDS) and kinds - set(MATCH_KINDS) - set(TEAM_KINDS)


def test_compile_schemes_grades_every_variant(real_chunk):
    warmup.compile_schemes(SCHEMES + ["ngs(decay=exponential)"])  # the run's kernels, cached: quick


def test_no_child_when_switched_off_or_marked(monkeypatch, tmp_path):
    monkeypatch.setenv("SIMCORE_NO_WARMUP", "1")
    assert warmup.start(SCHEMES) is None
    monkeypatch.delenv("SIMCORE_NO_WARMUP")
    monkeypatch.setattr(warmup, "marker_path", lambda: tmp_path / "marker")
    (tmp_path / "marker").touch()
    assert warmup.start(SCHEMES) is None


def test_marker_changes_with_the_sources(tmp_path):
    import simcore
    before = warmup.marker_path()
    assert before == warmup.marker_path() and before.parent == Path(simcore.kernel_cache_dir())
    fake = tmp_path / "simcore"
    (fake / "engine").mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    (fake / "engine" / "warmup.py").write_text("x = 1\n")
    first = warmup.source_digest(fake, "0.68.1")
    assert warmup.source_digest(fake, "0.68.1") == first
    assert warmup.source_digest(fake, "0.69.0") != first  # another numba: another tree
    (fake / "engine" / "warmup.py").write_text("x = 22\n")  # another size: another source tree
    second = warmup.source_digest(fake, "0.68.1")
    assert second != first
    (fake / "engine" / "play.py").write_text("")  # a new module: another source tree
    assert warmup.source_digest(fake, "0.68.1") not in (first, second)


def test_a_failing_child_is_not_retried_and_keeps_its_log(monkeypatch, tmp_path):
    monkeypatch.delenv("SIMCORE_NO_WARMUP", raising=False)
    monkeypatch.setattr(warmup, "_cores", lambda: 2)
    monkeypatch.setattr(warmup, "marker_path", lambda: tmp_path / "marker")
    child = warmup.start(["no-such-scheme"])
    assert child is not None
    child.wait()  # the job fails in the child or, if the run took it first, in the run's process
    assert (tmp_path / "marker").exists() and not child.claims.exists()
    assert "no-such-scheme" in (tmp_path / "marker.log").read_text()
    assert warmup.start(["no-such-scheme"]) is None


class _Child:
    """A warm-up child that is still running (it never finishes a job)."""
    returncode = None

    def poll(self):
        return None

    def wait(self):
        return 0

    def kill(self):
        pass


@pytest.mark.parametrize("taken", [0, 1, 2])
def test_the_run_compiles_from_the_back_the_jobs_the_child_has_not_taken(monkeypatch, tmp_path, taken):
    claims = tmp_path / "claims"
    claims.mkdir()
    for i in range(taken):  # the child takes jobs from the front
        assert warmup.take(claims, i)
    done = []
    monkeypatch.setattr(warmup, "compile_job", lambda job: done.append(job))
    w = warmup.Warmup(_Child(), tmp_path / "marker", tmp_path / "marker.log", claims, SCHEMES)
    w.wait()
    assert done == warmup.jobs(SCHEMES)[taken:][::-1]
    assert (tmp_path / "marker").exists() and not claims.exists()
    assert warmup.take(tmp_path, 7) and not warmup.take(tmp_path, 7)  # a job is taken once


def test_compiling_jobs_in_the_run_leaves_its_results_unchanged(monkeypatch, tmp_path):
    import xarray as xr
    args = dict(schemes=",".join(SCHEMES), years=3 / 52, seed=5, threads=2)
    monkeypatch.setenv("SIMCORE_NO_WARMUP", "1")
    plain = engine.Engine("default", **args).run()
    monkeypatch.delenv("SIMCORE_NO_WARMUP")
    claims = tmp_path / "claims"
    claims.mkdir()
    done = []
    compile_job = warmup.compile_job
    monkeypatch.setattr(warmup, "compile_job", lambda job: (done.append(job), compile_job(job)))
    monkeypatch.setattr(warmup, "start", lambda labels: warmup.Warmup(
        _Child(), tmp_path / "marker", tmp_path / "marker.log", claims, list(labels)))
    stolen = engine.Engine("default", **args).run()
    assert done == warmup.jobs(SCHEMES)[::-1]  # every job, in this process, before the first grading
    xr.testing.assert_identical(plain, stolen)


def test_the_child_compiles_with_the_collector_off_and_freezes_its_objects_before_it_shuts_down(tmp_path):
    # the run waits for the child to end: its shutdown's garbage collections are skipped, and it compiles
    # with the collector off, as the run does (warmup's __main__); every job already taken, so the child
    # compiles nothing here
    import subprocess
    import sys
    labels = ["ngs", "ppi"]
    for i in range(len(warmup.jobs(labels))):
        assert warmup.take(tmp_path, i)
    code = f"""
import atexit, gc, runpy, sys
atexit.register(lambda: print("collector on:", gc.isenabled(), "frozen at exit:", gc.get_freeze_count()))
sys.argv = ["warmup", {str(tmp_path)!r}, *{labels!r}]
runpy.run_module("simcore.engine.warmup", run_name="__main__")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert int(done.stdout.rsplit("frozen at exit:", 1)[1]) > 1000, done.stdout
    assert "collector on: False" in done.stdout


def test_the_child_imports_the_runs_simcore_whatever_the_working_folder(monkeypatch, tmp_path):
    # the ``simcore`` command imports the installed copy, and ``python -m`` puts the working folder first
    # on the child's path: run in a clone, the child imported the clone's copy, whose kernels numba caches
    # under other names, and the run compiled everything again (warmup.start)
    decoy = tmp_path / "clone" / "simcore" / "engine"
    decoy.mkdir(parents=True)
    (decoy.parent / "__init__.py").write_text("")
    (decoy / "__init__.py").write_text("")
    (decoy / "warmup.py").write_text(f"open({str(tmp_path / 'decoy ran')!r}, 'w').close()\n")
    monkeypatch.chdir(decoy.parent.parent)
    monkeypatch.delenv("SIMCORE_NO_WARMUP", raising=False)
    monkeypatch.setattr(warmup, "_cores", lambda: 2)
    monkeypatch.setattr(warmup, "marker_path", lambda: tmp_path / "marker")
    child = warmup.start(["no-such-scheme"])
    assert child is not None
    child.proc.wait()
    assert not (tmp_path / "decoy ran").exists()
    assert "no-such-scheme" in (tmp_path / "marker.log").read_text()  # the real child ran the jobs
    child.wait()
