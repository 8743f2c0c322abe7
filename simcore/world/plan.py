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

One kernel call (``_plan_weeks``) plans a whole chunk of weeks, the week
loop inside numba with the GIL released; the Python layer lays out the
chunk's slots (``clubs.chunk_slots``), allocates and labels once per chunk.
Sessions are seated in their final (day, venue, slot) order, so the entries
come out in session order with no sort.  The kernels take their arrays in
named bundles (``Players``, ``Venues``, ``Weeks``/``Week``, ``Rules``,
``Records``, ``Entries``); none reads a field by position.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simcore._jit import kernel
from simcore.rng import below, child_key, normal, seed_stream, uniform
from simcore.world.clubs import chunk_slots
from simcore.world.model import GUEST_PAIR, NEAR_EXCLUSIVE, ONLINE_SINGLE, PICKUP, SessionPlan, World
from simcore.world.population import strength_on


# Helpers called only from other kernels (never from Python): numba compiles no Python entry wrapper for them,
# which unboxes every array of every bundle and was a third of planning's cold compile (7.7 → 5.3 s CPU).
# No reference counting either (see _jit.kernel): they allocate nothing and their arrays are the caller's.
_helper = kernel(refcount=False, helper=True)

_LATE_STREAM = 0x1A7E  # child-key label of the late-scoring draws
_CORRECTED_STREAM = 0xC0EE  # child-key label of the corrected-session draws


class Players(NamedTuple):
    """Per player (P); ``active`` and ``strength`` per week of the chunk (W, P), on the week's first day."""
    active: np.ndarray      # bool (W, P): member or online, joined and not away
    strength: np.ndarray    # (W, P) true strength (grade points)
    activity: np.ndarray    # sessions a week
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


class Venues(NamedTuple):
    """Clubs (C), events (Q) and the chunk's session slots (S, weeks one after another; ``clubs.chunk_slots``)."""
    club_isolated: np.ndarray
    guest_first: np.ndarray        # club c's guest pool is [first, stop)
    guest_stop: np.ndarray
    ev_inst_count: np.ndarray      # parallel instances (a player enters home club % count)
    ev_entry_logit: np.ndarray     # log-odds of entering for a 50-strength player
    ev_entry_strength: np.ndarray  # log-odds per grade point
    slot_club: np.ndarray          # −1 for event and online slots
    slot_team: np.ndarray          # bool: team movement
    slot_min_pairs: np.ndarray     # fewer pairs: cancelled
    slot_max_pairs: np.ndarray     # more pairs: trimmed
    slot_is_online: np.ndarray
    session_order: np.ndarray      # the chunk's slots sorted by (day, venue, slot): the order sessions are numbered


class Week(NamedTuple):
    """One week's slots, in week-local numbers (chunk slot = first + local slot); built per week by the kernel."""
    first: int                     # the week's first chunk slot
    n_slots: int
    club_slot_first: np.ndarray    # club c's slots are [first, stop) (C, the same every week)
    club_slot_stop: np.ndarray
    ev_slot_first: np.ndarray      # event q's running instances are slots [first, stop) (Q)
    ev_slot_stop: np.ndarray
    online_first: int              # the online room's slots are [first, stop)
    online_stop: int
    mixing: bool                   # players may play outside their home club this week
    number: int                    # week of the run (keys the week's streams)


class Weeks(NamedTuple):
    """Per week of the chunk (W): its number in the run and its slots (``clubs.chunk_slots``)."""
    number: np.ndarray             # int64 week of the run (keys the week's streams)
    week_first: np.ndarray         # (W + 1) week i's slots are chunk slots [week_first[i], week_first[i + 1])
    club_slot_first: np.ndarray    # (C) week-local
    club_slot_stop: np.ndarray
    ev_first: np.ndarray           # (W, Q) week-local
    ev_stop: np.ndarray
    online_first: np.ndarray       # (W) week-local
    online_stop: np.ndarray
    mixing: np.ndarray             # (W) bool


