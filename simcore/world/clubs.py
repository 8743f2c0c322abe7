"""Clubs, venues and events: second clubs, the weekly timetable and a week's session slots.

``draw_second_clubs`` makes some members of a second (open) club;
``timetable`` turns the scenario's club sessions and events into the
``ks_*`` / ``ev_*`` arrays of the World; ``week_slots`` lays out one week's
session slots — club sessions club by club, the event instances running that
week, the online room's tourneys — for the planner.
"""

from __future__ import annotations

import weakref
from datetime import date

import numpy as np

from simcore.results import KIND_ONLINE, MOVEMENT_KINDS, SCORINGS, EVENT_TYPES, TEAM_KINDS
from simcore.scenario import WEEKDAYS, Scenario
from simcore.world.model import MIN_PAIRS, MIN_TEAM_PAIRS, World
from simcore.world.population import Clubs, People

EVERY = {"week": 0, "month": 1, "quarter": 2, "year": 3}
_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()  # days are counted from 1970-01-01
_IS_TEAM_KIND = np.isin(np.arange(len(MOVEMENT_KINDS)), list(TEAM_KINDS))  # by kind code
_MIN_PAIRS_KIND = np.where(_IS_TEAM_KIND, MIN_TEAM_PAIRS,  # a slot's fewest pairs, by kind code
                           np.where(np.arange(len(MOVEMENT_KINDS)) == KIND_ONLINE, 8, MIN_PAIRS)).astype(np.int64)


def draw_second_clubs(sc: Scenario, clubs: Clubs, people: People, rng) -> np.ndarray:
    """Each player's second club (−1 none): a share of the members of open clubs join another open club."""
    P = len(people.home)
    C = len(clubs.names)
    second = np.full(P, -1, np.int32)
    if C > 1:
        home, isolated = people.home, np.asarray(clubs.isolated, bool)
        can = (home >= 0) & people.member & ~isolated[np.maximum(home, 0)]
        pick = can & (rng.random(P) < sc.mixing.multi_club_share)
        other = rng.integers(0, C - 1, P)
        other = np.where(other >= home, other + 1, other)
        second = np.where(pick & ~isolated[other], other, -1).astype(np.int32)
    return second


def _club_entry(sc: Scenario, ci: int):
    k = 0
    for entry in sc.clubs:
        if ci < k + entry.count:
            return entry
        k += entry.count
    raise IndexError(ci)


def timetable(sc: Scenario, n_clubs: int) -> dict:
    """The World's weekly club sessions (``ks_*``) and events (``ev_*``) as coded arrays."""
    ks = [(ci, s) for ci in range(n_clubs) for s in _club_entry(sc, ci).sessions]
    ev = sc.events
    arr = np.array
    code = lambda words, w: words.index(w)  # noqa: E731
    return dict(
        ks_club=arr([c for c, _ in ks], np.int32),
        ks_weekday=arr([WEEKDAYS.index(s.weekday) for _, s in ks], np.int32),
        ks_kind=arr([code(MOVEMENT_KINDS, s.movement) for _, s in ks], np.int8),
        ks_scoring=arr([code(SCORINGS, s.scoring) for _, s in ks], np.int8),
        ks_boards=arr([s.boards for _, s in ks], np.int32),
        ks_event=arr([code(EVENT_TYPES, s.event_type) for _, s in ks], np.int8),
        ks_winners=arr([s.winners for _, s in ks], np.int8),
        ks_max_pairs=arr([2 * s.max_tables for _, s in ks], np.int32),
        ev_names=[e.name for e in ev], ev_every=arr([EVERY[e.every] for e in ev], np.int32),
        ev_week=arr([e.week for e in ev], np.int32),
        ev_weekday=arr([WEEKDAYS.index(e.weekday) for e in ev], np.int32),
        ev_kind=arr([code(MOVEMENT_KINDS, e.movement) for e in ev], np.int8),
        ev_scoring=arr([code(SCORINGS, e.scoring) for e in ev], np.int8),
        ev_boards=arr([e.boards for e in ev], np.int32),
        ev_event=arr([code(EVENT_TYPES, e.event_type) for e in ev], np.int8),
        ev_winners=arr([e.winners for e in ev], np.int8),
        ev_max_pairs=arr([2 * e.max_tables for e in ev], np.int32),
        ev_count=arr([e.count for e in ev], np.int32),
        ev_entry_rate=arr([e.entry_rate for e in ev], np.float64),
        ev_entry_strength=arr([e.entry_strength for e in ev], np.float64),
    )


