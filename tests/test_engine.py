import numpy as np
import pytest
import xarray as xr

from simcore import engine
from simcore.engine.replay import grade_bundle
from simcore.cli.run import write_dataset

SCHEMES = "ngs,ppi,elo-pairs,imps-lost"
YEARS = 0.6


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    out = tmp_path_factory.mktemp("bundle")
    eng = engine.Engine("default", SCHEMES + ",ppi(halve_below=44)", replicates=2, years=YEARS, seed=5,
                        threads=2, trace=True, bundle_dir=out)
    ds = eng.run()
    return eng, ds, out


def test_dataset_is_labelled(traced):
    _, ds, _ = traced
    assert ds["grade"].dims == ("replicate", "scheme", "time", "player")
    assert list(ds["scheme"].values) == ["ngs", "ppi", "elo-pairs", "imps-lost", "ppi(halve_below=44)"]
    assert ds["grade"].attrs["units"] == "grade points"
    assert ds.attrs["seed"] == 5 and '"name": "default"' in ds.attrs["scenario"]
    assert np.isfinite(ds["true_strength"]).all() and ds.sizes["time"] >= 6
    # graded players get grades; grades track true strength
    last = ds.isel(time=-1, replicate=0)
    g = last["grade"].sel(scheme="ppi").values
    ok = last["active"].values & (last["boards"].values >= 100) & np.isfinite(g)
    assert ok.sum() > 300
    assert np.corrcoef(g[ok], last["true_strength"].values[ok])[0, 1] > 0.5



def test_snapshot_extras_carry_their_code_labels(traced):
    from simcore import metrics
    _, ds, _ = traced
    status = ds["ngs_status"]
    assert status.attrs["extra"] == "status" and status.attrs["scheme_name"] == "ngs"
    assert status.attrs["flag_meanings"] == "provisional evolving mature out_of_date"
    assert (status.sel(scheme="ppi") == -1).all()  # another scheme's variant has no NGS status
    # each variant of a scheme has its own codes (the engine keeps them per publishing variant)
    for label in ("ppi", "ppi(halve_below=44)"):
        assert (ds["ppi_band"].sel(scheme=label) >= 0).any(), label
    assert (ds["ppi_band"].sel(scheme="ngs") == -1).all() and (status.sel(scheme="ngs") >= 0).any()
    assert ds["ppi_band"].attrs["flag_meanings"] == "club diamond heart spade"
    by = metrics.accuracy_by(ds, "status", min_boards=0)
    assert list(by["group"].values) == ["provisional", "evolving", "mature", "out of date"]
    assert int(by["n"].sum()) > 0


def test_every_variant_graded_the_same_results(traced):
    eng, _, _ = traced
    for r in (0, 1):
        session = [eng.graded[(r, label)] for label in ("ngs", "ppi", "elo-pairs", "ppi(halve_below=44)")]
        assert session[0] == session[1] == session[2] == session[3]
        assert len(session[0]) >= 6 and len(set(session[0])) == len(session[0])
    assert eng.graded[(0, "ppi")] != eng.graded[(1, "ppi")]  # replicates differ


@pytest.mark.parametrize("label", ["ngs", "ppi", "elo-pairs", "ppi(halve_below=44)"])
def test_engine_grades_equal_a_replay_of_its_bundle(traced, label):
    eng, _, out = traced
    replay = grade_bundle(out, label)
    mine = eng.trace_table(label)
    assert len(replay["grade"]) == len(mine["grade"]) > 1000
    assert list(replay["session"]) == list(mine["session"])
    assert list(replay["player"]) == [f"p{p}" for p in mine["player"]]
    np.testing.assert_array_equal(replay["grade"], mine["grade"])


def test_imps_lost_equals_a_replay_of_its_card_play(traced):
    eng, _, out = traced
    replay = grade_bundle(out, "imps-lost")
    mine = eng.trace_table("imps-lost")
    assert list(replay["player"]) == [f"p{p}" for p in mine["player"]]
    np.testing.assert_array_equal(replay["rating"], mine["rows"][:, 0])
    np.testing.assert_array_equal(replay["batches"], mine["rows"][:, 4].astype(int))


