"""How well the engine's schedule can keep two cores busy, measured on a loaded machine (issue 18).

    python -m experiments.engine_schedule SCENARIO YEARS REPLICATES [--threads T] [--workers N]

Runs SCENARIO (all default scheme variants, seed 2026) after a warm-up run
of the same size (kernels loaded, movement caches filled), records every
task's thread CPU seconds (play, score, each variant's grading, per
replicate and chunk) and the part of it spent inside numba kernels called
from Python (the rest holds the GIL), then replays the task CPU times on N
idle workers under two policies:

* ``barrier``: the scheduler before issue 18 — pass A (play + score as one
  task) of chunk c + 1 of every replicate queued, then every grading of
  chunk c, first in first out, and a wait for all of them;
* ``engine``: the engine's own (``simcore.engine``: tasks submitted as
  their inputs exist, pass A first, ``LOOKAHEAD``).

CPU seconds do not depend much on the machine's load, so the replay gives
the idle two-core wall time a schedule allows.  It ignores the GIL: two
tasks that both hold it (the ``python`` share printed) slow each other,
which the replay does not see; that cost is what separates the replayed
speed-up from a measured one on an idle machine.
"""

from __future__ import annotations

import argparse
import heapq
import threading
import time
from collections import defaultdict

from numba.core.registry import CPUDispatcher

import simcore.engine as E

_local = threading.local()


def _kernel_timer(dispatcher):
    """The dispatcher, timing (thread CPU) the outermost kernel call of each thread."""
    def call(*a, **k):
        if getattr(_local, "inside", False):
            return dispatcher(*a, **k)
        _local.inside = True
        c0 = time.thread_time()
        try:
            return dispatcher(*a, **k)
        finally:
            _local.kernel = getattr(_local, "kernel", 0.0) + time.thread_time() - c0
            _local.inside = False
    return call


def _instrument(rows: list):
    import sys
    timers = {}
    for name, mod in list(sys.modules.items()):
        if name.startswith("simcore") and mod is not None:
            for attr, value in list(vars(mod).items()):
                if isinstance(value, CPUDispatcher):
                    setattr(mod, attr, timers.setdefault(id(value), _kernel_timer(value)))
    lock = threading.Lock()

    def wrap(method, kind):
        fn = getattr(E.Engine, method)

        def task(self, rep, *args):
            _local.kernel = 0.0
            c0 = time.thread_time()
            try:
                return fn(self, rep, *args)
            finally:
                cpu = time.thread_time() - c0
                if kind == "play":
                    key = (kind, rep.index, int(args[0]))
                elif kind == "score":
                    key = (kind, rep.index, int(args[0].first_day))
                else:
                    key = ("grade:" + args[0].label, rep.index, int(args[1].first_day))
                with lock:
                    rows.append((key, cpu, _local.kernel))
        setattr(E.Engine, method, task)
    wrap("_play", "play")
    wrap("_score", "score")
    wrap("_grade_chunk", "grade")


class _Workers:
    """N idle workers taking the smallest-priority ready task; durations are the measured CPU seconds."""

    def __init__(self, n):
        self.now, self.free, self.queue, self.events, self.seq = 0.0, n, [], [], 0

    def submit(self, priority, tag, seconds):
        self.seq += 1
        heapq.heappush(self.queue, (priority, self.seq, tag, seconds))

    def next_done(self):
        while self.free and self.queue:
            _, _, tag, seconds = heapq.heappop(self.queue)
            self.free -= 1
            self.seq += 1
            heapq.heappush(self.events, (self.now + seconds, self.seq, tag))
        self.now, _, tag = heapq.heappop(self.events)
        self.free += 1
        return tag


def replay_barrier(play, score, grade, R, V, C, n):
    w, order, pending = _Workers(n), iter(range(1 << 40)), set()
    a = lambda r, c: play[r, c] + score[r, c]  # noqa: E731
    for r in range(R):
        w.submit(next(order), ("a", r, 0), a(r, 0))
        pending.add(("a", r, 0))
    for c in range(C):
        while any(t[0] == "a" and t[2] == c for t in pending):
            pending.discard(w.next_done())
        if c + 1 < C:
            for r in range(R):
                w.submit(next(order), ("a", r, c + 1), a(r, c + 1))
                pending.add(("a", r, c + 1))
        for r in range(R):
            for j in range(V):
                w.submit(next(order), ("b", r, j, c), grade[r, j, c])
                pending.add(("b", r, j, c))
        while any(t[0] == "b" and t[3] == c for t in pending):
            pending.discard(w.next_done())
    return w.now


