"""Simulate a scenario and grade it under every scheme: the main job.

  simcore run [SCENARIO] [--years Y] [--replicates R] [--seed S]
              [--schemes LIST] [--snapshot weekly|monthly] [--threads N]
              [--outdir DIR] [--out FILE.nc] [--bundle DIR] [--json]

With no arguments it runs the built-in ``default`` scenario with all four
schemes (ngs, ppi, elo-pairs, imps-lost), shows a progress bar, prints a
summary table per scheme variant and writes to an output folder (printed at
the end; ``simcore-out/<scenario>-<Y>y-<R>r-seed<S>`` by default, plus a
short digest when the schemes or snapshot are not the defaults, so a run with
other settings never lands in the same folder).  Every output path is checked
before the simulation starts; a folder holding a different run is refused
unless --overwrite is given:

  results.nc          the Dataset (replicate, scheme, time, player)
  summary.json        the summary figures
  grade_vs_truth.png  final grades against true strengths, per scheme
  club_gap.png        club mean grade minus club true mean over time

--schemes takes comma-separated variants, e.g. "ngs,ngs(gain=2,window=1000),ppi".
--bundle DIR also writes replicate 0's simulated results as a results bundle
that ``simcore grade`` can replay.  --json prints the summary as JSON: one
object per scheme variant with the keys rmse, rank_corr, bias, club_bias_rms,
aces_eights_gap, aces_eights_over_4, volatility, n_graded (see
``simcore.metrics.SUMMARY_KEYS``), plus "run" with scenario, seed, replicates,
years, wall_seconds and player_boards.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from simcore.cli import UsageError


def add_arguments(parser) -> None:
    parser.add_argument("scenario", nargs="?", default="default",
                        help="built-in scenario name (see 'simcore scenarios') or a scenario TOML file")
    parser.add_argument("--years", type=float, default=None, help="simulated years (default: the scenario's)")
    parser.add_argument("--replicates", type=int, default=1, help="independent replicate populations (default 1)")
    parser.add_argument("--seed", type=int, default=0, help="the run's seed (default 0)")
    from simcore.schemes import default_schemes
    parser.add_argument("--schemes", default=None,
                        help=f"comma-separated scheme variants (default {','.join(default_schemes())})")
    parser.add_argument("--snapshot", choices=("weekly", "monthly"), default=None,
                        help="snapshot frequency (default: the scenario's)")
    parser.add_argument("--threads", type=int, default=None,
                        help="cores to use: worker threads or, with several replicates, worker processes "
                        "(default: all cores)")
    parser.add_argument("--outdir", default=None,
                        help="output folder (default simcore-out/<scenario>-<Y>y-<R>r-seed<S>[-<digest of "
                             "schemes and snapshot>]); a folder holding another run is refused")
    parser.add_argument("--out", default=None, metavar="FILE.nc", help="write the Dataset here instead")
    parser.add_argument("--bundle", default=None, metavar="DIR", help="also write replicate 0 as a results bundle")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument("--no-figures", action="store_true", help="skip the figures")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace the results of a different run in --outdir (and an existing --bundle)")


_FIGURES = ("grade_vs_truth.png", "club_gap.png")
_OUR_FILES = ("results.nc", "summary.json", *_FIGURES)
BUNDLE_FILES = ("sessions.csv", "travellers.csv", "teams.csv", "players.csv", "card_play.csv")


def run_identity(engine, schemes: str) -> dict:
    """What makes two runs the same run (and so the same results): the key of the output folder."""
    import hashlib

    from simcore.scenario import scenario_to_json
    sc = engine.scenario
    return {"scenario": sc.name, "scenario_sha1": hashlib.sha1(scenario_to_json(sc).encode()).hexdigest()[:12],
            "years": sc.calendar.years, "snapshot": sc.calendar.snapshot, "replicates": engine.replicates,
            "seed": engine.seed, "schemes": [v.label for v in engine.variants]}


def default_outdir(identity: dict, default_snapshot: str) -> Path:
    """``simcore-out/<scenario>-<Y>y-<R>r-seed<S>``, plus a short digest of the scheme list and snapshot
    when they are not the defaults, so runs that differ never share a folder by default."""
    import hashlib
    name = f"{identity['scenario']}-{identity['years']:g}y-{identity['replicates']}r-seed{identity['seed']}"
    from simcore.schemes import default_schemes
    if identity["schemes"] != default_schemes() or identity["snapshot"] != default_snapshot:
        digest = hashlib.sha1(json.dumps([identity["schemes"], identity["snapshot"]]).encode()).hexdigest()[:6]
        name += f"-{digest}"
    return Path("simcore-out") / name


def _describe(identity: dict) -> str:
    return (f"scenario {identity.get('scenario')}, years {identity.get('years')}, replicates "
            f"{identity.get('replicates')}, seed {identity.get('seed')}, schemes {','.join(identity.get('schemes') or [])}")


def check_outdir_is_this_run(outdir: Path, identity: dict, option: str, overwrite: bool) -> None:
    """Refuse (unless ``overwrite``) a folder holding another run's results: a rerun of the same run
    may replace them (it writes the same numbers), a different run may not, silently."""
    present = [f for f in _OUR_FILES if (outdir / f).exists()]
    if not present or overwrite:
        return
    try:
        have = json.loads((outdir / "summary.json").read_text())["run"]["identity"]
    except (OSError, ValueError, KeyError, TypeError):
        have = None
    if have == identity:
        return
    what = f"a different run ({_describe(have)})" if have else f"files of an unknown run ({', '.join(present)})"
    raise UsageError(f"{option} {outdir} already holds {what}; this run is {_describe(identity)}. "
                     "Give another folder, or pass --overwrite to replace them")


def check_bundle_folder(outputs, path, overwrite: bool) -> Path:
    folder = outputs.folder(path, "--bundle")
    old = [f for f in BUNDLE_FILES if (folder / f).exists()]
    if old and not overwrite:
        raise UsageError(f"--bundle {folder} already holds a results bundle ({', '.join(old)}); "
                         "give another folder, or pass --overwrite to replace it")
    return folder


def main(args) -> int:
    from concurrent.futures import ThreadPoolExecutor

    from simcore import metrics
    from simcore.cli.paths import Outputs, write_atomic
    from simcore.engine import Engine
    from simcore.scenario import load_scenario
    if args.replicates < 1:
        raise UsageError(f"--replicates {args.replicates}: give at least 1")
    if args.seed < 0:
        raise UsageError(f"--seed {args.seed}: give 0 or more")
    if args.years is not None and not 0 < args.years <= 100:
        raise UsageError(f"--years {args.years:g}: give a number of years in (0, 100]")
    if args.threads is not None and args.threads < 1:
        raise UsageError(f"--threads {args.threads}: give at least 1")
    scenario = load_scenario(args.scenario)
    schemes = args.schemes  # None: every scheme's default variants (schemes.default_schemes)
    # every input is validated (Engine checks the scheme variants) and every output path checked
    # before the simulation starts
    try:
        engine = Engine(scenario, schemes, args.replicates, args.years, args.seed, args.snapshot, args.threads,
                        False, None, None, progress=not args.no_progress and not args.json)
    except ValueError as exc:
        raise UsageError(f"--schemes {args.schemes!r}: {exc}" if "scheme" in str(exc) else str(exc)) from None
    identity = run_identity(engine, schemes)
    with Outputs() as outputs:
        option = "--outdir" if args.outdir else "output folder"
        outdir = outputs.folder(args.outdir or default_outdir(identity, scenario.calendar.snapshot), option)
        check_outdir_is_this_run(outdir, identity, option, args.overwrite)
        nc = outputs.file(args.out, "--out") if args.out else outdir / "results.nc"
        if args.bundle:
            engine.bundle_dir = check_bundle_folder(outputs, args.bundle, args.overwrite)
            for f in BUNDLE_FILES:  # --overwrite: no file of the old bundle may stay beside the new one
                (engine.bundle_dir / f).unlink(missing_ok=True)
        started = time.perf_counter()
        ds = engine.run()
        wall = time.perf_counter() - started
        # the Dataset is written while the summary is computed: h5py copies the arrays out without
        # holding the GIL, and at national scale each takes ~0.6-1.2 s (issue 18: a decade in 15 s)
        with ThreadPoolExecutor(1, thread_name_prefix="simcore-write") as writer:
            written = writer.submit(write_atomic, nc, lambda tmp: write_dataset(ds, tmp))
            per_replicate = metrics.summary_per_replicate(ds)
            summary = metrics.summary(ds, per=per_replicate)
            written.result()  # a failed write is raised here, before the summary is written
        summary["run"] = {"scenario": scenario.name, "seed": args.seed, "replicates": args.replicates,
                          "years": engine.scenario.calendar.years, "wall_seconds": round(wall, 2),
                          "compile_seconds": round(engine.compile_seconds, 2),
                          "player_boards": int(engine.player_boards), "dataset": str(nc), "identity": identity}
        write_atomic(outdir / "summary.json", lambda tmp: tmp.write_text(json.dumps(summary, indent=2)))
        if args.no_figures:
            for f in _FIGURES:  # figures of an earlier run must not sit beside this summary
                (outdir / f).unlink(missing_ok=True)
        else:
            figures(ds, outdir)
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    print(summary_table(summary))
    print("\n" + interval_table(per_replicate))
    pb = engine.player_boards
    run_s = max(wall - engine.compile_seconds, 1e-9)
    compiled = (f"; plus {engine.compile_seconds:.1f} s compiling kernels (first run only)"
                if engine.compile_seconds >= 0.05 else "")
    print(f"\n{pb / 1e6:.1f} M player-boards in {run_s:.1f} s ({pb / run_s / 1e6:.2g} M/s, "
          f"{engine.threads} {'worker processes' if engine.workers > 1 else 'threads'}){compiled}")
    print(f"Dataset: {nc}\nsummary and figures: {outdir}/")
    if args.bundle:
        print(f"replicate 0's results bundle: {engine.bundle_dir}/")
    return 0


def write_dataset(ds, path) -> None:
    """Write the Dataset as netCDF (h5netcdf engine).

    Through xarray's h5netcdf store (``Dataset.dump_to_store``), the file
    ``to_netcdf(path, engine="h5netcdf")`` writes, without ``to_netcdf``
    asking dask which scheduler runs: that imports ``dask.distributed`` (and
    tornado, msgpack, ...) when dask is installed, ~0.8 s of a warm run's
    overhead, for a Dataset that holds no dask array.  One thread writes, so
    the store needs no lock of its own.
    """
    from xarray.backends import H5NetCDFStore
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    store = H5NetCDFStore.open(str(path), mode="w", lock=False)
    try:
        ds.dump_to_store(store)
    finally:
        store.close()


SUMMARY_LEGEND = (
    "At the last snapshot, over graded players (mean over replicates; grade points unless stated):",
    "  RMSE        root mean square of (grade - true strength).  Lower is better.",
    "  rank r      Spearman rank correlation of grades with true strengths (1 = the true order).  Higher is better.",
    "  bias        mean of (grade - true strength): + grades too high, - too low.  Nearer 0 is better.",
    "  club bias   root mean square over clubs of (club's mean grade - its mean true strength):",
    "              how far whole clubs sit off the common scale.  Lower is better.",
    "  A&E gap     near-exclusive partnerships (> 85 % of sessions together): mean |grade gap - true gap|",
    "              between the two partners (the Aces-and-Eights problem).  Lower is better.",
    "  A&E >4      share of those partnerships whose gap error is over 4 points.  Lower is better.",
    "  volatility  sd of a graded player's grade change from one snapshot to the next (the snapshot",
    "              interval: --snapshot).  Lower is steadier; some change is needed to follow real change.",
    "  graded      players measured, summed over replicates: active members with >= 300 boards who have",
    "              a grade under that scheme.  Schemes grade different players: elo-pairs rates",
    "              partnerships, and a player gets an individual grade only once one of their partnerships",
    "              is established (10 sessions together), so pick-up players go ungraded; PPI rates",
    "              match-pointed sessions only.  So the columns of two schemes may describe different players.",
    "  n/a         nothing to measure (e.g. no near-exclusive partnership graded yet).",
)


INTERVAL_COLUMNS = (("rmse", "RMSE"), ("rank_corr", "rank r"), ("bias", "bias"), ("club_bias", "club bias"),
                    ("aces_eights", "A&E gap"), ("volatility", "volatility"))


def interval_table(per_replicate) -> str:
    """The summary's figures as ``mean [low, high]``: 95 % Student-t intervals over the replicates
    (``metrics.intervals``), or a line saying why there are none."""
    from simcore.metrics.intervals import format_ci, mean_ci
    R = per_replicate.sizes["replicate"]
    if R < 2:
        return ("One replicate: no interval over replicates for these figures.  Run with --replicates 5 "
                "(or 'simcore compare') to see how far they would move with another population.")
    labels = [str(x) for x in per_replicate["scheme"].values]
    rows = []
    for j, label in enumerate(labels):
        cells = []
        for key, _ in INTERVAL_COLUMNS:
            values = per_replicate[key].isel(scheme=j).values
            if np.isfinite(values).all():
                cells.append(format_ci(*mean_ci(values, name=f"{label} {key}"), digits=3 if key == "rank_corr" else 2))
            else:
                cells.append(f"n/a in {int((~np.isfinite(values)).sum())} of {R}")
        rows.append([label, *cells])
    head = ["scheme", *(title for _, title in INTERVAL_COLUMNS)]
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    fmt = lambda r: "  ".join(x.ljust(w) if i == 0 else x.rjust(w) for i, (x, w) in enumerate(zip(r, widths)))  # noqa: E731
    return "\n".join([f"95 % intervals over the {R} replicates (Student t; paired differences between "
                      "schemes: 'simcore compare'):", fmt(head), "-" * len(fmt(head)), *map(fmt, rows)])


def summary_table(summary: dict) -> str:
    """The summary figures as a table, with what each column means and which way is better."""
    cols = [("rmse", "RMSE", "{:6.2f}"), ("rank_corr", "rank r", "{:6.3f}"), ("bias", "bias", "{:+6.2f}"),
            ("club_bias_rms", "club bias", "{:9.2f}"), ("aces_eights_gap", "A&E gap", "{:7.2f}"),
            ("aces_eights_over_4", "A&E >4", "{:6.1%}"), ("volatility", "volatility", "{:10.2f}"),
            ("n_graded", "graded", "{:7d}")]
    from simcore.schemes import reads_card_play
    rows = {k + (" [card play]" if reads_card_play(k) else ""): v for k, v in summary.items() if k != "run"}
    width = max(len("scheme"), *(len(k) for k in rows))
    head = f"{'scheme':<{width}}  " + "  ".join(f"{title:>{len(fmt.format(0))}}" for _, title, fmt in cols)
    lines = [head, "-" * len(head)]
    for label, vals in rows.items():
        cells = []
        for key, title, fmt in cols:
            v = vals[key]
            w = len(fmt.format(0))
            cells.append(f"{'n/a':>{w}}" if v != v else fmt.format(v))
        lines.append(f"{label:<{width}}  " + "  ".join(cells))
    lines += ["", *SUMMARY_LEGEND]
    if any(k.endswith(" [card play]") for k in rows):
        lines.append("  [card play] the scheme grades card-play records (declarer play), not results: not comparable "
                     "with the result-based rows.")
    return "\n".join(lines)


def robust_limits(values, share: float = 0.01, pad: float = 0.1) -> tuple[float, float] | None:
    """y-limits holding all but the outer ``share`` of the finite values at each end (and 0), padded.

    A few early snapshots, when clubs have only a handful of graded players, swing by 20 points;
    fitting them would flatten everything else.  None when there is nothing finite to show.
    """
    import numpy as np
    v = np.asarray(values, float)
    v = v[np.isfinite(v)]
    if not len(v):
        return None
    lo, hi = np.quantile(v, [share, 1 - share])
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    span = max(hi - lo, 1.0)
    return float(lo - pad * span), float(hi + pad * span)


def figures(ds, outdir: Path) -> None:
    """``grade_vs_truth.png`` and ``club_gap.png`` of replicate 0 (see the module docstring)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from simcore.metrics import club_bias, graded_mask
    last = ds.isel(time=-1, replicate=0)
    mask = graded_mask(last)
    V = ds.sizes["scheme"]
    date = str(np.datetime_as_string(ds["time"].values[-1], unit="D"))
    fig, axes = plt.subplots(1, V, figsize=(3.6 * V, 4.0), squeeze=False, sharex=True, sharey=True)
    for j, ax in enumerate(axes[0]):
        m = mask.isel(scheme=j).values
        t = last["true_strength"].values[m]
        g = last["grade"].isel(scheme=j).values[m]
        ax.scatter(t, g, s=3, alpha=0.4, label="a graded player")
        lo, hi = (np.nanmin(t), np.nanmax(t)) if len(t) else (30, 70)
        ax.plot([lo, hi], [lo, hi], color="k", lw=0.8, label="grade = true strength")
        rmse = float(np.sqrt(np.mean((g - t) ** 2))) if len(t) else float("nan")
        ax.set_title(f"{ds['scheme'].values[j]}\n{len(t)} players, RMSE {rmse:.2f}", fontsize=9)
        ax.set_xlabel("true strength (grade points)")
        ax.legend(fontsize=7, loc="upper left", markerscale=3)
    axes[0][0].set_ylabel("grade (grade points)")
    fig.suptitle(f"Grades against true strengths on {date} (replicate 0; active members with >= 300 boards)",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(outdir / "grade_vs_truth.png", dpi=110)
    plt.close(fig)

    bias = club_bias(ds.isel(replicate=[0])).isel(replicate=0)
    gaps = bias["gap"]
    few = gaps.sizes["club"] <= 12  # a line per club only while it stays readable (national: ~400 clubs)
    times = ds["time"].values
    limits = robust_limits(gaps.values)
    fig, axes = plt.subplots(1, V, figsize=(3.6 * V, 4.0), squeeze=False, sharey=True)
    handles = {}
    clipped = False
    for j, ax in enumerate(axes[0]):
        values = gaps.isel(scheme=j).values  # (club, time)
        if few:
            for c in range(values.shape[0]):
                name = str(gaps["club_name"].values[c])
                (line,) = ax.plot(times, values[c], lw=1, color=f"C{c % 10}")
                handles.setdefault(name, line)
        else:
            lines = ax.plot(times, values.T, lw=0.4, color="0.6", alpha=0.5)
            if lines:
                handles.setdefault("one club", lines[0])
            (rms,) = ax.plot(times, bias["rms"].isel(scheme=j).values, lw=1.6, color="C3")
            handles.setdefault("RMS over clubs", rms)
        ax.axhline(0, color="k", lw=0.6)
        if limits is not None:
            ax.set_ylim(*limits)
            finite = values[np.isfinite(values)]
            clipped |= bool(len(finite) and (finite.min() < limits[0] or finite.max() > limits[1]))
        ax.set_title(str(ds["scheme"].values[j]), fontsize=9)
        ax.set_xlabel("snapshot date")
        ax.tick_params(axis="x", labelrotation=45, labelsize=7)
    axes[0][0].set_ylabel("club mean grade - club mean true strength\n(grade points)")
    note = "; y-range fits 98 % of the values, a few early swings run off the scale" if clipped else ""
    fig.suptitle(f"How far each club's graded members sit off their true level (replicate 0{note})", fontsize=10)
    fig.legend(list(handles.values()), list(handles), loc="lower center", ncol=min(len(handles), 8), fontsize=7,
               frameon=False)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    fig.savefig(outdir / "club_gap.png", dpi=110)
    plt.close(fig)
