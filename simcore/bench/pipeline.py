"""Whole-pipeline timings behind ``simcore bench`` (the command, its options and JSON keys: ``simcore.cli.bench``).

``time_pipeline`` times the whole pipeline — world planning, movements, the
bridge score model, scoring and every scheme's default variants — on
``WORKLOAD`` (the ``default`` county, 2 replicates of 2 years) after a
warm-up run of the same workload on one thread, so compilation and the
movement caches (Howell searches for the table counts it meets) are excluded (``time_pipelines``: several thread
counts, their runs interleaved; with several threads the replicates run in worker processes kept from run to
run, ``engine.processes.keep_workers``, forked and warmed by one more warm-up run); ``time_python`` times the same code
with ``NUMBA_DISABLE_JIT=1`` on a small slice in a subprocess; ``linearity``
times runs of 1-4 years, 1-4 replicates and the national scenario.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time

from simcore.engine import Engine, processes
from simcore.schemes import default_schemes

BENCH_SCHEMES = tuple(default_schemes())

WORKLOAD = {"scenario": "default", "years": 2.0, "replicates": 2, "seed": 2026}
PYTHON_SLICE = {"scenario": "default", "years": 6 / 52, "replicates": 1, "seed": 2026}


def time_pipeline(threads: int, repeats: int = 3, workload: dict | None = None) -> dict:
    """Median wall time of the workload with ``threads`` threads (after a warm-up run)."""
    return time_pipelines((threads,), repeats, workload)[threads]


def time_pipelines(thread_counts, repeats: int = 3, workload: dict | None = None) -> dict:
    """``time_pipeline`` for each thread count, their timed runs interleaved round by round.

    A run lasts about half a second, and load on a shared machine drifts
    over seconds: timing all the runs of one count and then all of the
    other put that drift into their ratio.  Interleaved, each round's runs
    see about the same machine, and ``speedup(one, other)`` takes the
    median of the per-round ratios.  Returns {threads: dict with
    ``wall_seconds`` (median), ``walls`` (every round's), ``worker_processes``
    (how the engine used the threads: the workload's 2 replicates go to 2
    worker processes on 2 threads, see ``engine.processes``), ...}.
    """
    workload = workload or WORKLOAD  # looked up at the call: the tests shrink it
    counts = list(dict.fromkeys(thread_counts))
    # compile / load the kernels and fill the movement caches in this process: with several threads the
    # timed runs deal their replicates to worker processes (``engine.processes``), which inherit them
    Engine(workload["scenario"], BENCH_SCHEMES, workload["replicates"], workload["years"], workload["seed"],
           threads=1).run()
    walls, pb, workers = {t: [] for t in counts}, 0, {}
    # the runs of this process share their worker processes (``processes.keep_workers``), as a sweep's or a
    # notebook's runs may: forked by a warm-up run at each count, so every timed run finds them warm
    with processes.keep_workers():
        for t in counts:
            if t > 1:
                Engine(workload["scenario"], BENCH_SCHEMES, workload["replicates"], workload["years"],
                       workload["seed"], threads=t).run()
        for i in range(repeats):
            for t in (counts if i % 2 == 0 else counts[::-1]):
                engine = Engine(workload["scenario"], BENCH_SCHEMES, workload["replicates"], workload["years"],
                                workload["seed"], threads=t)
                t0 = time.perf_counter()
                engine.run()
                walls[t].append(time.perf_counter() - t0)
                pb, workers[t] = engine.player_boards, engine.workers
    out = {}
    for t in counts:
        wall = statistics.median(walls[t])
        out[t] = {"player_boards": int(pb), "wall_seconds": wall, "ns_per_player_board": wall / pb * 1e9,
                  "player_boards_per_s": pb / wall, "walls": walls[t], "worker_processes": workers[t]}
    return out


def speedup(one: dict, other: dict) -> float:
    """Median over rounds of one's wall time / other's (``time_pipelines`` results of two counts)."""
    return statistics.median(a / b for a, b in zip(one["walls"], other["walls"]))


def _python_slice() -> None:
    """Run in the NUMBA_DISABLE_JIT=1 subprocess: time the slice, print JSON."""
    w = PYTHON_SLICE
    engine = Engine(w["scenario"], BENCH_SCHEMES, w["replicates"], w["years"], w["seed"], threads=1)
    t0 = time.perf_counter()
    engine.run()
    wall = time.perf_counter() - t0
    print(json.dumps({"player_boards": int(engine.player_boards), "wall_seconds": wall}))


def time_python() -> dict:
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    proc = subprocess.run([sys.executable, "-c", "from simcore.bench.pipeline import _python_slice; _python_slice()"],
                          env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"the plain-Python reference run failed:\n{proc.stderr[-2000:]}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["ns_per_player_board"] = out["wall_seconds"] / out["player_boards"] * 1e9
    return out


LINEARITY = [("default", 1.0, 1), ("default", 2.0, 1), ("default", 4.0, 1), ("default", 1.0, 2),
             ("default", 1.0, 4), ("national", 0.25, 1), ("national", 0.5, 1)]


def linearity(threads: int) -> list[dict]:
    """Wall time against players x years x replicates: one run of each LINEARITY case."""
    rows = []
    for scenario, years, reps in LINEARITY:
        Engine(scenario, BENCH_SCHEMES, 1, 2 / 52, 1, threads=threads).run()  # compile / load, build caches
        engine = Engine(scenario, BENCH_SCHEMES, reps, years, 2026, threads=threads)
        t0 = time.perf_counter()
        engine.run()
        wall = time.perf_counter() - t0
        rows.append({"scenario": scenario, "years": years, "replicates": reps,
                     "players": int(engine.scenario.n_club_members), "player_boards": int(engine.player_boards),
                     "wall_seconds": wall, "ns_per_player_board": wall / engine.player_boards * 1e9})
    return rows