class Rules(NamedTuple):
    second_weight: float   # weight of a second club's sessions against the home club's
    travel_rate: float     # chance a session is at a random other club
    cap: int               # most sessions of one kind a player plays in a week
    guest_partner: bool    # the odd pick-up player plays with a guest (else sits out)
    pickup_corr: float     # correlation of pick-up partners' true strengths (0 = random pairs)


class Records(NamedTuple):
    """A week's attendance records (week-local slot, a, b, ptype, bonus): scratch of the kernel."""
    slot: np.ndarray
    a: np.ndarray
    b: np.ndarray
    ptype: np.ndarray
    bonus: np.ndarray


class Entries(NamedTuple):
    """The chunk's entries in session order (a, b, ptype, bonus, team): the kernel's output."""
    a: np.ndarray
    b: np.ndarray
    ptype: np.ndarray
    bonus: np.ndarray
    team: np.ndarray


def _records(cap: int) -> Records:
    return Records(np.empty(cap, np.int64), np.empty(cap, np.int32), np.empty(cap, np.int32), np.empty(cap, np.int8),
                   np.empty(cap))


def _out_entries(cap: int) -> Entries:
    return Entries(np.empty(cap, np.int32), np.empty(cap, np.int32), np.empty(cap, np.int8), np.empty(cap),
                   np.empty(cap, np.int32))


@_helper  # called per session drawn: no incref/decref of its arrays a call
def _poisson(state, limit):
    """Poisson draw whose mean is −log(limit): Knuth's product of uniforms (means here are a few sessions a week)."""
    k = 0
    prod = uniform(state)
    while prod > limit:
        k += 1
        prod *= uniform(state)
    return k


@_helper  # called per session drawn: no incref/decref of ~20 arrays a call
def _choose_slot(state, p, pl, ven, wk, rules):
    """A week-local session slot for one of player p's sessions this week (−1 if none)."""
    if pl.online[p]:
        if wk.online_stop <= wk.online_first:
            return -1
        return wk.online_first + below(state, wk.online_stop - wk.online_first)
    first, stop = wk.club_slot_first, wk.club_slot_stop
    n_clubs = ven.club_isolated.shape[0]
    h = pl.home[p]
    hu = np.uint64(h)  # unsigned indices: see _take_records
    if wk.mixing and not ven.club_isolated[hu] and n_clubs > 1 and uniform(state) < rules.travel_rate:
        c = below(state, n_clubs - 1)
        if c >= h:
            c += 1
        if not ven.club_isolated[c] and stop[c] > first[c]:
            return first[c] + below(state, stop[c] - first[c])
    n_home = stop[hu] - first[hu]
    s2 = pl.second[p]
    n_second = 0
    if wk.mixing and s2 >= 0:
        n_second = stop[np.uint64(s2)] - first[np.uint64(s2)]
    total = n_home + rules.second_weight * n_second
    if total <= 0:
        return -1
    x = uniform(state) * total
    if x < n_home:
        return first[hu] + min(int(x), n_home - 1)
    return first[np.uint64(s2)] + min(int((x - n_home) / rules.second_weight), n_second - 1)


@_helper  # called per record: see _choose_slot
def _put(rec, n, slot, a, b, ptype, bonus):
    """Append one record; returns the new count, or −1 if the buffer is full."""
    if n >= rec.slot.shape[0]:
        return -1
    rec.slot[n], rec.a[n], rec.b[n], rec.ptype[n], rec.bonus[n] = slot, a, b, ptype, bonus
    return n + 1


@_helper  # called per entry: see _choose_slot
def _put_entry(out, n, a, b, ptype, bonus):
    """Append one entry (the pair's lower id first); returns the new count, or −1 if the buffer is full."""
    if n >= out.a.shape[0]:
        return -1
    out.a[n], out.b[n], out.ptype[n], out.bonus[n] = min(a, b), max(a, b), ptype, bonus
    return n + 1


