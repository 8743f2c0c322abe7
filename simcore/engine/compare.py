"""Compare scheme variants over replicates: means with intervals, paired differences, verdicts.

``simcore compare SCENARIO --schemes LIST --replicates N`` (or
``simcore.compare(...)``) simulates N independent replicate populations and
grades each one under every variant — common random numbers: within a
replicate every variant grades the very same travellers.  Every summary
figure (``metrics.REPLICATE_KEYS``: rmse, rank_corr, bias, abs_bias,
club_bias, aces_eights, aces_eights_over_4, volatility) is measured per
replicate, then

* each variant's **mean with a 95 % interval** (Student t over replicates,
  ``metrics.intervals.mean_ci``), and
* each variant's **paired difference from the first variant** (the t
  interval of the per-replicate differences, ``paired_ci``) with a verdict —
  better / worse / no detectable difference, in the metric's own direction
  (``intervals.LOWER_IS_BETTER``; signed bias has no good direction and is
  reported as higher / lower) — and how many replicates would separate the
  two at the observed difference (``replicates_to_separate``).

Why the t interval: see ``simcore/metrics/intervals.py`` — each replicate's
figure is an average over hundreds of players, replicates are independent by
construction, and N is small, where a bootstrap under-covers.

Replicate i is one engine run with seed ``sweep.point_seed(seed, i)`` — the
seed of seed index i of a sweep — so a replicate's figures depend only on the
root seed and i: not on N, the thread count, or whether it ran in this
process or as a dask task on a cluster (``scheduler``, through
``engine.sweep``).
"""

from __future__ import annotations

import json
import math
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from simcore.metrics import intervals
from simcore.schemes import reads_card_play

# what simcore compare reports, in this order (n_graded is kept per replicate but has no verdict)
METRICS = ("rmse", "rank_corr", "bias", "abs_bias", "club_bias", "aces_eights", "aces_eights_over_4",
           "volatility")


@dataclass
class Comparison:
    """The per-replicate figures and their summary.

    per_replicate: Dataset (replicate, scheme) of every figure.
    metrics: {metric: {variant: {"mean", "ci"}}}; paired: {metric: {variant:
    {"diff", "ci", "verdict", "replicates_to_separate", "unpaired_ci"}}} for
    every variant but the first; unavailable: {metric: why}; reads_card_play:
    the variants whose scheme grades card play, not results (marked, and not
    ranked with the result-based schemes).
    """

    replicates: int
    variants: list[str]
    per_replicate: object
    reads_card_play: list = field(default_factory=list)
    metrics: dict = field(default_factory=dict)
    paired: dict = field(default_factory=dict)
    unavailable: dict = field(default_factory=dict)
    run: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"replicates": self.replicates, "metrics": self.metrics, "paired": self.paired,
                "baseline": self.variants[0], "unavailable": self.unavailable, "run": self.run,
                "reads_card_play": self.reads_card_play,
                "interval": f"{intervals.LEVEL:.0%} Student t over replicates; paired = t interval of the "
                            "per-replicate differences from the baseline (common random numbers)"}

    def table(self) -> str:
        """The text table ``simcore compare`` prints."""
        base = self.variants[0]
        lines = [f"{self.replicates} replicates; 95 % Student-t intervals over replicates; differences are "
                 f"paired on common random numbers against {base!r}"]
        mark = {v: v + (" [card play]" if v in self.reads_card_play else "") for v in self.variants}
        if self.reads_card_play:
            lines.append(f"[card play]: {', '.join(self.reads_card_play)} grades card-play records (declarer "
                         "play), not results: not a ranking against the result-based schemes")
        width = max(len(v) for v in mark.values()) + 2
        for metric, per_variant in self.metrics.items():
            lines.append("")
            lines.append(f"{metric}  ({'lower' if intervals.LOWER_IS_BETTER.get(metric, True) else 'higher'}"
                         f" is better)" if metric in intervals.LOWER_IS_BETTER else f"{metric}")
            lines.append(f"  {'variant':{width}s}{'mean [95 % CI]':26s}{'paired diff [95 % CI]':28s}"
                         f"{'verdict':26s}replicates to separate")
            for v in self.variants:
                m = per_variant[v]
                row = f"  {mark[v]:{width}s}{intervals.format_ci(m['mean'], *m['ci'], digits=3):26s}"
                if v != base:
                    p = self.paired[metric][v]
                    sep = p["replicates_to_separate"]
                    row += (f"{intervals.format_ci(p['diff'], *p['ci'], digits=3):28s}{p['verdict']:26s}"
                            f"{'never (no difference)' if sep is None else int(sep)}")
                else:
                    row += f"{'(baseline)':28s}"
                lines.append(row.rstrip())
        for metric, why in self.unavailable.items():
            lines.append(f"\n{metric}: not reported — {why}")
        return "\n".join(lines)


