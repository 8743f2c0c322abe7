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

import numpy as np

from simcore.scenario import Scenario
from simcore.world.clubs import draw_second_clubs, timetable, week_slots
from simcore.world.model import (GUEST_PAIR, MIN_PAIRS, MIN_TEAM_PAIRS, NEAR_EXCLUSIVE, NEVER, ONLINE_SINGLE,
                                 PARTNERSHIP_TYPES, PICKUP, REGULAR, SessionPlan, World)
from simcore.world.partnerships import form_partnerships, joint_rates
from simcore.world.plan import plan_sessions
from simcore.world.population import (active_on, calendar_of, draw_card_play, draw_careers, draw_clubs, draw_players,
                                      strength_on)

_week_slots = week_slots  # the name the reference test uses

__all__ = ["World", "SessionPlan", "build_world", "plan_sessions", "strength_on", "active_on", "week_slots",
           "PARTNERSHIP_TYPES", "PICKUP", "REGULAR", "NEAR_EXCLUSIVE", "GUEST_PAIR", "ONLINE_SINGLE", "NEVER",
           "MIN_PAIRS", "MIN_TEAM_PAIRS"]


def build_world(scenario: Scenario, key) -> World:
    """Draw one replicate population from ``scenario`` with replicate key ``key``.

    The steps draw from one numpy generator seeded by the key, in this order
    (changing the order changes every result): club means, players, careers,
    second clubs, partnerships, card play.
    """
    sc = scenario
    key = np.uint64(key)
    rng = np.random.default_rng([int(key) & 0xFFFFFFFF, int(key) >> 32, 0x5EED])
    cal = calendar_of(sc)
    clubs = draw_clubs(sc, rng)
    people = draw_players(sc, clubs, cal, rng)
    careers = draw_careers(sc, people, cal, rng)
    second = draw_second_clubs(sc, clubs, people, rng)
    activity = careers.activity
    links = form_partnerships(sc, people, activity, rng)  # evens out activity within partnerships
    joint1, joint2 = joint_rates(links, activity)
    card_play = draw_card_play(sc, people.strength, rng)
    return World(
        scenario=sc, start_day=cal.start, n_weeks=cal.n_weeks, isolation_end=cal.isolation_end,
        home_club=people.home, second_club=second, activity=activity, base_strength=people.strength,
        learner_gain=careers.learner_gain, learner_days=careers.learner_days, step_day=careers.step_day,
        step_size=careers.step_size, decline_per_day=careers.decline_per_day, join_day=people.join_day,
        leave_day=careers.leave_day, return_day=careers.return_day, member=people.member,
        at_start=people.at_start, **links._asdict(), joint1=joint1, joint2=joint2, online=people.online,
        card_play=card_play, club_names=clubs.names, club_mean=np.asarray(clubs.mean, float),
        club_isolated=np.asarray(clubs.isolated, bool), club_first=people.club_first,
        club_stop=people.club_stop, guest_first=people.guest_first, guest_stop=people.guest_stop,
        **timetable(sc, len(clubs.names)), online_guest_first=people.online_guest_first, key=key,
    )
