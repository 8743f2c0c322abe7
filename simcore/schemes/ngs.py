"""The EBU National Grading Scheme (SPEC §1.2; seed 001, v15a).

Session grades (grade points), per known pair (a, b) of a graded session:

    SG_a = G_a + [RPCF·(G_b − G_a)/2] + gain · (s + SOpp − (G_a + G_b)/2)

with G the current grades at the start of the session, gain 2 by default (seed
001 FAQ 42: "Gain is currently set to 2 (as it has been since the scheme was
initialised)"; ``ngs(gain=1)``, the Full Guide's "natural" value, and
``ngs(gain=1.5)`` are variants), SOpp the strength of
opponents (``field.strength_of_opponents``: the other pairs' players for a
one-winner session, the other pairs of the same direction for a two-winner
one and multiple teams, the match opponents for Swiss events) and s the
pair's performance as an MP % above 50:

    match points   p − 50
    Butler IMPs    butler_factor · i / x        (5.4; FR18 suggests 5.10)
    cross-IMPs     cross_imp_factor · i / x     (6.48 = 5.4 × 1.2; FR18 6.12; team events too)
    aggregate      (g − μ) / (aggregate_factor · x)   (8.2; two-winner only)

(x = boards the pair played).  The RPCF term applies when both players have
played more than ``rpcf_share`` of their counted sessions (the sessions in
their current window) with each other (RPCF 0.75 since April 2013; 0 = off).

Current grade: the weighted mean of a player's session grades with the
straight-line decay over the last ``window`` boards (2000; 1000 before 2013)
and within ``limit_days`` (three years), kept incrementally
(``decay``: ``line``, or ``exponential``/``rectangle``/``trapezium`` for
comparisons).  A session's weight is multiplied by its event factor (club 1,
black 1, green 2; before 2013 1/2/3) — or, with ``weight_mode="boards"``,
the factor multiplies the boards it takes from the window (the guide is
ambiguous; SPEC's default is the weight).  Until a player has played
``pad_boards`` (300) boards in a three-year period, the history is padded to
300 boards at the player's initial grade: ``start_grade`` (50) for players
already playing when the scheme started, ``green_initial_grade`` (55) when
the first event is green-pointed, else ``initial_grade`` (42); a player
back after three years away (all sessions expired) starts again at
``returner_grade`` (50) with the padding (FR 11).

Unknown players (FR 12): a pair with a non-member is unknown (its member
too, for that session); their assumed grades make the field SoF = (Σ members'
grades + Σ unknowns' standardised scores) / (number of members), so unknown
pairs' session grades equal their assumed grades and cause no drift; a
session needs more than ``known_share`` (2/3) of its pairs known to be graded.
NGS does not grade the online room.

Partnership grades (``partnership_grades=True``): the same formulas on each
partnership's own history, its expected performance from the partnership
grade (initially the mean of the two current grades); published once the
pair has ``partnership_boards`` (300) boards together within three years.

Chronology: sessions are processed in ``ScoredResults.order``; a late-scored
session enters each player's history in date-of-play order without
recomputing later sessions; a session that ``replaces`` another first
removes that session from every history (the grades are recomputed without
it), then is graded itself.

Status (``extras``): 0 provisional (< 300 boards ever), 1 evolving, 2 mature
(≥ 1000 boards within three years), 3 out of date (< 300 within three years
after having had 300).  Bands: Two (< 39) … King (59–61), then Ace of
Clubs / Diamonds / Hearts / Spades (61–63 / 63–65 / 65–67 / 67+).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from simcore._jit import kernel
from simcore.results import EVENT_GREEN, KIND_ONLINE, SCORING_AGGREGATE
from simcore.schemes import PlayerTable, SchemeBase
from simcore.schemes.decay import (EINIT, ET, ICAP, IEVER, ICNT, ISESS, ITOTAL, RDAY, RPID, RSEQ, SHAPES, _phys, add_entities,
                    add_session, current_grade, grow_rings, kernel_shape, new_pool, pop_oldest, remove_at,
                    ring_boards)
from simcore.schemes.field import standard_score, strength_of_opponents

BANDS = ("Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten", "Jack", "Queen", "King",
         "Ace of Clubs", "Ace of Diamonds", "Ace of Hearts", "Ace of Spades")
STATUS = ("provisional", "evolving", "mature", "out of date")
HANDICAP_IMPS_PER_BOARD = 0.3086  # FR 7: IMPs per board per grade point of a team's mean grade


def _p(default, help, **meta):  # noqa: A002
    return field(default=default, metadata={"help": help, **meta})


@dataclass(frozen=True)
class Params:
    """NGS parameters (grade points, boards, days)."""

    gain: float = _p(2.0, "gain on the excess over par (the EBU runs 2, seed 001 FAQ 42; 1 natural and 1.5 are variants)",
                      min=0.0)
    window: float = _p(2000.0, "boards in the decay window (1000 before April 2013)", min=1.0)
    limit_days: int = _p(1096, "sessions older than this many days drop out (three years)", min=1)
    pad_boards: float = _p(300.0, "history padded to this many boards at the initial grade", min=0.0)
    initial_grade: float = _p(42.0, "initial grade of a newcomer (since October 2012)")
    green_initial_grade: float = _p(55.0, "initial grade when the first event is green-pointed")
    start_grade: float = _p(50.0, "initial grade of players playing when the scheme started")
    returner_grade: float = _p(50.0, "initial grade of a player back after three years away (FR 11)")
    weight_club: float = _p(1.0, "event weight of club sessions", min=0.0)
    weight_black: float = _p(1.0, "event weight of black-pointed events (2 before April 2013)", min=0.0)
    weight_green: float = _p(2.0, "event weight of green-pointed events (3 before April 2013)", min=0.0)
    weight_mode: str = _p("session", "the event weight multiplies the session's weight or the boards it "
                          "takes from the window", choices=("session", "boards"))
    butler_factor: float = _p(5.4, "MP % per Butler IMP per board (FR18: 5.10)", min=0.0)
    cross_imp_factor: float = _p(6.48, "MP % per cross-IMP per board (FR18: 6.12)", min=0.0)
    aggregate_factor: float = _p(8.2, "aggregate points per MP % per board", min=1e-9)
    rpcf: float = _p(0.75, "regular-partnership convergence factor (0 = off)", min=0.0, max=1.0)
    rpcf_share: float = _p(0.85, "share of counted sessions together that makes a regular pair", min=0.0,
                           max=1.0)
    known_share: float = _p(2.0 / 3.0, "a session is graded only with more than this share of known pairs",
                            min=0.0, max=1.0)
    decay: str = _p("line", "decay shape", choices=SHAPES)
    half_life: float = _p(1000.0, "exponential decay: half-life in boards", min=1e-9)
    flat: float = _p(1000.0, "trapezium decay: boards of full weight before the linear fall", min=0.0)
    partnership_grades: bool = _p(False, "also grade partnerships (memory grows with partnerships)")
    partnership_boards: float = _p(300.0, "boards together within three years before a partnership grade "
                                   "is published", min=0.0)
    provisional_boards: float = _p(300.0, "boards before a grade is published (evolving)", min=0.0)
    mature_boards: float = _p(1000.0, "boards within three years for a mature grade", min=0.0)

    def check(self) -> None:
        if self.decay == "trapezium" and not 0 < self.flat < self.window:
            raise ValueError(f"ngs: flat={self.flat} must lie between 0 and window={self.window} for the "
                             "trapezium decay")

    def shape(self):
        return kernel_shape(self.decay, self.window, self.flat, self.half_life)

    def weights(self) -> np.ndarray:
        return np.array([self.weight_club, self.weight_black, self.weight_green])

    def conversions(self) -> np.ndarray:
        return np.array([self.butler_factor, self.cross_imp_factor, self.aggregate_factor])


@dataclass
class NGSState:
    """Struct of arrays.  Entities: players 0..P−1, then tracked partnerships P + pid.

    ring_f (rows, 9) / ring_i (rows, 3): the pool of every entity's ring of
    sessions (see decay.py), ``pool_used`` rows of it handed out;
    ent_f (N, 8) / ent_i (N, 8): clock, bases, initial grade / ring head,
    count, boards ever, reached 300, sessions, ring offset and capacity.  pair_count (K, 2): sessions in
    the lower-id / higher-id player's ring with partnership k (RPCF).
    member, at_start, explicit (P): the PlayerTable.  seq_base: sessions
    processed before (sequence numbers for corrections).
    """

    ring_f: np.ndarray
    ring_i: np.ndarray
    ent_f: np.ndarray
    ent_i: np.ndarray
    pair_count: np.ndarray
    member: np.ndarray
    at_start: np.ndarray
    explicit: np.ndarray
    n_players: int
    n_tracked: int
    pair_low: np.ndarray
    pool_used: int = 0
    seq_base: int = 0

    @property
    def capacity(self) -> int:
        """The largest ring (sessions)."""
        return int(self.ent_i[:, ICAP].max()) if len(self.ent_i) else 0


# --- the kernel --------------------------------------------------------------------------

@kernel(refcount=False)
def _evict(ring_f, ring_i, ent_f, ent_i, ent, day, limit_days, window, tau, is_player, pair_count, pair_low):
    """Drop sessions beyond three years or beyond the window; keep RPCF counts in step."""
    limit = 40.0 * tau if tau > 0.0 else window
    while ent_i[ent, ICNT] > 0:
        p = _phys(ent_i, ent, 0)
        old = ring_i[p, RDAY] < day - limit_days
        beyond = ent_f[ent, ET] - ring_f[p, 0] >= limit
        if not (old or beyond):
            break
        if is_player:
            pid = ring_i[p, RPID]
            if pid >= 0 and pid < pair_count.shape[0]:
                pair_count[pid, 0 if pair_low[pid] == ent else 1] -= 1
        pop_oldest(ring_f, ent_f, ent_i, ent)


@kernel(refcount=False)
def _grade_now(ring_f, ring_i, ent_f, ent_i, ent, day, knots, alpha, beta, tau, pr, is_player, pair_count,
               pair_low):
    """Current grade of an entity on ``day`` (expiring old sessions first)."""
    _evict(ring_f, ring_i, ent_f, ent_i, ent, day, int(pr[P_LIMIT]), pr[P_WINDOW], tau, is_player, pair_count,
           pair_low)
    real = ring_boards(ent_f, ent)
    return current_grade(ring_f, ent_f, ent_i, ent, knots, alpha, beta, tau, pr[P_PAD], real)


# indices into the float parameter vector
(P_GAIN, P_WINDOW, P_LIMIT, P_PAD, P_INIT, P_GREEN_INIT, P_START, P_RETURN, P_RPCF, P_RPCF_SHARE,
 P_KNOWN, P_BUTLER, P_CROSS, P_AGG, P_BOARDS_MODE, P_PART_BOARDS) = range(16)


@kernel(refcount=False)
def _start_entity(ent_f, ent_i, ent, grade0):
    ent_f[ent, EINIT] = grade0
    ent_i[ent, IEVER] = 0


@kernel(refcount=False)
def _apply_kernel(order, day, kind, scoring, winners, event, replaces, pair_start, pair_players, pair_group,
                  pair_boards, pair_score, pair_partnership, match_start, match_opp, ring_f, ring_i, ent_f, ent_i,
                  pair_count, pair_low, member, at_start, explicit, n_players, n_tracked, seq_base, pr, weights,
                  knots, alpha, beta, tau, grade_tmp, known_tmp, sopp_tmp, sg_tmp, out_after, out_before,
                  want_after, first_index):
    """Grade sessions order[first_index:], returning the index reached.

    Returns len(order) when done, or the index of a session that needs a
    ring with more room (the caller grows the state and calls again).
    """
    gain = pr[P_GAIN]
    for k in range(first_index, order.shape[0]):
        s = order[k]
        if kind[s] == KIND_ONLINE:
            continue
        e0, e1 = pair_start[s], pair_start[s + 1]
        # room for one more session in every history this session touches
        for e in range(e0, e1):
            for j in range(2):
                if ent_i[pair_players[e, j], ICNT] >= ent_i[pair_players[e, j], ICAP] - 1:
                    return k
            pid = pair_partnership[e]
            if pid < n_tracked and ent_i[n_players + pid, ICNT] >= ent_i[n_players + pid, ICAP] - 1:
                return k
        # a correction: take the replaced session out of every history first
        r = replaces[s]
        if r >= 0:
            seq_r = seq_base + r
            for e in range(pair_start[r], pair_start[r + 1]):
                for j in range(3):
                    ent = pair_players[e, j] if j < 2 else n_players + pair_partnership[e]
                    if j == 2 and pair_partnership[e] >= n_tracked:
                        continue
                    for q in range(ent_i[ent, ICNT]):
                        p = _phys(ent_i, ent, q)
                        if ring_i[p, RSEQ] == seq_r:
                            if j < 2:
                                pid = ring_i[p, RPID]
                                if pid >= 0 and pid < pair_count.shape[0]:
                                    pair_count[pid, 0 if pair_low[pid] == ent else 1] -= 1
                            remove_at(ring_f, ring_i, ent_f, ent_i, ent, q, tau)
                            break
        # current grades of everyone in the session; unknown pairs
        n_pairs = e1 - e0
        n_known = 0
        for e in range(e0, e1):
            a, b = pair_players[e, 0], pair_players[e, 1]
            known = member[a] and member[b]
            known_tmp[e - e0] = known
            if known:
                n_known += 1
                for p in (a, b):
                    if ent_i[p, ISESS] == 0 and np.isnan(ent_f[p, EINIT]):
                        if not np.isnan(explicit[p]):
                            g0 = explicit[p]
                        elif at_start[p]:
                            g0 = pr[P_START]
                        elif event[s] == EVENT_GREEN:
                            g0 = pr[P_GREEN_INIT]
                        else:
                            g0 = pr[P_INIT]
                        _start_entity(ent_f, ent_i, p, g0)
                    grade_tmp[p] = _grade_now(ring_f, ring_i, ent_f, ent_i, p, day[s], knots, alpha, beta, tau,
                                              pr, True, pair_count, pair_low)
                    if ent_i[p, ICNT] == 0 and ent_i[p, ISESS] > 0:
                        # everything expired: back after three years away (FR 11)
                        _start_entity(ent_f, ent_i, p, pr[P_RETURN])
                        grade_tmp[p] = pr[P_RETURN]
        if n_known * 1.0 <= pr[P_KNOWN] * n_pairs:
            for e in range(e0, e1):
                out_after[e, 0] = np.nan
                out_after[e, 1] = np.nan
            continue
        # standardised scores; unknown players' assumed grades (FR 12), group by group
        x_boards = 0.0
        for e in range(e0, e1):
            x = max(pair_boards[e], 1)
            sg_tmp[e - e0] = standard_score(scoring[s], pair_score[e], pair_boards[e], pr[P_BUTLER], pr[P_CROSS],
                                            pr[P_AGG])
            x_boards += x
        for e in range(e0, e1):
            if known_tmp[e - e0]:
                continue
            grp = pair_group[e]
            total = 0.0
            members = 0
            for f in range(e0, e1):
                if pair_group[f] != grp:
                    continue
                if known_tmp[f - e0]:
                    total += grade_tmp[pair_players[f, 0]] + grade_tmp[pair_players[f, 1]]
                    members += 2
                else:
                    total += 2.0 * sg_tmp[f - e0]
            sof = total / members if members > 0 else 50.0
            for j in range(2):
                grade_tmp[pair_players[e, j]] = sof + sg_tmp[e - e0]
        strength_of_opponents(s, kind, pair_start, pair_players, pair_group, match_start, match_opp, grade_tmp,
                              sopp_tmp)
        # session grades from the grades at the start of the session
        for e in range(e0, e1):
            a, b = pair_players[e, 0], pair_players[e, 1]
            out_before[e, 0] = grade_tmp[a] if known_tmp[e - e0] else np.nan
            out_before[e, 1] = grade_tmp[b] if known_tmp[e - e0] else np.nan
        for e in range(e0, e1):
            if known_tmp[e - e0] and np.isnan(sopp_tmp[e]):
                known_tmp[e - e0] = 0  # nobody to be measured against: not graded this session
            if not known_tmp[e - e0]:
                out_after[e, 0] = np.nan
                out_after[e, 1] = np.nan
                continue
            a, b = pair_players[e, 0], pair_players[e, 1]
            ga, gb = grade_tmp[a], grade_tmp[b]
            excess = sg_tmp[e - e0] + sopp_tmp[e] - 0.5 * (ga + gb)
            pid = pair_partnership[e]
            regular = False
            if pr[P_RPCF] > 0.0 and pid < pair_count.shape[0]:
                na, nb = ent_i[a, ICNT], ent_i[b, ICNT]
                if na > 0 and nb > 0:
                    ca = pair_count[pid, 0 if pair_low[pid] == a else 1]
                    cb = pair_count[pid, 0 if pair_low[pid] == b else 1]
                    regular = ca > pr[P_RPCF_SHARE] * na and cb > pr[P_RPCF_SHARE] * nb
            conv = pr[P_RPCF] * 0.5 * (gb - ga) if regular else 0.0
            sopp_tmp[e] = ga + conv + gain * excess       # reuse: SG of a
            sg_tmp[e - e0] = gb - conv + gain * excess     # reuse: SG of b
            # partnership grade: expected performance from the partnership grade
            if pid < n_tracked:
                ent = n_players + pid
                if ent_i[ent, ISESS] == 0 and np.isnan(ent_f[ent, EINIT]):
                    _start_entity(ent_f, ent_i, ent, 0.5 * (ga + gb))
                pg = _grade_now(ring_f, ring_i, ent_f, ent_i, ent, day[s], knots, alpha, beta, tau, pr, False,
                                pair_count, pair_low)
                if np.isnan(pg):
                    pg = 0.5 * (ga + gb)
                pexcess = excess + 0.5 * (ga + gb) - pg
                x = max(pair_boards[e], 1)
                factor = weights[event[s]]
                span = x * factor if pr[P_BOARDS_MODE] > 0.0 else x
                phi = 1.0 if pr[P_BOARDS_MODE] > 0.0 else factor
                add_session(ring_f, ring_i, ent_f, ent_i, ent, pg + gain * pexcess, x, span, phi, day[s], -1,
                            seq_base + s, tau)
        # add the session to the players' histories, then their new grades
        for e in range(e0, e1):
            if not known_tmp[e - e0]:
                continue
            x = max(pair_boards[e], 1)
            factor = weights[event[s]]
            span = x * factor if pr[P_BOARDS_MODE] > 0.0 else x
            phi = 1.0 if pr[P_BOARDS_MODE] > 0.0 else factor
            pid = pair_partnership[e]
            for j in range(2):
                p = pair_players[e, j]
                g = sopp_tmp[e] if j == 0 else sg_tmp[e - e0]
                add_session(ring_f, ring_i, ent_f, ent_i, p, g, x, span, phi, day[s], pid, seq_base + s, tau)
                if pid < pair_count.shape[0]:
                    pair_count[pid, 0 if pair_low[pid] == p else 1] += 1
                if ring_boards(ent_f, p) >= pr[P_PAD]:
                    ent_i[p, IEVER] = 1
        for e in range(e0, e1):
            if not want_after or not known_tmp[e - e0]:
                continue
            for j in range(2):
                p = pair_players[e, j]
                out_after[e, j] = _grade_now(ring_f, ring_i, ent_f, ent_i, p, day[s], knots, alpha, beta, tau, pr,
                                             True, pair_count, pair_low)
    return order.shape[0]


@kernel(refcount=False)
def _grades_all(ring_f, ring_i, ent_f, ent_i, first, stop, day, knots, alpha, beta, tau, pr, is_player,
                pair_count, pair_low, out):
    for ent in range(first, stop):
        if ent_i[ent, ISESS] == 0:
            out[ent - first] = np.nan
            continue
        g = _grade_now(ring_f, ring_i, ent_f, ent_i, ent, day, knots, alpha, beta, tau, pr, is_player,
                       pair_count, pair_low)
        if ent_i[ent, ICNT] == 0 and ent_i[ent, IEVER] == 1:
            g = np.nan  # out of date with nothing in the last three years
        out[ent - first] = g


@kernel(refcount=False)
def _status_all(ent_f, ent_i, n, provisional, mature, out_status, out_boards):
    for p in range(n):
        recent = ring_boards(ent_f, p)
        out_boards[p] = recent
        if ent_i[p, ITOTAL] < provisional:
            out_status[p] = 0
        elif recent < provisional:
            out_status[p] = 3
        elif recent >= mature:
            out_status[p] = 2
        else:
            out_status[p] = 1


# --- the scheme -------------------------------------------------------------------------

class NGSScheme(SchemeBase):
    """The National Grading Scheme (``Scheme`` protocol)."""

    snapshot_extras = {"status": STATUS, "band": BANDS}
    optional_out_after = True  # apply(..., out_after=None) skips the post-session grades
    partnership_switch = {"partnership_grades": True}  # partnership histories only on request (memory)

    def __init__(self, params: Params | None = None):
        self.params = params or Params()
        self._shape = self.params.shape()

    def _pr(self) -> np.ndarray:
        p = self.params
        return np.array([p.gain, p.window, p.limit_days, p.pad_boards, p.initial_grade, p.green_initial_grade,
                         p.start_grade, p.returner_grade, p.rpcf, p.rpcf_share, p.known_share, p.butler_factor,
                         p.cross_imp_factor, p.aggregate_factor, 1.0 if p.weight_mode == "boards" else 0.0,
                         p.partnership_boards], np.float64)

    def new_state(self, players: PlayerTable, n_partnerships: int = 0) -> NGSState:
        P = players.n_players
        tracked = int(n_partnerships) if self.params.partnership_grades else 0
        *arrays, used = new_pool(P + tracked)
        return NGSState(*arrays, pool_used=used, pair_count=np.zeros((max(n_partnerships, 1), 2), np.int64),
                        member=np.asarray(players.member, bool).copy(),
                        at_start=np.asarray(players.at_start, bool).copy(),
                        explicit=np.asarray(players.initial_grade, np.float64).copy(), n_players=P,
                        n_tracked=tracked, pair_low=np.full(max(n_partnerships, 1), -1, np.int64))

    def grow(self, state: NGSState, n_partnerships: int) -> NGSState:
        K = state.pair_count.shape[0]
        if n_partnerships > K:
            new_k = max(n_partnerships, 2 * K)
            state.pair_count = np.concatenate([state.pair_count, np.zeros((new_k - K, 2), np.int64)])
            state.pair_low = np.concatenate([state.pair_low, np.full(new_k - K, -1, np.int64)])
        if self.params.partnership_grades and n_partnerships > state.n_tracked:
            extra = max(n_partnerships, 2 * state.n_tracked) - state.n_tracked
            state.ring_f, state.ring_i, state.ent_f, state.ent_i, state.pool_used = add_entities(
                state.ring_f, state.ring_i, state.ent_f, state.ent_i, state.pool_used, extra)
            state.n_tracked += extra
        return state

    def _make_room(self, state: NGSState, sc, first: int) -> None:
        """Grow the rings of sessions order[first:]'s entities for what they may add.

        Each ring gets room for its current sessions plus its appearances
        (capped at 64 a call: sessions also leave the window, and a kernel
        call that still fills a ring stops there and comes back here).
        """
        if first >= sc.n_sessions:
            return
        rest = np.zeros(sc.n_sessions, bool)
        rest[sc.order[first:]] = True
        rest &= np.asarray(sc.kind) != KIND_ONLINE  # not graded
        entries = np.flatnonzero(np.repeat(rest, np.diff(sc.pair_start)))
        ents = [sc.pair_players[entries].ravel()]
        if state.n_tracked:
            pid = sc.pair_partnership[entries]
            ents.append(state.n_players + pid[pid < state.n_tracked])
        ents = np.concatenate(ents).astype(np.int64)
        appearances = np.bincount(ents, minlength=len(state.ent_i))
        uniq = np.flatnonzero(appearances)
        need = state.ent_i[uniq, ICNT] + np.minimum(appearances[uniq], 64) + 2
        state.ring_f, state.ring_i, state.pool_used = grow_rings(state.ring_f, state.ring_i, state.ent_i,
                                                                 state.pool_used, uniq, need)

    def apply(self, state: NGSState, scored, out_after: np.ndarray | None, out_before: np.ndarray | None = None) -> None:
        """Grade ``scored`` (see the Scheme protocol).  ``out_after=None``: the caller does not need the
        post-session grades (the engine when not tracing), which saves a grade evaluation per player."""
        sc = scored
        E = sc.n_entries
        want_after = out_after is not None
        if out_after is None:
            out_after = np.empty((E, 2))
        _validate(scored, out_after)
        self.grow(state, int(sc.pair_partnership.max()) + 1 if E else 0)
        if len(sc.partnership_players):
            K = min(len(sc.partnership_players), len(state.pair_low))
            state.pair_low[:K] = sc.partnership_players[:K, 0]
        pair_low = state.pair_low
        if out_before is None:
            out_before = np.empty((E, 2))
        knots, alpha, beta, tau = self._shape
        grade_tmp = np.full(state.n_players, np.nan)
        n_max = int(np.diff(sc.pair_start).max()) if sc.n_sessions else 1
        known = np.zeros(max(n_max, 1), np.int64)
        sg = np.zeros(max(n_max, 1))
        sopp = np.full(max(E, 1), np.nan)
        pr = self._pr()
        out_after[:] = np.nan
        k = 0
        while True:
            self._make_room(state, sc, k)
            k = _apply_kernel(sc.order, sc.day, sc.kind, sc.scoring, sc.winners, sc.event, sc.replaces,
                              sc.pair_start, sc.pair_players, sc.pair_group, sc.pair_boards, sc.pair_score,
                              sc.pair_partnership, sc.match_start, sc.match_opp, state.ring_f, state.ring_i,
                              state.ent_f, state.ent_i, state.pair_count, pair_low, state.member, state.at_start,
                              state.explicit, state.n_players, state.n_tracked, state.seq_base, pr,
                              self.params.weights(), knots, alpha, beta, tau, grade_tmp, known, sopp, sg,
                              out_after, out_before, want_after, k)
            if k >= sc.n_sessions:
                break
        state.seq_base += sc.n_sessions

    def grades(self, state: NGSState, day: int) -> np.ndarray:
        return self._grades(state, day, 0, state.n_players, True)

    def partnership_grades(self, state: NGSState, day: int) -> dict[str, np.ndarray]:
        """``grade``: grade points of tracked partnerships (NaN if untracked or unpublished: fewer than
        ``partnership_boards`` together within three years); ``boards_3y``: their boards in that time."""
        if state.n_tracked == 0:
            return {"grade": np.full(state.pair_count.shape[0], np.nan)}
        g = self._grades(state, day, state.n_players, state.n_players + state.n_tracked, False)
        boards = np.array([ring_boards(state.ent_f, state.n_players + k)
                           for k in range(state.n_tracked)])
        g[boards < self.params.partnership_boards] = np.nan
        return {"grade": g, "boards_3y": boards}

    def _grades(self, state, day, first, stop, is_player):
        knots, alpha, beta, tau = self._shape
        out = np.empty(stop - first)
        _grades_all(state.ring_f, state.ring_i, state.ent_f, state.ent_i, first, stop, int(day), knots, alpha,
                    beta, tau, self._pr(), is_player, state.pair_count, state.pair_low, out)
        return out

    def extras(self, state: NGSState, day: int) -> dict:
        """status (STATUS codes), band (BANDS codes, NaN without a grade), boards within three years."""
        g = self.grades(state, day)
        status = np.empty(state.n_players, np.int64)
        boards = np.empty(state.n_players)
        _status_all(state.ent_f, state.ent_i, state.n_players, self.params.provisional_boards,
                    self.params.mature_boards, status, boards)
        return {"status": status.astype(np.float64), "band": band_code(g), "boards_3y": boards}


def band_code(grade) -> np.ndarray:
    """BANDS index of each grade: Two < 39, then 2-point bands to King 59-61, Aces 61+ (NaN stays NaN)."""
    g = np.asarray(grade, float)
    code = np.clip(np.floor((g - 37.0) / 2.0), 0, len(BANDS) - 1)
    return np.where(np.isnan(g), np.nan, code)


def band_name(grade: float) -> str:
    return BANDS[int(band_code(np.array([grade]))[0])]


def pair_handicap(grade_a: float, grade_b: float) -> float:
    """Pairs handicap (MP %): 50 minus the mean grade of the two."""
    return 50.0 - (grade_a + grade_b) / 2.0


def team_handicap(mean_grade: float, boards: int) -> float:
    """Multiple-teams handicap (IMPs): 0.3086 × boards × (50 − team mean grade) (FR 7)."""
    return HANDICAP_IMPS_PER_BOARD * boards * (50.0 - mean_grade)


def expected_score(grade_a: float, grade_b: float, field: float) -> float:
    """A pair's expected MP %: 50 + mean grade − strength of field (FR 5)."""
    return 50.0 + (grade_a + grade_b) / 2.0 - field


def _validate(scored, out_after) -> None:
    sc = scored
    if out_after.shape != (sc.n_entries, 2):
        raise ValueError(f"ngs: out_after has shape {out_after.shape}, expected ({sc.n_entries}, 2)")
    bad = np.flatnonzero((sc.scoring == SCORING_AGGREGATE) & (sc.winners == 1))
    if len(bad):
        raise ValueError(f"ngs: session {int(bad[0])} is aggregate-scored with one winner; NGS grades aggregate "
                         "pairs only in two-winner movements (FR 9)")
    if len(sc.replaces) and (sc.replaces >= sc.n_sessions).any():
        raise ValueError("ngs: a session replaces a session id outside this set of results")


SCHEME = NGSScheme
