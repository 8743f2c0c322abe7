"""A/B of pass A's play task (``simulate.chunk.play_chunk``: plan, seat, play) against an older revision, in isolation.

    python3 benchmarks/_play_ab.py [REV] [--reps-default N] [--reps-national N]

Captures the real arguments of one month's chunk of ``default`` (0.5 year)
and ``national`` (0.25 year) from an engine run (the working tree's code),
checks out REV (default b0522d9) into a temporary worktree, then times the
old and the working tree's ``play_chunk`` in separate processes,
interleaved (numba's type cache mixes up two NamedTuple classes of the same
shape in one process), as the minimum process CPU time of many repeats.
Prints ns per player-board for the whole task and for its stages (week
strengths, planning, seating, static play, Swiss play, the rest: Python
building the Results), the new/old ratio, the share of the task outside
numba kernels (GIL held), and whether the Results and card totals are
identical.
"""
import os
import pickle
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENARIOS = (("default", 0.5), ("national", 0.25))


def capture(work):
    sys.path.insert(0, ROOT)
    from simcore import engine
    caps, play = [], engine.play_chunk

    def wrap(w, a, b, setup, **kw):
        p = play(w, a, b, setup, **kw)
        caps.append(dict(world=w, first=a, stop=b, setup=setup, kw=kw, player_boards=4 * len(p.results.trav_round)))
        return p

    engine.play_chunk = wrap
    for name, years in SCENARIOS:
        caps.clear()
        engine.Engine(name, None, 1, years, 2026, threads=1).run()  # default schemes: card play on
        with open(os.path.join(work, f"{name}.pkl"), "wb") as f:
            pickle.dump(caps[len(caps) // 2], f)


_STAGES = (("simcore.simulate.chunk", "strength_on", "strength"), ("simcore.simulate.chunk", "plan_sessions", "plan"),
           ("simcore.simulate.chunk", "seat_sessions", "seat"), ("simcore.simulate.chunk", "play_sessions", "static"),
           ("simcore.simulate.chunk", "play_swiss_sessions", "swiss"))


def time_one(tree, work, which, name, reps):
    sys.path.insert(0, tree)
    import importlib

    import numpy as np
    ch = importlib.import_module("simcore.simulate.chunk")
    c = pickle.load(open(os.path.join(work, f"{name}.pkl"), "rb"))
    # the deal pool built by the tree under test, as the engine builds it (its memory layout is the tree's)
    from simcore.bridge.model import build_pool
    from simcore.rng import child_key
    setup = c["setup"]
    c["setup"] = setup._replace(pool=build_pool(setup.model, child_key(setup.key, 0xB0A7D)))
    assert np.array_equal(c["setup"].pool.scores, setup.pool.scores)
    run = lambda: ch.play_chunk(c["world"], c["first"], c["stop"], c["setup"], **c["kw"])  # noqa: E731
    p = run()
    r = p.results
    pickle.dump({k: getattr(r, k) for k in vars(r) if k.startswith(("trav_", "session_", "team_"))}
                | {"card_boards": p.card_totals.boards, "card_imps": p.card_totals.imps},
                open(os.path.join(work, f"{name}.{which}.out"), "wb"))
    spent = {}
    for mod, attr, label in _STAGES:  # each stage's process CPU (the wrapper's cost, ~1 us a call, is noise)
        m = importlib.import_module(mod)
        f = getattr(m, attr, None)
        if f is None:
            continue

        def timed(*a, _f=f, _label=label, **k):
            t0 = time.process_time()
            out = _f(*a, **k)
            spent[_label] = spent.get(_label, 0.0) + time.process_time() - t0
            return out
        setattr(m, attr, timed)
    best, stage_best = 1e9, {}
    for i in range(reps):
        spent.clear()
        t0 = time.process_time()
        run()
        spent["total"] = t = time.process_time() - t0
        best = min(best, t)
        for k, v in spent.items():
            stage_best[k] = min(stage_best.get(k, 1e9), v)
    pb = c["player_boards"]
    stages = " ".join(f"{k} {v / pb * 1e9:.2f}" for k, v in stage_best.items() if k != "total")
    rest = stage_best["total"] - sum(v for k, v in stage_best.items() if k != "total")
    print(f"{which} {name}: {best * 1e3:.3f} ms = {best / pb * 1e9:.2f} ns/player-board "
          f"[{stages} rest {rest / pb * 1e9:.2f}] ({pb} player-boards)", flush=True)


def main(rev="b0522d9", reps_default=200, reps_national=15, rounds=2):
    work = tempfile.mkdtemp(prefix="play_ab_")
    old = os.path.join(work, "old")
    subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", old, rev], check=True, capture_output=True)
    try:
        subprocess.run([sys.executable, __file__, "--capture", work], check=True)
        import numpy as np
        for name, reps in (("default", reps_default), ("national", reps_national)):
            best = {}
            for _ in range(rounds):
                for which, tree in (("old", old), ("new", ROOT)):
                    out = subprocess.run([sys.executable, __file__, "--time", tree, work, which, name, str(reps)],
                                         check=True, capture_output=True, text=True).stdout
                    print(out.strip(), flush=True)
                    ms = float(out.split(": ")[1].split(" ms")[0])
                    best[which] = min(best.get(which, 1e9), ms)
            a = pickle.load(open(os.path.join(work, f"{name}.old.out"), "rb"))
            b = pickle.load(open(os.path.join(work, f"{name}.new.out"), "rb"))
            same = a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
            print(f"{name}: new/old {best['new'] / best['old']:.3f}; outputs identical: {same}", flush=True)
    finally:
        subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", old], check=False)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--capture"]:
        capture(sys.argv[2])
    elif sys.argv[1:2] == ["--time"]:
        time_one(*sys.argv[2:6], int(sys.argv[6]))
    else:
        args = sys.argv[1:]
        main(*args[:1], *(int(a) for a in args[1:]))
