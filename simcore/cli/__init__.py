"""The ``simcore`` command line: one subcommand per module of this package.

Each subcommand lives in the module named below, which provides
``add_arguments(parser)`` and ``main(args) -> int``.  Modules are imported
only when their subcommand runs, so ``simcore --help`` stays instant.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from simcore.errors import UsageError  # noqa: F401  (re-exported: commands raise it)

SUBCOMMANDS = {
    "run": ("simcore.cli.run", "simulate a scenario and grade it under every scheme (the main job)"),
    "scenarios": ("simcore.cli.scenarios", "list the built-in scenarios"),
    "grade": ("simcore.cli.grade", "replay a results bundle through one scheme"),
    "calibrate": ("simcore.cli.calibrate", "check the bridge model against the EBU variability study"),
    "experiment": ("simcore.cli.experiment", "run one of the studies in experiments/"),
    "sweep": ("simcore.cli.sweep", "run a grid of scenario x scheme-variant x seed points on dask"),
    "bench": ("simcore.cli.bench", "print the pipeline throughput on a fixed workload"),
}




def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="simcore", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (modname, helptext) in SUBCOMMANDS.items():
        if only is not None and name != only:
            sub.add_parser(name, help=helptext, add_help=False)
            continue
        module = importlib.import_module(modname)
        p = sub.add_parser(name, help=helptext, description=module.__doc__,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        module.add_arguments(p)
        p.set_defaults(_module=module)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    command = next((a for a in argv if not a.startswith("-")), None)
    if command not in SUBCOMMANDS:
        # only top-level help or an unknown command: no module imports needed
        parser = build_parser(only="")
        if command is None:
            parser.print_help() if not argv or argv[0] in ("-h", "--help") else parser.parse_args(argv)
            return 0 if not argv or argv[0] in ("-h", "--help") else 2
        parser.error(f"unknown command {command!r}; choose from {', '.join(SUBCOMMANDS)}")
    parser = build_parser(only=command)
    args = parser.parse_args(argv)
    try:
        return int(args._module.main(args) or 0)
    except (UsageError, ValueError, FileNotFoundError) as exc:
        # validation errors name the file/row/field; show them without a traceback
        print(f"simcore {command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