def test_results_do_not_depend_on_threads_or_replicate_count(traced):
    _, ds, _ = traced
    one = engine.run("default", SCHEMES + ",ppi(halve_below=44)", replicates=2, years=YEARS, seed=5, threads=1)
    xr.testing.assert_identical(one, ds)
    first = engine.run("default", SCHEMES, replicates=1, years=YEARS, seed=5, threads=2)
    # attributes differ (scheme list, replicate count); every value must not
    xr.testing.assert_equal(first.isel(replicate=0),
                            ds.sel(scheme=["ngs", "ppi", "elo-pairs", "imps-lost"]).isel(replicate=0))


def _warm_run():
    # kernels compiled and the warm-up marker written: only then may a run fork worker processes
    engine.run("default", SCHEMES, years=2 / 52, seed=1, threads=2)


def _same_as_threads(forked, ds, threads, ds_threads):
    xr.testing.assert_identical(ds, ds_threads)
    assert threads.workers == 1 and forked.workers == 2
    assert any(name.startswith("fr18_") for name in ds.data_vars)  # worker-side sums came back
    assert forked.graded == threads.graded and forked.player_boards == threads.player_boards
    assert forked.timing.keys() == threads.timing.keys() and all(v > 0 for v in forked.timing.values())
    np.testing.assert_array_equal(forked.trace_table("ppi")["grade"], threads.trace_table("ppi")["grade"])


WORKER_ARGS = dict(scenario="default", schemes=SCHEMES, replicates=3, years=0.3, seed=9, threads=2,
                   session_stats=True, trace=True)


@pytest.fixture(scope="module")
def on_threads():
    eng = engine.Engine(**WORKER_ARGS, processes=False)
    return eng, eng.run()


def test_replicates_in_worker_processes_equal_threads(on_threads):
    _warm_run()
    forked = engine.Engine(**WORKER_ARGS)
    ds = forked.run()  # replicates 0 and 2 in a forked worker (world 0 built here), 1 in this process
    _same_as_threads(forked, ds, *on_threads)


def test_kept_worker_processes_equal_threads_run_after_run(on_threads):
    import os
    from simcore.engine import processes
    _warm_run()
    pids = []
    with processes.keep_workers():
        for _ in range(2):  # the worker forked for the first run serves the second (replicates 0 and 2)
            kept = engine.Engine(**WORKER_ARGS)
            ds = kept.run()
            _same_as_threads(kept, ds, *on_threads)
            pids += [pid for pid, _ in processes._kept.workers]
    assert len(pids) == 2 and pids[0] == pids[1]
    with pytest.raises(ChildProcessError):  # reaped when the block ended
        os.waitpid(pids[0], os.WNOHANG)


@pytest.mark.parametrize("kept", [False, True])
def test_the_progress_bar_follows_the_slowest_worker_process(monkeypatch, kept):
    import contextlib
    from simcore.engine import processes
    _warm_run()
    shown = []
    advance = engine._Progress.advance
    monkeypatch.setattr(engine._Progress, "advance", lambda self, weeks, rate: (shown.append(weeks),
                                                                                advance(self, weeks, rate)))
    eng = engine.Engine("default", "ppi", replicates=2, years=1.5, seed=2, threads=2, progress=True)
    with processes.keep_workers() if kept else contextlib.nullcontext():
        eng.run()
        assert not kept or len(processes._kept.workers) == 1
    assert eng.workers == 2
    assert shown and min(shown) > 0 and sum(shown) == 78  # every week once: 1.5 years of 52 weeks


def test_one_thread_plays_scores_and_grades_a_chunk_before_the_next(monkeypatch, on_threads):
    """On one thread the tasks run replicate by replicate, each chunk played, scored and graded by every
    variant before the next is played (for the caches: ``Engine._run_chunks``); the Dataset is the one
    threads and processes give, and the progress bar moves as the replicates' mean advances."""
    order = []
    for method in ("_play", "_score", "_grade_chunk"):
        def task(self, rep, *args, _name=method, _fn=getattr(engine.Engine, method)):
            order.append((rep.index, _name))
            return _fn(self, rep, *args)
        monkeypatch.setattr(engine.Engine, method, task)
    shown = []
    advance = engine._Progress.advance
    monkeypatch.setattr(engine._Progress, "advance", lambda self, weeks, rate: (shown.append((weeks, len(order))),
                                                                                advance(self, weeks, rate)))
    one = engine.Engine(**{**WORKER_ARGS, "threads": 1}, progress=True)
    ds = one.run()
    threads, ds_threads = on_threads
    xr.testing.assert_identical(ds, ds_threads)
    assert one.workers == 1 and one.graded == threads.graded and one.player_boards == threads.player_boards
    V, n_t = len(one.variants), ds.sizes["time"]
    assert order == [(r, name) for r in range(3) for _ in range(n_t)
                     for name in ["_play", "_score"] + ["_grade_chunk"] * V]
    n_weeks = engine.build_world(one.scenario, engine.replicate_keys(one.seed, 1)[0]).n_weeks
    assert sum(w for w, _ in shown) == n_weeks  # every week once
    assert shown[0][1] < len(order) / 3  # the bar moved while replicate 0 was still running


