"""A/B of ``scoring.score_results`` against an older revision of simcore, in isolation (issue 18).

    python3 benchmarks/_score_ab.py [REV] [ROUNDS]   (from the repository root; REV default b0522d9)

Captures the real ``Results`` (and the replicate's partnership table as it
stood) of one chunk of ``default`` (0.5 year) and ``national`` (0.25 year)
from an engine run, then times the old tree (``git archive REV``) and the
working tree in separate processes, interleaved (numba's type cache mixes
up two NamedTuple classes of the same shape in one process, which slows
the second), as the minimum process CPU time of many repeats.  Prints ns
per player-board, new/old ratios, each kernel's share (the kernels called
from Python; the rest is the Python layer, GIL held), and whether every
array of the two ScoredResults is identical.
"""
import copy
import os
import pickle
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNELS = ("_session_entries", "_score_session_pairs", "_assign_team_rows", "_session_matches",
           "_partnership_ids")


def capture(work):
    sys.path.insert(0, ROOT)
    from simcore import engine
    caps, score = [], engine.score_chunk

    def score_wrap(played, partnerships, card_play, n_players):
        table = copy.deepcopy(partnerships)
        c = score(played, partnerships, card_play, n_players)
        caps.append(dict(results=played.results, table=table, player_boards=c.player_boards))
        return c

    engine.score_chunk = score_wrap
    for name, years in (("default", 0.5), ("national", 0.25)):
        caps.clear()
        engine.Engine(name, ["ppi"], 1, years, 2026, threads=1).run()
        with open(os.path.join(work, f"{name}.pkl"), "wb") as f:
            pickle.dump(caps[len(caps) // 2], f)


def time_one(work, which, name, reps):
    sys.path.insert(0, os.path.join(work, "old") if which == "old" else ROOT)
    import numpy as np

    from simcore.scoring import session as mod
    c = pickle.load(open(os.path.join(work, f"{name}.pkl"), "rb"))
    results = c["results"]
    tables = [copy.deepcopy(c["table"]) for _ in range(2 * reps + 1)]
    scored = mod.score_results(results, partnerships=tables.pop())
    np.savez(os.path.join(work, f"{name}.{which}.npz"), **scored.arrays())
    spent = {}
    originals = {k: getattr(mod, k) for k in KERNELS if hasattr(mod, k)}

    def timer(k, f):
        def timed(*a):
            t0 = time.process_time()
            r = f(*a)
            spent[k] = spent.get(k, 0.0) + time.process_time() - t0
            return r
        return timed

    best, parts, parts_total = 1e9, {}, 1e9
    for i in range(2 * reps):  # the second half with each kernel call timed on its own
        for k, f in originals.items():
            setattr(mod, k, timer(k, f) if i >= reps else f)
        spent.clear()
        table = tables.pop()
        t0 = time.process_time()
        mod.score_results(results, partnerships=table)
        t = time.process_time() - t0
        if i < reps:
            best = min(best, t)
        elif t < parts_total:
            parts, parts_total = dict(spent), t
    pb = c["player_boards"]
    share = " ".join(f"{k.strip('_')} {v / pb * 1e9:.2f}" for k, v in parts.items())
    python = parts_total - sum(parts.values())
    print(f"{which} {name}: {best * 1e3:.3f} ms = {best / pb * 1e9:.2f} ns/player-board "
          f"[{share}; python {python / pb * 1e9:.2f}]", flush=True)


def main(rev="b0522d9", rounds="3"):
    import numpy as np
    work = tempfile.mkdtemp()
    os.makedirs(os.path.join(work, "old"))
    subprocess.run(f"git -C {ROOT} archive {rev} simcore | tar -x -C {work}/old", shell=True, check=True)
    subprocess.run([sys.executable, __file__, "--capture", work], check=True)
    for name, reps in (("default", 200), ("national", 15)):
        best = {}
        for _ in range(int(rounds)):
            for which in ("old", "new"):
                out = subprocess.run([sys.executable, __file__, "--time", work, which, name, str(reps)], check=True,
                                     capture_output=True, text=True).stdout
                print(out.strip(), flush=True)
                ns = float(out.split("= ")[1].split(" ns")[0])
                best[which] = min(best.get(which, 1e9), ns)
        a = np.load(os.path.join(work, f"{name}.old.npz"))
        b = np.load(os.path.join(work, f"{name}.new.npz"))
        same = set(a.files) == set(b.files) and all(np.array_equal(a[k], b[k]) for k in a.files)
        print(f"{name}: old {best['old']:.2f}, new {best['new']:.2f} ns/player-board, "
              f"new/old {best['new'] / best['old']:.3f}; every array identical: {same}", flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--capture"]:
        capture(sys.argv[2])
    elif sys.argv[1:2] == ["--time"]:
        time_one(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
    else:
        main(*sys.argv[1:3])
