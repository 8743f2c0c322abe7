"""Weekly attendance: who plays in which session with whom (``plan_sessions``).

Per week, from streams keyed by (week, player) and (week, slot) so a week's
plan depends only on the replicate key and the week:

1. every active member draws a number of solo sessions, capped, and enters
   each event running that week with a probability rising with strength
   (an event takes the place of a club session);
2. each regular partnership plays Poisson(joint) sessions together at the
   lower-id partner's clubs (one draw per partnership);
3. the remaining sessions are pick-up, at the home club, the second club
   or, with probability ``travel_rate``, a random other open club;
4. at each slot the pick-up players are paired — at random, or with
   partners' strengths correlated by ``pickup_correlation`` — the odd one out
   with a guest from the club's pool (or sits out); a slot with too few
   pairs is cancelled, an oversized field trimmed, team slots grouped into
   teams of two pairs.

The kernels take their arrays in four named bundles (``WeekPlayers``,
``WeekVenues``, ``Rules``, ``Entries``); none reads a field by position.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simcore._jit import kernel
from simcore.rng import below, child_key, normal, seed_stream, uniform
from simcore.world.clubs import week_slots
from simcore.world.model import GUEST_PAIR, NEAR_EXCLUSIVE, ONLINE_SINGLE, PICKUP, SessionPlan, World
from simcore.world.population import active_on, strength_on


_LATE_STREAM = 0x1A7E  # child-key label of the late-scoring draws
_CORRECTED_STREAM = 0xC0EE  # child-key label of the corrected-session draws


class WeekPlayers(NamedTuple):
    """Per player (P) on the week's first day."""
    active: np.ndarray      # bool: member or online, joined and not away
    activity: np.ndarray    # sessions a week
    strength: np.ndarray    # true strength (grade points)
    home: np.ndarray        # home club (−1 online)
    second: np.ndarray      # second club (−1)
    online: np.ndarray      # bool: plays in the online room
    partner: np.ndarray     # regular partner (−1)
    partner2: np.ndarray    # second regular partner (triangles; −1)
    joint1: np.ndarray      # sessions a week with partner
    joint2: np.ndarray      # sessions a week with partner2
    bonus: np.ndarray       # partnership bonus with partner (grade points)
    bonus2: np.ndarray      # partnership bonus with partner2
    ptype: np.ndarray       # PARTNERSHIP_TYPES code of the main partnership


class WeekVenues(NamedTuple):
    """Clubs (C), the week's session slots (S) and events (Q)."""
    club_isolated: np.ndarray
    club_slot_first: np.ndarray    # club c's slots are [first, stop)
    club_slot_stop: np.ndarray
    guest_first: np.ndarray        # club c's guest pool is [first, stop)
    guest_stop: np.ndarray
    slot_club: np.ndarray          # −1 for event and online slots
    slot_team: np.ndarray          # bool: team movement
    slot_min_pairs: np.ndarray     # fewer pairs: cancelled
    slot_max_pairs: np.ndarray     # more pairs: trimmed
    slot_is_online: np.ndarray
    ev_slot_first: np.ndarray      # event q's running instances are slots [first, stop)
    ev_slot_stop: np.ndarray
    ev_inst_count: np.ndarray      # parallel instances (a player enters home club % count)
    ev_entry_logit: np.ndarray     # log-odds of entering for a 50-strength player
    ev_entry_strength: np.ndarray  # log-odds per grade point
    online_first: int              # the online room's slots are [first, stop)
    online_stop: int


class Rules(NamedTuple):
    mixing: bool           # players may play outside their home club this week
    second_weight: float   # weight of a second club's sessions against the home club's
    travel_rate: float     # chance a session is at a random other club
    cap: int               # most sessions of one kind a player plays in a week
    guest_partner: bool    # the odd pick-up player plays with a guest (else sits out)
    pickup_corr: float     # correlation of pick-up partners' true strengths (0 = random pairs)


class Entries(NamedTuple):
    """Entry rows (slot, a, b, ptype, bonus, team): the kernel's records and its output."""
    slot: np.ndarray
    a: np.ndarray
    b: np.ndarray
    ptype: np.ndarray
    bonus: np.ndarray
    team: np.ndarray


def _entries(cap: int) -> Entries:
    return Entries(np.empty(cap, np.int64), np.empty(cap, np.int32), np.empty(cap, np.int32),
                   np.empty(cap, np.int8), np.empty(cap), np.empty(cap, np.int32))


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


