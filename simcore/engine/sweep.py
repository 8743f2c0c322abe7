"""Sweeps: a grid of scenario × parameter × seed points run as dask tasks.

``simcore sweep SWEEP.toml`` (or ``simcore.engine.sweep.sweep(spec, out)``) expands
a sweep file into points, runs every point as one dask task (one engine run
grading all the requested scheme variants on the same simulated results),
and writes each finished point to ``OUT/points/<point>.nc`` the moment it
arrives.  Rerunning the same sweep into the same folder skips every point
already written, so an interrupted sweep resumes where it stopped.  A point
that raises is retried (``--retries``), then reported by name with its
error; it is never silently dropped.  When every point is done the points
are combined along a ``point`` dimension into ``OUT/combined.nc``.

Sweep file (TOML)::

    name = "gain-and-mixing"
    scenario = "isolated-clubs"         # built-in name or a path
    schemes = ["ngs", "ngs(gain=2)", "ppi"]
    years = 3
    replicates = 2
    seed = 20261122                     # root seed of the whole sweep
    seeds = 3                           # replicate the grid with 3 seeds
    [grid]                              # dotted scenario keys -> values
    "mixing.travel_rate" = [0.0, 0.02, 0.1]

Seeds: point seed = ``SeedSequence(seed, spawn_key=(seed_index,))``, so it
depends only on the root seed and the point's seed index — not on the order,
the number of workers or which points ran before an interruption.  Points
that share a seed index share their random numbers across the grid (common
random numbers), so differences along a grid axis are not sampling noise.

Cluster: a ``LocalCluster`` of single-threaded worker processes by default
(``NUMBA_NUM_THREADS=1`` so numba does not oversubscribe the cores), or any
running ``dask.distributed`` scheduler given by ``--scheduler ADDRESS``.
Workers return each point's Dataset to the client, which writes the files,
so a remote cluster needs no shared filesystem.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import importlib
import itertools
import json
import os
import signal
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from simcore.errors import UsageError

_TOP_KEYS = {"name", "scenario", "schemes", "years", "replicates", "seed", "seeds", "grid",
             "snapshot", "runner"}


@dataclass(frozen=True)
class SweepSpec:
    """A sweep: what every point runs and the grid of points.

    name: label stored in the combined Dataset.
    scenario: built-in scenario name or path to a scenario TOML.
    schemes: scheme variants graded in every point (e.g. ``"ngs(gain=2)"``).
    years: simulated years per point.
    replicates: replicate populations per point.
    seed: root seed of the sweep.
    seeds: number of seed indices; the grid is repeated for each.
    grid: dotted scenario key → list of values; the points are the
        Cartesian product of the lists (in file order) times the seeds.
    snapshot: ``"weekly"`` or ``"monthly"`` (None = the scenario's).
    runner: ``"module:function"`` run for each point (default: the engine).
    """

    name: str
    scenario: str
    schemes: tuple[str, ...]
    years: float = 3.0
    replicates: int = 1
    seed: int = 0
    seeds: int = 1
    grid: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    snapshot: str | None = None
    runner: str = "simcore.engine.sweep:run_point"

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["schemes"] = list(self.schemes)
        d["grid"] = {k: list(v) for k, v in self.grid}
        return d


@dataclass(frozen=True)
class Point:
    """One point of a sweep: grid values and seed."""

    index: int
    seed_index: int
    seed: int
    values: tuple[tuple[str, Any], ...]
    label: str = field(default="")

    def to_dict(self) -> dict:
        return {"index": self.index, "seed_index": self.seed_index, "seed": self.seed,
                "values": dict(self.values), "label": self.label}


def _fail(path, key, value, allowed):
    raise ValueError(f"{path}: {key} = {value!r} is not valid; {allowed}")


def spec_from_dict(d: dict, source: str = "sweep") -> SweepSpec:
    """Validate a sweep description (as read from TOML) into a SweepSpec."""
    unknown = set(d) - _TOP_KEYS
    if unknown:
        raise ValueError(f"{source}: unknown key(s) {', '.join(sorted(unknown))}; "
                         f"allowed keys: {', '.join(sorted(_TOP_KEYS))}")
    for key in ("name", "scenario", "schemes"):
        if key not in d:
            raise ValueError(f"{source}: missing required key {key!r}")
    if not isinstance(d["name"], str) or not d["name"]:
        _fail(source, "name", d["name"], "give a non-empty string")
    if not isinstance(d["scenario"], str):
        _fail(source, "scenario", d["scenario"], "give a built-in scenario name or a path")
    schemes = d["schemes"]
    if isinstance(schemes, str):
        from simcore.schemes import split_variants
        schemes = split_variants(schemes)
    if not isinstance(schemes, list) or not schemes or not all(isinstance(s, str) for s in schemes):
        _fail(source, "schemes", d["schemes"], "give a non-empty list of scheme variants")
    from simcore.schemes import make_scheme, parse_variant
    for s in schemes:
        try:
            make_scheme(*parse_variant(s))  # checks the parameters' names and values too
        except ModuleNotFoundError:
            _fail(source, "schemes", s, "this scheme is not available in this build")
        except ValueError as exc:
            raise ValueError(f"{source}: schemes: {exc}") from None
    years = d.get("years", 3.0)
    if isinstance(years, bool) or not isinstance(years, (int, float)) or not 0 < years <= 100:
        _fail(source, "years", years, "give a number of years in (0, 100]")
    for key, lo in (("replicates", 1), ("seeds", 1), ("seed", 0)):
        v = d.get(key, lo if key != "seed" else 0)
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            _fail(source, key, v, f"give an integer >= {lo}")
    snapshot = d.get("snapshot")
    if snapshot is not None and snapshot not in ("weekly", "monthly"):
        _fail(source, "snapshot", snapshot, "use 'weekly' or 'monthly'")
    grid = d.get("grid", {})
    if not isinstance(grid, dict):
        _fail(source, "grid", grid, "give a table of dotted scenario keys -> lists of values")
    grid_items = []
    for k, v in grid.items():
        if not isinstance(v, list) or not v:
            _fail(source, f"grid.{k!r}", v, "give a non-empty list of values")
        if len(set(map(repr, v))) != len(v):
            _fail(source, f"grid.{k!r}", v, "values must be distinct")
        grid_items.append((k, tuple(v)))
    runner = d.get("runner", "simcore.engine.sweep:run_point")
    if not isinstance(runner, str) or ":" not in runner:
        _fail(source, "runner", runner, "give 'module:function'")
    spec = SweepSpec(name=d["name"], scenario=d["scenario"], schemes=tuple(schemes),
                     years=float(years), replicates=int(d.get("replicates", 1)),
                     seed=int(d.get("seed", 0)), seeds=int(d.get("seeds", 1)),
                     grid=tuple(grid_items), snapshot=snapshot, runner=runner)
    if runner == "simcore.engine.sweep:run_point":
        check_points(spec, source)
    return spec


def check_points(spec: SweepSpec, source: str = "sweep") -> None:
    """Validate every grid point with the scenario validator, before any cluster starts.

    A wrong key or a wrong-type value (``[0.0, "lots"]``) is a mistake in
    the sweep file, which rerunning cannot fix: say so now, naming the file,
    the key and the value, rather than after a point has run.  Each value is
    checked alone first (the clearest message), then every combination
    (rules that join keys, such as the partnership shares adding up to 1).
    """
    from simcore.scenario import load_scenario, with_overrides
    try:
        base = load_scenario(spec.scenario)
    except ValueError as exc:
        raise ValueError(f"{source}: scenario = {spec.scenario!r}: {exc}") from None
    for key, values in spec.grid:
        for value in values:
            try:
                with_overrides(base, {key: value})
            except ValueError as exc:
                raise ValueError(f"{source}: [grid] {key!r} = {value!r}: {exc}") from None
    if len(spec.grid) > 1:
        for p in expand(spec):
            if p.seed_index:
                continue
            try:
                with_overrides(base, dict(p.values))
            except ValueError as exc:
                point = ", ".join(f"{k} = {v!r}" for k, v in p.values)
                raise ValueError(f"{source}: [grid] point {point}: {exc}") from None


def load_spec(path: str | os.PathLike) -> SweepSpec:
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"sweep file {str(path)!r} does not exist")
    try:
        with open(path, "rb") as fh:
            d = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: not valid TOML: {exc}") from None
    return spec_from_dict(d, source=str(path))


def point_seed(root: int, seed_index: int) -> int:
    """The run seed of every point with this seed index (layout independent)."""
    ss = np.random.SeedSequence(root, spawn_key=(seed_index,))
    return int(ss.generate_state(1, np.uint32)[0])


def expand(spec: SweepSpec) -> list[Point]:
    """All points of a sweep, in a fixed order (grid in file order, then seeds)."""
    keys = [k for k, _ in spec.grid]
    combos = list(itertools.product(*[v for _, v in spec.grid])) if keys else [()]
    points = []
    for values in combos:
        for s in range(spec.seeds):
            vals = tuple(zip(keys, values))
            text = ",".join(f"{k}={v!r}" for k, v in vals)
            digest = hashlib.sha1(f"{text}|seed={s}".encode()).hexdigest()[:10]
            points.append(Point(index=len(points), seed_index=s, seed=point_seed(spec.seed, s),
                                values=vals, label=f"p{len(points):04d}-{digest}"))
    return points


def run_point(spec: dict, point: dict):
    """Default runner: one engine run of the sweep's scenario at this point."""
    from simcore import engine
    from simcore.scenario import load_scenario, with_overrides
    scenario = with_overrides(load_scenario(spec["scenario"]), point["values"])
    return engine.run(scenario, schemes=spec["schemes"], replicates=spec["replicates"],
                      years=spec["years"], seed=point["seed"], snapshot=spec["snapshot"],
                      threads=1, progress=False)


def _resolve(runner: str):
    modname, fname = runner.split(":", 1)
    return getattr(importlib.import_module(modname), fname)


def _run_task(spec_dict: dict, point_dict: dict):
    ds = _resolve(spec_dict["runner"])(spec_dict, point_dict)
    ds.attrs["sweep_point"] = json.dumps(point_dict, default=str)
    return ds


def _write_atomic(ds, path: Path) -> None:
    tmp = path.with_suffix(".nc.tmp")
    ds.to_netcdf(tmp, engine="h5netcdf")
    os.replace(tmp, path)  # a killed sweep never leaves a half-written point


def _point_path(out: Path, p: Point) -> Path:
    return out / "points" / f"{p.label}.nc"


def _check_out_dir(out: Path, spec: SweepSpec) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "points").mkdir(exist_ok=True)
    manifest = out / "sweep.json"
    want = spec.to_dict()
    if manifest.exists():
        have = json.loads(manifest.read_text())
        if have != want:
            raise UsageError(f"{out} holds a different sweep ({have.get('name')!r}); "
                             "use another --out folder or delete it")
    else:
        manifest.write_text(json.dumps(want, indent=2, default=str))


