"""Cost of each scheme per player-session, every scheme on the same results in one process.

``time_schemes(labels)`` grades the same results — half a year of the
``default`` county (seed 1), simulated, written as a bundle and read back,
every movement and scoring of the scenario — with each scheme variant,
after a warm-up call that compiles its kernels, and reports the best of
``repeats`` wall times over the player-sessions in the results (the
same denominator for every scheme; the slow peers ``openskill``,
``trueskill``, ``ttt``, ``whr`` are timed once, their first call).
A whole-history scheme (``offline``, ``ttt``, ``whr``) is timed with one
snapshot (``grades``) at the end, as a run with one snapshot would.

``python -m simcore.bench.schemes [labels]`` prints the table.
"""

from __future__ import annotations

import time

import numpy as np

from simcore.schemes import PlayerTable, make_scheme, parse_variant, split_variants
from simcore.schemes.peers import _Peer

DEFAULT = "ngs(gain=2),ppi,elo-pairs,kalman,offline,openskill,trueskill"


def county_results(years: float = 0.5, seed: int = 1):
    """(Results, ScoredResults) of replicate 0 of the ``default`` county, simulated into a bundle and read back."""
    import tempfile
    from pathlib import Path

    import simcore
    from simcore.engine.replay import read_bundle_folder, score
    with tempfile.TemporaryDirectory() as tmp:
        simcore.run("default", schemes="ppi", years=years, seed=seed, bundle=Path(tmp) / "bundle")
        results = read_bundle_folder(Path(tmp) / "bundle")
    return results, score(results)


def time_schemes(labels: str = DEFAULT, years: float = 0.5, repeats: int = 3) -> dict:
    """{label: ns per player-session} for every variant in ``labels``, on the same county results."""
    results, sc = county_results(years)
    players = PlayerTable.from_results(results)
    graded = 2 * sc.n_entries
    out = {}
    for label in split_variants(labels):
        name, overrides = parse_variant(label)
        scheme = make_scheme(name, overrides)
        best = np.inf
        slow = isinstance(scheme, _Peer)  # the library peers are timed once, their first call
        for k in range(1 + (1 if slow else repeats)):  # the first call compiles / imports
            state = scheme.new_state(players, len(sc.partnership_players) + 1)
            t0 = time.perf_counter()
            scheme.apply(state, sc, None if scheme.optional_out_after else np.empty((sc.n_entries, 2)))
            scheme.grades(state, int(sc.day.max()))
            if k or slow:
                best = min(best, time.perf_counter() - t0)
        out[label] = best * 1e9 / graded
    return out


if __name__ == "__main__":
    import sys
    res = time_schemes(sys.argv[1] if len(sys.argv) > 1 else DEFAULT)
    ref = res.get("openskill")
    for label, ns in res.items():
        ratio = f"  {ref / ns:8.1f}x faster than openskill" if ref else ""
        print(f"{label:<24} {ns:12.1f} ns per player-session{ratio}")
