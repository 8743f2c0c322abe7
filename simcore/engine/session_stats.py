"""Per-session statistics the engine records during pass B (``run(..., session_stats=True)``).

``fr18_chunk`` sums FR18's variance terms over a chunk's qualifying sessions
from the grades every variant held *before* grading the chunk — only the
engine sees those, so the sums are taken here and stored in the Dataset as
``fr18_<key>(replicate, scheme, time)``; ``metrics.fr18`` reads them back.
Units: MP %² for the variances, MP % for the par sums.
"""

from __future__ import annotations

import numpy as np

FR18_KEYS = ("sessions", "s_var", "r_var", "g_var", "a_var", "t_var", "e_direct", "par_n", "par_x", "par_y",
             "par_xx", "par_xy")


def fr18_chunk(results, scored, grade_before: np.ndarray, true_pair=None, min_tables: int = 7) -> dict:
    """Sums of FR18's per-session variance terms over the qualifying sessions of a chunk.

    A session qualifies as in FR18: match-pointed, at least ``min_tables``
    tables, every board played the same number of times.  Per group of pairs
    ranked together (each direction of a two-winner session):
      S_var  sample variance of the pairs' session MP %;
      R_var  F · maxvar(n) / b, F the session's mean board flatness (board
             MP % variance / maxvar(n), maxvar(n) = (2500/3)(n+1)/(n−1)), b
             boards played per pair;
      G_var  sample variance of the pairs' grades (mean of the two players'
             grades before the session, ``grade_before``);
      A_var  sample variance of the pairs' scores above par, par = 50 + pair
             grade − mean pair grade of the group;
      T_var  the same with the pairs' true strengths in place of grades
             (``true_pair``, per pair entry), when given;
      E_direct  FR18's E_var measured directly: the sample variance over
             the group's pairs of the pair-grading error, pair grade − true
             pair strength (FR18: "pair playing strength = average grade of
             the two partners + pair-grading-error", taken relative to the
             session, so its mean over the session's pairs is removed), when
             ``true_pair`` is given.
    S_var − R_var − G_var is FR18's shortcut estimate of E_var (0.72 on EBU
    data); it is biased wherever S, R and G are not independent (the grades
    themselves carry error correlated with the pairs' strengths).
    Also sums for regressing score − 50 on par − 50 (calibration of par).
    Returns a dict of sums (divide by ``sessions`` for means).
    """
    out = dict.fromkeys(FR18_KEYS, 0.0)
    sc = scored
    replaced = np.zeros(sc.n_sessions, bool)  # a corrected session counts once, with its true results
    replaced[sc.replaces[sc.replaces >= 0]] = True
    for s in range(sc.n_sessions):
        if sc.scoring[s] != 0 or replaced[s]:
            continue
        t0, t1 = sc.trav_start[s], sc.trav_start[s + 1]
        boards = results.trav_board[t0:t1]
        _, plays = np.unique(boards, return_counts=True)
        n = int(plays[0])
        if n < min_tables or (plays != n).any():
            continue
        mp = sc.trav_ns_mp[t0:t1]
        order = np.argsort(boards, kind="stable")
        per_board = mp[order].reshape(-1, n)
        maxvar = (2500.0 / 3.0) * (n + 1) / (n - 1)
        flat = float((per_board.var(axis=1) / maxvar).mean())
        e0, e1 = sc.pair_start[s], sc.pair_start[s + 1]
        pp = sc.pair_players[e0:e1]
        gpair = 0.5 * (grade_before[pp[:, 0]] + grade_before[pp[:, 1]])
        score = sc.pair_score[e0:e1]
        groups = sc.pair_group[e0:e1]
        terms = []
        for grp in np.unique(groups):
            m = groups == grp
            if m.sum() < 3 or np.isnan(gpair[m]).any():
                continue
            b = float(sc.pair_boards[e0:e1][m].mean())
            par = 50.0 + gpair[m] - gpair[m].mean()
            row = [score[m].var(ddof=1), flat * maxvar / b, gpair[m].var(ddof=1), (score[m] - par).var(ddof=1)]
            row.append((score[m] - (50.0 + true_pair[e0:e1][m] - true_pair[e0:e1][m].mean())).var(ddof=1)
                       if true_pair is not None else np.nan)
            row.append((gpair[m] - true_pair[e0:e1][m]).var(ddof=1) if true_pair is not None else np.nan)
            terms.append(row)
            x, y = par - 50.0, score[m] - 50.0
            out["par_n"] += len(x)
            out["par_x"] += x.sum()
            out["par_y"] += y.sum()
            out["par_xx"] += (x * x).sum()
            out["par_xy"] += (x * y).sum()
        if not terms:
            continue
        mean = np.mean(terms, axis=0)
        out["sessions"] += 1
        for k, v in zip(("s_var", "r_var", "g_var", "a_var", "t_var", "e_direct"), mean):
            out[k] += v
    return out
