"""``simcore sweep SWEEP.toml``: a grid of scenario x scheme-variant x seed points on dask.

The sweep file's format and the resume rules are in ``simcore.engine.sweep``.
Every grid point is checked with the scenario validator before the cluster
starts.  Ctrl-C stops the cluster and says how many points are kept; rerun
the same command to resume.
"""

from __future__ import annotations

from pathlib import Path

from simcore.cli import UsageError
from simcore.engine.sweep import load_spec, sweep

def add_arguments(parser) -> None:
    parser.add_argument("sweep_file", metavar="SWEEP.toml", help="the sweep description")
    parser.add_argument("--out", default=None,
                        help="output folder (default: sweep-<name>); rerun with the same folder to resume")
    parser.add_argument("--scheduler", default=None, metavar="ADDRESS",
                        help="address of a running dask.distributed scheduler (default: a local cluster)")
    parser.add_argument("--workers", type=int, default=None,
                        help="worker processes of the local cluster (default: one per core)")
    parser.add_argument("--retries", type=int, default=1, help="retries of a failing point (default 1)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def main(args) -> int:
    spec = load_spec(args.sweep_file)
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers {args.workers}: give at least 1")
    if args.retries < 0:
        raise UsageError(f"--retries {args.retries}: give 0 or more")
    from simcore.cli.paths import Outputs
    with Outputs() as outputs:
        out = outputs.folder(args.out or f"sweep-{spec.name}", "--out" if args.out else "output folder")
        combined = sweep(spec, out, scheduler=args.scheduler, workers=args.workers,
                         retries=args.retries, progress=not args.no_progress)
    print(f"{combined.sizes['point']} points combined into {out / 'combined.nc'}")
    return 0
