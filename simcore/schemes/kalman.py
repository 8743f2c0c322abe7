"""``kalman``: a per-player Kalman filter on session results (issue 17).

Model (grade points throughout).  Each player has a belief N(μ, v) about
his current strength.  Between sessions strength follows a random walk, so
the variance grows with time away:

    v ← v + drift · Δdays / 365.25

A pair (a, b) in a session produces one observation, its performance in
grade units against its field — the same quantity NGS grades:

    y = s + SOpp

with s the pair's standardised score through NGS's conversions
(``field.standard_score``: MP p − 50, Butler 5.4·i/x, cross-IMPs and team
events 6.48·i/x, aggregate (g − μ)/(8.2·x)) and SOpp the field's strength
exactly as NGS takes it (``field.strength_of_opponents`` on the players'
current means).  Its expectation is (μ_a + μ_b)/2 and its noise variance

    R = board_sd² / x · (1 + 1/n) / event weight

for x boards played against a field of n ranked pairs (a small field
measures a pair less precisely), a green-pointed session counting double by
default.  The field's own uncertainty, mean(v of field players) / (2n), is
added, as are the pair's: S = (v_a + v_b)/4 + R + field term.  With the
innovation r = y − (μ_a + μ_b)/2 each partner takes the share of the update
its variance asks for:

    K_a = (v_a / 2) / S,   μ_a ← μ_a + K_a · r,   v_a ← v_a − K_a · v_a / 2

(likewise b), so a newcomer next to an established partner moves a lot and
the partner little.  The partners' cross-covariance is not carried (O(1)
state per player).  Beliefs start at N(prior_mean or newcomer_mean, prior_sd²),
or at an explicit initial grade.  Every player is filtered (guests too, so a field
with guests is measured); grades are published for members only.  Like NGS,
the online room is not graded.  First beliefs follow NGS's rule: the start
grade (50) for players already playing, the newcomer grade (42) for others.

Cost: O(1) per player-session plus SOpp (O(n) a pair, as NGS).

Corrected sessions: a filter cannot forget the session a correction replaces, so the first
publication stands and the correction (``ScoredResults.replaces``) is ignored
(``corrections = "first"``): no session is filtered twice.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from simcore._jit import kernel
from simcore.results import KIND_ONLINE
from simcore.schemes import PlayerTable, SchemeBase
from simcore.schemes.field import standard_score, strength_of_opponents
from simcore.schemes.ngs import Params as _NGSParams

_NGS = _NGSParams()
NEVER = -(2 ** 40)  # last-seen day of a player not yet seen


def _p(default, help, **meta):  # noqa: A002
    return field(default=default, metadata={"help": help, **meta})


@dataclass(frozen=True)
class Params:
    """kalman parameters (grade points, days).

    ``board_sd`` and ``drift`` were tuned on ``default``, seed 1, 2 years, by
    RMSE at the last snapshot (board_sd 10-45 x drift 0.2-6, prior_sd 3/5/7:
    board_sd 13-14 with drift 0.5-1 were best, 2.60 against ngs(gain=2)'s
    2.66); the frontier study evaluates them on other seeds and scenarios.
    """

    prior_mean: float = _p(_NGS.start_grade, "mean of the first belief of a player already playing when the "
                           "scheme started (grade points; NGS's start grade)")
    newcomer_mean: float = _p(_NGS.initial_grade, "mean of a newcomer's first belief (grade points; NGS's "
                              "newcomer grade)")
    prior_sd: float = _p(5.0, "sd of a new player's belief (grade points)", min=1e-6)
    drift: float = _p(1.0, "variance a player's strength gains a year (grade points²)", min=0.0)
    board_sd: float = _p(14.0, "sd of one board's result in grade units (a session of x boards: board_sd/√x)",
                         min=1e-6)
    weight_club: float = _p(1.0, "event weight of club sessions (divides the noise variance)", min=1e-9)
    weight_black: float = _p(1.0, "event weight of black-pointed events", min=1e-9)
    weight_green: float = _p(2.0, "event weight of green-pointed events", min=1e-9)
    butler_factor: float = _p(_NGS.butler_factor, "MP % per Butler IMP per board (as NGS)", min=0.0)
    cross_imp_factor: float = _p(_NGS.cross_imp_factor, "MP % per cross-IMP per board (as NGS)", min=0.0)
    aggregate_factor: float = _p(_NGS.aggregate_factor, "aggregate points per MP % per board (as NGS)", min=1e-9)

    def vector(self) -> np.ndarray:
        return np.array([self.prior_mean, self.prior_sd ** 2, self.drift / 365.25, self.board_sd ** 2,
                         self.butler_factor, self.cross_imp_factor, self.aggregate_factor], np.float64)

    def weights(self) -> np.ndarray:
        return np.array([self.weight_club, self.weight_black, self.weight_green], np.float64)


(P_MEAN, P_VAR0, P_DRIFT, P_BOARD_VAR, P_BUTLER, P_CROSS, P_AGG) = range(7)


@dataclass
class KalmanState:
    """Per player: belief mean ``mu`` and variance ``var`` (grade points, grade points²), ``last`` day seen."""

    mu: np.ndarray
    var: np.ndarray
    last: np.ndarray
    member: np.ndarray
    start: np.ndarray  # initial mean of each player (explicit initial grade or prior_mean)

    @property
    def n_players(self) -> int:
        return len(self.mu)


@kernel(refcount=False)
def _apply_kernel(sessions, entries, belief, pr, weights, tmp, out_after):
    """Filter sessions ``order`` in turn (see the module docstring).

    sessions: (order, day, kind, scoring, event, pair_start)
    entries:  (pair_players, pair_group, pair_boards, pair_score, pair_n_ranked, match_start, match_opp)
    belief:   (mu, var, last, start)  updated in place
    tmp:      (sopp, field_var, new_a, new_b) scratch of length E
    out_after (E, 2): each player's mean right after the session.
    """
    order, day, kind, scoring, event, pair_start = sessions
    pair_players, pair_group, pair_boards, pair_score, pair_n_ranked, match_start, match_opp = entries
    mu, var, last, start = belief
    sopp, field_var, new_a, new_b = tmp
    for k in range(order.shape[0]):
        s = order[k]
        e0, e1 = pair_start[s], pair_start[s + 1]
        if kind[s] == KIND_ONLINE:
            continue
        d = day[s]
        # predict: beliefs of everyone at the table on the day of play
        for e in range(e0, e1):
            for j in range(2):
                p = pair_players[e, j]
                if last[p] == NEVER:
                    mu[p] = start[p]
                    var[p] = pr[P_VAR0]
                else:
                    var[p] += pr[P_DRIFT] * max(d - last[p], 0)
                last[p] = d
        strength_of_opponents(s, kind, pair_start, pair_players, pair_group, match_start, match_opp, mu, sopp)
        strength_of_opponents(s, kind, pair_start, pair_players, pair_group, match_start, match_opp, var,
                              field_var)
        # update: every pair against the field as it stood before the session (simultaneous)
        for e in range(e0, e1):
            a, b = pair_players[e, 0], pair_players[e, 1]
            new_a[e] = mu[a]
            new_b[e] = mu[b]
            if np.isnan(sopp[e]):
                continue  # nobody to be measured against
            n = max(pair_n_ranked[e], 1)
            y = standard_score(scoring[s], pair_score[e], pair_boards[e], pr[P_BUTLER], pr[P_CROSS],
                               pr[P_AGG]) + sopp[e]
            x = max(pair_boards[e], 1)
            r_noise = pr[P_BOARD_VAR] / x * (1.0 + 1.0 / n) / weights[event[s]]
            va, vb = var[a], var[b]
            s_tot = 0.25 * (va + vb) + r_noise + field_var[e] / (2.0 * n)
            innovation = y - 0.5 * (mu[a] + mu[b])
            ka = 0.5 * va / s_tot
            kb = 0.5 * vb / s_tot
            new_a[e] = mu[a] + ka * innovation
            new_b[e] = mu[b] + kb * innovation
            var[a] = va - ka * 0.5 * va
            var[b] = vb - kb * 0.5 * vb
        for e in range(e0, e1):
            a, b = pair_players[e, 0], pair_players[e, 1]
            mu[a] = new_a[e]
            mu[b] = new_b[e]
            out_after[e, 0] = mu[a]
            out_after[e, 1] = mu[b]


class KalmanScheme(SchemeBase):
    """The kalman scheme (``Scheme`` protocol)."""
    corrections = "first"

    default_variants = ()  # a study scheme: run it by name (simcore run --schemes kalman)

    def __init__(self, params: Params | None = None):
        self.params = params or Params()

    def new_state(self, players: PlayerTable, n_partnerships: int = 0) -> KalmanState:
        P = players.n_players
        explicit = np.asarray(players.initial_grade, np.float64)
        rule = np.where(np.asarray(players.at_start, bool), self.params.prior_mean, self.params.newcomer_mean)
        start = np.where(np.isnan(explicit), rule, explicit)
        return KalmanState(mu=start.copy(), var=np.full(P, self.params.prior_sd ** 2),
                           last=np.full(P, NEVER, np.int64), member=np.asarray(players.member, bool).copy(),
                           start=start)

    def grow(self, state: KalmanState, n_partnerships: int) -> KalmanState:
        return state  # no partnership-level state

    def apply(self, state: KalmanState, scored, out_after: np.ndarray) -> None:
        """Filter ``scored`` (see the Scheme protocol); ``out_after`` gets each player's mean (grade points)."""
        sc = scored
        _validate(state, sc, out_after)
        E = sc.n_entries
        out_after[:] = np.nan
        if E == 0:
            return
        i32 = lambda a: np.asarray(a, np.int32)  # noqa: E731
        sessions = (i32(sc.order), np.asarray(sc.day, np.int64), np.asarray(sc.kind, np.int8),
                    np.asarray(sc.scoring, np.int8), np.asarray(sc.event, np.int8),
                    np.asarray(sc.pair_start, np.int64))
        entries = (i32(sc.pair_players), i32(sc.pair_group), i32(sc.pair_boards),
                   np.asarray(sc.pair_score, np.float64), i32(sc.pair_n_ranked),
                   np.asarray(sc.match_start, np.int64), i32(sc.match_opp))
        tmp = (np.full(E, np.nan), np.full(E, np.nan), np.empty(E), np.empty(E))
        _apply_kernel(sessions, entries, (state.mu, state.var, state.last, state.start), self.params.vector(),
                      self.params.weights(), tmp, out_after)
        # sessions not filtered (the online room) leave NaN, as the protocol asks
        skipped = np.repeat(np.asarray(sc.kind) == KIND_ONLINE, np.diff(sc.pair_start))
        out_after[skipped] = np.nan

    def grades(self, state: KalmanState, day: int) -> np.ndarray:
        """Belief means (grade points) of members seen at least once; NaN otherwise."""
        return np.where((state.last != NEVER) & state.member, state.mu, np.nan)

    def extras(self, state: KalmanState, day: int) -> dict:
        """sd: each player's belief sd on ``day`` (grade points; NaN if never seen)."""
        grown = state.var + self.params.drift / 365.25 * np.maximum(day - state.last, 0)
        return {"sd": np.where(state.last != NEVER, np.sqrt(grown), np.nan)}


def _validate(state: KalmanState, sc, out_after) -> None:
    E = sc.n_entries
    if out_after.shape != (E, 2):
        raise ValueError(f"kalman: out_after has shape {out_after.shape}, expected ({E}, 2)")
    P = state.n_players
    if E and not (0 <= sc.pair_players.min() and sc.pair_players.max() < P):
        bad = int(np.flatnonzero(((sc.pair_players < 0) | (sc.pair_players >= P)).any(1))[0])
        raise ValueError(f"kalman: pair_players row {bad} is {sc.pair_players[bad].tolist()}; "
                         f"player ids must be in 0..{P - 1}")
    bad = np.flatnonzero(~np.isfinite(np.asarray(sc.pair_score, np.float64)))
    if len(bad):
        raise ValueError(f"kalman: pair_score row {int(bad[0])} is {sc.pair_score[bad[0]]}; scores must be finite")


SCHEME = KalmanScheme
