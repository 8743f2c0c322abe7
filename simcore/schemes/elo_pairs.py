"""Curley's Elo pair ratings (SPEC §1.3; seed 004, The Bridge World 2010).

Ratings (Elo points, seed average 1500) belong to partnerships.  Pair 1's
expected score against pair 2 is

    E = 1 / (1 + 10^((r2 - r1)/400))

and after a session a pair's rating moves by

    Δr = K · (a − e) / √n

where, for the kinds of movement:

* pairs (Mitchell, Howell, online): the opponents are the other pairs of its
  competition group (``pair_group``: its direction in a two-winner event,
  the whole field in a one-winner event); e = Σ E over them, a = pairs it
  outscored (``pair_score``) + ½ per tie, n = how many;
* Swiss pairs: per match row, the pair at its table; a = Σ ``match_result``,
  n = number of matches;
* multiple / Swiss teams: a team of two pairs has the effective rating
  (r1 + r2)/√2; per match row E is taken between the two teams' effective
  ratings, a = Σ ``match_result``, n = number of matches (opposing teams,
  e.g. 4 in a 7-board Swiss); both pairs of a team get the same Δ/K.

Established and provisional pairs
    A pair is *established* once it has ``established_sessions`` rated
    sessions (counted at publication), provisional before.  An established
    pair's update uses only established opponents (for teams: only matches
    against teams whose two pairs are both established; and if its own
    team-mate is provisional it gets no change at all — "if any pair is
    unrated or provisionally rated, no established rating points change").
    A provisional pair uses every opponent, those established counting
    ``ref_weight`` times as much (the seed's "extra weight" for reference
    pairs).  With weights w the update is the weighted generalisation
    Δr = K·√n·Σw(a−E)/Σw, which is exactly K(a − e)/√n when all w are equal.
    K is ``k_provisional`` for provisional pairs, ``k`` for established ones
    and ``k_top`` for established pairs rated at or above ``top_rating``.
    A pair that has not played for ``stale_years`` is provisional again when
    it returns (it keeps its old rating as the starting point).

New pairs
    start at the mean of the current (published, provisional included)
    ratings of every partnership either player belongs to; if there is none,
    at the mean of the two players' seed ratings — ``seed_rating``, or the
    player's explicit ``PlayerTable.initial_grade`` mapped to Elo points.
    Per-player running sums keep this O(1).

Monthly batch or running
    ``update="monthly"`` (default, as the seed recommends): every session of
    a calendar month (``ScoredResults.month``) is rated from the ratings and
    statuses published at the month start; the adjustments are summed and
    published when the first session of a later month arrives (or, for
    ``grades``, on any day of a later month).  ``update="running"``: the
    adjustments of a session are published right after it.

Grade units
    grade = 50 + (rating − seed_rating) / elo_per_grade.  Elo's outcome is
    beating a rival pair in the session's ranking, not an MP %: a pair one
    grade point (1 MP %) stronger beats an equal rival with probability
    0.5 + φ(0)/(√2 · 6.34) ≈ 0.5445 (6.34 % = the sd of a session's MP %,
    FR18, so the difference of two pairs' scores has sd √2 · 6.34), and an
    Elo edge Δr gives E ≈ 0.5 + Δr · ln 10 / 1600; equating the two, the
    default elo_per_grade = φ(0)/(√2 · 6.34) · 1600 / ln 10 ≈ 30.9 Elo points
    per grade point.
    ``apply`` writes the pair's rating after the session in grade units for
    both players (monthly: published rating + the month's adjustments so
    far); NaN when the pair was not rated in that session (no usable
    opponent).  ``grades`` maps *individual* ratings.

Individual ratings
    fit each player's rating x (Elo points) so that an established pair's
    rating ≈ the mean of its two players' ratings: minimise

        Σ_pairs w (r − (x_a + x_b)/2)² + ridge · Σ_players W_i (x_i − m_i)²

    subject to x ≥ ``min_rating``, with w = sessions^fit_session_power ·
    2^(−years since last played / fit_half_life_years), W_i = Σ w of the
    player's pairs and m_i = their w-weighted mean rating (the seed's first
    step).  The small ridge makes the fit unique: a player graph with no odd
    cycle (e.g. one regular partnership) leaves the pure least-squares
    problem rank-deficient.  Solved by projected Gauss–Seidel with a warm
    start from the last fit.  Stale pairs are left out; players with no
    established, current pair get NaN.

Choices where seed 004 is loose (each a parameter where it is a number)
    * K: established 32 (seed), provisional 64 and 16 from 2400 up (the
      seed only says "larger" / "smaller in the upper echelons"; these are
      the USCF-style values); established after 10 sessions (seed: 5–10);
      stale after 3 years (seed: "several years").
    * An established pair whose field holds no other established pair, a
      lone pair, or a pair sitting out every match is *not rated* in that
      session: no change, the session does not count, ``out_after`` is NaN.
    * Pairs events count a win/tie/loss against every same-group pair from
      ``pair_score`` (the definition of ``pair_beaten``), because the
      established-only rule needs the outcome against each opponent.
    * Teams: n is the number of the pair's match rows (= opposing teams when
      each is met once); a provisional pair on a team with an established
      one is rated with the whole team's result, its established team-mate
      is frozen.  Each pair uses its own K, so Δ/K is the same for both.
    * Monthly status: the session count toward establishment is published
      with the ratings, so a new pair stays provisional for its whole first
      month.  A returning stale pair keeps its old rating as the start.
    * The claims "sd ≈ 14 head-to-head, ≈ 50 in a 13-pair field without √n"
      are about the sd of the per-session *adjustment* ("a measure of
      average rating fluctuation per game"); ``simulate_adjustment_sd``
      reproduces them under independent mini-matches and shows the √12 is
      not enough when the outcomes share one ranked field.  The stationary
      sd of the rating itself is larger (``simulate_rating_sd``); both live
      in ``simcore.probes.elo_k``.

``python -m simcore.bench.synthetic elo-pairs`` prints the throughput.

Corrected sessions: Curley's article describes no corrections, so the first publication
stands and a correction (``ScoredResults.replaces``) is ignored (``corrections = "first"``):
no session is rated twice.
"""

from __future__ import annotations

import math
from collections import namedtuple
from dataclasses import dataclass, field

import numpy as np

from simcore._jit import kernel
from simcore._memory import huge_page_empty, huge_page_zeros, prefetch, prefetch_row
from simcore.movements.registry import kind_flags
from simcore.results import MOVEMENT_KINDS, day_to_month, days_to_months
from simcore.schemes import SchemeBase

# by kind code, from the movement registry: sessions rated match by match (Swiss and team kinds)
_RATED_BY_MATCH = np.array(kind_flags(lambda m: m.is_match or m.is_team), np.bool_)
_IS_TEAM = np.array(kind_flags(lambda m: m.is_team), np.bool_)

DAYS_PER_YEAR = 365.25
SESSION_SD = 6.34  # MP %: sd of an equal pair's session score (24 boards played 8 times, FR18)
ELO_PER_GRADE = (1.0 / math.sqrt(2.0 * math.pi)) / (math.sqrt(2.0) * SESSION_SD) * 1600.0 / math.log(10.0)
"""Elo points per grade point: 1 grade point ≈ a 1 % edge in expected score."""
UPDATES = ("monthly", "running")
NEVER = np.iinfo(np.int32).min
"""``last_day`` of a partnership never seen."""


