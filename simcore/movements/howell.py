"""Howell movements: one-winner, every pair against every other pair.

A full Howell for ``T`` tables seats 2T pairs for 2T−1 rounds on 2T−1
board sets: every pair meets every other pair once and plays every set
once, so every set is played T times.  Equivalently the rounds and the
board sets are two orthogonal one-factorisations of the complete graph on
the pairs — a Room square of side 2T−1 when no set is at two tables in
the same round.

Construction (derived here, not copied from published cards):

* **T ≥ 4 — cyclic (starter–adder).**  Pair ``2T−1`` is stationary NS at
  table 1; pairs 0..2T−2 move.  Round 0 seats (∞, 0) at table 1 and the
  pairs of a *starter* {a_i, b_i} of Z_n (n = 2T−1; the differences ±(a_i −
  b_i) cover every non-zero residue once) at tables 2..T, with set s_i; in
  round r everything is shifted by r: pairs a_i + r (NS) v b_i + r (EW),
  set s_i + r (mod n).  The starter makes every pair meet every other
  once; an *adder* — distinct s_i with {s_0} ∪ {s_i − a_i, s_i − b_i}
  covering Z_n — makes every pair play every set once and every set sit at
  one table at most per round.  Boards move from round to round like the
  pairs (set at table i moves to the table whose s_j = s_i − 1, or to a
  bye stand).  The patterned starter {x, −x} is tried first; where it has
  no adder (Z_9) a deterministic depth-first search over starters finds
  one.  The adder is found by depth-first search; the pairs of every
  table count offered are stored (``_STARTER_ADDERS``), checked by tests.
* **T = 3.**  No Room square of side 5 exists, so every full 3-table
  Howell has a round where the three tables play the same set.  The round
  schedule is the cyclic one above; the set schedule is the one-factori-
  sation of K6 (searched exhaustively) sharing a set in as few rounds as
  possible: one round plays one set at all three tables (duplicated
  boards or relayed), the other four rounds three different sets.

The moving pairs sit NS at T−1 of their 2T−1 rounds plus the round they
meet the stationary pair; the stationary pair sits NS throughout.  Every
pair's NS/EW boards are recorded (``ns_boards``, ``ew_boards``).

* **Sit-out** (odd number of pairs): the stationary pair is absent, so
  table 1 is empty and the pair due to play there sits out; each pair sits
  out once in a full Howell.
* **Shortened / three-quarter Howell** (``rounds=R`` < 2T−1): a subset of R
  rounds of the full Howell, chosen so the plays of every board set differ
  by at most one where any subset of rounds allows it (the first R rounds
  when they are balanced; otherwise the first balanced subset found by
  search), else as little as possible.  No pair meets
  another twice or plays a set twice; sets played less are match-pointed
  with Neuberg.

Name: ``howell:{T}t`` (``4.5t`` with a sit-out), ``-short{R}`` when shortened.
"""

from __future__ import annotations

import itertools
from functools import lru_cache

import numpy as np

from simcore.results import KIND_HOWELL
from simcore.movements import Schedule
from simcore.movements import check_boards
from simcore.movements import check_int
from simcore.movements import make_schedule

MIN_TABLES, MAX_TABLES = 3, 20
MAX_FULL_TABLES = 10
"""Full Howells are offered up to 10 tables (19 rounds); larger fields play shortened ones."""


def howell(n_pairs: int, boards: int, *, rounds: int | None = None) -> Schedule:
    """A Howell for ``n_pairs`` pairs (5..40) and ``boards`` boards a round.

    rounds: None for the full Howell (3..10 tables), or 2..2T−1 for a
    shortened Howell of T tables.
    """
    n_pairs = check_int("a Howell's number of pairs", n_pairs, 2 * MIN_TABLES - 1, 2 * MAX_TABLES,
                        f" ({MIN_TABLES} to {MAX_TABLES} tables; an odd count gets a sit-out)")
    boards = check_boards(boards)
    T = (n_pairs + 1) // 2
    full = 2 * T - 1
    if rounds is None:
        if T > MAX_FULL_TABLES:
            raise ValueError(f"a full Howell is available for {MIN_TABLES} to {MAX_FULL_TABLES} tables "
                             f"(5 to {2 * MAX_FULL_TABLES} pairs); {n_pairs} pairs need {T} tables: "
                             f"pass rounds=2..{full} for a shortened Howell")
        rounds = full
    rounds = check_int(f"rounds of a {T}-table Howell", rounds, 2, full)
    return _howell(n_pairs, boards, rounds)


