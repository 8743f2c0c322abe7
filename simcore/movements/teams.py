"""Multiple teams: a Howell of teams, each match played at two tables.

Teams of two pairs meet in short matches.  The team-level schedule is a
Howell (``howell.full_howell``): in round r, "table" m seats team A against
team B on board set s.  Each such match is played at two tables on the same
boards: table 2m−1 has A's pair one NS against B's pair two EW, table 2m has
B's pair one NS against A's pair two EW.  So every team meets every other
team once (a full round robin, 2T−1 rounds for 2T teams; an odd count gets
a bye) or, with ``rounds``, a balanced part of it; every team plays every
board set at most once; and every set is played at many tables, which is
what cross-IMPs against the field (how NGS grades the pairs) need.

Team IMPs per match come from comparing the two tables (scoring stage).
Each pair sits one direction all session (pair one NS, pair two EW), so the
event is two-winner for cross-IMP grading: each pair is ranked against the
pairs of its own direction (NGS "multiple teams").
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from simcore.results import KIND_MULTIPLE_TEAMS
from simcore.movements import Schedule
from simcore.movements import check_boards
from simcore.movements import check_int
from simcore.movements import make_schedule
from simcore.movements.howell import balanced_rounds, full_howell

MIN_TEAMS, MAX_TEAMS = 3, 40


def multiple_teams(n_teams: int, boards: int, *, rounds: int | None = None) -> Schedule:
    """Multiple teams for ``n_teams`` teams (3..40) and ``boards`` boards a match.

    rounds: None for the full round robin (n−1 rounds, n if odd: a bye each
    round) or fewer, chosen so board sets are played equally often (±1).
    """
    n_teams = check_int("multiple teams' number of teams", n_teams, MIN_TEAMS, MAX_TEAMS,
                        " (an odd count gets a bye each round)")
    boards = check_boards(boards)
    T = (n_teams + 1) // 2
    full = 2 * T - 1
    rounds = full if rounds is None else check_int(f"rounds of {n_teams}-team multiple teams", rounds, 1, full)
    return _multiple_teams(n_teams, boards, rounds)


@lru_cache(maxsize=None)
def _multiple_teams(n_teams, boards, rounds) -> Schedule:
    T = (n_teams + 1) // 2
    rnd, tab, a, b, bset = full_howell(T)
    if n_teams % 2:  # the stationary team is the bye
        keep = (a != 2 * T - 1) & (b != 2 * T - 1)
        rnd, tab, a, b, bset = rnd[keep], tab[keep], a[keep], b[keep], bset[keep]
    if rounds < 2 * T - 1:
        chosen = balanced_rounds(rnd, bset, 2 * T - 1, rounds) if rounds > 1 else np.array([0])
        new_round = np.full(2 * T - 1, -1)
        new_round[chosen] = np.arange(rounds)
        keep = new_round[rnd] >= 0
        rnd, tab, a, b, bset = new_round[rnd[keep]], tab[keep], a[keep], b[keep], bset[keep]
    n = len(rnd)
    r2 = np.repeat(rnd, 2)
    t2 = (2 * np.repeat(tab, 2) + np.tile([0, 1], n))
    ns = np.empty(2 * n, np.int64)
    ew = np.empty(2 * n, np.int64)
    ns[0::2], ew[0::2] = a, b  # A pair one NS v B pair two EW
    ns[1::2], ew[1::2] = b, a  # B pair one NS v A pair two EW
    ns_pair = np.zeros(2 * n, np.int8)
    ew_pair = np.ones(2 * n, np.int8)
    name = f"multiple_teams:{n_teams}teams-{rounds}r"
    return make_schedule(name, KIND_MULTIPLE_TEAMS, 2, n_teams, boards, r2 + 1, t2 + 1, ns, ew,
                         np.repeat(bset, 2), ns_pair, ew_pair)