@_helper  # called once a week, allocates nothing
def _solo_and_events(st, key, i, pl, ven, wk, rules, limits, rec, n_play):
    """Step 1: each player's solo sessions (into n_play) and event entries; returns records written (−1: full)."""
    nrec = 0
    for p in range(pl.activity.shape[0]):
        n_play[p] = 0
        if not pl.active[i, p] or pl.activity[p] <= 0:
            continue
        seed_stream(st, key, wk.number * 4 + 0, p)
        if limits[0, p] < 0:
            limits[0, p] = np.exp(-max(0.0, pl.activity[p] - pl.joint1[p] - pl.joint2[p]))
        n = min(_poisson(st, limits[0, p]), rules.cap)
        if wk.mixing and not pl.online[p] and not ven.club_isolated[pl.home[p]]:
            for q in range(wk.ev_slot_first.shape[0]):
                if wk.ev_slot_stop[q] <= wk.ev_slot_first[q]:
                    continue
                z = ven.ev_entry_logit[q] + ven.ev_entry_strength[q] * (pl.strength[i, p] - 50.0)
                if uniform(st) < 1.0 / (1.0 + np.exp(-z)):
                    slot = wk.ev_slot_first[q] + pl.home[p] % ven.ev_inst_count[q]
                    nrec = _put(rec, nrec, slot, p, -1, PICKUP, 0.0)
                    if nrec < 0:
                        return -1
                    if n > 0:
                        n -= 1  # an event takes the place of a club session
        n_play[p] = n
    return nrec


@_helper  # called once a week, allocates nothing
def _partnership_sessions(st, key, i, pl, ven, wk, rules, limits, rec, nrec):
    """Step 2: one draw of joint sessions per partnership, at the lower-id partner's clubs."""
    for p in range(pl.activity.shape[0]):
        if not pl.active[i, p]:
            continue
        for link in range(2):
            q = pl.partner[p] if link == 0 else pl.partner2[p]
            if q < 0 or q < p or not pl.active[i, q]:
                continue
            seed_stream(st, key, wk.number * 4 + 1, p * 2 + link)
            if limits[1 + link, p] < 0:
                limits[1 + link, p] = np.exp(-(pl.joint1[p] if link == 0 else pl.joint2[p]))
            j = min(_poisson(st, limits[1 + link, p]), rules.cap)
            for _ in range(j):
                slot = _choose_slot(st, p, pl, ven, wk, rules)
                if slot < 0:
                    continue
                nrec = _put(rec, nrec, slot, p, q, pl.ptype[p] if link == 0 else NEAR_EXCLUSIVE,
                            pl.bonus[p] if link == 0 else pl.bonus2[p])
                if nrec < 0:
                    return -1
    return nrec


@_helper  # called once a week, allocates nothing
def _pickup_sessions(st, key, pl, ven, wk, rules, rec, nrec, n_play):
    """Step 3: each player's remaining sessions, alone, at a slot of their clubs."""
    for p in range(pl.activity.shape[0]):
        if n_play[p] <= 0:
            continue
        seed_stream(st, key, wk.number * 4 + 2, p)
        for _ in range(n_play[p]):
            slot = _choose_slot(st, p, pl, ven, wk, rules)
            if slot < 0:
                continue
            nrec = _put(rec, nrec, slot, p, -1, PICKUP, 0.0)
            if nrec < 0:
                return -1
    return nrec


@_helper  # called once a week, allocates nothing
def _by_slot(rec, nrec, n_slots, counts, fill, order):
    """Records grouped by week-local slot (stable): slot s owns order[counts[s]:counts[s + 1]]."""
    for s in range(n_slots + 1):
        counts[s] = 0
    for r in range(nrec):
        counts[np.uint64(rec.slot[r] + 1)] += 1  # unsigned indices: see _take_records
    for s in range(n_slots):
        counts[s + 1] += counts[s]
    for s in range(n_slots):
        fill[s] = counts[s]
    for r in range(nrec):
        sl = np.uint64(rec.slot[r])
        order[np.uint64(fill[sl])] = r
        fill[sl] += 1


