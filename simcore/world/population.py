"""Players: who they are, how strong, how often they play, and how that changes.

``draw_clubs`` draws each club's mean strength; ``draw_players`` numbers the
players club by club (members, then newcomers joining during the run, then
the club's guest pool; the online room last) with their base strength;
``draw_careers`` gives each player an activity and a true-strength path
(learner gain, step change, decline) and the days they leave and come back.
``draw_card_play`` gives each player a card-play trait (read only by
IMPs-lost) correlated with base strength.  ``strength_on`` and ``active_on`` read a player's state on a day.

Every draw comes from the replicate's numpy generator in a fixed order, so
one key gives one population.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simcore._jit import kernel
from simcore.scenario import Scenario, _date
from simcore.world.model import NEVER, World


class Calendar(NamedTuple):
    """The run's days (days since 1970-01-01): first day, weeks, day after the last week."""
    start: int
    years: float
    n_weeks: int
    end: int
    isolation_end: int


class Clubs(NamedTuple):
    """One entry per club (a ``[[clubs]]`` entry with count k gives k clubs)."""
    names: list
    mean: list          # drawn mean true strength (grade points)
    sd: list            # sd of true strength within the club (grade points)
    skew: list          # skewness of true strength within the club
    members: list       # members at the start
    isolated: list


class People(NamedTuple):
    """Players numbered club by club; the id ranges of each club's members and guests."""
    home: np.ndarray
    strength: np.ndarray   # base true strength (grade points)
    join_day: np.ndarray
    at_start: np.ndarray
    member: np.ndarray
    online: np.ndarray
    learner: np.ndarray
    club_first: np.ndarray
    club_stop: np.ndarray
    guest_first: np.ndarray
    guest_stop: np.ndarray
    online_guest_first: int


class Careers(NamedTuple):
    """Activity (sessions a week) and the true-strength path and membership days of every player."""
    activity: np.ndarray
    learner_gain: np.ndarray
    learner_days: np.ndarray
    step_day: np.ndarray
    step_size: np.ndarray
    decline_per_day: np.ndarray
    leave_day: np.ndarray
    return_day: np.ndarray


def _skew_normal_delta(skew: float) -> float:
    """The skew-normal shape delta whose skewness is ``skew`` (|skew| < 0.9953, the family's limit)."""
    c = (2 * abs(skew) / (4 - np.pi)) ** (2 / 3)
    delta = np.sqrt(np.pi / 2 * c / (1 + c))
    return float(np.copysign(delta, skew))


def draw_strength(rng, mean: float, sd: float, skew: float, n: int) -> np.ndarray:
    """n true strengths (grade points) with this mean, sd and skewness.

    Skew 0 is a normal (one draw a player); otherwise a skew-normal,
    delta·|Z0| + sqrt(1 − delta²)·Z1 rescaled to the mean and sd (two draws).
    """
    if skew == 0:
        return rng.normal(mean, sd, n)
    delta = _skew_normal_delta(skew)
    z = rng.normal(0.0, 1.0, (2, n))
    x = delta * np.abs(z[0]) + np.sqrt(1 - delta * delta) * z[1]
    m, v = delta * np.sqrt(2 / np.pi), 1 - 2 * delta * delta / np.pi
    return mean + sd * (x - m) / np.sqrt(v)


def calendar_of(sc: Scenario) -> Calendar:
    start = _date(sc.calendar.start, "calendar.start")
    years = sc.calendar.years
    n_weeks = max(1, int(round(years * 365.25 / 7)))
    isolation_end = _date(sc.mixing.isolation_ends, "mixing.isolation_ends") if sc.mixing.isolation_ends else start
    return Calendar(start, years, n_weeks, start + 7 * n_weeks, isolation_end)


def draw_clubs(sc: Scenario, rng) -> Clubs:
    names, mean, sd, skew, members, isolated = [], [], [], [], [], []
    for entry in sc.clubs:
        for i in range(entry.count):
            names.append(entry.name if entry.count == 1 else f"{entry.name}-{i + 1}")
            mean.append(entry.strength_mean + (rng.normal(0, entry.strength_mean_sd)
                                               if entry.strength_mean_sd > 0 else 0.0))
            sd.append(entry.strength_sd)
            skew.append(entry.strength_skew)
            members.append(entry.members)
            isolated.append(entry.isolated)
    return Clubs(names, mean, sd, skew, members, isolated)