@kernel(refcount=False)  # called per session drawn: no incref/decref of ~30 arrays a call
def _choose_slot(state, p, pl, ven, rules):
    """A session slot for one of player p's sessions this week (−1 if none)."""
    if pl.online[p]:
        if ven.online_stop <= ven.online_first:
            return -1
        return ven.online_first + below(state, ven.online_stop - ven.online_first)
    first, stop = ven.club_slot_first, ven.club_slot_stop
    n_clubs = ven.club_isolated.shape[0]
    h = pl.home[p]
    if rules.mixing and not ven.club_isolated[h] and n_clubs > 1 and uniform(state) < rules.travel_rate:
        c = below(state, n_clubs - 1)
        if c >= h:
            c += 1
        if not ven.club_isolated[c] and stop[c] > first[c]:
            return first[c] + below(state, stop[c] - first[c])
    n_home = stop[h] - first[h]
    s2 = pl.second[p]
    n_second = 0
    if rules.mixing and s2 >= 0:
        n_second = stop[s2] - first[s2]
    total = n_home + rules.second_weight * n_second
    if total <= 0:
        return -1
    x = uniform(state) * total
    if x < n_home:
        return first[h] + min(int(x), n_home - 1)
    return first[s2] + min(int((x - n_home) / rules.second_weight), n_second - 1)


@kernel(refcount=False)  # called per record: see _choose_slot
def _put(rec, n, slot, a, b, ptype, bonus):
    """Append one record; returns the new count, or −1 if the buffer is full."""
    if n >= rec.slot.shape[0]:
        return -1
    rec.slot[n], rec.a[n], rec.b[n], rec.ptype[n], rec.bonus[n] = slot, a, b, ptype, bonus
    return n + 1


@kernel
def _solo_and_events(key, week, pl, ven, rules, rec, n_play):
    """Step 1: each player's solo sessions (into n_play) and event entries; returns records written."""
    st = np.empty(1, np.uint64)
    nrec = 0
    for p in range(pl.active.shape[0]):
        if not pl.active[p] or pl.activity[p] <= 0:
            continue
        seed_stream(st, key, week * 4 + 0, p)
        n = min(_poisson(st, max(0.0, pl.activity[p] - pl.joint1[p] - pl.joint2[p])), rules.cap)
        if rules.mixing and not pl.online[p] and not ven.club_isolated[pl.home[p]]:
            for q in range(ven.ev_slot_first.shape[0]):
                if ven.ev_slot_stop[q] <= ven.ev_slot_first[q]:
                    continue
                z = ven.ev_entry_logit[q] + ven.ev_entry_strength[q] * (pl.strength[p] - 50.0)
                if uniform(st) < 1.0 / (1.0 + np.exp(-z)):
                    slot = ven.ev_slot_first[q] + pl.home[p] % ven.ev_inst_count[q]
                    nrec = _put(rec, nrec, slot, p, -1, PICKUP, 0.0)
                    if nrec < 0:
                        return -1
                    if n > 0:
                        n -= 1  # an event takes the place of a club session
        n_play[p] = n
    return nrec


@kernel
def _partnership_sessions(key, week, pl, ven, rules, rec, nrec):
    """Step 2: one draw of joint sessions per partnership, at the lower-id partner's clubs."""
    st = np.empty(1, np.uint64)
    for p in range(pl.active.shape[0]):
        if not pl.active[p]:
            continue
        for link in range(2):
            q = pl.partner[p] if link == 0 else pl.partner2[p]
            if q < 0 or q < p or not pl.active[q]:
                continue
            seed_stream(st, key, week * 4 + 1, p * 2 + link)
            j = min(_poisson(st, pl.joint1[p] if link == 0 else pl.joint2[p]), rules.cap)
            for _ in range(j):
                slot = _choose_slot(st, p, pl, ven, rules)
                if slot < 0:
                    continue
                nrec = _put(rec, nrec, slot, p, q, pl.ptype[p] if link == 0 else NEAR_EXCLUSIVE,
                            pl.bonus[p] if link == 0 else pl.bonus2[p])
                if nrec < 0:
                    return -1
    return nrec


@kernel
def _pickup_sessions(key, week, pl, ven, rules, rec, nrec, n_play):
    """Step 3: each player's remaining sessions, alone, at a slot of their clubs."""
    st = np.empty(1, np.uint64)
    for p in range(pl.active.shape[0]):
        if n_play[p] <= 0:
            continue
        seed_stream(st, key, week * 4 + 2, p)
        for _ in range(n_play[p]):
            slot = _choose_slot(st, p, pl, ven, rules)
            if slot < 0:
                continue
            nrec = _put(rec, nrec, slot, p, -1, PICKUP, 0.0)
            if nrec < 0:
                return -1
    return nrec


