"""The score task over a national decade, by piece (issue 18).

    python3 benchmarks/_score_decade.py TREE [YEARS]   (TREE: a folder holding a ``simcore`` package)

Runs ``national`` (one replicate, one thread, seed 2026, default schemes) with ``score_chunk``, the
scoring kernels and the partnership table's growths wrapped, and prints each one's thread CPU time, its
calls and ns per player-board (523 M player-boards a decade, scaled by YEARS).  One run: on a loaded
machine compare two trees run in turn, and more than once.
"""
import collections
import sys
import time


def main(tree, years=10.0):
    sys.path.insert(0, tree)
    from simcore import engine
    from simcore.scoring import session

    spent, calls = collections.defaultdict(float), collections.Counter()

    def wrap(module, name):
        f = getattr(module, name)

        def timed(*a, **k):
            t0 = time.thread_time()
            r = f(*a, **k)
            spent[name] += time.thread_time() - t0
            calls[name] += 1
            return r
        setattr(module, name, timed)

    reserve = session.PartnershipTable._reserve

    def timed_reserve(self, extra):
        cap = len(self._slots)
        t0 = time.thread_time()
        reserve(self, extra)
        if len(self._slots) != cap:
            spent["growth"] += time.thread_time() - t0
            calls["growth"] += 1

    session.PartnershipTable._reserve = timed_reserve
    for name in ("_session_entries", "_score_session_pairs", "_partnership_ids", "_session_matches",
                 "_assign_team_rows"):
        if hasattr(session, name):  # (_session_entries: trees before score9)
            wrap(session, name)
    wrap(engine, "score_chunk")
    t0 = time.time()
    engine.Engine("national", None, 1, years, 2026, threads=1).run()
    print(f"{tree}: wall {time.time() - t0:.1f} s")
    player_boards = 523e6 * years / 10
    for name in sorted(spent, key=lambda k: -spent[k]):
        print(f"{name:22s} {spent[name]:7.3f} s {calls[name]:5d} calls {spent[name] / player_boards * 1e9:6.2f} ns/pb")


if __name__ == "__main__":
    main(sys.argv[1], *map(float, sys.argv[2:3]))