@_helper  # called per session slot, allocates nothing
def _pair_by_strength(st, singles, n, strength, rho, key, placed):
    """Reorder singles[:n] so that neighbours' true strengths correlate by about ``rho``.

    Sorting key sqrt(rho)·z + sqrt(1 − rho)·N(0, 1), z the strength
    standardised over these players (as ``partnerships.assortative_pairs``).
    key, placed: scratch (at least n).  The order is the stable sort by key:
    each player goes to the place its key's rank gives (how many keys are
    smaller: a branch-free count the compiler vectorises over the slot's
    twenty-odd keys, where an insertion sort paid a mispredicted branch a
    player: 17 against 26 ns a pick-up player with the draws, national
    slots); if two players land on one place (a tie or a NaN among the keys,
    measure zero) the insertion sort does it, keeping the shuffled order of
    equals.
    """
    total = 0.0
    for i in range(n):
        total += strength[np.uint64(singles[i])]  # unsigned indices: see _take_records
    mean = total / n
    ss = 0.0
    for i in range(n):
        ss += (strength[np.uint64(singles[i])] - mean) ** 2
    sd = np.sqrt(ss / n)
    for i in range(n):
        z = (strength[np.uint64(singles[i])] - mean) / sd if sd > 0 else 0.0
        key[i] = np.sqrt(rho) * z + np.sqrt(1.0 - rho) * normal(st)
    for i in range(n):
        placed[i] = -1
    distinct = True  # no two keys share a place: a tie or a NaN does (a NaN counts no key below it)
    for i in range(n):
        k = key[i]
        below_k = 0
        for j in range(n):
            below_k += np.int64(key[j] < k)
        distinct &= placed[np.uint64(below_k)] < 0
        placed[np.uint64(below_k)] = singles[i]
    if distinct:
        for i in range(n):
            singles[i] = placed[i]
        return
    for i in range(1, n):
        k, p = key[i], singles[i]
        j = i - 1
        while j >= 0 and key[j] > k:
            key[j + 1], singles[j + 1] = key[j], singles[j]
            j -= 1
        key[j + 1], singles[j + 1] = k, p


@_helper  # called per session slot: no incref/decref of ~20 arrays a call
def _take_records(st, s, rows, lo, hi, rec, seen, singles, out, out_n):
    """Step 4a for chunk slot s: its records rows[lo:hi], each player once: pairs as entries from out_n, the
    pick-up players into singles, shuffled.  Returns (new count (−1: full), pick-up players).
    """
    n_single = 0
    # unsigned indices (records, players: valid by construction): numba wraps a negative signed index with a
    # compare, a select and the array's length, at each indexing by a loaded value
    for k in range(lo, hi):
        r = np.uint64(rows[k])
        a, b = rec.a[r], rec.b[r]
        if seen[np.uint64(a)] == s or (b >= 0 and seen[np.uint64(b)] == s):
            continue  # a player drawn twice into one session plays it once
        seen[np.uint64(a)] = s
        if b >= 0:
            seen[np.uint64(b)] = s
            out_n = _put_entry(out, out_n, a, b, rec.ptype[r], rec.bonus[r])
            if out_n < 0:
                return -1, 0
        else:
            singles[n_single] = a
            n_single += 1
    for i in range(n_single - 1, 0, -1):  # shuffle the pick-up players
        j = below(st, i + 1)
        singles[i], singles[j] = singles[j], singles[i]
    return out_n, n_single


