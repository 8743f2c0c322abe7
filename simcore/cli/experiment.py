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
        raise ValueError(f"--seed {args.seed}: give 0 or more")
    from simcore.cli.paths import Outputs
    module = importlib.import_module(STUDIES[args.name])
    with Outputs() as outputs:  # checked before the study starts; removed again if it fails while empty
        out = outputs.folder(args.out or f"simcore-out/experiment-{args.name}",
                             "--out" if args.out else "output folder")
        headline = module.run(out, quick=args.quick, seed=args.seed)
    print(headline_table(headline))
    print(f"\nreport: {out / 'report.md'}; the figures as JSON in {out / 'headline.json'}")
    return 0


def _is_figure(value) -> bool:
    """A figure with its interval over replicates: {"mean", "ci"} or a paired {"diff", "ci", "verdict"}."""
    return isinstance(value, dict) and "ci" in value and ("mean" in value or "diff" in value)


def _cell(value) -> str:
    if _is_figure(value):
        lo, hi = value["ci"]
        if "diff" in value:
            verdict = f" {value['verdict']}" if value.get("verdict") else ""
            return f"{value['diff']:+.4g} [{_cell(lo)}, {_cell(hi)}]{verdict}"
        return f"{_cell(value['mean'])} [{_cell(lo)}, {_cell(hi)}]"
    if isinstance(value, bool) or value is None:
        return str(value).lower()
    if isinstance(value, float):
        return "n/a" if value != value else f"{value:.4g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(_cell(v) for v in value)
    return str(value)


def headline_table(headline: dict) -> str:
    """A study's headline figures as text: scalars one a line, a table of rows (a dict of dicts
    sharing their keys, such as figures per scheme variant) as aligned columns, anything deeper as
    dotted keys.  A figure with its interval over replicates reads ``mean [lo, hi]`` (95 %), a
    paired difference ``+diff [lo, hi] verdict``."""
    lines, tables = [], []
    for key, value in headline.items():
        if isinstance(value, dict) and value and not _is_figure(value) and \
                all(isinstance(v, dict) and not _is_figure(v) for v in value.values()):
            tables.append((key, value))
        elif isinstance(value, dict) and not _is_figure(value):
            lines += [f"{key}.{k}: {_cell(v)}" for k, v in value.items()]
        else:
            lines.append(f"{key}: {_cell(value)}")
    for key, rows in tables:
        columns = list(dict.fromkeys(c for row in rows.values() for c in row))
        cells = [[str(name)] + [_cell(row.get(c, "")) if _is_figure(row.get(c)) or not isinstance(row.get(c), dict)
                                else json.dumps(row.get(c), default=float) for c in columns]
                 for name, row in rows.items()]
        head = [key] + columns
        widths = [max(len(r[i]) for r in [head, *cells]) for i in range(len(head))]
        fmt = lambda r: "  ".join(x.ljust(w) if i == 0 else x.rjust(w) for i, (x, w) in enumerate(zip(r, widths)))  # noqa: E731
        lines += ["", fmt(head), "-" * len(fmt(head)), *map(fmt, cells)]
    return "\n".join(lines)