def test_a_failing_worker_process_fails_the_run(monkeypatch):
    import os
    _warm_run()
    score = engine.Engine._score

    def boom(failing):
        def score_or_fail(self, rep, played):
            if rep.index == failing:
                raise ValueError(f"boom in replicate {failing}")
            return score(self, rep, played)
        return score_or_fail

    # replicate 1 runs in a forked worker, replicate 0 in this process (engine.processes)
    for failing in (0, 1):
        monkeypatch.setattr(engine.Engine, "_score", boom(failing))
        eng = engine.Engine("default", "ppi", replicates=2, years=0.1, seed=3, threads=2)
        with pytest.raises(ValueError, match=f"boom in replicate {failing}"):
            eng.run()
        assert eng.workers == 2

    def crash(self, rep, played):
        if rep.index == 1:
            os._exit(3)
        return score(self, rep, played)

    monkeypatch.setattr(engine.Engine, "_score", crash)
    with pytest.raises(RuntimeError, match=r"running replicates \[1\] died \(exit code 3\)"):
        engine.Engine("default", "ppi", replicates=2, years=0.1, seed=3, threads=2).run()


def test_a_failing_kept_worker_fails_the_run_and_is_replaced(monkeypatch, tmp_path):
    import os
    from simcore.engine import processes
    _warm_run()
    score = engine.Engine._score
    order = tmp_path / "order"  # a kept worker runs the code of when it was forked: a file tells it what to do

    def score_as_told(self, rep, played):
        what = order.read_text() if order.exists() else ""
        if rep.index == 1 and what == "raise":
            raise ValueError("boom in replicate 1")
        if rep.index == 1 and what == "crash":
            os._exit(3)
        return score(self, rep, played)

    monkeypatch.setattr(engine.Engine, "_score", score_as_told)
    args = dict(scenario="default", schemes="ppi", replicates=2, years=0.1, seed=3, threads=2)
    want = engine.Engine(**args, processes=False).run()
    with processes.keep_workers():
        xr.testing.assert_identical(engine.Engine(**args).run(), want)
        (first, _), = processes._kept.workers
        order.write_text("raise")
        with pytest.raises(ValueError, match="boom in replicate 1"):
            engine.Engine(**args).run()
        assert [pid for pid, _ in processes._kept.workers] == [first]  # it sent the error: still serving
        order.write_text("crash")
        with pytest.raises(RuntimeError, match=r"running replicates \[1\] died \(exit code 3\)"):
            engine.Engine(**args).run()
        assert processes._kept.workers == []  # reaped
        order.unlink()
        xr.testing.assert_identical(engine.Engine(**args).run(), want)  # a new worker
        (second, _), = processes._kept.workers
        assert second != first
    with pytest.raises(ChildProcessError):
        os.waitpid(second, os.WNOHANG)


@pytest.mark.parametrize("fill, dtype", [(0, np.int32), (False, bool), (np.nan, np.float32), (-1, np.int8),
                                         (-0.0, np.float64), (0.0, np.float64)])
def test_shared_full_is_np_full(fill, dtype):
    from simcore.engine import processes
    got, want = processes.shared_full((3, 7), fill, dtype), np.full((3, 7), fill, dtype)
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()  # bit for bit: -0.0 and NaN too


def _squares_into(out, i, group, forked):
    import os
    for r in group:
        out[r] = r * r
    return os.getpid()


