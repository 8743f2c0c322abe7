"""Describe a results set — and, with --scenario, a simulated world beside it.

  simcore describe PATH... [--scenario NAME] [--years Y] [--seed S] [--out DIR]

PATH: a results bundle folder, or results files / folders (USEBIO, PBN,
BridgeWebs; imported first, as ``simcore import``).  Prints players,
sessions, boards, tables and boards per session, each player's share of
sessions with their most frequent partner, sessions per player-week and the
spread of session MP % (definitions in ``simcore.metrics.describe``).

--scenario NAME simulates that scenario (one replicate, --years years, 1 by
default) and puts the same figures beside yours, so you can see how
realistic the world is against your club.  --out DIR writes describe.png
(the distributions overlaid) and describe.json.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import sys
import tempfile
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help="a results bundle, or results files / folders")
    parser.add_argument("--scenario", metavar="NAME", help="a built-in scenario or TOML file to compare with")
    parser.add_argument("--years", type=float, default=1.0, help="years of the scenario to simulate (default 1)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the simulation (default 0)")
    parser.add_argument("--out", metavar="DIR", help="write describe.png and describe.json here")


def main(args) -> int:
    from simcore.cli.grade import bundle_folder
    from simcore.io.bundle import read_bundle
    from simcore.metrics.describe import describe, figure, table_text
    from simcore.scoring import score_results
    from simcore.cli.paths import Outputs
    if args.years <= 0:
        raise ValueError(f"--years {args.years} must be positive")
    columns = {}
    with contextlib.ExitStack() as stack:
        outputs = stack.enter_context(Outputs())  # --out checked before any work
        out = outputs.folder(args.out, "--out") if args.out else None
        folder = bundle_folder(args.paths, False, stack)
        if args.scenario:
            from simcore.scenario import load_scenario
            load_scenario(args.scenario)  # a bad name fails before any work
        res = read_bundle(folder)
        columns["your results"] = describe(res, score_results(res))
        if args.scenario:
            from simcore.engine import run
            tmp = tempfile.mkdtemp(prefix="simcore-describe-")
            stack.callback(shutil.rmtree, tmp, True)
            from simcore.schemes import default_schemes
            # the bundle is the same under any scheme (the world never reads a grade): grade with one
            run(args.scenario, schemes=default_schemes()[:1], years=args.years, seed=args.seed, bundle=tmp)
            sim = read_bundle(tmp)
            columns[f"{args.scenario} (simulated, 1 replicate)"] = describe(sim, score_results(sim))
    print(table_text(columns))
    if out is not None:
        figure(columns, out / "describe.png")
        plain = {t: {k: ({kk: vv for kk, vv in v.items() if kk != "values"} if isinstance(v, dict) else v)
                     for k, v in c.items()} for t, c in columns.items()}
        (out / "describe.json").write_text(json.dumps(plain, indent=2))
        print(f"wrote {out / 'describe.png'} and {out / 'describe.json'}", file=sys.stderr)
    return 0
