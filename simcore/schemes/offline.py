"""``offline``: whole-history least squares, the accuracy ceiling for schemes on the same results (issue 17).

Model (grade points).  Time is cut into periods of ``period_days``; each
player has one strength θ_{p,k} for every period k in which he played.
Strengths follow a random walk: between a player's consecutive periods k < k'

    θ_{p,k'} − θ_{p,k} ~ N(0, drift · (k' − k) · period_days / 365.25)

and his first strength has the prior N(m₀, prior_sd²), m₀ being NGS's rule
(50 for players already playing when the scheme started, 42 for newcomers,
or an explicit initial grade).  Each pair entry e of a graded session gives
one observation, its standardised score in grade units through NGS's
conversions (``field.standard_score``):

    s_e = (θ_a + θ_b)/2 − field_e + ε_e,   ε_e ~ N(0, R_e),
    R_e = board_sd² / x · (1 + 1/n) / event weight,

the same noise as ``kalman`` (x boards played, n pairs ranked against).
The field is SOpp's (``field.strength_of_opponents``): for Swiss events
the mean of the match opponents' strengths, which enters the row as is;
for every other movement the mean of the other pairs of the group,
(G − θ̄_e)/(n − 1) with G the group's sum, so the row reads
n/(n−1)·θ̄_e − c_g with one free intercept c_g = G/(n−1) per group and
session (exact up to the sum of a group's scores, which carries no
information on strength).  The online room is not graded, like NGS.

Solution: the posterior mean — weighted sparse least squares over every
row so far, the normal equations solved by conjugate gradients
(``scipy.sparse.linalg.cg``, Jacobi preconditioner, warm-started from the
previous snapshot's solution, relative residual ``rtol``).  At a snapshot
each player's grade is his strength in his latest period: the estimate of
his current strength from all results up to the snapshot (a random walk's
mean does not move forward in time).  ``smooth=true``: the retrospective
ceiling — after the run every snapshot is re-read from the final solution
(each player's strength in his latest period up to the snapshot), so it
also uses later results.
Grades are published for members only.  A session that corrects another
is added as new results (the replaced rows stay); a late-scored session
joins the player's latest period.

Cost: rows and unknowns grow linearly with player-sessions (one row an
entry, 3 non-zeros; Swiss 2 + 2·matches) and player-periods; each snapshot
costs O(iterations × non-zeros so far), so a run of T snapshots costs
O(T × iterations × player-sessions) — quadratic in the length of the run,
against the engine's linear cost.

Corrected sessions: offline re-solves from all the results it holds, so a corrected
session's original is dropped and the correction (``ScoredResults.replaces``) used in
its place (``corrections = "last"``): no session is counted twice.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from simcore.results import KIND_ONLINE, MATCH_KINDS
from simcore.schemes import PlayerTable, SchemeBase
from simcore.schemes.field import standard_scores
from simcore.schemes.ngs import Params as _NGSParams

_NGS = _NGSParams()


def _p(default, help, **meta):  # noqa: A002
    return field(default=default, metadata={"help": help, **meta})


@dataclass(frozen=True)
class Params:
    """offline parameters (grade points, days).

    ``board_sd`` tuned on ``default``, seed 1, 2 years, by RMSE at the last
    snapshot: 14 (kalman's value) 2.299, 20 2.262, 26 2.315, 32 2.419;
    ``drift`` is kalman's tuned value.
    """

    drift: float = _p(1.0, "variance a player's strength gains a year (grade points²)", min=1e-9)
    board_sd: float = _p(20.0, "sd of one board's result in grade units", min=1e-6)
    prior_sd: float = _p(5.0, "sd of a player's first strength (grade points)", min=1e-6)
    prior_mean: float = _p(_NGS.start_grade, "first strength of players already playing at the start")
    newcomer_mean: float = _p(_NGS.initial_grade, "first strength of newcomers")
    period_days: int = _p(28, "days a period: one strength a player a period", min=1)
    weight_club: float = _p(1.0, "event weight of club sessions (divides the noise variance)", min=1e-9)
    weight_black: float = _p(1.0, "event weight of black-pointed events", min=1e-9)
    weight_green: float = _p(2.0, "event weight of green-pointed events", min=1e-9)
    butler_factor: float = _p(_NGS.butler_factor, "MP % per Butler IMP per board (as NGS)", min=0.0)
    cross_imp_factor: float = _p(_NGS.cross_imp_factor, "MP % per cross-IMP per board (as NGS)", min=0.0)
    aggregate_factor: float = _p(_NGS.aggregate_factor, "aggregate points per MP % per board (as NGS)", min=1e-9)
    rtol: float = _p(1e-7, "conjugate gradients: relative residual of the normal equations", min=1e-14, max=1e-2)
    smooth: bool = _p(False, "re-read every snapshot from the final solution (uses later results)")

    def weights(self) -> np.ndarray:
        return np.array([self.weight_club, self.weight_black, self.weight_green], np.float64)


@dataclass
class OfflineState:
    """Rows so far (CSR blocks, one an ``apply``), unknowns, and each player's latest unknown.

    Unknowns are player-periods and group intercepts, numbered as they
    appear.  ``var_player``/``var_period`` (−1 for intercepts) say what
    each is; ``last_var``/``last_period`` (P) a player's latest one (−1 none).
    """

    start: np.ndarray
    member: np.ndarray
    last_var: np.ndarray
    last_period: np.ndarray
    n_vars: int = 0
    var_player: list = field(default_factory=list)
    var_period: list = field(default_factory=list)
    blocks: list = field(default_factory=list)   # (indptr, indices, data, y, w) per apply
    links: list = field(default_factory=list)    # (later unknown, earlier unknown, walk weight) per apply
    x: np.ndarray = field(default_factory=lambda: np.zeros(0))
    solved_rows: int = -1
    n_rows: int = 0
    iterations: int = 0
    solves: int = 0
    log: list = field(default_factory=list)  # per solve: unknowns, non-zeros, CG iterations, seconds

    @property
    def n_players(self) -> int:
        return len(self.start)


class OfflineScheme(SchemeBase):
    """The offline whole-history scheme (``Scheme`` protocol)."""
    corrections = "last"

    default_variants = ()  # a study scheme (a whole-history fit): run it by name
    optional_out_after = True  # the engine passes out_after=None unless it traces: no solve per chunk

    def __init__(self, params: Params | None = None):
        self.params = params or Params()

    def new_state(self, players: PlayerTable, n_partnerships: int = 0) -> OfflineState:
        p = self.params
        explicit = np.asarray(players.initial_grade, np.float64)
        rule = np.where(np.asarray(players.at_start, bool), p.prior_mean, p.newcomer_mean)
        P = players.n_players
        return OfflineState(start=np.where(np.isnan(explicit), rule, explicit),
                            member=np.asarray(players.member, bool).copy(),
                            last_var=np.full(P, -1, np.int64), last_period=np.full(P, -1, np.int64))

    def grow(self, state: OfflineState, n_partnerships: int) -> OfflineState:
        return state

    # -- rows -------------------------------------------------------------------------
    def apply(self, state: OfflineState, scored, out_after: np.ndarray) -> None:
        """Add the rows of ``scored``'s sessions.

        ``out_after`` (optional): each player's strength in the period of the
        session (grade points) from every result so far — including this
        call's later sessions, since the whole history is solved at once;
        NaN for sessions not graded (the online room).
        """
        sc = scored
        E = sc.n_entries
        if out_after is not None:
            if out_after.shape != (E, 2):
                raise ValueError(f"offline: out_after has shape {out_after.shape}, expected ({E}, 2)")
            out_after[:] = np.nan
        if E == 0:
            return
        P = state.n_players
        if not (0 <= sc.pair_players.min() and sc.pair_players.max() < P):
            bad = int(np.flatnonzero(((sc.pair_players < 0) | (sc.pair_players >= P)).any(1))[0])
            raise ValueError(f"offline: pair_players row {bad} is {sc.pair_players[bad].tolist()}; "
                             f"player ids must be in 0..{P - 1}")
        p = self.params
        kept = _kept_entries(sc)
        if len(kept.ent) == 0:
            return
        u = _unknowns(state, sc, kept, p.period_days)
        rows_c, rows_v, rows_y, rows_w = _walk_and_prior_rows(state, u, p)
        n_vars = state.n_vars + len(u.new_idx)
        y, w_obs = _observations(sc, kept, p)
        # intercepts: one per (session, group) among plain entries
        ent, is_match, sess = kept.ent, kept.is_match, kept.sess
        plain = ent[~is_match[ent]]
        key = sess[plain] * 1_000_003 + np.asarray(sc.pair_group, np.int64)[plain]
        ukey, inv = np.unique(key, return_inverse=True)
        c_var = n_vars + inv
        n_vars += len(ukey)
        f = kept.n_ranked[plain] + 1.0
        coef = 0.5 * f / (f - 1.0)
        rows_c.append(np.stack([u.entry_var[plain, 0], u.entry_var[plain, 1], c_var], 1))
        rows_v.append(np.stack([coef, coef, -np.ones(len(plain))], 1))
        mask_plain = ~is_match[ent]
        rows_y.append(y[mask_plain])
        rows_w.append(w_obs[mask_plain])
        swiss = ent[is_match[ent]]
        blocks_extra = []
        if len(swiss):
            blocks_extra.append(_match_block(sc, swiss, u.entry_var, y[~mask_plain], w_obs[~mask_plain]))
        n_rows = _append_three_column_rows(state, rows_c, rows_v, rows_y, rows_w)
        state.blocks.extend(blocks_extra)
        state.n_rows += n_rows + len(swiss)
        _book_unknowns(state, u, n_vars, len(ukey))
        if out_after is not None:
            self._solve(state)
            got = u.entry_var >= 0
            out_after[got] = state.x[u.entry_var[got]]

    # -- the solve --------------------------------------------------------------------
    def _solve(self, state: OfflineState) -> None:
        if state.solved_rows == state.n_rows:
            return
        t0 = time.perf_counter()
        N = state.n_vars
        mats, ys, ws = [], [], []
        for indptr, indices, data, y, w in state.blocks:
            mats.append(sp.csr_matrix((data, indices, indptr), shape=(len(indptr) - 1, N)))
            ys.append(y)
            ws.append(w)
        A = sp.vstack(mats, format="csr")
        y, w = np.concatenate(ys), np.concatenate(ws)
        At = A.T.tocsr()
        diag = np.asarray(A.multiply(A).T @ w).ravel()

        def normal(v):
            return At @ (w * (A @ v))

        pre = _chain_preconditioner(state, diag)
        b = At @ (w * y)
        sol, iterations = pcg(normal, pre, b, state.x, self.params.rtol, max_iter=20000)
        if iterations < 0:
            raise RuntimeError(f"offline: conjugate gradients did not reach rtol={self.params.rtol} "
                               f"in 20000 iterations ({N} unknowns)")
        state.x = sol
        state.iterations += iterations
        state.log.append((N, A.nnz, iterations, time.perf_counter() - t0))
        state.solves += 1
        state.solved_rows = state.n_rows

    def grades(self, state: OfflineState, day: int) -> np.ndarray:
        """Each member's strength in his latest period (grade points), from all results so far; NaN if unseen."""
        self._solve(state)
        seen = state.last_var >= 0
        out = np.full(state.n_players, np.nan)
        out[seen] = state.x[state.last_var[seen]]
        out[~state.member] = np.nan
        return out

    def revise(self, state: OfflineState, days) -> np.ndarray | None:
        """``smooth=true``: grades (T, P) on ``days`` from the final solution; None otherwise.

        A player's strength on a day is that of his latest period up to that
        day's period (as ``grades`` reads it), now estimated from every result;
        NaN before his first period.
        """
        if not self.params.smooth:
            return None
        self._solve(state)
        days = np.asarray(days, np.int64)
        out = np.full((len(days), state.n_players), np.nan)
        if not state.var_player:
            return out
        vp = np.concatenate(state.var_player)
        vk = np.concatenate(state.var_period)
        idx = np.flatnonzero(vp >= 0)
        order = idx[np.lexsort((vk[idx], vp[idx]))]
        players, periods, values = vp[order], vk[order], state.x[order]
        starts = np.searchsorted(players, np.arange(state.n_players + 1))
        day_period = days // self.params.period_days
        for p in np.flatnonzero(state.member & (state.last_var >= 0)):
            lo, hi = starts[p], starts[p + 1]
            k = np.searchsorted(periods[lo:hi], day_period, side="right") - 1
            out[:, p] = np.where(k >= 0, values[lo:hi][np.maximum(k, 0)], np.nan)
        return out

    def extras(self, state: OfflineState, day: int) -> dict:
        """Nothing per player (the solver's effort per snapshot is in ``state.log``)."""
        return {}


def _dot(a: np.ndarray, b: np.ndarray) -> float:
    # numpy's own pairwise sum, not BLAS: a threaded BLAS dot on this shared machine took ~25 ms a call
    return float(np.multiply(a, b).sum())


def pcg(normal, precondition, b: np.ndarray, x0: np.ndarray, rtol: float, max_iter: int):
    """Preconditioned conjugate gradients for the SPD system normal(x) = b from x0.

    Stops when ‖r‖ ≤ rtol·‖b‖; returns (x, iterations), iterations −1 if
    ``max_iter`` was reached first.
    """
    x = x0.copy()
    r = b - normal(x)
    stop = rtol * np.sqrt(_dot(b, b))
    if np.sqrt(_dot(r, r)) <= stop:
        return x, 0
    z = precondition(r)
    d = z.copy()
    rz = _dot(r, z)
    for it in range(1, max_iter + 1):
        q = normal(d)
        alpha = rz / _dot(d, q)
        x += alpha * d
        r -= alpha * q
        if np.sqrt(_dot(r, r)) <= stop:
            return x, it
        z = precondition(r)
        rz_new = _dot(r, z)
        d *= rz_new / rz
        d += z
        rz = rz_new
    return x, -1


def _chain_preconditioner(state: OfflineState, diag: np.ndarray):
    """M⁻¹ for conjugate gradients: the normal matrix's diagonal plus every random-walk link, as a function.

    Ordered player by player, period by period, that matrix is tridiagonal
    (each walk link joins a player's consecutive unknowns), so it is solved
    exactly in O(unknowns) by a banded Cholesky.  The walk links are the
    stiff part of the problem (a month's link weighs ~50 sessions), which a
    plain diagonal preconditioner leaves to thousands of iterations.
    """
    from scipy.linalg import cholesky_banded, cho_solve_banded
    N = len(diag)
    vp = np.concatenate(state.var_player)
    perm = np.lexsort((np.arange(N), vp))  # a player's unknowns are numbered in period order
    pos = np.empty(N, np.int64)
    pos[perm] = np.arange(N)
    upper = np.zeros(N)
    if state.links:
        later = np.concatenate([lk[0] for lk in state.links])
        earlier = np.concatenate([lk[1] for lk in state.links])
        weight = np.concatenate([lk[2] for lk in state.links])
        upper[pos[later]] = -weight  # band entry (i-1, i) sits at column i of the upper form
    ab = np.vstack([upper, diag[perm]])
    factor = cholesky_banded(ab, lower=False)

    def solve(v):
        out = np.empty(N)
        out[perm] = cho_solve_banded((factor, False), v[perm])
        return out
    return solve


# --- the steps of OfflineScheme.apply ------------------------------------------------

class _Kept(NamedTuple):
    """Entries of one apply call: sess[i] session of entry i, n_ranked pairs
    ranked in its field, is_match (Swiss entry), ent the kept entries in
    processing order, keep the mask of kept entries (entry order)."""
    sess: np.ndarray
    n_ranked: np.ndarray
    is_match: np.ndarray
    keep: np.ndarray
    ent: np.ndarray


def _kept_entries(sc) -> _Kept:
    """The entries graded: not the online room, ranked, and (Swiss) with at least one match."""
    S = sc.n_sessions
    sess = np.repeat(np.arange(S), np.diff(sc.pair_start))
    kind = np.asarray(sc.kind)[sess]
    n_ranked = np.asarray(sc.pair_n_ranked, np.int64)
    keep = (kind != KIND_ONLINE) & (n_ranked >= 1)
    is_match = np.isin(kind, MATCH_KINDS)
    keep &= ~is_match | (np.diff(sc.match_start) > 0)
    rank = np.full(S, -1, np.int64)  # a session left out of ``order`` (a corrected original) is not graded
    rank[np.asarray(sc.order)] = np.arange(len(sc.order))
    keep &= rank[sess] >= 0
    ent = np.flatnonzero(keep)
    ent = ent[np.argsort(rank[sess[ent]], kind="stable")]  # processing order
    return _Kept(sess, n_ranked, is_match, keep, ent)


class _Unknowns(NamedTuple):
    """The (player, period) unknowns touched by one apply call, sorted by player then period.

    uniq_pl, uniq_per, var_of_uniq: player, period and unknown of each;
    new_idx: which of them are new; prev_var, prev_per: the unknown and period
    before each new one (-1: none); entry_var[e, k]: the unknown of player k
    of entry e (-1: entry not kept)."""
    uniq_pl: np.ndarray
    uniq_per: np.ndarray
    var_of_uniq: np.ndarray
    new_idx: np.ndarray
    prev_var: np.ndarray
    prev_per: np.ndarray
    entry_var: np.ndarray


def _unknowns(state: OfflineState, sc, kept: _Kept, period_days: int) -> _Unknowns:
    """One unknown per (player, period); a late session joins the player's latest period."""
    day = np.asarray(sc.day, np.int64)[kept.sess]
    period = day // period_days
    players = np.asarray(sc.pair_players, np.int64)
    used = np.flatnonzero(kept.keep)
    pl = players[used].ravel()
    per = np.repeat(period[used], 2)
    per = np.maximum(per, state.last_period[pl])
    order = np.lexsort((per, pl))
    pl_s, per_s = pl[order], per[order]
    first = np.r_[True, (pl_s[1:] != pl_s[:-1]) | (per_s[1:] != per_s[:-1])]
    uniq_pl, uniq_per = pl_s[first], per_s[first]
    reuse = uniq_per == state.last_period[uniq_pl]
    new = ~reuse
    n_new = int(new.sum())
    var_of_uniq = np.empty(len(uniq_pl), np.int64)
    var_of_uniq[reuse] = state.last_var[uniq_pl[reuse]]
    var_of_uniq[new] = state.n_vars + np.arange(n_new)
    prev_var = np.empty(n_new, np.int64)
    prev_per = np.empty(n_new, np.int64)
    new_idx = np.flatnonzero(new)
    same_as_prev = np.r_[False, uniq_pl[1:] == uniq_pl[:-1]]
    for_new_same = same_as_prev[new_idx]
    prev_var[for_new_same] = var_of_uniq[new_idx[for_new_same] - 1]
    prev_per[for_new_same] = uniq_per[new_idx[for_new_same] - 1]
    other = ~for_new_same
    prev_var[other] = state.last_var[uniq_pl[new_idx[other]]]
    prev_per[other] = state.last_period[uniq_pl[new_idx[other]]]
    var_sorted = np.repeat(var_of_uniq, np.diff(np.r_[np.flatnonzero(first), len(pl_s)]))
    var_pl = np.empty(len(pl), np.int64)
    var_pl[order] = var_sorted
    entry_var = np.full((sc.n_entries, 2), -1, np.int64)
    entry_var[used] = var_pl.reshape(-1, 2)
    return _Unknowns(uniq_pl, uniq_per, var_of_uniq, new_idx, prev_var, prev_per, entry_var)


def _walk_and_prior_rows(state: OfflineState, u: _Unknowns, p: Params):
    """(columns, values, targets, weights) lists: walk rows between a player's consecutive
    unknowns, prior rows for first ones.  Records the walk links in ``state``."""
    walk = u.prev_var >= 0
    new_var = u.var_of_uniq[u.new_idx]
    gap = (u.uniq_per[u.new_idx] - u.prev_per) * p.period_days / 365.25 * p.drift
    rows_c = [np.stack([new_var[walk], u.prev_var[walk]], 1)]
    rows_v = [np.tile([1.0, -1.0], (int(walk.sum()), 1))]
    rows_y = [np.zeros(int(walk.sum()))]
    rows_w = [1.0 / gap[walk]]
    state.links.append((new_var[walk], u.prev_var[walk], 1.0 / gap[walk]))
    prior = ~walk
    rows_c.append(np.stack([new_var[prior], new_var[prior]], 1))
    rows_v.append(np.tile([1.0, 0.0], (int(prior.sum()), 1)))
    rows_y.append(state.start[u.uniq_pl[u.new_idx[prior]]])
    rows_w.append(np.full(int(prior.sum()), 1.0 / p.prior_sd ** 2))
    return rows_c, rows_v, rows_y, rows_w


def _observations(sc, kept: _Kept, p: Params):
    """(y, w): each kept entry's standard score (grade points) and its row weight."""
    ent, sess = kept.ent, kept.sess
    weights = p.weights()
    y = np.empty(len(ent))
    standard_scores(np.asarray(sc.scoring, np.int8)[sess[ent]], np.asarray(sc.pair_score, np.float64)[ent],
                    np.asarray(sc.pair_boards, np.int64)[ent], p.butler_factor, p.cross_imp_factor,
                    p.aggregate_factor, y)
    x = np.maximum(np.asarray(sc.pair_boards, np.float64)[ent], 1.0)
    n = kept.n_ranked[ent].astype(np.float64)
    w_obs = 1.0 / (p.board_sd ** 2 / x * (1.0 + 1.0 / n) / weights[np.asarray(sc.event)[sess[ent]]])
    return y, w_obs


def _match_block(sc, swiss: np.ndarray, entry_var: np.ndarray, y: np.ndarray, w: np.ndarray):
    """CSR block of the Swiss entries' rows: own two unknowns, then 2 per match."""
    ms = np.asarray(sc.match_start, np.int64)
    counts = ms[swiss + 1] - ms[swiss]
    mrows = np.concatenate([np.arange(ms[e], ms[e + 1]) for e in swiss])
    opp = np.asarray(sc.match_opp, np.int64)[mrows]
    indptr = np.zeros(len(swiss) + 1, np.int64)
    np.cumsum(2 + 2 * counts, out=indptr[1:])
    indices = np.empty(indptr[-1], np.int64)
    data = np.empty(indptr[-1])
    own = indptr[:-1]
    indices[own], indices[own + 1] = entry_var[swiss, 0], entry_var[swiss, 1]
    data[own] = data[own + 1] = 0.5
    pos = np.repeat(own + 2, 2 * counts) + (np.arange(2 * counts.sum()) -
                                            np.repeat(np.cumsum(2 * counts) - 2 * counts, 2 * counts))
    indices[pos] = entry_var[opp].ravel()
    data[pos] = np.repeat(-0.5 / counts, 2 * counts)
    return indptr, indices, data, y, w


def _append_three_column_rows(state: OfflineState, rows_c, rows_v, rows_y, rows_w) -> int:
    """Append the walk, prior and plain observation rows as one CSR block (unused slots
    dropped); returns the number of rows."""
    three = [np.pad(rc, ((0, 0), (0, 3 - rc.shape[1])), constant_values=-1) for rc in rows_c]
    vals3 = [np.pad(rv, ((0, 0), (0, 3 - rv.shape[1]))) for rv in rows_v]
    c = np.concatenate(three)
    v = np.concatenate(vals3)
    nz = (c >= 0) & (v != 0)
    indptr = np.zeros(len(c) + 1, np.int64)
    np.cumsum(nz.sum(1), out=indptr[1:])
    state.blocks.append((indptr, c[nz], v[nz], np.concatenate(rows_y), np.concatenate(rows_w)))
    return len(c)


def _book_unknowns(state: OfflineState, u: _Unknowns, n_vars: int, n_intercepts: int) -> None:
    """Grow the unknowns to ``n_vars`` (new players' ones warm-started at their previous
    strength, grade points) and record each player's latest unknown and period."""
    new_var = u.var_of_uniq[u.new_idx]
    x0 = np.zeros(n_vars)
    x0[:len(state.x)] = state.x
    prev_value = np.where(u.prev_var >= 0, x0[np.maximum(u.prev_var, 0)], state.start[u.uniq_pl[u.new_idx]])
    x0[new_var] = prev_value  # warm start: a player's previous strength
    state.x = x0
    state.var_player.append(u.uniq_pl[u.new_idx])
    state.var_period.append(u.uniq_per[u.new_idx])
    state.var_player.append(np.full(n_intercepts, -1, np.int64))
    state.var_period.append(np.full(n_intercepts, -1, np.int64))
    last = np.r_[u.uniq_pl[1:] != u.uniq_pl[:-1], True]
    state.last_var[u.uniq_pl[last]] = u.var_of_uniq[last]
    state.last_period[u.uniq_pl[last]] = u.uniq_per[last]
    state.n_vars = n_vars


SCHEME = OfflineScheme