def _event_runs(w: World, q: int, day: int, mixing: bool) -> bool:
    """Whether event q runs on ``day`` (its weekday in the week being planned)."""
    if not mixing:
        return False
    d = date.fromordinal(_EPOCH_ORDINAL + int(day))  # a tenth of numpy datetime64's cost, called every week
    month = d.month - 1  # 0 = January
    week_of_month = (d.day - 1) // 7 + 1
    every = w.ev_every[q]
    return every == 0 or (week_of_month == w.ev_week[q] and
                          (every == 1 or (every == 2 and month % 3 == 0) or (every == 3 and month == 0)))


_COLUMNS = ("day", "venue", "kind", "scoring", "boards", "event", "winners", "club", "max_pairs", "bpr")
_DTYPES = (np.int32, np.int32, np.int8, np.int8, np.int32, np.int8, np.int8, np.int32, np.int64, np.int32)


def chunk_slots(world: World, first_week: int, stop_week: int) -> dict:
    """The session slots of weeks [first_week, stop_week): club sessions, event instances, online tourneys.

    Each week's slots in order: the club sessions club by club (in the order
    each club lists them), then each event's instances running that week,
    then the online room's tourneys day by day; the weeks one after another
    (week i's slots are [week_first[i], week_first[i + 1]) of the chunk).
    The club sessions and the online tourneys are the same every week but
    for their days: they are laid out once per world (``_weekly``) and
    shifted; only the events are decided week by week.

    Per slot (chunk numbering): the columns of ``_COLUMNS`` and is_team,
    is_online, min_pairs.  Per week, in week-local slot numbers (slot s of
    week i is chunk slot week_first[i] + s): club_slot_first/stop (C, the
    same every week), ev_first/ev_stop (W, Q), online_first/online_stop (W);
    mixing (W) bool.
    """
    w = world
    fixed = _weekly(w)
    start_wd = (int(w.start_day) + 3) % 7  # 0 = Monday (day 0, 1970-01-01, was a Thursday)
    n_club = len(fixed["club_offset"])
    n_online = 0 if fixed["online_cols"] is None else len(fixed["online_offset"])
    W, Q = stop_week - first_week, len(w.ev_names)
    ev_first, ev_stop = np.zeros((W, Q), np.int32), np.zeros((W, Q), np.int32)
    online_first, mixing = np.zeros(W, np.int64), np.zeros(W, bool)
    week_first = np.zeros(W + 1, np.int64)
    parts = []
    for i in range(W):
        start = w.start_day + 7 * (first_week + i)
        mixing[i] = start >= w.isolation_end
        parts.append((fixed["club_offset"] + start,) + fixed["club_cols"])
        n = n_club
        for q in range(Q):
            day = start + (int(w.ev_weekday[q]) - start_wd) % 7
            ev_first[i, q] = n
            if _event_runs(w, q, day, bool(mixing[i])):
                cols = fixed["event_cols"][q]
                parts.append((np.full(len(cols[0]), day, np.int32),) + cols)
                n += len(cols[0])
            ev_stop[i, q] = n
        online_first[i] = n
        if n_online:
            parts.append((fixed["online_offset"] + start,) + fixed["online_cols"])
        week_first[i + 1] = week_first[i] + n + n_online
    # the weekly columns are stored in these dtypes already (``_weekly``): one concatenation each, no cast
    out = {k: (np.concatenate([p[j] for p in parts], dtype=dt) if parts else np.zeros(0, dt))
           for j, (k, dt) in enumerate(zip(_COLUMNS, _DTYPES))}
    kinds = out["kind"]
    out.update(is_team=_IS_TEAM_KIND[kinds], is_online=kinds == KIND_ONLINE, min_pairs=_MIN_PAIRS_KIND[kinds],
               club_slot_first=fixed["club_slot_first"].copy(), club_slot_stop=fixed["club_slot_stop"].copy(),
               ev_first=ev_first, ev_stop=ev_stop, online_first=online_first, online_stop=online_first + n_online,
               mixing=mixing, week_first=week_first)
    return out


