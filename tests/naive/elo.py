"""Reference Elo pair ratings (simcore.schemes.elo_pairs), plain Python.

Readable against SPEC §1.3 and seed 004; dicts keyed by partnership id, one
session at a time, nothing kept incrementally (the initial rating of a new
pair scans every known partnership).
"""

import math

__all__ = ["elo_expected", "NaiveElo", "naive_fit_individual", "naive_gauss_seidel", "naive_established"]

KIND_SWISS_PAIRS, KIND_MULTIPLE_TEAMS, KIND_SWISS_TEAMS = 2, 3, 4


def elo_expected(r1, r2):
    """E = 1 / (1 + 10^((r2 − r1)/400))."""
    return 1.0 / (1.0 + 10.0 ** ((r2 - r1) / 400.0))


class NaiveElo:
    """One Elo pairs rating run; ``run(scored)`` may be called chunk after chunk.

    ``params`` is an ``elo_pairs.Params``; ``seed`` the per-player seed
    ratings (Elo points).
    """

    def __init__(self, params, seed):
        self.p = params
        self.seed = list(seed)
        self.rating = {}          # published rating of each partnership
        self.pending = {}         # this month's adjustments, not yet published
        self.sessions = {}        # rated sessions, published
        self.month_sessions = {}  # rated sessions, not yet published
        self.last_day = {}
        self.players = {}
        self.month = None

    # --- rules ---------------------------------------------------------------
    def established(self, pid):
        return self.sessions[pid] >= self.p.established_sessions

    def k_of(self, pid):
        if not self.established(pid):
            return self.p.k_provisional
        return self.p.k_top if self.rating[pid] >= self.p.top_rating else self.p.k

    def initial_rating(self, a, b):
        around = [self.rating[q] for q, pl in self.players.items() if a in pl or b in pl]
        if around:
            return sum(around) / len(around)
        return (self.seed[a] + self.seed[b]) / 2

    def publish(self):
        for pid in self.rating:
            self.rating[pid] += self.pending[pid]
            self.pending[pid] = 0.0
            self.sessions[pid] += self.month_sessions[pid]
            self.month_sessions[pid] = 0

    def weight(self, me_established, opp_established):
        """Weight of one opponent (pair or team) in my update; 0 = not used."""
        if me_established:
            return 1.0 if opp_established else 0.0
        return self.p.ref_weight if opp_established else 1.0

    def update(self, k, terms):
        """Δr from (weight, actual, expected) terms: K·√n·Σw(a−E)/Σw, n = terms used."""
        terms = [t for t in terms if t[0] > 0]
        if not terms:
            return None
        n = len(terms)
        sw = sum(w for w, _, _ in terms)
        return k * math.sqrt(n) * sum(w * (a - e) for w, a, e in terms) / sw

    # --- a chunk -------------------------------------------------------------
    def run(self, scored):
        """Rate ``scored``; returns out_after as a list of [g, g] (grade units or NaN)."""
        p = self.p
        out = [[math.nan, math.nan] for _ in range(len(scored.pair_partnership))]
        for s in scored.order:
            s = int(s)
            if p.update == "monthly" and self.month is not None and int(scored.month[s]) != self.month:
                self.publish()
            self.month = int(scored.month[s])
            day = int(scored.day[s])
            entries = list(range(int(scored.pair_start[s]), int(scored.pair_start[s + 1])))
            pid_of = {e: int(scored.pair_partnership[e]) for e in entries}
            for e in entries:
                pid = pid_of[e]
                a, b = int(scored.pair_players[e][0]), int(scored.pair_players[e][1])
                if pid not in self.rating:
                    self.rating[pid] = self.initial_rating(a, b)
                    self.players[pid] = (a, b)
                    self.pending[pid] = 0.0
                    self.sessions[pid] = 0
                    self.month_sessions[pid] = 0
                elif day - self.last_day[pid] > p.stale_years * 365.25:
                    self.sessions[pid] = 0          # stale: provisional again
                    self.month_sessions[pid] = 0
                self.last_day[pid] = day
            kind = int(scored.kind[s])
            deltas = {}
            for e in entries:
                pid = pid_of[e]
                me_est = self.established(pid)
                rows = range(int(scored.match_start[e]), int(scored.match_start[e + 1]))
                terms = []
                if kind == KIND_SWISS_PAIRS:
                    for m in rows:
                        opp = int(scored.pair_partnership[scored.match_opp[m]])
                        w = self.weight(me_est, self.established(opp))
                        terms.append((w, float(scored.match_result[m]),
                                      elo_expected(self.rating[pid], self.rating[opp])))
                elif kind in (KIND_MULTIPLE_TEAMS, KIND_SWISS_TEAMS):
                    if not rows:
                        continue
                    mate = int(scored.pair_partnership[scored.match_mate[rows[0]]])
                    if me_est and not self.established(mate):
                        continue  # any provisional pair on the team: no established points change
                    team_est = me_est and self.established(mate)
                    mine = (self.rating[pid] + self.rating[mate]) / math.sqrt(2)
                    for m in rows:
                        o1 = int(scored.pair_partnership[scored.match_opp[m]])
                        o2 = int(scored.pair_partnership[scored.match_opp_mate[m]])
                        theirs = (self.rating[o1] + self.rating[o2]) / math.sqrt(2)
                        w = self.weight(team_est, self.established(o1) and self.established(o2))
                        terms.append((w, float(scored.match_result[m]), elo_expected(mine, theirs)))
                else:
                    for o in entries:
                        if o == e or scored.pair_group[o] != scored.pair_group[e]:
                            continue
                        opp = pid_of[o]
                        se, so = scored.pair_score[e], scored.pair_score[o]
                        actual = 1.0 if se > so else 0.5 if se == so else 0.0
                        w = self.weight(me_est, self.established(opp))
                        terms.append((w, actual, elo_expected(self.rating[pid], self.rating[opp])))
                d = self.update(self.k_of(pid), terms)
                if d is not None:
                    deltas[e] = d
            for e, d in deltas.items():
                pid = pid_of[e]
                self.pending[pid] += d
                self.month_sessions[pid] += 1
                g = 50 + (self.rating[pid] + self.pending[pid] - p.seed_rating) / p.elo_per_grade
                out[e] = [g, g]
            if p.update == "running":
                self.publish()
        return out