@kernel
def _by_slot(rec, nrec, n_slots):
    """Records grouped by slot (stable): slot s owns order[counts[s]:counts[s + 1]]."""
    counts = np.zeros(n_slots + 1, np.int64)
    for r in range(nrec):
        counts[rec.slot[r] + 1] += 1
    for s in range(n_slots):
        counts[s + 1] += counts[s]
    order = np.empty(nrec, np.int64)
    fill = counts[:n_slots].copy()
    for r in range(nrec):
        order[fill[rec.slot[r]]] = r
        fill[rec.slot[r]] += 1
    return counts, order


@kernel
def _pair_by_strength(st, singles, n, strength, rho):
    """Reorder singles[:n] so that neighbours' true strengths correlate by about ``rho``.

    Sorting key sqrt(rho)·z + sqrt(1 − rho)·N(0, 1), z the strength
    standardised over these players (as ``partnerships.assortative_pairs``).
    """
    total = 0.0
    for i in range(n):
        total += strength[singles[i]]
    mean = total / n
    ss = 0.0
    for i in range(n):
        ss += (strength[singles[i]] - mean) ** 2
    sd = np.sqrt(ss / n)
    key = np.empty(n)
    for i in range(n):
        z = (strength[singles[i]] - mean) / sd if sd > 0 else 0.0
        key[i] = np.sqrt(rho) * z + np.sqrt(1.0 - rho) * normal(st)
    order = np.argsort(key)
    chosen = singles[:n].copy()
    for i in range(n):
        singles[i] = chosen[order[i]]


@kernel
def _seat_slot(st, s, rows, rec, ven, rules, strength, seen, out, out_n):
    """Step 4 for slot s: seat its records ``rows`` as entries from out_n; returns the new count (−1: full)."""
    first_out = out_n
    singles = np.empty(rows.shape[0], np.int32)
    n_single = 0
    for r in rows:
        a, b = rec.a[r], rec.b[r]
        if seen[a] == s or (b >= 0 and seen[b] == s):
            continue  # a player drawn twice into one session plays it once
        seen[a] = s
        if b >= 0:
            seen[b] = s
            out_n = _put(out, out_n, s, min(a, b), max(a, b), rec.ptype[r], rec.bonus[r])
            if out_n < 0:
                return -1
        else:
            singles[n_single] = a
            n_single += 1
    for i in range(n_single - 1, 0, -1):  # shuffle the pick-up players
        j = below(st, i + 1)
        singles[i], singles[j] = singles[j], singles[i]
    if ven.slot_is_online[s]:
        for i in range(n_single):
            out_n = _put(out, out_n, s, singles[i], -1, ONLINE_SINGLE, 0.0)
            if out_n < 0:
                return -1
    else:
        n_paired = n_single - n_single % 2  # the last (random) one is the odd one out
        if rules.pickup_corr > 0 and n_paired > 2:
            _pair_by_strength(st, singles, n_paired, strength, rules.pickup_corr)
        i = 0
        while i + 1 < n_single:
            a, b = singles[i], singles[i + 1]
            out_n = _put(out, out_n, s, min(a, b), max(a, b), PICKUP, 0.0)
            if out_n < 0:
                return -1
            i += 2
        c = ven.slot_club[s]
        if i < n_single and rules.guest_partner and c >= 0 and ven.guest_stop[c] > ven.guest_first[c]:
            g = ven.guest_first[c] + below(st, ven.guest_stop[c] - ven.guest_first[c])
            a = singles[i]
            out_n = _put(out, out_n, s, min(a, g), max(a, g), GUEST_PAIR, 0.0)
            if out_n < 0:
                return -1
    n_pairs = out_n - first_out
    if n_pairs < ven.slot_min_pairs[s]:
        return first_out  # too few to play: cancelled
    # a random order of the entries: which pairs are turned away, and teams
    for i in range(n_pairs - 1, 0, -1):
        j = below(st, i + 1)
        x, y = first_out + i, first_out + j
        out.a[x], out.a[y] = out.a[y], out.a[x]
        out.b[x], out.b[y] = out.b[y], out.b[x]
        out.ptype[x], out.ptype[y] = out.ptype[y], out.ptype[x]
        out.bonus[x], out.bonus[y] = out.bonus[y], out.bonus[x]
    keep = min(n_pairs, ven.slot_max_pairs[s])
    if ven.slot_team[s]:
        keep -= keep % 2
    for i in range(keep):
        out.team[first_out + i] = i // 2 if ven.slot_team[s] else -1
    return first_out + keep


