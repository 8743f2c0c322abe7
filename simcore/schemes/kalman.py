"""``kalman``: a per-player Kalman filter on session results, with club levels (issue 17).

Model (grade points throughout).  A player's strength is his club's level
plus his own part, θ_p = L_{c(p)} + d_p; his club c(p) is the venue of his
first club session (none until then: L = 0).  The filter keeps, per player,
a belief N(μ_p, v_p) on d_p and, per club, a belief N(L_c, V_c) on its level;
the player's grade is L_{c(p)} + μ_p.  Why levels: play inside a club says
only how its members stand against each other, so a per-player filter
becomes sure of each member long before anything is known of the club's
level against other clubs, and then barely moves when a visitor's results
say the whole club is misplaced (the club bias NGS shows too).  A level
shared by the club's players carries that common uncertainty at O(1) cost.

Between sessions a player's own strength follows a random walk, so its
variance grows with time away; levels do not drift:

    v ← v + drift · Δdays / 365.25

A pair (a, b) in a session produces one observation, its performance in
grade units against its field — the same quantity NGS grades:

    y = s + SOpp

with s the pair's standardised score through NGS's conversions
(``field.standard_score``: MP p − 50, Butler 5.4·i/x, cross-IMPs and team
events 6.48·i/x, aggregate (g − μ)/(8.2·x)) and SOpp the field's strength
exactly as NGS takes it (``field.strength_of_opponents`` on the players'
current grades).  Its expectation is (θ_a + θ_b)/2 and its noise variance

    R = board_sd² / x · (1 + 1/n) / event weight

for x boards played against a field of n ranked pairs (a small field
measures a pair less precisely), a green-pointed session counting double by
default.  The levels enter through h_c, the pair's share of club c minus
its field's share (SOpp's field: the other pairs of its group, or its match
opponents): zero for every club when a club plays at home, ±½ when a
visitor partners a home player.  The pair's predictive variance is

    S = (v_a + v_b)/4 + R + mean(v of the field)/(2n) + Σ_c h_c² V_c

and with the innovation r = y − (grade_a + grade_b)/2 each partner takes
the share of the update its variance asks for:

    K_a = (v_a / 2) / S,   μ_a ← μ_a + K_a · r,   v_a ← v_a − K_a · v_a / 2

(likewise b), so a newcomer next to an established partner moves a lot and
the partner little.  A session's pieces of evidence on a level are combined
in information form: 1/V_c ← 1/V_c + Σ_e h_c² / S_e and
L_c ← L_c + V_c(new) · Σ_e h_c r_e / S_e.  All pairs of a session are
updated from the beliefs before it (simultaneously).  The partners' and
the clubs' cross-covariances are not carried (O(1) state per player and per
club).  Beliefs start at N(start, prior_sd²) relative to the club's level
(a newcomer starts at the newcomer grade above or below his club's
level; a club's level starts at N(0, level_sd²)); ``level_sd=0`` is the
plain per-player filter.  Every player is filtered (guests too, so a field
with guests is measured); grades are published for members only.  Like
NGS, the online room is not graded.  First beliefs follow NGS's rule: the
start grade (50) for players already playing, the newcomer grade (42) for
others, or an explicit initial grade.

Parameters from the world (``simcore.world``): a session's noise is the
bridge model's — an equal pair's MP % over b boards played n times has sd
sqrt(F·(2500/3)·(n+1)/(n−1)/b) with flatness F ≈ 0.90 (SPEC §2), i.e.
board_sd ≈ 27-31 in grade units (28); true strengths do not random-walk in
the world: they step (2 % of players a year, 3 points: 0.18 grade points² a
year), decline (20 % lose 0.3 a year) and learners gain 6 over 3 years, so
an established player's strength gains about 0.2 grade points² of variance
a year (``drift``).  The tuning on ``default``, seed 1 (Params) agreed.

Cost: O(1) per player-session plus the field (SOpp, and the field's club
shares: O(n) a pair, as NGS).

Corrected sessions: a filter cannot forget the session a correction replaces, so the first
publication stands and the correction (``ScoredResults.replaces``) is ignored
(``corrections = "first"``): no session is filtered twice.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from simcore._jit import kernel
from simcore.results import EVENT_CLUB, KIND_ONLINE
from simcore.schemes import PlayerTable, SchemeBase
from simcore.schemes.field import _SOPP_BY_MATCHES, standard_score, strength_of_opponents
from simcore.schemes.ngs import Params as _NGSParams

_NGS = _NGSParams()
NEVER = -(2 ** 40)  # last-seen day of a player not yet seen
H_EPS = 1e-9  # a club share below this is rounding (a field all of the pair's own club)


def _p(default, help, **meta):  # noqa: A002
    return field(default=default, metadata={"help": help, **meta})


@dataclass(frozen=True)
class Params:
    """kalman parameters (grade points, days).

    ``board_sd`` and ``drift`` are derived from the world (module docstring)
    and were checked, with ``level_sd`` and ``prior_sd``, on ``default``,
    seed 1, 2 years, one replicate, by RMSE at the last snapshot (players
    with 300 boards or more): board_sd 24/28/32 × drift 0.1/0.2/0.4 ×
    level_sd 2/4 gave 2.056-2.069 (ngs(gain=2) 2.440; the best, board_sd 28,
    flat in drift and level_sd within 0.002), prior_sd 4/5/6 at board_sd 28
    2.080/2.057/2.065.  Without levels (level_sd=0) the best earlier tuning
    (board_sd 14, drift 1) gave 2.379 and the derived 28/0.2 2.428: a
    per-player filter needs an over-eager gain to make up for the club
    levels it cannot see.  The frontier study evaluates the defaults on other
    seeds and scenarios.
    """

    prior_mean: float = _p(_NGS.start_grade, "mean of the first belief of a player already playing when the "
                           "scheme started (grade points; NGS's start grade)")
    newcomer_mean: float = _p(_NGS.initial_grade, "mean of a newcomer's first belief (grade points; NGS's "
                              "newcomer grade)")
    prior_sd: float = _p(5.0, "sd of a new player's belief (grade points)", min=1e-6)
    drift: float = _p(0.2, "variance a player's strength gains a year (grade points²)", min=0.0)
    board_sd: float = _p(28.0, "sd of one board's result in grade units (a session of x boards: board_sd/√x)",
                         min=1e-6)
    level_sd: float = _p(3.0, "sd of a club's level before any evidence on it (grade points; 0: no club levels)",
                         min=0.0)
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
    """Per player: the own part of the belief mean ``mu`` and its variance ``var`` (grade points,
    grade points²), ``last`` day seen, ``pool`` the player's club (−1 until his first club session).
    Per club: ``level`` and ``level_var`` (grade points, grade points²).  A player's grade is
    ``mu + level[pool]``."""

    mu: np.ndarray
    var: np.ndarray
    last: np.ndarray
    member: np.ndarray
    start: np.ndarray  # initial mean of each player (explicit initial grade or prior_mean)
    pool: np.ndarray
    level: np.ndarray
    level_var: np.ndarray

    @property
    def n_players(self) -> int:
        return len(self.mu)

    def grade_means(self) -> np.ndarray:
        """Each player's belief mean (grade points): own part + his club's level."""
        lev = np.append(self.level, 0.0)  # pool −1 reads the trailing 0
        return self.mu + lev[self.pool]


@kernel(refcount=False, helper=True)
def _predict(s, day, event, club, pair_start, pair_players, belief, levels, pr, mu):
    """Beliefs of everyone at session ``s`` on its day; ``mu[p]`` = level + own part (grade points)."""
    own, var, last, start, pool = belief
    level = levels[0]
    d = day[s]
    for e in range(pair_start[s], pair_start[s + 1]):
        for j in range(2):
            p = pair_players[e, j]
            if last[p] == NEVER:
                own[p] = start[p]
                var[p] = pr[P_VAR0]
                if event[s] == EVENT_CLUB:
                    pool[p] = club[s]  # a newcomer's start is relative to the club's level
            else:
                var[p] += pr[P_DRIFT] * max(d - last[p], 0)
                if pool[p] < 0 and event[s] == EVENT_CLUB:
                    pool[p] = club[s]
                    own[p] -= level[club[s]]  # first club session: the grade carries on
            last[p] = d
            mu[p] = own[p] + (level[pool[p]] if pool[p] >= 0 else 0.0)


@kernel(refcount=False, helper=True)
def _add_pair_share(f, amount, pair_players, pool, h, seen, touched, k):
    """h[c] += amount for the club c of each of pair f's players (a player with no club adds nothing);
    a club not yet ``seen`` is appended to ``touched``.  Returns the new count of ``touched``."""
    for j in range(2):
        c = pool[pair_players[f, j]]
        if c >= 0:
            if not seen[c]:
                seen[c] = True
                touched[k] = c
                k += 1
            h[c] += amount
    return k


@kernel(refcount=False, helper=True)
def _field_levels(e, e0, e1, swiss, pair_players, pair_group, match_start, match_opp, pool, h, seen, touched):
    """h[c] = (pair e's share of club c) − (its field's share of club c); returns how many clubs ``touched``
    holds.  The field is SOpp's: the other pairs of its group, or its match opponents (Swiss)."""
    k = 0
    if swiss:
        n = match_start[e + 1] - match_start[e]
        for m in range(match_start[e], match_start[e + 1]):
            k = _add_pair_share(match_opp[m], -0.5 / n, pair_players, pool, h, seen, touched, k)
    else:
        n = 0
        for f in range(e0, e1):
            if f != e and pair_group[f] == pair_group[e]:
                n += 1
        for f in range(e0, e1):
            if f != e and pair_group[f] == pair_group[e]:
                k = _add_pair_share(f, -0.5 / n, pair_players, pool, h, seen, touched, k)
    return _add_pair_share(e, 0.5, pair_players, pool, h, seen, touched, k)


