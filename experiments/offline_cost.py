"""offline's cost against the engine's, and the windowed solve against the exact one (issue 17).

    python -m experiments.offline_cost SCENARIO YEARS LABELS [--seed S]

Runs SCENARIO for YEARS (1 replicate, one thread, so the solves' times are
not shared with other work) grading every variant in LABELS on the same
results; prints the engine's time simulating and scoring (pass A), each
``offline`` variant's CPU and wall seconds in its solves (per year of the
run), its unknowns, non-zeros and conjugate-gradient iterations at the
last solve, the size of its folded matrix C, the process's peak RSS, RMSE
at the last snapshot (players with 300 boards or more), and for every
variant after the first the RMS and largest difference of its grades from
the first's at each snapshot (give the exact solve, ``offline(window_days=0)``,
first).  The figures in experiments/reports/frontier/offline_cost.md come
from it.
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from simcore.engine import Engine


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenario")
    ap.add_argument("years", type=float)
    ap.add_argument("labels")
    ap.add_argument("--seed", type=int, default=2026)
    a = ap.parse_args(argv)
    eng = Engine(a.scenario, a.labels, 1, a.years, a.seed, None, 1, False, None, None, False, False)
    solves: dict[str, list] = {}
    for v in eng.variants:
        if v.name != "offline":
            continue
        scheme, solve = v.scheme, v.scheme._solve

        def timed(state, full=False, _solve=solve, _label=v.label):
            c0, w0 = time.process_time(), time.perf_counter()
            _solve(state, full)
            log = state.log[-1] if state.log else (0, 0, 0, 0)
            solves.setdefault(_label, []).append((time.process_time() - c0, time.perf_counter() - w0, *log[:3],
                                                  getattr(state.C, "nnz", 0)))
        scheme._solve = timed
    w0, c0 = time.perf_counter(), time.process_time()
    ds = eng.run()
    print(f"{a.scenario}, {a.years:g} years, seed {a.seed}: {eng.player_boards / 1e6:.1f} M player-boards; "
          f"run {time.perf_counter() - w0:.0f} s wall, {time.process_time() - c0:.0f} s CPU; "
          f"pass A (simulation, scoring) {eng.timing['pass_a']:.1f} s wall")
    for label, xs in solves.items():
        x = np.array(xs)
        per_year = [round(float(x[i:i + 12, 0].sum()), 1) for i in range(0, len(x), 12)]
        print(f"{label}: {len(x)} solves, {x[:, 0].sum():.0f} s CPU, {x[:, 1].sum():.0f} s wall; CPU a year "
              f"{per_year}; last solve {int(x[-1, 2])} unknowns, {int(x[-1, 3])} non-zeros, {int(x[-1, 4])} "
              f"iterations, C {int(x[-1, 5])} non-zeros")
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6:.2f} GB")
    g = ds["grade"].sel(replicate=0).values
    truth = ds["true_strength"].sel(replicate=0).values
    graded = ds["boards"].sel(replicate=0).values[-1] >= 300
    labels = [str(s) for s in ds["scheme"].values]
    for j, label in enumerate(labels):
        ok = graded & np.isfinite(g[j, -1])
        print(f"{label}: RMSE at the last snapshot {np.sqrt(np.mean((g[j, -1, ok] - truth[-1, ok]) ** 2)):.4f} "
              f"({ok.sum()} players)")
    for j, label in enumerate(labels[1:], 1):
        d = g[j] - g[0]
        rms = np.sqrt(np.nanmean(d ** 2, axis=1))
        print(f"{label} - {labels[0]}: RMS difference a snapshot up to {rms.max():.4f} (last {rms[-1]:.4f}), "
              f"largest {np.nanmax(np.abs(d)):.4f} grade points")


if __name__ == "__main__":
    main()
