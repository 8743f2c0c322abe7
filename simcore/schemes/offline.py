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

    s_e = (θ_a + θ_b)/2 [+ u_q] − field_e + ε_e,   ε_e ~ N(0, R_e),
    R_e = board_sd² / x · (1 + 1/n) / event weight,

the same noise as ``kalman`` (x boards played, n pairs ranked against).
Optional partnership effect (``partner_sd`` > 0): u_q, partnership q's
own effect on its pairs' scores, is one more entity with its own random
walk (``partner_drift``) and prior N(0, partner_sd²); grades are the
players' θ only.
Optional club levels (``level_sd`` > 0, after ``kalman``'s): a player
starts relative to the level of the venue (club) of his first result —
kalman counts club sessions only; counting every venue keeps the strong
players first seen at events from pinning the whole population to m₀ —
θ_{p,first} − L_c ~ N(m₀, prior_sd²), L_c ~ N(0, level_sd²) one unknown a
club for good (no walk); without them every first strength is pulled to
m₀ on its own, so the prior holds a club's mean near m₀ with sd
prior_sd/√members — far tighter than real clubs differ.
The field is SOpp's (``field.strength_of_opponents``): for Swiss events
the mean of the match opponents' strengths, which enters the row as is;
for every other movement the mean of the other pairs of the group,
(G − θ̄_e)/(n − 1) with G the group's sum, so the row reads
n/(n−1)·θ̄_e − c_g with one free intercept c_g = G/(n−1) per group and
session (exact up to the sum of a group's scores, which carries no
information on strength).  The online room is not graded, like NGS.

Solution: the posterior mean — weighted sparse least squares, the normal
equations solved by preconditioned conjugate gradients (``pcg``: a
banded Cholesky of the random-walk chains, warm-started from the previous
snapshot's solution, relative residual ``rtol``).  At a snapshot each
player's grade is his strength in his latest period: the estimate of his
current strength from all results up to the snapshot (a random walk's
mean does not move forward in time).

``window_days`` = 0: every snapshot solves the whole history, exactly.
``window_days`` = W > 0 (a windowed, two-level solve): the unknowns of the
last W days are solved exactly; every older ("frozen") unknown of an
entity moves only with one shift per entity, the same for all of them.
Rows that touch no unknown of the window are folded, once, into that
shift's normal equations (an entities² sparse matrix C and a vector h;
each session's intercept minimised out exactly) and then forgotten.
Exact: the window's unknowns and the shifts solve the whole-history least
squares restricted to that subspace; when each entity has at most one
frozen unknown the subspace holds the exact solution (tested).
Approximated: the shape of an entity's frozen path no longer changes
(only its level), so later results cannot tilt a player's strengths of
more than W days ago; their effect on current grades is measured against
the exact solve in the README.
``smooth=true``: the retrospective ceiling — after the run every snapshot
is re-read from one exact solve of the whole history (its rows are kept),
so it also uses later results.
Grades are published for members only.  A session that corrects another
is added as new results (the replaced rows stay); a late-scored session
joins the player's latest period.

Cost: rows and unknowns grow linearly with player-sessions (one row an
entry, 3 non-zeros, 4 with partnership effects; Swiss 2 + 2·matches) and
player-periods.  Exact (``window_days=0``): each snapshot costs
O(iterations × non-zeros so far), a run of T snapshots O(T² ×
iterations × player-sessions a snapshot) — quadratic in the run's length.
Windowed: a snapshot costs O(iterations × (non-zeros of W days + nnz(C)))
plus O(unknowns) of bookkeeping (one vector pass to apply the shifts);
nnz(C) grows with the pairs of players who ever met in a folded session
(each session group adds its players² entries once): on ``national`` it
kept growing by ~5 M a year (new players, mixing), about as fast as the
raw rows, so a snapshot's cost still grows with the run, but only through
one sparse product a CG iteration, with fewer iterations than the exact
solve (38 against 62-80); folding costs O(folded non-zeros) once.  The
national decade's measured cost: experiments/reports/frontier/offline_cost.md.  ``smooth=true``
keeps every row and adds one exact whole-history solve at the end.

Corrected sessions: offline re-solves from all the results it holds, so a corrected
session's original is dropped and the correction (``ScoredResults.replaces``) used in
its place (``corrections = "last"``): no session is counted twice.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

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

    ``board_sd`` 28, ``drift`` 0.2 and ``level_sd`` 3 are kalman's values
    (board_sd and drift derived from the bridge model and the world's
    strength paths, not fitted to either scheme's accuracy).  Checked on
    ``default``, seed 2026, 2 years, 4 replicates (RMSE at the last
    snapshot, paired on the same results): with them 2.116 [2.029, 2.202];
    the former 20 / 1.0 without club levels 2.219 (+0.103 [0.034, 0.172]),
    20 / 1.0 with levels 2.172 (+0.057 [0.037, 0.076]).  Other scenarios:
    experiments/reports/frontier/offline_cost.md.  ``partner_sd``: off
    (no RMSE gain measured, same file).
    """

    drift: float = _p(0.2, "variance a player's strength gains a year (grade points²)", min=1e-9)
    board_sd: float = _p(28.0, "sd of one board's result in grade units", min=1e-6)
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
    partner_sd: float = _p(0.0, "sd of a partnership's own effect on its pairs' scores (grade points); 0: no "
                                "partnership effect", min=0.0)
    partner_drift: float = _p(0.25, "variance a partnership's effect gains a year (grade points²)", min=1e-9)
    level_sd: float = _p(3.0, "sd of a club's level (grade points); a player starts relative to the level of "
                              "the venue of his first result; 0: no club levels", min=0.0)
    window_days: int = _p(365, "days solved exactly at a snapshot; older strengths move only with one shift a "
                               "player (rows folded); 0: the whole history every snapshot (exact, quadratic cost)",
                          min=0)

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
    n_players: int = 0
    ent_kind: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int8))  # 0 player, 1 partnership, 2 club
    q_entity: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # partnership -> entity (-1)
    c_entity: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # club -> entity (-1)
    n_vars: int = 0
    var_player: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    var_period: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    blocks: list = field(default_factory=list)   # [indptr, indices, data, y, w, row periods, folded flags] per apply
    links: list = field(default_factory=list)    # (later unknown, earlier unknown, walk weight) per apply
    x: np.ndarray = field(default_factory=lambda: np.zeros(0))
    max_period: int = -1
    solved_rows: int = -1
    solved_full: bool = False
    solved_vars: int = 0
    k0: int = -(2 ** 62)          # unknowns of earlier periods are frozen (windowed solves)
    C: object = None              # folded rows' normal matrix over entity shifts (sparse, entities²)
    h: np.ndarray = field(default_factory=lambda: np.zeros(0))  # ... and their right-hand side (entities)
    n_rows: int = 0
    iterations: int = 0
    solves: int = 0
    log: list = field(default_factory=list)  # per solve: unknowns, non-zeros, CG iterations, seconds


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
                            last_var=np.full(P, -1, np.int64), last_period=np.full(P, -1, np.int64), n_players=P,
                            ent_kind=np.zeros(P, np.int8))

    def grow(self, state: OfflineState, n_partnerships: int) -> OfflineState:
        return state  # partnership and club entities are added as they appear

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
        entities = np.asarray(sc.pair_players, np.int64)
        share = np.array([0.5, 0.5])  # a pair's strength: the mean of its players' ...
        if p.partner_sd > 0:
            q = np.asarray(sc.pair_partnership, np.int64)
            if len(q) and q.min() < 0:
                bad = int(np.flatnonzero(q < 0)[0])
                raise ValueError(f"offline: pair_partnership row {bad} is {q[bad]}; partnership ids must be >= 0")
            state.q_entity = _entities(state, state.q_entity, q[kept.keep], 1)
            entities = np.c_[entities, np.where(kept.keep, state.q_entity[np.where(kept.keep, q, 0)], -1)]
            share = np.r_[share, 1.0]  # ... plus its partnership's effect
        u = _unknowns(state, sc, kept, entities, p.period_days)
        levels = _club_levels(state, sc, u, p)
        rows_c, rows_v, rows_y, rows_w = _walk_and_prior_rows(state, u, p, levels)
        n_vars = state.n_vars + len(u.new_idx) + len(levels.new_vars)
        y, w_obs = _observations(sc, kept, p)
        # intercepts: one per (session, group) among plain entries
        ent, is_match, sess = kept.ent, kept.is_match, kept.sess
        plain = ent[~is_match[ent]]
        key = sess[plain] * 1_000_003 + np.asarray(sc.pair_group, np.int64)[plain]
        ukey, inv = np.unique(key, return_inverse=True)
        c_var = n_vars + inv
        n_vars += len(ukey)
        f = kept.n_ranked[plain] + 1.0
        coef = f / (f - 1.0)  # n/(n-1): the field is the group less the pair itself
        rows_c.append(np.c_[u.entry_var[plain], c_var])
        rows_v.append(np.c_[coef[:, None] * share, -np.ones(len(plain))])
        mask_plain = ~is_match[ent]
        rows_y.append(y[mask_plain])
        rows_w.append(w_obs[mask_plain])
        swiss = ent[is_match[ent]]
        blocks_extra = []
        if len(swiss):
            blocks_extra.append(_match_block(sc, swiss, u.entry_var, share, y[~mask_plain], w_obs[~mask_plain]))
        n_rows = _append_rows(state, rows_c, rows_v, rows_y, rows_w)
        state.blocks.extend(blocks_extra)
        state.n_rows += n_rows + len(swiss)
        _book_unknowns(state, u, levels, n_vars, np.asarray(sc.day, np.int64)[ukey // 1_000_003] // p.period_days)
        if out_after is not None:
            self._solve(state)
            ev = u.entry_var[:, :2]
            got = ev >= 0
            out_after[got] = state.x[ev[got]]

    # -- the solve --------------------------------------------------------------------
    def _solve(self, state: OfflineState, full: bool = False) -> None:
        """Solve for the strengths: all of them if ``full`` or ``window_days`` is 0, else the window's
        and one shift per entity of its older ones (see the module docstring)."""
        p = self.params
        full = full or p.window_days == 0
        if state.solved_rows == state.n_rows and (state.solved_full or not full):
            return
        if full:
            self._window_solve(state, -(2 ** 62), fold=False)
        else:
            target = state.max_period - -(-p.window_days // p.period_days)
            if state.solved_vars < state.n_vars:  # never solved yet: solve them before they freeze
                first = int(state.var_period[state.solved_vars:].min())
                if first < target:
                    self._window_solve(state, max(first, state.k0), fold=True)
            self._window_solve(state, max(target, state.k0), fold=True)
        state.solved_rows = state.n_rows
        state.solved_full = full
        state.solved_vars = state.n_vars

    def _window_solve(self, state: OfflineState, k0: int, fold: bool) -> None:
        p = self.params
        t0 = time.perf_counter()
        if fold:
            state.k0 = k0
            _fold_rows(state, k0, keep=p.smooth)
        A, y, w, pos, epos = _window_system(state, k0, fold)
        win = np.flatnonzero(pos >= 0)
        shifted = np.flatnonzero(epos >= 0)
        at_w, at_s = pos[win], epos[shifted]
        At = A.T.tocsr()
        diag = np.asarray(A.multiply(A).T @ w).ravel()
        b = At @ (w * y)
        C = None
        if len(shifted):
            C = state.C[shifted][:, shifted].tocsr()
            diag[at_s] += C.diagonal()
            b[at_s] += state.h[shifted]

        def normal(v):
            out = At @ (w * (A @ v))
            if C is not None:
                out[at_s] += C @ v[at_s]
            return out

        pre = _chain_preconditioner(state, pos, epos, diag)
        x0 = np.zeros(A.shape[1])
        x0[at_w] = state.x[win]
        sol, iterations = pcg(normal, pre, b, x0, p.rtol, max_iter=20000)
        if iterations < 0:
            raise RuntimeError(f"offline: conjugate gradients did not reach rtol={p.rtol} "
                               f"in 20000 iterations ({len(x0)} unknowns)")
        state.x[win] = sol[at_w]
        if len(shifted):
            delta = sol[at_s]
            shift = np.zeros(len(state.start))
            shift[shifted] = delta
            old = np.flatnonzero((state.var_period < k0) & (state.var_player >= 0))
            state.x[old] += shift[state.var_player[old]]
            state.h[shifted] -= C @ delta
        state.iterations += iterations
        state.log.append((len(x0), A.nnz, iterations, time.perf_counter() - t0))
        state.solves += 1

    def grades(self, state: OfflineState, day: int) -> np.ndarray:
        """Each member's strength in his latest period (grade points), from all results so far; NaN if unseen."""
        self._solve(state)
        last = state.last_var[:state.n_players]  # players only, not partnership effects
        seen = last >= 0
        out = np.full(state.n_players, np.nan)
        out[seen] = state.x[last[seen]]
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
        self._solve(state, full=True)
        days = np.asarray(days, np.int64)
        out = np.full((len(days), state.n_players), np.nan)
        if state.n_vars == 0:
            return out
        vp, vk = state.var_player, state.var_period
        idx = np.flatnonzero(vp >= 0)
        order = idx[np.lexsort((vk[idx], vp[idx]))]
        players, periods, values = vp[order], vk[order], state.x[order]
        starts = np.searchsorted(players, np.arange(state.n_players + 1))
        day_period = days // self.params.period_days
        for p in np.flatnonzero(state.member & (state.last_var[:state.n_players] >= 0)):
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


def _gather_rows(blocks, pick):
    """The rows ``pick(block)`` selects from every block, stacked as one COO system.

    blocks: ``OfflineState.blocks`` (CSR indptr, indices, data, y, w, row
    period, folded); returns (col, val, row, y, w, n): the non-zeros' unknown,
    value and row (numbered 0..n-1 over the picked rows in block order), and
    each picked row's observation and weight.
    """
    cols, vals, rows_of, ys, ws = [], [], [], [], []
    n = 0
    for blk in blocks:
        indptr, indices, data, y, w = blk[:5]
        rows = pick(blk)
        if len(rows) == 0:
            continue
        counts = indptr[rows + 1] - indptr[rows]
        take = np.repeat(indptr[rows] - np.r_[0, np.cumsum(counts)[:-1]], counts) + np.arange(counts.sum())
        cols.append(indices[take])
        vals.append(data[take])
        rows_of.append(n + np.repeat(np.arange(len(rows)), counts))
        ys.append(y[rows])
        ws.append(w[rows])
        n += len(rows)
    cat = (lambda parts, dt: np.concatenate(parts) if parts else np.zeros(0, dt))
    return (cat(cols, np.int64), cat(vals, np.float64), cat(rows_of, np.int64), cat(ys, np.float64),
            cat(ws, np.float64), n)


def _fold_rows(state: OfflineState, k0: int, keep: bool) -> None:
    """Fold the rows that touch no unknown of period k0 or later into (C, h): their least
    squares as a function of one shift per entity applied to all its frozen unknowns, each
    session group's intercept minimised out.  Later solves read the folded rows only that way
    (the window only moves forward); with ``keep`` the rows stay stored for a full solve."""
    import scipy.sparse as sp  # here, not at the top: every run's command line imports this module (0.1-0.3 s)

    _row_periods(state)
    n_ent = len(state.start)
    if state.C is None:
        state.C = sp.csr_matrix((n_ent, n_ent))
        state.h = np.zeros(n_ent)
    if state.C.shape[0] < n_ent:
        state.C.resize((n_ent, n_ent))
        state.h = np.r_[state.h, np.zeros(n_ent - len(state.h))]

    def older_unfolded(blk):  # picks the rows to fold and marks them folded
        rows = np.flatnonzero((blk[5] < k0) & ~blk[6])
        blk[6][rows] = True
        return rows

    col, val, row, y, w, n = _gather_rows(state.blocks, older_unfolded)
    if not keep:
        state.blocks = [blk for blk in state.blocks if not blk[6].all()]
        state.links = [lk for lk in state.links if len(lk[0]) and state.var_period[lk[0]].max() >= k0]
    if n == 0:
        return
    r = y - np.bincount(row, val * state.x[col], minlength=n)  # residuals at the current strengths
    ent = state.var_player[col]
    is_ent = ent >= 0
    B = sp.csr_matrix((val[is_ent], (row[is_ent], ent[is_ent])), shape=(n, n_ent))
    # each plain row has one intercept (coefficient -1): rows sharing it form a group
    group = np.full(n, -1, np.int64)
    group[row[~is_ent]] = col[~is_ent]
    in_group = np.flatnonzero(group >= 0)
    ug, gi = np.unique(group[in_group], return_inverse=True)
    G = sp.csr_matrix((w[in_group], (gi, in_group)), shape=(len(ug), n))
    sw = np.asarray(G.sum(axis=1)).ravel()
    S = (G @ B).tocsr()
    t = G @ r
    Bt = B.T.tocsr()
    C = Bt @ sp.diags(w) @ B - S.T @ sp.diags(1.0 / sw) @ S
    state.C = (state.C + C).tocsr()
    state.h += Bt @ (w * r) - S.T @ (t / sw)


def _row_periods(state: OfflineState) -> None:
    """Each block's rows' latest period (the latest of their unknowns), computed once a block,
    and its rows' folded flags."""
    for b in state.blocks:
        if b[5] is None:
            indptr, indices = b[0], b[1]
            b[5] = (np.maximum.reduceat(state.var_period[indices], indptr[:-1]) if len(indptr) > 1
                    else np.zeros(0, np.int64))
            b[6] = np.zeros(len(b[5]), bool)


def _window_system(state: OfflineState, k0: int, fold: bool):
    """The rows not folded yet, over the unknowns of period ≥ k0 and, after them, one shift
    per entity with older (frozen) unknowns.

    Returns (A, y, w, pos, epos): A's columns are the window's unknowns
    (state numbering → column: ``pos``, −1 if frozen) and the shifts of the
    entities with frozen unknowns (entity → column: ``epos``, −1 none); the
    frozen unknowns' terms (at their values in ``state.x``) are moved into y.  Without
    ``fold`` every stored row is read (a full solve when k0 is before all).
    """
    import scipy.sparse as sp  # see _fold_rows
    _row_periods(state)
    in_win = state.var_period >= k0
    win = np.flatnonzero(in_win)
    frozen_ent = np.unique(state.var_player[~in_win])
    shifted = frozen_ent[frozen_ent >= 0] if fold else np.zeros(0, np.int64)
    # columns entity by entity: its shift, then its window unknowns in period order (they are
    # numbered so), intercepts first — the random-walk links then sit next to the diagonal
    ent = np.r_[state.var_player[win], shifted]
    order = np.lexsort((np.r_[win + 1, np.zeros(len(shifted), np.int64)], ent))
    at = np.empty(len(order), np.int64)
    at[order] = np.arange(len(order))
    pos = np.full(state.n_vars, -1, np.int64)
    pos[win] = at[:len(win)]
    epos = np.full(len(state.start), -1, np.int64)
    epos[shifted] = at[len(win):]
    col, val, row, y, w, n = _gather_rows(
        state.blocks, lambda blk: np.flatnonzero((blk[5] >= k0) & ~blk[6]) if fold else np.flatnonzero(blk[5] >= k0))
    j = pos[col]
    old = j < 0
    if old.any():
        y = y - np.bincount(row[old], val[old] * state.x[col[old]], minlength=n)
        # a frozen unknown still moves with its entity's shift
        e = epos[np.maximum(state.var_player[col[old]], 0)]
        e[state.var_player[col[old]] < 0] = -1
        j = j.copy()
        j[old] = e
    keep = j >= 0
    A = sp.csr_matrix((val[keep], (row[keep], j[keep])), shape=(n, len(win) + len(shifted)))
    return A, y, w, pos, epos


def _chain_preconditioner(state: OfflineState, pos: np.ndarray, epos: np.ndarray, diag: np.ndarray):
    """M⁻¹ for conjugate gradients: the normal matrix's diagonal plus every random-walk link, as a function.

    The columns run entity by entity (its shift, then its window unknowns
    period by period), so that matrix is tridiagonal (each walk link joins
    an entity's consecutive unknowns, or its shift and its first window
    unknown) and is solved exactly in O(unknowns) by a banded Cholesky.  The
    walk links are the stiff part of the problem (a month's link weighs ~50
    sessions), which a plain diagonal preconditioner leaves to thousands of
    iterations.
    """
    from scipy.linalg import cholesky_banded, cho_solve_banded
    upper = np.zeros(len(diag))
    if state.links:
        later = np.concatenate([lk[0] for lk in state.links])
        earlier = np.concatenate([lk[1] for lk in state.links])
        weight = np.concatenate([lk[2] for lk in state.links])
        p_later = pos[later]
        p_earlier = np.where(pos[earlier] >= 0, pos[earlier], epos[state.var_player[earlier]])
        band = (p_later >= 0) & (p_earlier >= 0) & (p_earlier == p_later - 1)
        upper[p_later[band]] = -weight[band]  # band entry (i-1, i) sits at column i of the upper form
    factor = cholesky_banded(np.vstack([upper, diag]), lower=False)

    def solve(v):
        return cho_solve_banded((factor, False), v)
    return solve


# --- the steps of OfflineScheme.apply ------------------------------------------------

class _Kept(NamedTuple):
    """Entries of one apply call: sess[i] session of entry i, n_ranked pairs
    ranked in its field, is_match (Swiss entry), ent the kept entries in
    processing order, keep the mask of kept entries (entry order), rank each session's place
    in processing order (-1 not graded)."""
    sess: np.ndarray
    n_ranked: np.ndarray
    is_match: np.ndarray
    keep: np.ndarray
    ent: np.ndarray
    rank: np.ndarray


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
    return _Kept(sess, n_ranked, is_match, keep, ent, rank)


class _Unknowns(NamedTuple):
    """The (player, period) unknowns touched by one apply call, sorted by player then period.

    uniq_pl, uniq_per, var_of_uniq: player, period and unknown of each;
    new_idx: which of them are new; prev_var, prev_per: the unknown and period
    before each new one (-1: none); entry_var[e, k]: the unknown of player k
    of entry e (-1: entry not kept); uniq_sess: the session of each one's first result."""
    uniq_pl: np.ndarray
    uniq_per: np.ndarray
    var_of_uniq: np.ndarray
    new_idx: np.ndarray
    prev_var: np.ndarray
    prev_per: np.ndarray
    entry_var: np.ndarray
    uniq_sess: np.ndarray


def _unknowns(state: OfflineState, sc, kept: _Kept, entities: np.ndarray, period_days: int) -> _Unknowns:
    """One unknown per (entity, period) — entities[e] are entry e's players (and partnership);
    a late session joins the entity's latest period."""
    day = np.asarray(sc.day, np.int64)[kept.sess]
    period = day // period_days
    k = entities.shape[1]
    used = np.flatnonzero(kept.keep)
    pl = entities[used].ravel()
    per = np.repeat(period[used], k)
    per = np.maximum(per, state.last_period[pl])
    rank = np.repeat(kept.rank[kept.sess[used]], k)
    order = np.lexsort((rank, per, pl))  # an entity's (period's) first session in processing order first
    pl_s, per_s = pl[order], per[order]
    first = np.r_[True, (pl_s[1:] != pl_s[:-1]) | (per_s[1:] != per_s[:-1])]
    uniq_pl, uniq_per = pl_s[first], per_s[first]
    uniq_sess = np.repeat(kept.sess[used], k)[order][first]
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
    entry_var = np.full((sc.n_entries, k), -1, np.int64)
    entry_var[used] = var_pl.reshape(-1, k)
    return _Unknowns(uniq_pl, uniq_per, var_of_uniq, new_idx, prev_var, prev_per, entry_var, uniq_sess)


class _Levels(NamedTuple):
    """Club levels touched by one apply call: club_var[i] the level unknown of new first
    unknown i (-1: plain prior); new_vars/new_ents the level unknowns created (and their
    entities, one unknown each for good: a level does not walk)."""
    club_var: np.ndarray
    new_vars: np.ndarray
    new_ents: np.ndarray


def _club_levels(state: OfflineState, sc, u: _Unknowns, p: Params) -> _Levels:
    """A player's first strength is relative to the level of the venue (club) of his first
    result; the level's unknown is created on first use."""
    first = u.prev_var < 0
    ents = u.uniq_pl[u.new_idx]
    club_var = np.full(len(ents), -1, np.int64)
    none = np.zeros(0, np.int64)
    if p.level_sd <= 0:
        return _Levels(club_var, none, none)
    sess = u.uniq_sess[u.new_idx]
    club = np.asarray(sc.club, np.int64)[sess]
    at_club = first & (state.ent_kind[ents] == 0) & (club >= 0)
    if not at_club.any():
        return _Levels(club_var, none, none)
    state.c_entity = _entities(state, state.c_entity, club[at_club], 2)
    ce = state.c_entity[club[at_club]]
    new_ents = np.unique(ce[state.last_var[ce] < 0])
    new_vars = state.n_vars + len(u.new_idx) + np.arange(len(new_ents))
    level_var = state.last_var.copy()
    level_var[new_ents] = new_vars
    club_var[at_club] = level_var[ce]
    return _Levels(club_var, new_vars, new_ents)


def _walk_and_prior_rows(state: OfflineState, u: _Unknowns, p: Params, levels: _Levels):
    """(columns, values, targets, weights) lists: walk rows between an entity's consecutive
    unknowns, prior rows for first ones (relative to a club level where there is one), and
    the new club levels' priors.  Records the walk links in ``state``."""
    walk = u.prev_var >= 0
    new_var = u.var_of_uniq[u.new_idx]
    kind = state.ent_kind[u.uniq_pl[u.new_idx]]
    drift = np.where(kind == 1, p.partner_drift, p.drift)  # partnership effects: their own walk and prior
    gap = (u.uniq_per[u.new_idx] - u.prev_per) * p.period_days / 365.25 * drift
    rows_c = [np.stack([new_var[walk], u.prev_var[walk]], 1)]
    rows_v = [np.tile([1.0, -1.0], (int(walk.sum()), 1))]
    rows_y = [np.zeros(int(walk.sum()))]
    rows_w = [1.0 / gap[walk]]
    state.links.append((new_var[walk], u.prev_var[walk], 1.0 / gap[walk]))
    prior = ~walk
    lv = levels.club_var[prior]
    rows_c.append(np.stack([new_var[prior], np.where(lv >= 0, lv, new_var[prior])], 1))
    rows_v.append(np.stack([np.ones(int(prior.sum())), np.where(lv >= 0, -1.0, 0.0)], 1))
    rows_y.append(state.start[u.uniq_pl[u.new_idx[prior]]])
    rows_w.append(1.0 / np.where(kind[prior] == 1, p.partner_sd, p.prior_sd) ** 2)
    n = len(levels.new_vars)
    rows_c.append(np.stack([levels.new_vars, levels.new_vars], 1))
    rows_v.append(np.tile([1.0, 0.0], (n, 1)))
    rows_y.append(np.zeros(n))
    rows_w.append(np.full(n, 1.0 / p.level_sd ** 2) if n else np.zeros(0))
    return rows_c, rows_v, rows_y, rows_w


def _entities(state: OfflineState, table: np.ndarray, ids: np.ndarray, kind: int) -> np.ndarray:
    """``table`` (id -> entity, -1 none) grown to cover ``ids``, with a new entity (prior mean 0)
    for each id without one; returns the table."""
    if len(ids) == 0:
        return table
    if ids.max() >= len(table):
        table = np.r_[table, np.full(int(ids.max()) + 1 - len(table), -1, np.int64)]
    new = np.unique(ids[table[ids] < 0])
    if len(new):
        first = len(state.start)
        table[new] = first + np.arange(len(new))
        state.start = np.r_[state.start, np.zeros(len(new))]
        state.last_var = np.r_[state.last_var, np.full(len(new), -1, np.int64)]
        state.last_period = np.r_[state.last_period, np.full(len(new), -1, np.int64)]
        state.ent_kind = np.r_[state.ent_kind, np.full(len(new), kind, np.int8)]
    return table


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


def _match_block(sc, swiss: np.ndarray, entry_var: np.ndarray, share: np.ndarray, y: np.ndarray, w: np.ndarray):
    """CSR block of the Swiss entries' rows: the pair's own k unknowns (coefficients ``share``),
    then k per match (−share / matches)."""
    k = entry_var.shape[1]
    ms = np.asarray(sc.match_start, np.int64)
    counts = ms[swiss + 1] - ms[swiss]
    mrows = np.concatenate([np.arange(ms[e], ms[e + 1]) for e in swiss])
    opp = np.asarray(sc.match_opp, np.int64)[mrows]
    indptr = np.zeros(len(swiss) + 1, np.int64)
    np.cumsum(k + k * counts, out=indptr[1:])
    indices = np.empty(indptr[-1], np.int64)
    data = np.empty(indptr[-1])
    own = indptr[:-1]
    for j in range(k):
        indices[own + j] = entry_var[swiss, j]
        data[own + j] = share[j]
    pos = np.repeat(own + k, k * counts) + (np.arange(k * counts.sum()) -
                                            np.repeat(np.cumsum(k * counts) - k * counts, k * counts))
    indices[pos] = entry_var[opp].ravel()
    data[pos] = np.tile(share, int(counts.sum())) * np.repeat(-1.0 / counts, k * counts)
    return [indptr, indices, data, y, w, None, None]


def _append_rows(state: OfflineState, rows_c, rows_v, rows_y, rows_w) -> int:
    """Append the walk, prior and plain observation rows as one CSR block (unused slots
    dropped); returns the number of rows."""
    width = max(rc.shape[1] for rc in rows_c)
    c = np.concatenate([np.pad(rc, ((0, 0), (0, width - rc.shape[1])), constant_values=-1) for rc in rows_c])
    v = np.concatenate([np.pad(rv, ((0, 0), (0, width - rv.shape[1]))) for rv in rows_v])
    nz = (c >= 0) & (v != 0)
    indptr = np.zeros(len(c) + 1, np.int64)
    np.cumsum(nz.sum(1), out=indptr[1:])
    state.blocks.append([indptr, c[nz], v[nz], np.concatenate(rows_y), np.concatenate(rows_w), None, None])
    return len(c)


def _book_unknowns(state: OfflineState, u: _Unknowns, levels: _Levels, n_vars: int,
                   intercept_period: np.ndarray) -> None:
    """Grow the unknowns to ``n_vars`` — the new entity unknowns, the new club levels, then
    the intercepts (each with its session's period) — warm-started at the entity's previous
    strength (grade points), and record each entity's latest unknown and period."""
    new_var = u.var_of_uniq[u.new_idx]
    x0 = np.zeros(n_vars)
    x0[:len(state.x)] = state.x
    prev_value = np.where(u.prev_var >= 0, x0[np.maximum(u.prev_var, 0)], state.start[u.uniq_pl[u.new_idx]])
    x0[new_var] = prev_value  # warm start: the entity's previous strength
    state.x = x0
    period = int(u.uniq_per.max()) if len(u.uniq_per) else max(state.max_period, 0)
    state.var_player = np.concatenate([state.var_player, u.uniq_pl[u.new_idx], levels.new_ents,
                                       np.full(len(intercept_period), -1, np.int64)])
    state.var_period = np.concatenate([state.var_period, u.uniq_per[u.new_idx],
                                       np.full(len(levels.new_ents), period, np.int64), intercept_period])
    last = np.r_[u.uniq_pl[1:] != u.uniq_pl[:-1], True]
    state.last_var[u.uniq_pl[last]] = u.var_of_uniq[last]
    state.last_period[u.uniq_pl[last]] = u.uniq_per[last]
    state.last_var[levels.new_ents] = levels.new_vars
    state.last_period[levels.new_ents] = period
    if len(u.uniq_per):
        state.max_period = max(state.max_period, int(u.uniq_per.max()))
    state.n_vars = n_vars


SCHEME = OfflineScheme