@_helper  # called per session slot: see _take_records
def _field(st, s, first_out, singles, n_single, ven, rules, out, out_n):
    """Step 4b for chunk slot s: pair its (ordered) pick-up players, the odd one with a guest; cancel, trim and
    group into teams the slot's entries [first_out, out_n).  Returns the new count (−1: full).
    """
    if ven.slot_is_online[s]:
        for i in range(n_single):
            if out_n >= out.a.shape[0]:
                return -1
            out.a[out_n], out.b[out_n], out.ptype[out_n], out.bonus[out_n] = singles[i], -1, ONLINE_SINGLE, 0.0
            out_n += 1
    else:
        i = 0
        while i + 1 < n_single:
            out_n = _put_entry(out, out_n, singles[i], singles[i + 1], PICKUP, 0.0)
            if out_n < 0:
                return -1
            i += 2
        c = ven.slot_club[s]
        if i < n_single and rules.guest_partner and c >= 0 and ven.guest_stop[c] > ven.guest_first[c]:
            g = ven.guest_first[c] + below(st, ven.guest_stop[c] - ven.guest_first[c])
            out_n = _put_entry(out, out_n, singles[i], g, GUEST_PAIR, 0.0)
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
def _plan_weeks(key, pl, ven, weeks, rules, rec, out, slot_n):
    """Entries of every session slot of the chunk's weeks into ``out``, in session order; returns the number written.

    ``rec`` is scratch for one week's records.  Sessions are seated in
    ``ven.session_order``; slot_n (S) gets each slot's entries (0: not
    played, or cancelled).  Returns −1 if a buffer is too small (the caller
    grows both).
    """
    P = pl.activity.shape[0]
    R = rec.slot.shape[0]
    n_week_slots = 0
    for i in range(weeks.number.shape[0]):
        n_week_slots = max(n_week_slots, weeks.week_first[i + 1] - weeks.week_first[i])
    limits = np.full((3, P), -1.0)  # exp(−mean) of the Poisson draws, computed on first use (−1: not yet)
    n_play = np.zeros(P, np.int64)
    # chunk slot numbers never repeat: one reset a chunk; int32 (slots < 2**31): half the cache lines, read at
    # random players (a miss each at national scale)
    seen = np.full(P, -1, np.int32)
    counts = np.empty(n_week_slots + 1, np.int64)
    fill = np.empty(n_week_slots, np.int64)
    rec_order = np.empty(R, np.int64)
    singles = np.empty(R, np.int32)  # a slot's pick-up players
    key_scratch = np.empty(R)  # their sorting keys
    placed = np.empty(R, np.int32)  # and their places by key
    st = np.empty(1, np.uint64)
    slot_n[:] = 0
    out_n = 0
    for i in range(weeks.number.shape[0]):
        base = weeks.week_first[i]
        n_slots = weeks.week_first[i + 1] - base
        wk = Week(base, n_slots, weeks.club_slot_first, weeks.club_slot_stop, weeks.ev_first[i], weeks.ev_stop[i],
                  weeks.online_first[i], weeks.online_stop[i], weeks.mixing[i], weeks.number[i])
        nrec = _solo_and_events(st, key, i, pl, ven, wk, rules, limits, rec, n_play)
        if nrec >= 0:
            nrec = _partnership_sessions(st, key, i, pl, ven, wk, rules, limits, rec, nrec)
        if nrec >= 0:
            nrec = _pickup_sessions(st, key, pl, ven, wk, rules, rec, nrec, n_play)
        if nrec < 0:
            return -1
        _by_slot(rec, nrec, n_slots, counts, fill, rec_order)
        strength = pl.strength[i]
        for k in range(base, base + n_slots):  # the week's slots in session order
            s = ven.session_order[k]
            ls = s - base
            if counts[ls + 1] == counts[ls]:
                continue
            seed_stream(st, key, wk.number * 4 + 3, ls)
            start = out_n
            out_n, n_single = _take_records(st, s, rec_order, counts[ls], counts[ls + 1], rec, seen, singles, out,
                                            out_n)
            if out_n < 0:
                return -1
            n_paired = n_single - n_single % 2  # the last (random) one is the odd one out
            if rules.pickup_corr > 0 and n_paired > 2 and not ven.slot_is_online[s]:
                _pair_by_strength(st, singles, n_paired, strength, rules.pickup_corr, key_scratch, placed)
            out_n = _field(st, s, start, singles, n_single, ven, rules, out, out_n)
            if out_n < 0:
                return -1
            slot_n[s] = out_n - start
    return out_n


