"""What the A/B tools (``_plan_ab``, ``_play_ab``, ``_score_ab``) share: capture a chunk's real arguments,
fetch an older revision, time old and new in separate processes, interleaved, keeping the best.

Each tool is one script that calls itself: ``--capture WORK`` runs the engine once per scenario with the
tool's wrappers installed (``capture``); ``--time ... WHICH NAME REPS`` times one side in a fresh process
(numba's type cache mixes up two NamedTuple classes of the same shape in one process, which slows the
second) and prints a line ``WHICH NAME: <best> ms = ...``, saving its outputs with ``save``; ``interleave``
runs the old and new children in turn, keeps each side's best, and says whether their outputs are
identical.  Times are process CPU: the minimum of many repeats, because the machine may be loaded.
"""
import os
import pickle
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENARIOS = (("default", 0.5), ("national", 0.25))
"""Scenarios captured, and the years each engine run covers (one chunk is kept: the middle one)."""


def capture(work, install, schemes=("ppi",)):
    """Run each of ``SCENARIOS`` once (seed 2026, one replicate, one thread) after ``install(caps)`` has
    wrapped what the tool times (each wrapper appends a dict of its arguments to ``caps``); pickle the
    middle chunk's dict to ``WORK/<scenario>.pkl``.  schemes: None = the default schemes."""
    sys.path.insert(0, ROOT)
    from simcore import engine
    caps = []
    install(caps)
    for name, years in SCENARIOS:
        caps.clear()
        engine.Engine(name, None if schemes is None else list(schemes), 1, years, 2026, threads=1).run()
        with open(os.path.join(work, f"{name}.pkl"), "wb") as f:
            pickle.dump(caps[len(caps) // 2], f)


def load(work, name):
    """The captured dict of one scenario."""
    with open(os.path.join(work, f"{name}.pkl"), "rb") as f:
        return pickle.load(f)


def fetch(rev, work, path=None):
    """The old code of ``rev``: with ``path`` (one module, e.g. ``simcore/world/plan.py``), that file as
    ``WORK/<stem>_old.py`` (import it as ``<stem>_old`` with WORK on sys.path); without, the whole
    ``simcore`` package under ``WORK/old`` (put that first on sys.path).  Returns the folder to add."""
    if path is not None:
        src = subprocess.run(["git", "-C", ROOT, "show", f"{rev}:{path}"], check=True, capture_output=True,
                             text=True).stdout
        stem = os.path.splitext(os.path.basename(path))[0]
        with open(os.path.join(work, f"{stem}_old.py"), "w") as f:
            f.write(src)
        return work
    old = os.path.join(work, "old")
    os.makedirs(old, exist_ok=True)
    subprocess.run(f"git -C {ROOT} archive {rev} simcore | tar -x -C {old}", shell=True, check=True)
    return old


def save(work, name, which, arrays: dict):
    """A child's outputs (a dict of arrays), for ``interleave`` to compare."""
    with open(os.path.join(work, f"{name}.{which}.out"), "wb") as f:
        pickle.dump(arrays, f)


def identical(work, name) -> bool:
    """Whether the old and new outputs of a scenario have the same keys and equal arrays."""
    import numpy as np
    with open(os.path.join(work, f"{name}.old.out"), "rb") as f:
        a = pickle.load(f)
    with open(os.path.join(work, f"{name}.new.out"), "rb") as f:
        b = pickle.load(f)
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


def interleave(script, work, child_args, cases, rounds=2):
    """For each (scenario, reps) of ``cases``: ``rounds`` times, the old then the new child
    (``python3 SCRIPT --time *child_args(which, name, reps)``), each line printed; then the best of each
    side, new/old and whether the outputs the children saved in WORK are identical.
    Returns {scenario: {"old": ms, "new": ms}}."""
    best_all = {}
    for name, reps in cases:
        best = {}
        for _ in range(int(rounds)):
            for which in ("old", "new"):
                args = [str(a) for a in child_args(which, name, reps)]
                out = subprocess.run([sys.executable, script, "--time", *args], check=True, capture_output=True,
                                     text=True).stdout
                print(out.strip(), flush=True)
                ms = float(out.split(": ")[1].split(" ms")[0])
                best[which] = min(best.get(which, 1e9), ms)
        print(f"{name}: old {best['old']:.3f} ms, new {best['new']:.3f} ms, new/old {best['new'] / best['old']:.3f}; "
              f"outputs identical: {identical(work, name)}", flush=True)
        best_all[name] = best
    return best_all
