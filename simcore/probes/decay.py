"""Scheme probes: synthetic results fed straight to a scheme to measure its dynamics.

A probe player P plays session after session (``boards`` boards each,
``sessions_per_week`` a week) in a one-winner field of ``tables`` tables.
Every session P partners a fresh player and meets fresh opponents, all of
them players already graded at 50 when the scheme started, so nothing but
P's own results moves P's grade.  P's pair scores ``pct`` MP % on every
board of a session (MP %), which ``pct_per_session`` sets session by
session.  From the grade path:

* ``impulse_response`` — one exceptional session (50 + size %) among
  average ones: the grade's excess over 50 after it, its half-life and the
  time it takes to vanish (boards and weeks) — the seeds' claims "halves in
  20 weeks, gone in 40 at two 25-board sessions a week" (NGS FAQ 6) and
  "halves every three months at 416 boards a quarter" (PPI);
* ``step_response`` — P's results step up for good: how fast the grade
  reaches its new level;
* ``stationary_volatility`` — results with the session-to-session noise of
  real bridge (sd 6.34 % at 24 boards, FR18): the sd of P's grade.

Every scheme is probed through its public ``apply``/``grades``, so any
variant (``ngs(decay=exponential, half_life=...)``) can be compared with any
other on exactly the same synthetic results.
"""

from __future__ import annotations

import numpy as np

from simcore.results import KIND_HOWELL, SCORING_MP, ScoredResults, days_to_months
from simcore.schemes import PlayerTable, make_scheme, parse_variant

PROBE = 0  # the probe player's id
EPOCH = 18262  # 2020-01-01


def probe_results(pct_per_session, boards: int = 24, tables: int = 6, sessions_per_week: float = 2.0):
    """ScoredResults of the probe player's sessions, and the PlayerTable.

    Session s: P (player 0) and a fresh partner score ``pct_per_session[s]``
    MP % on each of ``boards`` boards against fresh opponents in a one-winner
    field of ``tables`` tables whose other pairs average the complement.
    """
    pct = np.asarray(pct_per_session, float)
    S = len(pct)
    pairs = 2 * tables
    E = S * pairs
    players = np.empty((E, 2), np.int32)
    nxt = 1
    for e in range(E):
        if e % pairs == 0:
            players[e] = (PROBE, nxt)
            nxt += 1
        else:
            players[e] = (nxt, nxt + 1)
            nxt += 2
    P = nxt
    day = (EPOCH + np.floor(np.arange(S) * 7.0 / sessions_per_week)).astype(np.int32)
    score = np.full(E, 50.0)
    score[::pairs] = pct
    others = (50.0 * pairs - pct) / (pairs - 1)  # the field still averages 50
    for k in range(1, pairs):
        score[k::pairs] = others
    # travellers: only the probe pair's tables matter to board-by-board schemes
    T = S * boards
    trav_ns_entry = np.repeat(np.arange(S) * pairs, boards).astype(np.int32)
    trav_ew_entry = (trav_ns_entry + 1 + np.tile(np.arange(boards) % (pairs - 1), S)).astype(np.int32)
    trav_ns_mp = np.repeat(pct, boards)
    i32 = lambda n, v=0: np.full(n, v, np.int32)  # noqa: E731
    scored = ScoredResults(
        day=day, month=days_to_months(day), club=i32(S), event=np.zeros(S, np.int8),
        scoring=np.full(S, SCORING_MP, np.int8), winners=np.ones(S, np.int8), kind=np.full(S, KIND_HOWELL, np.int8),
        pair_start=np.arange(0, E + 1, pairs, dtype=np.int64), trav_start=np.arange(0, T + 1, boards, dtype=np.int64),
        order=np.arange(S, dtype=np.int32), pair_players=players,
        pair_partnership=np.arange(E, dtype=np.int32), pair_direction=np.full(E, -1, np.int8),
        pair_group=i32(E), pair_team=i32(E, -1), pair_boards=i32(E, boards), pair_score=score,
        pair_beaten=np.zeros(E), pair_n_ranked=i32(E, pairs - 1), match_start=np.zeros(E + 1, np.int64),
        match_opp=i32(0), match_mate=i32(0), match_opp_mate=i32(0), match_boards=i32(0),
        match_result=np.zeros(0), match_score=np.zeros(0), trav_ns_mp=trav_ns_mp,
        trav_ns_entry=trav_ns_entry, trav_ew_entry=trav_ew_entry, partnership_players=players.copy())
    table = PlayerTable(np.ones(P, bool), np.ones(P, bool), np.full(P, np.nan))
    return scored, table