@kernel
def _plan_week(key, week, pl, ven, rules, rec, out):
    """Entries of every session slot of one week into ``out``; returns the number written.

    ``rec`` is scratch for the week's records (as large as ``out``).  Entries
    are written in slot order; entries of a cancelled slot are dropped.
    Returns -1 if the buffers are too small (the caller grows them).
    """
    n_play = np.zeros(pl.active.shape[0], np.int64)
    nrec = _solo_and_events(key, week, pl, ven, rules, rec, n_play)
    if nrec >= 0:
        nrec = _partnership_sessions(key, week, pl, ven, rules, rec, nrec)
    if nrec >= 0:
        nrec = _pickup_sessions(key, week, pl, ven, rules, rec, nrec, n_play)
    if nrec < 0:
        return -1
    n_slots = ven.slot_club.shape[0]
    counts, order = _by_slot(rec, nrec, n_slots)
    st = np.empty(1, np.uint64)
    seen = np.full(pl.active.shape[0], -1, np.int64)  # slot in which a player already sits (dedupe)
    out_n = 0
    for s in range(n_slots):
        if counts[s + 1] == counts[s]:
            continue
        seed_stream(st, key, week * 4 + 3, s)
        out_n = _seat_slot(st, s, order[counts[s]:counts[s + 1]], rec, ven, rules, pl.strength, seen, out,
                           out_n)
        if out_n < 0:
            return -1
    return out_n


def _week_inputs(w: World, week: int, slots: dict, ev_logit: np.ndarray, strength=None):
    sc = w.scenario
    day0 = w.start_day + 7 * week
    active = active_on(w, day0)
    if strength is None:
        strength = strength_on(w, day0)
    pl = WeekPlayers(active=active, activity=w.activity, strength=strength, home=w.home_club,
                     second=w.second_club, online=w.online, partner=w.partner, partner2=w.partner2,
                     joint1=w.joint1, joint2=w.joint2, bonus=w.bonus, bonus2=w.bonus2, ptype=w.ptype)
    ven = WeekVenues(club_isolated=w.club_isolated, club_slot_first=slots["club_slot_first"],
                     club_slot_stop=slots["club_slot_stop"], guest_first=w.guest_first, guest_stop=w.guest_stop,
                     slot_club=slots["club"], slot_team=slots["is_team"], slot_min_pairs=slots["min_pairs"],
                     slot_max_pairs=slots["max_pairs"], slot_is_online=slots["is_online"],
                     ev_slot_first=slots["ev_first"], ev_slot_stop=slots["ev_stop"],
                     ev_inst_count=np.maximum(w.ev_count, 1).astype(np.int64), ev_entry_logit=ev_logit,
                     ev_entry_strength=w.ev_entry_strength, online_first=int(slots["online_first"]),
                     online_stop=int(slots["online_stop"]))
    rules = Rules(mixing=bool(slots["mixing"]), second_weight=float(sc.mixing.second_club_weight),
                  travel_rate=float(sc.mixing.travel_rate), cap=int(sc.players.activity_cap),
                  guest_partner=sc.partnerships.odd_player == "guest",
                  pickup_corr=float(sc.partnerships.pickup_correlation))
    return pl, ven, rules


def plan_sessions(world: World, first_week: int, last_week: int, *, strength=None) -> SessionPlan:
    """Plan weeks [first_week, last_week) into a SessionPlan (sessions by day, venue, slot).

    strength: optional float64 (W, P), ``strength_on`` at each week's first
    day, when the caller has it already (else computed here).
    """
    w = world
    if not 0 <= first_week <= last_week:
        raise ValueError(f"weeks [{first_week}, {last_week}) are not a valid range")
    if strength is not None and np.shape(strength) != (last_week - first_week, w.n_players):
        raise ValueError(f"strength: give ({last_week - first_week}, {w.n_players}) true strengths, "
                         f"got shape {np.shape(strength)}")
    parts = []
    ev_logit = np.log(np.maximum(w.ev_entry_rate, 1e-12) / np.maximum(1 - w.ev_entry_rate, 1e-12))
    for week in range(first_week, last_week):
        slots = week_slots(w, week)
        pl, ven, rules = _week_inputs(w, week, slots, ev_logit,
                                      None if strength is None else strength[week - first_week])
        cap = max(64, int(w.activity[pl.active].sum() * 2.5) + 64)
        while True:
            rec, out = _entries(cap), _entries(cap)
            n = _plan_week(w.key, week, pl, ven, rules, rec, out)
            if n >= 0:
                break
            cap *= 2
        parts.append((slots, *(x[:n] for x in out)))
    plan = _assemble(parts)
    plan.scored_on = _scored_on(w, plan)
    plan.corrected_on = _corrected_on(w, plan)
    return plan


