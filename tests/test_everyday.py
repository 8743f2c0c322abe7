"""Everyday use (issue 16): the kernel cache, the compile notice, complete scenario templates,
what the commands print, and the figures' y-range."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

import simcore
from simcore.cli import main

HERE = Path(__file__).parent
ROOT = HERE.parent


# --- one kernel cache -------------------------------------------------------------------

def test_kernels_cache_outside_the_source_tree():
    import numba

    import simcore._jit  # noqa: F401  (sets numba's cache folder even if numba came first)
    cache = Path(numba.config.CACHE_DIR)
    assert cache == Path(simcore.kernel_cache_dir()) == Path(os.environ["NUMBA_CACHE_DIR"])
    assert ROOT.resolve() not in cache.resolve().parents


@pytest.mark.parametrize("env,want", [
    ({"SIMCORE_CACHE_DIR": "/tmp/simcore-test-cache"}, "/tmp/simcore-test-cache/numba-"),
    ({"XDG_CACHE_HOME": "/tmp/xdg-test"}, "/tmp/xdg-test/simcore/numba-"),
    ({"NUMBA_CACHE_DIR": "/tmp/numba-own"}, "/tmp/numba-own"),
])
def test_cache_folder_is_overridable(env, want):
    clean = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "SIMCORE_CACHE_DIR",
                                                              "XDG_CACHE_HOME")}
    code = "import numba, simcore._jit; print(numba.config.CACHE_DIR)"
    got = subprocess.run([sys.executable, "-c", code], env={**clean, **env, "PYTHONPATH": str(ROOT)},
                         capture_output=True, text=True, check=True).stdout.strip()
    assert got.startswith(want), got


def test_cache_folder_changes_with_any_stage_source(tmp_path):
    # numba checks only a kernel's own file: a change in a helper's file must still miss the cache
    import shutil
    shutil.copytree(ROOT / "simcore", tmp_path / "simcore", ignore=shutil.ignore_patterns("__pycache__"))
    clean = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "SIMCORE_CACHE_DIR")}
    code = "import simcore; print(simcore.kernel_cache_dir())"

    def folder():
        return subprocess.run([sys.executable, "-c", code], env={**clean, "PYTHONPATH": str(tmp_path)}, cwd=tmp_path,
                              capture_output=True, text=True, check=True).stdout.strip()

    first = folder()
    assert first == folder()
    with open(tmp_path / "simcore" / "cli" / "run.py", "a") as f:
        f.write("\n# an entry point's edit compiles nothing\n")
    assert folder() == first
    with open(tmp_path / "simcore" / "bridge" / "model.py", "a") as f:
        f.write("\n# a helper's edit\n")
    changed = folder()
    assert changed != first and os.path.dirname(changed) == os.path.dirname(first)


# --- compile notice ----------------------------------------------------------------------

def _fresh_function():
    import numba

    @numba.njit(cache=False)
    def add_one(x):
        return x + 1
    return add_one


def test_compile_watch_counts_compiles_and_their_time():
    from simcore._jit import watch_compiles
    f = _fresh_function()
    seen = []
    with watch_compiles(seen.append) as watch:
        assert f(1) == 2
    assert watch.count >= 1 and watch.seconds > 0 and not watch.compiling
    assert seen and seen[-1] is watch
    with watch_compiles() as again:
        f(2)  # compiled already: nothing to report
    assert again.count == 0 and again.seconds == 0


def test_compile_notice_says_first_run_only(capsys):
    from simcore.cli import compile_notice
    f = _fresh_function()
    with compile_notice():
        f(1)
    err = capsys.readouterr().err
    assert "compiling kernels (first run only" in err and "compiled" in err
    with compile_notice():
        f(1)
    assert capsys.readouterr().err == ""  # a warm cache says nothing


@contextlib.contextmanager
def _compiled_names():
    """The qualified names of the functions numba compiles within the block, in order."""
    from numba.core import event

    compiled: list[str] = []

    class Names(event.Listener):
        def on_start(self, e):
            pass

        def on_end(self, e):
            compiled.append(e.data["dispatcher"].py_func.__qualname__)

    with event.install_listener("numba:compile", Names()):
        yield compiled


def test_a_misshapen_slice_assignment_raises_without_compiling_string_formatting():
    import numpy as np

    from simcore._jit import kernel

    @kernel(cache=False)
    def put(a, b):
        a[1:4] = b
        return a[0]

    with _compiled_names() as compiled:
        assert put(np.zeros(5), np.ones(3)) == 0.0
    # numba's generic message, not its CPU one that spells out both shapes; whether the overload is
    # compiled here or was already by an earlier kernel of this process with the same flags (a test
    # order with cold kernels: test_run first) does not matter
    with pytest.raises(ValueError, match="^cannot assign slice from input of different size$"):
        put(np.zeros(5), np.ones(2))
    formatting = ("ol_str_generic", "ol_repr_generic", "integer_str", "unicode_concat")  # what the CPU message compiles
    assert not [name for name in compiled if name.startswith(formatting)]


def test_a_helper_has_no_python_entry_wrapper_and_runs_its_python_function_from_python():
    import numba
    import numpy as np

    from simcore._jit import helper, kernel

    if numba.config.DISABLE_JIT:
        pytest.skip("no compiled kernels under NUMBA_DISABLE_JIT")

    @helper(cache=False)
    def doubled_sum(a):
        t = 0
        for x in a:
            t += x
        return 2 * t

    @kernel(cache=False)
    def outer(a):
        return doubled_sum(a) + 1

    a = np.arange(5, dtype=np.int64)
    assert outer(a) == 21  # compiled, calling the helper's compiled code
    (cres,) = doubled_sum.overloads.values()
    assert cres.fndesc.llvm_cpython_wrapper_name not in cres.library.get_llvm_str()  # no entry wrapper built
    assert cres.entry_point is None or cres.library.get_pointer_to_function(cres.fndesc.llvm_cpython_wrapper_name) == 0
    assert doubled_sum(a) == 20  # from Python: the plain function, not a jump into the missing wrapper
    assert outer.py_func(a) == 21  # a twin calling a kernel's py_func, which calls the helper


def test_an_overload_compiles_once_for_kernels_whose_flags_it_does_not_inherit():
    """``np.empty`` called from a kernel and from a helper (which differ in flags an overload does not
    inherit: the Python and C entry wrappers) is compiled once (``_jit._overload_impls_by_inherited_flags``)."""
    import numba
    import numpy as np

    from simcore._jit import helper, kernel
    if numba.config.DISABLE_JIT:
        pytest.skip("no compiled kernels under NUMBA_DISABLE_JIT")

    @helper(cache=False)
    def cube_in(n):
        return np.empty((n, n, n, n), np.uint16).size  # a signature no kernel of simcore compiles

    @kernel(cache=False)
    def cube(n):
        return np.empty((n, n, n, n), np.uint16).size + cube_in(n)

    with _compiled_names() as compiled:
        assert cube(2) == 32
    assert sorted(compiled).count("ol_np_empty.<locals>.impl") == 1, compiled


_LINK_ONLY_MODULE = '''
from simcore._jit import helper, kernel

@helper
def doubled(a, i):
    if a[i] < 0:  # a message with run-time values: built through the helper's environment
        raise ValueError("negative boards at row", i, a[i])
    return 2 * a[i]

@kernel
def first(a):
    return doubled(a, 0)

@kernel
def total(a):
    t = 0
    for i in range(a.size):
        t += doubled(a, i)
    return t
'''

# a subprocess script's prelude: the names of the functions numba compiles, in ``compiled``
_COMPILED_NAMES = '''
from numba.core import event
compiled = []
class Names(event.Listener):
    def on_start(self, e):
        pass
    def on_end(self, e):
        compiled.append(e.data["dispatcher"].py_func.__name__)
'''

_LINK_ONLY_RUN = _COMPILED_NAMES + '''
import sys
import numpy as np
import linkonly
with event.install_listener("numba:compile", Names()):
    kernel = getattr(linkonly, sys.argv[1])
    value = int(kernel(np.array([3, 4])))
    try:
        kernel(np.array([-1, 2]))
        raised = None
    except ValueError as e:
        raised = list(e.args)
(cres,) = linkonly.doubled.overloads.values()
engine = cres.library.codegen._engine
print(repr((value, raised, compiled, engine.is_symbol_defined(cres.fndesc.llvm_func_name))))
'''


def test_a_helper_compiles_no_machine_code_of_its_own_and_loads_from_the_cache_for_new_callers(tmp_path):
    """A helper's library is only linked into its callers (``_jit._link_only_pipeline``): no machine
    code of its own, its environment still reaches the callers' copies (a message with run-time values
    is built through it), and a process that compiles another caller loads the helper from the cache."""
    import ast

    import numba

    from simcore import _jit
    if numba.config.DISABLE_JIT:
        pytest.skip("no compiled kernels under NUMBA_DISABLE_JIT")
    assert _jit._HELPER_PIPELINE is not None, "numba's finalisation code differs from the one read: stock helpers"
    (tmp_path / "linkonly.py").write_text(_LINK_ONLY_MODULE)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(tmp_path)]),
           "SIMCORE_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("NUMBA_CACHE_DIR", None)

    def run(kernel):
        out = subprocess.run([sys.executable, "-c", _LINK_ONLY_RUN, kernel], env=env, cwd=tmp_path,
                             capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        return ast.literal_eval(out.stdout.strip().splitlines()[-1])

    value, raised, compiled, helper_code = run("first")
    assert (value, raised) == (6, ["negative boards at row", 0, -1])
    assert sorted(compiled) == ["doubled", "first"] and not helper_code  # compiled, no code of its own
    value, raised, compiled, _ = run("total")  # a new caller: the helper comes from the cache
    assert (value, raised) == (14, ["negative boards at row", 0, -1])
    assert compiled == ["total"]



_LOAD_ONLY_MODULE = '''
import numpy as np
from simcore._jit import kernel

@kernel
def running_totals(boards):
    out = np.empty(boards.size, np.int64)  # numba's runtime allocates the result
    t = 0
    for i in range(boards.size):
        if boards[i] < 0:
            raise ValueError("negative boards at row", i, boards[i])
        t += boards[i]
        out[i] = t
    return out

@kernel
def last_total(boards):
    return np.cumsum(boards)[-1]
'''

_LOAD_ONLY_RUN = _COMPILED_NAMES + '''
import sys
import numpy as np
from numba.core import cpu
import loadonly
refreshed = []
original = cpu.CPUContext.refresh
cpu.CPUContext.refresh = lambda self: (refreshed.append(1), original(self))[1]
with event.install_listener("numba:compile", Names()):
    totals = loadonly.running_totals(np.array([3, 4, 5])).tolist()
    refreshed_to_load = len(refreshed)
    try:
        loadonly.running_totals(np.array([2, -1]))
        raised = None
    except ValueError as e:
        raised = list(e.args)
    # a compile after the loads gets every registry
    later = loadonly.last_total(np.arange(4.0)) if sys.argv[1:] == ["later"] else 0.0
print(repr((totals, raised, refreshed_to_load, compiled, float(later), len(refreshed) > 0)))
'''


def test_a_cached_kernel_loads_without_numbas_compile_registries(tmp_path):
    """A process that only loads kernels from the cache does not fill numba's compile registries
    (``_jit._cache_loads_without_registry_refresh``), yet the loaded kernel allocates through numba's
    runtime and raises with run-time values, and a kernel compiled afterwards still compiles."""
    import ast

    import numba
    if numba.config.DISABLE_JIT:
        pytest.skip("no compiled kernels under NUMBA_DISABLE_JIT")
    (tmp_path / "loadonly.py").write_text(_LOAD_ONLY_MODULE)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(tmp_path)]),
           "SIMCORE_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("NUMBA_CACHE_DIR", None)

    def run(*args):
        out = subprocess.run([sys.executable, "-c", _LOAD_ONLY_RUN, *args], env=env, cwd=tmp_path,
                             capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        return ast.literal_eval(out.stdout.strip().splitlines()[-1])

    first = run()  # compiles running_totals into the cache
    assert first[:2] == ([3, 7, 12], ["negative boards at row", 1, -1]) and "running_totals" in first[3]
    totals, raised, refreshed_to_load, compiled, later, refreshed_later = run("later")  # loads it
    assert (totals, raised) == ([3, 7, 12], ["negative boards at row", 1, -1])
    assert "running_totals" not in compiled and refreshed_to_load == 0
    assert later == 6.0 and "last_total" in compiled and refreshed_later

# --- scenario templates -----------------------------------------------------------------

@pytest.mark.parametrize("name", ["default", "online"])
def test_scenarios_all_prints_every_key_and_loads_back(name, capsys, tmp_path):
    from simcore.scenario import load_scenario
    assert main(["scenarios", name, "--all"]) == 0
    text = capsys.readouterr().out
    path = tmp_path / "mine.toml"
    path.write_text(text)
    assert load_scenario(str(path)) == load_scenario(name)
    data = tomllib.loads(text)
    import dataclasses
    from simcore.scenario import Online, Players, Reporting
    # every key, defaults too
    assert len(data["players"]) == len(dataclasses.fields(Players)) == 18
    assert len(data["online"]) == len(dataclasses.fields(Online)) == 10
    assert len(data["reporting"]) == len(dataclasses.fields(Reporting)) == 4
    if data.get("clubs"):
        assert len(data["clubs"][0]["sessions"][0]) == 7
    for line in text.splitlines():
        if "=" in line and not line.startswith("#"):
            assert "  # " in line, line  # each key has its comment
    if name == "online":  # no clubs or events: their keys are shown commented out
        assert "# [[events]]" in text and "# entry_rate = 0.04" in text and "# [[clubs]]" in text


# --- what the commands print ---------------------------------------------------------------

def test_grade_says_what_it_graded_and_where(tmp_path, capsys):
    out = tmp_path / "g.csv"
    assert main(["grade", str(HERE / "data" / "bundle_small"), "--scheme", "imps-lost", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "24 card-play records of 9 players" in text and str(out) in text
    assert out.read_text().splitlines()[0] == "player,date,rating,boards_left,imps_left,k,batches"
    assert main(["grade", str(HERE / "data" / "bundle_small"), "--scheme", "ppi", "--out", str(out)]) == 0
    assert "graded 2 of 3 sessions" in capsys.readouterr().out  # PPI skips the Butler session


def test_experiment_headline_is_a_table():
    from simcore.cli.experiment import headline_table
    text = headline_table({"seed": 1, "quick": True, "ranking": ["a", "b"],
                           "schemes": {"ngs": {"rmse": 2.51234, "share": float("nan")}, "ppi": {"rmse": 3.0}}})
    lines = text.splitlines()
    assert "seed: 1" in lines and "quick: true" in lines and "ranking: a, b" in lines
    head = next(i for i, line in enumerate(lines) if line.startswith("schemes"))
    assert lines[head].split() == ["schemes", "rmse", "share"]
    assert lines[head + 2].split() == ["ngs", "2.512", "n/a"] and lines[head + 3].split() == ["ppi", "3"]
    # figures with their intervals over replicates (experiments/_report.ci and .paired)
    text = headline_table({"table": {"ngs": {"rmse": {"mean": 2.5, "ci": [2.4, 2.6], "n": 5},
                                             "vs_ngs": {"diff": -0.31, "ci": [-0.4, -0.2], "verdict": "better"}}},
                           "claims": {"half_life": {"mean": 35.2, "ci": [33.0, 37.5], "n": 5}}})
    assert "claims.half_life: 35.2 [33, 37.5]" in text
    row = next(line for line in text.splitlines() if line.startswith("ngs"))
    assert "2.5 [2.4, 2.6]" in row and "-0.31 [-0.4, -0.2] better" in row


def test_summary_legend_defines_every_column():
    from simcore.cli.run import summary_table
    row = {"rmse": 1.0, "rank_corr": 0.9, "bias": -0.1, "club_bias_rms": 0.5, "aces_eights_gap": 2.0,
           "aces_eights_over_4": 0.2, "volatility": 0.4, "n_graded": 10}
    text = summary_table({"ngs": row, "run": {}})
    for word in ("RMSE", "rank r", "bias", "club bias", "A&E gap", "A&E >4", "volatility", "graded"):
        assert f"\n  {word} " in text, word
    assert text.count("Lower is better") >= 4 and "Higher is better" in text and "+ grades too high" in text
    assert "elo-pairs" in text and "established" in text


def test_figure_y_range_ignores_an_early_spike():
    from simcore.cli.run import robust_limits
    gaps = np.random.default_rng(1).normal(0, 1, size=(6, 60))
    gaps[2, 0] = -22.0  # one club's first snapshot
    lo, hi = robust_limits(gaps)
    assert -6 < lo < -1 and 1 < hi < 6
    assert robust_limits(np.full(4, np.nan)) is None


# --- results.nc ------------------------------------------------------------------------------

def test_dataset_coordinates_are_labelled_dated_and_indexed(tmp_path):
    import xarray as xr

    from simcore.engine.dataset import NEVER_DAY, days_to_dates
    ds = simcore.run("default", years=0.1, seed=2, schemes="ngs")
    for name, coord in ds.coords.items():
        assert coord.attrs.get("long_name"), name
    assert ds["activity"].attrs["units"] == "sessions per week"
    assert ds["base_strength"].attrs["units"] == "grade points"
    assert "club" in ds.indexes and ds["club"].size == ds["club_name"].size
    assert ds["home_club"].max() < ds["club"].size
    for name in ("join_day", "leave_day"):
        assert ds[name].dtype.kind == "M", name
    assert ds["leave_day"].isnull().any() and ds["join_day"].notnull().all()
    assert ds.attrs["simcore_version"] == simcore.__version__ and ds.attrs["git_commit"]
    path = tmp_path / "r.nc"
    ds.to_netcdf(path, engine="h5netcdf")
    with xr.open_dataset(path, engine="h5netcdf") as back:
        np.testing.assert_array_equal(back["leave_day"].values, ds["leave_day"].values)  # NaT survives
        assert back["club"].attrs["long_name"] == ds["club"].attrs["long_name"]
    dates = days_to_dates(np.array([0, 18262, NEVER_DAY]))
    assert str(dates[1])[:10] == "2020-01-01" and np.isnat(dates[2])


class _Terminal:
    """A stderr that says it is a terminal (tqdm draws its bars on it)."""

    def __init__(self):
        import io
        self.buffer = io.StringIO()

    def isatty(self):
        return True

    def write(self, text):
        return self.buffer.write(text)

    def flush(self):
        pass


class _Watch:
    def __init__(self, count, seconds, compiling):
        self.count, self._seconds, self.compiling = count, seconds, compiling

    def elapsed(self):
        return self._seconds


@pytest.mark.parametrize("tty", [True, False])
def test_run_progress_shows_compilation_above_the_bar(monkeypatch, tty):
    from simcore.engine import _Progress
    term = _Terminal()
    if not tty:
        term.isatty = lambda: False
    monkeypatch.setattr(sys, "stderr", term)
    progress = _Progress("default")
    progress.compiling(_Watch(3, 1.0, True))  # compiling before the bar exists (world, pool)
    progress.start(10)
    progress.compiling(_Watch(40, 20.0, True))
    progress.compiling(_Watch(41, 21.5, False))
    progress.advance(10, 2.5)
    progress.close()
    text = term.buffer.getvalue()
    assert "compiling kernels (first run only)" in text
    if tty:
        assert "41 functions in 21.5 s" in text and "2.5 M player-boards/s" in text
    else:
        assert text.count("compiling kernels") == 1  # said once: logs do not fill with updates


def test_run_prints_intervals_over_replicates():
    import xarray as xr

    from simcore.cli.run import INTERVAL_COLUMNS, interval_table
    from simcore.metrics.intervals import format_ci, mean_ci

    def per_replicate(R):
        rng = np.random.default_rng(R)
        data = {key: (("replicate", "scheme"), rng.normal(3, 0.2, (R, 2))) for key, _ in INTERVAL_COLUMNS}
        ds = xr.Dataset(data, coords={"replicate": np.arange(R), "scheme": ["ngs", "ppi"]})
        ds["aces_eights"][0, 1] = np.nan  # a replicate without a graded near-exclusive partnership
        return ds

    ds = per_replicate(4)
    text = interval_table(ds)
    assert "95 % intervals over the 4 replicates" in text
    ngs = next(line for line in text.splitlines() if line.startswith("ngs"))
    assert format_ci(*mean_ci(ds["rmse"].isel(scheme=0).values)) in ngs
    ppi = next(line for line in text.splitlines() if line.startswith("ppi"))
    assert "n/a in 1 of 4" in ppi  # no interval from fewer replicates than ran, and it says so
    assert "One replicate: no interval" in interval_table(per_replicate(1))
