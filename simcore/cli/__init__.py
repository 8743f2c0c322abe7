"""The ``simcore`` command line: one subcommand per module of this package.

Each subcommand lives in the module named below, which provides
``add_arguments(parser)`` and ``main(args) -> int``.  Modules are imported
only when their subcommand runs, so ``simcore --help`` stays instant.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import gc
import importlib
import os
import sys

from simcore.errors import UsageError  # noqa: F401  (re-exported: commands raise it)

SUBCOMMANDS = {
    "run": ("simcore.cli.run", "simulate a scenario and grade it under every scheme (the main job)"),
    "scenarios": ("simcore.cli.scenarios", "list the built-in scenarios"),
    "import": ("simcore.cli.import_results", "import USEBIO / PBN / BridgeWebs results files into a bundle"),
    "grade": ("simcore.cli.grade", "replay a results bundle (or results files) through one scheme"),
    "describe": ("simcore.cli.describe", "describe a results set, beside a simulated world with --scenario"),
    "calibrate": ("simcore.cli.calibrate", "check the bridge model against the EBU variability study"),
    "experiment": ("simcore.cli.experiment", "run one of the studies in experiments/"),
    "compare": ("simcore.cli.compare", "compare scheme variants over replicates: intervals and paired differences"),
    "sweep": ("simcore.cli.sweep", "run a grid of scenario x scheme-variant x seed points on dask"),
    "bench": ("simcore.cli.bench", "print the pipeline throughput on a fixed workload"),
}

NO_KERNELS = {"scenarios"}  # commands that never compile a kernel (no numba import, no compile notice)
# commands run with Python's cyclic collector off (``command``): one simulation and its outputs, then the
# process ends; not ``sweep`` (a dask client's cycles, for as long as the sweep runs) nor ``bench`` (its
# timings are taken as the engine runs elsewhere)
COLLECTOR_OFF = {"run"}


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


def _command_of(argv: list[str]) -> str | None:
    """The subcommand named in ``argv``: its first word that is not an option (None: none)."""
    return next((a for a in argv if not a.startswith("-")), None)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    command = _command_of(argv)
    if command not in SUBCOMMANDS:
        # only top-level help or an unknown command: no module imports needed
        parser = build_parser(only="")
        if command is None:
            parser.print_help() if not argv or argv[0] in ("-h", "--help") else parser.parse_args(argv)
            return 0 if not argv or argv[0] in ("-h", "--help") else 2
        parser.error(f"unknown command {command!r}; choose from {', '.join(SUBCOMMANDS)}")
    parser = build_parser(only=command)
    args = parser.parse_args(argv)
    # ``run`` shows compilation in its own progress display
    own_notice = command == "run" and not (getattr(args, "no_progress", False) or getattr(args, "json", False))
    try:
        with compile_notice(enabled=not own_notice and command not in NO_KERNELS):
            return int(args._module.main(args) or 0)
    except (UsageError, ValueError, FileNotFoundError) as exc:
        # validation errors name the file/row/field; show them without a traceback
        print(f"simcore {command}: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        # a file the checks above could not foresee (a disk filling up, a file vanishing): one line
        # naming it, not a traceback
        where = f" ({exc.filename})" if getattr(exc, "filename", None) and str(exc.filename) not in str(exc) else ""
        print(f"simcore {command}: error: {exc}{where}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        # one line, no traceback; a command that keeps partial work says what it kept
        print(f"simcore {command}: {str(exc) or 'interrupted'}", file=sys.stderr)
        return 130


def command() -> int:
    """The ``simcore`` console script and ``python -m simcore``: ``main`` on ``sys.argv``, in a process
    that ends after it.

    As the interpreter shuts down it collects garbage over every object still alive, several times:
    after a run, ~200 000 of them (numba's types and dispatchers, the scenario's and the Dataset's
    Python objects), which took 0.6-1.0 s of the process's life past the command's return
    (``python -m simcore run --years 0.1``, machine idle and loaded: issue 18's warm-run overhead and
    national decade).  The process is ending, so its objects are frozen first (``gc.freeze``: the
    collector then skips them; the memory goes back with the process).  Registered before anything
    the command registers, so it runs after their exit handlers.  ``main`` itself leaves the
    collector alone: tests and notebooks call it in a process that goes on.

    For the commands of ``COLLECTOR_OFF`` the collector is also off from the start: a first run
    compiles ~120 kernels with it off (``engine.memory.no_cycle_collection``), and the ~900 000 objects
    numba's compiling leaves in cycles were collected in one pass as the engine switched it back on,
    0.7-0.8 s of ``simcore run --years 0.1`` on an empty kernel cache (gc.callbacks, a run on this
    machine: 19-20 s in all), with both cores otherwise idle.  Left off, nothing switches it back on,
    and the exit's freeze skips them as it skips the rest.
    """
    atexit.register(gc.freeze)
    argv = sys.argv[1:]
    if _command_of(argv) in COLLECTOR_OFF:
        gc.disable()
    return main(argv)


@contextlib.contextmanager
def compile_notice(enabled: bool = True, stream=None):
    """Say "compiling kernels (first run only)" on stderr while numba compiles (a cold cache).

    On a terminal the line updates in place with the functions compiled and
    the seconds spent; otherwise it is printed once when compilation starts
    and once more with the totals at the end.  Commands that never compile
    (``scenarios``; ``--help`` and bad options never get here) do not import
    numba, so they stay instant.
    """
    if not enabled:
        yield
        return
    stream = stream or sys.stderr
    tty = stream.isatty()
    state = {"shown": False}

    def on_change(watch):
        text = f"compiling kernels (first run only): {watch.count} functions, {watch.elapsed():.0f} s"
        if tty:
            print(f"\r{text}", end="", file=stream, flush=True)
        elif not state["shown"]:
            print(f"compiling kernels (first run only; cached in {os.environ.get('NUMBA_CACHE_DIR')})",
                  file=stream, flush=True)
        state["shown"] = True

    from simcore._jit import watch_compiles
    with watch_compiles(on_change) as watch:
        yield
    if state["shown"]:
        end = "\r" if tty else ""
        print(f"{end}compiled {watch.count} kernel functions in {watch.seconds:.1f} s (cached for later runs)",
              file=stream, flush=True)