def _make_client(scheduler: str | None, workers: int | None):
    from dask.distributed import Client, LocalCluster
    if scheduler:
        return Client(scheduler), None
    n = workers or os.cpu_count() or 1
    # Ctrl-C reaches every process of the terminal's group: workers that inherit an ignored SIGINT
    # (Python keeps SIG_IGN at start-up) leave the interrupt to this process, which stops them
    # itself, instead of each printing its own traceback
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if _main_thread() else None
    try:
        cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                               env={"NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"},
                               dashboard_address=":0")  # any free port: no warning when 8787 is taken
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
    return Client(cluster), cluster


def _main_thread() -> bool:
    import threading
    return threading.current_thread() is threading.main_thread()


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C during a sweep: the points written so far are kept; its text is the one line to show."""


def _quiet_worker() -> None:
    import logging
    logging.getLogger("distributed").setLevel(logging.CRITICAL + 1)


@contextlib.contextmanager
def _quiet_shutdown():
    """dask logs (with tracebacks) the tasks cancelled when a cluster closes mid-run: not news after Ctrl-C."""
    import logging
    loggers = [logging.getLogger(n) for n in ("distributed", "tornado", "asyncio")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels):
            lg.setLevel(level)


def combine(out: str | os.PathLike, points: list[Point], spec: SweepSpec):
    """Concatenate the written points along ``point`` with their grid coordinates."""
    from simcore._xarray import xr
    out = Path(out)
    parts = []
    for p in points:
        with xr.open_dataset(_point_path(out, p), engine="h5netcdf") as ds:
            parts.append(ds.load())
    combined = xr.concat(parts, dim="point", join="outer", combine_attrs="drop_conflicts")
    combined = combined.assign_coords(
        point=[p.label for p in points],
        seed_index=("point", [p.seed_index for p in points]),
        point_seed=("point", [p.seed for p in points]),
        **{key.replace(".", "__"): ("point", [dict(p.values)[key] for p in points])
           for key, _ in spec.grid})
    combined.attrs["sweep"] = json.dumps(spec.to_dict(), default=str)
    combined.attrs.pop("sweep_point", None)
    return combined


class SweepFailed(UsageError):
    """Some points failed after their retries; the others are on disk."""


def _run_points(spec, out, points, todo, failures, scheduler, workers, retries, progress) -> None:
    """Run the ``todo`` points on the cluster, writing each as it arrives; failures go to ``failures``."""
    from dask.distributed import as_completed
    # Compile (or load from the numba cache) in the parent first, so worker
    # processes on this machine find every kernel already cached instead of
    # all compiling the same kernels at once.
    runner = _resolve(spec.runner)
    if runner is run_point:
        warm = dataclasses.replace(spec, years=2 / 52, replicates=1)
        run_point(warm.to_dict(), todo[0].to_dict())
    client = cluster = bar = None
    try:
        client, cluster = _make_client(scheduler, workers)
        spec_dict = spec.to_dict()
        futures = {client.submit(_run_task, spec_dict, p.to_dict(), key=f"simcore-{p.label}",
                                 retries=retries, pure=False): p for p in todo}
        if progress:
            from tqdm import tqdm
            bar = tqdm(total=len(points), initial=len(points) - len(todo), unit="point",
                       desc=f"sweep {spec.name}", file=sys.stderr)
        for fut in as_completed(futures):
            p = futures[fut]
            try:
                _write_atomic(fut.result(), _point_path(out, p))
            except Exception as exc:  # noqa: BLE001 — reported, never dropped
                failures[p.label] = f"{type(exc).__name__}: {exc}"
            if bar is not None:
                bar.update(1)
                if failures:
                    bar.set_postfix(failed=len(failures))
    except KeyboardInterrupt:
        with _quiet_shutdown():
            if client is not None:
                with contextlib.suppress(Exception):
                    client.run(_quiet_worker)  # the workers log their cancelled tasks otherwise
            _close(bar, client, cluster)
        raise
    _close(bar, client, cluster)


def _close(bar, client, cluster) -> None:
    if bar is not None:
        bar.close()
    if client is not None:
        client.close()
    if cluster is not None:
        cluster.close()


def sweep(spec: SweepSpec, out: str | os.PathLike, *, scheduler: str | None = None,
          workers: int | None = None, retries: int = 1, progress: bool = True):
    """Run (or resume) a sweep; return the combined Dataset.

    spec: a SweepSpec, a dict of the sweep file's keys, or the path of a
    sweep TOML.  out: the sweep's folder.  scheduler: address of a running
    ``dask.distributed`` scheduler (default: a LocalCluster of ``workers``
    single-threaded processes).

    Finished points are skipped, failed ones retried ``retries`` times and
    then reported in ``SweepFailed`` (``OUT/failures.json`` lists them).
    Ctrl-C stops the cluster and raises ``SweepInterrupted``, whose text says
    how many points are kept.
    """
    if isinstance(spec, dict):
        spec = spec_from_dict(spec)
    elif not isinstance(spec, SweepSpec):
        spec = load_spec(spec)
    out = Path(out)
    _check_out_dir(out, spec)
    points = expand(spec)
    todo = [p for p in points if not _point_path(out, p).exists()]
    failures: dict[str, str] = {}
    if todo:
        try:
            _run_points(spec, out, points, todo, failures, scheduler, workers, retries, progress)
        except KeyboardInterrupt:
            kept = sum(_point_path(out, p).exists() for p in points)
            raise SweepInterrupted(f"interrupted: {kept} of {len(points)} points kept; rerun the same command "
                                   "to resume") from None
    if failures:
        (out / "failures.json").write_text(json.dumps(failures, indent=2))
        listing = "; ".join(f"{k}: {v}" for k, v in failures.items())
        raise SweepFailed(f"{len(failures)} of {len(points)} points failed after {retries} "
                          f"retries; the other points are kept, and rerunning the same command runs only "
                          f"the failed ones (after fixing the cause): {listing}")
    (out / "failures.json").unlink(missing_ok=True)
    combined = combine(out, points, spec)
    _write_atomic(combined, out / "combined.nc")
    return combined