@dataclass(frozen=True)
class Params:
    """Parameters of the Elo pairs scheme; ratings in Elo points."""

    k: float = field(default=32.0, metadata={
        "help": "K for established pairs (Elo points per unit of a - e)", "min": 0.0})
    k_provisional: float = field(default=64.0, metadata={
        "help": "K for provisional pairs (the seed: larger, for faster convergence)", "min": 0.0})
    k_top: float = field(default=16.0, metadata={
        "help": "K for established pairs rated at or above top_rating", "min": 0.0})
    top_rating: float = field(default=2400.0, metadata={
        "help": "rating (Elo points) from which established pairs use k_top"})
    established_sessions: int = field(default=10, metadata={
        "help": "rated sessions after which a pair is established (seed: 5-10)", "min": 0})
    ref_weight: float = field(default=1.0, metadata={
        "help": "weight of established opponents in a provisional pair's update", "min": 0.0})
    update: str = field(default="monthly", metadata={
        "help": "monthly: batch from the ratings published at the month start; "
                "running: publish after every session", "choices": UPDATES})
    stale_years: float = field(default=3.0, metadata={
        "help": "years without play after which a pair is provisional again", "min": 0.0})
    seed_rating: float = field(default=1500.0, metadata={
        "help": "rating (Elo points) of players with no rated partnership; grade 50"})
    elo_per_grade: float = field(default=ELO_PER_GRADE, metadata={
        "help": "Elo points per grade point: grade = 50 + (rating - seed_rating)/elo_per_grade",
        "min": 1e-9})
    min_rating: float = field(default=0.0, metadata={
        "help": "lower bound (Elo points) of individual ratings"})
    fit_session_power: float = field(default=1.0, metadata={
        "help": "individual fit: a pair's weight grows as sessions**power", "min": 0.0})
    fit_half_life_years: float = field(default=1.0, metadata={
        "help": "individual fit: a pair's weight halves every this many years since it "
                "last played (0 = no currency weighting)", "min": 0.0})
    fit_ridge: float = field(default=0.05, metadata={
        "help": "individual fit: pull of each player towards the mean rating of his pairs "
                "(relative to his total pair weight)", "min": 1e-9})
    fit_tol: float = field(default=1e-9, metadata={
        "help": "individual fit: stop when no rating moves more than this (Elo points)",
        "min": 1e-15})
    fit_max_iter: int = field(default=10000, metadata={
        "help": "individual fit: maximum Gauss-Seidel sweeps", "min": 1})

    def check(self) -> None:
        """Cross-field and type rules (ValueError naming the field and value)."""
        for name in ("k", "k_provisional", "k_top", "top_rating", "ref_weight", "stale_years",
                     "seed_rating", "elo_per_grade", "min_rating", "fit_session_power",
                     "fit_half_life_years", "fit_ridge", "fit_tol"):
            value = getattr(self, name)
            if not isinstance(value, (int, float, np.integer, np.floating)) or not np.isfinite(value):
                raise ValueError(f"elo-pairs: parameter {name}={value!r} must be a finite number")
        for name in ("k", "k_provisional", "k_top", "ref_weight", "stale_years",
                     "fit_session_power", "fit_half_life_years"):
            if getattr(self, name) < 0:
                raise ValueError(f"elo-pairs: parameter {name}={getattr(self, name)!r} must be >= 0")
        for name in ("elo_per_grade", "fit_ridge", "fit_tol"):
            if getattr(self, name) <= 0:
                raise ValueError(f"elo-pairs: parameter {name}={getattr(self, name)!r} must be > 0")
        if self.established_sessions < 0:
            raise ValueError(f"elo-pairs: parameter established_sessions={self.established_sessions!r} "
                             "must be >= 0")
        if self.fit_max_iter < 1:
            raise ValueError(f"elo-pairs: parameter fit_max_iter={self.fit_max_iter!r} must be >= 1")
        if self.update not in UPDATES:
            raise ValueError(f"elo-pairs: parameter update={self.update!r} is not one of "
                             f"{', '.join(UPDATES)}")

    @property
    def stale_days(self) -> float:
        return self.stale_years * DAYS_PER_YEAR


@dataclass
class EloPairsState:
    """Struct of arrays: K partnership slots (capacity) and P players.  The fields a session touches
    per slot are views of one record array (``SLOT_RECORD``), so a slot's fields share a cache line.

    Partnerships (K):
        rating         float64  published rating, Elo points
        pending        float64  adjustments of the current month not yet
                                published, Elo points (always 0 between
                                sessions with ``update="running"``)
        sessions       int32    rated sessions counted toward establishment
                                (published; reset to 0 when stale)
        month_sessions int32    rated sessions not yet published
        last_day       int32    last day played (days since 1970), NEVER if unseen
        players        int32 (K, 2)  the two players, -1 if unseen
        touched        int32    partnerships with unpublished changes (first n_touched)
        is_touched     int8     1 if in ``touched``
        fit_ids        int32    candidates for the individual fit (first n_fit): every seen
                                partnership whose sessions + month_sessions reached
                                ``established_sessions``, a superset of the established
                                ones; the first n_fit_sorted ascending, the rest in the
                                order they qualified
        in_fit         int8     1 if in ``fit_ids``
    Players (P):
        player_sum     float64  Σ published ratings of the player's partnerships
        player_count   int32    number of the player's partnerships
        player_seed    float64  rating given when neither player has a partnership
        indiv          float64  last individual ratings fitted (warm start), NaN = none
    clock  int64 (5): current month (−1 before any session), last day processed
           (NEVER before any), n_touched, n_fit_sorted, n_fit.
    slots     the record array (``SLOT_RECORD``) whose fields are rating ... in_fit above; ``grow``
              copies it in one pass.  None in a state built otherwise (``grow`` copies field by field).
    room      the arrays (slots, players, touched, fit_ids) the partnership fields are the first K
              slots of; ``grow`` sets up more in place while they have room (``GROW_ROOM``).
    fit_work  the individual fit's work arrays (``FitWork``), kept from one snapshot to the next;
              None until the first fit.  Scratch, not state: nothing in them carries over.

    ``fit_ids`` lets a snapshot visit the partnerships that may be established
    instead of every slot: a national decade holds five million partnership
    slots, some seventy thousand of them established.
    """

    rating: np.ndarray
    pending: np.ndarray
    sessions: np.ndarray
    month_sessions: np.ndarray
    last_day: np.ndarray
    players: np.ndarray
    touched: np.ndarray
    is_touched: np.ndarray
    fit_ids: np.ndarray
    in_fit: np.ndarray
    player_sum: np.ndarray
    player_count: np.ndarray
    player_seed: np.ndarray
    indiv: np.ndarray
    clock: np.ndarray
    slots: np.ndarray | None = field(default=None, repr=False, compare=False)
    room: dict | None = field(default=None, repr=False, compare=False)
    fit_work: FitWork | None = field(default=None, repr=False, compare=False)

    @property
    def capacity(self) -> int:
        return len(self.rating)

    @property
    def n_players(self) -> int:
        return len(self.player_sum)


def _ratings(state: EloPairsState) -> Ratings:
    """The state's arrays bundled for the kernels (after any ``grow``, which replaces them)."""
    return Ratings(state.rating, state.pending, state.sessions, state.month_sessions, state.last_day, state.players,
                   state.touched, state.is_touched, state.fit_ids, state.in_fit, state.player_sum, state.player_count,
                   state.player_seed, state.clock)


SLOT_RECORD = np.dtype([("rating", np.float64), ("pending", np.float64), ("sessions", np.int32),
                        ("month_sessions", np.int32), ("last_day", np.int32), ("is_touched", np.int8),
                        ("in_fit", np.int8), ("spare", np.int8, 2)])
"""One partnership slot's fields that a session reads and writes, side by side in 32 bytes (two slots a
cache line): the state's ``rating``, ``pending``, ``sessions``, ``month_sessions``, ``last_day``,
``is_touched`` and ``in_fit`` are views of one record array.  A session's pairs are scattered over every
partnership ever seen (five million slots, 150 MB, in a national decade), so each field in its own array
cost a cache miss per field; in one record a pair costs one.  Measured on captured national chunks
(loaded machine): ``apply`` 0.75x the time with separate arrays in year 1 and in year 10; a small club
state that fits in cache is unchanged.

The record array and ``players`` sit on 2 MB pages (``huge_page_empty``), so a random slot costs no
page walk, and the kernels prefetch the slots they will read next (the next session's pairs in
``_apply_kernel``, the touched slots ``_AHEAD`` ahead in ``_publish``, the fit candidates ``_AHEAD``
ahead in ``_established_pairs``), so the misses overlap.  Measured on captured national chunks (years 5
and 10, 88 k and 87 k pair entries in states of 3.4 and 5.1 M slots; min of 8, separate processes
interleaved, loaded machine): ``apply`` 13.7-14.3 ms before, 8.2-9.6 ms after (0.60-0.67x); without the
huge pages 10.7-10.9 ms.  ``_established_pairs`` on year 10's 86 k candidates: 3.4 -> 1.25-1.5 ms."""


