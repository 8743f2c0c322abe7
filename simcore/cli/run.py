"""Simulate a scenario and grade it under every scheme: the main job.

  simcore run [SCENARIO] [--years Y] [--replicates R] [--seed S]
              [--schemes LIST] [--snapshot weekly|monthly] [--threads N]
              [--outdir DIR] [--out FILE.nc] [--bundle DIR] [--json]

With no arguments it runs the built-in ``default`` scenario with all four
schemes (ngs, ppi, elo-pairs, imps-lost), shows a progress bar, prints a
summary table per scheme variant and writes to an output folder (printed at
the end; ``simcore-out/<scenario>-seed<S>`` by default):

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
import sys
import time
from pathlib import Path

from simcore.cli import UsageError

DEFAULT_SCHEMES = "ngs,ppi,elo-pairs,imps-lost"


def add_arguments(parser) -> None:
    parser.add_argument("scenario", nargs="?", default="default",
                        help="built-in scenario name (see 'simcore scenarios') or a scenario TOML file")
    parser.add_argument("--years", type=float, default=None, help="simulated years (default: the scenario's)")
    parser.add_argument("--replicates", type=int, default=1, help="independent replicate populations (default 1)")
    parser.add_argument("--seed", type=int, default=0, help="the run's seed (default 0)")
    parser.add_argument("--schemes", default=DEFAULT_SCHEMES,
                        help=f"comma-separated scheme variants (default {DEFAULT_SCHEMES})")
    parser.add_argument("--snapshot", choices=("weekly", "monthly"), default=None,
                        help="snapshot frequency (default: the scenario's)")
    parser.add_argument("--threads", type=int, default=None, help="worker threads (default: all cores)")
    parser.add_argument("--outdir", default=None, help="output folder (default simcore-out/<scenario>-seed<S>)")
    parser.add_argument("--out", default=None, metavar="FILE.nc", help="write the Dataset here instead")
    parser.add_argument("--bundle", default=None, metavar="DIR", help="also write replicate 0 as a results bundle")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument("--no-figures", action="store_true", help="skip the figures")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def _available_schemes(text: str) -> str:
    """The default list less schemes missing from this build (with a warning)."""
    from simcore.schemes import scheme_module
    keep = []
    for name in text.split(","):
        try:
            scheme_module(name)
            keep.append(name)
        except ModuleNotFoundError:
            print(f"simcore run: scheme {name} is not available in this build; skipped", file=sys.stderr)
    return ",".join(keep)


def main(args) -> int:
    from simcore import metrics
    from simcore.engine import Engine
    from simcore.scenario import load_scenario
    if args.replicates < 1:
        raise UsageError(f"--replicates {args.replicates}: give at least 1")
    if args.seed < 0:
        raise UsageError(f"--seed {args.seed}: give 0 or more")
    scenario = load_scenario(args.scenario)
    schemes = _available_schemes(args.schemes) if args.schemes == DEFAULT_SCHEMES else args.schemes
    outdir = Path(args.outdir or f"simcore-out/{scenario.name}-seed{args.seed}")
    started = time.perf_counter()
    engine = Engine(scenario, schemes, args.replicates, args.years, args.seed, args.snapshot, args.threads,
                    False, args.bundle, None, progress=not args.no_progress and not args.json)
    ds = engine.run()
    wall = time.perf_counter() - started
    outdir.mkdir(parents=True, exist_ok=True)
    nc = Path(args.out) if args.out else outdir / "results.nc"
    write_dataset(ds, nc)
    summary = metrics.summary(ds)
    summary["run"] = {"scenario": scenario.name, "seed": args.seed, "replicates": args.replicates,
                      "years": engine.scenario.calendar.years, "wall_seconds": round(wall, 2),
                      "player_boards": int(engine.player_boards), "dataset": str(nc)}
    (outdir / "summary.json").write_text(json.dumps(summary, indent=2))
    if not args.no_figures:
        figures(ds, outdir)
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    print(summary_table(summary))
    pb = engine.player_boards
    print(f"\n{pb / 1e6:.1f} M player-boards in {wall:.1f} s ({pb / wall / 1e6:.1f} M/s, "
          f"{engine.threads} threads); Dataset {nc}; figures and summary in {outdir}/")
    if args.bundle:
        print(f"replicate 0's results bundle: {args.bundle}/")
    return 0


def write_dataset(ds, path) -> None:
    """Write the Dataset as netCDF (h5netcdf engine)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    ds.to_netcdf(path, engine="h5netcdf")


