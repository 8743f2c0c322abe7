"""Grading cost per player-session: simcore's schemes beside openskill and trueskill on the same sessions.

Behind ``simcore bench --peers`` (the command, its options and JSON keys:
``simcore.cli.bench``).  ``time_peers`` simulates a quarter of the
``default`` county (seed 1) once, writes it as a results bundle and reads it
back (``bench.schemes.county_results``), then, in the same process:

* each of simcore's schemes (``OURS``) applies the scored results from a
  fresh state, after one warm-up call that compiles its kernels; the best of
  ``repeats`` wall times (``apply`` and one snapshot of grades);
* each peer library (``PEERS``, the optional extra ``simcore[peers]``)
  updates its ratings on the very same sessions, turned beforehand into the
  ranked matches of pairs it takes (``schemes.peers.ranked_groups``, outside
  the timing: the library's own ``rate`` calls are timed, not our
  conversion); the best of as many runs (``repeats``) as ours, so a burst
  of load on a shared machine moves neither side of a ratio alone.

A player-session is one player's result in one session (two per pair
entry).  Ratios are peer ns / scheme ns from the same run, so the
machine's load cancels to first order.
"""

from __future__ import annotations

import time

import numpy as np

from simcore.bench.schemes import county_results
from simcore.schemes import PlayerTable, make_scheme, parse_variant

OURS = ("ngs", "ppi", "elo-pairs", "kalman")
PEERS = ("openskill", "trueskill")
PEERS_WORKLOAD = {"scenario": "default", "years": 0.25, "seed": 1}


def check_peers_installed() -> None:
    """Raise ValueError naming the extra if a peer library is missing (before any work starts)."""
    for name in PEERS:
        make_scheme(name, {})


def time_peers(repeats: int = 3, years: float | None = None) -> dict:
    """{"player_sessions", "sessions", "ns_per_player_session": {label: ns}, "ratio": {peer: {scheme: x}}}.

    years: simulated years of the county (default ``PEERS_WORKLOAD``'s).
    """
    years = PEERS_WORKLOAD["years"] if years is None else years
    from simcore.schemes.peers import ranked_groups
    check_peers_installed()
    results, sc = county_results(years, PEERS_WORKLOAD["seed"])
    players = PlayerTable.from_results(results)
    n_ps = 2 * sc.n_entries
    ns = {}
    for label in OURS:
        scheme = make_scheme(*parse_variant(label))
        best = np.inf
        for k in range(1 + repeats):  # the first call compiles or loads the kernels
            state = scheme.new_state(players, len(sc.partnership_players) + 1)
            out = None if scheme.optional_out_after else np.empty((sc.n_entries, 2))
            t0 = time.perf_counter()
            scheme.apply(state, scheme.for_grading(sc), out)
            scheme.grades(state, int(sc.day.max()))
            if k:
                best = min(best, time.perf_counter() - t0)
        ns[label] = best * 1e9 / n_ps
    groups = [g[:3] for g in ranked_groups(sc)]
    peer_ps = sum(2 * len(g[1]) for g in groups)
    for label in PEERS:
        scheme = make_scheme(label, {})
        best = np.inf
        for _ in range(repeats):  # the best of as many runs as ours: the ratios compare like with like
            state = scheme.new_state(players, 0)
            t0 = time.perf_counter()
            scheme._rate(state, groups)
            scheme.grades(state, int(sc.day.max()))
            best = min(best, time.perf_counter() - t0)
        ns[label] = best * 1e9 / peer_ps
    ratio = {p: {s: ns[p] / ns[s] for s in OURS} for p in PEERS}
    return {"player_sessions": int(n_ps), "peer_player_sessions": int(peer_ps), "sessions": int(sc.n_sessions),
            "ns_per_player_session": ns, "ratio": ratio, "workload": {**PEERS_WORKLOAD, "years": years}}
