"""Reference offline scheme: the whole-history model written out densely and solved by numpy.

Unknowns θ[p, k] for each (player, period) with results; rows exactly as
the model reads (simcore.schemes.offline): a pair's standardised score =
mean of its strengths − mean strength of its field (SOpp's field, written
out player by player — no intercepts), random-walk links between a
player's consecutive periods, a prior on his first.  With
``p.partner_sd > 0`` each partnership is one more entity ("q", id) whose
effect adds to its pairs' strength (its own walk and prior, mean 0).
With ``p.level_sd > 0`` a player starts relative to the level of the
venue (club) of his first result, one more unknown ("c", club) with prior
N(0, level_sd²) and no walk.
"""

import math

import numpy as np

from .kalman import field_mean, standard_score  # noqa: F401  (same conversions and field as kalman's twin)

__all__ = ["naive_offline"]

ONLINE, SWISS_KINDS = 5, (2, 4)


def naive_offline(p, sc, start):
    """Posterior means {player: θ in his latest period} from one ScoredResults (processed in order)."""
    weights = [p.weight_club, p.weight_black, p.weight_green]
    var = {}
    rows = []  # (coefficients {unknown: c}, y, weight)
    latest = {}
    for s in sc.order:
        s = int(s)
        if sc.kind[s] == ONLINE:
            continue
        per = int(sc.day[s]) // p.period_days
        e0, e1 = int(sc.pair_start[s]), int(sc.pair_start[s + 1])
        entries = [e for e in range(e0, e1) if sc.pair_n_ranked[e] >= 1 and
                   (sc.kind[s] not in SWISS_KINDS or sc.match_start[e + 1] > sc.match_start[e])]
        def members(e):  # (entity, its share of the pair's strength)
            out = [(int(pl), 0.5) for pl in sc.pair_players[e]]
            if p.partner_sd > 0:
                out.append((("q", int(sc.pair_partnership[e])), 1.0))
            return out

        for e in entries:
            for pl, _ in members(e):
                is_q = isinstance(pl, tuple)
                k = max(per, latest.get(pl, per))
                if (pl, k) not in var:
                    var[(pl, k)] = len(var)
                    if pl in latest:
                        drift = p.partner_drift if is_q else p.drift
                        gap = (k - latest[pl]) * p.period_days / 365.25 * drift
                        rows.append(({var[(pl, k)]: 1.0, var[(pl, latest[pl])]: -1.0}, 0.0, 1 / gap))
                    elif is_q:
                        rows.append(({var[(pl, k)]: 1.0}, 0.0, 1 / p.partner_sd ** 2))
                    elif p.level_sd > 0 and sc.club[s] >= 0:
                        # his strength starts relative to the level of the venue of his first result
                        lev = ("c", int(sc.club[s]))
                        if lev not in var:
                            var[lev] = len(var)
                            rows.append(({var[lev]: 1.0}, 0.0, 1 / p.level_sd ** 2))
                        rows.append(({var[(pl, k)]: 1.0, var[lev]: -1.0}, start[pl], 1 / p.prior_sd ** 2))
                    else:
                        rows.append(({var[(pl, k)]: 1.0}, start[pl], 1 / p.prior_sd ** 2))
                latest[pl] = k

        def unknown(pl):
            return var[(pl, latest[pl])]
        for e in entries:
            c = {}
            for pl, share in members(e):
                c[unknown(pl)] = c.get(unknown(pl), 0) + share
            if sc.kind[s] in SWISS_KINDS:
                opps = sc.match_opp[sc.match_start[e]:sc.match_start[e + 1]]
                for o in opps:
                    for pl, share in members(o):
                        c[unknown(pl)] = c.get(unknown(pl), 0) - share / len(opps)
            else:
                field = [f for f in entries if f != e and sc.pair_group[f] == sc.pair_group[e]]
                for f in field:
                    for pl, share in members(f):
                        c[unknown(pl)] = c.get(unknown(pl), 0) - share / len(field)
            n = int(sc.pair_n_ranked[e])
            x = max(int(sc.pair_boards[e]), 1)
            y = standard_score(sc.scoring[s], float(sc.pair_score[e]), x, p)
            rows.append((c, y, 1 / (p.board_sd ** 2 / x * (1 + 1 / n) / weights[sc.event[s]])))
    A = np.zeros((len(rows), len(var)))
    y = np.zeros(len(rows))
    w = np.zeros(len(rows))
    for i, (c, yi, wi) in enumerate(rows):
        for j, v in c.items():
            A[i, j] += v
        y[i], w[i] = yi, wi
    theta = np.linalg.solve(A.T @ (w[:, None] * A), A.T @ (w * y))
    return {pl: float(theta[var[(pl, k)]]) for pl, k in latest.items() if not isinstance(pl, tuple)}, math.nan
