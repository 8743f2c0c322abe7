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
it), then is graded itself (``corrections = "replace"``: the engine hands NGS
both publications).  With no session graded between the two, the grades are
those of never having published the error (tests/test_corrected.py); with
sessions between, they differ a little from grading the true session late
(up to 0.02 grade points in that test's four-session example, measured).

Status (``extras``): 0 provisional (< 300 boards ever), 1 evolving, 2 mature
(≥ 1000 boards within three years), 3 out of date (< 300 within three years
after having had 300).  Bands: Two (< 39) … King (59–61), then Ace of
Clubs / Diamonds / Hearts / Spades (61–63 / 63–65 / 65–67 / 67+).
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass, field

import numpy as np

from simcore._jit import helper, kernel
from simcore.results import EVENT_BLACK, EVENT_GREEN, KIND_ONLINE, SCORING_AGGREGATE
from simcore.schemes import PlayerTable, SchemeBase
from simcore.schemes.decay import (EINIT, ET, ICAP, IEVER, ICNT, ILDAY, INT32_MAX, ISESS, ITOTAL, PUSED, RDAY, RPID, RSEQ, SHAPES, _phys, add_entities, append_newest,
                    add_session, enlarge, grow_ring, prefetch, prefetch_entity, prefetch_ring_ends, current_grade, current_grade_one_segment, kernel_shape, new_pool, pop_oldest, reclaim, remove_at,
                    aligned_zeros, ring_boards)
from simcore.schemes.field import standard_score, strength_of_opponents

BANDS = ("Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten", "Jack", "Queen", "King",
         "Ace of Clubs", "Ace of Diamonds", "Ace of Hearts", "Ace of Spades")
STATUS = ("provisional", "evolving", "mature", "out of date")
# the partnership table (K, 4) int32, one 16-byte row per partnership: the RPCF counts (sessions in the
# lower-id / higher-id player's ring with it) beside the lower-id player, so a count is one cache miss,
# not a miss for the player id and then another for the count
PAIR_INT = np.int32
PAIR_LOW_COUNT, PAIR_HIGH_COUNT, PAIR_LOW = 0, 1, 2
N_PAIR = 4
HANDICAP_IMPS_PER_BOARD = 0.3086  # FR 7: IMPs per board per grade point of a team's mean grade
# a player's ring of sessions starts with room for the window's sessions at this many boards a session (clubs
# play 18-27; 2000 boards -> 96 sessions, the most 99 % of national players hold), the players' rings in
# player order (decay.new_pool, sized=): a ring moves only once it holds more (memory and speed only, no result)
RING_BOARDS_PER_SESSION = 21.0


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


@dataclass
class NGSState:
    """Struct of arrays.  Entities: players 0..P−1, then tracked partnerships P + pid.

    ring_f (rows, 8) / ring_i (rows, 4): the pool of every entity's ring of
    sessions (see decay.py), ``pool[PUSED]`` rows of it handed out;
    ent_f (N, 16) / ent_i (N, 8): clock, bases, initial grade, the newest
    session's sums / ring head, count, boards ever, reached 300, sessions,
    the newest session's day, ring offset and capacity.  pairs (K, 4): sessions in
    the lower-id / higher-id player's ring with partnership k (RPCF), and the lower-id player.
    member, at_start, explicit (P): the PlayerTable.  seq_base: sessions
    processed before (sequence numbers for corrections).  changes: bumped by every ``apply`` and ``grow``;
    last_grades: ((changes, day), grades, status) of the last snapshot (``_snapshot``), so a snapshot's
    ``extras`` on the same day does not evaluate every grade a second time.  pairs_from: (the array behind the last
    ``partnership_players`` written into ``pairs``, rows written), so the next chunk of the same table
    writes only its new partnerships (``_note_partnerships``).
    """

    ring_f: np.ndarray
    ring_i: np.ndarray
    ent_f: np.ndarray
    ent_i: np.ndarray
    pairs: np.ndarray
    member: np.ndarray
    at_start: np.ndarray
    explicit: np.ndarray
    pool: np.ndarray
    n_players: int
    n_tracked: int
    seq_base: int = 0
    changes: int = 0
    last_grades: tuple | None = None
    pairs_from: tuple | None = None

    @property
    def capacity(self) -> int:
        """The largest ring (sessions)."""
        return int(self.ent_i[:, ICAP].max()) if len(self.ent_i) else 0


# --- the kernel --------------------------------------------------------------------------
# The kernels take a few named bundles instead of forty arrays (numba types namedtuples field by field,
# so a field is read by name and a reordered field cannot be misread):
#   Sessions, Pairs   the ScoredResults columns NGS reads (per session / per pair entry);
#   Rings             the state's arrays (rings of sessions, entity rows, RPCF counts, the PlayerTable);
#   Consts            the parameters as named scalars (grade points, boards, days);
#   Shape             the decay kernel (decay.kernel_shape);
#   Scratch           per-call work arrays, the outputs and the prefetch cursors (``_keep_ahead``).

Sessions = namedtuple("Sessions", "order day kind scoring winners event replaces pair_start")
Pairs = namedtuple("Pairs", "players group boards score partnership match_start match_opp")
Rings = namedtuple("Rings", "ring_f ring_i ent_f ent_i pool pairs member at_start explicit")
Consts = namedtuple("Consts", "gain window limit_days pad_boards initial_grade green_initial_grade start_grade "
                              "returner_grade rpcf rpcf_share known_share butler_factor cross_imp_factor "
                              "aggregate_factor boards_mode weight_club weight_black weight_green")
Scratch = namedtuple("Scratch", "grade known sopp sg out_after out_before ahead")


@helper(refcount=False, forceinline=True)
def _evict(rg, ent, day, c, tau, is_player):
    """Drop sessions beyond three years or beyond the window; keep RPCF counts in step."""
    limit = 40.0 * tau if tau > 0.0 else c.window
    limit_days = int(c.limit_days)
    while rg.ent_i[ent, ICNT] > 0:
        p = _phys(rg.ent_i, ent, 0)
        old = rg.ring_i[p, RDAY] < day - limit_days
        beyond = rg.ent_f[ent, ET] - rg.ring_f[p, 0] >= limit
        if not (old or beyond):
            break
        if is_player:
            _count_partnership(rg, rg.ring_i[p, RPID], ent, -1)
        pop_oldest(rg.ring_f, rg.ring_i, rg.ent_f, rg.ent_i, ent)


@helper(refcount=False, forceinline=True)
def _count_partnership(rg, pid, player, step):
    """RPCF: sessions in ``player``'s ring with partnership ``pid`` change by ``step``."""
    if pid >= 0 and pid < rg.pairs.shape[0]:
        rg.pairs[pid, _side(rg, pid, player)] += step


@helper(refcount=False, forceinline=True)
def _side(rg, pid, player):
    """The column of ``rg.pairs`` counting partnership ``pid``'s sessions in ``player``'s ring."""
    return PAIR_LOW_COUNT if rg.pairs[pid, PAIR_LOW] == player else PAIR_HIGH_COUNT


# _grade_now and _evict are inlined where they are called: a call passes the Rings and Consts bundles by
# value (nine arrays, eighteen scalars), which cost more than the eviction check it wraps
@helper(refcount=False, forceinline=True)
def _grade_now(rg, ent, day, c, sh, is_player):
    """Current grade (grade points) of an entity on ``day`` (expiring old sessions first)."""
    _evict(rg, ent, day, c, sh.tau, is_player)
    if sh.n_seg == 1 and sh.tau == 0.0:  # line, rectangle: the straight-line window inline
        return current_grade_one_segment(rg.ring_f, rg.ent_f, rg.ent_i, ent, sh, c.pad_boards)
    return current_grade(rg.ring_f, rg.ent_f, rg.ent_i, ent, sh, c.pad_boards)


@kernel(refcount=False, helper=True)
def _start_entity(ent_f, ent_i, ent, grade0):
    ent_f[ent, EINIT] = grade0
    ent_i[ent, IEVER] = 0


@helper(refcount=False, forceinline=True)
def _event_weight(c, event):
    """The session's event factor (club, black, green)."""
    if event == EVENT_GREEN:
        return c.weight_green
    if event == EVENT_BLACK:
        return c.weight_black
    return c.weight_club


@helper(refcount=False, forceinline=True)
def _entry_history(pp, e, j, n_players, n_tracked):
    """The entity row of the ``j``-th history entry ``e`` touches (j 0, 1: its two players; 2: its
    partnership), or -1 for an untracked partnership."""
    if j < 2:
        return pp.players[e, j]
    pid = pp.partnership[e]
    return n_players + pid if pid < n_tracked else -1


@kernel(refcount=False, helper=True)
def _make_room(ss, pp, rg, s, n_players, n_tracked):
    """Room for one more session in every history session ``s`` touches: a full ring grows
    (``decay.grow_ring``).  False when the pool itself is full (the caller enlarges it)."""
    for e in range(ss.pair_start[s], ss.pair_start[s + 1]):
        for j in range(3):
            ent = _entry_history(pp, e, j, n_players, n_tracked)
            if ent < 0:
                break
            if rg.ent_i[ent, ICNT] >= rg.ent_i[ent, ICAP] - 1:
                if not grow_ring(rg.ring_f, rg.ring_i, rg.ent_i, rg.pool, ent):
                    return False
    return True


@kernel(refcount=False, helper=True)
def _remove_session(ss, pp, rg, r, n_players, n_tracked, seq_base, tau):
    """A correction: take the replaced session ``r`` out of every history."""
    seq_r = seq_base + r
    for e in range(ss.pair_start[r], ss.pair_start[r + 1]):
        for j in range(3):
            ent = _entry_history(pp, e, j, n_players, n_tracked)
            if ent < 0:
                break
            for q in range(rg.ent_i[ent, ICNT]):
                p = _phys(rg.ent_i, ent, q)
                if rg.ring_i[p, RSEQ] == seq_r:
                    if j < 2:
                        _count_partnership(rg, rg.ring_i[p, RPID], ent, -1)
                    remove_at(rg.ring_f, rg.ring_i, rg.ent_f, rg.ent_i, ent, q, tau)
                    break


@kernel(refcount=False, helper=True)
def _grades_at_start(ss, pp, rg, s, c, sh, tmp):
    """Current grades of the known players of session ``s`` into ``tmp.grade``; returns the known pairs.

    ``tmp.known[e - e0]``: both players of entry e are members.  A player's
    first session starts the history at the initial grade; a player whose
    sessions have all expired starts again at the returner grade (FR 11).
    """
    e0, e1 = ss.pair_start[s], ss.pair_start[s + 1]
    n_known = 0
    for e in range(e0, e1):
        tmp.ahead[A_DONE] += 1
        _keep_ahead(ss, pp, rg, tmp.ahead)
        a, b = pp.players[e, 0], pp.players[e, 1]
        known = rg.member[a] and rg.member[b]
        tmp.known[e - e0] = known
        if not known:
            continue
        n_known += 1
        for p in (a, b):
            if rg.ent_i[p, ISESS] == 0 and np.isnan(rg.ent_f[p, EINIT]):
                if not np.isnan(rg.explicit[p]):
                    g0 = rg.explicit[p]
                elif rg.at_start[p]:
                    g0 = c.start_grade
                elif ss.event[s] == EVENT_GREEN:
                    g0 = c.green_initial_grade
                else:
                    g0 = c.initial_grade
                _start_entity(rg.ent_f, rg.ent_i, p, g0)
            tmp.grade[p] = _grade_now(rg, p, ss.day[s], c, sh, True)
            if rg.ent_i[p, ICNT] == 0 and rg.ent_i[p, ISESS] > 0:
                # everything expired: back after three years away (FR 11)
                _start_entity(rg.ent_f, rg.ent_i, p, c.returner_grade)
                tmp.grade[p] = c.returner_grade
    return n_known


@kernel(refcount=False, helper=True)
def _standard_scores(ss, pp, s, c, tmp):
    """Standardised scores (MP % above 50) into ``tmp.sg``; unknown players' assumed grades (FR 12)."""
    e0, e1 = ss.pair_start[s], ss.pair_start[s + 1]
    for e in range(e0, e1):
        tmp.sg[e - e0] = standard_score(ss.scoring[s], pp.score[e], pp.boards[e], c.butler_factor,
                                        c.cross_imp_factor, c.aggregate_factor)
    # unknown pairs: the group's SoF plus their score, so they cause no drift; group by group
    for e in range(e0, e1):
        if tmp.known[e - e0]:
            continue
        grp = pp.group[e]
        total = 0.0
        members = 0
        for f in range(e0, e1):
            if pp.group[f] != grp:
                continue
            if tmp.known[f - e0]:
                total += tmp.grade[pp.players[f, 0]] + tmp.grade[pp.players[f, 1]]
                members += 2
            else:
                total += 2.0 * tmp.sg[f - e0]
        sof = total / members if members > 0 else 50.0
        for j in range(2):
            tmp.grade[pp.players[e, j]] = sof + tmp.sg[e - e0]


@kernel(refcount=False, helper=True)
def _session_grades(ss, pp, rg, s, n_players, n_tracked, seq_base, c, sh, tmp):
    """Each known pair's session grades (a's into ``tmp.sopp[e]``, b's into ``tmp.sg[e - e0]``).

    SG = G + [RPCF·(G_partner − G)/2] + gain·excess; a tracked partnership's
    own session grade goes straight into its history.
    """
    e0, e1 = ss.pair_start[s], ss.pair_start[s + 1]
    for e in range(e0, e1):
        if tmp.known[e - e0] and np.isnan(tmp.sopp[e]):
            tmp.known[e - e0] = 0  # nobody to be measured against: not graded this session
        if not tmp.known[e - e0]:
            tmp.out_after[e, 0] = np.nan
            tmp.out_after[e, 1] = np.nan
            continue
        a, b = pp.players[e, 0], pp.players[e, 1]
        ga, gb = tmp.grade[a], tmp.grade[b]
        excess = tmp.sg[e - e0] + tmp.sopp[e] - 0.5 * (ga + gb)
        pid = pp.partnership[e]
        regular = False
        if c.rpcf > 0.0 and pid < rg.pairs.shape[0]:
            na, nb = rg.ent_i[a, ICNT], rg.ent_i[b, ICNT]
            if na > 0 and nb > 0:
                ca = rg.pairs[pid, _side(rg, pid, a)]
                cb = rg.pairs[pid, _side(rg, pid, b)]
                regular = ca > c.rpcf_share * na and cb > c.rpcf_share * nb
        conv = c.rpcf * 0.5 * (gb - ga) if regular else 0.0
        tmp.sopp[e] = ga + conv + c.gain * excess       # reuse: SG of a
        tmp.sg[e - e0] = gb - conv + c.gain * excess     # reuse: SG of b
        if pid < n_tracked:
            _partnership_session(rg, n_players + pid, pp.boards[e], ss.event[s], ss.day[s], seq_base + s, ga, gb,
                                 excess, c, sh)


@kernel(refcount=False, helper=True)
def _partnership_session(rg, ent, boards, event, day, seq, ga, gb, excess, c, sh):
    """A tracked partnership's session: expected performance from the partnership grade."""
    if rg.ent_i[ent, ISESS] == 0 and np.isnan(rg.ent_f[ent, EINIT]):
        _start_entity(rg.ent_f, rg.ent_i, ent, 0.5 * (ga + gb))
    pg = _grade_now(rg, ent, day, c, sh, False)
    if np.isnan(pg):
        pg = 0.5 * (ga + gb)
    pexcess = excess + 0.5 * (ga + gb) - pg
    x = max(boards, 1)
    factor = _event_weight(c, event)
    span = x * factor if c.boards_mode else x
    phi = 1.0 if c.boards_mode else factor
    add_session(rg.ring_f, rg.ring_i, rg.ent_f, rg.ent_i, ent, pg + c.gain * pexcess, x, span, phi, day, -1, seq,
                sh.tau)


@kernel(refcount=False, helper=True)
def _add_to_histories(ss, pp, rg, s, seq_base, c, sh, tmp):
    """Add each known pair's session grades to its players' histories (and the RPCF counts)."""
    e0, e1 = ss.pair_start[s], ss.pair_start[s + 1]
    for e in range(e0, e1):
        if not tmp.known[e - e0]:
            continue
        x = max(pp.boards[e], 1)
        factor = _event_weight(c, ss.event[s])
        span = x * factor if c.boards_mode else x
        phi = 1.0 if c.boards_mode else factor
        pid = pp.partnership[e]
        for j in range(2):
            p = pp.players[e, j]
            g = tmp.sopp[e] if j == 0 else tmp.sg[e - e0]
            if sh.tau == 0.0 and (rg.ent_i[p, ICNT] == 0 or rg.ent_i[p, ILDAY] <= ss.day[s]):
                append_newest(rg.ring_f, rg.ring_i, rg.ent_f, rg.ent_i, p, g, x, span, phi, ss.day[s], pid,
                              seq_base + s)
            else:  # late-scored, or the exponential's rebased sums
                add_session(rg.ring_f, rg.ring_i, rg.ent_f, rg.ent_i, p, g, x, span, phi, ss.day[s], pid,
                            seq_base + s, sh.tau)
            if pid < rg.pairs.shape[0]:
                rg.pairs[pid, _side(rg, pid, p)] += 1
            if ring_boards(rg.ent_f, p) >= c.pad_boards:
                rg.ent_i[p, IEVER] = 1


# Prefetching (a hint: no value depends on it).  At national scale every row a player-session reads is a
# cache miss (its entity rows, the oldest and the next ring rows, partnership rows).  Three cursors walk
# the entries to come in processing order, each a stage ahead of the next, each stage reading only what
# the one before loaded: (0) the entities' rows and the partnership's row, (1) the ring rows those point
# to, (2) the partnership row of each player's oldest session, which the eviction counts down (RPCF; at
# national scale another partnership's row).  The cursors step one entry for every entry graded
# (``_keep_ahead``, called from the per-entry loop of ``_grades_at_start``): the misses overlap the
# grading steadily.  Issued a session at a time (~300 prefetches in a burst, more than the core keeps
# in flight) the same hints left ~30 % of the national kernel's time inside the prefetching (perf).
AHEAD_ENTRIES = (24, 16, 8)  # entries ahead of the one graded, stages 0, 1, 2 (a gap of 8: ~5 us of grading)
# tmp.ahead (int64): [A_DONE] entries graded this call, then per stage st at 1 + 3·st: the order index,
# the entry (−1: the session's first), the entries stepped; [A_PLAYERS], [A_TRACKED]: n_players, n_tracked
A_DONE, A_PLAYERS, A_TRACKED = 0, 10, 11
N_AHEAD = 12


@helper(refcount=False, forceinline=True)
def _prefetch_entry(pp, rg, e, n_players, n_tracked, stage):
    """One stage of the hints for entry ``e`` (its players, its tracked partnership)."""
    for j in range(3):
        ent = _entry_history(pp, e, j, n_players, n_tracked)
        if ent < 0:
            break
        if stage == 0:
            prefetch_entity(rg.ent_f, rg.ent_i, ent)
        elif stage == 1:
            prefetch_ring_ends(rg.ring_f, rg.ring_i, rg.ent_i, ent)
        elif j < 2 and rg.ent_i[ent, ICNT] > 0:
            old = rg.ring_i[_phys(rg.ent_i, ent, 0), RPID]
            if old >= 0 and old < rg.pairs.shape[0]:
                prefetch(rg.pairs, old, 0)
    pid = pp.partnership[e]
    if stage == 0 and pid < rg.pairs.shape[0]:
        prefetch(rg.pairs, pid, 0)


@helper(refcount=False, forceinline=True)
def _start_ahead(ahead, first_index, n_players, n_tracked):
    """Cursors for a kernel call grading from order index ``first_index``."""
    ahead[A_DONE] = 0
    for st in range(3):
        ahead[1 + 3 * st] = first_index
        ahead[2 + 3 * st] = -1
        ahead[3 + 3 * st] = 0
    ahead[A_PLAYERS] = n_players
    ahead[A_TRACKED] = n_tracked


@helper(refcount=False, forceinline=True)
def _keep_ahead(ss, pp, rg, ahead):
    """Step each stage's cursor until it is AHEAD_ENTRIES[stage] entries past those graded (online
    sessions, which NGS does not grade, are passed over)."""
    n_order = ss.order.shape[0]
    for st in range(3):
        lead = AHEAD_ENTRIES[0] if st == 0 else (AHEAD_ENTRIES[1] if st == 1 else AHEAD_ENTRIES[2])
        k = ahead[1 + 3 * st]
        e = ahead[2 + 3 * st]
        stepped = ahead[3 + 3 * st]
        while stepped < ahead[A_DONE] + lead and k < n_order:
            s = ss.order[k]
            if e < 0:
                e = ss.pair_start[s]
            if ss.kind[s] == KIND_ONLINE or e >= ss.pair_start[s + 1]:
                k += 1
                e = -1
                continue
            _prefetch_entry(pp, rg, e, ahead[A_PLAYERS], ahead[A_TRACKED], st)
            e += 1
            stepped += 1
        ahead[1 + 3 * st] = k
        ahead[2 + 3 * st] = e
        ahead[3 + 3 * st] = stepped


@kernel(refcount=False)
def _apply_kernel(ss, pp, rg, n_players, n_tracked, seq_base, c, sh, tmp, want_after, first_index):
    """Grade sessions ss.order[first_index:], returning the index reached.

    Returns len(order) when done, or the index of a session whose rings
    need more room than the pool has left (the caller enlarges the pool and
    calls again).
    """
    n_order = ss.order.shape[0]
    _start_ahead(tmp.ahead, first_index, n_players, n_tracked)
    for k in range(first_index, n_order):
        s = ss.order[k]
        if ss.kind[s] == KIND_ONLINE:
            continue
        if not _make_room(ss, pp, rg, s, n_players, n_tracked):
            return k
        if ss.replaces[s] >= 0:
            _remove_session(ss, pp, rg, ss.replaces[s], n_players, n_tracked, seq_base, sh.tau)
        e0, e1 = ss.pair_start[s], ss.pair_start[s + 1]
        n_known = _grades_at_start(ss, pp, rg, s, c, sh, tmp)
        if n_known * 1.0 <= c.known_share * (e1 - e0):
            for e in range(e0, e1):
                tmp.out_after[e, 0] = np.nan
                tmp.out_after[e, 1] = np.nan
            continue
        _standard_scores(ss, pp, s, c, tmp)
        strength_of_opponents(s, ss.kind, ss.pair_start, pp.players, pp.group, pp.match_start, pp.match_opp,
                              tmp.grade, tmp.sopp)
        for e in range(e0, e1):
            a, b = pp.players[e, 0], pp.players[e, 1]
            tmp.out_before[e, 0] = tmp.grade[a] if tmp.known[e - e0] else np.nan
            tmp.out_before[e, 1] = tmp.grade[b] if tmp.known[e - e0] else np.nan
        _session_grades(ss, pp, rg, s, n_players, n_tracked, seq_base, c, sh, tmp)
        _add_to_histories(ss, pp, rg, s, seq_base, c, sh, tmp)
        if not want_after:
            continue
        for e in range(e0, e1):
            if not tmp.known[e - e0]:
                continue
            for j in range(2):
                tmp.out_after[e, j] = _grade_now(rg, pp.players[e, j], ss.day[s], c, sh, True)
    return ss.order.shape[0]


# The snapshot walks the entities in order: their rows come in order (the hardware prefetches them), their
# oldest ring rows do not (a player's ring is ~6 KB after the one before), and an eviction's RPCF count-down
# is another partnership's row, at random.  Two hints a stage apart, as in the apply: the ring ends
# SNAP_RING_AHEAD entities ahead, then, once those rows are in, the partnership row of the oldest session
# SNAP_PAIR_AHEAD ahead.  Measured on a captured national state (mid-decade, 72 740 players, from cold, min of
# 10, loaded machine): 140-145 -> 106-110 ns a player; farther (64/24, 96/32) no better.
SNAP_RING_AHEAD, SNAP_PAIR_AHEAD = 32, 12


@kernel(refcount=False)
def _grades_all(rg, first, stop, day, c, sh, is_player, out, status, bars):
    """Current grades (grade points) of entities first..stop-1 on ``day`` into ``out`` (expiring old
    sessions first, as every grade does); NaN before an entity's first session and once everything
    expired after 300 boards.  ``status`` (n, 3) float64, or (0, 3) to skip: each entity's STATUS code,
    BANDS code (NaN without a grade: ``band_code``) and real boards within three years, taken in the
    same pass while its rows are in cache; ``bars``: (provisional_boards, mature_boards)."""
    with_status = status.shape[0] > 0
    for ent in range(first, stop):
        if ent + SNAP_RING_AHEAD < stop:
            p = _phys(rg.ent_i, ent + SNAP_RING_AHEAD, 0)
            prefetch(rg.ring_f, p, 0)
            prefetch(rg.ring_i, p, 0)
        if is_player and ent + SNAP_PAIR_AHEAD < stop and rg.ent_i[ent + SNAP_PAIR_AHEAD, ICNT] > 0:
            old = rg.ring_i[_phys(rg.ent_i, ent + SNAP_PAIR_AHEAD, 0), RPID]
            if old >= 0 and old < rg.pairs.shape[0]:
                prefetch(rg.pairs, old, 0)
        if rg.ent_i[ent, ISESS] == 0:
            g = np.nan
        else:
            g = _grade_now(rg, ent, day, c, sh, is_player)
            if rg.ent_i[ent, ICNT] == 0 and rg.ent_i[ent, IEVER] == 1:
                g = np.nan  # out of date with nothing in the last three years
        out[ent - first] = g
        if with_status:
            k = ent - first
            status[k, 0] = _status_code(rg.ent_f, rg.ent_i, ent, bars[0], bars[1])
            status[k, 1] = _band(g)
            status[k, 2] = ring_boards(rg.ent_f, ent)


@helper(refcount=False, forceinline=True)
def _status_code(ent_f, ent_i, ent, provisional, mature):
    """STATUS code of an entity (after its evictions): boards ever, then real boards within three years."""
    recent = ring_boards(ent_f, ent)
    if ent_i[ent, ITOTAL] < provisional:
        return 0
    if recent < provisional:
        return 3
    if recent >= mature:
        return 2
    return 1


@helper(refcount=False, forceinline=True)
def _band(g):
    """``band_code`` of one grade (the same arithmetic): BANDS index, NaN for NaN."""
    if np.isnan(g):
        return np.nan
    return min(max(np.floor((g - 37.0) / 2.0), 0.0), float(len(BANDS) - 1))


# --- the scheme -------------------------------------------------------------------------

class NGSScheme(SchemeBase):
    """The National Grading Scheme (``Scheme`` protocol)."""
    corrections = "replace"

    snapshot_extras = {"status": STATUS, "band": BANDS}
    optional_out_after = True  # apply(..., out_after=None) skips the post-session grades
    partnership_switch = {"partnership_grades": True}  # partnership histories only on request (memory)

    def __init__(self, params: Params | None = None):
        self.params = params or Params()
        self._shape = self.params.shape()

    def _consts(self) -> Consts:
        """The kernels' parameters, by name (floats; ``boards_mode``: the event weight scales the boards)."""
        p = self.params
        f = float
        return Consts(gain=f(p.gain), window=f(p.window), limit_days=f(p.limit_days), pad_boards=f(p.pad_boards),
                      initial_grade=f(p.initial_grade), green_initial_grade=f(p.green_initial_grade),
                      start_grade=f(p.start_grade), returner_grade=f(p.returner_grade), rpcf=f(p.rpcf),
                      rpcf_share=f(p.rpcf_share), known_share=f(p.known_share), butler_factor=f(p.butler_factor),
                      cross_imp_factor=f(p.cross_imp_factor), aggregate_factor=f(p.aggregate_factor),
                      boards_mode=p.weight_mode == "boards", weight_club=f(p.weight_club),
                      weight_black=f(p.weight_black), weight_green=f(p.weight_green))

    @staticmethod
    def _rings(state: NGSState) -> Rings:
        return Rings(state.ring_f, state.ring_i, state.ent_f, state.ent_i, state.pool, state.pairs,
                     state.member, state.at_start, state.explicit)

    def new_state(self, players: PlayerTable, n_partnerships: int = 0) -> NGSState:
        P = players.n_players
        tracked = int(n_partnerships) if self.params.partnership_grades else 0
        first = -(-int(np.ceil(self.params.window / RING_BOARDS_PER_SESSION)) // 8) * 8
        *arrays, pool = new_pool(P + tracked, first, sized=P)
        return NGSState(*arrays, pool=pool, pairs=_new_pairs(max(n_partnerships, 1)),
                        member=np.asarray(players.member, bool).copy(),
                        at_start=np.asarray(players.at_start, bool).copy(),
                        explicit=np.asarray(players.initial_grade, np.float64).copy(), n_players=P,
                        n_tracked=tracked)

    def grow(self, state: NGSState, n_partnerships: int) -> NGSState:
        state.changes += 1
        K = state.pairs.shape[0]
        if n_partnerships > K:
            new_k = max(n_partnerships, 2 * K)
            state.pairs = _new_pairs(new_k, state.pairs)
        if self.params.partnership_grades and n_partnerships > state.n_tracked:
            extra = max(n_partnerships, 2 * state.n_tracked) - state.n_tracked
            state.ring_f, state.ring_i, state.ent_f, state.ent_i = add_entities(
                state.ring_f, state.ring_i, state.ent_f, state.ent_i, state.pool, extra)
            state.n_tracked += extra
        return state

    def apply(self, state: NGSState, scored, out_after: np.ndarray | None, out_before: np.ndarray | None = None) -> None:
        """Grade ``scored`` (see the Scheme protocol).  ``out_after=None``: the caller does not need the
        post-session grades (the engine when not tracing), which saves a grade evaluation per player."""
        sc = scored
        E = sc.n_entries
        state.changes += 1
        want_after = out_after is not None
        if out_after is None:
            out_after = np.empty((E, 2))
        _validate(scored, out_after)
        _check_int32(state, scored)
        self.grow(state, int(sc.pair_partnership.max()) + 1 if E else 0)
        _note_partnerships(state, sc.partnership_players)
        if out_before is None:
            out_before = np.empty((E, 2))
        n_max = int(np.diff(sc.pair_start).max()) if sc.n_sessions else 1
        tmp = Scratch(grade=np.full(state.n_players, np.nan), known=np.zeros(max(n_max, 1), np.int64),
                      sopp=np.full(max(E, 1), np.nan), sg=np.zeros(max(n_max, 1)), out_after=out_after,
                      out_before=out_before, ahead=np.zeros(N_AHEAD, np.int64))
        ss = Sessions(sc.order, sc.day, sc.kind, sc.scoring, sc.winners, sc.event, sc.replaces, sc.pair_start)
        pp = Pairs(sc.pair_players, sc.pair_group, sc.pair_boards, sc.pair_score, sc.pair_partnership,
                   sc.match_start, sc.match_opp)
        consts, shape = self._consts(), self._shape
        out_after[:] = np.nan
        k, stuck = 0, -1
        while True:  # full rings grow in the kernel, into the pool's tail: back here when that runs out
            used = int(state.pool[PUSED])
            k = _apply_kernel(ss, pp, self._rings(state), state.n_players, state.n_tracked, state.seq_base, consts,
                              shape, tmp, want_after, k)
            if k >= sc.n_sessions:
                break
            if k == stuck and state.pool[PUSED] == used:  # enlarge leaves room for any one ring's growth
                raise RuntimeError(f"ngs: the pool has no room for session {int(sc.order[k])}'s rings")
            stuck = k
            state.ring_f, state.ring_i = enlarge(state.ring_f, state.ring_i, state.ent_i, state.pool)
        reclaim(state.ring_f, state.ring_i, state.ent_i, state.pool)
        state.seq_base += sc.n_sessions

    def grades(self, state: NGSState, day: int) -> np.ndarray:
        return self._snapshot(state, day)[0].copy()

    def _snapshot(self, state: NGSState, day: int):
        """(grades, status (P, 3): STATUS code, BANDS code, boards within three years) of the players on
        ``day``, one pass over them (``_grades_all``).  A grade taken on ``day`` only drops sessions no
        grade on ``day`` counts, so until the next apply or grow the same day gives the same answer: kept
        for ``extras`` of the same snapshot (``state.last_grades``)."""
        key = (state.changes, int(day))
        if state.last_grades is None or state.last_grades[0] != key:
            P = state.n_players
            if state.last_grades is not None and len(state.last_grades[1]) == P:
                out, status = state.last_grades[1:]  # never handed out (grades and extras copy): reused
            else:
                out, status = np.empty(P), np.empty((P, 3))
            bars = (float(self.params.provisional_boards), float(self.params.mature_boards))
            _grades_all(self._rings(state), 0, P, int(day), self._consts(), self._shape, True, out, status, bars)
            state.last_grades = (key, out, status)
        return state.last_grades[1:]

    def partnership_grades(self, state: NGSState, day: int) -> dict[str, np.ndarray]:
        """``grade``: grade points of tracked partnerships (NaN if untracked or unpublished: fewer than
        ``partnership_boards`` together within three years); ``boards_3y``: their boards in that time."""
        if state.n_tracked == 0:
            return {"grade": np.full(state.pairs.shape[0], np.nan)}
        first, stop = state.n_players, state.n_players + state.n_tracked
        g, status = np.empty(stop - first), np.empty((stop - first, 3))
        _grades_all(self._rings(state), first, stop, int(day), self._consts(), self._shape, False, g, status,
                    (0.0, 0.0))
        boards = status[:, 2].copy()  # taken in the same pass (a kernel call a partnership: ~0.4 us each)
        g[boards < self.params.partnership_boards] = np.nan
        return {"grade": g, "boards_3y": boards}

    def extras(self, state: NGSState, day: int) -> dict:
        """status (STATUS codes), band (BANDS codes, NaN without a grade), boards within three years."""
        status = self._snapshot(state, day)[1]
        return {"status": status[:, 0].copy(), "band": status[:, 1].copy(), "boards_3y": status[:, 2].copy()}


def _new_pairs(k: int, keep: np.ndarray | None = None) -> np.ndarray:
    """k rows of the partnership table: ``keep``'s rows first, then rows with no sessions counted and
    no player known yet.  On 2 MB pages (``aligned_zeros``): read at random, two rows a player-session."""
    pairs = aligned_zeros((k, N_PAIR), PAIR_INT, huge=True)
    first = 0 if keep is None else len(keep)
    if keep is not None:
        pairs[:first] = keep
    pairs[first:, PAIR_LOW] = -1
    return pairs


def _note_partnerships(state: NGSState, players: np.ndarray) -> None:
    """Each partnership's lower-id player into ``state.pairs[:, PAIR_LOW]`` (RPCF's side of a count).

    ``players``: ScoredResults.partnership_players, the (K, 2) players of every partnership id so far.
    The engine's table hands out views of one array whose rows never change (``PartnershipTable.players``):
    for another view of the array written last time only the rows past those are new (rewriting all of
    them each chunk cost 2-5 ms a national month by the late years, ~1 ns per player-board, growing with
    the partnerships).  Any other array (a new table, a grown one, results from files): every row.
    """
    K = min(len(players), len(state.pairs))
    if K == 0:
        return
    base = players.base if players.base is not None else players
    first = 0
    if state.pairs_from is not None and state.pairs_from[0] is base and players.ctypes.data == base.ctypes.data:
        first = min(state.pairs_from[1], K)
    state.pairs[first:K, PAIR_LOW] = players[first:K, 0]
    state.pairs_from = (base, K)


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


def _check_int32(state, scored) -> None:
    """The rings keep sequence numbers, partnerships and days as int32 (decay.RING_INT): refuse what
    would not fit before grading anything."""
    sc = scored
    if state.seq_base + sc.n_sessions > INT32_MAX:
        raise ValueError(f"ngs: {state.seq_base + sc.n_sessions} sessions graded by one state; at most {INT32_MAX}")
    if sc.n_entries and int(sc.pair_partnership.max()) >= INT32_MAX:
        raise ValueError(f"ngs: partnership id {int(sc.pair_partnership.max())} does not fit the rings' int32")
    if sc.n_sessions and (int(sc.day.max()) > INT32_MAX or int(sc.day.min()) < -INT32_MAX):
        raise ValueError(f"ngs: day {int(sc.day.max())} does not fit the rings' int32")


SCHEME = NGSScheme