def _corrected_on(w: World, plan: SessionPlan) -> np.ndarray:
    """Day a ``reporting.corrected_share`` of sessions are republished corrected (-1: never).

    The correction follows the first publication (``scored_on``) by
    ``corrected_days``.  One keyed stream per week, as ``_scored_on``.
    """
    rp = w.scenario.reporting
    out = np.full(plan.n_sessions, -1, np.int32)
    if rp.corrected_share <= 0 or not plan.n_sessions:
        return out
    week = (plan.day - w.start_day) // 7
    for wk in np.unique(week):
        idx = np.flatnonzero(week == wk)
        g = np.random.default_rng(int(child_key(w.key, _CORRECTED_STREAM, int(wk))))
        hit = g.random(len(idx)) < rp.corrected_share
        out[idx[hit]] = plan.scored_on[idx[hit]] + rp.corrected_days
    return out


def _scored_on(w: World, plan: SessionPlan) -> np.ndarray:
    """Day each session's results reach the schemes: a ``reporting.late_share`` of them late.

    One keyed stream per week (child_key(key, LATE, week)), so planning weeks
    in chunks draws the same delays.
    """
    rp = w.scenario.reporting
    scored = plan.day.astype(np.int32).copy()
    if rp.late_share <= 0 or not plan.n_sessions:
        return scored
    week = (plan.day - w.start_day) // 7
    for wk in np.unique(week):
        idx = np.flatnonzero(week == wk)
        g = np.random.default_rng(int(child_key(w.key, _LATE_STREAM, int(wk))))
        late = g.random(len(idx)) < rp.late_share
        delay = g.integers(1, 2 * rp.late_days, len(idx))
        scored[idx] += np.where(late, delay, 0).astype(np.int32)
    return scored


def _assemble(parts) -> SessionPlan:
    """The weeks' entries as one SessionPlan: each week's used slots become sessions in (day, venue, slot) order.

    All weeks at once: week w's days all precede week w+1's, so one sort of
    the chunk's slots numbers the sessions as week-by-week sorts would.
    """
    cat = lambda xs, dt: np.concatenate(xs).astype(dt) if xs else np.zeros(0, dt)  # noqa: E731
    base, slot_of = 0, []
    for slots, of, *_ in parts:
        slot_of.append(of.astype(np.int64) + base)
        base += len(slots["day"])
    slot_of = cat(slot_of, np.int64)
    col = {k: cat([p[0][k] for p in parts], np.int64) for k in ("day", "venue", "event", "kind", "scoring", "winners",
                                                                "boards", "bpr")}
    used = np.unique(slot_of)
    order = used[np.lexsort((used, col["venue"][used], col["day"][used]))]
    n_sessions = len(order)
    new_id = np.full(base, -1, np.int64)
    new_id[order] = np.arange(n_sessions)
    sess = new_id[slot_of]
    srt = np.argsort(sess, kind="stable")
    ent = lambda i, dt: cat([p[i] for p in parts], dt)[srt]  # noqa: E731
    entry_start = np.zeros(n_sessions + 1, np.int64)
    np.cumsum(np.bincount(sess, minlength=n_sessions), out=entry_start[1:])
    day = col["day"][order].astype(np.int32)
    return SessionPlan(day=day, venue=col["venue"][order].astype(np.int32), event=col["event"][order].astype(np.int8),
                       kind=col["kind"][order].astype(np.int8), scoring=col["scoring"][order].astype(np.int8),
                       winners=col["winners"][order].astype(np.int8), boards=col["boards"][order].astype(np.int32),
                       boards_per_round=col["bpr"][order].astype(np.int32), entry_start=entry_start,
                       a=ent(2, np.int32), b=ent(3, np.int32), ptype=ent(4, np.int8), bonus=ent(5, np.float64),
                       team=ent(6, np.int32), scored_on=day.copy(), corrected_on=np.full(n_sessions, -1, np.int32))
