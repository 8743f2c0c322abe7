"""Replay a results bundle, or real results files, through one grading scheme.

  simcore grade BUNDLE|PATH... --scheme ngs|ppi|elo-pairs|imps-lost [--set NAME=VALUE ...] --out FILE.csv

ngs, ppi and elo-pairs read the bundle's sessions (sessions.csv,
travellers.csv, teams.csv), score them exactly as the engine does and grade
the sessions in processing order (date, then session).  FILE.csv gets one row
per player per session graded:

  session,date,player,grade

the player's grade (grade points) right after that session; names as in the
bundle, ISO dates, floats at full precision.  A session the scheme does not
grade (e.g. PPI rates match-pointed sessions only) has no rows.

imps-lost reads the bundle's card_play.csv (player,date,boards,imps_lost)
and writes one row per input row, in input order:

  player,date,rating,boards_left,imps_left,k,batches

--set NAME=VALUE changes a parameter of the scheme (repeat it for several);
the parameters of every scheme are listed below.  --partnerships FILE.csv
also writes partnership-level grades for schemes that have them.

Instead of a bundle folder, give results files or folders (USEBIO XML, PBN,
BridgeWebs CSV — what ``simcore import`` reads): they are imported into a
temporary bundle first (imps-lost solves the PBN deals double-dummy, as
``simcore import --card-play``), repeated exports of a session are read
once, and the import's one-line summary is printed on stderr.

The replay itself lives in ``simcore.engine.replay``; this module parses
the command line and writes the files.
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import sys
import tempfile
from pathlib import Path

from simcore.engine.replay import (grade_bundle, grade_results, partnership_table, read_bundle_folder, score,
                                   write_csv)
from simcore.schemes import CARD_PLAY, make_scheme, params_help, scheme_module, scheme_names


# --- command line -----------------------------------------------------------------

def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bundle", metavar="PATH", nargs="+",
                        help="a results bundle folder, or results files / folders to import first")
    parser.add_argument("--scheme", required=True, choices=scheme_names(), help="the scheme to replay")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", dest="overrides",
                        help="set a scheme parameter (repeatable); see the list below")
    parser.add_argument("--out", required=True, metavar="FILE.csv", help="where to write the grades")
    parser.add_argument("--partnerships", metavar="FILE.csv",
                        help="also write partnership grades (schemes with partnership-level grades only)")
    parser.epilog = parameters_text()


def parameters_text() -> str:
    """Every parameter of every scheme, with default and help, from the
    schemes' ``Params`` metadata.  A scheme whose module is missing from this
    build is listed as such."""
    lines = ["scheme parameters (--set NAME=VALUE):"]
    for name in scheme_names():
        try:
            rows = params_help(name)
        except (ImportError, AttributeError) as exc:
            lines += ["", f"  {name}: not available in this build ({exc})"]
            continue
        lines += ["", f"  {name}:"]
        for param, default, text in rows:
            lines.append(f"    {param} (default {default}): {text}")
    return "\n".join(lines)


def parse_overrides(items: list[str]) -> dict[str, str]:
    """``["gain=2", "window=1000"]`` → ``{"gain": "2", "window": "1000"}``."""
    out: dict[str, str] = {}
    for item in items:
        if "=" not in item:
            raise ValueError(f"--set {item!r} is not NAME=VALUE")
        key, value = (part.strip() for part in item.split("=", 1))
        if key in out:
            raise ValueError(f"--set {key} given twice")
        out[key] = value
    return out


def bundle_folder(paths: list[str], card_play: bool, stack: contextlib.ExitStack) -> str:
    """The bundle folder to grade: ``paths[0]`` if it is one, else the import of ``paths`` into a
    temporary folder removed when ``stack`` closes."""
    bundles = [p for p in paths if (Path(p) / "sessions.csv").is_file() or (Path(p) / "card_play.csv").is_file()]
    if bundles and len(paths) == 1:
        return paths[0]
    if bundles:
        raise ValueError(f"{bundles[0]} is a results bundle: grade it alone, not with other paths")
    missing = [p for p in paths if not Path(p).exists()]
    if missing:
        raise FileNotFoundError(f"results bundle {missing[0]!r} is not a folder (nor a results file)")
    if len(paths) == 1 and Path(paths[0]).is_dir() and not _holds_results(Path(paths[0])):
        return paths[0]  # an empty or partial bundle: the bundle reader says what is missing
    from simcore.io.importer import import_paths
    tmp = tempfile.mkdtemp(prefix="simcore-grade-")
    stack.callback(shutil.rmtree, tmp, True)
    summary, _, _ = import_paths(paths, Path(tmp) / "bundle", card_play=card_play)
    for note in summary.notes:
        print(f"note: {note}", file=sys.stderr)
    print(f"imported: {summary.line()}", file=sys.stderr)
    return str(Path(tmp) / "bundle")


def _holds_results(folder: Path) -> bool:
    from simcore.io.detect import detect, find_files
    for path, _ in find_files([folder]):
        with open(path, "rb") as fh:
            if detect(fh.read(65536)):
                return True
    return False


def main(args) -> int:
    scheme = make_scheme(args.scheme, parse_overrides(args.overrides))  # bad --set values fail before any import
    with contextlib.ExitStack() as stack:
        return _grade(args, lambda paths: bundle_folder(paths, scheme.reads == CARD_PLAY, stack))


def _grade(args, resolve) -> int:
    from simcore.cli.paths import Outputs
    overrides = parse_overrides(args.overrides)
    switch = scheme_module(args.scheme).SCHEME.partnership_switch
    if args.partnerships and switch is None:
        raise ValueError(f"{args.scheme} has no partnership-level grades; drop --partnerships")
    if args.partnerships:
        for key, value in switch.items():  # e.g. NGS keeps partnership histories only on request
            overrides.setdefault(key, str(value))
    scheme = make_scheme(args.scheme, overrides)
    with Outputs() as outputs:  # output paths checked before the bundle is read
        out = outputs.file(args.out, "--out")
        partnerships = outputs.file(args.partnerships, "--partnerships") if args.partnerships else None
        paths = args.bundle
        args.bundle = resolve(paths)  # results files are imported only once the outputs are checked
        label = args.bundle if [args.bundle] == paths else ", ".join(paths)
        if scheme.reads == CARD_PLAY:
            table = grade_bundle(args.bundle, scheme)
            write_csv(out, table)
            print(f"graded {len(table['player'])} card-play records of {len(set(table['player']))} players "
                  f"({Path(args.bundle) / 'card_play.csv'}) under {scheme.name}; ratings in {out}")
            return 0
        results = read_bundle_folder(args.bundle)
        scored = score(results)
        table, state = grade_results(results, scored, scheme, label=args.bundle)
        write_csv(out, table)
        print(f"graded {len(set(table['session']))} of {results.n_sessions} sessions of {label} under "
              f"{scheme.name} ({len(table['grade'])} grades of {len(set(table['player']))} players); grades in {out}")
        if partnerships:
            pt = partnership_table(results, scored, scheme, state)
            write_csv(partnerships, pt)
            print(f"{len(pt['partnership'])} partnership grades in {partnerships}")
    return 0


__all__ = ["add_arguments", "main", "parameters_text", "parse_overrides"]
