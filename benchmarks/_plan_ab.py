"""A/B of ``world.plan_sessions`` against an older revision of simcore/world/plan.py, in isolation.

    python3 benchmarks/_plan_ab.py [REV]      (from the repository root; REV default bf5407e)

Captures the real inputs of one month's chunk of ``default`` (0.5 year)
and ``national`` (0.25 year) from a pass-A run, then times the old copy
(``git show REV:simcore/world/plan.py``) and the working tree's planner in
separate processes, interleaved (numba's type cache mixes up two NamedTuple
classes of the same shape in one process, which slows the second by ~0.6 ms
a call), as the minimum process CPU time of many repeats (``_ab``: the
capture and the interleaving).  Prints ns per
player-board, the new/old ratio, the share of the time outside the kernel
call (the Python layer: GIL held), the kernel alone on reused buffers (ns per
player-week: what an engine run sees), and whether the plans are identical.
"""
import sys

if __package__:  # imported as benchmarks.<tool> (asv imports every module of benchmarks/ to find benchmarks)
    from . import _ab
else:  # run as a script: its folder is on sys.path
    import _ab

FIELDS = ("day", "venue", "event", "kind", "scoring", "winners", "boards", "boards_per_round", "entry_start",
          "a", "b", "ptype", "bonus", "team", "scored_on", "corrected_on")


def install(caps):
    import simcore.simulate.chunk as ch
    from simcore import engine
    plan, score = ch.plan_sessions, engine.score_chunk

    def plan_wrap(w, a, b, *, strength=None):
        caps.append(dict(world=w, first=a, stop=b, strength=strength))
        return plan(w, a, b, strength=strength)

    def score_wrap(*args, **kw):  # the engine plays and scores a chunk before planning the next but one
        c = score(*args, **kw)
        for cap in caps:
            if cap["first"] * 7 + cap["world"].start_day == c.first_day:
                cap["player_boards"] = c.player_boards
        return c

    ch.plan_sessions, engine.score_chunk = plan_wrap, score_wrap


def timed_side(work, which, name, reps):
    import time
    sys.path.insert(0, _ab.ROOT)
    sys.path.insert(0, work)
    if which == "old":
        import plan_old as mod
    else:
        from simcore.world import plan as mod
    c = _ab.load(work, name)
    run = lambda: mod.plan_sessions(c["world"], c["first"], c["stop"], strength=c["strength"])  # noqa: E731
    plan = run()
    _ab.save(work, name, which, {f: getattr(plan, f) for f in FIELDS})
    kname = "_plan_week" if hasattr(mod, "_plan_week") else "_plan_weeks"
    k, spent = getattr(mod, kname), [0.0]

    def timed(*a):
        t0 = time.process_time()
        r = k(*a)
        spent[0] += time.process_time() - t0
        return r

    best, kernel = 1e9, 0.0
    for i in range(2 * reps):  # the second half with the kernel call timed on its own
        setattr(mod, kname, timed if i >= reps else k)
        spent[0] = 0.0
        t0 = time.process_time()
        run()
        t = time.process_time() - t0
        if i < reps:
            best = min(best, t)
        elif kernel == 0.0 or t < kernel_total:
            kernel, kernel_total = spent[0], t
    # the kernel again on one call's arguments, its buffers reused: an engine run reuses the pages a chunk's
    # buffers had (national: 81 ns a player-week in the engine, 78 here), where each plan_sessions above
    # touches fresh ones (about twice the kernel's time on this VM)
    args = []
    setattr(mod, kname, lambda *a: (args.append(a), k(*a))[1])
    run()
    setattr(mod, kname, k)
    warm = 1e9
    for _ in range(reps):
        t0 = time.process_time()
        k(*args[-1])
        warm = min(warm, time.process_time() - t0)
    pb = c["player_boards"]
    print(f"{which} {name}: {best * 1e3:.3f} ms = {best / pb * 1e9:.2f} ns/player-board; "
          f"Python layer (GIL held) {100 * (1 - kernel / kernel_total):.0f} %; kernel on reused buffers "
          f"{warm * 1e3:.3f} ms = {warm / c['strength'].size * 1e9:.1f} ns/player-week", flush=True)
    return best


def main(rev="bf5407e"):
    import tempfile
    work = tempfile.mkdtemp()
    _ab.fetch(rev, work, "simcore/world/plan.py")
    _ab.capture(work, install)
    _ab.interleave(__file__, work, lambda which, name, reps: (work, which, name, reps),
                   (("default", 300), ("national", 15)))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--time"]:
        timed_side(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
    else:
        main(*sys.argv[1:2])
