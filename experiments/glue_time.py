"""The Python between the kernels on the bench workload, old tree against new (issue 18), on a loaded machine.

    python -m experiments.glue_time [--reps N] [--rounds K] [--old TREE] [--new TREE] [--by-kernel]

The bench workload (``default``, the bench schemes, 2 replicates x 2 years,
one thread, seed 2026: 48 chunks) is run ``reps`` times in a fresh process
per tree after two warm runs, and each side keeps the minimum of:

* ``cpu``: the process CPU of a run (ms) and ns per player-board;
* ``kernels``: the CPU spent inside numba kernels called from Python (every
  dispatcher of ``simcore`` wrapped by a timer, dispatch included);
* ``glue`` = cpu - kernels: the Python between the kernels, per run and per
  chunk (it also holds each run's fixed costs: replicate set-up, Dataset).

The children of the two trees alternate, ``rounds`` times (times on a loaded
machine drift: compare the minima and the ratio new/old, and say the machine
was loaded).  Each child also prints a digest of the run's Dataset: the two
trees must print the same one (the glue is not allowed to change a result).
With one tree (``--new`` omitted) it times that tree alone.

``--by-kernel`` also prints, for each side, every kernel's ns per
player-board in the fastest run (a kernel's calls from Python summed, each
``simcore`` dispatcher under its module's path: ``simulate.play.play_sessions``),
largest first: where the kernels' time goes.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

_CHILD = r'''
import hashlib, sys, time
import numba
import numpy as np
from simcore.engine import Engine
from simcore.bench.pipeline import BENCH_SCHEMES

reps = int(sys.argv[1])
by_kernel = sys.argv[2] == "1"
Engine("default", BENCH_SCHEMES, 1, 4 / 52, 1, threads=1).run()
ds = Engine("default", BENCH_SCHEMES, 2, 2.0, 2026, threads=1).run()
digest = hashlib.sha256()
for name in sorted(ds.data_vars):
    digest.update(name.encode())
    digest.update(np.ascontiguousarray(ds[name].values).tobytes())
spent = {}  # kernel name -> process CPU (s) of its calls from Python in this run


def timed(kernel, name):
    def call(*args, **kwargs):
        t0 = time.process_time()
        try:
            return kernel(*args, **kwargs)
        finally:
            spent[name] = spent.get(name, 0.0) + time.process_time() - t0
    return call


wrapped = {}
for mod_name, mod in list(sys.modules.items()):
    if mod_name.startswith("simcore") and mod is not None:
        for attr, value in list(vars(mod).items()):
            if isinstance(value, numba.core.dispatcher.Dispatcher):
                name = value.py_func.__module__.removeprefix("simcore.") + "." + value.py_func.__name__
                setattr(mod, attr, wrapped.setdefault(id(value), timed(value, name)))
best, fastest = None, None
for _ in range(reps):
    spent.clear()
    engine = Engine("default", BENCH_SCHEMES, 2, 2.0, 2026, threads=1)
    c0 = time.process_time()
    engine.run()
    cpu = time.process_time() - c0
    kernels = sum(spent.values())
    row = (cpu, kernels, cpu - kernels)
    best = row if best is None else tuple(min(a, b) for a, b in zip(best, row))
    if fastest is None or cpu < fastest[0]:
        fastest = (cpu, dict(spent))
pb = engine.player_boards
cpu, kernels, glue = best
if by_kernel:
    ranked = sorted(fastest[1].items(), key=lambda kv: -kv[1])
    print("by kernel (ns per player-board, fastest run): "
          + ", ".join(f"{name} {t * 1e9 / pb:.2f}" for name, t in ranked))
print(f"cpu {cpu * 1e3:.1f} ms ({cpu * 1e9 / pb:.2f} ns per player-board)  kernels {kernels * 1e3:.1f} ms  "
      f"glue {glue * 1e3:.1f} ms ({glue * 1e3 / 48:.2f} ms per chunk, {glue * 1e9 / pb:.2f} ns per player-board)  "
      f"digest {digest.hexdigest()[:16]}")
'''


def _side(tree: str, reps: int, by_kernel: bool = False) -> str:
    """The child's report: its figures line, after its by-kernel line when ``by_kernel``."""
    env = dict(os.environ, PYTHONPATH=tree)
    out = subprocess.run([sys.executable, "-c", _CHILD, str(reps), "1" if by_kernel else "0"], cwd=tree, env=env,
                         capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"{tree}: the child failed\n{out.stderr[-2000:]}")
    return "\n".join(out.stdout.strip().splitlines()[-(2 if by_kernel else 1):])


def main(argv=None) -> None:
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=7, help="timed runs per child (the minimum is kept)")
    ap.add_argument("--rounds", type=int, default=3, help="children per tree, alternating")
    ap.add_argument("--old", default=here, help="the tree timed first (default: this one)")
    ap.add_argument("--new", default=None, help="the tree compared with it")
    ap.add_argument("--by-kernel", action="store_true", help="also each kernel's ns per player-board")
    a = ap.parse_args(argv)
    if a.reps < 1 or a.rounds < 1:
        raise SystemExit(f"--reps and --rounds must be >= 1, got {a.reps} and {a.rounds}")
    for name, tree in (("--old", a.old), ("--new", a.new)):
        if tree is not None and not os.path.isdir(os.path.join(tree, "simcore")):
            raise SystemExit(f"{name} {tree}: no simcore package there")
    sides = [("old", a.old)] + ([("new", a.new)] if a.new else [])
    for _ in range(a.rounds):
        for label, tree in sides:
            print(f"{label}  {_side(tree, a.reps, a.by_kernel)}", flush=True)


if __name__ == "__main__":
    main()
