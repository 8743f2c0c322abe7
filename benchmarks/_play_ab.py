"""A/B of pass A's play task (``simulate.chunk.play_chunk``: plan, seat, play) against an older revision, in isolation.

    python3 benchmarks/_play_ab.py [REV] [REPS_DEFAULT] [REPS_NATIONAL] [ROUNDS]

Captures the real arguments of one month's chunk of ``default`` (0.5 year)
and ``national`` (0.25 year) from an engine run (the working tree's code),
extracts REV's ``simcore`` (default b0522d9) into a temporary folder, then
times the old and the working tree's ``play_chunk`` in separate processes,
interleaved, as the minimum process CPU time of many repeats (``_ab``: the
capture and the interleaving).
Prints ns per player-board for the whole task and for its stages (week
strengths, planning, seating, static play, Swiss play, the rest: Python
building the Results), the new/old ratio, the share of the task outside
numba kernels (GIL held), and whether the Results and card totals are
identical.
"""
import sys
import time

if __package__:  # imported as benchmarks.<tool> (asv imports every module of benchmarks/ to find benchmarks)
    from . import _ab
else:  # run as a script: its folder is on sys.path
    import _ab


def install(caps):
    from simcore import engine
    play = engine.play_chunk

    def wrap(w, a, b, setup, **kw):
        p = play(w, a, b, setup, **kw)
        caps.append(dict(world=w, first=a, stop=b, setup=setup, kw=kw, player_boards=4 * len(p.results.trav_round)))
        return p

    engine.play_chunk = wrap


_STAGES = (("simcore.simulate.chunk", "strength_on", "strength"), ("simcore.simulate.chunk", "plan_sessions", "plan"),
           ("simcore.simulate.chunk", "seat_sessions", "seat"), ("simcore.simulate.chunk", "play_sessions", "static"),
           ("simcore.simulate.chunk", "play_swiss_sessions", "swiss"))


def timed_side(tree, work, which, name, reps):
    sys.path.insert(0, tree)
    import importlib

    import numpy as np
    ch = importlib.import_module("simcore.simulate.chunk")
    c = _ab.load(work, name)
    # the deal pool built by the tree under test, as the engine builds it (its memory layout is the tree's)
    from simcore.bridge.model import build_pool
    from simcore.rng import child_key
    setup = c["setup"]
    c["setup"] = setup._replace(pool=build_pool(setup.model, child_key(setup.key, 0xB0A7D)))
    assert np.array_equal(c["setup"].pool.scores, setup.pool.scores)
    run = lambda: ch.play_chunk(c["world"], c["first"], c["stop"], c["setup"], **c["kw"])  # noqa: E731
    p = run()
    r = p.results
    _ab.save(work, name, which, {k: getattr(r, k) for k in vars(r) if k.startswith(("trav_", "session_", "team_"))}
             | {"card_boards": p.card_totals.boards, "card_imps": p.card_totals.imps})
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
    import tempfile
    work = tempfile.mkdtemp(prefix="play_ab_")
    old = _ab.fetch(rev, work)
    _ab.capture(work, install, schemes=None)  # default schemes: card play on
    _ab.interleave(__file__, work, lambda which, name, reps: (old if which == "old" else _ab.ROOT, work, which, name,
                                                              reps),
                   (("default", reps_default), ("national", reps_national)), rounds)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--time"]:
        timed_side(*sys.argv[2:6], int(sys.argv[6]))
    else:
        args = sys.argv[1:]
        main(*args[:1], *(int(a) for a in args[1:]))