def naive_fit_individual(pair_a, pair_b, r, w, n_players, ridge, lower):
    """The individual-rating fit as one bounded linear least-squares problem.

    Rows √w_k·((x_a + x_b)/2 − r_k) for the pairs and √(ridge·W_i)·(x_i − m_i)
    for each player with pairs (W_i = Σ w of his pairs, m_i their w-mean
    rating); x ≥ lower.  Solved by scipy.optimize.lsq_linear (BVLS).
    Players without pairs get NaN.
    """
    import numpy as np
    from scipy.optimize import lsq_linear

    W = [0.0] * n_players
    WR = [0.0] * n_players
    for a, b, rk, wk in zip(pair_a, pair_b, r, w):
        for i in (a, b):
            W[i] += wk
            WR[i] += wk * rk
    cols = [i for i in range(n_players) if W[i] > 0]
    col = {i: c for c, i in enumerate(cols)}
    rows, rhs = [], []
    for a, b, rk, wk in zip(pair_a, pair_b, r, w):
        row = [0.0] * len(cols)
        row[col[a]] += 0.5 * math.sqrt(wk)
        row[col[b]] += 0.5 * math.sqrt(wk)
        rows.append(row)
        rhs.append(math.sqrt(wk) * rk)
    for i in cols:
        row = [0.0] * len(cols)
        row[col[i]] = math.sqrt(ridge * W[i])
        rows.append(row)
        rhs.append(math.sqrt(ridge * W[i]) * WR[i] / W[i])
    x = [math.nan] * n_players
    if cols:
        sol = lsq_linear(np.array(rows), np.array(rhs), bounds=(lower, np.inf), method="bvls", tol=1e-14)
        for i, xi in zip(cols, sol.x):
            x[i] = float(xi)
    return x


def naive_gauss_seidel(pair_a, pair_b, r, w, n_players, ridge, lower, tol, max_iter, x0=None):
    """The fit as the scheme iterates it (elo_pairs._fit_kernel), plain Python.

    Projected Gauss–Seidel: players in ascending id, each summing over his
    pairs in the order (pairs where he is first, then second, each ascending),
    with the per-player sums W_i and w-weighted mean ratings m_i accumulated
    over the pair ends in that same order.  Start: ``x0`` where finite, else
    max(m_i, lower).  Returns (x, sweeps); NaN for players with no pair.
    """
    incident = [[] for _ in range(n_players)]
    W = [0.0] * n_players
    WR = [0.0] * n_players
    for side in (pair_a, pair_b):
        for k, i in enumerate(side):
            incident[i].append(k)
            W[i] += w[k]
            WR[i] += w[k] * r[k]
    x = [math.nan] * n_players
    for i in range(n_players):
        if incident[i]:
            start = math.nan if x0 is None else float(x0[i])
            x[i] = start if math.isfinite(start) else (WR[i] / W[i] if WR[i] / W[i] >= lower else lower)
    sweeps = 0
    for it in range(max_iter):
        sweeps = it + 1
        biggest = 0.0
        for i in range(n_players):
            if not incident[i]:
                continue
            num = 0.0
            wi = 0.0
            for k in incident[i]:
                j = pair_b[k] if pair_a[k] == i else pair_a[k]
                num += w[k] * (r[k] - 0.5 * x[j])
                wi += w[k]
            num += 2.0 * ridge * wi * (WR[i] / W[i])
            xi = max(num / (0.5 * wi + 2.0 * ridge * wi), lower)
            biggest = max(biggest, abs(xi - x[i]))
            x[i] = xi
        if biggest <= tol:
            break
    return x, sweeps


def naive_established(rating, pending, sessions, month_sessions, last_day, day, later, established_sessions,
                      stale_days, never):
    """Partnerships established on ``day`` (ids ascending) with their ratings and sessions as
    published on that day: the month's pending adjustments and sessions count when ``later``."""
    out = []
    for p in range(len(rating)):
        n = sessions[p] + (month_sessions[p] if later else 0)
        if last_day[p] != never and n >= established_sessions and day - last_day[p] <= stale_days:
            out.append((p, rating[p] + pending[p] if later else rating[p], n))
    return out