def _partnership_arrays(n: int, room: int | None = None) -> dict:
    """The partnership arrays of ``n`` slots, views of arrays with room for ``room`` (>= n) where ``grow``
    sets up more slots in place (``_views``)."""
    room = max(n, room or 0)
    full = dict(slots=huge_page_zeros(room, SLOT_RECORD),  # (a zero record assigned goes field by field)
                players=huge_page_empty((room, 2), np.int32), touched=np.zeros(room, np.int32),
                fit_ids=np.zeros(room, np.int32))
    _set_up(full, 0, n)
    return _views(full, n)


def _set_up(full: dict, lo: int, hi: int) -> None:
    """Slots lo..hi of the room made unseen: zero records (a fresh mapping already is) but for last_day."""
    full["slots"]["last_day"][lo:hi] = NEVER
    full["players"][lo:hi] = -1


def _views(full: dict, n: int) -> dict:
    """The state's partnership fields: the first ``n`` slots of the room's arrays (``room`` keeps them)."""
    slot = full["slots"][:n]
    return dict(room=full, slots=slot, rating=slot["rating"], pending=slot["pending"], sessions=slot["sessions"],
                month_sessions=slot["month_sessions"], last_day=slot["last_day"], players=full["players"][:n],
                touched=full["touched"][:n], is_touched=slot["is_touched"], fit_ids=full["fit_ids"][:n],
                in_fit=slot["in_fit"])


GROW_ROOM = 4
"""A reallocating ``grow`` reserves this many times the slots asked for.  Only pages written cost memory, so
the room is address space; the grows after it set up their new slots in place, touching each page once,
instead of copying everything into fresh arrays (first touches of fresh pages cost dearly on this VM: a
national decade's ten reallocating grows wrote ~0.7 GB and took ~1 s of CPU, loaded machine)."""


# --- expected score ---------------------------------------------------------

def expected_score(r1, r2):
    """Elo expected score of rating ``r1`` against ``r2`` (Elo points): 0..1."""
    return 1.0 / (1.0 + 10.0 ** ((np.asarray(r2, float) - np.asarray(r1, float)) / 400.0))


def team_rating(r1, r2):
    """Effective rating (Elo points) of a team of two pairs: (r1 + r2)/√2."""
    return (np.asarray(r1, float) + np.asarray(r2, float)) / math.sqrt(2.0)


def rating_to_grade(rating, params: Params):
    """Elo points → grade units: 50 + (rating − seed_rating)/elo_per_grade."""
    return 50.0 + (np.asarray(rating, float) - params.seed_rating) / params.elo_per_grade


def grade_to_rating(grade, params: Params):
    """Grade units → Elo points (inverse of ``rating_to_grade``)."""
    return params.seed_rating + (np.asarray(grade, float) - 50.0) * params.elo_per_grade


# --- the session kernel -----------------------------------------------------

_AHEAD = 16
"""How many scattered slots ahead ``_publish`` and ``_established_pairs`` prefetch."""


@kernel(refcount=False, helper=True)
def _publish(st):
    """Add the unpublished adjustments and session counts of touched pairs."""
    n = st.clock[2]
    for t in range(n):
        if t + _AHEAD < n:  # the touched slots lie anywhere in the state: start loading ahead
            q = st.touched[t + _AHEAD]
            prefetch(st.rating, q)
            prefetch_row(st.players, q, 0)
        p = st.touched[t]
        d = st.pending[p]
        st.rating[p] += d
        st.player_sum[st.players[p, 0]] += d
        st.player_sum[st.players[p, 1]] += d
        st.pending[p] = 0.0
        st.sessions[p] += st.month_sessions[p]
        st.month_sessions[p] = 0
        st.is_touched[p] = 0
    st.clock[2] = 0


# The kernels take named bundles instead of forty-odd arrays (numba types namedtuples field by field, so a
# field is read by name and a reordered field cannot be misread).  They allocate nothing, so they run without
# reference counting (``_jit.kernel``): passing bundles of arrays between them would otherwise cost an
# incref/decref pair per array per call:
#   Sessions, Pairs, Matches   the ScoredResults columns Elo reads;
#   Ratings                    the state's arrays (EloPairsState);
#   Consts                     the parameters as named scalars (Elo points, days, sessions);
#   Scratch                    per-entry work arrays and ``out_after``.
Sessions = namedtuple("Sessions", "order day month kind pair_start")
Pairs = namedtuple("Pairs", "players partnership group score")
Matches = namedtuple("Matches", "start opp mate opp_mate result")
Ratings = namedtuple("Ratings", "rating pending sessions month_sessions last_day players touched is_touched "
                                "fit_ids in_fit player_sum player_count player_seed clock")
Consts = namedtuple("Consts", "monthly k k_provisional k_top top_rating established_sessions ref_weight stale_days "
                              "seed_rating elo_per_grade")
Scratch = namedtuple("Scratch", "q w_sum delta est_flag n_used rated out_after")


@kernel(refcount=False, helper=True)
def _note_fit_candidate(st, p, established_sessions):
    """Add partnership ``p`` to ``fit_ids`` once its sessions (published and not) reach
    ``established_sessions``.  Only ``_start_pairs`` and ``_book`` change a partnership's
    sessions or mark it seen (``_publish`` moves them, keeping the sum), and both call this."""
    if st.in_fit[p] == 0 and st.sessions[p] + st.month_sessions[p] >= established_sessions:
        st.in_fit[p] = 1
        st.fit_ids[st.clock[4]] = p
        st.clock[4] += 1


@kernel(refcount=False, helper=True)
def _start_pairs(ss, pp, st, s, c):
    """New pairs of session ``s`` get their initial rating; returning stale pairs turn provisional."""
    for e in range(ss.pair_start[s], ss.pair_start[s + 1]):
        p = pp.partnership[e]
        if st.last_day[p] == NEVER:
            a = pp.players[e, 0]
            b = pp.players[e, 1]
            cnt = st.player_count[a] + st.player_count[b]
            if cnt > 0:
                r0 = (st.player_sum[a] + st.player_sum[b]) / cnt
            else:
                r0 = 0.5 * (st.player_seed[a] + st.player_seed[b])
            st.rating[p] = r0
            st.players[p, 0] = a
            st.players[p, 1] = b
            st.player_sum[a] += r0
            st.player_sum[b] += r0
            st.player_count[a] += 1
            st.player_count[b] += 1
        elif ss.day[s] - st.last_day[p] > c.stale_days:
            st.sessions[p] = 0
            st.month_sessions[p] = 0
        st.last_day[p] = ss.day[s]
        _note_fit_candidate(st, p, c.established_sessions)