@lru_cache(maxsize=None)
def _howell(n_pairs, boards, rounds) -> Schedule:
    T = (n_pairs + 1) // 2
    rnd, tab, ns, ew, bset = full_howell(T)
    if n_pairs % 2:  # the stationary pair (id 2T-1) is the phantom
        keep = (ns != 2 * T - 1) & (ew != 2 * T - 1)
        rnd, tab, ns, ew, bset = rnd[keep], tab[keep], ns[keep], ew[keep], bset[keep]
    name = f"howell:{T - 0.5 if n_pairs % 2 else T:g}t"
    if rounds < 2 * T - 1:
        chosen = balanced_rounds(rnd, bset, 2 * T - 1, rounds)
        new_round = np.full(2 * T - 1, -1)
        new_round[chosen] = np.arange(rounds)
        keep = new_round[rnd] >= 0
        rnd, tab, ns, ew, bset = new_round[rnd[keep]], tab[keep], ns[keep], ew[keep], bset[keep]
        name += f"-short{rounds}"
    return make_schedule(name, KIND_HOWELL, 1, n_pairs, boards, rnd + 1, tab + 1, ns, ew, bset)


@lru_cache(maxsize=None)
def full_howell(T: int):
    """Rows (round, table, ns, ew, set), all 0-based, of the full T-table Howell.

    Pair 2T−1 is the stationary pair at table 0.
    """
    n = 2 * T - 1
    if T == 2:  # 4 entrants (multiple teams of 3 or 4 teams): a direct search
        return _two_table_howell()
    if T == 3:
        starter, sets = [(1, 4), (2, 3)], None
    else:
        starter, sets = starter_adder(n)
    pos_ns = np.array([n] + [a for a, _ in starter])  # n marks the stationary pair
    pos_ew = np.array([0] + [b for _, b in starter])
    r = np.repeat(np.arange(n), T)
    t = np.tile(np.arange(T), n)
    ns = np.where(pos_ns[t] == n, n, (pos_ns[t] + r) % n)
    ew = (pos_ew[t] + r) % n
    if sets is not None:
        bset = (np.asarray(sets)[t] + r) % n
    else:
        bset = _three_table_sets(ns, ew, r)
    return r, t, ns, ew, bset


def _two_table_howell():
    """The 2-table round robin of 4 entrants (multiple teams of 3 or 4 teams).

    No assignment of three sets lets every entrant play every set once with
    different sets at the two tables (no Room square of side 3), so both
    tables of round r play set r: every entrant still plays every set once.
    """
    r = np.repeat(np.arange(3), 2)
    t = np.tile(np.arange(2), 3)
    ns = np.array([3, 1, 3, 2, 3, 0])  # entrant 3 stationary at table 0; 0, 1, 2 rotate
    ew = np.array([0, 2, 1, 0, 2, 1])
    return r, t, ns, ew, r.copy()


# (starter, adder) of every Z_n a Howell of 4..MAX_TABLES tables uses (n = 2T − 1), as ``search_starter_adder``
# finds them (None: the patterned starter {x, −x}).  The search is pure Python and grows fast with n (0.02 s at
# 15 pairs, 0.5 s at 39), paid the first time a process meets a table count; tests check every entry against the
# definition and the smaller ones against the search.
_STARTER_ADDERS = {
    7: (None, (0, 2, 4, 1)),
    9: (((1, 2), (3, 7), (4, 6), (5, 8)), (0, 5, 4, 2, 7)),
    11: (None, (0, 3, 5, 9, 1, 4)),
    13: (None, (0, 3, 5, 9, 1, 6, 2)),
    15: (None, (0, 2, 7, 11, 6, 1, 13, 5)),
    17: (None, (0, 2, 6, 8, 3, 7, 4, 16, 5)),
    19: (None, (0, 2, 6, 10, 14, 7, 11, 4, 17, 5)),
    21: (None, (0, 2, 4, 10, 12, 15, 11, 18, 1, 3, 8)),
    23: (None, (0, 2, 4, 8, 12, 14, 16, 20, 22, 3, 5, 9)),
    25: (None, (0, 2, 4, 1, 15, 12, 14, 17, 5, 21, 24, 7, 3)),
    27: (None, (0, 2, 4, 1, 11, 13, 20, 12, 5, 3, 26, 6, 8, 24)),
    29: (None, (0, 2, 4, 1, 9, 14, 20, 15, 7, 3, 26, 6, 8, 5, 25)),
    31: (None, (0, 2, 4, 1, 3, 16, 18, 21, 17, 27, 29, 6, 8, 28, 30, 7)),
    33: (None, (0, 2, 4, 1, 3, 13, 17, 19, 21, 29, 32, 5, 7, 30, 11, 6, 31)),
    35: (None, (0, 2, 4, 1, 3, 10, 14, 24, 19, 23, 20, 33, 6, 34, 5, 8, 32, 7)),
    37: (None, (0, 2, 4, 1, 3, 10, 14, 17, 19, 22, 24, 6, 34, 5, 35, 8, 12, 36, 7)),
    39: (None, (0, 2, 4, 1, 3, 10, 14, 16, 20, 22, 24, 5, 38, 9, 7, 34, 13, 8, 6, 37)),
}