def test_kept_workers_serve_one_run_at_a_time():
    import functools
    import os
    from simcore.engine import processes
    with processes.keep_workers():
        processes.ready(2)
        (kept, _), = processes._kept.workers
        for busy in (True, False):
            out = processes.shared_full(4, 0, np.int64)
            work = functools.partial(_squares_into, out)
            if busy:  # another thread's run has the kept worker: this one forks its own
                with processes._kept.lock:
                    pids = processes.fork_workers([[0, 2], [1, 3]], work)
                assert pids[0] not in (kept, os.getpid())
            else:
                pids = processes.fork_workers([[0, 2], [1, 3]], work)
                assert pids[0] == kept
            assert pids[1] == os.getpid() and out.tolist() == [0, 1, 4, 9]


def test_netcdf_round_trip(traced, tmp_path):
    _, ds, _ = traced
    write_dataset(ds, tmp_path / "r.nc")
    with xr.open_dataset(tmp_path / "r.nc", engine="h5netcdf") as back:
        xr.testing.assert_identical(back.load(), ds)


@pytest.mark.parametrize("kwargs,message", [
    (dict(years=-1), r"years=-1: give a number of years"),
    (dict(replicates=0), r"replicates=0: give a positive integer"),
    (dict(seed=-3), r"seed=-3: give a non-negative integer"),
    (dict(schemes="ppi,nope"), r"unknown scheme 'nope'"),
    (dict(schemes="ppi,ppi"), r"'ppi' is given twice"),
    (dict(scenario="atlantis"), r"unknown scenario 'atlantis'"),
])
def test_bad_arguments_are_named(kwargs, message):
    args = dict(scenario="default", schemes="ppi", years=0.1)
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        engine.Engine(**args)


def test_late_scored_sessions_reach_the_schemes_late(tmp_path):
    from simcore.io.bundle import read_bundle
    from simcore.scenario import load_scenario, with_overrides
    late = with_overrides(load_scenario("default"), {"reporting.late_share": 0.5, "reporting.late_days": 5})
    runs = {}
    for name, sc in (("on_time", load_scenario("default")), ("late", late)):
        eng = engine.Engine(sc, "ngs", replicates=1, years=0.3, seed=5, threads=1, bundle_dir=tmp_path / name)
        runs[name] = eng.run()
    res = read_bundle(tmp_path / "late")
    share = np.mean(res.session_scored_on > res.session_day)
    assert 0.35 < share < 0.65, share
    # same sessions and scores, another processing order: NGS grades differ
    a, b = (runs[k]["grade"].isel(time=-1).values for k in ("on_time", "late"))
    assert np.isfinite(a).sum() == np.isfinite(b).sum() > 100
    assert not np.array_equal(a[np.isfinite(a)], b[np.isfinite(b)])


def test_the_garbage_collector_is_on_again_after_a_run(traced, monkeypatch):
    import gc
    assert gc.isenabled()  # after the traced run
    eng = engine.Engine("default", "ppi", years=0.05, seed=1)

    def fail():
        assert not gc.isenabled()  # off while the run works
        raise RuntimeError("stop")
    monkeypatch.setattr(eng, "_run", fail)
    with pytest.raises(RuntimeError, match="stop"):
        eng.run()
    assert gc.isenabled()


@pytest.mark.parametrize("processes", [False, True])
def test_every_snapshot_cell_is_written_by_the_run(monkeypatch, processes):
    # the snapshot arrays are not filled before the run (Engine._outputs): on arrays whose bytes start
    # all 0x55 or all 0xAA (any value, False and True alike) the Dataset must come out the same
    from simcore.engine import processes as procs
    if processes:
        _warm_run()
    made = []

    def marked(allocate, byte):
        def empty(shape, dtype):
            out = allocate(shape, dtype)
            out.view(np.uint8).reshape(-1)[:] = byte
            made.append(out.nbytes)
            return out
        return empty

    args = dict(schemes=SCHEMES + ",ngs(gain=1)", replicates=2, years=0.2, seed=11, threads=2 if processes else 1,
                session_stats=True)
    runs = []
    for byte in (0x55, 0xAA):
        monkeypatch.setattr(engine, "_output_array", marked(np.empty, byte))
        monkeypatch.setattr(procs, "shared_empty", marked(procs.shared_empty, byte))
        eng = engine.Engine("default", **args)
        runs.append(eng.run())
        assert eng.workers == (2 if processes else 1)
        monkeypatch.undo()
    assert made  # the marked allocator made the outputs
    xr.testing.assert_identical(runs[0], runs[1])
    assert not np.isnan(runs[0]["true_strength"].values).any()
