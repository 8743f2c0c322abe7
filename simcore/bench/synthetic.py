"""Scheme kernels' throughput on synthetic sessions (timings only; no claim rests on them).

(``simcore.bench.schemes`` times every scheme on the same simulated county
results; this module times the NGS, PPI and Elo kernels on synthetic
sessions of a fixed shape, with their rings or ratings in cache.)

  python -m simcore.bench.synthetic [ngs|ppi|elo-pairs ...]

* ``ngs_bench`` — NGS ``apply`` per player-session on 13-table two-winner
  sessions (24 boards), line / exponential / trapezium decay;
* ``ppi_bench`` — PPI ``apply`` per player-board, fresh and established players;
* ``elo_bench`` — Elo pairs ``apply`` per pair-session (monthly and running)
  and the individual fit.

The sessions are ``simcore.scoring.synthetic``'s.  Figures are best-of-N on one
core of whatever machine runs them.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from simcore.schemes import PlayerTable
from simcore.schemes.elo_pairs import UPDATES, EloPairsScheme
from simcore.schemes.elo_pairs import Params as EloParams
from simcore.schemes.elo_pairs import _validate as elo_validate
from simcore.schemes.ngs import NGSScheme
from simcore.schemes.ngs import Params as NGSParams
from simcore.schemes.ppi import PPIScheme
from simcore.scoring.synthetic import synthetic_mp_sessions, synthetic_pairs

# --- timings -------------------------------------------------------------------------

def _best(fn, repeats):
    best = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def ngs_bench(n_sessions: int = 20000, repeats: int = 3) -> None:
    """Print NGS cost per player-session on 13-table two-winner sessions (24 boards)."""
    sc = synthetic_pairs(n_sessions, tables=13, n_players=400)
    P = int(sc.pair_players.max()) + 1
    players = PlayerTable(np.ones(P, bool), np.ones(P, bool), np.full(P, np.nan))
    for label, params in (("line (window 2000)", NGSParams()), ("exponential", NGSParams(decay="exponential")),
                          ("trapezium (flat 1000)", NGSParams(decay="trapezium", flat=1000.0))):
        scheme = NGSScheme(params)
        best = np.inf
        for _ in range(repeats):
            state = scheme.new_state(players, len(sc.partnership_players))
            scheme.apply(state, sc, np.empty((sc.n_entries, 2)))  # compile, warm the rings
            state = scheme.new_state(players, len(sc.partnership_players))
            t = time.perf_counter()
            scheme.apply(state, sc, np.empty((sc.n_entries, 2)))
            best = min(best, time.perf_counter() - t)
        ps = 2 * sc.n_entries
        print(f"{label:<34} {best * 1e9 / ps:7.1f} ns per player-session  "
              f"({best * 1e9 / (ps * 24):5.2f} ns per player-board at 24 boards)")


def ppi_ns_per_player_board(established: bool, repeats: int = 7) -> float:
    """Best ns per player-board of ``PPIScheme.apply`` on ``synthetic_mp_sessions()``:
    fresh players (k from 0, so m = k for most boards) or established ones
    (k primed to 1000, w to 400, so m = 600 until the first month change)."""
    scored = synthetic_mp_sessions()
    P = 2000
    scheme = PPIScheme()
    players = PlayerTable(np.ones(P, bool), np.ones(P, bool), np.full(P, np.nan))
    out = np.empty((len(scored.pair_players), 2))
    scheme.apply(scheme.new_state(players), scored, out)  # compile / load
    best = np.inf
    for _ in range(repeats):
        state = scheme.new_state(players)
        if established:
            state.k[:] = 1000
            state.w[:] = 400
        t0 = time.perf_counter()
        scheme.apply(state, scored, out)
        best = min(best, time.perf_counter() - t0)
    return best * 1e9 / (4 * len(scored.trav_ns_mp))


def ppi_bench() -> None:
    """Print PPI cost per player-board, fresh and established players."""
    print("PPI apply, validation included; 1000 MP sessions x 13 tables x 24 boards over 50 days, "
          "2000 players, one core, best of 7:")
    for established in (False, True):
        label = "established players" if established else "fresh players      "
        print(f"  {label}: {ppi_ns_per_player_board(established):.2f} ns per player-board")


def elo_bench(n_sessions: int = 20000, repeats: int = 5) -> None:
    """Print ns per pair-session of ``apply`` (best of ``repeats``) and the fit time."""
    scored = synthetic_pairs(n_sessions)
    n_players = 400
    players = PlayerTable(np.ones(n_players, bool), np.ones(n_players, bool), np.full(n_players, np.nan))
    n_part = int(scored.pair_partnership.max()) + 1
    out = np.empty((scored.n_entries, 2))
    per = 1e9 / scored.n_entries
    print(f"Elo pairs: {n_sessions} two-winner Mitchell sessions of 13 tables (13-pair fields), "
          f"{scored.n_entries} pair-sessions, {n_part} partnerships, {n_players} players")
    for update in UPDATES:
        scheme = EloPairsScheme(EloParams(update=update))
        scheme.apply(scheme.new_state(players, n_part), synthetic_pairs(2), np.empty((52, 2)))  # compile
        total = _best(lambda: scheme.apply(scheme.new_state(players, n_part), scored, out), repeats)
        check = _best(lambda: elo_validate(scheme.new_state(players, n_part), scored, out), repeats)
        print(f"  apply, update={update:8s}: {per * total:6.1f} ns per pair-session "
              f"({per * check:.1f} of them input validation; "
              f"{per * total / 48:.2f} ns per player-board at 24 boards)")
    scheme = EloPairsScheme(EloParams(established_sessions=5))
    state = scheme.new_state(players, n_part)
    scheme.apply(state, scored, out)
    day = int(scored.day[-1])
    scheme.grades(state, day)  # compile

    def cold():
        state.indiv[:] = np.nan
        return scheme.grades(state, day)

    t_cold = _best(cold, repeats)
    t_warm = _best(lambda: scheme.grades(state, day), repeats)
    print(f"  grades (individual fit of {np.isfinite(cold()).sum()} players): {1e3 * t_cold:.2f} ms from "
          f"the pair means, {1e3 * t_warm:.2f} ms warm-started")


# keyed by the registry names (python -m simcore.bench.synthetic ngs ppi elo-pairs)
BENCHES = {NGSScheme().name: ngs_bench, PPIScheme().name: ppi_bench, EloPairsScheme().name: elo_bench}


def main(argv=None) -> int:
    which = list(argv if argv is not None else sys.argv[1:]) or list(BENCHES)
    for name in which:
        if name not in BENCHES:
            print(f"python -m simcore.bench.synthetic: unknown bench {name!r}; choose from {', '.join(BENCHES)}",
                  file=sys.stderr)
            return 2
    for name in which:
        BENCHES[name]()
    return 0


if __name__ == "__main__":
    sys.exit(main())
