"""The world's data: a replicate population (``World``) and a run of planned weeks (``SessionPlan``).

Struct of arrays, filled by ``build_world`` and ``plan_sessions``; every
other module of the world stage reads and writes these and nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simcore.scenario import Scenario

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
    online (plays in the online room), card_play (card-play trait at the
    start, grade points: read only by IMPs-lost; it follows the player's
    true-strength path, so card play on a day is card_play + strength_on −
    base_strength).
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
    card_play: np.ndarray
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
        scored_on int32  day the results reach the grading schemes (the day of play unless late)
        corrected_on int32  day a corrected publication of the session reaches the schemes, -1 none
                         (the first publication then carries a scoring error)
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
    scored_on: np.ndarray
    corrected_on: np.ndarray | None = None

    @property
    def n_sessions(self) -> int:
        return len(self.day)

    @property
    def n_entries(self) -> int:
        return len(self.a)