@kernel(refcount=False, helper=True)
def _rate_matches(ss, pp, mm, st, s, c, tmp):
    """Swiss pairs and teams: adjustments (Elo points) from the match rows of session ``s``."""
    sqrt2 = math.sqrt(2.0)
    teams = _IS_TEAM[ss.kind[s]]
    for e in range(ss.pair_start[s], ss.pair_start[s + 1]):
        p = pp.partnership[e]
        est = st.sessions[p] >= c.established_sessions
        r_own = st.rating[p]
        if teams and mm.start[e + 1] > mm.start[e]:
            mp = pp.partnership[mm.mate[mm.start[e]]]
            r_own = (st.rating[p] + st.rating[mp]) / sqrt2
            if est and st.sessions[mp] < c.established_sessions:
                tmp.rated[e] = 0  # a provisional team-mate: no established points change
                continue
        used = 0
        sw = 0.0
        swd = 0.0
        for m in range(mm.start[e], mm.start[e + 1]):
            o = pp.partnership[mm.opp[m]]
            r_opp = st.rating[o]
            opp_est = st.sessions[o] >= c.established_sessions
            if teams:
                oq = pp.partnership[mm.opp_mate[m]]
                r_opp = (st.rating[o] + st.rating[oq]) / sqrt2
                opp_est = opp_est and st.sessions[oq] >= c.established_sessions
            if est:
                if not opp_est:
                    continue
                w = 1.0
            else:
                w = c.ref_weight if opp_est else 1.0
            if w <= 0.0:
                continue
            ex = 1.0 / (1.0 + 10.0 ** ((r_opp - r_own) / 400.0))
            used += 1
            sw += w
            swd += w * (mm.result[m] - ex)
        if used == 0:
            tmp.rated[e] = 0
            continue
        kk = c.k_provisional if not est else (c.k_top if st.rating[p] >= c.top_rating else c.k)
        tmp.delta[e] = kk * math.sqrt(used) * swd / sw
        tmp.rated[e] = 1


@kernel(refcount=False, helper=True)
def _rate_groups(ss, pp, st, s, c, tmp):
    """Pairs ranked in groups: adjustments (Elo points) against every rival of the same group.

    Each couple (e, o) is visited once: E_oe = 1 − E_eo and a_oe = 1 − a_eo;
    E_eo = q_e / (q_e + q_o) with q = 10^((r − rmax)/400).  An opponent's
    weight is 1 for a provisional pair (ref_weight if the opponent is
    established) and 1 or 0 (opponent provisional) for an established pair.
    """
    lo, hi = ss.pair_start[s], ss.pair_start[s + 1]
    # the bundles' arrays as locals: the inner loop below is the scheme's hot spot
    q, w_sum, delta, est_flag, n_used, rated = tmp.q, tmp.w_sum, tmp.delta, tmp.est_flag, tmp.n_used, tmp.rated
    part, group, score, rating, sessions = pp.partnership, pp.group, pp.score, st.rating, st.sessions
    rmax = -np.inf
    for e in range(lo, hi):
        rmax = max(rmax, rating[part[e]])
    for e in range(lo, hi):
        p = part[e]
        q[e] = 10.0 ** ((rating[p] - rmax) / 400.0)
        est_flag[e] = 1 if sessions[p] >= c.established_sessions else 0
        n_used[e] = 0
        w_sum[e] = 0.0
        delta[e] = 0.0  # Σ w (a − E) until the end of the session
    for e in range(lo, hi):
        g = group[e]
        se = score[e]
        qe = q[e]
        est_e = est_flag[e]
        # weights of e's opponent o (w_eo) and of e as o's opponent (w_oe),
        # by o's status: provisional (p) or established (x)
        w_eo_p = 0.0 if est_e else 1.0
        w_eo_x = 1.0 if est_e else c.ref_weight
        w_oe_p = c.ref_weight if est_e else 1.0
        w_oe_x = 1.0 if est_e else 0.0
        used = n_used[e]
        sw = w_sum[e]
        swd = delta[e]
        for o in range(e + 1, hi):
            if group[o] != g:
                continue
            so = score[o]
            d = (se > so) + 0.5 * (se == so) - qe / (qe + q[o])  # branch-free: ties are common
            est_o = est_flag[o]  # 0/1; arithmetic, since statuses mix unpredictably
            w_eo = w_eo_p + est_o * (w_eo_x - w_eo_p)
            w_oe = w_oe_p + est_o * (w_oe_x - w_oe_p)
            used += w_eo > 0.0
            sw += w_eo
            swd += w_eo * d
            n_used[o] += w_oe > 0.0
            w_sum[o] += w_oe
            delta[o] -= w_oe * d
        n_used[e] = used
        w_sum[e] = sw
        delta[e] = swd
    for e in range(lo, hi):
        if n_used[e] == 0:
            rated[e] = 0
            continue
        p = part[e]
        kk = c.k_provisional if est_flag[e] == 0 else (c.k_top if rating[p] >= c.top_rating else c.k)
        delta[e] = kk * math.sqrt(n_used[e]) * delta[e] / w_sum[e]
        rated[e] = 1


@kernel(refcount=False, helper=True)
def _book(ss, pp, st, s, c, tmp):
    """Book session ``s``'s adjustments as pending; ``out_after`` gets the ratings in grade points
    (unless it is empty)."""
    for e in range(ss.pair_start[s], ss.pair_start[s + 1]):
        p = pp.partnership[e]
        if tmp.rated[e]:
            st.pending[p] += tmp.delta[e]
            st.month_sessions[p] += 1
            _note_fit_candidate(st, p, c.established_sessions)
            if st.is_touched[p] == 0:
                st.is_touched[p] = 1
                st.touched[st.clock[2]] = p
                st.clock[2] += 1
            if tmp.out_after.shape[0] == 0:
                continue  # the caller wants no post-session grades
            g = 50.0 + (st.rating[p] + st.pending[p] - c.seed_rating) / c.elo_per_grade
            tmp.out_after[e, 0] = g
            tmp.out_after[e, 1] = g
        elif tmp.out_after.shape[0] > 0:
            tmp.out_after[e, 0] = np.nan
            tmp.out_after[e, 1] = np.nan


@kernel(refcount=False)
def _apply_kernel(ss, pp, mm, st, c, tmp):
    """Rate the sessions of one chunk in ``ss.order``; see the module docstring.

    Scratch arrays q, w_sum, delta (float64), est_flag, rated (int8) and
    n_used (int32) have one slot per pair entry.  ``out_after`` (E, 2)
    receives grade points or NaN.
    """
    n_order = ss.order.shape[0]
    for j in range(n_order):
        s = ss.order[j]
        if j + 1 < n_order:  # the next session's slots start loading while this one is rated
            nxt = ss.order[j + 1]
            for e in range(ss.pair_start[nxt], ss.pair_start[nxt + 1]):
                prefetch(st.rating, pp.partnership[e])
        if c.monthly and ss.month[s] != st.clock[0] and st.clock[0] >= 0:
            _publish(st)
        st.clock[0] = ss.month[s]
        st.clock[1] = ss.day[s]
        _start_pairs(ss, pp, st, s, c)
        # adjustments, all from the ratings published before this session
        if _RATED_BY_MATCH[ss.kind[s]]:
            _rate_matches(ss, pp, mm, st, s, c, tmp)
        else:
            _rate_groups(ss, pp, st, s, c, tmp)
        _book(ss, pp, st, s, c, tmp)
        if not c.monthly:
            _publish(st)


# --- the individual-rating fit ----------------------------------------------

@kernel(refcount=False)
def _established_pairs(st, day, later, established_sessions, stale_days, sel, rating, sessions):
    """The partnerships established on ``day`` (days since 1970), as ``pair_ratings`` defines them.

    Writes their ids (ascending) to ``sel``, their ratings (Elo points; the
    month's pending adjustments added when ``later``) to ``rating`` and their
    rated sessions to ``sessions``; returns how many.  One pass over the
    candidates ``fit_ids[:n_fit]``, sorted (``_sort_fit_ids``), not over every
    partnership slot: the partnerships ever seen grow without end (five million
    in a national decade), those that may be established do not.  Candidates
    whose sessions fell below ``established_sessions`` (a stale pair's return)
    leave the list; ``_note_fit_candidate`` adds them again if they qualify.
    """
    n = 0
    kept = 0
    n_cand = st.clock[4]
    for i in range(n_cand):
        if i + _AHEAD < n_cand:  # candidates lie ~60 slots apart: too far for the hardware to guess
            prefetch(st.rating, st.fit_ids[i + _AHEAD])
        p = st.fit_ids[i]
        if st.sessions[p] + st.month_sessions[p] < established_sessions:
            st.in_fit[p] = 0
            continue
        st.fit_ids[kept] = p
        kept += 1
        last = st.last_day[p]
        s = st.sessions[p] + st.month_sessions[p] if later else st.sessions[p]
        if s < established_sessions or day - last > stale_days:
            continue
        sel[n] = p
        rating[n] = st.rating[p] + st.pending[p] if later else st.rating[p]
        sessions[n] = s
        n += 1
    st.clock[3] = kept
    st.clock[4] = kept
    return n