def _chunk_inputs(w: World, first_week: int, stop_week: int, slots: dict, strength: np.ndarray):
    sc = w.scenario
    # ``active_on`` of every week's first day at once (one broadcast where a call a week cost its overhead)
    day = w.start_day + 7 * np.arange(first_week, stop_week, dtype=np.int64)[:, None]
    active = (w.join_day <= day) & ((day < w.leave_day) | (day >= w.return_day)) & (w.member | w.online)[None, :]
    pl = Players(active=active, strength=strength, activity=w.activity, home=w.home_club, second=w.second_club,
                 online=w.online, partner=w.partner, partner2=w.partner2, joint1=w.joint1, joint2=w.joint2,
                 bonus=w.bonus, bonus2=w.bonus2, ptype=w.ptype)
    order = np.lexsort((np.arange(len(slots["day"])), slots["venue"], slots["day"]))
    ev_logit = np.log(np.maximum(w.ev_entry_rate, 1e-12) / np.maximum(1 - w.ev_entry_rate, 1e-12))
    ven = Venues(club_isolated=w.club_isolated, guest_first=w.guest_first, guest_stop=w.guest_stop,
                 ev_inst_count=np.maximum(w.ev_count, 1).astype(np.int64), ev_entry_logit=ev_logit,
                 ev_entry_strength=w.ev_entry_strength, slot_club=slots["club"], slot_team=slots["is_team"],
                 slot_min_pairs=slots["min_pairs"], slot_max_pairs=slots["max_pairs"],
                 slot_is_online=slots["is_online"], session_order=order)
    weeks = Weeks(number=np.arange(first_week, stop_week, dtype=np.int64), week_first=slots["week_first"],
                  club_slot_first=slots["club_slot_first"], club_slot_stop=slots["club_slot_stop"],
                  ev_first=slots["ev_first"], ev_stop=slots["ev_stop"], online_first=slots["online_first"],
                  online_stop=slots["online_stop"], mixing=slots["mixing"])
    rules = Rules(second_weight=float(sc.mixing.second_club_weight), travel_rate=float(sc.mixing.travel_rate),
                  cap=int(sc.players.activity_cap), guest_partner=sc.partnerships.odd_player == "guest",
                  pickup_corr=float(sc.partnerships.pickup_correlation))
    return pl, ven, weeks, rules


def plan_sessions(world: World, first_week: int, last_week: int, *, strength=None) -> SessionPlan:
    """Plan weeks [first_week, last_week) into a SessionPlan (sessions by day, venue, slot).

    One kernel call plans the whole run of weeks.  strength: optional
    float64 (W, P), ``strength_on`` at each week's first day, when the caller
    has it already (else computed here).
    """
    w = world
    if not 0 <= first_week <= last_week:
        raise ValueError(f"weeks [{first_week}, {last_week}) are not a valid range")
    W = last_week - first_week
    if strength is not None and np.shape(strength) != (W, w.n_players):
        raise ValueError(f"strength: give ({W}, {w.n_players}) true strengths, got shape {np.shape(strength)}")
    if strength is None:
        strength = np.empty((W, w.n_players))
        for i in range(W):
            strength[i] = strength_on(w, w.start_day + 7 * (first_week + i))
    strength = np.ascontiguousarray(strength, np.float64)
    slots = chunk_slots(w, first_week, last_week)
    pl, ven, weeks, rules = _chunk_inputs(w, first_week, last_week, slots, strength)
    # a week draws about activity sessions a player (a record each), seated as half as many pairs
    week_records = pl.active.astype(np.float64) @ w.activity if W else np.zeros(0)
    rec_cap = max(64, int(week_records.max(initial=0.0) * 2.5) + 64)
    out_cap = max(64, int(week_records.sum() * 2.5) + 64)
    slot_n = np.empty(len(slots["day"]), np.int64)
    while True:
        rec, out = _records(rec_cap), _out_entries(out_cap)
        n = _plan_weeks(w.key, pl, ven, weeks, rules, rec, out, slot_n)
        if n >= 0:
            break
        rec_cap, out_cap = 2 * rec_cap, 2 * out_cap
    used = ven.session_order[slot_n[ven.session_order] > 0]
    entry_start = np.zeros(len(used) + 1, np.int64)
    np.cumsum(slot_n[used], out=entry_start[1:])
    day = slots["day"][used]
    plan = SessionPlan(day=day, venue=slots["venue"][used], event=slots["event"][used], kind=slots["kind"][used],
                       scoring=slots["scoring"][used], winners=slots["winners"][used], boards=slots["boards"][used],
                       boards_per_round=slots["bpr"][used], entry_start=entry_start, a=out.a[:n], b=out.b[:n],
                       ptype=out.ptype[:n], bonus=out.bonus[:n], team=out.team[:n], scored_on=day.copy(),
                       corrected_on=np.full(len(used), -1, np.int32))
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
