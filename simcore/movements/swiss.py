"""Swiss pairs and Swiss teams: each round paired from the standings.

A Swiss event is a series of short matches (``boards`` boards each).  Round
1 is drawn at random or, given a ``rating`` per entrant, seeded: the field
sorted by rating is split in halves and the top half meets the bottom half
(1 v n/2+1, 2 v n/2+2, …).  Later rounds pair by current standings: the
highest unpaired entrant meets the next highest it has not met yet
(``swiss_pair_round``); when the bottom of the field cannot be completed
without a repeat, the pairing backtracks (depth first) to the last choice
that leaves a completion.  Ties in the standings are broken by entrant
number, so pairing is deterministic.  With an odd field the lowest-ranked
entrant that has not yet had one gets a bye (sits out the round).

Every table in a round plays the round's boards (board set r), so every
board is compared across the field.  Swiss pairs: the pair ranked higher
sits NS.  Swiss teams: team A's pair one NS v team B's pair two EW at one
table, B's pair one NS v A's pair two at the other, on the same boards.
Standings are VPs on the WBF continuous scale (``imps.victory_points``)
from the match's IMP margin, or the sum of match MP % for MP Swiss pairs.
A match is the unit of strength of opponents (NGS: SOpp per match).
"""

from __future__ import annotations

import numpy as np

from simcore._jit import kernel
from simcore.scoring.imp_scale import victory_points
from simcore.results import KIND_SWISS_PAIRS, KIND_SWISS_TEAMS
from simcore.rng import below
from simcore.movements import Schedule
from simcore.movements import check_boards
from simcore.movements import check_int
from simcore.movements import make_schedule

MIN_ENTRANTS = 4


