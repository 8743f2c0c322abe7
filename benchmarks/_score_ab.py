"""A/B of ``scoring.score_results`` against an older revision of simcore, in isolation (issue 18).

    python3 benchmarks/_score_ab.py [REV] [ROUNDS]   (from the repository root; REV default b0522d9)

Captures the real ``Results`` (and the replicate's partnership table as it
stood) of one chunk of ``default`` (0.5 year) and ``national`` (0.25 year)
from an engine run, then times the old tree (``git archive REV``) and the
working tree in separate processes, interleaved, as the minimum process CPU
time of many repeats (``_ab``: the capture and the interleaving).  Prints ns
per player-board, new/old ratios, each kernel's share (the kernels called
from Python; the rest is the Python layer, GIL held), and whether every
array of the two ScoredResults is identical.
"""
import copy
import sys
import time

if __package__:  # imported as benchmarks.<tool> (asv imports every module of benchmarks/ to find benchmarks)
    from . import _ab
else:  # run as a script: its folder is on sys.path
    import _ab

KERNELS = ("_session_entries", "_score_session_pairs", "_assign_team_rows", "_session_matches",
           "_partnership_ids")


def install(caps):
    from simcore import engine
    score = engine.score_chunk

    def score_wrap(played, partnerships, card_play, n_players):
        table = copy.deepcopy(partnerships)
        c = score(played, partnerships, card_play, n_players)
        caps.append(dict(results=played.results, table=table, player_boards=c.player_boards))
        return c

    engine.score_chunk = score_wrap


def timed_side(tree, work, which, name, reps):
    sys.path.insert(0, tree)
    from simcore.scoring import session as mod
    c = _ab.load(work, name)
    results = c["results"]
    # the captured table rebuilt by this tree (the same ids: reinserted in id order), since where a
    # partnership sits in the hash table depends on the tree's hash function
    table = mod.PartnershipTable(len(c["table"]))
    table.ids(c["table"].players)
    scored = mod.score_results(results, partnerships=copy.deepcopy(table))
    # grown beforehand as the run's table is after its first chunks (a table grows a few times a run),
    # so no repeat times a growth
    table._reserve(len(scored.pair_boards))
    tables = [copy.deepcopy(table) for _ in range(2 * reps)]
    _ab.save(work, name, which, scored.arrays())
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
    import tempfile
    work = tempfile.mkdtemp()
    old = _ab.fetch(rev, work)
    _ab.capture(work, install)
    _ab.interleave(__file__, work, lambda which, name, reps: (old if which == "old" else _ab.ROOT, work, which, name, reps),
                   (("default", 200), ("national", 15)), rounds)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--time"]:
        timed_side(*sys.argv[2:6], int(sys.argv[6]))
    else:
        main(*sys.argv[1:3])