def draw_players(sc: Scenario, clubs: Clubs, cal: Calendar, rng) -> People:
    """Every player with home club, base strength, join day and status, numbered club by club."""
    pl, pt, on = sc.players, sc.partnerships, sc.online
    start, end, years = cal.start, cal.end, cal.years
    C = len(clubs.names)
    n_initial = int(sum(clubs.members))
    n_join = int(round(pl.join_rate * n_initial * years))
    join_club = (rng.choice(C, n_join, p=np.array(clubs.members) / n_initial) if C and n_join
                 else np.zeros(0, int))
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
        m = clubs.members[c]
        mean, sd = clubs.mean[c], clubs.sd[c]
        add(np.full(m, c), draw_strength(rng, mean, sd, clubs.skew[c], m), np.full(m, start - 1), np.ones(m, bool),
            np.ones(m, bool), np.zeros(m, bool), np.zeros(m, bool))
        n += m
        jc = join_when[join_club == c]
        add(np.full(len(jc), c), rng.normal(mean + pl.newcomer_offset, pl.newcomer_sd, len(jc)), jc,
            np.zeros(len(jc), bool), np.ones(len(jc), bool), np.zeros(len(jc), bool),
            rng.random(len(jc)) < pl.learner_share)
        n += len(jc)
        guest_first[c] = n
        g = int(round(pt.guest_share * m))
        add(np.full(g, c), draw_strength(rng, mean + pt.guest_strength_offset, sd, clubs.skew[c], g),
            np.full(g, start - 1), np.zeros(g, bool), np.zeros(g, bool), np.zeros(g, bool), np.zeros(g, bool))
        n += g
        guest_stop[c] = n
        club_stop[c] = n
    online_guest_first = n
    if on.members:
        m = on.members
        guest = rng.random(m) < on.guest_share
        add(np.full(m, -1), draw_strength(rng, on.strength_mean, on.strength_sd, on.strength_skew, m),
            np.full(m, start - 1),
            np.ones(m, bool), ~guest, np.ones(m, bool), np.zeros(m, bool))
        n += m
        nj = int(round(pl.join_rate * m * years))
        add(np.full(nj, -1), rng.normal(on.strength_mean + pl.newcomer_offset, pl.newcomer_sd, nj),
            np.sort(rng.integers(start, end, nj)), np.zeros(nj, bool), rng.random(nj) >= on.guest_share,
            np.ones(nj, bool), rng.random(nj) < pl.learner_share)
        n += nj
    cat = lambda k, dt: np.concatenate(cols[k]).astype(dt)  # noqa: E731
    return People(home=cat("home", np.int32), strength=cat("strength", np.float64),
                  join_day=cat("join", np.int32), at_start=cat("at_start", bool), member=cat("member", bool),
                  online=cat("online", bool), learner=cat("learner", bool),
                  club_first=club_first, club_stop=club_stop, guest_first=guest_first, guest_stop=guest_stop,
                  online_guest_first=online_guest_first)


def draw_careers(sc: Scenario, people: People, cal: Calendar, rng) -> Careers:
    """Activity, true-strength path and leaving/returning days; guests get activity 0 and never leave."""
    pl = sc.players
    start, end = cal.start, cal.end
    strength, join_day = people.strength, people.join_day
    P = len(strength)
    activity = np.exp(np.log(pl.activity_mean) + pl.activity_strength * (strength - 50)
                      + rng.normal(0, pl.activity_sigma, P))
    activity = np.minimum(activity, pl.activity_cap)
    learner_gain = np.where(people.learner, pl.learner_gain, 0.0)
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
    guests = ~people.member & ~people.online
    activity[guests] = 0.0  # guests play only as partners of an odd pick-up player
    leave_day[guests] = NEVER
    return Careers(activity, learner_gain, learner_days, step_day, step_size, decline_per_day, leave_day,
                   return_day)


def draw_card_play(sc: Scenario, strength: np.ndarray, rng) -> np.ndarray:
    """Each player's card play (grade points): the skill IMPs-lost reads, apart from true strength.

    card_play = m + card_play_sd · (rho · z + sqrt(1 − rho²) · e), with z the
    player's base true strength standardised over all players (mean m) and
    e ~ N(0, 1) one draw a player; so its correlation with base true
    strength is rho = ``players.card_play_correlation`` (an assumption) and
    its sd ``players.card_play_sd``.  Drawn last, so the rest of the world
    does not depend on it.
    """
    pl = sc.players
    rho = pl.card_play_correlation
    e = rng.normal(0.0, 1.0, len(strength))
    if len(strength) == 0:
        return np.zeros(0)
    m, sd = float(strength.mean()), float(strength.std())
    z = (strength - m) / sd if sd > 0 else np.zeros(len(strength))
    return m + pl.card_play_sd * (rho * z + np.sqrt(1.0 - rho * rho) * e)


def strength_on(world: World, day, out=None) -> np.ndarray:
    """True strength of every player on ``day`` (grade points): base + learner gain so far + step − decline.

    out: float64 (P) to write into (a fresh array when None).  One pass in a
    kernel: the numpy form made seven temporaries of P floats (1.06 ms a call
    at national scale against 0.05 ms), on every snapshot and planned week.
    """
    w = world
    if out is None:
        out = np.empty(len(w.base_strength))
    _strength_kernel(w.base_strength, w.learner_gain, w.learner_days, w.join_day, w.step_day, w.step_size,
                     w.decline_per_day, int(w.start_day), int(day), out)
    return out


@kernel
def _strength_kernel(base, learner_gain, learner_days, join_day, step_day, step_size, decline_per_day, start_day,
                     day, out):
    """``strength_on``: out[p] = base + gain·min(1, days since joining / learner days) + step − decline
    (grade points), the additions in numpy's order of the same expression (so the same bits)."""
    days_in = max(0, day - start_day)
    for p in range(out.shape[0]):
        since_join = max(0, day - max(np.int64(join_day[p]), start_day))
        x = since_join / learner_days[p]
        learn = learner_gain[p] * (1.0 if x > 1.0 else x)  # (a NaN stays NaN, as in np.minimum)
        step = step_size[p] if day >= step_day[p] else 0.0
        out[p] = base[p] + learn + step - decline_per_day[p] * days_in


def active_on(world: World, day) -> np.ndarray:
    """Members playing on ``day`` (joined, not left or back after leaving); guests excluded."""
    w = world
    alive = (w.join_day <= day) & ((day < w.leave_day) | (day >= w.return_day))
    return alive & (w.member | w.online)