def _sort_fit_ids(state: EloPairsState) -> None:
    """Put the fit candidates in ascending order, as ``_established_pairs`` reads them: the sorted
    prefix and the few added since are one merge for numpy's stable sort (timsort)."""
    n_sorted, n = int(state.clock[3]), int(state.clock[4])
    if n_sorted < n:
        state.fit_ids[:n].sort(kind="stable")
        state.clock[3] = n


FitWork = namedtuple("FitWork", "count wsum wrsum compact id_start fill id_partner incident rank pos order tally player "
                                "start partner slot xc pull denom")
"""The fit's work arrays (``_fit_work``), allocated by the caller so the kernel allocates nothing."""


def _fit_work(n_players: int, n_pairs: int) -> FitWork:
    n, m2 = int(n_players), 2 * int(n_pairs)
    i64 = np.int64
    return FitWork(count=np.empty(n, i64), wsum=np.empty(n), wrsum=np.empty(n), compact=np.empty(n, i64),
                   id_start=np.empty(n + 1, i64), fill=np.empty(n, i64), id_partner=np.empty(m2, np.int32),
                   incident=np.empty(m2, np.int32), rank=np.empty(n, i64), pos=np.empty(n, i64),
                   order=np.empty(n, i64), tally=np.empty(_DEGREE_RUNS * n + 2, i64), player=np.empty(n, i64),
                   start=np.empty(n + 1, i64), partner=np.empty(m2, np.int32), slot=np.empty((m2, 2)),
                   xc=np.empty(n), pull=np.empty(n), denom=np.empty(n))


