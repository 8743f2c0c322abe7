"""Compare scheme variants over replicates: means with 95 % intervals and paired differences.

  simcore compare SCENARIO --schemes LIST --replicates N [--years Y] [--seed S]
                  [--json] [--out DIR] [--scheduler ADDRESS]

Simulates N replicate populations of SCENARIO (a built-in name or a TOML
file) and grades each under every variant in LIST (comma-separated, the
first is the baseline), all on the same results (common random numbers).
Prints, per metric, each variant's mean with its 95 % Student-t interval
over replicates and its paired difference from the baseline with interval,
verdict (better / worse / no detectable difference) and the replicates that
would separate the two.  --json prints

  {"replicates": N, "metrics": {metric: {variant: {"mean": m, "ci": [lo, hi]}}},
   "paired": {metric: {variant: {"diff": d, "ci": [lo, hi], "verdict": ...}}}, ...}

--out DIR writes compare.json and per_replicate.nc (every figure per
replicate).  --scheduler ADDRESS runs the replicates as dask tasks on a
running cluster (the sweep machinery); the figures do not depend on it.
"""

from __future__ import annotations

import json


def add_arguments(p) -> None:
    p.add_argument("scenario", help="built-in scenario name (see 'simcore scenarios') or a scenario TOML file")
    p.add_argument("--schemes", required=True,
                   help="comma-separated scheme variants, the first is the baseline, e.g. 'ngs,ngs(gain=1),ppi'")
    p.add_argument("--replicates", type=int, required=True, help="replicate populations (at least 2)")
    p.add_argument("--years", type=float, default=None, help="simulated years (default: the scenario's)")
    p.add_argument("--seed", type=int, default=0, help="root seed (default 0)")
    p.add_argument("--json", action="store_true", help="print the comparison as JSON")
    p.add_argument("--out", default=None, metavar="DIR", help="write compare.json and per_replicate.nc here")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="run replicates as dask tasks on this scheduler (e.g. tcp://host:8786)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def main(args) -> int:
    from simcore.engine.compare import compare, validate
    # every argument checked before any simulation starts
    validate(args.scenario, args.schemes, args.replicates, args.years, args.seed, args.scheduler)
    comp = compare(args.scenario, args.schemes, args.replicates, years=args.years, seed=args.seed,
                   scheduler=args.scheduler, out=args.out, progress=not (args.no_progress or args.json))
    if args.json:
        print(json.dumps(comp.to_json(), indent=2))
    else:
        print(comp.table())
        if args.out:
            print(f"\nwritten: {args.out}/compare.json, {args.out}/per_replicate.nc")
    return 0