def _direction_verdict(metric: str, low: float, high: float) -> str:
    if metric in intervals.LOWER_IS_BETTER:
        return intervals.verdict(low, high, intervals.LOWER_IS_BETTER[metric])
    if low > 0:
        return "higher"
    if high < 0:
        return "lower"
    return "no detectable difference"


def summarise(per_replicate, keys=METRICS, run: dict | None = None) -> Comparison:
    """Means, intervals and paired differences from a (replicate, scheme) Dataset of figures."""
    variants = [str(v) for v in per_replicate["scheme"].values]
    n = per_replicate.sizes["replicate"]
    if n < 2:
        raise ValueError(f"replicates={n}: an interval over replicates needs at least 2")
    comp = Comparison(replicates=n, variants=variants, per_replicate=per_replicate, run=run or {},
                      reads_card_play=[v for v in variants if reads_card_play(v)])
    base = variants[0]
    for metric in keys:
        values = {v: per_replicate[metric].sel(scheme=v).values.astype(float) for v in variants}
        missing = {v: int((~np.isfinite(x)).sum()) for v, x in values.items() if not np.isfinite(x).all()}
        if missing:
            comp.unavailable[metric] = ("some replicates could not measure it (" +
                                        ", ".join(f"{v}: {k} of {n}" for v, k in missing.items()) +
                                        "), e.g. no graded near-exclusive partnership in the scenario")
            continue
        comp.metrics[metric] = {}
        for v in variants:
            m, lo, hi = intervals.mean_ci(values[v], name=f"{metric} of {v}")
            comp.metrics[metric][v] = {"mean": m, "ci": [lo, hi]}
        comp.paired[metric] = {}
        for v in variants[1:]:
            d, lo, hi = intervals.paired_ci(values[v], values[base], name=f"{metric} of {v}")
            _, ulo, uhi = intervals.unpaired_ci(values[v], values[base], name=f"{metric} of {v}")
            sep = intervals.replicates_to_separate(values[v] - values[base])
            comp.paired[metric][v] = {"diff": d, "ci": [lo, hi], "verdict": _direction_verdict(metric, lo, hi),
                                      "replicates_to_separate": None if math.isinf(sep) else int(sep),
                                      "unpaired_ci": [ulo, uhi]}
    return comp


def validate(scenario, schemes, replicates, years, seed, scheduler):
    """Check every argument before any work; errors name the option and the bad value."""
    from simcore.engine import resolve_schemes
    from simcore.scenario import Scenario, load_scenario
    if isinstance(replicates, bool) or not isinstance(replicates, (int, np.integer)) or replicates < 2:
        raise ValueError(f"--replicates {replicates!r}: give an integer >= 2 (an interval over replicates "
                         "needs at least 2)")
    if years is not None and (isinstance(years, bool) or not isinstance(years, (int, float))
                              or not math.isfinite(years) or not 0 < years <= 100):
        raise ValueError(f"--years {years!r}: give a number of years in (0, 100]")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"--seed {seed!r}: give a non-negative integer")
    if scheduler is not None and (not isinstance(scheduler, str) or "://" not in scheduler):
        raise ValueError(f"--scheduler {scheduler!r}: give a dask scheduler address such as tcp://host:8786")
    try:
        sc = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
    except (ValueError, FileNotFoundError) as exc:
        raise ValueError(f"SCENARIO {scenario!r}: {exc}") from None
    try:
        variants = resolve_schemes(schemes)
    except ValueError as exc:
        raise ValueError(f"--schemes {schemes!r}: {exc}") from None
    if len(variants) < 2:
        raise ValueError(f"--schemes {schemes!r}: give at least two variants (the first is the baseline)")
    return sc, [v.label for v in variants]