def _kept_fit_work(state: EloPairsState, n_pairs: int) -> FitWork:
    """The state's fit work arrays, replaced by larger ones (room for a quarter more pairs) when ``n_pairs``
    outgrows them.  Kept because fresh ones cost more than the fit's setup itself: a year-10 national fit
    touches ~10 MB of them, and this machine is slow on first touch of fresh pages (measured on captured
    snapshots, loaded machine: the fit kernel's setup 5.6 ms with fresh arrays, 2.2 ms with kept ones)."""
    work = state.fit_work
    if work is None or len(work.count) != state.n_players or len(work.partner) < 2 * n_pairs:
        work = state.fit_work = _fit_work(state.n_players, n_pairs + n_pairs // 4)
    return work


_DEGREE_RUNS = 8
"""``_fit_kernel``'s sweep groups the players of a level with 1 to 7 pairs by their number of pairs, and
those with more together (their longer loops make a mispredicted exit cheap by comparison)."""


@kernel(refcount=False)
def _fit_kernel(pair_a, pair_b, r, w, ridge, lower, x, tol, max_iter, work):
    """Projected Gauss–Seidel for the bounded ridge least-squares fit.

    Minimises Σ_k w_k ((x_a + x_b)/2 − r_k)² + ridge·Σ_i W_i (x_i − prior_i)²
    subject to x ≥ lower, where W_i = Σ w over the pairs of player i and
    prior_i their w-weighted mean rating.  ``x`` (P, Elo points) holds the
    warm start (NaN: start at max(prior_i, lower)) and receives the solution;
    players with no pair get NaN.  ``work``: ``_fit_work(P, M')`` with M' >= M, as left by any
    earlier fit (the kernel sets what it reads).
    Returns the number of sweeps.

    A sweep does the operations of the plain sweep (tests/naive/elo.py
    ``naive_gauss_seidel``), which visits the players with pairs in ascending
    id, each summing over his pairs in the order (pairs where he is
    ``pair_a``, then ``pair_b``, each ascending).  It visits them in another
    order with the same result bit for bit: a player's update reads only his
    partners, so all that matters is which of two *partners* comes first, and
    the kernel keeps that.  It sorts the players by level (one more than the
    highest level among his partners before him in id order: a partner before
    him in id order has a lower level, one after a higher), then by how many
    pairs they have (``_DEGREE_RUNS``), then by id.  Runs of players with the
    same number of pairs make the inner loop's exit predictable; in id order,
    the mix of one-pair players and players with dozens made it a coin toss.
    (Measured on captured national snapshots against the id-order sweep, min
    of 15, separate processes interleaved, machine heavily loaded: the fit
    kernel 29.7 -> 21.6-22.0 ms, 0.73x, on year 10's 72 k pairs, 33 k players
    and 52 levels; 12.8-13.0 -> 11.9 ms, 0.92x, on year 5's 32 k pairs, mostly
    one-pair players, where the sorting's setup eats most of the gain.  The
    longer setup costs ~0.45 s more CPU to compile, once per source tree.)  The
    arrays are laid out once per fit in that order — a compact player index,
    and per incident pair the partner's place (int32) and the (weight, rating)
    side by side — so a sweep reads memory in order, and little of it: a
    national fit's slots outgrow the core's cache.  (Measured against separate
    int64 partner, weight and rating arrays on captured fits, min of 30 or 300,
    separate processes, loaded machine: 0.77-0.79x on a default club fit of
    149 pairs, 0.91-0.98x on a year-10 national fit of 72 k pairs.)
    """
    n = x.shape[0]
    m = r.shape[0]
    count, wsum, wrsum, compact = work.count, work.wsum, work.wrsum, work.compact
    id_start, fill, id_partner, incident, rank = work.id_start, work.fill, work.id_partner, work.incident, work.rank
    pos, order, tally = work.pos, work.order, work.tally
    player, start, partner, slot, xc, pull, denom = work.player, work.start, work.partner, work.slot, work.xc, \
        work.pull, work.denom
    for i in range(n):
        count[i] = 0
        wsum[i] = 0.0
        wrsum[i] = 0.0
    for side in range(2):  # Σ over the pair ends in the order a..., b...
        ends = pair_a if side == 0 else pair_b
        for k in range(m):
            count[ends[k]] += 1
            wsum[ends[k]] += w[k]
            wrsum[ends[k]] += w[k] * r[k]
    # the players with pairs in id order (compact index c), each with his pairs in the sweep's order:
    # the partner's c and the pair
    n_act = 0
    id_start[0] = 0
    for i in range(n):
        if count[i] > 0:
            compact[i] = n_act
            id_start[n_act + 1] = id_start[n_act] + count[i]
            fill[n_act] = id_start[n_act]
            n_act += 1
        else:
            compact[i] = -1
    for side in range(2):
        ends, others = (pair_a, pair_b) if side == 0 else (pair_b, pair_a)
        for k in range(m):
            c = compact[ends[k]]
            id_partner[fill[c]] = compact[others[k]]
            incident[fill[c]] = k
            fill[c] += 1
    # the sweep's order: each player's level (one more than the highest level among his partners before
    # him in id order, 0 if none: no two partners share a level), then his number of pairs (1 to
    # _DEGREE_RUNS - 1 apart, more together), then id.  rank = level · _DEGREE_RUNS + min(pairs,
    # _DEGREE_RUNS) − 1, put in order by one stable counting sort; pos[c]: the place of player c
    top = 0
    for c in range(n_act):
        lv = 0
        for t in range(id_start[c], id_start[c + 1]):
            q = id_partner[t]
            if q < c and rank[q] // _DEGREE_RUNS >= lv:
                lv = rank[q] // _DEGREE_RUNS + 1
        rank[c] = lv * _DEGREE_RUNS + min(id_start[c + 1] - id_start[c], _DEGREE_RUNS) - 1
        top = max(top, rank[c])
    for v in range(top + 2):
        tally[v] = 0
    for c in range(n_act):
        tally[rank[c] + 1] += 1
    for v in range(top + 1):
        tally[v + 1] += tally[v]
    for c in range(n_act):
        q = tally[rank[c]]
        tally[rank[c]] += 1
        pos[c] = q
        order[q] = c
    # per incident pair in sweep order: the partner's place in the sweep (int32) and (weight, rating)
    start[0] = 0
    for q in range(n_act):
        c = order[q]
        t0 = id_start[c]
        d = id_start[c + 1] - t0
        s0 = start[q]
        start[q + 1] = s0 + d
        for u in range(d):
            k = incident[t0 + u]
            partner[s0 + u] = pos[id_partner[t0 + u]]
            slot[s0 + u, 0] = w[k]
            slot[s0 + u, 1] = r[k]
    for c in range(n):
        if compact[c] >= 0:
            player[pos[compact[c]]] = c
    for c in range(n_act):
        i = player[c]
        prior = wrsum[i] / wsum[i]
        wi = 0.0
        for t in range(start[c], start[c + 1]):
            wi += slot[t, 0]
        pull[c] = 2.0 * ridge * wi * prior  # 2·ridge·W_i·prior_i
        denom[c] = 0.5 * wi + 2.0 * ridge * wi  # W_i/2 + 2·ridge·W_i
        xi = x[i]
        if not (xi == xi and abs(xi) < np.inf):  # not finite
            xi = prior if prior >= lower else lower  # np.maximum(prior, lower)
        xc[c] = xi
    sweeps = 0
    for it in range(max_iter):
        sweeps = it + 1
        biggest = 0.0
        for c in range(n_act):
            num = 0.0
            for t in range(start[c], start[c + 1]):
                num += slot[t, 0] * (slot[t, 1] - 0.5 * xc[partner[t]])
            num += pull[c]
            xi = num / denom[c]
            if xi < lower:
                xi = lower
            change = abs(xi - xc[c])
            if change > biggest:
                biggest = change
            xc[c] = xi
        if biggest <= tol:
            break
    for i in range(n):
        x[i] = np.nan
    for c in range(n_act):
        x[player[c]] = xc[c]
    return sweeps


def fit_individual(pair_a, pair_b, r, w, n_players, ridge, lower, tol=1e-9, max_iter=10000, x0=None):
    """Individual ratings (Elo points) from pair ratings by bounded ridge least squares.

    pair_a, pair_b: the two players of each pair (int, length M); r: pair
    ratings (Elo points); w: weights (> 0).  Minimises
    Σ w (r − (x_a + x_b)/2)² + ridge·Σ_i W_i (x_i − m_i)² with x ≥ lower,
    where W_i = Σ w of player i's pairs and m_i their w-weighted mean rating.
    Returns (x, sweeps); players with no pair get NaN.  ``x0`` (P) is a
    warm start (NaN entries start at m_i).
    """
    pair_a = np.ascontiguousarray(pair_a, np.int32)
    pair_b = np.ascontiguousarray(pair_b, np.int32)
    r = np.ascontiguousarray(r, np.float64)
    w = np.ascontiguousarray(w, np.float64)
    m = len(r)
    if not (len(pair_a) == len(pair_b) == len(w) == m):
        raise ValueError(f"fit_individual: pair_a, pair_b, r and w must have one length, got "
                         f"{len(pair_a)}, {len(pair_b)}, {m}, {len(w)}")
    if m and (min(pair_a.min(), pair_b.min()) < 0 or max(pair_a.max(), pair_b.max()) >= n_players):
        raise ValueError(f"fit_individual: a player id is outside 0..{n_players - 1}")
    if m and np.any(pair_a == pair_b):
        raise ValueError(f"fit_individual: pair {int(np.argmax(pair_a == pair_b))} has the same player twice")
    if not np.all(np.isfinite(r)):
        raise ValueError(f"fit_individual: r has a non-finite value at pair {int(np.argmin(np.isfinite(r)))}")
    bad = np.flatnonzero(~(np.isfinite(w) & (w > 0)))
    if len(bad):
        raise ValueError(f"fit_individual: weights must be finite and > 0, got w[{bad[0]}]={float(w[bad[0]])}")
    if not ridge > 0:
        raise ValueError(f"fit_individual: ridge={ridge!r} must be > 0")
    x = np.full(n_players, np.nan)
    if x0 is not None:
        x[:] = x0
    sweeps = _fit_kernel(pair_a, pair_b, r, w, float(ridge), float(lower), x, float(tol), int(max_iter),
                         _fit_work(n_players, m))
    return x, int(sweeps)


# --- the scheme ---------------------------------------------------------------

class EloPairsScheme(SchemeBase):
    """The Elo pairs scheme (``Scheme`` protocol); see the module docstring."""
    corrections = "first"
    optional_out_after = True

    partnership_switch = {}  # ratings belong to partnerships: always there

    def __init__(self, params: Params | None = None):
        self.params = params or Params()
        self.params.check()

    # state ------------------------------------------------------------------
    def new_state(self, players, n_partnerships: int) -> EloPairsState:
        """Fresh state for ``players`` (a PlayerTable) and ``n_partnerships`` slots."""
        if n_partnerships < 0:
            raise ValueError(f"n_partnerships={n_partnerships!r} must be >= 0")
        p = self.params
        n = players.n_players
        init = np.asarray(players.initial_grade, np.float64)
        if len(init) != n:
            raise ValueError(f"PlayerTable.initial_grade has length {len(init)}, expected {n}")
        seed = np.where(np.isnan(init), p.seed_rating, p.seed_rating + (init - 50.0) * p.elo_per_grade)
        if not np.all(np.isfinite(seed)):
            bad = int(np.argmin(np.isfinite(seed)))
            raise ValueError(f"PlayerTable.initial_grade[{bad}]={float(init[bad])} is not finite")
        return EloPairsState(**_partnership_arrays(int(n_partnerships)),
                        player_sum=np.zeros(n), player_count=np.zeros(n, np.int32),
                        player_seed=seed.astype(np.float64), indiv=np.full(n, np.nan),
                        clock=np.array([-1, NEVER, 0, 0, 0], np.int64))

    def grow(self, state: EloPairsState, n_partnerships: int) -> EloPairsState:
        """Room for at least ``n_partnerships`` partnerships (amortised: ×1.5)."""
        old = state.capacity
        if n_partnerships <= old:
            return state
        new = max(int(n_partnerships), old + old // 2)
        room = state.room
        if (room is not None and new <= len(room["slots"]) and state.slots is not None
                and np.may_share_memory(state.slots, room["slots"])):  # in place (not in a copy): nothing moves
            _set_up(room, old, new)
            for name, value in _views(room, new).items():
                setattr(state, name, value)
            return state
        fresh = _partnership_arrays(new, GROW_ROOM * new)
        if state.slots is not None:  # the records as bytes: 7.5 ms for 3.4 M slots (a record assignment or the
            # seven fields one by one: 73 or 51 ms, numpy's structured copy going field by field)
            fresh["slots"].view(np.uint8)[:old * SLOT_RECORD.itemsize] = state.slots.view(np.uint8)
            copied = ("players",)
        else:
            copied = ("rating", "pending", "sessions", "month_sessions", "last_day", "is_touched", "in_fit",
                      "players")
        for name in copied:
            fresh[name][:old] = getattr(state, name)
        for name, n in (("touched", state.clock[2]), ("fit_ids", state.clock[4])):  # only the first n are read
            fresh[name][:n] = getattr(state, name)[:n]
        for name, value in fresh.items():
            setattr(state, name, value)
        return state

    # rating -------------------------------------------------------------------
    def apply(self, state: EloPairsState, scored, out_after: np.ndarray) -> None:
        """Rate every session of ``scored`` in ``scored.order``.

        ``out_after[e, k]`` (float64, (E, 2)) receives the rating of entry
        ``e``'s partnership after its session in grade units (monthly: the
        published rating plus this month's adjustments so far), or NaN if
        the pair was not rated in that session; ``out_after=None`` skips them.
        """
        self._apply(state, scored, out_after, True)

    def apply_trusted(self, state: EloPairsState, scored, out_after: np.ndarray | None) -> None:
        """``apply`` without the checks of ``scored`` (the engine's own chunks: well-formed by construction)."""
        self._apply(state, scored, out_after, False)

    def _apply(self, state: EloPairsState, scored, out_after, check: bool) -> None:
        if check:
            _validate_out(scored, out_after)
            _validate_sessions(state, scored)
        p = self.params
        n_e = scored.n_entries
        i32, i64, f64 = np.int32, np.int64, np.float64
        c = lambda name, dtype: np.ascontiguousarray(getattr(scored, name), dtype)  # noqa: E731
        ss = Sessions(c("order", i32), c("day", i32), c("month", i32), c("kind", np.int8), c("pair_start", i64))
        pp = Pairs(c("pair_players", i32), c("pair_partnership", i32), c("pair_group", i32), c("pair_score", f64))
        mm = Matches(c("match_start", i64), c("match_opp", i32), c("match_mate", i32), c("match_opp_mate", i32),
                     c("match_result", f64))
        # the entries and match rows in one pass; only if that finds a fault (or the ids came in other dtypes,
        # which the casts above could wrap) do the numpy checks run, to name it
        if check and not (all(np.asarray(getattr(scored, name)).dtype == dtype for name, dtype in _ID_COLUMNS)
                          and _entries_ok(ss, pp, mm, state.players, state.n_players,
                                                   np.empty(state.capacity, i64))):
            if n_e:
                _validate_pairs(state, scored)
            _validate_rows(scored)
        tmp = Scratch(q=np.empty(n_e), w_sum=np.empty(n_e), delta=np.zeros(n_e), est_flag=np.empty(n_e, np.int8),
                      n_used=np.empty(n_e, np.int32), rated=np.zeros(n_e, np.int8),
                      out_after=_NO_OUT if out_after is None else out_after)
        consts = Consts(monthly=p.update == "monthly", k=float(p.k), k_provisional=float(p.k_provisional),
                        k_top=float(p.k_top), top_rating=float(p.top_rating),
                        established_sessions=int(p.established_sessions), ref_weight=float(p.ref_weight),
                        stale_days=float(p.stale_days), seed_rating=float(p.seed_rating),
                        elo_per_grade=float(p.elo_per_grade))
        _apply_kernel(ss, pp, mm, _ratings(state), consts, tmp)

    # reading ------------------------------------------------------------------
    def pair_ratings(self, state: EloPairsState, day: int) -> dict:
        """The partnerships' published ratings as seen on ``day``.

        Returns arrays over partnership ids: ``rating`` (Elo points, NaN if
        unseen), ``grade`` (grade units), ``sessions`` (rated sessions),
        ``established`` (bool, also False once stale), ``last_day`` (days,
        NEVER if unseen) and ``players`` (K, 2).  With monthly updates the
        current month's adjustments count only once ``day`` is in a later
        month.
        """
        p = self.params
        seen = state.last_day != NEVER
        rating = state.rating.copy()
        sessions = state.sessions.copy()
        if state.clock[0] >= 0 and day_to_month(day) > state.clock[0]:
            rating += state.pending
            sessions += state.month_sessions
        rating[~seen] = np.nan
        age = day - state.last_day.astype(np.int64)
        established = seen & (sessions >= p.established_sessions) & (age <= p.stale_days)
        return dict(rating=rating, grade=rating_to_grade(rating, p), sessions=sessions,
                    established=established, last_day=state.last_day.copy(),
                    players=state.players.copy())

    def partnership_grades(self, state: EloPairsState, day: int) -> dict[str, np.ndarray]:
        """``pair_ratings`` (``grade`` in grade points, ``rating``, ``sessions``, ...) for ``simcore grade``."""
        return self.pair_ratings(state, day)

    def individual_ratings(self, state: EloPairsState, day: int) -> np.ndarray:
        """Individual ratings (Elo points, P) fitted to the established pair ratings on ``day``."""
        p = self.params
        later = bool(state.clock[0] >= 0 and day_to_month(day) > state.clock[0])
        n_cand = int(state.clock[4])
        sel, rating, sessions = np.empty(n_cand, np.int64), np.empty(n_cand), np.empty(n_cand, np.int64)
        _sort_fit_ids(state)
        n = _established_pairs(_ratings(state), int(day), later, int(p.established_sessions), float(p.stale_days),
                               sel, rating, sessions)
        sel, rating, sessions = sel[:n], rating[:n], sessions[:n]
        age_years = np.maximum(day - state.last_day[sel].astype(np.float64), 0.0) / DAYS_PER_YEAR
        w = np.maximum(sessions, 1).astype(np.float64) ** p.fit_session_power
        if p.fit_half_life_years > 0:
            w = w * 0.5 ** (age_years / p.fit_half_life_years)
        keep = w > 0  # a very old pair may underflow to weight 0
        sel, rating, w = sel[keep], rating[keep], w[keep]
        x = state.indiv.copy()  # the warm start: the last fit
        _fit_kernel(state.players[sel, 0], state.players[sel, 1], rating, w, float(p.fit_ridge), float(p.min_rating), x,
                    float(p.fit_tol), int(p.fit_max_iter), _kept_fit_work(state, len(sel)))
        state.indiv[:] = x
        return x

    def grades(self, state: EloPairsState, day: int) -> np.ndarray:
        """Individual ratings on ``day`` in grade units (P), NaN for players without one."""
        return rating_to_grade(self.individual_ratings(state, day), self.params)


SCHEME = EloPairsScheme


def _validate(state: EloPairsState, scored, out_after: np.ndarray | None) -> None:
    """ValueError naming the field and value for anything the kernel cannot rate (the numpy checks
    ``apply`` runs when ``_entries_ok`` finds a fault)."""
    _validate_out(scored, out_after)
    _validate_sessions(state, scored)
    if scored.n_entries:
        _validate_pairs(state, scored)
    _validate_rows(scored)


def _validate_out(scored, out_after: np.ndarray | None) -> None:
    n_e = scored.n_entries
    if out_after is None:
        return
    if not isinstance(out_after, np.ndarray) or out_after.dtype != np.float64 or out_after.shape != (n_e, 2):
        raise ValueError(f"out_after must be a float64 array of shape ({n_e}, 2), got "
                         f"{getattr(out_after, 'dtype', type(out_after))} {getattr(out_after, 'shape', '')}")


_ID_COLUMNS = (("pair_players", np.int32), ("pair_partnership", np.int32), ("match_start", np.int64),
               ("match_opp", np.int32), ("match_mate", np.int32), ("match_opp_mate", np.int32))
"""Columns ``_entries_ok`` reads as the kernels' integer types: given in another, the numpy checks run."""

_NO_OUT = np.empty((0, 2))
"""``out_after`` for the kernels when the caller wants none."""


@kernel(refcount=False)
def _entries_ok(ss, pp, mm, known, n_players, last):
    """True if ``_validate_pairs`` and ``_validate_rows`` would pass, in one pass over the entries and
    match rows (after ``_validate_sessions``: pair_start and kind codes are sound).

    known: the state's players (K, 2) of each partnership slot, (-1, -1) if unseen; last (K): scratch.
    """
    n_e = pp.partnership.shape[0]
    cap = known.shape[0]
    for e in range(n_e):
        p = pp.partnership[e]
        if p < 0 or p >= cap:
            return False
        a = pp.players[e, 0]
        b = pp.players[e, 1]
        if a < 0 or b >= n_players or a >= b:
            return False
        if known[p, 0] == -1 and known[p, 1] == -1:
            last[p] = e  # a new partnership: every entry of it must name the players of its last one
        elif known[p, 0] != a or known[p, 1] != b:
            return False
    for e in range(n_e):
        p = pp.partnership[e]
        if known[p, 0] == -1 and known[p, 1] == -1:
            f = last[p]
            if pp.players[f, 0] != pp.players[e, 0] or pp.players[f, 1] != pp.players[e, 1]:
                return False
    ms = mm.start
    if ms.shape[0] != n_e + 1 or (n_e > 0 and ms[0] != 0):
        return False
    for e in range(n_e):
        if ms[e + 1] < ms[e]:
            return False
    n_r = ms[n_e] if n_e > 0 else 0
    if min(mm.result.shape[0], mm.opp.shape[0], mm.mate.shape[0], mm.opp_mate.shape[0]) < n_r:
        return False
    for s in range(ss.pair_start.shape[0] - 1):
        e0, e1 = ss.pair_start[s], ss.pair_start[s + 1]
        by_match = _RATED_BY_MATCH[ss.kind[s]]
        team = _IS_TEAM[ss.kind[s]]
        for e in range(e0, e1):
            if not by_match:
                if not np.isfinite(pp.score[e]):
                    return False
                continue
            for m in range(ms[e], ms[e + 1]):
                r = mm.result[m]
                if not (r >= 0.0 and r <= 1.0):
                    return False
                if not (e0 <= mm.opp[m] < e1):
                    return False
                if team and not (e0 <= mm.mate[m] < e1 and e0 <= mm.opp_mate[m] < e1
                                 and mm.mate[m] == mm.mate[ms[e]]):
                    return False
    return True


def _validate_sessions(state: EloPairsState, scored) -> None:
    """The sessions: their order, pair offsets, movement kinds, and days and months in date order."""
    n_s, n_e = scored.n_sessions, scored.n_entries
    order = np.asarray(scored.order)
    if len(order) and (order.min() < 0 or order.max() >= n_s or len(np.unique(order)) != len(order)):
        raise ValueError(f"ScoredResults.order must list distinct session ids in 0..{n_s - 1} (all, or those "
                         f"graded), got {order.tolist()[:10]}")
    ps = np.asarray(scored.pair_start)
    if len(ps) != n_s + 1 or ps[0] != 0 or ps[-1] != n_e or np.any(np.diff(ps) < 0):
        raise ValueError(f"ScoredResults.pair_start (length {len(ps)}, from {ps[:1].tolist()} to "
                         f"{ps[-1:].tolist()}) must rise from 0 to the {n_e} pair entries in {n_s + 1} offsets")
    kind = np.asarray(scored.kind)
    bad = np.flatnonzero((kind < 0) | (kind >= len(MOVEMENT_KINDS)))
    if len(bad):
        raise ValueError(f"ScoredResults.kind[{bad[0]}]={kind[bad[0]]} is not a movement kind code")
    days = np.asarray(scored.day)[order]
    if n_s:
        back = np.flatnonzero(np.diff(days) < 0)
        if len(back):
            s = order[back[0] + 1]
            raise ValueError(f"ScoredResults.day[{s}]={scored.day[s]} comes before an earlier session "
                             "in ScoredResults.order")
        if days[0] < state.clock[1]:
            raise ValueError(f"ScoredResults.day[{order[0]}]={days[0]} is before the last day already "
                             f"rated ({state.clock[1]}); Elo ratings must be applied in date order")
        want = days_to_months(days)
        got = np.asarray(scored.month)[order]
        if not np.array_equal(want, got):
            s = order[int(np.argmax(want != got))]
            raise ValueError(f"ScoredResults.month[{s}]={scored.month[s]} does not match its day "
                             f"{scored.day[s]}")


def _validate_pairs(state: EloPairsState, scored) -> None:
    """The pair entries: partnerships within the state, each always the same two players."""
    part = np.asarray(scored.pair_partnership)
    if part.min() < 0 or part.max() >= state.capacity:
        e = int(np.argmax((part < 0) | (part >= state.capacity)))
        raise ValueError(f"ScoredResults.pair_partnership[{e}]={part[e]} is outside the state's "
                         f"0..{state.capacity - 1}; call grow() first")
    pl = np.asarray(scored.pair_players)
    if pl.min() < 0 or pl.max() >= state.n_players:
        e = int(np.argmax(((pl < 0) | (pl >= state.n_players)).any(axis=1)))
        raise ValueError(f"ScoredResults.pair_players[{e}]={pl[e].tolist()} names a player "
                         f"outside 0..{state.n_players - 1}")
    if np.any(pl[:, 0] >= pl[:, 1]):
        e = int(np.argmax(pl[:, 0] >= pl[:, 1]))
        raise ValueError(f"ScoredResults.pair_players[{e}]={pl[e].tolist()} must be two different "
                         "players, lower id first")
    # compare the two players of a pair as one int64 (fast 1-D gathers); (-1, -1) is -1
    key = np.ascontiguousarray(pl, np.int32).view(np.int64).ravel()
    known = state.players.view(np.int64).ravel()[part]
    clash = (known != -1) & (known != key)
    # the same partnership within this chunk must name the same players too
    last = np.full(state.capacity, -1, np.int64)
    last[part] = key
    clash |= last[part] != key
    if clash.any():
        e = int(np.argmax(clash))
        raise ValueError(f"ScoredResults.pair_partnership[{e}]={part[e]} is given to players "
                         f"{pl[e].tolist()}, but that partnership is another pair of players")


def _validate_rows(scored) -> None:
    """Scores of pairs ranked in a field, and the match rows of Swiss and teams entries."""
    n_s, n_e = scored.n_sessions, scored.n_entries
    ps = np.asarray(scored.pair_start)
    kind = np.asarray(scored.kind)
    session_of = np.repeat(np.arange(n_s), np.diff(ps))
    is_match = _RATED_BY_MATCH[kind]
    is_team = _IS_TEAM[kind]
    score = np.asarray(scored.pair_score)
    grouped = ~is_match[session_of]
    bad = np.flatnonzero(grouped & ~np.isfinite(score))
    if len(bad):
        raise ValueError(f"ScoredResults.pair_score[{bad[0]}]={score[bad[0]]} is not finite")
    ms = np.asarray(scored.match_start)
    if len(ms) != n_e + 1 or (n_e and (ms[0] != 0 or np.any(np.diff(ms) < 0))):
        raise ValueError(f"ScoredResults.match_start has length {len(ms)} or is not increasing; "
                         f"expected {n_e + 1} offsets from 0")
    n_r = int(ms[-1]) if n_e else 0
    if len(scored.match_result) < n_r:
        raise ValueError(f"ScoredResults.match_result has {len(scored.match_result)} rows, "
                         f"match_start needs {n_r}")
    row_entry = np.repeat(np.arange(n_e), np.diff(ms))
    row_session = session_of[row_entry] if n_r else np.zeros(0, np.int64)
    res = np.asarray(scored.match_result)[:n_r]
    rows_used = is_match[row_session] if n_r else np.zeros(0, bool)
    bad = np.flatnonzero(rows_used & ~((res >= 0) & (res <= 1)))
    if len(bad):
        raise ValueError(f"ScoredResults.match_result[{bad[0]}]={res[bad[0]]} is not in 0..1")
    for name, needed in (("match_opp", rows_used), ("match_mate", rows_used & is_team[row_session]),
                         ("match_opp_mate", rows_used & is_team[row_session])):
        col = np.asarray(getattr(scored, name))[:n_r]
        ok = (col >= 0) & (col < n_e)
        ok[ok] &= session_of[col[ok]] == row_session[ok]
        bad = np.flatnonzero(needed & ~ok)
        if len(bad):
            raise ValueError(f"ScoredResults.{name}[{bad[0]}]={col[bad[0]]} is not a pair entry of "
                             f"the same session (row of entry {row_entry[bad[0]]})")
    mate = np.asarray(scored.match_mate)[:n_r]
    team_rows = rows_used & is_team[row_session]
    if team_rows.any():
        first_mate = mate[ms[row_entry]]
        bad = np.flatnonzero(team_rows & (mate != first_mate))
        if len(bad):
            raise ValueError(f"ScoredResults.match_mate[{bad[0]}]={mate[bad[0]]} differs from the "
                             f"entry's other match rows (entry {row_entry[bad[0]]})")