@kernel(refcount=False)
def _apply_kernel(sessions, entries, belief, levels, pr, weights, tmp, out_after):
    """Filter sessions ``order`` in turn (see the module docstring).

    sessions: (order, day, kind, scoring, event, club, pair_start)
    entries:  (pair_players, pair_group, pair_boards, pair_score, pair_n_ranked, match_start, match_opp)
    belief:   (own, var, last, start, pool) per player, updated in place
    levels:   (level, level_var, info, pull) per club: level mean and variance (updated in place) and
              scratch zeros
    tmp:      (sopp, field_var, new_a, new_b, mu, h, seen, touched, club_touched) scratch: E, E, E, E, P
              and four of the number of clubs (h zeros, seen False)
    out_after (E, 2): each player's grade (level + own part) right after the session.
    """
    order, day, kind, scoring, event, club, pair_start = sessions
    pair_players, pair_group, pair_boards, pair_score, pair_n_ranked, match_start, match_opp = entries
    own, var, last, start, pool = belief
    level, level_var, info, pull = levels
    sopp, field_var, new_a, new_b, mu, h, seen, touched, club_touched = tmp
    for k in range(order.shape[0]):
        s = order[k]
        e0, e1 = pair_start[s], pair_start[s + 1]
        if kind[s] == KIND_ONLINE:
            continue
        swiss = _SOPP_BY_MATCHES[kind[s]]
        _predict(s, day, event, club, pair_start, pair_players, belief, levels, pr, mu)
        strength_of_opponents(s, kind, pair_start, pair_players, pair_group, match_start, match_opp, mu, sopp)
        strength_of_opponents(s, kind, pair_start, pair_players, pair_group, match_start, match_opp, var,
                              field_var)
        n_club = 0
        # update: every pair against the field as it stood before the session (simultaneous)
        for e in range(e0, e1):
            a, b = pair_players[e, 0], pair_players[e, 1]
            new_a[e] = own[a]
            new_b[e] = own[b]
            if np.isnan(sopp[e]):
                continue  # nobody to be measured against
            n = max(pair_n_ranked[e], 1)
            y = standard_score(scoring[s], pair_score[e], pair_boards[e], pr[P_BUTLER], pr[P_CROSS],
                               pr[P_AGG]) + sopp[e]
            x = max(pair_boards[e], 1)
            r_noise = pr[P_BOARD_VAR] / x * (1.0 + 1.0 / n) / weights[event[s]]
            n_h = _field_levels(e, e0, e1, swiss, pair_players, pair_group, match_start, match_opp, pool, h,
                                seen, touched)
            level_term = 0.0
            for i in range(n_h):
                c = touched[i]
                level_term += h[c] * h[c] * level_var[c]
            va, vb = var[a], var[b]
            s_tot = 0.25 * (va + vb) + r_noise + field_var[e] / (2.0 * n) + level_term
            innovation = y - 0.5 * (mu[a] + mu[b])
            for i in range(n_h):
                c = touched[i]
                if abs(h[c]) > H_EPS and level_var[c] > 0.0:  # a home field's shares cancel
                    if info[c] == 0.0:
                        club_touched[n_club] = c
                        n_club += 1
                    info[c] += h[c] * h[c] / s_tot
                    pull[c] += h[c] * innovation / s_tot
                h[c] = 0.0
                seen[c] = False
            ka = 0.5 * va / s_tot
            kb = 0.5 * vb / s_tot
            new_a[e] = own[a] + ka * innovation
            new_b[e] = own[b] + kb * innovation
            var[a] = va - ka * 0.5 * va
            var[b] = vb - kb * 0.5 * vb
        # club levels: the session's pieces of evidence on a club combined in information form
        for i in range(n_club):
            c = club_touched[i]
            post = 1.0 / (1.0 / level_var[c] + info[c])
            level[c] += post * pull[c]
            level_var[c] = post
            info[c] = 0.0
            pull[c] = 0.0
        for e in range(e0, e1):
            a, b = pair_players[e, 0], pair_players[e, 1]
            own[a] = new_a[e]
            own[b] = new_b[e]
        for e in range(e0, e1):
            for j in range(2):
                p = pair_players[e, j]
                out_after[e, j] = own[p] + (level[pool[p]] if pool[p] >= 0 else 0.0)


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
                           start=start, pool=np.full(P, -1, np.int32), level=np.zeros(0), level_var=np.zeros(0))

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
        club = i32(sc.club)
        if len(club) and club.min() < 0:
            bad = int(np.flatnonzero(club < 0)[0])
            raise ValueError(f"kalman: session {bad} has club {club[bad]}; club ids must be >= 0")
        C = int(club.max()) + 1 if len(club) else 0
        if C > len(state.level):  # clubs met for the first time: a level with no evidence yet
            grow = C - len(state.level)
            state.level = np.concatenate([state.level, np.zeros(grow)])
            state.level_var = np.concatenate([state.level_var, np.full(grow, self.params.level_sd ** 2)])
        C = len(state.level)
        sessions = (i32(sc.order), np.asarray(sc.day, np.int64), np.asarray(sc.kind, np.int8),
                    np.asarray(sc.scoring, np.int8), np.asarray(sc.event, np.int8), club,
                    np.asarray(sc.pair_start, np.int64))
        entries = (i32(sc.pair_players), i32(sc.pair_group), i32(sc.pair_boards),
                   np.asarray(sc.pair_score, np.float64), i32(sc.pair_n_ranked),
                   np.asarray(sc.match_start, np.int64), i32(sc.match_opp))
        tmp = (np.full(E, np.nan), np.full(E, np.nan), np.empty(E), np.empty(E), np.empty(state.n_players),
               np.zeros(C), np.zeros(C, np.bool_), np.empty(C, np.int32), np.empty(C, np.int32))
        levels = (state.level, state.level_var, np.zeros(C), np.zeros(C))
        _apply_kernel(sessions, entries, (state.mu, state.var, state.last, state.start, state.pool), levels,
                      self.params.vector(), self.params.weights(), tmp, out_after)
        # sessions not filtered (the online room) leave NaN, as the protocol asks
        skipped = np.repeat(np.asarray(sc.kind) == KIND_ONLINE, np.diff(sc.pair_start))
        out_after[skipped] = np.nan

    def grades(self, state: KalmanState, day: int) -> np.ndarray:
        """Belief means (grade points) of members seen at least once; NaN otherwise."""
        return np.where((state.last != NEVER) & state.member, state.grade_means(), np.nan)

    def extras(self, state: KalmanState, day: int) -> dict:
        """sd: each player's belief sd on ``day`` (grade points; NaN if never seen)."""
        lev_var = np.append(state.level_var, 0.0)[state.pool]
        grown = state.var + lev_var + self.params.drift / 365.25 * np.maximum(day - state.last, 0)
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
