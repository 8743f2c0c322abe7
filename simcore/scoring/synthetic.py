"""Synthetic ``ScoredResults`` of a fixed shape, for benchmarks, smoke tests and the kernel warm-up.

Not a simulation: players, partners and scores are random draws, so no
figure may rest on them.  ``synthetic_pairs`` gives two-winner Mitchell
sessions with regular partnerships and MP %; ``synthetic_mp_sessions``
Mitchell-like sessions with match-pointed travellers.  (The engine's
warm-up grades them in a child process to compile the scheme kernels;
``simcore.bench`` times the schemes on them.)
"""

from __future__ import annotations

import numpy as np

from simcore.results import KIND_MITCHELL, ScoredResults, days_to_months


def synthetic_pairs(n_sessions: int, tables: int = 13, n_players: int = 400, seed: int = 1):
    """A ScoredResults of two-winner Mitchell sessions (``tables`` pairs a direction).

    Players sit with a regular partner most of the time (partnership ids
    dense, in order of first appearance); scores are MP % with ties.  For
    benchmarks and smoke tests only; the scoring stage makes real ones.
    """
    rng = np.random.default_rng(seed)
    per = 2 * tables
    n_e = n_sessions * per
    day = (np.arange(n_sessions) // 4 + 19000).astype(np.int32)
    regular = rng.permutation(n_players).reshape(-1, 2)
    pp = np.empty((n_e, 2), np.int32)
    for s in range(n_sessions):
        seat = regular[rng.choice(len(regular), per, replace=False)].copy()
        swap = rng.random(per) < 0.2  # one in five pairs is a pick-up with a random other player
        for t in np.flatnonzero(swap):
            other = rng.integers(n_players)
            if other not in seat:
                seat[t, 1] = other
        pp[s * per:(s + 1) * per] = np.sort(seat, axis=1)
    ids: dict = {}
    part = np.array([ids.setdefault((a, b), len(ids)) for a, b in pp], np.int32)
    group = np.tile(np.repeat(np.arange(2, dtype=np.int32), tables), n_sessions)
    score = np.round(rng.normal(50, 8, n_e), 1)
    i32 = lambda n: np.zeros(n, np.int32)  # noqa: E731
    return ScoredResults(
        day=day, month=days_to_months(day), club=i32(n_sessions), event=np.zeros(n_sessions, np.int8),
        scoring=np.zeros(n_sessions, np.int8), winners=np.full(n_sessions, 2, np.int8),
        kind=np.full(n_sessions, KIND_MITCHELL, np.int8),
        pair_start=np.arange(0, n_e + 1, per, dtype=np.int64), trav_start=np.zeros(n_sessions + 1, np.int64),
        order=np.arange(n_sessions, dtype=np.int32), pair_players=pp, pair_partnership=part,
        pair_direction=group.astype(np.int8), pair_group=group, pair_team=np.full(n_e, -1, np.int32),
        pair_boards=np.full(n_e, 24, np.int32), pair_score=score,
        pair_beaten=np.zeros(n_e), pair_n_ranked=np.full(n_e, tables - 1, np.int32),
        match_start=np.zeros(n_e + 1, np.int64), match_opp=i32(0), match_mate=i32(0),
        match_opp_mate=i32(0), match_boards=i32(0), match_result=np.zeros(0), match_score=np.zeros(0),
        trav_ns_mp=np.zeros(0), trav_ns_entry=i32(0), trav_ew_entry=i32(0),
        partnership_players=np.array(sorted(ids, key=ids.get), np.int32).reshape(-1, 2),
    )


def synthetic_mp_sessions(n_players=2000, n_sessions=1000, tables=13, rounds=8, boards_per_round=3, seed=1):
    """A ScoredResults of Mitchell-like MP sessions with random players and MP %."""
    rng = np.random.default_rng(seed)
    pairs = 2 * tables
    boards = rounds * boards_per_round
    T = tables * boards
    E = n_sessions * pairs
    players = np.stack([rng.choice(n_players, 2 * pairs, replace=False) for _ in range(n_sessions)])
    pair_players = np.sort(players.reshape(E, 2), axis=1).astype(np.int32)
    r = np.repeat(np.arange(rounds), tables * boards_per_round)
    tab = np.tile(np.arange(tables), boards)
    ns_local = tab
    ew_local = tables + (tab + r) % tables
    base = (np.arange(n_sessions) * pairs)[:, None]
    day = 19000 + np.arange(n_sessions) // 20
    i32 = lambda a: np.asarray(a, np.int32)  # noqa: E731
    z = lambda n, dt=np.int32: np.zeros(n, dt)  # noqa: E731
    return ScoredResults(
        day=i32(day), month=days_to_months(day), club=z(n_sessions), event=z(n_sessions, np.int8),
        scoring=z(n_sessions, np.int8), winners=np.full(n_sessions, 2, np.int8), kind=z(n_sessions, np.int8),
        pair_start=np.arange(n_sessions + 1, dtype=np.int64) * pairs,
        trav_start=np.arange(n_sessions + 1, dtype=np.int64) * T, order=i32(np.arange(n_sessions)),
        pair_players=pair_players, pair_partnership=i32(np.arange(E)), pair_direction=z(E, np.int8),
        pair_group=z(E), pair_team=np.full(E, -1, np.int32), pair_boards=np.full(E, boards, np.int32),
        pair_score=z(E, np.float64), pair_beaten=z(E, np.float64), pair_n_ranked=z(E),
        match_start=z(E + 1, np.int64), match_opp=z(0), match_mate=z(0), match_opp_mate=z(0), match_boards=z(0),
        match_result=z(0, np.float64), match_score=z(0, np.float64),
        trav_ns_mp=rng.integers(0, 25, n_sessions * T) * (100 / 24),
        trav_ns_entry=i32((base + ns_local).ravel()), trav_ew_entry=i32((base + ew_local).ravel()))