def compare(scenario="default", schemes="ngs,ngs(gain=1)", replicates=5, years=None, seed=0,
            scheduler=None, out=None, min_boards=300, progress=False) -> Comparison:
    """Run ``replicates`` replicates of ``scenario`` under every variant and compare them.

    scenario: built-in name, TOML path or Scenario.  schemes: variants (the
    first is the baseline), e.g. ``"ngs,ngs(gain=1),ppi"`` or a list.
    years: overrides the scenario's calendar.  seed: the root seed.
    scheduler: a dask scheduler address to run replicates as tasks (through
    ``engine.sweep``); default: one after another in this process.  out: a
    folder for ``compare.json``, ``per_replicate.nc`` (and, with a scheduler,
    the sweep's point files).  Returns a ``Comparison``.
    """
    from simcore._xarray import xr
    from simcore import metrics
    from simcore.engine import sweep as sweep_mod
    sc, labels = validate(scenario, schemes, replicates, years, seed, scheduler)
    years = float(years) if years is not None else float(sc.calendar.years)
    spec = {"name": f"compare-{sc.name}", "scenario": str(scenario) if isinstance(scenario, (str, Path)) else sc.name,
            "schemes": labels, "years": years, "replicates": 1, "seed": int(seed), "seeds": int(replicates)}
    sweep_spec = sweep_mod.spec_from_dict(spec, source="compare")
    points = sweep_mod.expand(sweep_spec)
    per_rep = []
    if scheduler is None:
        from simcore.engine import run as run_engine
        bar = None
        if progress:
            from tqdm import tqdm
            bar = tqdm(total=len(points), unit="replicate", desc=f"compare {sc.name}")
        for p in points:
            # the same run as sweep.run_point at this point (the thread count changes nothing)
            ds = run_engine(sc, schemes=labels, replicates=1, years=years, seed=p.seed)
            per_rep.append(metrics.summary_per_replicate(ds, min_boards).isel(replicate=0, drop=True))
            if bar is not None:
                bar.update(1)
        if bar is not None:
            bar.close()
    else:
        if not isinstance(scenario, (str, Path)):
            raise ValueError("scheduler: give the scenario as a built-in name or a TOML path to run on a cluster")
        folder = Path(out) / "sweep" if out is not None else Path(tempfile.mkdtemp(prefix="simcore-compare-"))
        sweep_mod.sweep(sweep_spec, folder, scheduler=scheduler, progress=progress)
        for p in points:
            with xr.open_dataset(sweep_mod._point_path(folder, p), engine="h5netcdf") as ds:
                per_rep.append(metrics.summary_per_replicate(ds.load(), min_boards).isel(replicate=0, drop=True))
    table = xr.concat(per_rep, dim="replicate").assign_coords(
        replicate=np.arange(len(points)), replicate_seed=("replicate", [p.seed for p in points]))
    run = {"scenario": sc.name, "years": years, "seed": int(seed), "schemes": labels,
           "replicate_seeds": [p.seed for p in points]}
    comp = summarise(table, run=run)
    if out is not None:
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "compare.json").write_text(json.dumps(comp.to_json(), indent=2))
        table.to_netcdf(out / "per_replicate.nc", engine="h5netcdf")
    return comp
