"""The world: players, clubs, partnerships, the calendar and who plays when.

``build_world(scenario, key)`` draws one replicate population from a scenario
(numpy, seeded from the replicate key): every player's home club, second
club, activity, true-strength path (base, learner gain, step change,
decline), membership interval, regular partners and guest status; the clubs
and their weekly sessions; the events and the online room.  Players are
numbered club by club, so a club's members are contiguous.

``strength_on(world, day)`` gives every player's true strength on a day
(grade points).  ``plan_sessions(world, first_week, last_week)`` decides,
week by week, who plays in which session with whom: a ``SessionPlan``.  It
never looks at a grade.  Each week's plan depends only on the replicate key
and the week (streams keyed by (week, player) and (week, session slot)), so
planning weeks 0–7 at once equals planning 0–3 then 4–7.

Attendance model, per week:

1. every active member draws a number of solo sessions (below), capped;
   enters each event running that week with a probability rising
   with strength (so event fields are stronger) — events need mixing;
2. each regular partnership plays Poisson(joint) sessions together, joint =
   min(rate × activity) over the two partners, at the lower-id partner's
   clubs (one draw per partnership, so near-exclusive pairs really do play
   together); a player's own sessions come on top, Poisson(activity − the
   joint rates of their partnerships);
3. the remaining sessions are pick-up: a session at the home club, the
   second club (weight ``second_club_weight``) or, with probability
   ``travel_rate``, a random other club that is not isolated;
4. at each session the pick-up players are paired at random; the odd one
   out plays with a guest from the club's guest pool (or sits out);
   sessions with too few pairs are cancelled, oversized fields trimmed;
   team sessions group their pairs into teams of two pairs.

Online room members play tourneys; those entering with their regular
partner come as a pair, the rest as individuals (``b = -1``), seated by the
online movement.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simcore._jit import kernel
from simcore.results import KIND_ONLINE, MOVEMENT_KINDS, SCORINGS, EVENT_TYPES, TEAM_KINDS
from simcore.rng import below, derive, seed_stream, uniform
from simcore.scenario import WEEKDAYS, Scenario, _date

PICKUP, REGULAR, NEAR_EXCLUSIVE, GUEST_PAIR, ONLINE_SINGLE = 0, 1, 2, 3, 4
PARTNERSHIP_TYPES = ("pickup", "regular", "near_exclusive", "guest", "online_single")
NEVER = np.int32(2**31 - 1)
MIN_PAIRS = 5          # a club session runs with at least 3 tables less a half table
MIN_TEAM_PAIRS = 8     # four teams


@dataclass
class World:
    """One replicate population (struct of arrays).

    Players (P): home_club (−1 = online room only), second_club (−1), activity
    (sessions a week), base_strength, learner_gain, learner_days, step_day,
    step_size, decline_per_day (grade points), join_day, leave_day,
    return_day (days since 1970; NEVER if none), member, at_start, partner /
    partner2 (regular partners, −1), rate / rate2 (share of sessions with
    them), bonus / bonus2 (true-performance bonus of those partnerships,
    grade points), ptype (PARTNERSHIP_TYPES code of the main partnership),
    online (plays in the online room).
    Clubs (C): club_names, club_mean, club_isolated, club_first / club_stop
    (member id range, guests included), guest_first / guest_stop.
    Weekly sessions (K): ks_club, ks_weekday, ks_kind, ks_scoring, ks_boards,
    ks_event, ks_winners, ks_max_pairs.
    Events (Q): ev_* likewise plus ev_every (0 week, 1 month, 2 quarter,
    3 year), ev_week, ev_count (parallel instances: players enter the one
    of their home club's index modulo count), ev_entry_rate, ev_entry_strength.
    """

    scenario: Scenario
    start_day: int
    n_weeks: int
    isolation_end: int
    home_club: np.ndarray
    second_club: np.ndarray
    activity: np.ndarray
    base_strength: np.ndarray
    learner_gain: np.ndarray
    learner_days: np.ndarray
    step_day: np.ndarray
    step_size: np.ndarray
    decline_per_day: np.ndarray
    join_day: np.ndarray
    leave_day: np.ndarray
    return_day: np.ndarray
    member: np.ndarray
    at_start: np.ndarray
    partner: np.ndarray
    partner2: np.ndarray
    rate: np.ndarray
    rate2: np.ndarray
    joint1: np.ndarray
    joint2: np.ndarray
    bonus: np.ndarray
    bonus2: np.ndarray
    ptype: np.ndarray
    online: np.ndarray
    club_names: list
    club_mean: np.ndarray
    club_isolated: np.ndarray
    club_first: np.ndarray
    club_stop: np.ndarray
    guest_first: np.ndarray
    guest_stop: np.ndarray
    ks_club: np.ndarray
    ks_weekday: np.ndarray
    ks_kind: np.ndarray
    ks_scoring: np.ndarray
    ks_boards: np.ndarray
    ks_event: np.ndarray
    ks_winners: np.ndarray
    ks_max_pairs: np.ndarray
    ev_names: list
    ev_every: np.ndarray
    ev_week: np.ndarray
    ev_weekday: np.ndarray
    ev_kind: np.ndarray
    ev_scoring: np.ndarray
    ev_boards: np.ndarray
    ev_event: np.ndarray
    ev_winners: np.ndarray
    ev_max_pairs: np.ndarray
    ev_count: np.ndarray
    ev_entry_rate: np.ndarray
    ev_entry_strength: np.ndarray
    online_guest_first: int
    key: np.uint64

    @property
    def n_players(self) -> int:
        return len(self.home_club)

    @property
    def n_clubs(self) -> int:
        return len(self.club_names)

    def venue_names(self) -> list[str]:
        """Venue ids: clubs, then every event instance, then the online room."""
        names = list(self.club_names)
        for q, name in enumerate(self.ev_names):
            count = int(self.ev_count[q])
            names += [name] if count == 1 else [f"{name}-{i + 1}" for i in range(count)]
        names.append("online")
        return names


@dataclass
class SessionPlan:
    """Who plays in which session with whom, for a run of weeks.

    Sessions (S), sorted by (day, venue, slot):
        day       int32  days since 1970-01-01
        venue     int32  index into ``World.venue_names()``
        event     int8   EVENT_TYPES code
        kind      int8   MOVEMENT_KINDS code
        scoring   int8   SCORINGS code
        winners   int8   1 or 2 (as the club runs it; the engine may arrow-switch)
        boards    int32  target boards (online: boards per tourney)
        boards_per_round int32  online room only (0 elsewhere)
        entry_start int64 (S+1)  session s owns entries [entry_start[s], entry_start[s+1])
    Entries (E):
        a, b      int32  the two players; b = −1 for an online individual
        ptype     int8   PARTNERSHIP_TYPES code of the pair
        bonus     float64  true-performance bonus of the pair (grade points)
        team      int32  team index within the session for team kinds, else −1
    """

    day: np.ndarray
    venue: np.ndarray
    event: np.ndarray
    kind: np.ndarray
    scoring: np.ndarray
    winners: np.ndarray
    boards: np.ndarray
    boards_per_round: np.ndarray
    entry_start: np.ndarray
    a: np.ndarray
    b: np.ndarray
    ptype: np.ndarray
    bonus: np.ndarray
    team: np.ndarray

    @property
    def n_sessions(self) -> int:
        return len(self.day)

    @property
    def n_entries(self) -> int:
        return len(self.a)


# --- building a world ---------------------------------------------------------------

def _code(words, w):
    return words.index(w)


def build_world(scenario: Scenario, key) -> World:
    """Draw one replicate population from ``scenario`` with replicate key ``key``."""
    sc = scenario
    key = np.uint64(key)
    rng = np.random.default_rng([int(key) & 0xFFFFFFFF, int(key) >> 32, 0x5EED])
    start = _date(sc.calendar.start, "calendar.start")
    years = sc.calendar.years
    n_weeks = max(1, int(round(years * 365.25 / 7)))
    end = start + 7 * n_weeks
    isolation_end = _date(sc.mixing.isolation_ends, "mixing.isolation_ends") if sc.mixing.isolation_ends else start
    pl, pt, mx = sc.players, sc.partnerships, sc.mixing

    # clubs
    club_names, club_mean, club_sd, club_members, club_isolated = [], [], [], [], []
    for entry in sc.clubs:
        for i in range(entry.count):
            club_names.append(entry.name if entry.count == 1 else f"{entry.name}-{i + 1}")
            club_mean.append(entry.strength_mean + (rng.normal(0, entry.strength_mean_sd)
                                                    if entry.strength_mean_sd > 0 else 0.0))
            club_sd.append(entry.strength_sd)
            club_members.append(entry.members)
            club_isolated.append(entry.isolated)
    C = len(club_names)
    n_initial = int(sum(club_members))
    n_join = int(round(pl.join_rate * n_initial * years))
    join_club = rng.choice(C, n_join, p=np.array(club_members) / n_initial) if C and n_join else np.zeros(0, int)
    join_when = np.sort(rng.integers(start, end, n_join)) if n_join else np.zeros(0, int)

    cols = {k: [] for k in ("home", "strength", "join", "at_start", "member", "online", "learner")}

    def add(home, strength, join, at_start, member, online, learner):
        for k, v in zip(cols, (home, strength, join, at_start, member, online, learner)):
            cols[k].append(np.asarray(v))

    club_first = np.zeros(C, np.int64)
    club_stop = np.zeros(C, np.int64)
    guest_first = np.zeros(C, np.int64)
    guest_stop = np.zeros(C, np.int64)
    n = 0
    for c in range(C):
        club_first[c] = n
        m = club_members[c]
        add(np.full(m, c), rng.normal(club_mean[c], club_sd[c], m), np.full(m, start - 1), np.ones(m, bool),
            np.ones(m, bool), np.zeros(m, bool), np.zeros(m, bool))
        n += m
        jc = join_when[join_club == c]
        add(np.full(len(jc), c), rng.normal(club_mean[c] + pl.newcomer_offset, pl.newcomer_sd, len(jc)), jc,
            np.zeros(len(jc), bool), np.ones(len(jc), bool), np.zeros(len(jc), bool),
            rng.random(len(jc)) < pl.learner_share)
        n += len(jc)
        guest_first[c] = n
        g = int(round(pt.guest_share * m))
        add(np.full(g, c), rng.normal(club_mean[c] + pt.guest_strength_offset, club_sd[c], g),
            np.full(g, start - 1), np.zeros(g, bool), np.zeros(g, bool), np.zeros(g, bool), np.zeros(g, bool))
        n += g
        guest_stop[c] = n
        club_stop[c] = n
    on = sc.online
    online_guest_first = n
    if on.members:
        m = on.members
        guest = rng.random(m) < on.guest_share
        add(np.full(m, -1), rng.normal(on.strength_mean, on.strength_sd, m), np.full(m, start - 1),
            np.ones(m, bool), ~guest, np.ones(m, bool), np.zeros(m, bool))
        n += m
        nj = int(round(pl.join_rate * m * years))
        add(np.full(nj, -1), rng.normal(on.strength_mean + pl.newcomer_offset, pl.newcomer_sd, nj),
            np.sort(rng.integers(start, end, nj)), np.zeros(nj, bool), rng.random(nj) >= on.guest_share,
            np.ones(nj, bool), rng.random(nj) < pl.learner_share)
        n += nj
    P = n
    home = np.concatenate(cols["home"]).astype(np.int32)
    strength = np.concatenate(cols["strength"]).astype(np.float64)
    join_day = np.concatenate(cols["join"]).astype(np.int32)
    at_start = np.concatenate(cols["at_start"]).astype(bool)
    member = np.concatenate(cols["member"]).astype(bool)
    online = np.concatenate(cols["online"]).astype(bool)
    learner = np.concatenate(cols["learner"]).astype(bool)

    activity = np.exp(np.log(pl.activity_mean) + pl.activity_strength * (strength - 50)
                      + rng.normal(0, pl.activity_sigma, P))
    activity = np.minimum(activity, pl.activity_cap)
    learner_gain = np.where(learner, pl.learner_gain, 0.0)
    learner_days = np.full(P, pl.learner_years * 365.25)
    # first step change of a Poisson process at step_rate a year
    wait = rng.exponential(1.0 / pl.step_rate, P) * 365.25 if pl.step_rate > 0 else np.full(P, np.inf)
    step_at = np.maximum(join_day, start) + wait
    step_day = np.where(step_at < end, step_at, NEVER).astype(np.int32)
    step_size = np.full(P, pl.step_size)
    decline_per_day = np.where(rng.random(P) < pl.decline_share, pl.decline_per_year / 365.25, 0.0)
    stay = rng.exponential(1.0 / pl.leave_rate, P) * 365.25 if pl.leave_rate > 0 else np.full(P, np.inf)
    leave_at = np.maximum(join_day, start) + stay
    leave_day = np.where(leave_at < end, leave_at, NEVER).astype(np.int64)
    back = rng.random(P) < pl.return_share
    return_at = leave_day + rng.uniform(3, 5, P) * 365.25
    return_day = np.where(back & (leave_day < NEVER) & (return_at < end), return_at, NEVER).astype(np.int32)
    leave_day = leave_day.astype(np.int32)
    guests = ~member & ~online
    activity[guests] = 0.0  # guests play only as partners of an odd pick-up player
    leave_day[guests] = NEVER

    # second clubs
    second = np.full(P, -1, np.int32)
    if C > 1:
        can = (home >= 0) & member & ~np.asarray(club_isolated, bool)[np.maximum(home, 0)]
        pick = can & (rng.random(P) < mx.multi_club_share)
        other = rng.integers(0, C - 1, P)
        other = np.where(other >= home, other + 1, other)
        open_club = ~np.asarray(club_isolated, bool)
        second = np.where(pick & open_club[other], other, -1).astype(np.int32)

    # partnerships, within each club (and within the online room)
    partner = np.full(P, -1, np.int32)
    partner2 = np.full(P, -1, np.int32)
    rate = np.zeros(P)
    rate2 = np.zeros(P)
    bonus = np.zeros(P)
    bonus2 = np.zeros(P)
    ptype = np.zeros(P, np.int8)
    groups = [np.arange(club_first[c], guest_first[c]) for c in range(C)]
    if on.members:
        groups.append(np.arange(online_guest_first, P))
    for g, ids in enumerate(groups):
        ids = ids[at_start[ids] & member[ids]]
        ids = rng.permutation(ids)
        is_online = g >= C
        # triangles: A plays with B or C; B and C only with A (NGS FAQ 15, FR 13)
        k = 0
        if not is_online:
            for _ in range(pt.triangles):
                if k + 3 > len(ids):
                    break
                a_, b_, c_ = ids[k:k + 3]
                k += 3
                partner[a_], rate[a_], partner2[a_], rate2[a_] = b_, 0.48, c_, 0.48
                partner[b_], rate[b_], partner[c_], rate[c_] = a_, 0.95, a_, 0.95
                activity[b_] = activity[c_] = activity[a_] / 2
                bonus[a_] = bonus[b_] = bonus2[a_] = bonus[c_] = pt.near_exclusive_bonus
                ptype[[a_, b_, c_]] = NEAR_EXCLUSIVE
        rest = ids[k:]
        n_ne = int(round(pt.near_exclusive_share * len(rest) / 2)) * 2
        n_reg = int(round(pt.regular_share * len(rest) / 2)) * 2
        for lo, hi, r, bon, typ in ((0, n_ne, pt.near_exclusive_rate, pt.near_exclusive_bonus, NEAR_EXCLUSIVE),
                                    (n_ne, n_ne + n_reg, pt.regular_rate, pt.regular_bonus, REGULAR)):
            pairs = rest[lo:hi].reshape(-1, 2)
            if is_online:
                r = on.keep_partner
            for a_, b_ in pairs:
                partner[a_], partner[b_] = b_, a_
                rate[a_] = rate[b_] = r
                bonus[a_] = bonus[b_] = bon
                ptype[a_] = ptype[b_] = typ
                if typ == NEAR_EXCLUSIVE:
                    activity[a_] = activity[b_] = 0.5 * (activity[a_] + activity[b_])

    # sessions a week each partnership plays together: the partner who wants fewer binds
    def joint(p_of, r_of, other_rate):
        j = np.zeros(P)
        has = p_of >= 0
        q = p_of[has]
        j[has] = np.minimum(r_of[has] * activity[has], other_rate[has] * activity[q])
        return j
    rate_back1 = np.where(partner[np.maximum(partner, 0)] == np.arange(P), rate[np.maximum(partner, 0)],
                          rate2[np.maximum(partner, 0)])
    rate_back2 = np.where(partner[np.maximum(partner2, 0)] == np.arange(P), rate[np.maximum(partner2, 0)],
                          rate2[np.maximum(partner2, 0)])
    joint1 = joint(partner, rate, rate_back1)
    joint2 = joint(partner2, rate2, rate_back2)

    # weekly club sessions and events
    ks = [(ci, s) for ci in range(C) for s in _club_entry(sc, ci).sessions]
    ev = sc.events
    every_code = {"week": 0, "month": 1, "quarter": 2, "year": 3}

    def arr(values, dtype):
        return np.array(values, dtype=dtype)

    return World(
        scenario=sc, start_day=start, n_weeks=n_weeks, isolation_end=isolation_end,
        home_club=home, second_club=second, activity=activity, base_strength=strength,
        learner_gain=learner_gain, learner_days=learner_days, step_day=step_day, step_size=step_size,
        decline_per_day=decline_per_day, join_day=join_day, leave_day=leave_day, return_day=return_day,
        member=member, at_start=at_start, partner=partner, partner2=partner2, rate=rate, rate2=rate2,
        joint1=joint1, joint2=joint2,
        bonus=bonus, bonus2=bonus2, ptype=ptype, online=online, club_names=club_names,
        club_mean=np.asarray(club_mean, float), club_isolated=np.asarray(club_isolated, bool),
        club_first=club_first, club_stop=club_stop, guest_first=guest_first, guest_stop=guest_stop,
        ks_club=arr([c for c, _ in ks], np.int32),
        ks_weekday=arr([WEEKDAYS.index(s.weekday) for _, s in ks], np.int32),
        ks_kind=arr([_code(MOVEMENT_KINDS, s.movement) for _, s in ks], np.int8),
        ks_scoring=arr([_code(SCORINGS, s.scoring) for _, s in ks], np.int8),
        ks_boards=arr([s.boards for _, s in ks], np.int32),
        ks_event=arr([_code(EVENT_TYPES, s.event_type) for _, s in ks], np.int8),
        ks_winners=arr([s.winners for _, s in ks], np.int8),
        ks_max_pairs=arr([2 * s.max_tables for _, s in ks], np.int32),
        ev_names=[e.name for e in ev], ev_every=arr([every_code[e.every] for e in ev], np.int32),
        ev_week=arr([e.week for e in ev], np.int32),
        ev_weekday=arr([WEEKDAYS.index(e.weekday) for e in ev], np.int32),
        ev_kind=arr([_code(MOVEMENT_KINDS, e.movement) for e in ev], np.int8),
        ev_scoring=arr([_code(SCORINGS, e.scoring) for e in ev], np.int8),
        ev_boards=arr([e.boards for e in ev], np.int32),
        ev_event=arr([_code(EVENT_TYPES, e.event_type) for e in ev], np.int8),
        ev_winners=arr([e.winners for e in ev], np.int8),
        ev_max_pairs=arr([2 * e.max_tables for e in ev], np.int32),
        ev_count=arr([e.count for e in ev], np.int32),
        ev_entry_rate=arr([e.entry_rate for e in ev], np.float64),
        ev_entry_strength=arr([e.entry_strength for e in ev], np.float64),
        online_guest_first=online_guest_first, key=key,
    )


def _club_entry(sc: Scenario, ci: int):
    k = 0
    for entry in sc.clubs:
        if ci < k + entry.count:
            return entry
        k += entry.count
    raise IndexError(ci)


def strength_on(world: World, day) -> np.ndarray:
    """True strength of every player on ``day`` (grade points)."""
    w = world
    since_join = np.clip(day - np.maximum(w.join_day, w.start_day), 0, None)
    learn = w.learner_gain * np.minimum(1.0, since_join / w.learner_days)
    step = np.where(day >= w.step_day, w.step_size, 0.0)
    decline = w.decline_per_day * max(0, day - w.start_day)
    return w.base_strength + learn + step - decline


def active_on(world: World, day) -> np.ndarray:
    """Members playing on ``day`` (joined, not left or back after leaving); guests excluded."""
    w = world
    alive = (w.join_day <= day) & ((day < w.leave_day) | (day >= w.return_day))
    return alive & (w.member | w.online)


# --- planning -------------------------------------------------------------------------

@kernel
def _poisson(state, mean):
    # Knuth's product of uniforms: means here are a few sessions a week
    limit = np.exp(-mean)
    k = 0
    prod = uniform(state)
    while prod > limit:
        k += 1
        prod *= uniform(state)
    return k


@kernel
def _choose_slot(state, p, home, second, online, mixing, club_isolated, club_slot_first, club_slot_stop,
                 second_weight, travel_rate, online_first, online_stop, n_clubs):
    """A session slot for one of player p's sessions this week (−1 if none)."""
    if online[p]:
        if online_stop <= online_first:
            return -1
        return online_first + below(state, online_stop - online_first)
    h = home[p]
    if mixing and not club_isolated[h] and n_clubs > 1 and uniform(state) < travel_rate:
        c = below(state, n_clubs - 1)
        if c >= h:
            c += 1
        if not club_isolated[c] and club_slot_stop[c] > club_slot_first[c]:
            return club_slot_first[c] + below(state, club_slot_stop[c] - club_slot_first[c])
    n_home = club_slot_stop[h] - club_slot_first[h]
    s2 = second[p]
    n_second = 0
    if mixing and s2 >= 0:
        n_second = club_slot_stop[s2] - club_slot_first[s2]
    total = n_home + second_weight * n_second
    if total <= 0:
        return -1
    x = uniform(state) * total
    if x < n_home:
        return club_slot_first[h] + min(int(x), n_home - 1)
    return club_slot_first[s2] + min(int((x - n_home) / second_weight), n_second - 1)


@kernel
def _plan_week(key, week, active, activity, strength, home, second, online, partner, partner2, joint1, joint2,
               bonus, bonus2, ptype, club_isolated, club_slot_first, club_slot_stop, guest_first, guest_stop,
               slot_club, slot_team, slot_min_pairs, slot_max_pairs, slot_is_online,
               ev_slot_first, ev_slot_stop, ev_slot_inst_count, ev_entry_logit, ev_entry_strength,
               online_first, online_stop, mixing, second_weight, travel_rate, cap, guest_partner,
               out_slot, out_a, out_b, out_ptype, out_bonus, out_team):
    """Entries of every session slot of one week; returns the number of entries written.

    Records are written in slot order; entries of a cancelled slot are dropped.
    Returns -1 if the output buffers are too small (the caller grows them).
    """
    P = active.shape[0]
    n_slots = slot_club.shape[0]
    n_clubs = club_isolated.shape[0]
    st = np.empty(1, np.uint64)
    n_play = np.zeros(P, np.int64)
    cap_rec = out_slot.shape[0]
    rec_slot = np.empty(cap_rec, np.int64)
    rec_a = np.empty(cap_rec, np.int32)
    rec_b = np.empty(cap_rec, np.int32)
    rec_type = np.empty(cap_rec, np.int8)
    rec_bonus = np.empty(cap_rec)
    nrec = 0
    # 1. solo sessions this week and event entries
    for p in range(P):
        if not active[p] or activity[p] <= 0:
            continue
        seed_stream(st, key, week * 4 + 0, p)
        n = min(_poisson(st, max(0.0, activity[p] - joint1[p] - joint2[p])), cap)
        if mixing and not online[p] and not club_isolated[home[p]]:
            for q in range(ev_slot_first.shape[0]):
                if ev_slot_stop[q] <= ev_slot_first[q]:
                    continue
                z = ev_entry_logit[q] + ev_entry_strength[q] * (strength[p] - 50.0)
                if uniform(st) < 1.0 / (1.0 + np.exp(-z)):
                    slot = ev_slot_first[q] + home[p] % ev_slot_inst_count[q]
                    if nrec >= cap_rec:
                        return -1
                    rec_slot[nrec], rec_a[nrec], rec_b[nrec] = slot, p, -1
                    rec_type[nrec], rec_bonus[nrec] = 0, 0.0
                    nrec += 1
                    if n > 0:
                        n -= 1  # an event takes the place of a club session
        n_play[p] = n
    # 2. partnerships: one draw of joint sessions each, at the lower-id partner's clubs
    for p in range(P):
        if not active[p]:
            continue
        for link in range(2):
            q = partner[p] if link == 0 else partner2[p]
            if q < 0 or q < p or not active[q]:
                continue
            seed_stream(st, key, week * 4 + 1, p * 2 + link)
            j = min(_poisson(st, joint1[p] if link == 0 else joint2[p]), cap)
            for _ in range(j):
                slot = _choose_slot(st, p, home, second, online, mixing, club_isolated, club_slot_first,
                                    club_slot_stop, second_weight, travel_rate, online_first, online_stop,
                                    n_clubs)
                if slot < 0:
                    continue
                if nrec >= cap_rec:
                    return -1
                rec_slot[nrec], rec_a[nrec], rec_b[nrec] = slot, p, q
                rec_type[nrec] = ptype[p] if link == 0 else 2
                rec_bonus[nrec] = bonus[p] if link == 0 else bonus2[p]
                nrec += 1
    # 3. pick-up sessions
    for p in range(P):
        if n_play[p] <= 0:
            continue
        seed_stream(st, key, week * 4 + 2, p)
        for _ in range(n_play[p]):
            slot = _choose_slot(st, p, home, second, online, mixing, club_isolated, club_slot_first,
                                club_slot_stop, second_weight, travel_rate, online_first, online_stop, n_clubs)
            if slot < 0:
                continue
            if nrec >= cap_rec:
                return -1
            rec_slot[nrec], rec_a[nrec], rec_b[nrec] = slot, p, -1
            rec_type[nrec], rec_bonus[nrec] = 0, 0.0
            nrec += 1
    # 4. each slot: pair the singles, add guests, cancel or trim, form teams
    counts = np.zeros(n_slots + 1, np.int64)
    for r in range(nrec):
        counts[rec_slot[r] + 1] += 1
    for s in range(n_slots):
        counts[s + 1] += counts[s]
    by_slot = np.empty(nrec, np.int64)
    fill = counts[:n_slots].copy()
    for r in range(nrec):
        by_slot[fill[rec_slot[r]]] = r
        fill[rec_slot[r]] += 1
    out_n = 0
    seen = np.full(P, -1, np.int64)  # slot in which a player already sits (dedupe)
    for s in range(n_slots):
        r0, r1 = counts[s], counts[s + 1]
        if r1 == r0:
            continue
        seed_stream(st, key, week * 4 + 3, s)
        first_out = out_n
        singles = np.empty(r1 - r0, np.int32)
        n_single = 0
        for k in range(r0, r1):
            r = by_slot[k]
            a, b = rec_a[r], rec_b[r]
            if seen[a] == s or (b >= 0 and seen[b] == s):
                continue  # a player drawn twice into one session plays it once
            if b >= 0:
                if out_n >= out_slot.shape[0]:
                    return -1
                seen[a] = s
                seen[b] = s
                out_slot[out_n], out_a[out_n], out_b[out_n] = s, min(a, b), max(a, b)
                out_ptype[out_n], out_bonus[out_n] = rec_type[r], rec_bonus[r]
                out_n += 1
            else:
                seen[a] = s
                singles[n_single] = a
                n_single += 1
        for i in range(n_single - 1, 0, -1):  # shuffle the pick-up players
            j = below(st, i + 1)
            singles[i], singles[j] = singles[j], singles[i]
        if slot_is_online[s]:
            for i in range(n_single):
                if out_n >= out_slot.shape[0]:
                    return -1
                out_slot[out_n], out_a[out_n], out_b[out_n] = s, singles[i], -1
                out_ptype[out_n], out_bonus[out_n] = 4, 0.0
                out_n += 1
        else:
            i = 0
            while i + 1 < n_single:
                if out_n >= out_slot.shape[0]:
                    return -1
                a, b = singles[i], singles[i + 1]
                out_slot[out_n], out_a[out_n], out_b[out_n] = s, min(a, b), max(a, b)
                out_ptype[out_n], out_bonus[out_n] = 0, 0.0
                out_n += 1
                i += 2
            c = slot_club[s]
            if i < n_single and guest_partner and c >= 0 and guest_stop[c] > guest_first[c]:
                if out_n >= out_slot.shape[0]:
                    return -1
                g = guest_first[c] + below(st, guest_stop[c] - guest_first[c])
                a = singles[i]
                out_slot[out_n], out_a[out_n], out_b[out_n] = s, min(a, g), max(a, g)
                out_ptype[out_n], out_bonus[out_n] = 3, 0.0
                out_n += 1
        n_pairs = out_n - first_out
        if n_pairs < slot_min_pairs[s]:
            out_n = first_out  # too few to play: cancelled
            continue
        # a random order of the entries: which pairs are turned away, and teams
        for i in range(n_pairs - 1, 0, -1):
            j = below(st, i + 1)
            x, y = first_out + i, first_out + j
            out_a[x], out_a[y] = out_a[y], out_a[x]
            out_b[x], out_b[y] = out_b[y], out_b[x]
            out_ptype[x], out_ptype[y] = out_ptype[y], out_ptype[x]
            out_bonus[x], out_bonus[y] = out_bonus[y], out_bonus[x]
        keep = min(n_pairs, slot_max_pairs[s])
        if slot_team[s]:
            keep -= keep % 2
        for i in range(keep):
            out_team[first_out + i] = i // 2 if slot_team[s] else -1
        out_n = first_out + keep
    return out_n


def _week_slots(world: World, week: int):
    """The session slots of a week: club sessions, event instances, online tourneys."""
    w = world
    start = w.start_day + 7 * week
    start_wd = (int(np.datetime64(w.start_day, "D").astype("datetime64[D]").view("int64")) + 3) % 7  # 0 = Monday
    offset = lambda wd: (wd - start_wd) % 7  # noqa: E731
    mixing = start >= w.isolation_end
    # club sessions, club by club, in the order the clubs list them (one vectorised pass: national
    # scale has ~400 clubs, and this runs every simulated week)
    C = w.n_clubs
    ks = np.argsort(w.ks_club, kind="stable")
    ks = ks[(w.ks_club[ks] >= 0) & (w.ks_club[ks] < C)]
    per_club = np.bincount(w.ks_club[ks], minlength=C)[:C]
    club_slot_stop = np.cumsum(per_club).astype(np.int32)
    club_slot_first = (club_slot_stop - per_club).astype(np.int32)
    slot_day = list(start + offset(w.ks_weekday[ks]))
    slot_venue = list(w.ks_club[ks])
    slot_kind, slot_scoring, slot_boards = list(w.ks_kind[ks]), list(w.ks_scoring[ks]), list(w.ks_boards[ks])
    slot_event, slot_winners = list(w.ks_event[ks]), list(w.ks_winners[ks])
    slot_club, slot_max, slot_bpr = list(w.ks_club[ks]), list(w.ks_max_pairs[ks]), [0] * len(ks)
    Q = len(w.ev_names)
    ev_first = np.zeros(Q, np.int32)
    ev_stop = np.zeros(Q, np.int32)
    venue = C
    for q in range(Q):
        day = start + offset(w.ev_weekday[q])
        d = np.datetime64(int(day), "D")
        month = int(d.astype("datetime64[M]").astype(int)) % 12
        week_of_month = (int((d - d.astype("datetime64[M]")).astype(int)) // 7) + 1
        every = w.ev_every[q]
        runs = mixing and (every == 0 or (week_of_month == w.ev_week[q] and
                                          (every == 1 or (every == 2 and month % 3 == 0) or
                                           (every == 3 and month == 0))))
        ev_first[q] = len(slot_day)
        if runs:
            for i in range(w.ev_count[q]):
                slot_day.append(day)
                slot_venue.append(venue + i)
                slot_kind.append(w.ev_kind[q])
                slot_scoring.append(w.ev_scoring[q])
                slot_boards.append(w.ev_boards[q])
                slot_event.append(w.ev_event[q])
                slot_winners.append(w.ev_winners[q])
                slot_club.append(-1)
                slot_max.append(w.ev_max_pairs[q])
                slot_bpr.append(0)
        ev_stop[q] = len(slot_day)
        venue += w.ev_count[q]
    on = w.scenario.online
    online_first = len(slot_day)
    if on.members:
        for d in range(7):
            for _ in range(on.tourneys_per_day):
                slot_day.append(start + d)
                slot_venue.append(venue)
                slot_kind.append(KIND_ONLINE)
                slot_scoring.append(0)
                slot_boards.append(on.boards)
                slot_event.append(0)
                slot_winners.append(1)
                slot_club.append(-1)
                slot_max.append(4 * on.max_tables)
                slot_bpr.append(on.boards_per_round)
    online_stop = len(slot_day)
    kinds = np.array(slot_kind, np.int8)
    is_team = np.isin(kinds, list(TEAM_KINDS))
    is_online = kinds == KIND_ONLINE
    min_pairs = np.where(is_team, MIN_TEAM_PAIRS, np.where(is_online, 8, MIN_PAIRS)).astype(np.int64)
    return dict(day=np.array(slot_day, np.int32), venue=np.array(slot_venue, np.int32), kind=kinds,
                scoring=np.array(slot_scoring, np.int8), boards=np.array(slot_boards, np.int32),
                event=np.array(slot_event, np.int8), winners=np.array(slot_winners, np.int8),
                club=np.array(slot_club, np.int32), max_pairs=np.array(slot_max, np.int64),
                bpr=np.array(slot_bpr, np.int32), is_team=is_team, is_online=is_online, min_pairs=min_pairs,
                club_slot_first=club_slot_first, club_slot_stop=club_slot_stop, ev_first=ev_first,
                ev_stop=ev_stop, online_first=online_first, online_stop=online_stop, mixing=mixing)


def plan_sessions(world: World, first_week: int, last_week: int) -> SessionPlan:
    """Plan weeks [first_week, last_week) into a SessionPlan (sessions by day, venue, slot)."""
    w = world
    sc = w.scenario
    if not 0 <= first_week <= last_week:
        raise ValueError(f"weeks [{first_week}, {last_week}) are not a valid range")
    parts = []
    ev_logit = np.log(np.maximum(w.ev_entry_rate, 1e-12) / np.maximum(1 - w.ev_entry_rate, 1e-12))
    for week in range(first_week, last_week):
        day0 = w.start_day + 7 * week
        slots = _week_slots(w, week)
        active = active_on(w, day0)
        strength = strength_on(w, day0)
        cap = max(64, int(w.activity[active].sum() * 2.5) + 64)
        while True:
            bufs = (np.empty(cap, np.int64), np.empty(cap, np.int32), np.empty(cap, np.int32),
                    np.empty(cap, np.int8), np.empty(cap), np.empty(cap, np.int32))
            n = _plan_week(w.key, week, active, w.activity, strength, w.home_club, w.second_club, w.online,
                           w.partner, w.partner2, w.joint1, w.joint2, w.bonus, w.bonus2, w.ptype,
                           w.club_isolated, slots["club_slot_first"], slots["club_slot_stop"],
                           w.guest_first, w.guest_stop, slots["club"], slots["is_team"], slots["min_pairs"],
                           slots["max_pairs"], slots["is_online"], slots["ev_first"], slots["ev_stop"],
                           np.maximum(w.ev_count, 1).astype(np.int64), ev_logit, w.ev_entry_strength,
                           slots["online_first"], slots["online_stop"], slots["mixing"],
                           sc.mixing.second_club_weight, sc.mixing.travel_rate, int(sc.players.activity_cap),
                           sc.partnerships.odd_player == "guest", *bufs)
            if n >= 0:
                break
            cap *= 2
        slot_of, a, b, ptype, bonus, team = (x[:n] for x in bufs)
        parts.append((slots, slot_of, a, b, ptype, bonus, team))
    return _assemble(parts)


def _assemble(parts) -> SessionPlan:
    cols = {k: [] for k in ("day", "venue", "event", "kind", "scoring", "winners", "boards", "bpr")}
    ents = {k: [] for k in ("a", "b", "ptype", "bonus", "team", "sess")}
    n_sessions = 0
    for slots, slot_of, a, b, ptype, bonus, team in parts:
        used = np.unique(slot_of)
        order = used[np.lexsort((used, slots["venue"][used], slots["day"][used]))]
        new_id = np.full(len(slots["day"]), -1, np.int64)
        new_id[order] = n_sessions + np.arange(len(order))
        for k, src in (("day", "day"), ("venue", "venue"), ("event", "event"), ("kind", "kind"),
                       ("scoring", "scoring"), ("winners", "winners"), ("boards", "boards"), ("bpr", "bpr")):
            cols[k].append(slots[src][order])
        sess = new_id[slot_of]
        srt = np.argsort(sess, kind="stable")
        for k, v in (("a", a), ("b", b), ("ptype", ptype), ("bonus", bonus), ("team", team), ("sess", sess)):
            ents[k].append(v[srt])
        n_sessions += len(order)
    cat = lambda xs, dt: np.concatenate(xs).astype(dt) if xs else np.zeros(0, dt)  # noqa: E731
    sess = cat(ents["sess"], np.int64)
    entry_start = np.zeros(n_sessions + 1, np.int64)
    np.cumsum(np.bincount(sess, minlength=n_sessions), out=entry_start[1:])
    return SessionPlan(day=cat(cols["day"], np.int32), venue=cat(cols["venue"], np.int32),
                       event=cat(cols["event"], np.int8), kind=cat(cols["kind"], np.int8),
                       scoring=cat(cols["scoring"], np.int8), winners=cat(cols["winners"], np.int8),
                       boards=cat(cols["boards"], np.int32), boards_per_round=cat(cols["bpr"], np.int32),
                       entry_start=entry_start, a=cat(ents["a"], np.int32), b=cat(ents["b"], np.int32),
                       ptype=cat(ents["ptype"], np.int8), bonus=cat(ents["bonus"], np.float64),
                       team=cat(ents["team"], np.int32))