def grade_path(variant: str, pct_per_session, boards: int = 24, tables: int = 6,
               sessions_per_week: float = 2.0) -> np.ndarray:
    """The probe player's grade after each session under ``variant``."""
    name, over = parse_variant(variant)
    scheme = make_scheme(name, over)
    scored, table = probe_results(pct_per_session, boards, tables, sessions_per_week)
    state = scheme.new_state(table, len(scored.partnership_players))
    out = np.full((scored.n_entries, 2), np.nan)
    scheme.apply(state, scored, out)
    first = scored.pair_start[:-1]
    col = np.where(scored.pair_players[first, 0] == PROBE, 0, 1)
    return out[first, col]


def _crossing(x: np.ndarray, level: float) -> float:
    """Fractional index where ``x`` (decreasing from x[0]) first falls to ``level``; inf if never."""
    below = np.flatnonzero(x <= level)
    if not len(below):
        return float("inf")
    i = below[0]
    if i == 0:
        return 0.0
    return (i - 1) + (x[i - 1] - level) / (x[i - 1] - x[i])


def impulse_response(variant: str, size: float = 20.0, boards: int = 25, sessions_per_week: float = 2.0,
                     warmup: int = 300, after: int = 400, tables: int = 6) -> dict:
    """Effect of one exceptional session (50 + size MP %) on the probe's grade.

    The probe first plays ``warmup`` average sessions (so every scheme is in
    its steady state: windows full, m at its regular value), then the
    exceptional one, then ``after`` average ones.  Returns the response
    (grade − 50 after each later session, relative to the jump), the
    half-life and the time until the effect is gone (below 1 % of the jump),
    in sessions, boards and weeks.
    """
    pct = np.full(warmup + 1 + after, 50.0)
    pct[warmup] = 50.0 + size
    g = grade_path(variant, pct, boards, tables, sessions_per_week)
    excess = g[warmup:] - 50.0
    jump = excess[0]
    rel = excess / jump if jump else excess
    half = _crossing(rel, 0.5)
    gone = _crossing(np.abs(rel), 0.01)
    per_week = sessions_per_week
    return {"variant": variant, "jump": float(jump), "response": rel,
            "half_life_sessions": half, "half_life_boards": half * boards, "half_life_weeks": half / per_week,
            "gone_sessions": gone, "gone_boards": gone * boards, "gone_weeks": gone / per_week}


def step_response(variant: str, size: float = 4.0, boards: int = 25, sessions_per_week: float = 2.0,
                  warmup: int = 300, after: int = 600, tables: int = 6) -> dict:
    """The probe's results rise by ``size`` MP % for good: the grade's approach to its new level.

    Returns the path relative to the final level reached (0 before, 1 at the
    new level) and the sessions/boards/weeks to cover half and 90 % of it.
    """
    pct = np.r_[np.full(warmup, 50.0), np.full(after, 50.0 + size)]
    g = grade_path(variant, pct, boards, tables, sessions_per_week)
    path = g[warmup - 1:]
    rel = (path - path[0]) / (path[-1] - path[0])
    half = _crossing(1 - rel, 0.5)
    ninety = _crossing(1 - rel, 0.1)
    return {"variant": variant, "level": float(path[-1] - path[0]), "response": rel,
            "half_sessions": half, "half_boards": half * boards, "half_weeks": half / sessions_per_week,
            "ninety_sessions": ninety, "ninety_boards": ninety * boards,
            "ninety_weeks": ninety / sessions_per_week}


def stationary_volatility(variant: str, boards: int = 24, sessions_per_week: float = 2.0,
                          n_sessions: int = 3000, warmup: int = 300, seed: int = 0, tables: int = 6,
                          session_sd: float | None = None) -> dict:
    """sd of the probe's grade when its results have real bridge's session noise.

    Session MP % ~ N(50, sd) with sd = 6.34·√(24/boards) (FR18, equal pairs)
    unless ``session_sd`` is given; the pair is exactly average, so the sd of
    the grade is pure noise.  Returns sd (grade points) and the sd of the
    change from one session to the next.
    """
    rng = np.random.default_rng(seed)
    sd = session_sd if session_sd is not None else 6.34 * np.sqrt(24.0 / boards)
    pct = 50.0 + sd * rng.standard_normal(warmup + n_sessions)
    g = grade_path(variant, pct, boards, tables, sessions_per_week)[warmup:]
    return {"variant": variant, "sd": float(g.std()), "step_sd": float(np.diff(g).std()),
            "mean": float(g.mean()), "session_sd": sd}
