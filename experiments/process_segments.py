"""Where a run of the bench workload in worker processes spends its time, per process (issue 18).

    python -m experiments.process_segments [ROUNDS] [--modes 1t,2p,2k]

Runs the ``simcore bench`` workload (``default``, 2 replicates x 2 years,
every default scheme) after a warm-up run, ROUNDS times in each mode, the
modes interleaved: ``1t`` one thread; ``2p`` two worker processes forked
for the run (a plain ``simcore run``); ``2k`` two processes, the worker kept
from run to run (``engine.processes.keep_workers``, as ``simcore bench``
runs).  Every process stamps wall time, its CPU time (user + system) and
its minor page faults at the engine's steps (outputs, replicate setup,
chunks, Dataset; a share's start and end), and the table gives, per
segment, the minimum wall and CPU milliseconds over the rounds and the
median faults.  CPU time and faults hardly depend on the machine's load, so
this shows the serial and the contended parts where a wall-clock speed-up
measured on a shared machine cannot.  A ``2p`` round forks, which puts the
parent's pages under copy-on-write again: the ``1t`` runs of the same
process fault more than in a process without forks (measure ``1t`` alone
for its clean figure).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import statistics
import time

from simcore import engine as E
from simcore.bench.pipeline import BENCH_SCHEMES, WORKLOAD
from simcore.engine import Engine, processes

_T0 = [0.0]
_LOG: list = []


def _stamp(label: str) -> None:
    ru = resource.getrusage(resource.RUSAGE_SELF)
    _LOG.append((os.getpid(), label, time.perf_counter() - _T0[0], ru.ru_utime + ru.ru_stime, ru.ru_minflt))


def _instrument() -> None:
    """Stamp the engine's steps; a worker's share sends its stamps back with its results."""
    def wrap(name):
        f = getattr(Engine, name)

        def stamped(self, *a, **k):
            _stamp(name + ">")
            try:
                return f(self, *a, **k)
            finally:
                _stamp(name + "<")
        setattr(Engine, name, stamped)

    for name in ("_build_replicates", "_run_chunks", "_dataset", "_outputs", "_run_processes"):
        wrap(name)
    share = Engine._share

    def stamped_share(self, i, group, forked, job):
        if forked and "_compile_watch" not in vars(self):  # a kept worker's copy: stamped on the next call
            return share(self, i, group, forked, job)
        if forked:
            _LOG.clear()
        _stamp("share>")
        out = share(self, i, group, forked, job)
        _stamp("share<")
        if forked:
            out["_stamps"] = list(_LOG)
        return out
    Engine._share = stamped_share
    fork_workers = processes.fork_workers

    def collected(*a, **k):
        results = fork_workers(*a, **k)
        for res in results:
            _LOG.extend(res.pop("_stamps", []))
        return results
    processes.fork_workers = collected
    E.processes = processes


def _run(threads: int) -> list:
    _LOG.clear()
    w = WORKLOAD
    e = Engine(w["scenario"], BENCH_SCHEMES, w["replicates"], w["years"], w["seed"], threads=threads)
    _T0[0] = time.perf_counter()
    _stamp("run>")
    e.run()
    _stamp("run<")
    return list(_LOG)


def table(rows: dict) -> str:
    lines = []
    for mode, logs in rows.items():
        walls = [1e3 * next(t for _, label, t, *_ in log if label == "run<") for log in logs]
        lines.append(f"{mode}: {len(logs)} runs, wall ms min {min(walls):.1f} median {statistics.median(walls):.1f}"
                     "   (segment: min wall ms, min CPU ms, median minor faults)")
        segments: dict = {}
        for log in logs:
            pids = sorted({p for p, *_ in log}, key=lambda p: min(t for q, _, t, *_ in log if q == p))
            for n, pid in enumerate(pids):
                marks = [(label, t, c, f) for p, label, t, c, f in log if p == pid]
                for a, b in zip(marks, marks[1:]):
                    segments.setdefault((n, f"{a[0]}..{b[0]}"), []).append(
                        (1e3 * (b[1] - a[1]), 1e3 * (b[2] - a[2]), b[3] - a[3]))
        for (n, name), v in segments.items():
            lines.append(f"  process {n} {name:42s} {min(x[0] for x in v):7.1f} {min(x[1] for x in v):7.1f} "
                         f"{statistics.median(x[2] for x in v):7.0f}")
    return "\n".join(lines)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rounds", type=int, nargs="?", default=5)
    ap.add_argument("--modes", default="1t,2p,2k", help="comma-separated: 1t, 2p, 2k")
    args = ap.parse_args(argv)
    modes = args.modes.split(",")
    if not set(modes) <= {"1t", "2p", "2k"}:
        ap.error(f"--modes {args.modes!r}: choose from 1t, 2p, 2k")
    _instrument()
    w = WORKLOAD
    Engine(w["scenario"], BENCH_SCHEMES, w["replicates"], w["years"], w["seed"], threads=1).run()
    rows: dict = {m: [] for m in modes}
    with processes.keep_workers() if "2k" in modes else contextlib.nullcontext():
        if "2k" in modes:
            _run(2)  # fork the kept worker and warm its heap
        for i in range(args.rounds):
            for mode in (modes if i % 2 == 0 else modes[::-1]):
                kept, processes._kept = processes._kept, (processes._kept if mode == "2k" else None)
                try:
                    rows[mode].append(_run(1 if mode == "1t" else 2))
                finally:
                    processes._kept = kept
    print(table(rows))


if __name__ == "__main__":
    main()