@kernel(helper=True)
def _pair_field(field, played, out_a, out_b):
    """Depth-first pairing of ``field`` (standings order) without repeats; False if none exists."""
    m = field.shape[0]
    used = np.zeros(m, np.bool_)
    choice = np.full(m // 2, -1, np.int64)  # index of the partner chosen at each step
    first = np.empty(m // 2, np.int64)       # the top unpaired entrant at each step
    step = 0
    while step < m // 2:
        if choice[step] == -1:
            top = 0
            while used[top]:
                top += 1
            first[step] = top
            used[top] = True
            start = top + 1
        else:
            used[choice[step]] = False
            start = choice[step] + 1
        top = first[step]
        found = -1
        for j in range(start, m):
            if not used[j] and not played[field[top], field[j]]:
                found = j
                break
        if found >= 0:
            choice[step] = found
            used[found] = True
            step += 1
            if step < m // 2:
                choice[step] = -1
        else:
            used[top] = False
            choice[step] = -1
            step -= 1
            if step < 0:
                return False
    for i in range(m // 2):
        out_a[i] = field[first[i]]
        out_b[i] = field[choice[i]]
    return True


@kernel
def swiss_pair_round(order, played, had_bye, out_a, out_b):
    """Pair one Swiss round; returns the bye entrant (−1 if none), or −2 if no pairing exists.

    order: int64[n] entrants from the top of the standings down.
    played: bool[n, n] who has already met whom.
    had_bye: bool[n] entrants that have had a bye.
    out_a, out_b: int64[n // 2] the pairs, higher-ranked entrant first.
    With an odd field the bye goes to the lowest-ranked entrant without one
    for which the rest can be paired (then to those who had one).
    """
    n = order.shape[0]
    if n % 2 == 0:
        return -1 if _pair_field(order, played, out_a, out_b) else -2
    field = np.empty(n - 1, np.int64)
    for pass_ in range(2):
        for i in range(n - 1, -1, -1):
            cand = order[i]
            if had_bye[cand] != (pass_ == 1):
                continue
            k = 0
            for j in range(n):
                if order[j] != cand:
                    field[k] = order[j]
                    k += 1
            if _pair_field(field, played, out_a, out_b):
                return cand
    return -2


@kernel
def standings_order(points, order):
    """Entrants from the top of the standings down into ``order``: most points first, ties by entrant number.

    The same order as a stable sort of -points (``np.argsort(-points,
    kind="mergesort")``), by insertion: a Swiss field is small, and this
    compiles in a fraction of the time numba's mergesort takes.
    """
    for i in range(points.shape[0]):
        k = i
        while k > 0 and points[order[k - 1]] < points[i]:
            order[k] = order[k - 1]
            k -= 1
        order[k] = i


@kernel
def swiss_first_round(n, seeded_order, state, out_order):
    """Round-1 order: the seeding (top half v bottom half) or a random draw."""
    if seeded_order.shape[0] == n:
        half = n // 2
        k = 0
        for i in range(half):
            out_order[k] = seeded_order[i]
            out_order[k + 1] = seeded_order[i + half]
            k += 2
        if n % 2 == 1:
            out_order[n - 1] = seeded_order[n - 1]
        return
    for i in range(n):
        out_order[i] = i
    for i in range(n - 1, 0, -1):
        j = below(state, i + 1)
        out_order[i], out_order[j] = out_order[j], out_order[i]


def _standings_order(points: np.ndarray) -> np.ndarray:
    return np.lexsort((np.arange(len(points)), -points)).astype(np.int64)


def _swiss(n, boards, rounds, seed, rating, results, teams: bool, scoring: str = "imps") -> Schedule:
    from simcore.rng import new_stream
    what = "Swiss teams" if teams else "Swiss pairs"
    n = check_int(f"{what}' number of entrants", n, MIN_ENTRANTS, 400)
    boards = check_boards(boards)
    rounds = check_int(f"rounds of {what} for {n} entrants", rounds, 1, n - 1 if n % 2 == 0 else n)
    if results is None:
        raise ValueError(f"{what} needs results=callback(round, ns, ew) -> match scores to pair later rounds")
    if scoring not in ("imps", "mp") or (teams and scoring != "imps"):
        raise ValueError(f"{what}: scoring must be {'imps' if teams else 'imps or mp'}, got {scoring!r}")
    played = np.zeros((n, n), bool)
    had_bye = np.zeros(n, bool)
    points = np.zeros(n)
    st = new_stream(np.uint64(seed), 0x5A1, 0)
    seeded = np.zeros(0, np.int64) if rating is None else _standings_order(np.asarray(rating, float))
    rows = []
    for r in range(rounds):
        order = np.empty(n, np.int64)
        if r == 0:
            swiss_first_round(n, seeded, st, order)
            half = n // 2
            a_, b_ = order[0:2 * half:2], order[1:2 * half:2]
            bye = order[-1] if n % 2 else -1
        else:
            a_, b_ = np.empty(n // 2, np.int64), np.empty(n // 2, np.int64)
            order = _standings_order(points)
            bye = swiss_pair_round(order, played, had_bye, a_, b_)
            if bye == -2:  # late round of a small field: pair by standings, allowing a repeat
                bye = order[-1] if n % 2 else -1
                rest = order[order != bye]
                a_, b_ = rest[0::2].copy(), rest[1::2].copy()
        if bye >= 0:
            had_bye[bye] = True
        played[a_, b_] = played[b_, a_] = True
        score = np.asarray(results(r + 1, a_, b_), float)  # a_'s IMP margin, or its match MP %
        for x, y, sc in zip(a_, b_, score):
            got = victory_points(sc, boards) if scoring == "imps" else sc
            points[x] += got
            points[y] += (20.0 if scoring == "imps" else 100.0) - got
        for m_, (x, y) in enumerate(zip(a_, b_)):
            if teams:
                rows.append((r, 2 * m_, x, y, r, 0, 1))
                rows.append((r, 2 * m_ + 1, y, x, r, 0, 1))
            else:
                rows.append((r, m_, x, y, r, -1, -1))
    arr = np.array(rows)
    kind = KIND_SWISS_TEAMS if teams else KIND_SWISS_PAIRS
    name = f"{'swiss_teams' if teams else 'swiss_pairs'}:{n}{'teams' if teams else 'pairs'}-{rounds}x{boards}"
    return make_schedule(name, kind, 2 if teams else 1, n, boards, arr[:, 0] + 1, arr[:, 1] + 1, arr[:, 2],
                         arr[:, 3], arr[:, 4], arr[:, 5] if teams else None, arr[:, 6] if teams else None,
                         points=points)


def swiss_pairs(n_pairs: int, boards: int, *, rounds: int, results=None, rating=None, seed: int = 0,
                scoring: str = "imps") -> Schedule:
    """A Swiss pairs event: ``rounds`` matches of ``boards`` boards.

    results(round, ns, ew) -> each NS pair's match score (entrant arrays),
    called after each round to build the standings: its IMP margin
    (``scoring="imps"``, standings in VPs) or its match MP % (``"mp"``).
    """
    return _swiss(n_pairs, boards, rounds, seed, rating, results, False, scoring)


def swiss_teams(n_teams: int, boards: int, *, rounds: int, results=None, rating=None, seed: int = 0) -> Schedule:
    """A Swiss teams event: ``rounds`` matches of ``boards`` boards (results as ``swiss_pairs``)."""
    return _swiss(n_teams, boards, rounds, seed, rating, results, teams=True)