def week_slots(world: World, week: int) -> dict:
    """The session slots of one week (``chunk_slots`` of that week alone, with per-week values as scalars)."""
    out = chunk_slots(world, week, week + 1)
    out.update(ev_first=out["ev_first"][0], ev_stop=out["ev_stop"][0], online_first=int(out["online_first"][0]),
               online_stop=int(out["online_stop"][0]), mixing=bool(out["mixing"][0]))
    del out["week_first"]
    return out


_WEEKLY: dict = {}  # id(world) -> (weak reference to the world, its weekly slots); a World is unhashable


def _weekly(w: World) -> dict:
    """The slots every week of a world repeats: club sessions club by club, each event's instances (when it
    runs), the online tourneys (memoised).

    Columns as ``week_slots``'s (venue, kind, scoring, boards, event,
    winners, club, max pairs, boards a round); the club sessions' and
    tourneys' days as offsets from the week's first day.
    """
    ref, hit = _WEEKLY.get(id(w), (None, None))
    if ref is not None and ref() is w:
        return hit
    start_wd = (int(w.start_day) + 3) % 7
    C = w.n_clubs
    ks = np.argsort(w.ks_club, kind="stable")
    ks = ks[(w.ks_club[ks] >= 0) & (w.ks_club[ks] < C)]
    per_club = np.bincount(w.ks_club[ks], minlength=C)[:C]
    club_slot_stop = np.cumsum(per_club).astype(np.int32)
    on = w.scenario.online
    online_offset, online_cols = None, None
    if on.members:
        k = 7 * on.tourneys_per_day
        one = lambda v: np.full(k, v)  # noqa: E731
        online_offset = np.repeat(np.arange(7), on.tourneys_per_day)
        online_cols = (one(C + int(w.ev_count.sum())), one(KIND_ONLINE), one(0), one(on.boards), one(0), one(1),
                       one(-1), one(4 * on.max_tables), one(on.boards_per_round))
    event_cols, venue = [], C
    for q in range(len(w.ev_names)):  # each event's instances, at venues numbered on from the clubs
        k = int(w.ev_count[q])
        one = lambda v: np.full(k, v)  # noqa: E731
        event_cols.append((venue + np.arange(k), one(w.ev_kind[q]), one(w.ev_scoring[q]), one(w.ev_boards[q]),
                           one(w.ev_event[q]), one(w.ev_winners[q]), one(-1), one(w.ev_max_pairs[q]), one(0)))
        venue += k
    typed = lambda cols: None if cols is None else tuple(  # noqa: E731
        np.asarray(c, dt) for c, dt in zip(cols, _DTYPES[1:]))  # chunk_slots' dtypes (venue, ..., bpr)
    hit = dict(club_offset=(w.ks_weekday[ks].astype(np.int64) - start_wd) % 7,
               club_cols=typed((w.ks_club[ks], w.ks_kind[ks], w.ks_scoring[ks], w.ks_boards[ks], w.ks_event[ks],
                                w.ks_winners[ks], w.ks_club[ks], w.ks_max_pairs[ks], np.zeros(len(ks), np.int64))),
               club_slot_first=(club_slot_stop - per_club).astype(np.int32), club_slot_stop=club_slot_stop,
               event_cols=[typed(c) for c in event_cols], online_offset=online_offset,
               online_cols=typed(online_cols))
    _WEEKLY[id(w)] = (weakref.ref(w, lambda _, k=id(w): _WEEKLY.pop(k, None)), hit)
    return hit