def summary_table(summary: dict) -> str:
    cols = [("rmse", "RMSE", "{:6.2f}"), ("rank_corr", "rank r", "{:6.3f}"), ("bias", "bias", "{:+6.2f}"),
            ("club_bias_rms", "club bias", "{:9.2f}"), ("aces_eights_gap", "A&E gap", "{:7.2f}"),
            ("aces_eights_over_4", "A&E >4", "{:6.1%}"), ("volatility", "volatility", "{:10.2f}"),
            ("n_graded", "graded", "{:7d}")]
    rows = {k: v for k, v in summary.items() if k != "run"}
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
    lines.append("(grade points; graded = active members with >= 300 boards; A&E = near-exclusive "
                 "partnerships' |grade gap - true gap|; volatility = sd of snapshot-to-snapshot change)")
    return "\n".join(lines)


def figures(ds, outdir: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from simcore.metrics import club_bias, graded_mask
    last = ds.isel(time=-1, replicate=0)
    mask = graded_mask(last)
    V = ds.sizes["scheme"]
    fig, axes = plt.subplots(1, V, figsize=(3.6 * V, 3.6), squeeze=False, sharex=True, sharey=True)
    for j, ax in enumerate(axes[0]):
        m = mask.isel(scheme=j).values
        t = last["true_strength"].values[m]
        g = last["grade"].isel(scheme=j).values[m]
        ax.scatter(t, g, s=3, alpha=0.4)
        lo, hi = np.nanmin(t) if len(t) else 30, np.nanmax(t) if len(t) else 70
        ax.plot([lo, hi], [lo, hi], color="k", lw=0.8)
        ax.set_title(str(ds["scheme"].values[j]), fontsize=9)
        ax.set_xlabel("true strength")
    axes[0][0].set_ylabel("grade")
    fig.tight_layout()
    fig.savefig(outdir / "grade_vs_truth.png", dpi=110)
    plt.close(fig)
    bias = club_bias(ds.isel(replicate=[0])).isel(replicate=0)
    gaps = bias["gap"]
    few = gaps.sizes["club"] <= 12  # a legend per club only while it stays readable (national: ~400 clubs)
    fig, axes = plt.subplots(1, V, figsize=(3.6 * V, 3.4), squeeze=False, sharey=True)
    for j, ax in enumerate(axes[0]):
        values = gaps.isel(scheme=j).values  # (club, time)
        if few:
            for c in range(values.shape[0]):
                ax.plot(ds["time"].values, values[c], lw=1, label=str(gaps["club_name"].values[c]))
        else:
            ax.plot(ds["time"].values, values.T, lw=0.4, color="0.6", alpha=0.5)
            ax.plot(ds["time"].values, bias["rms"].isel(scheme=j).values, lw=1.6, color="C3", label="RMS over clubs")
        ax.axhline(0, color="k", lw=0.6)
        ax.set_title(str(ds["scheme"].values[j]), fontsize=9)
        ax.tick_params(axis="x", labelrotation=45, labelsize=7)
    axes[0][0].set_ylabel("club mean grade - true mean")
    axes[0][-1].legend(fontsize=6, loc="upper right")
    fig.tight_layout()
    fig.savefig(outdir / "club_gap.png", dpi=110)
    plt.close(fig)