def _patterned(n: int) -> list:
    return [(x, n - x) for x in range(1, (n + 1) // 2)]


def starter_adder(n: int):
    """(starter, adder) for Z_n: the stored pair (``_STARTER_ADDERS``) or ``search_starter_adder``'s."""
    hit = _STARTER_ADDERS.get(n)
    if hit is None:
        return search_starter_adder(n)
    starter, adder = hit
    return (_patterned(n) if starter is None else [tuple(p) for p in starter]), list(adder)


def search_starter_adder(n: int):
    """(starter, adder) for Z_n by depth-first search: the patterned starter when it has an adder."""
    patterned = _patterned(n)
    adder = _adder(n, patterned)
    if adder is not None:
        return patterned, adder
    for starter in _starters(n):
        adder = _adder(n, starter)
        if adder is not None:
            return starter, adder
    raise RuntimeError(f"no starter-adder pair for Z_{n}")  # pragma: no cover - not reached for n <= 39


def _starters(n: int):
    """Every starter of Z_n (pairs covering 1..n-1, differences ±d once each), in DFS order."""
    def rec(rest, used, cur):
        if not rest:
            yield list(cur)
            return
        x = rest[0]
        for y in rest[1:]:
            d = min((y - x) % n, (x - y) % n)
            if d not in used:
                cur.append((x, y))
                yield from rec([z for z in rest if z not in (x, y)], used | {d}, cur)
                cur.pop()
    yield from rec(list(range(1, n)), frozenset(), [])


def _adder(n: int, starter):
    """Distinct sets s_0..s_{T-1} with {s_0} ∪ {s_i − a_i, s_i − b_i} = Z_n, or None."""
    T = len(starter) + 1
    taken_value, taken_set, s = [False] * n, [False] * n, [0] * T

    def values(i, v):
        if i == 0:
            return (v,)
        a, b = starter[i - 1]
        return ((v - a) % n, (v - b) % n)

    def rec(i):
        if i == T:
            return True
        for v in range(n):
            vals = values(i, v)
            if taken_set[v] or any(taken_value[x] for x in vals):
                continue
            for x in vals:
                taken_value[x] = True
            taken_set[v], s[i] = True, v
            if rec(i + 1):
                return True
            for x in vals:
                taken_value[x] = False
            taken_set[v] = False
        return False

    return s if rec(0) else None


def _three_table_sets(ns, ew, r):
    """Sets of the 3-table Howell: the one-factorisation of K6 that shares least."""
    edges = [frozenset(e) for e in itertools.combinations(range(6), 2)]

    def matchings(vs):
        if not vs:
            yield []
            return
        for b in vs[1:]:
            for m in matchings([v for v in vs if v not in (vs[0], b)]):
                yield [frozenset((vs[0], b))] + m

    perfect = [frozenset(m) for m in matchings(list(range(6)))]

    def factorisations(used, cur):
        if len(cur) == 5:
            yield list(cur)
            return
        first = min((e for e in edges if e not in used), key=sorted)
        for m in perfect:
            if first in m and not (m & used):
                yield from factorisations(used | m, cur + [m])

    def shared(f):  # tables short of distinct sets, summed over rounds
        set_of = {e: i for i, m in enumerate(f) for e in m}
        return sum(3 - len({set_of[frozenset((a, b))] for a, b, rr in zip(ns, ew, r) if rr == k}) for k in range(5))

    best = min(factorisations(frozenset(), []), key=shared)
    set_of = {e: i for i, m in enumerate(best) for e in m}
    return np.array([set_of[frozenset((a, b))] for a, b in zip(ns, ew)])


def balanced_rounds(rnd, bset, n_rounds: int, keep: int) -> np.ndarray:
    """``keep`` of the rounds whose board-set plays are as even as possible (sorted).

    Greedy: add, one at a time, the round that keeps the plays of every set
    most even (lowest sum of squared plays; ties → the earliest round); then
    swap a chosen round for an unchosen one while that lowers the spread or
    the sum of squares (the first such swap in (chosen, unchosen) order,
    each step weighing every swap at once).  Deterministic; sets played less
    are match-pointed with Neuberg.
    """
    plays = np.zeros((n_rounds, int(bset.max()) + 1), np.int64)
    np.add.at(plays, (rnd, bset), 1)
    count = np.zeros(plays.shape[1], np.int64)
    chosen: list[int] = []
    free = list(range(n_rounds))  # ascending while adding: argmin's first minimum is the earliest round
    for _ in range(keep):
        f = np.array(free)
        best = int(f[np.argmin(((count + plays[f]) ** 2).sum(axis=1))])
        chosen.append(best)
        free.remove(best)
        count += plays[best]
    while free:
        # trial[i, j]: the plays with chosen[i] swapped for free[j]; the first in row-major order costing less
        trial = count - plays[chosen][:, None, :] + plays[free][None, :, :]
        spread = trial.max(axis=2) - trial.min(axis=2)
        squares = (trial ** 2).sum(axis=2)
        c_spread, c_squares = int(count.max() - count.min()), int((count ** 2).sum())
        better = (spread < c_spread) | ((spread == c_spread) & (squares < c_squares))
        if not better.any():
            break
        i, j = divmod(int(np.argmax(better)), len(free))
        count = trial[i, j]
        chosen[i], free[j] = free[j], chosen[i]
    return np.array(sorted(chosen))