def replay_engine(play, score, grade, R, V, C, n, lookahead=E.LOOKAHEAD):
    w = _Workers(n)
    next_play, next_score, play_busy, score_busy = [0] * R, [0] * R, [False] * R, [False] * R
    left, played, scored = [{} for _ in range(R)], [set() for _ in range(R)], [set() for _ in range(R)]
    next_b, b_busy, last = defaultdict(int), defaultdict(bool), defaultdict(float)

    def ready(r):
        n_new, c = 0, next_play[r]
        if not play_busy[r] and c < C and len(left[r]) < lookahead:
            play_busy[r], left[r][c] = True, V
            w.submit((0, c, 1, r), ("play", r, c), play[r, c])
            n_new += 1
        c = next_score[r]
        if not score_busy[r] and c in played[r]:
            score_busy[r] = True
            played[r].discard(c)
            w.submit((0, c, 0, r), ("score", r, c), score[r, c])
            n_new += 1
        for j in range(V):
            c = next_b[r, j]
            if not b_busy[r, j] and c in scored[r]:
                b_busy[r, j] = True
                w.submit((1, c, -last[r, j], r, j), ("b", r, j, c), grade[r, j, c])
                n_new += 1
        return n_new

    running = sum(ready(r) for r in range(R))
    while running:
        tag = w.next_done()
        running -= 1
        r, c = tag[1], tag[-1]
        if tag[0] == "play":
            played[r].add(c)
            play_busy[r], next_play[r] = False, c + 1
        elif tag[0] == "score":
            scored[r].add(c)
            score_busy[r], next_score[r] = False, c + 1
        else:
            j = tag[2]
            b_busy[r, j], next_b[r, j], last[r, j] = False, c + 1, grade[r, j, c]
            left[r][c] -= 1
            if not left[r][c]:
                del left[r][c]
                scored[r].discard(c)
        running += ready(r)
    return w.now


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenario")
    ap.add_argument("years", type=float)
    ap.add_argument("replicates", type=int)
    ap.add_argument("--threads", type=int, default=2, help="threads of the measured run (default 2)")
    ap.add_argument("--workers", type=int, default=2, help="idle workers of the replay (default 2)")
    a = ap.parse_args(argv)
    E.Engine(a.scenario, None, a.replicates, a.years, 2026, threads=a.threads).run()  # warm-up
    rows: list = []
    _instrument(rows)
    engine = E.Engine(a.scenario, None, a.replicates, a.years, 2026, threads=a.threads)
    t0, c0 = time.perf_counter(), time.process_time()
    engine.run()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    pb = engine.player_boards
    print(f"{a.scenario}, {a.years:g} years x {a.replicates} replicates, {a.threads} threads: {pb / 1e6:.1f} M "
          f"player-boards; measured wall {wall:.2f} s, process CPU {cpu:.2f} s (the machine may be loaded)")
    kinds = defaultdict(lambda: [0.0, 0.0])
    for (kind, _, _), task_cpu, kernel in rows:
        kinds[kind][0] += task_cpu
        kinds[kind][1] += kernel
    for kind, (task_cpu, kernel) in sorted(kinds.items()):
        print(f"  {kind:18s} CPU {task_cpu / pb * 1e9:6.1f} ns per player-board, "
              f"python (GIL held) {1 - kernel / max(task_cpu, 1e-12):4.0%}")
    R, labels = a.replicates, [v.label for v in engine.variants]
    V = len(labels)
    firsts = sorted({k[2] for k, _, _ in rows if k[0] == "play"})
    days = sorted({k[2] for k, _, _ in rows if k[0] == "score"})
    C = len(firsts)
    by_key = {k: c for k, c, _ in rows}
    play = {(r, c): by_key["play", r, f] for r in range(R) for c, f in enumerate(firsts)}
    score = {(r, c): by_key["score", r, d] for r in range(R) for c, d in enumerate(days)}
    grade = {(r, j, c): by_key["grade:" + lab, r, d] for r in range(R) for j, lab in enumerate(labels)
             for c, d in enumerate(days)}
    total = sum(play.values()) + sum(score.values()) + sum(grade.values())
    one = total  # one worker: the sum, whatever the policy
    print(f"  task CPU {total:.2f} s; replay on {a.workers} idle workers (speed-up against one worker):")
    for name, fn in (("barrier (before)", replay_barrier), ("engine (now)", replay_engine)):
        t = fn(play, score, grade, R, V, C, a.workers)
        print(f"    {name:18s} {t:7.2f} s  {one / t:4.2f}x  ({t / pb * 1e9:.1f} ns per player-board)")
    print(f"    bound: total / workers {total / a.workers:.2f} s")


if __name__ == "__main__":
    main()
