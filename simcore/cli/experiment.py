"""Run one of the studies in ``experiments/``.

  simcore experiment NAME [--quick] [--out DIR] [--seed S]
  simcore experiment list

Each study writes data, figures and ``report.md`` (plus ``headline.json``)
to ``--out`` (default ``simcore-out/experiment-NAME``) and prints its
headline figures.  ``--quick`` runs a smaller version (under 5 minutes on 2
cores) with the same code and the same measurements.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path


def add_arguments(p) -> None:
    p.add_argument("name", help="study name, or 'list'")
    p.add_argument("--quick", action="store_true", help="a smaller run (under 5 minutes on 2 cores)")
    p.add_argument("--out", default=None, help="output folder (default simcore-out/experiment-NAME)")
    p.add_argument("--seed", type=int, default=2026, help="the one seed of the study (default 2026)")


def main(args) -> int:
    from experiments import STUDIES
    if args.name == "list":
        for name, mod in STUDIES.items():
            doc = (importlib.import_module(mod).__doc__ or "").strip().splitlines()[0]
            print(f"{name:16s} {doc}")
        return 0
    if args.name not in STUDIES:
        raise ValueError(f"unknown experiment {args.name!r}: choose from {', '.join(STUDIES)} (or 'list')")
    if args.seed < 0:
        raise ValueError(f"--seed must be non-negative (got {args.seed})")
    out = Path(args.out or f"simcore-out/experiment-{args.name}")
    module = importlib.import_module(STUDIES[args.name])
    headline = module.run(out, quick=args.quick, seed=args.seed)
    print(json.dumps(headline, indent=2, default=float))
    print(f"report: {out / 'report.md'}")
    return 0
